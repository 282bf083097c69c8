"""Builders of ``class_balanced`` documents for the tests (no tests here).

Baseline stages: every seat is a civilian in a civilians' win, so every team
earns 1.5 a game and all teams are level; tests then change single seats. A
civilians-won game where a team's seat is ``mafia`` costs that team 1.5 and
touches no tie-break figure (``lose``).
"""

from __future__ import annotations

import copy
import datetime as dt
from typing import Any

from rulesets import class_balanced as cb
from rulesets.interchange import export_standings, parse_document

LATE = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
STATS = {"C": 200, "B": 300, "A": 400}
TEAMS: tuple[str, ...] = tuple(f"T{i:02d}" for i in range(1, 15))
STAGE_2_PATTERN = "CCCCBBBBBAAAA"


def roster(team: str) -> list[str]:
    return [f"{team}-p{i}" for i in range(1, 8)]


def seat(team: str, cls: str = "B", role: str = "civilian", player: str | None = None, **extra: Any) -> dict:
    return {"player": player or f"{team}-p1", "team": team, "role": role, "stats": STATS[cls], **extra}


def game(number: int, seats: list[dict], outcome: str | None = "civilians", **extra: Any) -> dict:
    doc = {"number": number, "status": extra.pop("status", "played"), "seats": seats, **extra}
    if outcome is not None:
        doc["outcome"] = outcome
    return doc


def document(stages: dict[str, list[dict]], teams: tuple[str, ...] = TEAMS, settings: dict | None = None,
             **extra: Any) -> dict:
    tournament = {"slug": "cb-test", "name": "CB test", "ruleset": "class_balanced",
                  "timezone": "Europe/Moscow", "starts_on": "2015-03-02"}
    if settings is not None:
        tournament["settings"] = settings
    return {
        "format": "tournament-portal/1",
        "tournament": tournament,
        "teams": [{"name": t, "captain": roster(t)[0], "players": roster(t)} for t in teams],
        "stages": [{"key": key, "games": games} for key, games in stages.items()],
        **extra,
    }


def stage_1_games(teams: tuple[str, ...] = TEAMS) -> list[dict]:
    """48 games of 7: even games the first half of the teams, odd games the second; classes A, B, C in turn."""
    halves = (teams[:7], teams[7:])
    games = []
    for index in range(48):
        turn = index // 2
        seats = [seat(t, "ABC"[turn % 3], player=f"{t}-p{turn % 7 + 1}") for t in halves[index % 2]]
        games.append(game(index + 1, seats))
    return games


def stage_2_games(teams: tuple[str, ...]) -> list[dict]:
    """26 games of all 13 teams, 4 C / 5 B / 4 A a game, 8 A / 10 B / 8 C a team (CB-6)."""
    return [game(n + 1, [seat(t, STAGE_2_PATTERN[(i + n) % 13], player=f"{t}-p{n % 7 + 1}")
                         for i, t in enumerate(teams)]) for n in range(26)]


def stage_3_games(teams: tuple[str, ...]) -> list[dict]:
    """24 games of all 10 teams, each team 8 games of each class."""
    return [game(n + 1, [seat(t, "ABC"[(i + n) % 3], player=f"{t}-p{n % 7 + 1}") for i, t in enumerate(teams)])
            for n in range(24)]


def seat_of(games: list[dict], number: int, team: str) -> dict:
    found = next(g for g in games if g["number"] == number)
    return next(s for s in found["seats"] if s["team"] == team)


def games_of(games: list[dict], team: str) -> list[int]:
    return [g["number"] for g in games if any(s["team"] == team for s in g["seats"])]


def lose(games: list[dict], team: str, count: int = 1, skip: int = 0) -> None:
    """The team's seat becomes a losing mafia seat in ``count`` civilians-won games (costs 1.5 each)."""
    for number in games_of(games, team)[skip:skip + count]:
        seat_of(games, number, team)["role"] = "mafia"


def set_class(games: list[dict], number: int, team: str, cls: str) -> None:
    seat_of(games, number, team)["stats"] = STATS[cls]


def full_tournament() -> tuple[dict, tuple[str, ...], tuple[str, ...]]:
    """Three complete stages: T14 last after stage 1, T11..T13 last after stage 2; T01..T10 play stage 3."""
    s1 = stage_1_games()
    lose(s1, "T14")
    second = TEAMS[:13]
    s2 = stage_2_games(second)
    for team in ("T11", "T12", "T13"):
        lose(s2, team)
    third = TEAMS[:10]
    s3 = stage_3_games(third)
    return document({"stage-1": s1, "stage-2": s2, "stage-3": s3}), second, third


def parse(doc: dict):
    return parse_document(copy.deepcopy(doc))


def standings(doc: dict, stage: str | None = None, now: dt.datetime = LATE):
    return cb.compute(parse(doc), stage, now)


def export(doc: dict, stage: str | None = None, now: dt.datetime = LATE) -> dict:
    facts = parse(doc)
    return export_standings(facts, cb.compute(facts, stage, now))


def rows(out: dict) -> dict[str, dict]:
    return {row["team"]: row for row in out["teams"]}
