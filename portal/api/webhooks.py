"""``/api/v1/tournaments/SLUG/webhooks/``: a tournament's webhook subscriptions and their delivery log,
as the page ``/accounts/dashboard/SLUG/webhooks/`` has them.

- ``GET``: the subscriptions; ``POST {"url", "events"}``: a new one, answered 201 with its ``secret`` (the only
  time it is shown);
- ``GET``/``PATCH``/``DELETE ID/``: one subscription; ``PATCH`` changes ``url``, ``events`` or ``active``;
- ``GET deliveries/`` (``?status=``, ``?subscription=``, paginated): the messages sent, newest first;
- ``POST deliveries/ID/redeliver/``: send one again now, 202.

Through ``tournaments.webhooks.subscriptions``: each act in the tournament's history. Only its organizers and staff
(403 with the rule for anyone else, nothing changed); a refused URL or event is a 400 naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import re_path
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import generics, serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from portal.api.common import DETAIL_SCHEMA, ERRORS_SCHEMA, ApiPagination, WellFormedInput, is_id, local_iso
from portal.api.views import SLUG_PATTERN
from rulesets.errors import Invalid, Problem
from tournaments.models import DeliveryStatus, Tournament, WebhookDelivery, WebhookEvent, WebhookSubscription
from tournaments.webhooks import subscriptions

KEYS = {"url", "events", "active"}
EVENTS_HELP = "the events it receives, of: " + ", ".join(WebhookEvent.values)


class SubscriptionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    events = serializers.ListField(child=serializers.ChoiceField(choices=WebhookEvent.choices), help_text=EVENTS_HELP)
    active = serializers.BooleanField(help_text="false: paused, it receives nothing")
    created_at = serializers.DateTimeField(help_text="in the tournament's zone")
    created_by = serializers.CharField(allow_null=True, help_text="the user name of who subscribed it")


class NewSubscriptionSerializer(SubscriptionSerializer):
    secret = serializers.CharField(help_text="the signing secret (Standard Webhooks' whsec_ form), shown only in "
                                             "this answer")


class SubscribeRequestSerializer(serializers.Serializer):
    url = serializers.CharField(help_text="an https (or http) URL reaching a public address")
    events = serializers.ListField(child=serializers.ChoiceField(choices=WebhookEvent.choices), help_text=EVENTS_HELP)


class ChangeRequestSerializer(serializers.Serializer):
    url = serializers.CharField(required=False)
    events = serializers.ListField(child=serializers.ChoiceField(choices=WebhookEvent.choices), required=False,
                                   help_text=EVENTS_HELP)
    active = serializers.BooleanField(required=False)


class DeliverySerializer(serializers.ModelSerializer):
    subscription = serializers.IntegerField(source="subscription_id")
    url = serializers.CharField(source="subscription.url")
    event = serializers.ChoiceField(choices=WebhookEvent.choices)
    status = serializers.ChoiceField(choices=DeliveryStatus.choices, help_text="pending (waiting for an attempt), "
                                     "delivered (a 2xx answer) or failed (24 hours of retries over)")
    payload = serializers.JSONField(help_text="the body sent: {type, timestamp, data}")
    created_at = serializers.SerializerMethodField()
    next_attempt_at = serializers.SerializerMethodField()
    last_attempt_at = serializers.SerializerMethodField()
    delivered_at = serializers.SerializerMethodField()

    class Meta:
        model = WebhookDelivery
        fields = ["id", "subscription", "url", "event", "msg_id", "status", "attempts", "last_response_code",
                  "last_error", "created_at", "last_attempt_at", "next_attempt_at", "delivered_at", "payload"]

    def _local(self, value) -> str | None:
        return local_iso(value, self.context["tournament"])

    def get_created_at(self, obj: WebhookDelivery) -> str | None:
        return self._local(obj.created_at)

    def get_next_attempt_at(self, obj: WebhookDelivery) -> str | None:
        return self._local(obj.next_attempt_at) if obj.status == DeliveryStatus.PENDING else None

    def get_last_attempt_at(self, obj: WebhookDelivery) -> str | None:
        return self._local(obj.last_attempt_at)

    def get_delivered_at(self, obj: WebhookDelivery) -> str | None:
        return self._local(obj.delivered_at)


def item(row: WebhookSubscription, tournament: Tournament, *, secret: bool = False) -> dict[str, Any]:
    out = {"id": row.pk, "url": row.url, "events": list(row.events), "active": row.active,
           "created_at": local_iso(row.created_at, tournament),
           "created_by": row.created_by.username if row.created_by_id else None}
    if secret:
        out["secret"] = row.secret
    return out


def _body(request, required: tuple[str, ...] = ()) -> Mapping[str, Any]:
    data = request.data
    if not isinstance(data, Mapping):
        raise Invalid(Problem("", _("the body must be a JSON object")))
    unknown = sorted(set(data) - KEYS)
    problems = [Problem(key, _("unknown field; the fields are %(fields)s") % {"fields": ", ".join(sorted(KEYS))})
                for key in unknown]
    problems += [Problem(key, _("is required")) for key in required if key not in data]
    if problems:
        raise Invalid(problems)
    return data


def _tournament(request, slug: str) -> Tournament:
    tournament = get_object_or_404(Tournament, slug=slug)
    subscriptions.require_manager(request.user, tournament)
    return tournament


EXAMPLE = {"id": 1, "url": "https://bot.example.org/portal", "events": ["result.saved", "standings.changed"],
           "active": True, "created_at": "2026-05-04T18:30:00+03:00", "created_by": "olga"}
FORBIDDEN = OpenApiExample("Not an organizer", response_only=True, status_codes=["403"], value={
    "detail": "Only the organizers of Гран-при МУБК, весна subscribe URLs to its events and read its webhook "
              "deliveries."})
REFUSED = OpenApiExample("A private address", response_only=True, status_codes=["400"], value={"errors": [{
    "path": "url", "message": "10.0.0.5 is a loopback, private or reserved address: webhooks go to public "
                              "addresses only"}]})
WHO = "Only the tournament's organizers and staff (403 with the rule for anyone else, nothing changed)."


class WebhooksView(WellFormedInput, APIView):
    """A tournament's webhook subscriptions: list, subscribe."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="tournaments_webhooks_list", summary="A tournament's webhook subscriptions",
        description="Every URL subscribed to the tournament's events, with its events and whether it is active "
                    "(the secret is never shown again). " + WHO,
        responses={200: SubscriptionSerializer(many=True), 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("The subscriptions", response_only=True, status_codes=["200"], value=EXAMPLE),
                  FORBIDDEN],
    )
    def get(self, request, slug: str):
        tournament = _tournament(request, slug)
        rows = WebhookSubscription.objects.filter(tournament=tournament).select_related("created_by").order_by("pk")
        return Response([item(row, tournament) for row in rows])

    @extend_schema(
        operation_id="tournaments_webhooks_create", summary="Subscribe a URL to a tournament's events",
        description="`{\"url\": URL, \"events\": [EVENT, ...]}`: the URL receives each of the events as a POST "
                    "signed by the Standard Webhooks convention (headers webhook-id, webhook-timestamp, "
                    "webhook-signature; the page /webhooks/ tells a receiver how to verify it). The answer, 201, "
                    "holds the signing `secret`: the only time it is shown. A URL that is not http(s), holds "
                    "credentials, or resolves to a loopback, private, link-local or reserved address is a 400 at "
                    "`url`; an unknown event a 400 at its index. In the tournament's history. " + WHO,
        request=SubscribeRequestSerializer,
        responses={201: NewSubscriptionSerializer, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("Subscribe", request_only=True, value={
            "url": "https://bot.example.org/portal", "events": ["result.saved", "standings.changed"]}),
                  OpenApiExample("Subscribed", response_only=True, status_codes=["201"], value={
                      **EXAMPLE, "secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"}), REFUSED, FORBIDDEN],
    )
    def post(self, request, slug: str):
        tournament = _tournament(request, slug)
        data = _body(request, ("url", "events"))
        if "active" in data:
            raise Invalid(Problem("active", _("a new subscription is active; pause it with PATCH")))
        row = subscriptions.subscribe(request.user, tournament, data["url"], data["events"])
        return Response(item(row, tournament, secret=True), status=status.HTTP_201_CREATED)


class WebhookView(WellFormedInput, APIView):
    """One subscription: read, change, delete."""

    permission_classes = [IsAuthenticated]

    def _row(self, request, slug: str, pk: str) -> tuple[Tournament, WebhookSubscription]:
        tournament = _tournament(request, slug)
        return tournament, get_object_or_404(WebhookSubscription.objects.select_related("created_by", "tournament"),
                                             tournament=tournament, pk=pk)

    @extend_schema(
        operation_id="tournaments_webhooks_retrieve", summary="One webhook subscription",
        description="Its URL, events and whether it is active. " + WHO,
        responses={200: SubscriptionSerializer, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("A subscription", response_only=True, status_codes=["200"], value=EXAMPLE),
                  FORBIDDEN],
    )
    def get(self, request, slug: str, pk: str):
        tournament, row = self._row(request, slug, pk)
        return Response(item(row, tournament))

    @extend_schema(
        operation_id="tournaments_webhooks_partial_update", summary="Change a webhook subscription",
        description="`url`, `events` or `active` (false pauses it: nothing is sent, and the deliveries waiting for "
                    "a retry fail at their next attempt). The same checks as a new subscription's; in the "
                    "tournament's history. " + WHO,
        request=ChangeRequestSerializer,
        responses={200: SubscriptionSerializer, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("Pause", request_only=True, value={"active": False}),
                  OpenApiExample("Paused", response_only=True, status_codes=["200"], value={**EXAMPLE,
                                                                                          "active": False}),
                  REFUSED, FORBIDDEN],
    )
    def patch(self, request, slug: str, pk: str):
        tournament, row = self._row(request, slug, pk)
        data = _body(request)
        row = subscriptions.change(request.user, row, url=data.get("url"), events=data.get("events"),
                                   active=data.get("active"))
        return Response(item(row, tournament))

    @extend_schema(
        operation_id="tournaments_webhooks_destroy", summary="Unsubscribe a URL",
        description="The subscription and its delivery log are deleted; 204. In the tournament's history. " + WHO,
        responses={204: None, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[FORBIDDEN],
    )
    def delete(self, request, slug: str, pk: str):
        _tournament, row = self._row(request, slug, pk)
        subscriptions.unsubscribe(request.user, row)
        return Response(status=status.HTTP_204_NO_CONTENT)


DELIVERY_EXAMPLE = {
    "id": 7, "subscription": 1, "url": "https://bot.example.org/portal", "event": "standings.changed",
    "msg_id": "msg_2hRkq3tXbC0Y9mHc1QWvUeGs", "status": "pending", "attempts": 2, "last_response_code": 503,
    "last_error": "HTTP 503 Service Unavailable", "created_at": "2026-05-04T18:30:00+03:00",
    "last_attempt_at": "2026-05-04T18:30:31+03:00", "next_attempt_at": "2026-05-04T18:32:00+03:00",
    "delivered_at": None, "payload": {"type": "standings.changed", "timestamp": "2026-05-04T15:30:00Z", "data": {
        "tournament": "mubk-spring", "version": 42, "stages": ["season"], "final": {"season": False}, "moved": [
            {"stage": "season", "team": "Signum", "rank_before": 3, "rank_after": 2, "points_before": 9.0,
             "points_after": 11.0, "status_before": "active", "status_after": "active"}]}}}


class DeliveriesView(WellFormedInput, generics.ListAPIView):
    """The delivery log of a tournament's webhooks."""

    permission_classes = [IsAuthenticated]
    serializer_class = DeliverySerializer
    pagination_class = ApiPagination
    numeric_lookup = False
    queryset = WebhookDelivery.objects.none()  # the schema's; a request reads the tournament's (get_queryset)

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return self.queryset
        tournament = self.tournament = _tournament(self.request, self.kwargs["slug"])
        rows = WebhookDelivery.objects.filter(subscription__tournament=tournament).select_related(
            "subscription").order_by("-created_at", "-pk")
        params = self.request.query_params
        wanted = params.get("status")
        if wanted is not None:
            if wanted not in DeliveryStatus.values:
                raise Invalid(Problem("status", _("one of: %(values)s") % {"values": ", ".join(DeliveryStatus.values)}))
            rows = rows.filter(status=wanted)
        subscription = params.get("subscription")
        if subscription is not None:
            if not is_id(subscription):
                raise Invalid(Problem("subscription", _("must be a whole number of at least 1")))
            rows = rows.filter(subscription_id=int(subscription))
        return rows

    def get_serializer_context(self):
        return {**super().get_serializer_context(), "tournament": getattr(self, "tournament", None)}

    @extend_schema(
        operation_id="tournaments_webhooks_deliveries_list", summary="The delivery log of a tournament's webhooks",
        description="Every message sent to the tournament's subscriptions, newest first: its event, message id "
                    "(the webhook-id header), status (pending, delivered, failed), attempts, last response code and "
                    "error, next attempt, and the payload sent. A failed attempt is retried with backoff (30 s, "
                    "2 min, 10 min, 30 min, 1 h, 2 h, 4 h, then every 4 h) for 24 hours. `?status=` and "
                    "`?subscription=` filter it. " + WHO,
        parameters=[OpenApiParameter("status", str, enum=list(DeliveryStatus.values)),
                    OpenApiParameter("subscription", int, description="a subscription's id")],
        responses={200: DeliverySerializer(many=True), 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("A retried delivery", response_only=True, status_codes=["200"],
                                  value=DELIVERY_EXAMPLE), FORBIDDEN],
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class RedeliverView(WellFormedInput, APIView):
    """Send a delivery again."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="tournaments_webhooks_redeliver", summary="Send a webhook delivery again",
        description="The message is sent once more now, with the same message id and payload and a new timestamp "
                    "and signature; if it fails it is retried for another 24 hours. 202 with the delivery. " + WHO,
        request=None,
        responses={202: DeliverySerializer, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("Queued", response_only=True, status_codes=["202"], value={
            **DELIVERY_EXAMPLE, "attempts": 2, "next_attempt_at": "2026-05-04T19:00:00+03:00"}), FORBIDDEN],
    )
    def post(self, request, slug: str, pk: str):
        tournament = _tournament(request, slug)
        row = get_object_or_404(WebhookDelivery.objects.select_related("subscription__tournament"),
                                subscription__tournament=tournament, pk=pk)
        row = subscriptions.send_again(request.user, row)
        return Response(DeliverySerializer(row, context={"tournament": tournament}).data,
                        status=status.HTTP_202_ACCEPTED)


PREFIX = rf"^tournaments/(?P<slug>{SLUG_PATTERN})/webhooks/"
urlpatterns = [
    re_path(PREFIX + "$", WebhooksView.as_view(), name="api-tournament-webhooks"),
    re_path(PREFIX + r"deliveries/$", DeliveriesView.as_view(), name="api-tournament-webhook-deliveries"),
    re_path(PREFIX + r"deliveries/(?P<pk>[0-9]+)/redeliver/$", RedeliverView.as_view(),
            name="api-tournament-webhook-redeliver"),
    re_path(PREFIX + r"(?P<pk>[0-9]+)/$", WebhookView.as_view(), name="api-tournament-webhook"),
]
