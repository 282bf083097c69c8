"""REST API of the facts (``/api/v1/``): tournaments, stages, teams, players, families, games, tours,
penalties; the interchange import; the schedule (JSON and iCalendar).

Reads are open to everyone and paginated (``count``, ``next``, ``previous``,
``results``), in a stable order, with a fixed number of queries whatever the
tournament's size. Writes need the tournament's ``organizer`` role (or staff)
and go through the commands of ``tournaments.commands`` (atomic, versioned,
judged by the ruleset); their refusals become answers in
``portal.api.errors``. Standings are read from snapshots by
``portal.api.standings``.
"""

from __future__ import annotations

import json
import logging
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import DataError, IntegrityError, transaction
from django.db.models import Count, Prefetch
from django.http import HttpResponse, RawPostDataException
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
    inline_serializer,
)
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.exceptions import APIException, NotFound
from rest_framework.negotiation import BaseContentNegotiation
from rest_framework.permissions import IsAuthenticated
from rest_framework.renderers import BaseRenderer
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Family, Player, TournamentRole
from accounts.permissions import can_enter_results, can_record_decisions, result_entry_refusal
from formats import registry
from portal import hooks
from portal.api.common import (
    CONFLICT_SCHEMA,
    DETAIL_SCHEMA,
    ERRORS_SCHEMA,
    ApiPagination,
    OrganizerWritesOrReadOnly,
    WellFormedInput,
    is_organizer,
    local_iso,
    refusal,
)
from portal.api.filters import (
    FamilyFilter,
    GameFilter,
    PenaltyFilter,
    PlayerFilter,
    StageFilter,
    TeamFilter,
    TourFilter,
    TournamentFilter,
)
from portal.api.serializers import (
    GAME_LIST_FIELDS,
    FamilySerializer,
    GameSerializer,
    GameWriteSerializer,
    ImportResultSerializer,
    MasksWriteSerializer,
    PenaltySerializer,
    PenaltyWriteSerializer,
    PlayerSerializer,
    StageSerializer,
    TeamSerializer,
    TournamentSerializer,
    TourSerializer,
    game_rows,
)
from rulesets.base import Problem
from rulesets.errors import Invalid
from scoring.exports import schedule_ics
from tournaments import commands
from tournaments.fact_fields import SEAT
from tournaments.importer import ImportRefused, import_document
from tournaments.models import (
    Game,
    GroupTeam,
    Mask,
    NoShowElimination,
    Penalty,
    RosterEntry,
    Seat,
    Stage,
    Team,
    Tour,
    Tournament,
)
from tournaments.sources.json_input import read_json

log = logging.getLogger(__name__)
SLUG_PATTERN = r"[-\w]+"


TOURNAMENT_EXAMPLE = registry.example("tournament")


def _read_schema(name: str, example: dict, filters: str):
    return extend_schema_view(
        list=extend_schema(
            summary=f"List {name}",
            description=f"{name.capitalize()}, paginated (`?page=`, `?page_size=` up to 200) with `count`, in a "
                        f"stable order. Filters: {filters}.",
            examples=[OpenApiExample(f"A page of {name}", value=example, response_only=True)],
        ),
        retrieve=extend_schema(
            summary=f"One of the {name}",
            description=f"One of the {name}, with the same fields as in the list.",
            examples=[OpenApiExample(f"One of the {name}", value=example, response_only=True)],
        ),
    )


class PayloadTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"


def _too_large_message() -> str:
    return _("the document is larger than %(limit)d bytes (IMPORT_MAX_BYTES)") % {
        "limit": settings.DATA_UPLOAD_MAX_MEMORY_SIZE}


IMPORT_EXAMPLE = registry.example("import")


@_read_schema("tournaments", TOURNAMENT_EXAMPLE, "`ruleset`, `status`, `starts_after`/`starts_before`, `name`")
class TournamentViewSet(WellFormedInput, viewsets.ReadOnlyModelViewSet):
    """Tournaments by slug; ``import/`` takes a whole interchange document."""

    serializer_class = TournamentSerializer
    filterset_class = TournamentFilter
    pagination_class = ApiPagination
    lookup_field = "slug"
    lookup_value_regex = SLUG_PATTERN
    queryset = Tournament.objects.prefetch_related(
        Prefetch("stages", queryset=Stage.objects.order_by("order", "id"))).order_by("-starts_on", "name", "id")

    def initial(self, request, *args, **kwargs):
        if self.action == "import_document":
            try:
                length = int(request.META.get("CONTENT_LENGTH") or 0)
            except ValueError:
                length = 0
            if length > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
                raise PayloadTooLarge({"errors": [{"path": "", "message": _too_large_message()}]})
        super().initial(request, *args, **kwargs)

    @extend_schema(
        operation_id="tournaments_import",
        summary="Import a tournament (interchange document)",
        description=(
            "Takes one `tournament-portal/1` document (spec/interchange.md) as the JSON request body and stores "
            "the whole tournament in one transaction: all or nothing. Staff may import any document; a user "
            "holding the `organizer` role of an existing tournament may replace it (`?replace=true`). "
            "An existing slug is refused with 409 unless `?replace=true`. Every refusal names the JSON path: "
            "`{\"errors\": [{\"path\": ..., \"message\": ...}]}`. Documents larger than the upload limit get 413."
        ),
        parameters=[OpenApiParameter("replace", OpenApiTypes.BOOL, description="replace a tournament of the same "
                                     "slug")],
        request={"application/json": OpenApiTypes.OBJECT},
        responses={201: ImportResultSerializer, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 409: ERRORS_SCHEMA,
                   413: ERRORS_SCHEMA},
        examples=[
            OpenApiExample("A ChGK season", value=IMPORT_EXAMPLE, request_only=True),
            OpenApiExample("Imported", value={"slug": "mubk-spring"}, response_only=True, status_codes=["201"]),
            OpenApiExample("Refused", value={"errors": [{"path": "stages[0].games[3].seats[2].stats",
                                                         "message": "480 is outside 150..450 (CB-3)"}]},
                           response_only=True, status_codes=["400"]),
        ],
    )
    @action(detail=False, methods=["post"], url_path="import", permission_classes=[IsAuthenticated],
            filter_backends=[], pagination_class=None)
    def import_document(self, request):
        replace = request.query_params.get("replace", "").strip().lower() in ("1", "true", "yes", "on")
        try:
            raw = request.body
        except RequestDataTooBig:
            return refusal(_too_large_message(), code=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        except RawPostDataException:
            return refusal(_("send the document itself as the request body (application/json)"))
        if len(raw) > settings.DATA_UPLOAD_MAX_MEMORY_SIZE:
            return refusal(_too_large_message(), code=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE)
        try:
            document = read_json(raw)  # the API's one JSON reader: depth, NUL, finite numbers, with their paths
        except Invalid:
            denied = self._may_see_refusals(request, None, replace)
            if denied is not None:
                return denied
            raise  # the refusal's own answer (portal.api.errors)
        denied = self._may_see_refusals(request, document, replace)
        if denied is not None:
            return denied
        roles = []
        try:
            with transaction.atomic():
                if replace:
                    slug = _slug_of(document)
                    roles = list(TournamentRole.objects.filter(tournament__slug=slug).values_list("user_id", "role"))
                tournament = import_document(document, replace=replace)
                TournamentRole.objects.bulk_create([TournamentRole(user_id=user_id, tournament=tournament, role=role)
                                                    for user_id, role in roles])
        except (IntegrityError, DataError, OverflowError, RecursionError) as exc:
            log.info("import refused by the database: %r", str(exc))
            # raised, not answered: a unique slug another import took meanwhile is answered as without the race
            # (WellFormedInput.handle_exception: 409 naming the slug)
            raise ImportRefused([Problem("", _("the database refused the document: %(error)s") % {
                "error": exc})]) from exc
        response = Response({"slug": tournament.slug}, status=status.HTTP_201_CREATED)
        response["Location"] = f"{request.path.rsplit('/import/', 1)[0]}/{tournament.slug}/"
        return response

    def _may_see_refusals(self, request, document, replace: bool) -> Response | None:
        """Staff import anything; an organizer only replaces their own tournament. None: allowed."""
        user = request.user
        if user.is_staff and user.is_active:
            return None
        slug = _slug_of(document)
        tournament = Tournament.objects.filter(slug=slug).first() if replace and slug else None
        if tournament is not None and is_organizer(user, tournament):
            return None
        return Response({"detail": _("Only staff import tournaments; an organizer may replace their own "
                                     "tournament with ?replace=true.")}, status=status.HTTP_403_FORBIDDEN)

    @extend_schema(
        operation_id="tournaments_schedule",
        summary="A tournament's schedule",
        description="Games with their times and tours with their dates, in the tournament's time zone "
                    "(`timezone` names it). `?stage=KEY` narrows it to one stage. Not paginated: a fixed number "
                    "of queries whatever the size. The same schedule as iCalendar: `schedule.ics`.",
        parameters=[OpenApiParameter("stage", str, description="stage key")],
        responses={200: inline_serializer("Schedule", {
            "tournament": serializers.CharField(), "name": serializers.CharField(),
            "timezone": serializers.CharField(), "games": serializers.ListField(child=serializers.DictField()),
            "tours": serializers.ListField(child=serializers.DictField())}), 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("Schedule", response_only=True, value={
            "tournament": "mt-autumn-2014", "name": "Турнирные Мастера", "timezone": "Europe/Moscow",
            "games": [{"id": 7, "stage": "final", "number": 12, "group": "1", "round": 6,
                       "scheduled_at": "2014-09-08T19:00:00+04:00", "status": "scheduled"}],
            "tours": []})],
    )
    @action(detail=True, methods=["get"], url_path="schedule", filter_backends=[], pagination_class=None)
    def schedule(self, request, slug=None):
        tournament = get_object_or_404(Tournament, slug=slug)
        return Response(schedule_document(tournament, request.query_params.get("stage")))


def _slug_of(document) -> str | None:
    if isinstance(document, dict) and isinstance(document.get("tournament"), dict):
        slug = document["tournament"].get("slug")
        return slug if isinstance(slug, str) else None
    return None


def schedule_rows(tournament: Tournament, stage_key: str | None = None) -> tuple[list[dict], list[dict]]:
    """Games and tours of a tournament in order of play, as plain rows (two queries)."""
    games = Game.objects.filter(stage__tournament=tournament)
    tours = Tour.objects.filter(stage__tournament=tournament)
    if stage_key:
        games = games.filter(stage__key=stage_key)
        tours = tours.filter(stage__key=stage_key)
    game_rows = [
        {"id": pk, "stage": key, "number": number, "group": group or None, "round": rnd,
         "scheduled_at": scheduled_at, "status": state, "link": link or None, "updated_at": updated_at}
        for pk, key, number, group, rnd, scheduled_at, state, link, updated_at in games.order_by(
            "stage__order", "scheduled_at", "number", "id").values_list(
            "id", "stage__key", "number", "group_label", "round", "scheduled_at", "status", "link", "updated_at")
    ]
    tour_rows = [
        {"id": pk, "stage": key, "number": number, "host": host, "played_on": played_on, "questions": questions,
         "updated_at": updated_at}
        for pk, key, number, host, played_on, questions, updated_at in tours.order_by(
            "stage__order", "number", "id").values_list(
            "id", "stage__key", "number", "host__name", "played_on", "questions", "updated_at")
    ]
    return game_rows, tour_rows


def schedule_document(tournament: Tournament, stage_key: str | None = None) -> dict:
    games, tours = schedule_rows(tournament, stage_key)
    for row in games:
        row["scheduled_at"] = local_iso(row["scheduled_at"], tournament)
        del row["updated_at"]
    for row in tours:
        row["played_on"] = row["played_on"].isoformat() if row["played_on"] else None
        del row["updated_at"]
    return {"tournament": tournament.slug, "name": tournament.name, "timezone": tournament.timezone,
            "games": games, "tours": tours}


class ICalendarRenderer(BaseRenderer):
    media_type = "text/calendar"
    format = "ics"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data if isinstance(data, bytes) else json.dumps(data).encode()


class FirstRendererNegotiation(BaseContentNegotiation):
    """The calendar is a calendar whatever the client's Accept header says."""

    def select_parser(self, request, parsers):
        return parsers[0] if parsers else None

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class ScheduleCalendarView(WellFormedInput, APIView):
    renderer_classes = [ICalendarRenderer]
    content_negotiation_class = FirstRendererNegotiation

    @extend_schema(
        operation_id="tournaments_schedule_ics",
        summary="A tournament's schedule as iCalendar",
        description="One event per scheduled game (its start in the tournament's time zone, with the zone's "
                    "VTIMEZONE) and one all-day event per tour. `?stage=KEY` narrows it to one stage. Subscribe "
                    "to it from a calendar application.",
        parameters=[OpenApiParameter("stage", str, description="stage key")],
        responses={(200, "text/calendar"): OpenApiResponse(OpenApiTypes.BINARY, description="an iCalendar file"),
                   (404, "application/json"): DETAIL_SCHEMA},
        examples=[OpenApiExample("Calendar", response_only=True, media_type="text/calendar",
                                 value="BEGIN:VCALENDAR\r\nVERSION:2.0\r\n...\r\nEND:VCALENDAR\r\n")],
    )
    def get(self, request, slug: str):
        tournament = Tournament.objects.filter(slug=slug).first()
        if tournament is None:
            raise NotFound(_("No tournament %(slug)r.") % {"slug": slug})
        stage_key = request.query_params.get("stage")
        own = registry.for_tournament(tournament).schedule_ics(tournament, stage_key)
        if own is None:
            games, tours = schedule_rows(tournament, stage_key)
            own = schedule_ics(tournament, games, tours)
        response = HttpResponse(own, content_type="text/calendar; charset=utf-8")
        response["Content-Disposition"] = f'inline; filename="{tournament.slug}.ics"'
        return response


STAGE_EXAMPLE = {"id": 3, "tournament": "mt-autumn-2014", "key": "final", "order": 1, "seed": "",
                 "published_at": None, "groups": [{"name": "1", "teams": ["Eternity", "Wind"]}]}


@_read_schema("stages", STAGE_EXAMPLE, "`tournament` (slug), `key`")
class StageViewSet(WellFormedInput, viewsets.ReadOnlyModelViewSet):
    serializer_class = StageSerializer
    filterset_class = StageFilter
    pagination_class = ApiPagination
    queryset = Stage.objects.select_related("tournament").prefetch_related(
        Prefetch("groups__groupteam_set", queryset=GroupTeam.objects.select_related("team").order_by("order", "id")),
    ).order_by("tournament_id", "order", "id")


TEAM_EXAMPLE = {"id": 5, "tournament": "mt-autumn-2014", "stage": None, "name": "Eternity", "order": 0,
                "captain": "Majesty", "family": "Eternity", "league": "none", "home_university": False,
                "roster": [{"player": "Majesty", "order": 0, "joined_at": None, "left_at": None}]}


@_read_schema("teams", TEAM_EXAMPLE, "`tournament` (slug), `stage` (key), `name`, `player` (nick), `family`, "
                                     "`league`")
class TeamViewSet(WellFormedInput, viewsets.ReadOnlyModelViewSet):
    serializer_class = TeamSerializer
    filterset_class = TeamFilter
    pagination_class = ApiPagination
    queryset = Team.objects.select_related("tournament", "stage", "captain", "family").prefetch_related(
        Prefetch("roster", queryset=RosterEntry.objects.select_related("player").order_by("order", "id")),
    ).order_by("tournament_id", "stage__order", "order", "name", "id")


PLAYER_EXAMPLE = {"id": 9, "nick": "Majesty", "full_name": "", "level": 12, "disqualified": False}


@_read_schema("players", PLAYER_EXAMPLE, "`tournament` (slug), `team` (name), `family` (name), `nick` (contains)")
class PlayerViewSet(WellFormedInput, viewsets.ReadOnlyModelViewSet):
    serializer_class = PlayerSerializer
    filterset_class = PlayerFilter
    pagination_class = ApiPagination
    queryset = Player.objects.order_by("nick", "id")


FAMILY_EXAMPLE = {"id": 2, "name": "Eternity", "head": "Majesty", "official": True}


@_read_schema("families", FAMILY_EXAMPLE, "`tournament` (slug), `name` (contains)")
class FamilyViewSet(WellFormedInput, viewsets.ReadOnlyModelViewSet):
    serializer_class = FamilySerializer
    filterset_class = FamilyFilter
    pagination_class = ApiPagination
    queryset = Family.objects.select_related("head").order_by("name", "id")


SEAT_EXAMPLE = SEAT.example({"order": 0, "player": "Majesty", "team": "Eternity", "role": "don", "stats": 300,
                             "timed_out": False, "days_played": 4, "maniac_kills": 0, "in_final_phase": True,
                             "fake_passport": False})  # a field left out: its default (tournaments.fact_fields)
GAME_EXAMPLE = {"id": 7, "tournament": "mt-autumn-2014", "stage": "final", "number": 12, "group": "1", "round": 6,
                "timezone": "Europe/Moscow", "scheduled_at": "2014-09-08T19:00:00+04:00", "status": "played",
                "outcome": "mafia", "omon": False, "game_days": 4, "link": "https://mafia.example/log/123",
                "absent_teams": [], "no_show_eliminated": {}, "seats": [SEAT_EXAMPLE], "version": 3,
                "result_recorded_at": "2014-09-08T22:10:00+04:00", "updated_at": "2014-09-08T22:10:00+04:00",
                "updated_by": "organizer"}
GAME_WRITE_EXAMPLE = {"tournament": "mt-autumn-2014", "stage": "final", "number": 12, "group": "1", "round": 6,
                      "scheduled_at": "2014-09-08T19:00:00+04:00", "status": "played", "outcome": "mafia",
                      "game_days": 4, "seats": [{k: v for k, v in SEAT_EXAMPLE.items() if k != "order"}]}
CONFLICT_EXAMPLE = {"errors": [{"path": "version",
                                "message": "changed by organizer at 2014-09-08 22:10 (Europe/Moscow), reload"}],
                    "version": 4, "updated_by": "organizer", "updated_at": "2014-09-08T22:10:00+04:00"}


@_read_schema("games", GAME_EXAMPLE, "`tournament` (slug), `stage` (key), `group`, `round`, `number`, `status`, "
                                     "`team` (seated or absent), `player` (nick), `scheduled_after`/"
                                     "`scheduled_before` (ISO 8601)")
@extend_schema_view(
    create=extend_schema(
        summary="Enter a game with its seats",
        description="A new game of a stage, in the interchange format's game object plus `tournament` (slug) and "
                    "`stage` (key). The game is judged by the interchange rules and the ruleset's validation on "
                    "the tournament's facts with the game in place; a refusal names the path (`seats[2].team`). "
                    "The tournament's organizers, its curator and the judges of the stage (or staff) only.",
        request=GameWriteSerializer,
        responses={201: GameSerializer, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA},
        examples=[OpenApiExample("A played game", value=GAME_WRITE_EXAMPLE, request_only=True),
                  OpenApiExample("Entered", value=GAME_EXAMPLE, response_only=True, status_codes=["201"])],
    ),
    update=extend_schema(
        summary="Change a game and its seats",
        description="The game's whole new state with the `version` read. A write carrying an older version is "
                    "refused with 409 \"changed by X at T, reload\"; a successful write bumps `version`. The seats "
                    "sent replace the game's seats. The tournament's organizers, its curator and the judges of the "
                    "game's stage (or staff) only.",
        request=GameWriteSerializer,
        responses={200: GameSerializer, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 409: CONFLICT_SCHEMA},
        examples=[OpenApiExample("A corrected result", value={**GAME_WRITE_EXAMPLE, "version": 3},
                                 request_only=True),
                  OpenApiExample("Changed meanwhile", value=CONFLICT_EXAMPLE, response_only=True,
                                 status_codes=["409"])],
    ),
)
class GameViewSet(WellFormedInput, mixins.CreateModelMixin, mixins.UpdateModelMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = GameSerializer
    filterset_class = GameFilter
    pagination_class = ApiPagination
    permission_classes = [OrganizerWritesOrReadOnly]
    may_write_object = staticmethod(lambda user, game: can_enter_results(  # the organizers, the curator and the
        user, game.stage.tournament, game.stage.key))  # judges of the game's stage enter its result
    write_refusal = staticmethod(lambda game: result_entry_refusal(game.stage.key))
    http_method_names = ["get", "post", "put", "head", "options"]
    queryset = Game.objects.select_related("stage__tournament").prefetch_related(
        Prefetch("seats", queryset=Seat.objects.select_related("player", "team").order_by("order", "id")),
        Prefetch("absent_teams", queryset=Team.objects.order_by("name", "id")),
        Prefetch("no_show_eliminations", queryset=NoShowElimination.objects.select_related("team", "player")
                 .order_by("id")),
    ).order_by("stage__tournament_id", "stage__order", "number", "id")

    def tournament_of(self, obj: Game) -> Tournament:
        return obj.stage.tournament

    def list(self, request, *args, **kwargs):
        """A page of games as ``GameSerializer`` shows them, read as plain rows (``game_rows``)."""
        rows = self.player_alone(request)
        if rows is None:
            queryset = self.filter_queryset(self.get_queryset()).select_related(None).prefetch_related(None)
            rows = queryset.values(*GAME_LIST_FIELDS)
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(game_rows(page))

    def player_alone(self, request) -> CountedRows | None:
        """The games of a player when ``?player=`` alone narrows the list, else None (the filters' own rows).

        One query reads the player's id with the number of their seats, which is the number of their games (one
        seat a game, ``unique_seat_player``; counting the games would join every one of them). The games are then
        filtered on that id rather than on the nick: PostgreSQL plans with the player's own statistics, so the
        player of every tournament on a site of 1,000 (7,875 games) is read tournament by tournament in the
        list's order and stops after the page (1 ms), where a plan for an unknown nick joined and sorted all of
        the player's games (20 ms)."""
        if "player" not in request.query_params or not set(request.query_params) <= PLAYER_ONLY:
            return None
        form = self.filterset_class(request.query_params).form
        nick = form.cleaned_data.get("player") if form.is_valid() else None  # as the filter read it
        if not nick:
            return None
        found = list(Seat.objects.filter(player__nick=nick).order_by().values("player_id")
                     .annotate(games=Count("*")).values_list("player_id", "games"))
        games = self.get_queryset().select_related(None).prefetch_related(None)
        if not found:
            return CountedRows(games.none().values(*GAME_LIST_FIELDS), 0)
        (player_id, count), = found
        return CountedRows(games.filter(seats__player_id=player_id).values(*GAME_LIST_FIELDS), count)

    def create(self, request, *args, **kwargs):
        game = commands.record_game(request.user, request.data, game_problems=hooks.game_problems)
        return Response(self.get_serializer(self.get_queryset().get(pk=game.pk)).data, status=status.HTTP_201_CREATED)

    def update(self, request, *args, **kwargs):
        data = game_as_read(request.data, int(kwargs["pk"]))
        game = commands.update_game(request.user, kwargs["pk"], data, game_problems=hooks.game_problems)
        return Response(self.get_serializer(self.get_queryset().get(pk=game.pk)).data)


PLAYER_ONLY = {"player", "page", "page_size", "format"}  # the games of a player, and nothing else narrows them


class CountedRows:
    """The rows of a list whose count is known without counting them: ``Paginator`` slices the rows and takes the
    count (the games of a player alone: ``GameViewSet.player_alone``)."""

    def __init__(self, rows: Any, count: int):
        self.rows, self.known = rows, count
        self.ordered = rows.ordered

    def count(self) -> int:
        return self.known

    def __len__(self) -> int:
        return self.known

    def __getitem__(self, index: Any) -> Any:
        return self.rows[index]


READ_ONLY_GAME_KEYS = ("timezone", "updated_at", "updated_by")


def game_as_read(data: Any, game_id: int) -> Any:
    """What ``GET /api/v1/games/ID/`` returned is accepted back by ``PUT``.

    The fields only a read has (``id``, ``timezone``, ``updated_at``, ``updated_by``, each seat's ``order``,
    the list's order being the seats' order) are left out, and ``"link": ""`` (no link) reads as no link;
    everything else goes to the command as sent. An ``id`` other than the URL's is refused.
    """
    if not isinstance(data, dict):
        return data
    data = dict(data)
    given = data.pop("id", None)
    if given is not None and given != game_id:
        raise Invalid([Problem("id", _("this is game %(id)d; the id cannot change") % {"id": game_id})])
    for key in READ_ONLY_GAME_KEYS:
        data.pop(key, None)
    if data.get("link") == "":
        data["link"] = None
    if isinstance(data.get("seats"), list):
        data["seats"] = [{k: v for k, v in seat.items() if k != "order"} if isinstance(seat, dict) else seat
                         for seat in data["seats"]]
    return data


TOUR_EXAMPLE = {"id": 4, "tournament": "mubk-spring", "stage": "season", "number": 3, "host": "Signum",
                "played_on": "2013-03-01", "questions": 8, "absent": ["Delirium"],
                "masks": {"Felidae": "10110000", "Rotor": "0?000X00"}, "version": 2,
                "updated_at": "2013-03-01T22:00:00+04:00", "updated_by": "organizer"}


@_read_schema("tours", TOUR_EXAMPLE, "`tournament` (slug), `stage` (key), `number`, `host`, `team` (with a mask), "
                                     "`played_after`/`played_before` (dates)")
class TourViewSet(WellFormedInput, viewsets.ReadOnlyModelViewSet):
    serializer_class = TourSerializer
    filterset_class = TourFilter
    pagination_class = ApiPagination
    permission_classes = [OrganizerWritesOrReadOnly]
    may_write_object = staticmethod(lambda user, tour: can_enter_results(  # the organizers, the curator and the
        user, tour.stage.tournament, tour.stage.key))  # judges of the tour's stage enter its answers
    write_refusal = staticmethod(lambda tour: result_entry_refusal(tour.stage.key))
    queryset = Tour.objects.select_related("stage__tournament", "host").prefetch_related(
        Prefetch("masks", queryset=Mask.objects.select_related("team").order_by("order", "id")),
        Prefetch("absent", queryset=Team.objects.order_by("name", "id")),
    ).order_by("stage__tournament_id", "stage__order", "number", "id")

    def tournament_of(self, obj: Tour) -> Tournament:
        return obj.stage.tournament

    @extend_schema(
        operation_id="tours_masks_update",
        summary="Enter a tour's answer masks",
        description="All masks of the tour (`team: mask`, one of `1 0 X ?` per question) with the tour's "
                    "`version` read; teams left out lose their mask. A bad mask is refused with the team and the "
                    "question named (400); an older version with 409 \"changed by X at T, reload\"; a successful "
                    "write bumps `version`. The tournament's organizers, its curator and the judges of the tour's "
                    "stage (or staff) only.",
        request=MasksWriteSerializer,
        responses={200: TourSerializer, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 409: CONFLICT_SCHEMA},
        examples=[
            OpenApiExample("Masks", value={"masks": {"Felidae": "10110000", "Rotor": "0?000X00"}, "version": 2},
                           request_only=True),
            OpenApiExample("A bad mark", value={"errors": [{
                "path": "masks.Rotor", "message": "Rotor: question 3 has 'a'; a mask holds only 1, 0, X and ?"}]},
                response_only=True, status_codes=["400"]),
            OpenApiExample("Changed meanwhile", value=CONFLICT_EXAMPLE, response_only=True, status_codes=["409"]),
        ],
    )
    @action(detail=True, methods=["put"], url_path="masks", filter_backends=[], pagination_class=None)
    def masks(self, request, pk=None):
        tour = commands.record_tour_masks(request.user, pk, request.data)
        return Response(self.get_serializer(self.get_queryset().get(pk=tour.pk)).data)


PENALTY_EXAMPLE = {"id": 1, "tournament": "mt-autumn-2014", "stage": "final", "game": 12, "team": "Eternity",
                   "player": "Majesty", "kind": "fair_play", "code": "FP-9", "points": "0.500",
                   "decided_at": "2014-09-09T12:00:00+04:00", "text": "..."}


@_read_schema("penalties", PENALTY_EXAMPLE, "`tournament` (slug), `stage` (key), `team`, `player`, `game` "
                                            "(number), `kind`, `code`, `decided_after`/`decided_before`")
@extend_schema_view(
    create=extend_schema(
        summary="Record a penalty",
        description="A judge's fair-play ruling (FL-18): the interchange format's penalty object plus `tournament` "
                    "(slug). `points` are positive and deducted. Violations the portal detects itself (FL-15) are "
                    "refused. The judges of the penalty's stage and the curator (or staff) only, not the organizers "
                    "as such (FL-0, CB-15, CB-16).",
        request=PenaltyWriteSerializer,
        responses={201: PenaltySerializer, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA},
        examples=[OpenApiExample("A penalty", request_only=True, value={
            "tournament": "mt-autumn-2014", "stage": "final", "game": 12, "team": "Eternity", "player": "Majesty",
            "kind": "fair_play", "code": "FP-9", "points": "0.5", "text": "..."}),
            OpenApiExample("Recorded", value=PENALTY_EXAMPLE, response_only=True, status_codes=["201"])],
    ),
    destroy=extend_schema(
        summary="Withdraw a penalty",
        description="Deletes the penalty; the standings are recomputed. The judges of the penalty's stage and the "
                    "curator (or staff) only (FL-0, CB-15, CB-16).",
        responses={204: None, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("Not yours", value={"detail": "Only the stage's judges or the curator may record, "
                                                               "change or withdraw a penalty (FL-0, CB-15, "
                                                               "CB-16)."}, response_only=True,
                                 status_codes=["403"])],
    ),
)
class PenaltyViewSet(WellFormedInput, mixins.CreateModelMixin, mixins.DestroyModelMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = PenaltySerializer
    filterset_class = PenaltyFilter
    pagination_class = ApiPagination
    permission_classes = [OrganizerWritesOrReadOnly]
    may_write_object = staticmethod(lambda user, penalty: can_record_decisions(  # the judges of the penalty's
        user, penalty.tournament, penalty.stage.key if penalty.stage_id else None))  # stage and the curator (FL-0)
    write_refusal = gettext_lazy("Only the stage's judges or the curator may record, change or withdraw a penalty "
                                 "(FL-0, CB-15, CB-16).")
    queryset = Penalty.objects.select_related("tournament", "stage", "game", "team", "player").order_by(
        "tournament_id", "order", "id")

    def tournament_of(self, obj: Penalty) -> Tournament:
        return obj.tournament

    def create(self, request, *args, **kwargs):
        penalty = commands.record_penalty(request.user, request.data)
        return Response(self.get_serializer(self.get_queryset().get(pk=penalty.pk)).data,
                        status=status.HTTP_201_CREATED)

    def perform_destroy(self, instance: Penalty) -> None:
        commands.withdraw_penalty(self.request.user, instance)

