"""Builders for elimination_gp test documents (no tests here).

Teams are letters ("A", "B", ...) and their players the letter and a number
("A1".."A6"), so a seat's team is the player's first letter.
"""

from __future__ import annotations

import datetime as dt
import random
import string
from typing import Any

from rulesets import elimination_gp as gp
from rulesets.base import Standings
from rulesets.facts import SIDE_OF_ROLE, TournamentFacts
from rulesets.interchange import export_standings, parse_document

LATER = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
MSK = dt.timezone(dt.timedelta(hours=3))


def team_names(count: int) -> list[str]:
    return list(string.ascii_uppercase[:count])


def stage(key: str = "qualifying-1", teams: int = 9, size: int = 6, games: list | None = None,
          prefix: str = "") -> dict[str, Any]:
    """A stage of ``teams`` teams of ``size`` players, named A1..A6, B1..B6 (with an optional prefix)."""
    return {
        "key": key,
        "teams": [{"name": f"{prefix}{t}", "captain": f"{prefix}{t}1",
                   "players": [f"{prefix}{t}{i}" for i in range(1, size + 1)]} for t in team_names(teams)],
        "games": list(games or []),
    }


def team_of(player: str, prefix: str = "") -> str:
    return player[: len(prefix) + 1]


def game(tour: int, outcome: str | None, seats: dict[str, str], *, number: int | None = None, absent=(),
         no_show: dict[str, str] | None = None, omon: bool = False, status: str = "played",
         prefix: str = "") -> dict[str, Any]:
    """A game of tour ``tour``; ``seats`` maps player to role."""
    doc: dict[str, Any] = {
        "number": number if number is not None else tour, "round": tour, "status": status,
        "seats": [{"player": p, "team": team_of(p, prefix), "role": role} for p, role in seats.items()],
        "absent_teams": list(absent),
    }
    if outcome is not None:
        doc["outcome"] = outcome
    if omon:
        doc["omon"] = True
    if no_show:
        doc["no_show_eliminated"] = dict(no_show)
    return doc


def document(*stages: dict[str, Any], settings: dict | None = None, decisions: list | None = None,
             appeals: list | None = None, players: list | None = None, slug: str = "gp-test") -> dict[str, Any]:
    doc: dict[str, Any] = {
        "format": "tournament-portal/1",
        "tournament": {"slug": slug, "name": "GP test", "ruleset": "elimination_gp",
                       "timezone": "Europe/Moscow", "starts_on": "2013-05-06", "settings": dict(settings or {})},
        "stages": list(stages),
    }
    if decisions:
        doc["decisions"] = decisions
    if appeals:
        doc["appeals"] = appeals
    if players:
        doc["players"] = players
    return doc


def facts_of(doc: dict[str, Any]) -> TournamentFacts:
    return parse_document(doc)


def standings(doc: dict[str, Any], stage_key: str | None = None, now: dt.datetime = LATER) -> Standings:
    return gp.compute(parse_document(doc), stage_key, now)


def export(doc: dict[str, Any], stage_key: str | None = None, now: dt.datetime = LATER) -> dict[str, Any]:
    facts = parse_document(doc)
    return export_standings(facts, gp.compute(facts, stage_key, now))


def team_row(result: Standings, team: str):
    return next(row for row in result.teams if row.team == team)


def player_row(result: Standings, player: str):
    return next(row for row in result.players if row.player == player)


def problems_of(doc: dict[str, Any]) -> list[str]:
    """The refusals of a document (``[]`` when it parses)."""
    from rulesets.base import RulesetError

    try:
        parse_document(doc)
    except RulesetError as error:
        return [str(p) for p in error.problems]
    return []


def random_stage(rng: random.Random, *, teams: int = 9, size: int = 6, absent_rate: float = 0.1,
                 record_no_shows: bool = True, max_tours: int = 40, key: str = "qualifying-1",
                 omon_from: int = 21) -> dict[str, Any]:
    """A valid random stage played until 3 teams are out (or ``max_tours``).

    Every tour each remaining team sends one remaining player or is absent;
    absent teams lose a player (recorded in ``no_show_eliminated`` when
    ``record_no_shows``, else left to the portal's draw, which the generator
    replays with ``gp.draw_no_show`` and the stage's default seed).
    """
    doc = stage(key, teams, size)
    remaining = {t["name"]: list(t["players"]) for t in doc["teams"]}
    out: set[str] = set()
    seed = f"gp-test/{key}"
    for tour in range(1, max_tours + 1):
        if len(out) >= 3:
            break
        playing = [t for t in remaining if remaining[t]]
        absent = [t for t in playing if rng.random() < absent_rate]
        seated_teams = [t for t in playing if t not in absent]
        if len(seated_teams) < 2:
            absent, seated_teams = [], playing
        seats = {rng.choice(remaining[t]): None for t in seated_teams}
        players = list(seats)
        mafia_count = max(1, len(players) // 3)
        roles = ["don"] + ["mafia"] * (mafia_count - 1) + ["commissar"] + ["civilian"] * len(players)
        rng.shuffle(players)
        assigned = {p: roles[i] for i, p in enumerate(players)}
        if rng.random() < 0.05:
            assigned[players[-1]] = "maniac"
        outcome = rng.choice(["civilians", "civilians", "mafia", "mafia", "draw", "maniac"])
        omon = rng.random() < 0.05
        no_show = {}
        for t in absent:
            victim = (rng.choice(remaining[t]) if record_no_shows
                      else gp.draw_no_show(remaining[t], seed, tour, t))
            no_show[t] = victim
            remaining[t].remove(victim)
        g = game(tour, outcome, {p: assigned[p] for p in seats}, absent=absent,
                 no_show=no_show if record_no_shows else None, omon=omon)
        doc["games"].append(g)
        is_omon = omon or outcome == "draw"
        for p, role in assigned.items():
            side = SIDE_OF_ROLE[role]
            lost = (not is_omon and outcome in ("civilians", "mafia") and side != outcome) or (
                is_omon and tour >= omon_from and side == "civilians")
            if lost:
                remaining[p[0]].remove(p)
        out = {t for t in remaining if not remaining[t]}
    return doc


class StagePlan:
    """A stage played tour by tour; teams not named in a tour send their first remaining player as a civilian.

    The plan keeps track of who is still in (GP-10..GP-12) so that every
    tour it writes seats only remaining players of remaining teams.
    """

    def __init__(self, key: str = "qualifying-1", teams: dict[str, list[str]] | None = None, omon_from: int = 21):
        self.key = key
        self.teams = teams or {t: [f"{t}{i}" for i in range(1, 7)] for t in team_names(9)}
        self.team_of = {p: t for t, players in self.teams.items() for p in players}
        self.remaining = {t: list(players) for t, players in self.teams.items()}
        self.games: list[dict[str, Any]] = []
        self.omon_from = omon_from

    def tour(self, outcome: str, seats: dict[str, str] | None = None, *, absent: dict[str, str] | None = None,
             omon: bool = False) -> StagePlan:
        number = len(self.games) + 1
        seats = dict(seats or {})
        absent = dict(absent or {})
        named = {self.team_of[p] for p in seats} | set(absent)
        for team, players in self.remaining.items():
            if players and team not in named:
                seats[players[0]] = "civilian"
        self.games.append({
            "number": number, "round": number, "status": "played", "outcome": outcome, "omon": omon,
            "seats": [{"player": p, "team": self.team_of[p], "role": r} for p, r in seats.items()],
            "absent_teams": list(absent), "no_show_eliminated": absent,
        })
        for team, player in absent.items():
            self.remaining[team].remove(player)
        is_omon = omon or outcome == "draw"
        for player, role in seats.items():
            side = SIDE_OF_ROLE[role]
            if (not is_omon and outcome in ("civilians", "mafia") and side != outcome) or (
                    is_omon and number >= self.omon_from and side == "civilians"):
                self.remaining[self.team_of[player]].remove(player)
        return self

    def knock_out(self, losers: tuple[str, ...] = ("G", "H", "I"), roles: dict[str, str] | None = None) -> StagePlan:
        """Civilians win tour after tour; ``losers`` send mafia until all of them are out.

        The other teams send their players in turn (tour k: the k-th remaining
        player, cycling), as civilians unless ``roles`` says otherwise.
        """
        roles = roles or {}
        turn = 0
        while any(self.remaining[t] for t in losers):
            seats: dict[str, str] = {}
            for team, players in self.remaining.items():
                if not players:
                    continue
                if team in losers:
                    seats[players[0]] = "mafia"
                else:
                    player = players[turn % len(players)]
                    seats[player] = roles.get(f"{player}@{turn + 1}", roles.get(player, "civilian"))
            self.tour("civilians", seats)
            turn += 1
        return self

    def stage(self) -> dict[str, Any]:
        return {"key": self.key, "teams": [{"name": t, "captain": players[0], "players": list(players)}
                                           for t, players in self.teams.items()],
                "games": list(self.games)}
