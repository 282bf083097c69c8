"""A file of rosters read into teams and their players: pure, the text in, lines and problems out.

Two formats, told apart by ``kind`` (``"clans"``, ``"csv"``, or ``"auto"``: the first line that holds
anything decides):

- the clan list of mafiaonline.ru tournaments (``tests/data/real/mafiaonline/family_cup_2016/teams.txt``): one
  clan a line, ``Clan:nick, nick, ...``; the clan's name ends at the first colon, spaces around names are
  dropped (``Русская Мафия :cherynka``), a nick named twice on one line counts once;
- CSV, one player a row: ``team,player[,captain]`` (a ``;`` separates the columns when the first row has no
  comma); the third column marks the team's captain (``1``, ``yes``, ``captain``, ``да``, ``x``, ...); a first
  row ``team,player[,captain]`` is a header.

Every problem names its line (``lines[i]``, i counted from 0; the message says "line i+1") and the nick it is
about. A nick in two teams of the file, a line that is not of the format, a team with two captains or a name
longer than the portal holds are refused; nothing of a refused file is written.
"""

from __future__ import annotations

import csv
from dataclasses import dataclass, field

from django.utils.translation import gettext as _

from rulesets.errors import Problem
from tournaments.sources.files import at_line, nul_problem

KINDS = ("auto", "clans", "csv")
NAME_LIMIT = 100  # Team.name, Player.nick and Family.name hold at most 100 characters
CAPTAIN_MARKS = {"1", "yes", "y", "true", "x", "+", "captain", "c", "да", "д", "капитан", "к"}
NOT_CAPTAIN = {"", "0", "no", "n", "false", "-", "нет"}
HEADERS = {("team", "player"), ("team", "nick"), ("команда", "игрок"), ("клан", "ник"), ("семья", "ник"),
           ("family", "player"), ("clan", "nick")}


@dataclass(frozen=True)
class RosterRow:
    """One player of one team, as the file names them."""

    line: int  # 1-based
    team: str
    nick: str
    captain: bool = False


@dataclass
class RosterTeam:
    """A team of the file with its players in the file's order."""

    name: str
    line: int  # the first line naming it
    players: list[RosterRow] = field(default_factory=list)

    @property
    def captain(self) -> str | None:
        return next((row.nick for row in self.players if row.captain), None)


def detect(text: str, name: str = "") -> str:
    """``"csv"`` for a ``.csv`` file or a first line without a colon before its first comma; else ``"clans"``."""
    if name.lower().endswith(".csv"):
        return "csv"
    first = next((line for line in text.splitlines() if line.strip()), "")
    colon, comma = first.find(":"), first.find(",")
    return "clans" if colon > 0 and (comma < 0 or colon < comma) else "csv"


def _clan_rows(text: str, problems: list[Problem]) -> list[RosterRow]:
    rows: list[RosterRow] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        clan, colon, rest = line.partition(":")
        clan = clan.strip()
        if not colon or not clan:
            problems.append(at_line(number, _("a line of the clan list is “Clan: nick, nick, ...”, not %(text)r")
                                    % {"text": line.strip()[:80]}))
            continue
        nicks = list(dict.fromkeys(nick.strip() for nick in rest.split(",") if nick.strip()))
        if not nicks:
            problems.append(at_line(number, _("the clan %(team)s names no players") % {"team": clan}))
        rows += [RosterRow(number, clan, nick) for nick in nicks]
    return rows


def _captain_mark(value: str, number: int, nick: str, problems: list[Problem]) -> bool:
    mark = value.strip().lower()
    if mark in CAPTAIN_MARKS:
        return True
    if mark not in NOT_CAPTAIN:
        problems.append(at_line(number, _("%(nick)s: the third column marks the captain (1, yes, captain) or is "
                                          "empty, not %(value)r") % {"nick": nick, "value": value.strip()}))
    return False


def _csv_rows(text: str, problems: list[Problem]) -> list[RosterRow]:
    lines = text.splitlines()
    first = next((line for line in lines if line.strip()), "")
    delimiter = ";" if ";" in first and "," not in first else ","
    rows: list[RosterRow] = []
    header_seen = False
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        cells = [cell.strip() for cell in next(csv.reader([line], delimiter=delimiter))]
        while cells and not cells[-1]:
            cells.pop()
        if not header_seen:
            header_seen = True
            if tuple(cell.lower() for cell in cells[:2]) in HEADERS:
                continue
        if len(cells) not in (2, 3) or not cells[0] or not cells[1]:
            problems.append(at_line(number, _("a row is “team,player” or “team,player,captain”, not %(text)r")
                                    % {"text": line.strip()[:80]}))
            continue
        captain = _captain_mark(cells[2], number, cells[1], problems) if len(cells) == 3 else False
        rows.append(RosterRow(number, cells[0], cells[1], captain))
    return rows


def parse_rosters(text: str, kind: str = "auto", name: str = "") -> tuple[list[RosterTeam], list[Problem]]:
    """The teams of a roster file in the file's order, and every problem found (none: it can be imported)."""
    problems: list[Problem] = []
    if not isinstance(text, str) or not text.strip():
        return [], [Problem("", _("the file is empty"))]
    if nul_problem(text) is not None:
        return [], [nul_problem(text)]
    if kind not in KINDS:
        return [], [Problem("format", _("the format is one of: %(kinds)s") % {"kinds": ", ".join(KINDS)})]
    if kind == "auto":
        kind = detect(text, name)
    rows = _clan_rows(text, problems) if kind == "clans" else _csv_rows(text, problems)
    teams: dict[str, RosterTeam] = {}
    team_of: dict[str, RosterRow] = {}
    for row in rows:
        for value in (row.team, row.nick):
            if len(value) > NAME_LIMIT:
                problems.append(at_line(row.line, _("%(name)s is longer than %(limit)d characters") % {
                    "name": value[:40] + "…", "limit": NAME_LIMIT}))
        seen = team_of.get(row.nick)
        if seen is not None and seen.team != row.team:
            problems.append(at_line(row.line, _("%(nick)s is already in %(team)s (line %(other)d): a player is on "
                                                "one team's roster") % {"nick": row.nick, "team": seen.team,
                                                                        "other": seen.line}))
            continue
        team = teams.setdefault(row.team, RosterTeam(row.team, row.line))
        if seen is not None:  # the same player twice in one team: once, a captain if either row says so
            if row.captain and not seen.captain:
                team.players = [RosterRow(p.line, p.team, p.nick, True) if p.nick == row.nick else p
                                for p in team.players]
            continue
        team_of[row.nick] = row
        team.players.append(row)
    for team in teams.values():
        captains = [row for row in team.players if row.captain]
        if len(captains) > 1:
            problems.append(at_line(captains[1].line, _("%(team)s has two captains: %(first)s and %(nick)s") % {
                "team": team.name, "first": captains[0].nick, "nick": captains[1].nick}))
    return list(teams.values()), problems
