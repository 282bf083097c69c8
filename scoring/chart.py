"""The sampled series a standings chart is drawn from, stored with the snapshot's page summary.

Its size does not depend on the number of rounds: at most ``MAX_POINTS``
positions and ``MAX_LINES`` teams. The SVG is drawn from it on the page
(``portal.views.chart``).
"""

from __future__ import annotations

from typing import Any

MAX_POINTS = 60
MAX_LINES = 24


def _cumulative(values: list) -> list[float]:
    total = 0.0
    out = [0.0]
    for value in values:
        total += float(value or 0)
        out.append(round(total, 2))
    return out


def sample_indexes(count: int, limit: int = MAX_POINTS) -> list[int]:
    """Indexes 0..count-1 thinned evenly to at most ``limit``, always keeping the first and the last."""
    if count <= limit:
        return list(range(count))
    step = (count - 1) / (limit - 1)
    picked = sorted({round(i * step) for i in range(limit)})
    if picked[-1] != count - 1:
        picked.append(count - 1)
    return picked


def chart_summary(series: list[tuple[str, list]], rounds: list) -> dict[str, Any] | None:
    """What ``draw_chart`` needs, sampled and JSON-safe (its size does not depend on the number of rounds).

    None when there is nothing to draw. Keys: ``rounds`` (the number of rounds), ``indexes`` (the sampled
    positions 0..rounds of the cumulative series), ``low`` / ``high`` (the range of every cumulative value,
    sampled or not), ``lines`` (``[team, [cumulative points at each index]]``, at most ``MAX_LINES``) and
    ``x_ticks`` (``[round index, raw round label]``, translated when drawn).
    """
    series = [(team, values) for team, values in series if values][:MAX_LINES]
    if not series:
        return None
    count = max(len(values) for _team, values in series)
    if count == 0:
        return None
    cumulative = [(team, _cumulative(values + [0] * (count - len(values)))) for team, values in series]
    indexes = sample_indexes(count + 1)
    labels = list(rounds) + [""] * (count - len(rounds))
    return {
        "rounds": count,
        "indexes": indexes,
        "low": min(0.0, *(min(c) for _t, c in cumulative)),
        "high": max(1.0, *(max(c) for _t, c in cumulative)),
        "lines": [[team, [values[i] for i in indexes]] for team, values in cumulative],
        "x_ticks": [[index, labels[index]] for index in sample_indexes(count, 8)],
    }
