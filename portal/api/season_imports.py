"""``/api/v1/``: a season from the organizers' files: rosters, a batch of game logs, penalties.

- ``POST tournaments/SLUG/import-rosters/``: a roster file (the clan list ``Clan:nick, nick, ...`` or CSV
  ``team,player[,captain]``; JSON ``{"text": ..., "format": "auto", "families": false}`` or a multipart
  ``file``) into the tournament's teams, or its families (``tournaments.sources.roster_import``); the organizers';
- ``POST tournaments/SLUG/stages/KEY/import-logs/``: many mafiaonline.ru game logs (JSON ``{"logs": [{"name",
  "html"}], "stage_list": ..., "lines": [...], "teams": {nick: team}}`` or multipart ``logs`` files and a
  ``stage_list`` file) into the stage, one report for the batch (``tournaments.sources.log_batch``);
- ``POST tournaments/SLUG/import-penalties/``: a penalty file (``game:clan:nick:reason:points`` a line; JSON
  ``{"text": ..., "stage_list": ..., "lines": {line: stage}}`` or multipart ``file`` and ``stage_list``)
  (``tournaments.sources.penalty_import``); the judges' and the curator's (FL-0).

``?dry_run=true`` answers 200 with what would be done and writes nothing. A body larger than ``IMPORT_MAX_BYTES``
is refused with 413 before it is read; a user who may not do it with 403; refusals with 400
(``portal.api.errors``).
"""

from __future__ import annotations

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

from portal import hooks
from portal.api.common import TRUE, WellFormedInput, dry_run, oversized
from rulesets.base import Problem
from rulesets.errors import Invalid, NotAllowed
from tournaments.commands import require_result_entry
from tournaments.models import Stage, Tournament
from tournaments.sources.files import as_text, size_limit, too_large
from tournaments.sources.log_batch import LogFile, import_log_batch, read_log_batch
from tournaments.sources.penalty_import import import_penalties, read_penalties, require_judge
from tournaments.sources.roster_file import KINDS
from tournaments.sources.roster_import import import_rosters, read_rosters, require_organizer

SLUG = r"[-\w]+"
DRY_RUN = OpenApiParameter("dry_run", OpenApiTypes.BOOL, description="answer what would be done; write nothing")


def body(request) -> Mapping[str, Any]:
    """The body: a JSON object or a form."""
    try:
        data = request.data
    except RequestDataTooBig as exc:
        raise Invalid(Problem("", _("the body is larger than %(limit)d bytes (IMPORT_MAX_BYTES)") % {
            "limit": size_limit()})) from exc
    if not isinstance(data, Mapping):
        raise Invalid(Problem("", _("the body must be a JSON object (or a multipart form)")))
    return data


def uploaded_text(upload, field: str) -> str:
    """An uploaded file's text (UTF-8, else Windows-1251), refused when over the limit."""
    problem = too_large(upload.size)
    if problem is not None:
        raise Invalid(Problem(field, problem.message))
    return as_text(upload.read(size_limit() + 1))


def text_of(request, data: Mapping[str, Any], file_field: str, text_field: str, *, required: bool) -> str | None:
    """A file sent as ``file_field`` (multipart) or its text as ``text_field``."""
    upload = request.FILES.get(file_field)
    if upload is not None:
        return uploaded_text(upload, file_field)
    value = data.get(text_field)
    if value is None or value == "":
        if required:
            raise Invalid(Problem(text_field, _("send the file as %(file)s (multipart) or its text as %(text)s") % {
                "file": file_field, "text": text_field}))
        return None
    if not isinstance(value, str):
        raise Invalid(Problem(text_field, _("must be the file's text as a string")))
    return value


def flag(data: Mapping[str, Any], name: str) -> bool:
    value = data.get(name, False)
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.strip().lower() in (*TRUE, "false", "0", "no", "off", ""):
        return value.strip().lower() in TRUE
    raise Invalid(Problem(name, _("must be true or false")))


def names(value: Any, path: str) -> list[str]:
    """A list of names, or in a form their text separated by commas."""
    if value in (None, ""):
        return []
    if isinstance(value, str):
        return [name.strip() for name in value.split(",") if name.strip()]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return [v.strip() for v in value if v.strip()]
    raise Invalid(Problem(path, _("must be a list of names")))


def mapping(value: Any, path: str) -> dict[str, str]:
    """``{name: name}``, or in a form its text ``name=name, name=name``."""
    if value in (None, ""):
        return {}
    if isinstance(value, str):
        out = {}
        for pair in (p for p in value.split(",") if p.strip()):
            key, sep, item = pair.rpartition("=")
            if not sep or not key.strip() or not item.strip():
                raise Invalid(Problem(path, _("pairs NAME=VALUE separated by commas, not %(text)r") % {
                    "text": pair.strip()}))
            out[key.strip()] = item.strip()
        return out
    if isinstance(value, dict) and all(isinstance(k, str) and isinstance(v, str) for k, v in value.items()):
        return {k.strip(): v.strip() for k, v in value.items()}
    raise Invalid(Problem(path, _("must be an object of name: name")))


def _tournament(slug: str) -> Tournament:
    return get_object_or_404(Tournament, slug=slug)


class _SeasonImportView(WellFormedInput, APIView):
    permission_classes = [IsAuthenticated]


ROSTERS_EXAMPLE = {
    "format": "auto", "families": False, "written": False, "teams": 1, "new_teams": 1, "players": 2,
    "new_players": 1, "known_players": 1, "already_on_roster": 0,
    "rosters": [{"name": "Vendetta", "line": 1, "team": "new", "family": None, "captain": None, "players": [
        {"nick": "fedanet", "line": 1, "player": "known", "roster": "new", "captain": False},
        {"nick": "Odesitka", "line": 1, "player": "new", "roster": "new", "captain": False}]}],
    "problems": []}


class RosterImportView(_SeasonImportView):
    """A roster file into the tournament's teams or families."""

    @extend_schema(
        operation_id="tournaments_import_rosters",
        summary="Import the rosters of a tournament from a file",
        description=(
            "Reads a roster file: the clan list of mafiaonline.ru tournaments (`Clan:nick, nick, ...`, one clan a "
            "line) or CSV (`team,player[,captain]`, one player a row; a header row is skipped), as JSON "
            "`{\"text\": ..., \"format\": \"auto\"|\"clans\"|\"csv\", \"families\": false}` or multipart with the "
            "file as `file`. Each team is created when the tournament has none of that name, each player joins "
            "its roster; a nick the portal knows is reused, a new one becomes a player. `families: true`: the "
            "clans are families (a family league's teams): each team is its family's and the tournament records "
            "its players as members (FL-3). `?dry_run=true`: 200 with every team and player and what would be "
            "done (`new`, `known`, `on_roster`), nothing written; otherwise the file is written in one "
            "transaction through the commands (validated, audited, recomputed once): 201. A refusal names the "
            "line and the nick (400, nothing written); only the tournament's organizers may (403)."),
        parameters=[DRY_RUN],
        request={"application/json": inline_serializer("RosterImport", {
            "text": serializers.CharField(), "format": serializers.ChoiceField(choices=KINDS, required=False),
            "families": serializers.BooleanField(required=False)}),
                 "multipart/form-data": OpenApiTypes.OBJECT},
        responses={200: OpenApiTypes.OBJECT, 201: OpenApiTypes.OBJECT},
        examples=[OpenApiExample("Dry run", response_only=True, status_codes=["200"], value=ROSTERS_EXAMPLE)],
    )
    def post(self, request, slug: str):
        too_big = oversized(request)
        if too_big is not None:
            return too_big
        tournament = _tournament(slug)
        require_organizer(request.user, tournament)
        data = body(request)
        upload = request.FILES.get("file")
        text = text_of(request, data, "file", "text", required=True)
        kind = data.get("format") or "auto"
        if kind not in KINDS:
            raise Invalid(Problem("format", _("the format is one of: %(kinds)s") % {"kinds": ", ".join(KINDS)}))
        families = flag(data, "families")
        name = upload.name if upload is not None else ""
        if dry_run(request):
            plan = read_rosters(tournament, text, kind=kind, name=name, families=families)
            if plan.problems:
                raise Invalid(plan.problems)
            return Response(plan.as_json())
        plan = import_rosters(request.user, tournament, text, kind=kind, name=name, families=families)
        return Response(plan.as_json(), status=status.HTTP_201_CREATED)


LOGS_EXAMPLE = {
    "stage": "qualifying", "placed_by": "list", "lines": ["Этап1"], "written": True, "saved": 1, "ready": 0,
    "refused": 1, "problems": [], "games": [
        {"file": "3624027.html", "site_number": 3624027, "number": 4, "line": "Этап1", "status": "saved",
         "update": False, "game_id": 17, "joining": {}, "problems": []},
        {"file": "3665747.html", "site_number": 3665747, "number": None, "line": None, "status": "refused",
         "update": False, "game_id": None, "joining": {},
         "problems": [{"path": "number", "message": "game 3665747 is not on the stage list"}]}]}


class LogBatchImportView(_SeasonImportView):
    """Many game logs into a stage, placed by a stage list or by their own numbers."""

    @extend_schema(
        operation_id="stages_import_logs",
        summary="Import many games of a stage from their mafiaonline.ru logs",
        description=(
            "Reads many mafiaonline.ru \"Лог партии\" pages into the stage: JSON `{\"logs\": [{\"name\": ..., "
            "\"html\": ...}], \"stage_list\": \"Этап1:id,id,...\", \"lines\": [\"Этап1\"], \"teams\": {nick: "
            "team}}`, or multipart with the pages as `logs` (several files) and the stage list as `stage_list` "
            "(a file or its text; `lines` comma-separated). Each log is placed by the stage list (the n-th game of "
            "the `lines` that go into the stage, by default the line at the stage's position, is its game n) or, "
            "without one, by the game number in the log; then saved in its own transaction exactly as a game "
            "entered in the form (record_game, or update_game for a game the stage has), `teams` assigning the "
            "nicks no roster holds (they join that roster). One report for the batch: each log `saved` or "
            "`refused` with its reasons (a refused log does not stop the others); the stage is recomputed once. "
            "`?dry_run=true`: the placement and the reading (`ready` / `refused`), nothing written (200). "
            "Answers 201 when a game was saved, 200 otherwise; 400 when the batch itself is refused (no logs, an "
            "unreadable stage list); 403 for a user who may not enter the tournament's results."),
        parameters=[DRY_RUN],
        request={"application/json": inline_serializer("LogBatchImport", {
            "logs": serializers.ListField(child=inline_serializer("LogBatchFile", {
                "name": serializers.CharField(), "html": serializers.CharField()})),
            "stage_list": serializers.CharField(required=False),
            "lines": serializers.ListField(child=serializers.CharField(), required=False),
            "teams": serializers.DictField(child=serializers.CharField(), required=False)}),
                 "multipart/form-data": OpenApiTypes.OBJECT},
        responses={200: OpenApiTypes.OBJECT, 201: OpenApiTypes.OBJECT},
        examples=[OpenApiExample("A batch", response_only=True, status_codes=["201"], value=LOGS_EXAMPLE)],
    )
    def post(self, request, slug: str, stage_key: str):
        too_big = oversized(request)
        if too_big is not None:
            return too_big
        tournament = _tournament(slug)
        require_result_entry(request.user, tournament, stage_key)
        stage = get_object_or_404(Stage, tournament=tournament, key=stage_key)
        data = body(request)
        files = [LogFile(upload.name, uploaded_text(upload, "logs")) for upload in request.FILES.getlist("logs")]
        if not files:
            logs = data.get("logs")
            if not isinstance(logs, list) or not all(
                    isinstance(log, dict) and isinstance(log.get("html"), str) for log in logs):
                raise Invalid(Problem("logs", _("send the logs as a list of {\"name\", \"html\"} (or multipart "
                                                "logs files)")))
            files = [LogFile(str(log.get("name") or f"{i + 1}.html"), log["html"]) for i, log in enumerate(logs)]
        stage_list = text_of(request, data, "stage_list", "stage_list", required=False)
        lines = names(data.get("lines"), "lines")
        teams = mapping(data.get("teams"), "teams")
        if dry_run(request):
            batch = read_log_batch(tournament, stage, files, stage_list=stage_list, lines=lines, teams=teams)
            if batch.problems:
                raise Invalid(batch.problems)
            return Response(batch.as_json())
        batch = import_log_batch(request.user, tournament, stage, files, stage_list=stage_list, lines=lines,
                                 teams=teams, game_problems=hooks.game_problems)
        return Response(batch.as_json(), status=status.HTTP_201_CREATED if batch.written else status.HTTP_200_OK)


PENALTIES_EXAMPLE = {
    "written": False, "counts": {"record": 1, "detected": 1}, "problems": [], "penalties": [
        {"line": 1, "game": 3624161, "stage": "qualifying", "number": 5, "team": "Vendetta", "player": "fedanet",
         "kind": "judge", "reason": "штраф", "points": "0.8", "action": "record"},
        {"line": 9, "game": 3624161, "stage": "qualifying", "number": 5, "team": "True Criminals", "player": None,
         "kind": "no_show", "reason": "неявка", "points": "0.1", "action": "detected"}]}


class PenaltyImportView(_SeasonImportView):
    """A penalty file: the judges' penalties and the no-shows."""

    @extend_schema(
        operation_id="tournaments_import_penalties",
        summary="Import the penalties of a tournament from a file",
        description=(
            "Reads a penalty file, one penalty a line `game:clan:nick:reason:points` (the site's game number, the "
            "clan, the player or blank, the reason, the points): JSON `{\"text\": ..., \"stage_list\": ..., "
            "\"lines\": {line: stage}}` or multipart with the file as `file` and the stage list as `stage_list`. "
            "A line's game is the tournament's game linked to that log, else the one the stage list places it at "
            "(`lines` maps the list's lines to stages; by default the i-th line goes into the i-th stage). A "
            "judge's penalty (`штраф` or another reason, FL-18) is recorded with its points (`record`; `recorded` "
            "when it is there already); a no-show (`неявка`) is read as the rules read it: found in a played game "
            "without the clan (`detected`, FL-15.1), added to the absent teams of a game not held (`absent`, "
            "FL-10), or waiting for a game without a result (`pending`); 0.1 each (FL-16). `?dry_run=true`: 200, "
            "nothing written; otherwise one transaction: 201. A refused line refuses the file, naming the line "
            "(400); only the tournament's judges and curator may, not its organizers (403, FL-0)."),
        parameters=[DRY_RUN],
        request={"application/json": inline_serializer("PenaltyImport", {
            "text": serializers.CharField(), "stage_list": serializers.CharField(required=False),
            "lines": serializers.DictField(child=serializers.CharField(), required=False)}),
                 "multipart/form-data": OpenApiTypes.OBJECT},
        responses={200: OpenApiTypes.OBJECT, 201: OpenApiTypes.OBJECT},
        examples=[OpenApiExample("Dry run", response_only=True, status_codes=["200"], value=PENALTIES_EXAMPLE)],
    )
    def post(self, request, slug: str):
        too_big = oversized(request)
        if too_big is not None:
            return too_big
        tournament = _tournament(slug)
        require_judge(request.user, tournament)
        data = body(request)
        text = text_of(request, data, "file", "text", required=True)
        stage_list = text_of(request, data, "stage_list", "stage_list", required=False)
        lines = mapping(data.get("lines"), "lines")
        if dry_run(request):
            plan = read_penalties(tournament, text, stage_list=stage_list, lines=lines, user=request.user)
            if plan.forbidden:
                raise NotAllowed(plan.forbidden)
            if plan.problems:
                raise Invalid(plan.problems)
            return Response(plan.as_json())
        plan = import_penalties(request.user, tournament, text, stage_list=stage_list, lines=lines,
                                game_problems=hooks.game_problems)
        return Response(plan.as_json(), status=status.HTTP_201_CREATED)


urlpatterns = [
    re_path(rf"^tournaments/(?P<slug>{SLUG})/import-rosters/$", RosterImportView.as_view(),
            name="api-import-rosters"),
    re_path(rf"^tournaments/(?P<slug>{SLUG})/stages/(?P<stage_key>{SLUG})/import-logs/$",
            LogBatchImportView.as_view(), name="api-import-game-logs"),
    re_path(rf"^tournaments/(?P<slug>{SLUG})/import-penalties/$", PenaltyImportView.as_view(),
            name="api-import-penalties"),
]
