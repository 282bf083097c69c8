"""Per-game and per-tour figures as the pages show them: read from what the recompute job stored.

Nothing is computed here (``scoring.figures`` writes them after each
recompute); a value the job has not stored yet reads as missing.
"""

from __future__ import annotations

from typing import Any

import rulesets
from scoring import figures
from tournaments.models import Tournament


def seat_points(tournament: Tournament, stage_key: str, numbers: list[int]) -> dict[int, dict[str, tuple[float, str]]]:
    """game number -> {nick: (points, reason)} for the given games of a stage (empty for ChGK or not stored yet)."""
    return seat_points_by_stage(tournament, {stage_key: numbers}).get(stage_key, {})


def seat_points_by_stage(tournament: Tournament, wanted: dict[str, list[int]]
                         ) -> dict[str, dict[int, dict[str, tuple[float, str]]]]:
    """Like ``seat_points`` for games of several stages."""
    wanted = {key: numbers for key, numbers in wanted.items() if numbers}
    if not wanted or rulesets.get(tournament.ruleset).seat_points is None:
        return {}
    stored = figures.stored_seat_points(tournament, wanted) or {}
    return {stage_key: {number: {nick: (points, reason) for nick, points, reason in entries}
                        for number, entries in games.items()} for stage_key, games in stored.items()}


def tour_table(tournament: Tournament, number: int) -> dict[str, Any] | None:
    """The ruleset's ``tour_table`` (effective masks, ratings, places, points) as the job stored it."""
    if rulesets.get(tournament.ruleset).tour_table is None:
        return None
    return figures.stored_tour_table(tournament, number)
