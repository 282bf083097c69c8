"""``/api/v1/``: an organizer creates a tournament.

- ``POST tournaments/new/``: ``{"name", "slug", "ruleset", "timezone", "starts_on", "ends_on",
  "registration_deadline", "room", "settings"}`` (``name`` and ``ruleset`` required; ``slug`` left out is made
  from the name; ``settings`` holds only what differs from the ruleset's defaults) through
  ``tournaments.setup.create_tournament``, as the page ``/accounts/dashboard/new/`` does: 201 with the tournament
  (every setting filled in), the creator its organizer. Beside ``tournaments/import/`` (a whole interchange
  document, staff only), not on ``tournaments/`` itself, whose viewset reads.

Refusals (``portal.api.errors``): 400 naming each field (``settings.KEY`` for a setting, in the ruleset's words),
403 naming the rule for a user who may not create (``tournaments.setup``: staff and organizers).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.urls import path
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from formats import registry
from portal.api.common import WellFormedInput
from portal.api.serializers import TournamentSerializer
from rulesets.errors import Invalid
from rulesets.interchange import MAX_TIMEZONE, MAX_TOURNAMENT_NAME, Reader
from tournaments.setup import DEFAULT_ZONE, MAX_ROOM, MAX_SLUG, create_tournament, require_creator, suggest_slug

KEYS = {"name", "slug", "ruleset", "timezone", "starts_on", "ends_on", "registration_deadline", "room", "settings"}

CREATE_EXAMPLE = registry.example("create")


def read_request(data: Any) -> dict[str, Any]:
    """The keyword arguments of ``create_tournament`` from a JSON object, typed as the interchange reads them."""
    r = Reader()
    body = r.obj(data, "", KEYS, {"name", "ruleset"})
    if body is None:
        raise Invalid(r.problems)
    for key in sorted(key for key, value in body.items() if value is None):
        r.fail(key, _("must not be null: leave the field out for its default"))
    name = r.string(body.get("name"), "name", limit=MAX_TOURNAMENT_NAME)
    slug = r.string(body.get("slug"), "slug", required=False, limit=MAX_SLUG)
    ruleset = r.string(body.get("ruleset"), "ruleset", limit=40)
    zone = r.string(body.get("timezone"), "timezone", required=False, limit=MAX_TIMEZONE) or DEFAULT_ZONE
    starts_on = r.date(body.get("starts_on"), "starts_on")
    ends_on = r.date(body.get("ends_on"), "ends_on")
    deadline = r.datetime(body.get("registration_deadline"), "registration_deadline")
    room = r.string(body.get("room"), "room", required=False, allow_empty=True, limit=MAX_ROOM) or ""
    settings = body.get("settings", {})
    if not isinstance(settings, Mapping):
        r.fail("settings", _("must be an object"))
    if r.problems:
        raise Invalid(r.problems)
    return {"name": name, "slug": slug or suggest_slug(name or ""), "ruleset": ruleset, "timezone": zone,
            "starts_on": starts_on, "ends_on": ends_on, "registration_deadline": deadline, "room": room,
            "settings": dict(settings)}


class TournamentCreateView(WellFormedInput, APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(
        operation_id="tournaments_create",
        summary="Create a tournament",
        description=(
            "Creates an empty tournament of a ruleset, as the page /accounts/dashboard/new/ does, in one "
            "transaction: the ruleset's settings with every default filled in (`settings` sends only what "
            "differs; each is judged by the ruleset's own validation), the ruleset's version and rule constants "
            "frozen, the creator its `organizer`, one `create` entry in the history. `slug` left out is made "
            "from the name. Staff and the organizers of a tournament may create one (403 for anyone else). "
            "A refusal names each field (`settings.KEY` for a setting): 400, nothing written; a taken slug too."),
        request=inline_serializer("TournamentCreate", {
            "name": serializers.CharField(), "slug": serializers.CharField(required=False),
            "ruleset": serializers.CharField(), "timezone": serializers.CharField(required=False),
            "starts_on": serializers.DateField(required=False), "ends_on": serializers.DateField(required=False),
            "registration_deadline": serializers.DateTimeField(required=False),
            "room": serializers.CharField(required=False),
            "settings": serializers.DictField(required=False)}),
        responses={201: TournamentSerializer},
        examples=[
            OpenApiExample("A family league", value=CREATE_EXAMPLE, request_only=True),
            OpenApiExample("Refused", value={"errors": [{"path": "settings.groups",
                                                         "message": "0 is below 1 (FL-8)"}]},
                           response_only=True, status_codes=["400"]),
        ],
    )
    def post(self, request):
        require_creator(request.user)  # 403 before the body is read
        tournament = create_tournament(request.user, **read_request(request.data))
        response = Response(TournamentSerializer(tournament).data, status=status.HTTP_201_CREATED)
        response["Location"] = f"{request.path.rsplit('/new/', 1)[0]}/{tournament.slug}/"
        return response


urlpatterns = [
    path("tournaments/new/", TournamentCreateView.as_view(), name="api-tournament-create"),
]
