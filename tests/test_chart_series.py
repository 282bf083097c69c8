"""The series a process charted last (``scoring.chart``): charting the same values again reuses their running
totals' extremes and samples, and gives exactly the chart computed afresh, whether the list is the same, an equal
copy, or changed at a single round; what is kept stays within its bound."""

from __future__ import annotations

import pytest

from scoring import chart

ROUNDS = [str(number) for number in range(1, 10_001)]


def series(teams: int = 30) -> list[tuple[str, list[float]]]:
    return [(f"Fam{team:02}", [float((team * i) % 7) - 1.5 for i in range(len(ROUNDS))]) for team in range(teams)]


@pytest.fixture
def kept(monkeypatch):
    monkeypatch.setattr(chart, "_kept", chart._Series())
    return chart._kept


def _without_kept(lines: list[tuple[str, list[float]]]) -> dict:
    """The chart computed with nothing kept."""
    saved = chart._kept
    chart._kept = chart._Series()
    try:
        return chart.chart_summary(lines, ROUNDS)
    finally:
        chart._kept = saved


def test_a_series_charted_again_gives_the_chart_computed_afresh(kept):
    first = chart.chart_summary(series(), ROUNDS)
    assert chart.chart_summary([(team, list(values)) for team, values in series()], ROUNDS) == first
    assert first == _without_kept(series())


def test_a_series_changed_at_one_round_is_charted_anew(kept):
    chart.chart_summary(series(), ROUNDS)
    changed = series()
    changed[3][1][5_000] += 40.0  # the high moves
    changed[4][1][0] = -90.0  # the low moves
    assert chart.chart_summary(changed, ROUNDS) == _without_kept(changed)
    for team, values in changed[:5]:  # each team's own chart, as the stored details keep it
        assert chart.chart_summary([(team, values)], ROUNDS) == _without_kept([(team, values)])


def test_the_kept_series_stay_within_their_bound_and_a_series_with_a_gap_is_not_kept(kept, monkeypatch):
    monkeypatch.setattr(kept, "ENTRIES", 2)
    for team, values in series():
        chart.chart_summary([(team, values)], ROUNDS)
    assert list(kept.entries) == ["Fam28", "Fam29"]
    gap = [1.0, None, 2.5] * 100
    assert chart.chart_summary([("Gap", gap)], ROUNDS) == _without_kept([("Gap", gap)])
    assert "Gap" not in kept.entries
