"""A server-drawn SVG chart of cumulative points over rounds (no JavaScript, no CDN).

The figures come from the snapshot (``details["teams"][i]["details"]["points_by_round"]``
and ``details["details"]["rounds"]``); a long league is sampled down to a
fixed number of points so that the page stays the same size whatever the
number of games.

Drawing is two steps: ``chart_summary`` reduces the series to a small
JSON-safe dict (the cumulative points at the ``sample_indexes`` positions, the
value range, the raw labels of the x ticks and the number of rounds), and
``draw_chart`` turns that dict into a ``Chart``. The standings snapshot stores
the dict at recompute time (``StandingsSnapshot.summary``, built by
``scoring.serialize.page_summary``), so the tournament page draws the chart
without reading the per-round lists; ``build_chart`` does both steps at once.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from portal.labels import round_label
from scoring.chart import chart_summary

WIDTH = 720
HEIGHT = 300
LEFT = 48
RIGHT = 12
TOP = 12
BOTTOM = 36
PALETTE = (
    "#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b",
    "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79", "#637939",
)


@dataclass
class Line:
    team: str
    color: str
    points: str
    total: float
    dash: str = ""


@dataclass
class Tick:
    position: float
    text: str
    value: float | None = None


@dataclass
class Chart:
    width: int = WIDTH
    height: int = HEIGHT
    lines: list[Line] = field(default_factory=list)
    x_ticks: list[Tick] = field(default_factory=list)
    y_ticks: list[Tick] = field(default_factory=list)
    left: int = LEFT
    right: int = WIDTH - RIGHT
    top: int = TOP
    bottom: int = HEIGHT - BOTTOM
    sampled: bool = False
    rounds: int = 0


def _nice_step(span: float) -> float:
    raw = span / 4 or 1
    magnitude = 10 ** len(str(int(raw))) / 10 if raw >= 1 else 0.1
    for factor in (1, 2, 2.5, 5, 10):
        if raw <= factor * magnitude:
            return factor * magnitude
    return 10 * magnitude


def _number(value: float) -> str:
    return f"{value:g}"


def draw_chart(summary: dict[str, Any] | None) -> Chart | None:
    """The chart of a ``chart_summary`` (None stays None)."""
    if not summary:
        return None
    count = summary["rounds"]
    indexes = summary["indexes"]
    low, high = summary["low"], summary["high"]
    step = _nice_step(high - low)
    top_value = step * (int(high / step) + (0 if high % step == 0 else 1))
    bottom_value = -step * (int(-low / step) + (0 if low % step == 0 else 1)) if low < 0 else 0.0
    chart = Chart(rounds=count)
    chart.sampled = len(indexes) < count + 1
    span_x = chart.right - chart.left
    span_y = chart.bottom - chart.top

    def x_of(index: int) -> float:
        return round(chart.left + span_x * index / count, 1)

    def y_of(value: float) -> float:
        return round(chart.bottom - span_y * (value - bottom_value) / ((top_value - bottom_value) or 1), 1)

    for number, (team, values) in enumerate(summary["lines"]):
        coords = " ".join(f"{x_of(i)},{y_of(value)}" for i, value in zip(indexes, values))
        chart.lines.append(Line(team=team, color=PALETTE[number % len(PALETTE)], points=coords, total=values[-1],
                                dash="" if number < len(PALETTE) else "4 3"))
    value = bottom_value
    while value <= top_value + 1e-9:
        chart.y_ticks.append(Tick(y_of(value), _number(round(value, 2)), round(value, 2)))
        value += step
    for index, raw in summary["x_ticks"]:
        chart.x_ticks.append(Tick(x_of(index + 1), round_label(raw)))
    return chart


def build_chart(series: list[tuple[str, list]], rounds: list) -> Chart | None:
    """A chart of cumulative points per team; None when there is nothing to draw."""
    return draw_chart(chart_summary(series, rounds))
