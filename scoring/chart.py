"""The sampled series a standings chart is drawn from, stored with the snapshot's page summary.

Its size does not depend on the number of rounds: at most ``MAX_POINTS``
positions and ``MAX_LINES`` teams. The SVG is drawn from it on the page
(``portal.views.chart``).
"""

from __future__ import annotations

from itertools import accumulate
from typing import Any

MAX_POINTS = 60
MAX_LINES = 24
# a list of values' running totals, their least and greatest, and the totals rounded at the sample positions
# (by how many positions)
Cumulated = tuple[list[float], float, float, dict[int, list[float]]]


def _cumulative(values: list) -> list[float]:
    """0, then the running totals (``None`` counts 0), not rounded: ``chart_summary`` rounds what it keeps.

    A list of numbers is added as it is; one with a ``None`` fails the addition and is added again with it as 0
    (looking for a ``None`` first compared every value of a league's 10,000-game lists with it: issue 20)."""
    try:
        return list(accumulate(values, initial=0.0))  # from 0.0: every total is a float
    except TypeError:
        return list(accumulate((float(v or 0) for v in values), initial=0.0))


def _extremes(totals: list[float]) -> tuple[float, float]:
    """(least, greatest) of running totals: sorting a copy compares floats on the sort's own fast path, twice as
    quick as ``min`` and ``max`` over a league's 10,000 totals (issue 20)."""
    ordered = sorted(totals)
    return ordered[0], ordered[-1]


def sample_indexes(count: int, limit: int = MAX_POINTS) -> list[int]:
    """Indexes 0..count-1 thinned evenly to at most ``limit``, always keeping the first and the last."""
    if count <= limit:
        return list(range(count))
    step = (count - 1) / (limit - 1)
    picked = sorted({round(i * step) for i in range(limit)})
    if picked[-1] != count - 1:
        picked.append(count - 1)
    return picked


def chart_summary(series: list[tuple[str, list]], rounds: list,
                  cumulated: dict[int, Cumulated] | None = None) -> dict[str, Any] | None:
    """What ``draw_chart`` needs, sampled and JSON-safe (its size does not depend on the number of rounds).

    None when there is nothing to draw. Keys: ``rounds`` (the number of rounds), ``indexes`` (the sampled
    positions 0..rounds of the cumulative series), ``low`` / ``high`` (the range of every cumulative value,
    sampled or not), ``lines`` (``[team, [cumulative points at each index]]``, at most ``MAX_LINES``) and
    ``x_ticks`` (``[round index, raw round label]``, translated when drawn). ``cumulated``: running totals
    already computed (with their least and greatest, and their rounded samples), by ``id`` of their list of
    values (several charts of the same lists share them: a league's page chart and each team's).
    """
    series = [(team, values) for team, values in series if values][:MAX_LINES]
    if not series:
        return None
    count = max(len(values) for _team, values in series)
    if count == 0:
        return None
    cumulated = {} if cumulated is None else cumulated
    indexes = sample_indexes(count + 1)
    cumulative, lines = [], []
    for team, values in series:
        if len(values) < count:
            totals = _cumulative(values + [0] * (count - len(values)))
            cumulative.append((totals, *_extremes(totals)))
            lines.append([team, [round(totals[i], 2) for i in indexes]])
            continue
        kept = cumulated.get(id(values))
        if kept is None:
            totals = _cumulative(values)
            kept = cumulated[id(values)] = (totals, *_extremes(totals), {})
        cumulative.append(kept)
        sampled = kept[3]  # the rounded totals at the sample positions, by their count: another chart's too
        if len(indexes) not in sampled:
            sampled[len(indexes)] = [round(kept[0][i], 2) for i in indexes]
        lines.append([team, list(sampled[len(indexes)])])
    return {
        "rounds": count,
        "indexes": indexes,
        "low": min(0.0, *(round(c[1], 2) for c in cumulative)),  # rounding keeps the order: round the extremes
        "high": max(1.0, *(round(c[2], 2) for c in cumulative)),
        "lines": lines,
        "x_ticks": [[index, rounds[index] if index < len(rounds) else ""] for index in sample_indexes(count, 8)],
    }
