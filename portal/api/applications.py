"""``/api/v1/``: a ChGK season's applications (CHGK-1, CHGK-5).

- ``POST tournaments/SLUG/applications/``: the signed-in player applies for a team and is its captain
  (``formats.chgk_tour_points.services.apply_as_captain``: the checks of the season's page, with the deadline);
- ``POST tournaments/SLUG/applications/ID/decision/``: the organizing committee admits the application (within
  the queue's limit, CHGK-5) or refuses it with a reason (``admit_application``, ``refuse_application``).

The commands decide and audit; refusals are answered by ``portal.api.errors``: 400 (the rules), 403 with the
rule's words (not a confirmed player; not an organizer), 404, 409 (already admitted or refused).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import re_path
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from formats.chgk_tour_points import services
from formats.chgk_tour_points.models import ApplicationStatus, ChgkApplication
from portal.api.common import WellFormedInput, ZonedDateTimeField
from rulesets.base import Problem
from rulesets.errors import Invalid
from rulesets.facts import LEAGUES
from tournaments.models import Tournament

SLUG = r"[-\w]+"
DECISIONS = ("admit", "refuse")


class ApplicationSerializer(serializers.ModelSerializer):
    """An application as its captain and the organizers read it (CHGK-1, CHGK-5)."""

    tournament = serializers.SlugRelatedField(slug_field="slug", read_only=True)
    status = serializers.ChoiceField(choices=ApplicationStatus.choices, read_only=True)
    filed_at = ZonedDateTimeField("tournament")
    decided_at = ZonedDateTimeField("tournament")
    captain_player = serializers.SlugRelatedField(slug_field="nick", read_only=True, allow_null=True)

    class Meta:
        model = ChgkApplication
        fields = ["id", "tournament", "team_name", "captain", "captain_player", "players", "home_university",
                  "league", "played_tournaments", "filed_at", "status", "refusal_reason", "decided_at", "team"]
        read_only_fields = fields


APPLICATION_EXAMPLE = {
    "id": 7, "tournament": "chgk-spring", "team_name": "Знатоки", "captain": "Иван Иванов",
    "captain_player": "Иван Иванов", "players": ["Иван Иванов", "Пётр Петров", "Анна Смирнова", "Олег Орлов"],
    "home_university": True, "league": "first", "played_tournaments": "", "filed_at": "2027-01-20T19:00:00+03:00",
    "status": "pending", "refusal_reason": "", "decided_at": None, "team": None}


def _season(slug: str) -> Tournament:
    return services.require_season(get_object_or_404(Tournament, slug=slug))


def _object(request) -> Mapping[str, Any]:
    data = request.data
    if not isinstance(data, Mapping):
        raise Invalid(Problem("", _("the body must be a JSON object")))
    return data


def _text(data: Mapping[str, Any], key: str, *, limit: int = 1000) -> str:
    value = data.get(key, "")
    if value is None:
        return ""
    if not isinstance(value, str):
        raise Invalid(Problem(key, _("must be a string")))
    if len(value) > limit:
        raise Invalid(Problem(key, _("at most %(limit)s characters") % {"limit": limit}))
    return value


def _names(data: Mapping[str, Any], key: str) -> list[str]:
    value = data.get(key, [])
    if isinstance(value, str):
        return services.split_names(value)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise Invalid(Problem(key, _("must be a list of names")))
    return [v.strip() for v in value if v.strip()]


def _limit(data: Mapping[str, Any]) -> int | None:
    value = data.get("limit")
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise Invalid(Problem("limit", _("The team limit is a whole number from 1.")))
    return value


class ApplicationsView(WellFormedInput, APIView):
    """A captain applies for a team of the season."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="tournaments_applications_create",
        summary="Apply for a team of a ChGK season as its captain",
        description=(
            "The signed-in user's confirmed player applies for a team and is its captain (CHGK-1): "
            "`{\"team_name\": ..., \"players\": [the other players' full names], \"home_university\": false, "
            "\"league\": \"none\"|\"second\"|\"first\"|\"higher\", \"played_tournaments\": \"...\"}`. The checks "
            "are the season page's: the registration is open and its deadline has not passed, 4 to 10 players "
            "with the captain (CHGK-1, CHGK-2), no second application of the same team name, no player already on "
            "another team of the season or in another pending application. 201 with the pending application; "
            "400 naming each problem and its rule; 403 for a user without a confirmed player."),
        request={"application/json": inline_serializer("CaptainApplication", {
            "team_name": serializers.CharField(), "players": serializers.ListField(child=serializers.CharField()),
            "home_university": serializers.BooleanField(required=False),
            "league": serializers.ChoiceField(choices=LEAGUES, required=False),
            "played_tournaments": serializers.CharField(required=False)})},
        responses={201: ApplicationSerializer},
        examples=[OpenApiExample("Filed", response_only=True, status_codes=["201"], value=APPLICATION_EXAMPLE)],
    )
    def post(self, request, slug: str):
        tournament = _season(slug)
        data = _object(request)
        home_university = data.get("home_university", False)
        if not isinstance(home_university, bool):
            raise Invalid(Problem("home_university", _("must be true or false")))
        application = services.apply_as_captain(
            request.user, tournament, team_name=_text(data, "team_name", limit=100), players=_names(data, "players"),
            home_university=home_university, league=_text(data, "league", limit=10) or "none",
            played_tournaments=_text(data, "played_tournaments"))
        return Response(ApplicationSerializer(application).data, status=status.HTTP_201_CREATED)


class ApplicationDecisionView(WellFormedInput, APIView):
    """The organizing committee admits or refuses one application."""

    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="tournaments_applications_decision",
        summary="Admit or refuse one application to a ChGK season",
        description=(
            "`{\"decision\": \"admit\", \"limit\": 12}` admits the application as the queue would (CHGK-5): "
            "only one within the first `limit` of the queue (host-university teams that applied before the "
            "deadline first, then all others, each group in order of application time; no `limit`: every "
            "application), creating its team with the captain and the roster. `{\"decision\": \"refuse\", "
            "\"reason\": \"...\"}` refuses it; the reason is required and its captain reads it. Only the "
            "tournament's organizers and curator decide (403 with the rule); an application already admitted or "
            "refused is a 409. Each decision is audited."),
        parameters=[OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH,
                                     description="the application's id")],
        request={"application/json": inline_serializer("ApplicationDecision", {
            "decision": serializers.ChoiceField(choices=DECISIONS),
            "reason": serializers.CharField(required=False),
            "limit": serializers.IntegerField(required=False, min_value=1, allow_null=True)})},
        responses={200: ApplicationSerializer},
        examples=[OpenApiExample("Refused", response_only=True, status_codes=["200"], value={
            **APPLICATION_EXAMPLE, "status": "refused", "refusal_reason": "The roster names a player of another city.",
            "decided_at": "2027-01-25T12:00:00+03:00"})],
    )
    def post(self, request, slug: str, pk: str):
        tournament = _season(slug)
        if not services.may_decide(request.user, tournament):
            raise services.decide_refusal(tournament)
        data = _object(request)
        decision = data.get("decision")
        if decision not in DECISIONS:
            raise Invalid(Problem("decision", _("one of: %(decisions)s") % {"decisions": ", ".join(DECISIONS)}))
        if decision == "admit":
            team = services.admit_application(request.user, tournament, int(pk), _limit(data))
            application = team.chgk_application
        else:
            application = services.refuse_application(request.user, tournament, int(pk),
                                                      _text(data, "reason"))
        return Response(ApplicationSerializer(application).data)


urlpatterns = [
    re_path(rf"^tournaments/(?P<slug>{SLUG})/applications/$", ApplicationsView.as_view(),
            name="api-chgk-applications"),
    re_path(rf"^tournaments/(?P<slug>{SLUG})/applications/(?P<pk>[^/.]+)/decision/$",
            ApplicationDecisionView.as_view(), name="api-chgk-application-decision"),
]
