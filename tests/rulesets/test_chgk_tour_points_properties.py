"""Ruleset chgk_tour_points: hypothesis properties of tour points and the season table (CHGK-12..CHGK-15)."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from rulesets import chgk_tour_points as chgk
from rulesets.chgk_tour_points.tours import (
    DEFAULT_POINTS_BY_PLACE,
    normalise_points_tables,
    points_table_for,
    shared_places,
)
from rulesets.chgk_tour_points.tours import tour_points as points_for_counts
from tests.rulesets.test_chgk_tour_points import NAMES, export, load, season_doc, tour_doc

TABLES = normalise_points_tables(DEFAULT_POINTS_BY_PLACE)
BOUNDED = settings(max_examples=100, deadline=None)


@st.composite
def tour_counts(draw):
    """Correct answers of the teams of one tour, and the season's size (which picks the table)."""
    teams = draw(st.integers(min_value=1, max_value=16))
    counts = draw(st.lists(st.integers(min_value=0, max_value=8), min_size=teams, max_size=teams))
    season_teams = draw(st.integers(min_value=teams, max_value=20))
    return dict(zip(NAMES, counts)), points_table_for(TABLES, season_teams)


@st.composite
def one_tour_season(draw):
    """A season document with one played tour hosted by Alpha, masks of 1, 0 and ?."""
    teams = draw(st.integers(min_value=2, max_value=14))
    masks = {name: draw(st.text(alphabet="10?", min_size=8, max_size=8)) for name in NAMES[1:teams]}
    return teams, masks


def table_points_for_occupied_places(counts: dict[str, int], table) -> Fraction:
    scoring = sorted((c for c in counts.values() if c > 0), reverse=True)
    return sum((Fraction(table[place]) for place in range(len(scoring)) if place < len(table)), Fraction(0))


@BOUNDED
@given(tour_counts(), st.randoms(use_true_random=False))
def test_chgk_13_permuting_teams_never_changes_a_tours_points(case, rnd):
    counts, table = case
    items = list(counts.items())
    rnd.shuffle(items)
    assert points_for_counts(dict(items), table) == points_for_counts(counts, table)


@BOUNDED
@given(tour_counts())
def test_chgk_12_a_tours_points_sum_to_the_tables_points_for_occupied_places(case):
    counts, table = case
    points = points_for_counts(counts, table)
    assert sum(points.values(), Fraction(0)) == table_points_for_occupied_places(counts, table)
    assert all(points[team] == 0 for team, count in counts.items() if count == 0)


@BOUNDED
@given(tour_counts())
def test_chgk_13_shared_places_are_the_averaged_ranks(case):
    counts, _table = case
    for team, (first, last) in shared_places(counts).items():
        better = sum(1 for c in counts.values() if c > counts[team])
        equal = sum(1 for c in counts.values() if c == counts[team])
        assert (first, last) == (better + 1, better + equal)


@BOUNDED
@given(one_tour_season(), st.data())
def test_chgk_12_adding_a_correct_answer_never_lowers_a_teams_tour_points(case, data):
    teams, masks = case
    team = data.draw(st.sampled_from(sorted(masks)))
    zeros = [i for i, mark in enumerate(masks[team]) if mark != "1"]
    if not zeros:
        return
    position = data.draw(st.sampled_from(zeros))
    better = dict(masks)
    better[team] = masks[team][:position] + "1" + masks[team][position + 1:]
    before = chgk.tour_table(load(season_doc(teams, [tour_doc(1, "Alpha", masks)])), 1)
    after = chgk.tour_table(load(season_doc(teams, [tour_doc(1, "Alpha", better)])), 1)
    assert after["points"][team] >= before["points"][team]
    assert sum(after["points"].values()) >= sum(before["points"].values())


@BOUNDED
@given(one_tour_season(), st.randoms(use_true_random=False))
def test_chgk_15_permuting_teams_and_masks_never_changes_the_table(case, rnd):
    teams, masks = case
    doc = season_doc(teams, [tour_doc(1, "Alpha", masks)])
    shuffled = season_doc(teams, [tour_doc(1, "Alpha", dict(rnd.sample(list(masks.items()), len(masks))))])
    rnd.shuffle(shuffled["teams"])
    assert export(shuffled) == export(doc)


@BOUNDED
@given(st.integers(min_value=3, max_value=9), st.data())
def test_chgk_15_adding_a_correct_answer_never_lowers_a_teams_rank(teams, data):
    tours = []
    for number in range(1, teams):
        host = NAMES[number - 1]
        masks = {n: data.draw(st.text(alphabet="10", min_size=8, max_size=8)) for n in NAMES[:teams] if n != host}
        tours.append(tour_doc(number, host, masks))
    tour = data.draw(st.sampled_from(tours))
    team = data.draw(st.sampled_from(sorted(tour["masks"])))
    zeros = [i for i, mark in enumerate(tour["masks"][team]) if mark == "0"]
    if not zeros:
        return
    before = {r["team"]: r["rank"] for r in export(season_doc(teams, tours))["teams"]}
    position = data.draw(st.sampled_from(zeros))
    tour["masks"][team] = tour["masks"][team][:position] + "1" + tour["masks"][team][position + 1:]
    after = {r["team"]: r["rank"] for r in export(season_doc(teams, tours))["teams"]}
    assert after[team] <= before[team]
