"""Many mafiaonline.ru game logs into one stage: placed, saved one by one, one report for the batch.

Each log is placed in the stage:

- by a stage list (``tournaments.sources.stage_list``, the format of ``games.txt``): the n-th game of the list's
  lines that go into the stage is its game n (the lines named for the stage, else the line at the stage's
  position among the tournament's stages);
- without one, by the game number in the log: the stage's game that already links to that log, else the game
  numbered as the site numbers it.

Each placed log is read as the single-log import reads it (``game_log_import.read_game_log``: each seat's team
from the stage's rosters by nick, what the portal's game already knows kept) and saved as the entry form saves a
game (``record_adding_players``: ``record_game``, or ``update_game`` for a game the stage has, judged with the
format's ``game_problems``; the nicks the organizer assigned a team, ``teams``, join that team's roster first).
Each log is one transaction: a refused one is reported with its reason and the others are saved. The whole
batch is recomputed once, at its end (``tournaments.changes.one_recompute``).

The dry run (``read_log_batch``) reports what can be told without writing: the placement, the reading and the
teams; the rules judge each game when it is saved.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from rulesets.errors import Invalid, Problem, Refused
from tournaments import commands
from tournaments.changes import one_recompute
from tournaments.messages import render
from tournaments.models import Game, Stage, Tournament
from tournaments.sources.files import as_text, read_file
from tournaments.sources.game_log_import import (
    LogImport,
    read_game_log,
    record_adding_players,
    roster_teams,
    unknown_problems,
)
from tournaments.sources.mafiaonline_log import TITLE, log_number, parse_game_log
from tournaments.sources.stage_list import Place, StageLine, line_of, parse_stage_list, placement

READY = "ready"  # the dry run: it would be saved
SAVED = "saved"
REFUSED = "refused"
LOG_SUFFIXES = (".html", ".htm")
MAX_FILES = 500


@dataclass
class LogFile:
    """One log of the batch: its name (the file's) and its text, or why it could not be read."""

    name: str
    text: str = ""
    problem: Problem | None = None


def log_files(paths: Iterable[str]) -> list[LogFile]:
    """The logs the paths name: a file, or each ``.html``/``.htm`` file of a folder (by name), each within the size
    limit (``tournaments.sources.files``)."""
    files: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files += sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in LOG_SUFFIXES)
        else:
            files.append(path)
    out = []
    for path in files:
        try:
            out.append(LogFile(path.name, as_text(read_file(str(path)))))
        except Refused as refused:
            out.append(LogFile(path.name, problem=refused.located()[0]))
    return out


@dataclass
class BatchEntry:
    """What became of one log of the batch."""

    file: str
    site_number: int | None = None
    number: int | None = None  # the game's number in the stage
    line: str | None = None  # the stage list's line that placed it
    status: str = REFUSED
    problems: list[Problem] = field(default_factory=list)
    game_id: int | None = None
    update: bool = False  # the stage has the game already: its result is changed
    joining: dict[str, str] = field(default_factory=dict)  # nick -> the team whose roster they join
    seats: list[str] = field(default_factory=list)  # the log's nicks in seat order (a problem's ``seats[i]``)

    def refuse(self, problems: Sequence[Problem]) -> None:
        self.status = REFUSED
        self.problems = list(problems)

    def as_json(self) -> dict[str, Any]:
        return {"file": self.file, "site_number": self.site_number, "number": self.number, "line": self.line,
                "status": self.status, "update": self.update, "game_id": self.game_id, "joining": self.joining,
                "problems": [{"path": p.path, "message": render(p.message)} for p in self.problems]}


@dataclass
class LogBatch:
    """The report of a batch: each log's fate, and what refuses the whole batch (an unreadable stage list)."""

    stage: str
    placed_by: str  # "list" or "log"
    lines: list[str] = field(default_factory=list)  # the list's lines that go into the stage
    entries: list[BatchEntry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    written: bool = False

    def of(self, status: str) -> list[BatchEntry]:
        return [e for e in self.entries if e.status == status]

    @property
    def saved_entries(self) -> list[BatchEntry]:
        return self.of(SAVED)

    @property
    def ready_entries(self) -> list[BatchEntry]:
        return self.of(READY)

    @property
    def refused_entries(self) -> list[BatchEntry]:
        return self.of(REFUSED)

    def as_json(self) -> dict[str, Any]:
        return {"stage": self.stage, "placed_by": self.placed_by, "lines": self.lines, "written": self.written,
                "saved": len(self.of(SAVED)), "ready": len(self.of(READY)), "refused": len(self.of(REFUSED)),
                "games": [e.as_json() for e in self.entries],
                "problems": [{"path": p.path, "message": render(p.message)} for p in self.problems]}


@dataclass
class _Placer:
    """Where a log goes in the stage: by the stage list, or by the log's own number."""

    stage: Stage
    lines: list[StageLine] | None
    places: dict[int, Place]
    linked: dict[int, int] = field(default_factory=dict)  # site game -> the stage's game that links to its log

    def place(self, site: int, entry: BatchEntry) -> int | None:
        if self.lines is None:
            return self.linked.get(site, site)
        place = self.places.get(site)
        if place is None:
            line = line_of(self.lines, site)
            entry.problems.append(Problem("number", _(
                "game %(game)d is on the line %(line)s of the stage list, which goes into no stage: name the "
                "stage it goes into") % {"game": site, "line": line} if line else _(
                "game %(game)d is not on the stage list") % {"game": site}))
            return None
        entry.line = place.line
        if place.stage != self.stage.key:
            entry.problems.append(Problem("number", _(
                "game %(game)d is on the line %(line)s of the stage list, which goes into the stage %(stage)s, "
                "not %(this)s") % {"game": site, "line": place.line, "stage": place.stage, "this": self.stage.key}))
            return None
        return place.number


def _placer(tournament: Tournament, stage: Stage, stage_list: str | None, lines: Sequence[str] | None,
            batch: LogBatch) -> _Placer | None:
    if stage_list is None or not stage_list.strip():
        linked = {}
        for number, link in Game.objects.filter(stage=stage).exclude(link="").values_list("number", "link"):
            site = log_number(link)
            if site is not None:
                linked[site] = number
        return _Placer(stage, None, {}, linked)
    parsed, problems = parse_stage_list(stage_list)
    keys = list(Stage.objects.filter(tournament=tournament).order_by("order", "pk").values_list("key", flat=True))
    chosen = {name: stage.key for name in lines} if lines else None
    places, placing = placement(parsed, keys, chosen)
    batch.problems += problems + placing
    batch.placed_by = "list"
    batch.lines = [name for name in (lines or [])] or [
        line.name for line, key in zip(parsed, keys, strict=False) if key == stage.key]
    if batch.problems:
        return None
    if not batch.lines:
        batch.problems.append(Problem("lines", _("no line of the stage list goes into the stage %(stage)s: name "
                                                 "the line (it has %(names)s)") % {
            "stage": stage.key, "names": ", ".join(line.name for line in parsed)}))
        return None
    return _Placer(stage, parsed, places)


def _site_number(text: str) -> tuple[int | None, list[Problem]]:
    title = TITLE.search(text[:4000])
    if title is not None:
        return int(title.group(1)), []
    _game, problems = parse_game_log(text)
    return None, problems or [Problem("", _("this is not a mafiaonline.ru game log"))]


def _prepare(tournament: Tournament, stage: Stage, files: Sequence[LogFile], stage_list: str | None,
             lines: Sequence[str] | None, teams: Mapping[str, str] | None
             ) -> tuple[LogBatch, list[tuple[BatchEntry, LogImport, Game | None]]]:
    batch = LogBatch(stage=stage.key, placed_by="log")
    if len(files) > MAX_FILES:
        batch.problems.append(Problem("logs", _("at most %(max)d logs a batch, not %(count)d") % {
            "max": MAX_FILES, "count": len(files)}))
        return batch, []
    if not files:
        batch.problems.append(Problem("logs", _("choose the game logs to import")))
        return batch, []
    placer = _placer(tournament, stage, stage_list, lines, batch)
    if placer is None:
        return batch, []
    on_rosters = roster_teams(tournament, stage)
    seen: dict[int, str] = {}
    ready = []
    for log in files:
        entry = BatchEntry(file=log.name)
        batch.entries.append(entry)
        if log.problem is not None:
            entry.refuse([log.problem])
            continue
        site, problems = _site_number(log.text)
        entry.site_number = site
        if site is None:
            entry.refuse(problems)
            continue
        if site in seen:
            entry.refuse([Problem("", _("the log of game %(game)d is already in this batch (%(file)s)") % {
                "game": site, "file": seen[site]})])
            continue
        seen[site] = log.name
        entry.number = placer.place(site, entry)
        if entry.number is None:
            entry.status = REFUSED
            continue
        result = read_game_log(tournament, stage, entry.number, log.text, dict(teams or {}))
        entry.seats = [seat["player"] for seat in (result.game or {}).get("seats", [])]
        problems = result.problems or unknown_problems(result)
        if problems:
            entry.refuse(problems)
            continue
        entry.joining = {s["player"]: s["team"] for s in result.game["seats"]
                         if s["player"] in (teams or {}) and s["player"] not in on_rosters}
        existing = Game.objects.filter(stage=stage, number=entry.number).first()
        entry.update = existing is not None
        entry.status = READY
        ready.append((entry, result, existing))
    return batch, ready


def read_log_batch(tournament: Tournament, stage: Stage, files: Sequence[LogFile], *, stage_list: str | None = None,
                   lines: Sequence[str] | None = None, teams: Mapping[str, str] | None = None) -> LogBatch:
    """The dry run: where each log goes and whether it can be read and given its teams (nothing is written)."""
    batch, _ready = _prepare(tournament, stage, files, stage_list, lines, teams)
    return batch


def import_log_batch(user, tournament: Tournament, stage: Stage, files: Sequence[LogFile], *,
                     game_problems: commands.GameProblems | None, stage_list: str | None = None,
                     lines: Sequence[str] | None = None, teams: Mapping[str, str] | None = None) -> LogBatch:
    """Save every log that can be saved (see the module); the report says which were saved and why the others
    were refused. ``Invalid`` when the batch itself is refused (no logs, an unreadable stage list): then nothing
    is written. ``teams``: nick -> team for the nicks no roster of the stage holds; they join that roster."""
    commands.require_result_entry(user, tournament, stage.key)
    batch, ready = _prepare(tournament, stage, files, stage_list, lines, teams)
    if batch.problems:
        raise Invalid(batch.problems)
    with one_recompute():
        for entry, result, existing in ready:
            payload = dict(result.game)
            seats = payload["seats"]
            additions = {i: "" for i, seat in enumerate(seats) if seat["player"] in entry.joining}
            if existing is not None:
                existing = Game.objects.filter(pk=existing.pk).first()
                payload["version"] = existing.version if existing is not None else None
            try:
                with transaction.atomic():
                    saved = record_adding_players(user, tournament, stage, existing, payload, additions,
                                                  game_problems=game_problems)
            except Refused as refused:
                entry.refuse(refused.located())
                continue
            entry.status = SAVED
            entry.game_id = saved.pk
    batch.written = bool(batch.of(SAVED))
    return batch
