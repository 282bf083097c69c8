"""The structure of a tournament through the API: stages and ChGK tours, created, changed and
deleted by the tournament's organizers (or staff) through ``tournaments.structure``.

- ``POST tournaments/SLUG/stages/`` ``{"key", "order"?, "seed"?}``; ``PATCH``/``DELETE
  tournaments/SLUG/stages/KEY/`` (``"publish": true`` publishes the stage's schedule);
  (``"registration": "open"|"closed"`` opens or closes a Grand Prix stage's registration, GP-2, GP-5);
- ``POST tournaments/SLUG/tours/`` ``{"number", "stage"?, "host"?, "played_on"?, "questions"?}``; ``PATCH``/``DELETE
  tournaments/SLUG/tours/NUMBER/``;
- ``DELETE tournaments/SLUG/stages/KEY/games/NUMBER/``: a scheduled Mafia game slot with nothing entered (slots are
  created with ``POST games/``).

A body is read strictly (types as the schema says, no unknown keys); a refusal is 400 naming the field, anyone but
an organizer gets 403 with the rule (``{"detail": ...}``), before the body is read.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from django.db.models import Prefetch
from django.urls import re_path
from django.utils.translation import gettext as _
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.response import Response
from rest_framework.views import APIView

from formats import registry
from portal.api.common import DETAIL_SCHEMA, ERRORS_SCHEMA, WellFormedInput
from portal.api.serializers import StageSerializer, TourSerializer
from portal.api.views import SLUG_PATTERN
from rulesets.base import Problem
from rulesets.errors import Invalid, NotFound, Refused
from tournaments import structure
from tournaments.models import Game, GroupTeam, Mask, Stage, Team, Tour, Tournament

DATE = re.compile(r"^\d{4}-\d{2}-\d{2}$")
STAGE_FIELDS = {"key": str, "order": int, "seed": str, "publish": bool, "registration": str}
REGISTRATION_STATES = ("open", "closed")
TOUR_FIELDS = {"stage": str, "number": int, "host": (str, type(None)), "played_on": (str, type(None)),
               "questions": int}


class StageWriteSerializer(serializers.Serializer):
    key = serializers.CharField(max_length=40, help_text="one of the ruleset's stage keys, not yet taken")
    order = serializers.IntegerField(required=False, min_value=0, max_value=10_000,
                                     help_text="order of play (default: the key's place in the ruleset)")
    seed = serializers.CharField(required=False, allow_blank=True, max_length=100, help_text="public draw seed")
    publish = serializers.BooleanField(required=False, help_text="PATCH only: publish the stage's schedule now")


class StagePatchSerializer(StageWriteSerializer):
    key = serializers.CharField(max_length=40, required=False, help_text="a new key, while the stage is empty")
    publish = serializers.BooleanField(required=False, help_text="true: publish the stage's schedule now (CB-2)")
    registration = serializers.ChoiceField(
        choices=REGISTRATION_STATES, required=False,
        help_text="a format that registers per stage (Grand Prix): open the stage's registration once its "
                  "conditions are published (GP-2), or close it before the tournament's deadline, its "
                  "invitations with it (GP-5)")


class TourWriteSerializer(serializers.Serializer):
    number = serializers.IntegerField(min_value=1, max_value=10_000, help_text="not taken in the tournament")
    stage = serializers.CharField(required=False, max_length=40, help_text="the stage's key (default: the first)")
    host = serializers.CharField(required=False, allow_null=True, max_length=100, help_text="the host team (CHGK-7)")
    played_on = serializers.DateField(required=False, allow_null=True)
    questions = serializers.IntegerField(required=False, min_value=1, max_value=100, help_text="CHGK-8")


class TourPatchSerializer(TourWriteSerializer):
    number = serializers.IntegerField(required=False, min_value=1, max_value=10_000)


def _body(data: Any, fields: dict[str, Any], required: tuple[str, ...] = ()) -> dict[str, Any]:
    """The body as the schema types it; every problem with its path."""
    if not isinstance(data, dict):
        raise Invalid([Problem("", _("must be an object"))])
    problems = [Problem(key, _("unknown field")) for key in data if key not in fields]
    problems += [Problem(key, _("is required")) for key in required if key not in data]
    for key, kind in fields.items():
        if key not in data:
            continue
        value = data[key]
        if (isinstance(value, bool) and kind is int) or not isinstance(value, kind):
            problems.append(Problem(key, _("has the wrong type")))
    if isinstance(data.get("played_on"), str) and not _date(data["played_on"]):
        problems.append(Problem("played_on", _("must be a date: YYYY-MM-DD")))
    if problems:
        raise Invalid(problems)
    return dict(data)


def _date(text: str) -> dt.date | None:
    if not DATE.match(text):
        return None
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        return None


def _tournament(slug: str, user) -> Tournament:
    tournament = Tournament.objects.filter(slug=slug).first()
    if tournament is None:
        raise NotFound(_("No tournament %(slug)r.") % {"slug": slug})
    structure.require_organizer(user, tournament)
    return tournament


def _stage_answer(stage: Stage, code: int = status.HTTP_200_OK) -> Response:
    stage = Stage.objects.select_related("tournament").prefetch_related(
        Prefetch("groups__groupteam_set", queryset=GroupTeam.objects.select_related("team").order_by("order", "id")),
    ).get(pk=stage.pk)
    return Response(StageSerializer(stage).data, status=code)


def _tour_answer(tour: Tour, code: int = status.HTTP_200_OK) -> Response:
    tour = Tour.objects.select_related("stage__tournament", "host").prefetch_related(
        Prefetch("masks", queryset=Mask.objects.select_related("team").order_by("order", "id")),
        Prefetch("absent", queryset=Team.objects.order_by("name", "id"))).get(pk=tour.pk)
    return Response(TourSerializer(tour).data, status=code)


STAGE_EXAMPLE = {"id": 3, "tournament": "mt-autumn-2014", "key": "final", "order": 1, "seed": "",
                 "published_at": None, "groups": []}
TOUR_EXAMPLE = {"id": 4, "tournament": "mubk-spring", "stage": "season", "number": 3, "host": "Signum",
                "played_on": "2013-03-01", "questions": 8, "absent": [], "masks": {}, "version": 1,
                "updated_at": "2013-02-20T12:00:00+04:00", "updated_by": "organizer"}
RULE = "Organizers of the tournament (or staff) only; anyone else gets 403 naming the rule (roles.md)."
NUMBER_PARAMETER = OpenApiParameter("number", int, OpenApiParameter.PATH, description="the tour's number")


class StagesView(WellFormedInput, APIView):
    permission_classes: list = []

    @extend_schema(
        operation_id="tournament_stages_create", summary="Add a stage to a tournament",
        description="A new stage of one of the ruleset's stage keys, not taken yet. " + RULE,
        request=StageWriteSerializer,
        responses={201: StageSerializer, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("A final", value={"key": "final", "seed": ""}, request_only=True),
                  OpenApiExample("Added", value=STAGE_EXAMPLE, response_only=True, status_codes=["201"])],
    )
    def post(self, request, slug: str) -> Response:
        tournament = _tournament(slug, request.user)
        data = _body(request.data, {k: v for k, v in STAGE_FIELDS.items() if k not in ("publish", "registration")},
                     ("key",))
        stage = structure.add_stage(request.user, tournament, data["key"], order=data.get("order"),
                                    seed=data.get("seed", ""))
        return _stage_answer(stage, status.HTTP_201_CREATED)


def _stage_registration(user, stage: Stage, state: str) -> None:
    """Open or close one stage's registration, for a format that registers per stage (GP-2, GP-5)."""
    per_stage = registry.get(stage.tournament.ruleset).stage_registration
    if per_stage is None:
        raise Invalid([Problem("registration", _("%(tournament)s registers per tournament, not per stage") % {
            "tournament": stage.tournament.name})])
    if state not in REGISTRATION_STATES:
        raise Invalid([Problem("registration", _("must be open or closed"))])
    try:
        structure.run_stage_act(user, stage, per_stage.open if state == "open" else per_stage.close)
    except Refused as exc:
        if exc.code != "invalid":
            raise
        raise Invalid([Problem("registration", str(exc))]) from exc


class StageView(WellFormedInput, APIView):
    permission_classes: list = []

    def _stage(self, request, slug: str, key: str) -> Stage:
        tournament = _tournament(slug, request.user)
        stage = Stage.objects.filter(tournament=tournament, key=key).select_related("tournament").first()
        if stage is None:
            raise NotFound(_("%(tournament)s has no stage %(key)s.") % {"tournament": tournament.name, "key": key})
        return stage

    @extend_schema(
        operation_id="tournament_stages_partial_update", summary="Change a stage or publish its schedule",
        description="The key (while the stage has no games or tours), the order, the public draw seed; "
                    "`\"publish\": true` publishes the stage's schedule now (a late publication is allowed and "
                    "flagged, CB-2). " + RULE,
        request=StagePatchSerializer,
        responses={200: StageSerializer, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("Publish", value={"publish": True}, request_only=True),
                  OpenApiExample("Changed", value=STAGE_EXAMPLE, response_only=True, status_codes=["200"])],
    )
    def patch(self, request, slug: str, key: str) -> Response:
        stage = self._stage(request, slug, key)
        data = _body(request.data, STAGE_FIELDS)
        if any(name in data for name in ("key", "order", "seed")):
            stage = structure.update_stage(request.user, stage, key=data.get("key"), order=data.get("order"),
                                           seed=data.get("seed"))
        if data.get("publish"):
            stage = structure.publish_schedule(request.user, stage)
        if "registration" in data:
            _stage_registration(request.user, stage, data["registration"])
        return _stage_answer(stage)

    @extend_schema(
        operation_id="tournament_stages_destroy", summary="Delete an empty stage",
        description="A stage without games, tours, teams of its own or anything else naming it; its groups go "
                    "with it. " + RULE,
        responses={204: None, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("Not empty", value={"errors": [{"path": "key", "message": "stage final is not "
                                                                 "empty: it holds games"}]},
                                 response_only=True, status_codes=["400"])],
    )
    def delete(self, request, slug: str, key: str) -> Response:
        structure.delete_stage(request.user, self._stage(request, slug, key))
        return Response(status=status.HTTP_204_NO_CONTENT)


def _host(tournament: Tournament, name: str | None) -> Team | None:
    if name is None:
        return None
    team = Team.objects.filter(tournament=tournament, stage__isnull=True, name=name).first()
    if team is None:
        raise Invalid([Problem("host", _("%(team)s is not a team of %(tournament)s") % {
            "team": name, "tournament": tournament.name})])
    return team


class ToursView(WellFormedInput, APIView):
    permission_classes: list = []

    @extend_schema(
        operation_id="tournament_tours_create", summary="Add a ChGK tour",
        description="A new tour: its number (not taken in the tournament), host team (CHGK-7), date and number "
                    "of questions (CHGK-8, default from the settings); its masks are then entered with "
                    "`PUT /api/v1/tours/ID/masks/`. " + RULE,
        request=TourWriteSerializer,
        responses={201: TourSerializer, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("Tour 3", value={"number": 3, "host": "Signum", "played_on": "2013-03-01"},
                                 request_only=True),
                  OpenApiExample("Added", value=TOUR_EXAMPLE, response_only=True, status_codes=["201"])],
    )
    def post(self, request, slug: str) -> Response:
        tournament = _tournament(slug, request.user)
        data = _body(request.data, TOUR_FIELDS, ("number",))
        stages = Stage.objects.filter(tournament=tournament).select_related("tournament").order_by("order", "pk")
        stage = stages.filter(key=data["stage"]).first() if "stage" in data else stages.first()
        if stage is None:
            raise Invalid([Problem("stage", _("add the stage the tours are played in first") if "stage" not in data
                                   else _("%(tournament)s has no stage %(key)s") % {
                                       "tournament": tournament.name, "key": data["stage"]})])
        played_on = data.get("played_on")
        tour = structure.add_tour(request.user, stage, data["number"], host=_host(tournament, data.get("host")),
                                  played_on=_date(played_on) if played_on else None, questions=data.get("questions"))
        return _tour_answer(tour, status.HTTP_201_CREATED)


class TourView(WellFormedInput, APIView):
    permission_classes: list = []

    def _tour(self, request, slug: str, number: str) -> Tour:
        tournament = _tournament(slug, request.user)
        tour = Tour.objects.filter(stage__tournament=tournament, number=int(number)).select_related(
            "stage__tournament", "host").order_by("stage__order").first() if len(number) < 10 else None
        if tour is None:
            raise NotFound(_("%(tournament)s has no tour %(number)s.") % {"tournament": tournament.name,
                                                                           "number": number})
        return tour

    @extend_schema(
        operation_id="tournament_tours_partial_update", summary="Change a ChGK tour",
        description="Its number, host (`null`: none), date or number of questions; the questions do not change "
                    "once masks are entered. The tour's `version` moves. " + RULE,
        parameters=[NUMBER_PARAMETER], request=TourPatchSerializer,
        responses={200: TourSerializer, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("Another host", value={"host": "Rotor"}, request_only=True),
                  OpenApiExample("Changed", value=TOUR_EXAMPLE, response_only=True, status_codes=["200"])],
    )
    def patch(self, request, slug: str, number: str) -> Response:
        tour = self._tour(request, slug, number)
        data = _body(request.data, {k: v for k, v in TOUR_FIELDS.items() if k != "stage"})
        changes: dict[str, Any] = {}
        if "number" in data:
            changes["number"] = data["number"]
        if "host" in data:
            changes["host"] = _host(tour.stage.tournament, data["host"])
        if "played_on" in data:
            changes["played_on"] = _date(data["played_on"]) if data["played_on"] else None
        if "questions" in data:
            changes["questions"] = data["questions"]
        return _tour_answer(structure.update_tour(request.user, tour, **changes))

    @extend_schema(
        operation_id="tournament_tours_destroy", summary="Delete a ChGK tour with nothing entered",
        description="A tour without masks, questions or appeals. " + RULE,
        parameters=[NUMBER_PARAMETER],
        responses={204: None, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("Not empty", value={"errors": [{"path": "number", "message": "tour 3 is not "
                                                                 "empty: it holds answer masks"}]},
                                 response_only=True, status_codes=["400"])],
    )
    def delete(self, request, slug: str, number: str) -> Response:
        structure.delete_tour(request.user, self._tour(request, slug, number))
        return Response(status=status.HTTP_204_NO_CONTENT)


class GameSlotView(WellFormedInput, APIView):
    permission_classes: list = []

    @extend_schema(
        operation_id="tournament_game_slots_destroy", summary="Delete a scheduled game slot with nothing entered",
        description="A Mafia game that is only scheduled: no result, seats, absences, penalties or appeals (a "
                    "played game is corrected, not deleted). " + RULE,
        parameters=[OpenApiParameter("number", int, OpenApiParameter.PATH, description="the game's number")],
        responses={204: None, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("Played", value={"errors": [{"path": "number", "message": "game 3 has a result: "
                                                              "it is corrected, not deleted"}]},
                                 response_only=True, status_codes=["400"])],
    )
    def delete(self, request, slug: str, key: str, number: str) -> Response:
        tournament = _tournament(slug, request.user)
        game = Game.objects.filter(stage__tournament=tournament, stage__key=key, number=int(number)).select_related(
            "stage__tournament").first()
        if game is None:
            raise NotFound(_("%(tournament)s has no game %(number)s in stage %(key)s.") % {
                "tournament": tournament.name, "number": number, "key": key})
        structure.delete_game_slot(request.user, game)
        return Response(status=status.HTTP_204_NO_CONTENT)


urlpatterns = [
    re_path(rf"^tournaments/(?P<slug>{SLUG_PATTERN})/stages/$", StagesView.as_view(), name="api-structure-stages"),
    re_path(rf"^tournaments/(?P<slug>{SLUG_PATTERN})/stages/(?P<key>{SLUG_PATTERN})/$", StageView.as_view(),
            name="api-structure-stage"),
    re_path(rf"^tournaments/(?P<slug>{SLUG_PATTERN})/tours/$", ToursView.as_view(), name="api-structure-tours"),
    re_path(rf"^tournaments/(?P<slug>{SLUG_PATTERN})/tours/(?P<number>[0-9]+)/$", TourView.as_view(),
            name="api-structure-tour"),
    re_path(rf"^tournaments/(?P<slug>{SLUG_PATTERN})/stages/(?P<key>{SLUG_PATTERN})/games/(?P<number>[0-9]{{1,6}})/$",
            GameSlotView.as_view(), name="api-structure-game-slot"),
]
