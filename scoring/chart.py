"""The sampled series a standings chart is drawn from, stored with the snapshot's page summary.

Its size does not depend on the number of rounds: at most ``MAX_POINTS``
positions and ``MAX_LINES`` teams. The SVG is drawn from it on the page
(``portal.views.chart``).
"""

from __future__ import annotations

import hashlib
import threading
from array import array
from collections import OrderedDict
from itertools import accumulate
from typing import Any

MAX_POINTS = 60
MAX_LINES = 24
# a list of values' running totals (None: not kept, ``_Series``), their least and greatest, and the totals rounded
# at the sample positions (by how many positions)
Cumulated = tuple[list[float] | None, float, float, dict[int, list[float]]]


def _cumulative(values: list) -> list[float]:
    """0, then the running totals (``None`` counts 0), not rounded: ``chart_summary`` rounds what it keeps.

    A list of numbers is added as it is; one with a ``None`` fails the addition and is added again with it as 0
    (looking for a ``None`` first compared every value of a league's 10,000-game lists with it)."""
    try:
        return list(accumulate(values, initial=0.0))  # from 0.0: every total is a float
    except TypeError:
        return list(accumulate((float(v or 0) for v in values), initial=0.0))


def _extremes(totals: list[float]) -> tuple[float, float]:
    """(least, greatest) of running totals: sorting a copy compares floats on the sort's own fast path, twice as
    quick as ``min`` and ``max`` over a league's 10,000 totals."""
    ordered = sorted(totals)
    return ordered[0], ordered[-1]


def _cumulated(values: list) -> Cumulated:
    totals = _cumulative(values)
    return (totals, *_extremes(totals), {})


class _Series:
    """The extremes and rounded samples of the series this process charted last, by team, for the next chart of
    the same values: after one result a league's recompute charts 140 teams' 10,000-game series again, and only
    the teams of that game have other values. A series is known again by the digest of its values as doubles
    (the numbers the running totals add; as ``scoring.figures`` knows a block of figures by its digest), so that
    neither the series nor its running totals are kept (a pointer or a float a value: 20 MB more at the peak of a
    league's import). A series with a value that is not a number (a ``None``) is not kept. At most ``ENTRIES``
    entries, the oldest dropped first."""

    ENTRIES = 2_000

    def __init__(self) -> None:
        self.entries: OrderedDict[Any, tuple[bytes, Cumulated]] = OrderedDict()
        self.lock = threading.Lock()

    @staticmethod
    def digest(values: list) -> bytes | None:
        try:
            return hashlib.blake2b(array("d", values).tobytes(), digest_size=16).digest()
        except TypeError:
            return None

    def get(self, team: Any, digest: bytes | None) -> Cumulated | None:
        with self.lock:
            entry = self.entries.get(team)
            if digest is None or entry is None or entry[0] != digest:
                return None
            self.entries.move_to_end(team)
            return entry[1]

    def put(self, team: Any, digest: bytes | None, cumulated: Cumulated) -> Cumulated:
        """Keep ``cumulated`` without its totals under ``digest`` (None: nothing kept); returns it as it is (its
        samples, filled in later, are the kept entry's too)."""
        if digest is not None:
            with self.lock:
                self.entries.pop(team, None)
                self.entries[team] = (digest, (None, *cumulated[1:]))
                while len(self.entries) > self.ENTRIES:
                    self.entries.popitem(last=False)
        return cumulated


_kept = _Series()


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
            digest = _kept.digest(values)
            kept = cumulated[id(values)] = _kept.get(team, digest) or _kept.put(team, digest, _cumulated(values))
        cumulative.append(kept)
        sampled = kept[3]  # the rounded totals at the sample positions, by their count: another chart's too
        if len(indexes) not in sampled:
            totals = kept[0] if kept[0] is not None else _cumulative(values)
            sampled[len(indexes)] = [round(totals[i], 2) for i in indexes]
        lines.append([team, list(sampled[len(indexes)])])
    return {
        "rounds": count,
        "indexes": indexes,
        "low": min(0.0, *(round(c[1], 2) for c in cumulative)),  # rounding keeps the order: round the extremes
        "high": max(1.0, *(round(c[2], 2) for c in cumulative)),
        "lines": lines,
        "x_ticks": [[index, rounds[index] if index < len(rounds) else ""] for index in sample_indexes(count, 8)],
    }
