"""``/api/v1/``: results as organizers already have them: a game log, a rating-site response.

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

import datetime as dt
from collections.abc import Mapping
from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.shortcuts import get_object_or_404
from django.urls import re_path
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.permissions import can_enter_results, result_entry_refusal
from formats.chgk_tour_points.rating_import import SEASON, import_rating_results, read_rating_results
from portal import hooks
from portal.api.common import DETAIL_SCHEMA, ERRORS_SCHEMA, WellFormedInput, dry_run, oversized
from rulesets.base import Problem
from rulesets.errors import Invalid, NotAllowed
from rulesets.interchange import MAX_ITEMS, Reader, safe_text
from tournaments.models import Stage, Tournament
from tournaments.sources.chgk_rating import decode
from tournaments.sources.files import as_text, size_limit, too_large
from tournaments.sources.game_log_import import import_game_log, read_game_log
from tournaments.sources.json_input import read_json

SLUG = r"[-\w]+"
DRY_RUN = OpenApiParameter("dry_run", OpenApiTypes.BOOL, description="answer what would be saved; write nothing")


def _tournament(request, slug: str, stage_key: str) -> Tournament:
    """The tournament, if ``request.user`` may enter the stage's results (its organizers, its curator, the stage's
    judges: ``accounts.permissions.can_enter_results``)."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if not can_enter_results(request.user, tournament, stage_key):
        raise NotAllowed(result_entry_refusal(stage_key))
    return tournament


def _object_of(value: Any, path: str, what: str) -> dict:
    """An object of ``name: value`` sent as JSON or, in a multipart form, as its JSON text; ``{}`` when not sent."""
    if isinstance(value, str) and value.strip():
        value = read_json(value, root=path)
    if value in (None, ""):
        return {}
    r = Reader()
    found = r.mapping(value, path, what, MAX_ITEMS)
    if r.problems:
        raise Invalid(r.problems)
    return found


def _names(value: Any, path: str) -> dict[str, str]:
    """``{nick: team}`` (``teams``): every value a name."""
    r = Reader()
    out = {}
    for key, item in _object_of(value, path, _("name: team")).items():
        name = r.string(item, f"{path}.{safe_text(key)}")
        if name is not None:
            out[key] = name
    if r.problems:
        raise Invalid(r.problems)
    return out


def _stats(value: Any, path: str) -> dict[str, int]:
    """``{nick: stats}`` (``stats``): every value a whole number (or its digits)."""
    r = Reader()
    out = {}
    for key, item in _object_of(value, path, _("name: stats")).items():
        if isinstance(item, str) and item.strip().isascii() and item.strip().isdigit():
            item = int(item.strip())
        number = r.integer(item, f"{path}.{safe_text(key)}", minimum=0)
        if number is not None:
            out[key] = number
    if r.problems:
        raise Invalid(r.problems)
    return out


def _mapping(value: Any, path: str) -> dict[str, str]:
    """``{site id or name: season team}`` (``map``): every value a name, or ``""`` to skip the site team."""
    r = Reader()
    out = {}
    for key, item in _object_of(value, path, _("site team: season team")).items():
        if isinstance(item, int) and not isinstance(item, bool):
            item = str(item)
        name = r.string(item, f"{path}.{safe_text(key)}", allow_empty=True)
        if name is not None:
            out[key] = name.strip()
    if r.problems:
        raise Invalid(r.problems)
    return out


def _flag(value: Any, path: str) -> bool:
    """``true``/``false`` as JSON, or as a form field's text."""
    if isinstance(value, str):
        value = {"true": True, "1": True, "on": True, "yes": True, "false": False, "0": False, "off": False,
                 "no": False, "": False}.get(value.strip().lower(), value)
    r = Reader()
    flag = r.boolean(value, path)
    if r.problems:
        raise Invalid(r.problems)
    return flag


def _new_tour_options(data: dict[str, Any]) -> tuple[str | None, dt.date | None]:
    """``host`` and ``played_on`` of a tour the import creates; empty form fields are absent."""
    r = Reader()
    host = r.string(data.get("host") or None, "host", required=False)
    played_on = r.date(data.get("played_on") or None, "played_on")
    if r.problems:
        raise Invalid(r.problems)
    return (host.strip() if host else None), played_on


def _number(number: str, path: str) -> int:
    """The game's or the tour's number of the address: 1 to ``MAX_INT``, as the interchange reads a number (a
    larger one no column stores: the insert would fail)."""
    r = Reader()
    value = r.integer(int(number), path, minimum=1)
    if r.problems or value is None:
        raise Invalid(r.problems)
    return value


def _upload(request, field: str) -> bytes | None:
    upload = request.FILES.get(field)
    if upload is None:
        return None
    problem = too_large(upload.size)
    if problem is not None:
        raise Invalid(Problem(field, problem.message))
    return upload.read(size_limit() + 1)


class _ImportView(WellFormedInput, APIView):
    """The JSON body through the API's one JSON reader (``JSONBodyParser``: depth, NUL, finite numbers)."""

    permission_classes = [IsAuthenticated]

    def _data(self, request):
        """The body: a JSON object or a form; anything else (``[]``, ``1``, ``"x"``, ``null``) is refused."""
        try:
            data = request.data
        except RequestDataTooBig as exc:
            raise Invalid(Problem("", _("the body is larger than %(limit)d bytes (IMPORT_MAX_BYTES)") % {
                "limit": size_limit()})) from exc
        if not isinstance(data, Mapping):
            raise Invalid(Problem("", _("the body must be a JSON object (or a multipart form), not %(kind)s") % {
                "kind": _json_kind(data)}))
        return data


def _json_kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list):
        return _("a list")
    if isinstance(value, str):
        return _("a string")
    if isinstance(value, (int, float)):
        return _("a number")
    return type(value).__name__


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
        too_big = oversized(request)
        if too_big is not None:
            return too_big
        tournament = _tournament(request, slug, stage_key)
        stage = get_object_or_404(Stage, tournament=tournament, key=stage_key)
        number = _number(number, "number")
        data = self._data(request)
        raw = _upload(request, "log")
        text = as_text(raw) if raw is not None else data.get("html")
        if text is not None and not isinstance(text, str):
            raise Invalid(Problem("html", _("must be the log page's HTML as a string")))
        if not text or not text.strip():
            raise Invalid(Problem("html", _("send the log page as html (or a multipart log file)")))
        if "\x00" in text:
            raise Invalid(Problem("log" if raw is not None else "html", _("%(path)s contains a NUL character") % {
                "path": "log" if raw is not None else "html"}))
        chosen = _names(data.get("teams"), "teams")
        stats = _stats(data.get("stats"), "stats")
        if dry_run(request):
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
            "record); the positions are kept and shown on the tour page. A tour the season does not have yet is "
            "created, with `host` (a season team, CHGK-7) and `played_on` (YYYY-MM-DD) when given. Unmatched teams are listed (400 until mapped or skipped). `?dry_run=true`: 200, nothing "
            "written; otherwise the masks go through record_tour_masks and the appeals are recorded: 201."),
        parameters=[DRY_RUN],
        request={"application/json": inline_serializer("RatingImport", {
            "results": serializers.JSONField(), "map": serializers.DictField(required=False),
            "skip_unmatched": serializers.BooleanField(required=False),
            "host": serializers.CharField(required=False), "played_on": serializers.DateField(required=False)}),
                 "multipart/form-data": OpenApiTypes.OBJECT},
        responses={200: OpenApiTypes.OBJECT, 201: OpenApiTypes.OBJECT, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA,
                   404: DETAIL_SCHEMA, 409: ERRORS_SCHEMA, 413: ERRORS_SCHEMA},
        examples=[OpenApiExample("Dry run", response_only=True, status_codes=["200"], value={
            "tour": {"number": 1, "questions": 36, "masks": {"Rotor": "011110000010011010011000011001010000"}},
            "appeals": [], "places": [{"team": "Rotor", "place": 1, "site_position": 1}], "differences": [],
            "unmatched": [], "skipped": [], "problems": []})],
    )
    def post(self, request, slug: str, number: int):
        too_big = oversized(request)
        if too_big is not None:
            return too_big
        tournament = _tournament(request, slug, SEASON)  # a ChGK season's tours are its one stage's
        number = _number(number, "number")
        data = self._data(request)
        raw = _upload(request, "file")
        if raw is not None:
            results, problems = decode(raw, root="file")
            if problems:
                raise Invalid(problems)
            root = "file"
        else:
            results = data.get("results")
            if results is None:
                raise Invalid(Problem("results", _("send the rating site's response as results (or a multipart "
                                                   "file)")))
            if isinstance(results, str):  # a multipart form's field: the response's JSON text
                results = read_json(results, root="results")
            root = "results"
        mapping = _mapping(data.get("map"), "map")
        skip = _flag(data.get("skip_unmatched"), "skip_unmatched")
        host, played_on = _new_tour_options(data)
        if dry_run(request):
            result = read_rating_results(tournament, int(number), results, mapping, skip, root=root, host=host,
                                         played_on=played_on)
            if result.problems:
                raise Invalid(result.problems)
            return Response(result.report())
        result = import_rating_results(request.user, tournament.slug, int(number), results, mapping=mapping,
                                       skip_unmatched=skip, root=root, host=host, played_on=played_on)
        return Response(result.report(), status=status.HTTP_201_CREATED)


urlpatterns = [
    re_path(rf"^tournaments/(?P<slug>{SLUG})/stages/(?P<stage_key>{SLUG})/games/(?P<number>[0-9]+)/import-log/$",
            GameLogImportView.as_view(), name="api-import-game-log"),
    re_path(rf"^tournaments/(?P<slug>{SLUG})/tours/(?P<number>[0-9]+)/import-rating/$",
            RatingImportView.as_view(), name="api-import-rating"),
]
