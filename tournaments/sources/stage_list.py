"""A stage list: which of the site's games a stage plays, in order. Pure: the text in, lines out.

The format of ``tests/data/real/mafiaonline/family_cup_2016/games.txt``: one stage a line, ``Этап1:3625830,
3624610, ...`` (the line's name, a colon, the site's game numbers separated by commas, spaces anywhere). A
game's place in the portal is its position: the n-th game of the lines that go into a stage is game n of that
stage (``placement``). Which lines go into which stage: those the organizer names (``{line: stage}``, several
lines into one stage are numbered on in the file's order), else the i-th line into the tournament's i-th stage.

A game named twice (on one line or on two), a number that is not one, or a line without its name is refused
with the line it is on.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from django.utils.translation import gettext as _

from rulesets.errors import Problem
from tournaments.sources.files import at_line, nul_problem

MAX_GAME = 2**31 - 1  # the largest game number a stage holds


@dataclass(frozen=True)
class StageLine:
    """One line of the list: its name and the site's game numbers in order."""

    name: str
    line: int  # 1-based
    games: tuple[int, ...]


@dataclass(frozen=True)
class Place:
    """Where one of the site's games goes: the stage and its number there, and the list's line that says so."""

    stage: str
    number: int
    line: str


def parse_stage_list(text: str) -> tuple[list[StageLine], list[Problem]]:
    """The lines of a stage list and its problems (none: it can be used)."""
    if not isinstance(text, str) or not text.strip():
        return [], [Problem("", _("the stage list is empty"))]
    if nul_problem(text) is not None:
        return [], [nul_problem(text)]
    lines: list[StageLine] = []
    problems: list[Problem] = []
    where: dict[int, tuple[str, int]] = {}
    names: set[str] = set()
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        name, colon, rest = raw.partition(":")
        name = name.strip()
        if not colon or not name:
            problems.append(at_line(number, _("a line of the stage list is “Stage: game, game, ...”, not %(text)r")
                                    % {"text": raw.strip()[:80]}))
            continue
        if name in names:
            problems.append(at_line(number, _("the list names %(name)s twice") % {"name": name}))
            continue
        names.add(name)
        games: list[int] = []
        for cell in (c.strip() for c in rest.split(",")):
            if not cell:
                continue
            if not (cell.isascii() and cell.isdigit()) or not 0 < int(cell) <= MAX_GAME:
                problems.append(at_line(number, _("%(value)r is not a game number") % {"value": cell[:40]}))
                continue
            game = int(cell)
            if game in where:
                other, other_line = where[game]
                problems.append(at_line(number, _("game %(game)d is already in %(name)s (line %(other)d)") % {
                    "game": game, "name": other, "other": other_line}))
                continue
            where[game] = (name, number)
            games.append(game)
        if not games:
            problems.append(at_line(number, _("%(name)s names no games") % {"name": name}))
        lines.append(StageLine(name, number, tuple(games)))
    return lines, problems


def placement(lines: Sequence[StageLine], stages: Sequence[str],
              chosen: Mapping[str, str] | None = None) -> tuple[dict[int, Place], list[Problem]]:
    """Site game -> its place; ``stages``: the tournament's stage keys in order; ``chosen``: line -> stage (when
    given, only those lines are placed). Problems: a line or a stage chosen that is not there."""
    problems: list[Problem] = []
    known = {line.name for line in lines}
    if chosen:
        for name, stage in chosen.items():
            if name not in known:
                problems.append(Problem("lines", _("the stage list has no line %(name)s (it has %(names)s)") % {
                    "name": name, "names": ", ".join(line.name for line in lines)}))
            if stage not in stages:
                problems.append(Problem("lines", _("the tournament has no stage %(stage)s") % {"stage": stage}))
        mapping = dict(chosen)
    else:
        mapping = {line.name: stage for line, stage in zip(lines, stages, strict=False)}
    places: dict[int, Place] = {}
    counts: dict[str, int] = {}
    for line in lines:
        stage = mapping.get(line.name)
        if stage is None or stage not in stages:
            continue
        for game in line.games:
            counts[stage] = counts.get(stage, 0) + 1
            places[game] = Place(stage, counts[stage], line.name)
    return places, problems


def line_of(lines: Sequence[StageLine], game: int) -> str | None:
    """The name of the line that lists the site's ``game`` (None: none)."""
    return next((line.name for line in lines if game in line.games), None)
