"""``/api/v1/``: results as organizers already have them (issue 18): a game log, a rating-site response.

- ``POST tournaments/SLUG/stages/KEY/games/N/import-log/``: a mafiaonline.ru "Лог партии" page (JSON
  ``{"html": ...}`` or a multipart ``log`` file) as game N of the stage, through
  ``tournaments.sources.game_log_import`` and ``tournaments.commands.record_game`` / ``update_game`` with the
  format's refusals (``portal.hooks.game_problems``), as a typed game;
- ``POST tournaments/SLUG/tours/N/import-rating/``: a rating-site response (v1 ``list`` or v2 ``results``;
  JSON ``{"results": ...}`` or a multipart ``file``) as tour N of a ChGK season
  (``formats.chgk_tour_points.rating_import``).

``?dry_run=true`` answers 200 with what would be saved and writes nothing. A body larger than
``IMPORT_MAX_BYTES`` is refused with 413 before it is read. Refusals: ``portal.api.errors``.
"""

from __future__ import annotations

import json
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.shortcuts import get_object_or_404
from django.urls import re_path
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import can_enter_results
from formats.chgk_tour_points.rating_import import import_rating_results, read_rating_results
from portal import hooks
from portal.api.common import DETAIL_SCHEMA, ERRORS_SCHEMA, refusal
from rulesets.base import Problem
from rulesets.errors import Invalid, NotAllowed
from tournaments.models import Stage, Tournament
from tournaments.sources.chgk_rating import decode
from tournaments.sources.files import as_text, size_limit, too_large
from tournaments.sources.game_log_import import import_game_log, read_game_log

SLUG = r"[-\w]+"
DRY_RUN = OpenApiParameter("dry_run", OpenApiTypes.BOOL, description="answer what would be saved; write nothing")


def _dry_run(request) -> bool:
    return request.query_params.get("dry_run", "").strip().lower() in ("1", "true", "yes", "on")


def _tournament(request, slug: str) -> Tournament:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not can_enter_results(request.user, tournament):
        raise NotAllowed(_("Only the tournament's organizers, judges and curator may enter its results."))
    return tournament


def _oversized(request) -> Response | None:
    """413 before the body is read, from its announced length."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    problem = too_large(length)
    return refusal(problem.message, code=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE) if problem else None


def _names(value: Any, path: str) -> dict[str, str]:
    if isinstance(value, str) and value.strip():
        try:
            value = json.loads(value)
        except ValueError as exc:
            raise Invalid(Problem(path, _("must be a JSON object"))) from exc
    if value in (None, ""):
        return {}
    if not isinstance(value, dict) or not all(isinstance(k, str) and isinstance(v, (str, int)) and
                                              not isinstance(v, bool) for k, v in value.items()):
        raise Invalid(Problem(path, _("must be an object of name: value")))
    return {k: v for k, v in value.items()}


def _upload(request, field: str) -> bytes | None:
    upload = request.FILES.get(field)
    if upload is None:
        return None
    problem = too_large(upload.size)
    if problem is not None:
        raise Invalid(Problem(field, problem.message))
    return upload.read(size_limit() + 1)


class _ImportView(APIView):
    permission_classes = [IsAuthenticated]
    parser_classes = [JSONParser, MultiPartParser, FormParser]

    def _data(self, request):
        try:
            return request.data
        except RequestDataTooBig as exc:
            raise Invalid(Problem("", _("the body is larger than %(limit)d bytes (IMPORT_MAX_BYTES)") % {
                "limit": size_limit()})) from exc


LOG_EXAMPLE = {"number": 5, "status": "played", "outcome": "civilians", "omon": False, "game_days": 5,
               "link": "http://mafiaonline.ru/log/3624027", "seats": [
                   {"player": "Vera", "team": "Upiitsy", "role": "don", "timed_out": False, "days_played": 3,
                    "maniac_kills": 0, "in_final_phase": False}]}


class GameLogImportView(_ImportView):
    """A mafiaonline.ru game log as game N of a stage."""

    @extend_schema(
        operation_id="games_import_log",
        summary="Import a game from its mafiaonline.ru log",
        description=(
            "Reads a mafiaonline.ru \"Лог партии\" page (JSON `{\"html\": ..., \"teams\": {nick: team}, "
            "\"stats\": {nick: stats}}`, or multipart with the page as `log`) as game N of the stage: players in "
            "seat order, roles, outcome, OMON, game days, days played, time-outs, maniac kills, the last "
            "day/night, the log's link; each seat's team from the stage's rosters by nick (`teams` assigns the "
            "others). `?dry_run=true`: 200 with the game object of the interchange (spec/interchange.md), "
            "`unknown_players` (on no roster of the stage), `new_players` (nicks the portal does not know yet: add "
            "them to a roster first) and what the log cannot tell (`not_in_log`); nothing is written. Otherwise the "
            "game is saved as a typed game would be (record_game, or update_game when game N exists): 201. A "
            "page that is not a whole game log, or the log of another game, is refused with 400; more than "
            "IMPORT_MAX_BYTES with 413."),
        parameters=[DRY_RUN],
        request={"application/json": inline_serializer("GameLogImport", {
            "html": serializers.CharField(), "teams": serializers.DictField(required=False),
            "stats": serializers.DictField(required=False)}),
                 "multipart/form-data": OpenApiTypes.OBJECT},
        responses={200: OpenApiTypes.OBJECT, 201: inline_serializer("GameLogImported", {
            "id": serializers.IntegerField(), "number": serializers.IntegerField(), "link": serializers.CharField(),
            "version": serializers.IntegerField()}), 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA,
                   409: ERRORS_SCHEMA, 413: ERRORS_SCHEMA},
        examples=[OpenApiExample("Dry run", response_only=True, status_codes=["200"], value={
            "game": LOG_EXAMPLE, "site_number": 3624027, "unknown_players": [], "new_players": [],
            "not_in_log": ["stats", "fake_passport"], "problems": []})],
    )
    def post(self, request, slug: str, stage_key: str, number: int):
        oversized = _oversized(request)
        if oversized is not None:
            return oversized
        tournament = _tournament(request, slug)
        stage = get_object_or_404(Stage, tournament=tournament, key=stage_key)
        data = self._data(request)
        raw = _upload(request, "log")
        text = as_text(raw) if raw is not None else data.get("html")
        if not isinstance(text, str) or not text.strip():
            raise Invalid(Problem("html", _("send the log page as html (or a multipart log file)")))
        chosen = {k: str(v) for k, v in _names(data.get("teams"), "teams").items()}
        stats = _names(data.get("stats"), "stats")
        if _dry_run(request):
            result = read_game_log(tournament, stage, int(number), text, chosen)
            if result.problems:
                raise Invalid(result.problems)
            return Response(result.as_json())
        game = import_game_log(request.user, tournament.slug, stage.key, int(number), text, chosen=chosen,
                               game_problems=hooks.game_problems,
                               seat_values={nick: {"stats": value} for nick, value in stats.items()})
        return Response({"id": game.pk, "number": game.number, "link": game.link, "version": game.version},
                        status=status.HTTP_201_CREATED)


class RatingImportView(_ImportView):
    """A rating-site response as tour N of a ChGK season."""

    @extend_schema(
        operation_id="tours_import_rating",
        summary="Import a ChGK tour from the rating site's results",
        description=(
            "Reads the rating site's v1 `list` response (rows or column-oriented) or v2 `results?"
            "includeMasksAndControversials=1` (JSON `{\"results\": <the response>, \"map\": {site id or name: "
            "season team, \"\" to skip}, \"skip_unmatched\": false}`, or multipart with the response as `file`) "
            "as tour N: the masks (`X` kept as a removed question), the v2 controversials as the tour's appeals "
            "(`A` accepted and credited, `D` rejected), and the portal's tour places (CHGK-13, shared places "
            "averaged) beside the site's `position`, with the `differences` (a shoot-out the masks do not "
            "record). Unmatched teams are listed (400 until mapped or skipped). `?dry_run=true`: 200, nothing "
            "written; otherwise the masks go through record_tour_masks and the appeals are recorded: 201."),
        parameters=[DRY_RUN],
        request={"application/json": inline_serializer("RatingImport", {
            "results": serializers.JSONField(), "map": serializers.DictField(required=False),
            "skip_unmatched": serializers.BooleanField(required=False)}),
                 "multipart/form-data": OpenApiTypes.OBJECT},
        responses={200: OpenApiTypes.OBJECT, 201: OpenApiTypes.OBJECT, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA,
                   404: DETAIL_SCHEMA, 409: ERRORS_SCHEMA, 413: ERRORS_SCHEMA},
        examples=[OpenApiExample("Dry run", response_only=True, status_codes=["200"], value={
            "tour": {"number": 1, "questions": 36, "masks": {"Rotor": "011110000010011010011000011001010000"}},
            "appeals": [], "places": [{"team": "Rotor", "place": 1, "site_position": 1}], "differences": [],
            "unmatched": [], "skipped": [], "problems": []})],
    )
    def post(self, request, slug: str, number: int):
        oversized = _oversized(request)
        if oversized is not None:
            return oversized
        tournament = _tournament(request, slug)
        data = self._data(request)
        raw = _upload(request, "file")
        if raw is not None:
            results, problems = decode(raw)
            if problems:
                raise Invalid(problems)
        else:
            results = data.get("results")
            if results is None:
                raise Invalid(Problem("results", _("send the rating site's response as results (or a multipart "
                                                   "file)")))
        mapping = {k: str(v) for k, v in _names(data.get("map"), "map").items()}
        skip = data.get("skip_unmatched") in (True, "true", "1", "on")
        if _dry_run(request):
            result = read_rating_results(tournament, int(number), results, mapping, skip)
            if result.problems:
                raise Invalid(result.problems)
            return Response(result.report())
        result = import_rating_results(request.user, tournament.slug, int(number), results, mapping=mapping,
                                       skip_unmatched=skip)
        return Response(result.report(), status=status.HTTP_201_CREATED)


urlpatterns = [
    re_path(rf"^tournaments/(?P<slug>{SLUG})/stages/(?P<stage_key>{SLUG})/games/(?P<number>[0-9]+)/import-log/$",
            GameLogImportView.as_view(), name="api-import-game-log"),
    re_path(rf"^tournaments/(?P<slug>{SLUG})/tours/(?P<number>[0-9]+)/import-rating/$",
            RatingImportView.as_view(), name="api-import-rating"),
]
