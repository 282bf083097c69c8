"""Per-game and per-tour figures of a ruleset, cached by the tournament's facts version.

A seat's points (Mafia ``seat_points``) and a tour's matrix (ChGK
``tour_table``) are not part of the stored snapshot. They are computed from
the facts (``tournaments.loader.load_facts``: a fixed number of queries) the first
time a page asks after a change, and kept in Django's cache under a key that
holds the facts version: a change of facts makes a new key, so a cached value
is never stale. Web processes keep nothing in memory of their own.

The version is the one the request read *before* loading the facts, so a
value stored under a version holds facts at least that new (never older).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.core.cache import cache

import rulesets
from rulesets.base import RulesetError, round2
from scoring.serialize import jsonable
from tournaments.loader import load_facts
from tournaments.models import Tournament

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


def seat_points(tournament: Tournament, stage_key: str, numbers: list[int]) -> dict[int, dict[str, tuple[float, str]]]:
    """game number -> {nick: (points, reason)} for the given games of a stage (empty for ChGK)."""
    return seat_points_by_stage(tournament, {stage_key: numbers}).get(stage_key, {})


def seat_points_by_stage(tournament: Tournament, wanted: dict[str, list[int]]
                         ) -> dict[str, dict[int, dict[str, tuple[float, str]]]]:
    """Like ``seat_points`` for games of several stages; the facts are loaded at most once."""
    wanted = {key: numbers for key, numbers in wanted.items() if numbers}
    if not wanted or rulesets.get(tournament.ruleset).seat_points is None:
        return {}
    keys = {(stage_key, number // BLOCK): seat_key(tournament, tournament.facts_version, stage_key, number // BLOCK)
            for stage_key, numbers in wanted.items() for number in numbers}
    found = cache.get_many(list(set(keys.values())))
    missing = sorted({stage_key for (stage_key, _block), key in keys.items() if key not in found})
    computed = _compute_seat_points(tournament, missing) if missing else {}
    out: dict[str, dict[int, dict[str, tuple[float, str]]]] = {}
    for stage_key, numbers in wanted.items():
        for number in numbers:
            if stage_key in computed:
                entries = computed[stage_key].get(number, [])
            else:
                entries = found[keys[(stage_key, number // BLOCK)]].get(number, [])
            out.setdefault(stage_key, {})[number] = _as_dict(entries)
    return out


def _as_dict(entries: list) -> dict[str, tuple[float, str]]:
    return {nick: (points, reason) for nick, points, reason in entries}


def _compute_seat_points(tournament: Tournament, stage_keys: list[str]) -> dict[str, dict[int, list]]:
    """Every game of the stages at once, stored block by block (one facts load per facts version)."""
    facts = load_facts(tournament)
    ruleset = rulesets.get(facts.ruleset)
    out: dict[str, dict[int, list]] = {}
    payload: dict[str, dict[int, list]] = {}
    for stage_key in stage_keys:
        try:
            raw = ruleset.seat_points(facts, stage_key)
        except RulesetError:
            raw = {}
        by_game: dict[int, list] = defaultdict(list)
        for (number, nick), (points, reason) in raw.items():
            by_game[number].append((nick, round2(points), reason))
        stage = facts.stage(stage_key)
        numbers = ({g.number for g in stage.games} if stage else set()) | set(by_game)
        for number in numbers:
            key = seat_key(tournament, tournament.facts_version, stage_key, number // BLOCK)
            payload.setdefault(key, {})[number] = by_game.get(number, [])
        out[stage_key] = by_game
    cache.set_many(payload, timeout=TIMEOUT)
    return out


def tour_table(tournament: Tournament, number: int) -> dict[str, Any] | None:
    """The ruleset's ``tour_table`` (effective masks, ratings, places, points) as plain JSON-like data."""
    ruleset = rulesets.get(tournament.ruleset)
    if ruleset.tour_table is None:
        return None
    key = tour_key(tournament, tournament.facts_version, number)
    table = cache.get(key)
    if table is not None:
        return table
    try:
        table = jsonable(ruleset.tour_table(load_facts(tournament), number))
    except RulesetError:
        return None
    cache.set(key, table, timeout=TIMEOUT)
    return table
