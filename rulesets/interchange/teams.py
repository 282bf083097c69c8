"""The tournament's people: players, families and team rosters (FL-1, FL-3, FL-4, CB-1, CHGK-4, GP-8), and the
players and families a document implies through its rosters."""

from __future__ import annotations

import datetime as dt
from typing import Any

import rulesets
from rulesets.facts import LEAGUES, Family, Player, Team
from rulesets.interchange.limits import (
    FAMILY_KEYS,
    MAX_FAMILIES,
    MAX_PLAYERS,
    MAX_ROSTER,
    MAX_TEAMS,
    PLAYER_KEYS,
    TEAM_KEYS,
)
from rulesets.interchange.reader import Reader
from rulesets.messages import text as _


def _parse_players(r: Reader, value: Any) -> list[Player]:
    out: list[Player] = []
    seen: set[str] = set()
    for i, raw in enumerate(r.lst(value, "players", MAX_PLAYERS)):
        path = f"players[{i}]"
        p = r.obj(raw, path, PLAYER_KEYS, {"nick"})
        if p is None:
            continue
        nick = r.string(p.get("nick"), f"{path}.nick")
        if nick is None:
            continue
        if nick in seen:
            r.fail(f"{path}.nick", _("player %(player)s is listed twice", player=repr(nick)))
            continue
        seen.add(nick)
        out.append(Player(
            nick=nick,
            level=r.integer(p.get("level"), f"{path}.level", minimum=0),
            disqualified=r.boolean(p.get("disqualified"), f"{path}.disqualified"),
            family=r.string(p.get("family"), f"{path}.family", required=False),
            banned=r.boolean(p.get("banned"), f"{path}.banned"),
        ))
    return out


def _parse_families(r: Reader, value: Any) -> list[Family]:
    out: list[Family] = []
    seen: set[str] = set()
    for i, raw in enumerate(r.lst(value, "families", MAX_FAMILIES)):
        path = f"families[{i}]"
        f = r.obj(raw, path, FAMILY_KEYS, {"name"})
        if f is None:
            continue
        name = r.string(f.get("name"), f"{path}.name")
        if name is None:
            continue
        if name in seen:
            r.fail(f"{path}.name", _("family %(family)s is listed twice", family=repr(name)))
            continue
        seen.add(name)
        out.append(Family(name=name, head=r.string(f.get("head"), f"{path}.head", required=False)))
    return out


def _parse_teams(r: Reader, value: Any, path: str, key: str) -> list[Team]:
    ruleset = rulesets.get(key)
    out: list[Team] = []
    seen: set[str] = set()
    team_of: dict[str, str] = {}
    for i, raw in enumerate(r.lst(value, path, MAX_TEAMS)):
        tpath = f"{path}[{i}]"
        t = r.obj(raw, tpath, TEAM_KEYS, {"name", "players"})
        if t is None:
            continue
        name = r.string(t.get("name"), f"{tpath}.name")
        members = r.names(t.get("players"), f"{tpath}.players", MAX_ROSTER)
        if len(set(members)) != len(members):
            r.fail(f"{tpath}.players", _("a player is listed twice"))
        captain = r.string(t.get("captain"), f"{tpath}.captain", required=False)
        if captain is not None and captain not in members:
            r.fail(f"{tpath}.captain", _("captain %(player)s is not one of the team's players", player=repr(captain)))
        if name is None:
            continue
        if name in seen:
            r.fail(f"{tpath}.name", _("team %(team)s is listed twice", team=repr(name)))
            continue
        seen.add(name)
        if not ruleset.teams_per_stage:
            _check_one_roster(r, tpath, name, members, team_of)
        league = r.choice(t.get("league"), f"{tpath}.league", LEAGUES, required=False) or "none"
        family = r.string(t.get("family"), f"{tpath}.family", required=False)
        if family is None and ruleset.teams_are_families:
            family = name
        out.append(Team(name=name, captain=captain, players=members, league=league,
                        home_university=r.boolean(t.get("home_university"), f"{tpath}.home_university"),
                        family=family, left_at=_parse_left_at(r, t.get("left_at"), f"{tpath}.left_at", members)))
    return out


def _parse_left_at(r: Reader, value: Any, path: str, members: tuple[str, ...]) -> tuple[tuple[str, dt.datetime], ...]:
    """``{"nick": moment}``: when players of the team left its roster (FL-3, FL-4); kept in roster order."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        r.fail(path, _("must be an object of player: moment"))
        return ()
    if len(value) > len(members):
        r.fail(path, _("%(count)s entries for %(players)s players of the team", count=len(value), players=len(members)))
        return ()
    moments: dict[str, dt.datetime] = {}
    for nick, raw in value.items():
        if nick not in members:
            r.fail(f"{path}.{nick}", _("%(player)s is not one of the team's players", player=repr(nick)))
            continue
        moment = r.datetime(raw, f"{path}.{nick}", required=True)
        if moment is not None:
            moments[nick] = moment
    return tuple((nick, moments[nick]) for nick in members if nick in moments)


def _check_one_roster(r: Reader, path: str, name: str, members: tuple[str, ...], team_of: dict[str, str]) -> None:
    """A player is on one team's roster of the tournament (interchange: top-level ``teams``).

    A ChGK legionnaire who helps another team in one tour is recorded in that tour's line-up (CHGK-4), not on a
    second roster; a family league player plays for their own family (FL-1, FL-3); a class_balanced player for
    one of the 14 teams (CB-1). elimination_gp draws new teams for every stage, where GP-8 (one team a stage) is
    the ruleset's own check.
    """
    for pi, nick in enumerate(members):
        other = team_of.setdefault(nick, name)
        if other != name:
            r.fail(f"{path}.players[{pi}]",
                   _("%(player)s is already on the roster of %(team)s; a player is on one team's roster of a "
                     "tournament (a ChGK legionnaire is recorded in a tour's line-up, CHGK-4)", player=nick,
                     team=other))


def _complete_players(r: Reader, players: list[Player], teams: list[Team]) -> list[Player]:
    known = {p.nick for p in players}
    out = list(players)
    for team in teams:
        for nick in team.players:
            if nick not in known:
                known.add(nick)
                out.append(Player(nick=nick, family=team.family))
    return out


def _complete_families(families: list[Family], players: list[Player], teams: list[Team]) -> list[Family]:
    known = {f.name for f in families}
    out = list(families)
    for name in [t.family for t in teams] + [p.family for p in players]:
        if name and name not in known:
            known.add(name)
            out.append(Family(name=name))
    return out
