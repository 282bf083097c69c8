"""Per-game and per-tour figures the recompute job stores beside the snapshots (issue 15, item 5).

A seat's points (Mafia ``seat_points``) and a tour's matrix (ChGK
``tour_table``) are computed by the job from the facts it has just loaded,
after the snapshots are stored (the table shows first), and kept in Django's
cache under keys that hold the facts version: a change of facts makes new
keys, so a stored value is never stale. Pages only read them
(``portal.views.figures``); a value not stored yet reads as missing, and the
page says the figures are being computed.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.core.cache import cache

import rulesets
from rulesets.base import RulesetError, round2
from rulesets.facts import TournamentFacts
from tournaments.models import Tournament
from tournaments.serialize import jsonable

TIMEOUT = 7 * 24 * 3600
BLOCK = 100  # games per cache entry: a page reads one small entry, a 10,000-game stage stores 100


def _prefix(tournament: Tournament, facts_version: int) -> str:
    created = int(tournament.created_at.timestamp() * 1_000_000) if tournament.created_at else 0
    return f"pages:{tournament.pk}:{created}:{facts_version}"


def seat_key(tournament: Tournament, facts_version: int, stage_key: str, block: int) -> str:
    """The cache key of games ``block * BLOCK`` .. ``block * BLOCK + BLOCK - 1`` of a stage."""
    return f"{_prefix(tournament, facts_version)}:seats:{stage_key}:{block}"


def tour_key(tournament: Tournament, facts_version: int, number: int) -> str:
    return f"{_prefix(tournament, facts_version)}:tour:{number}"


def store_figures(tournament: Tournament, facts: TournamentFacts) -> int:
    """Compute and store every game's seat points and every tour's table; returns the entries written.

    ``facts`` were loaded at ``tournament.facts_version`` (the job's consistent read).
    """
    ruleset = rulesets.get(facts.ruleset)
    payload: dict[str, Any] = {}
    if ruleset.seat_points is not None:
        for stage in facts.stages:
            try:
                raw = ruleset.seat_points(facts, stage.key)
            except RulesetError:
                raw = {}
            by_game: dict[int, list] = defaultdict(list)
            for (number, nick), (points, reason) in raw.items():
                by_game[number].append((nick, round2(points), reason))
            for number in {g.number for g in stage.games} | set(by_game):
                key = seat_key(tournament, tournament.facts_version, stage.key, number // BLOCK)
                payload.setdefault(key, {})[number] = by_game.get(number, [])
    if ruleset.tour_table is not None:
        for stage in facts.stages:
            for tour in stage.tours:
                try:
                    payload[tour_key(tournament, tournament.facts_version, tour.number)] = jsonable(
                        ruleset.tour_table(facts, tour.number))
                except RulesetError:
                    continue
    cache.set_many(payload, timeout=TIMEOUT)
    return len(payload)


def stored_seat_points(tournament: Tournament, wanted: dict[str, list[int]]
                       ) -> dict[str, dict[int, list]] | None:
    """stage -> game number -> [(nick, points, reason)] as stored; None when any wanted block is not stored."""
    keys = {(stage_key, number // BLOCK): seat_key(tournament, tournament.facts_version, stage_key, number // BLOCK)
            for stage_key, numbers in wanted.items() for number in numbers}
    found = cache.get_many(list(set(keys.values())))
    if len(found) < len(set(keys.values())):
        return None
    out: dict[str, dict[int, list]] = {}
    for stage_key, numbers in wanted.items():
        for number in numbers:
            out.setdefault(stage_key, {})[number] = found[keys[(stage_key, number // BLOCK)]].get(number, [])
    return out


def stored_tour_table(tournament: Tournament, number: int) -> dict[str, Any] | None:
    return cache.get(tour_key(tournament, tournament.facts_version, number))
