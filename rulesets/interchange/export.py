"""The export document ``tournament-portal/standings/1``: a ruleset's computed ``Standings`` as JSON."""

from __future__ import annotations

from typing import Any

from rulesets.base import Standings, round2
from rulesets.facts import TournamentFacts
from rulesets.interchange.limits import EXPORT_FORMAT


def export_standings(facts: TournamentFacts, standings: Standings) -> dict[str, Any]:
    """The export document ``tournament-portal/standings/1`` for computed standings."""
    teams = []
    for row in standings.teams:
        item: dict[str, Any] = {"rank": row.rank, "team": row.team, "points": round2(row.points),
                                "status": row.status,
                                "tiebreaks": {k: _number(v) for k, v in row.tiebreaks.items()}}
        if row.group is not None:
            item["group"] = row.group
        teams.append(item)
    out: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "tournament": facts.slug,
        "ruleset": facts.ruleset,
        "stage": standings.stage,
        "final": standings.final,
        "teams": teams,
    }
    if standings.players is not None:
        out["players"] = [{"rank": p.rank, "player": p.player, "team": p.team, "points": round2(p.points),
                           "games": p.games, "status": p.status} for p in standings.players]
    if standings.awards is not None:
        out["awards"] = [{"place": a.place, "team": a.team, "player": a.player, "prize": a.prize,
                          "currency": a.currency, "items": list(a.items)} for a in standings.awards]
    out["seed"] = standings.seed
    if standings.best_player is not None:
        out["best_player"] = list(standings.best_player)
    return out


def _number(value: Any) -> int | float:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return round2(value)
