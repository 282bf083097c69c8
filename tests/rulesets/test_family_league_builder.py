"""A small builder of family league interchange documents for the tests (no tests of its own)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

from rulesets import family_league
from rulesets.interchange import export_standings, parse_document

NOW = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
MSK = dt.timezone(dt.timedelta(hours=4))


def names(count: int) -> list[str]:
    return [f"Fam{i:02d}" for i in range(1, count + 1)]


def team(name: str, size: int = 4) -> dict[str, Any]:
    return {"name": name, "captain": f"{name}-p1", "players": [f"{name}-p{i}" for i in range(1, size + 1)]}


def seat(player: str, role: str = "civilian", team: str | None = None, **extra: Any) -> dict[str, Any]:
    return {"player": player, "team": team or player.split("-")[0], "role": role, **extra}


def game(number: int, seats: Iterable[dict], outcome: str | None = "civilians", status: str = "played",
         group: str | None = None, **extra: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"number": number, "status": status, "seats": list(seats), **extra}
    if outcome is not None:
        out["outcome"] = outcome
    if group is not None:
        out["group"] = group
    return out


def full_game(number: int, teams: Sequence[str], outcome: str = "civilians", roles: dict[str, str] | None = None,
              player: int = 1, group: str | None = None, **extra: Any) -> dict[str, Any]:
    """One seat per team (player ``-p{player}``), civilian unless ``roles`` says otherwise."""
    roles = roles or {}
    return game(number, [seat(f"{t}-p{player}", roles.get(t, "civilian")) for t in teams], outcome,
                group=group, **extra)


def filler_games(first: int, count: int, teams: Sequence[str], group: str | None = None) -> list[dict]:
    """Games in which nobody earns a point: all civilians, and the mafia wins."""
    return [full_game(first + i, teams, "mafia", group=group, player=1 + i % 4) for i in range(count)]


def document(team_names: Sequence[str], stages: list[dict], **top: Any) -> dict[str, Any]:
    settings = top.pop("settings", None)
    tournament = {"slug": "fl-test", "name": "FL test", "ruleset": "family_league", "timezone": "Europe/Moscow",
                  "starts_on": "2014-09-01"}
    if settings:
        tournament["settings"] = settings
    doc = {"format": "tournament-portal/1", "tournament": tournament,
           "teams": [team(n) for n in team_names], "stages": stages}
    doc.update({k: v for k, v in top.items() if v is not None})
    return doc


def final_stage(team_names: Sequence[str], games: list[dict]) -> dict[str, Any]:
    return {"key": "final", "groups": [{"name": "Ф", "teams": list(team_names)}], "games": games}


def qualifying_stage(groups: dict[str, Sequence[str]], games: list[dict]) -> dict[str, Any]:
    return {"key": "qualifying", "groups": [{"name": g, "teams": list(t)} for g, t in groups.items()],
            "games": games}


def export(doc: dict, stage: str | None = None, now: dt.datetime = NOW) -> dict[str, Any]:
    facts = parse_document(doc)
    return export_standings(facts, family_league.compute(facts, stage, now))


def standings(doc: dict, stage: str | None = None, now: dt.datetime = NOW):
    return family_league.compute(parse_document(doc), stage, now)


def row(exported: dict, team_name: str) -> dict[str, Any]:
    return next(r for r in exported["teams"] if r["team"] == team_name)


def team_row(computed, team_name: str):
    return next(r for r in computed.teams if r.team == team_name)


def at(day: int, hour: int = 19) -> str:
    """An ISO time in September 2014, Moscow (+04:00 then)."""
    return dt.datetime(2014, 9, day, hour, 0, tzinfo=MSK).isoformat()
