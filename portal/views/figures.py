"""Per-game and per-tour figures as the pages show them: read from what the recompute stored in the database.

Nothing is computed here (``scoring.figures`` writes them with the standings). The figures are as fresh as the
latest table: while a recompute for a newer facts version is queued or running, the page says so and updates
itself (``static/js/live.js``, polling the standings' version document).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import rulesets
from portal.views.live import queued, stamp
from scoring import figures
from scoring.models import RecomputeRun, StandingsSnapshot
from tournaments.models import Tournament


@dataclass(frozen=True)
class FiguresState:
    """What the figures' page needs to tell and follow: the stored table's stamp and whether it is updating."""

    stamp: str
    pending: bool


def figures_state(tournament: Tournament) -> FiguresState:
    """The latest table's stamp, and "updating" only while a recompute of a newer version is queued or running."""
    row = StandingsSnapshot.objects.filter(tournament=tournament, stage_key="").values_list(
        "facts_version", "computed_at").first()
    version, computed_at = row if row else (None, None)
    lagging = version is None or version < tournament.facts_version
    pending = lagging and (queued(tournament.pk) or RecomputeRun.objects.filter(
        tournament=tournament, finished_at__isnull=True).exists())
    return FiguresState(stamp=stamp(version, computed_at), pending=pending)


def seat_points(tournament: Tournament, stage_key: str, numbers: list[int]) -> dict[int, dict[str, tuple[float, str]]]:
    """game number -> {nick: (points, reason)} for the given games of a stage (empty for ChGK or not stored)."""
    return seat_points_by_stage(tournament, {stage_key: numbers}).get(stage_key, {})


def seat_points_by_stage(tournament: Tournament, wanted: dict[str, list[int]]
                         ) -> dict[str, dict[int, dict[str, tuple[float, str]]]]:
    """Like ``seat_points`` for games of several stages, in one query."""
    wanted = {key: numbers for key, numbers in wanted.items() if numbers}
    if not wanted or rulesets.get(tournament.ruleset).seat_points is None:
        return {}
    stored = figures.stored_seat_points(tournament, wanted)
    return {stage_key: {number: {nick: (points, reason) for nick, points, reason in entries}
                        for number, entries in games.items()} for stage_key, games in stored.items()}


def tour_table(tournament: Tournament, number: int) -> dict[str, Any] | None:
    """The ruleset's ``tour_table`` (effective masks, ratings, places, points) as the recompute stored it."""
    if rulesets.get(tournament.ruleset).tour_table is None:
        return None
    return figures.stored_tour_table(tournament, number)
