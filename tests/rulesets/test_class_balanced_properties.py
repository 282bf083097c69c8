"""Property tests of the ``class_balanced`` ranking (CB-11, CB-12)."""

from __future__ import annotations

import copy
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from rulesets import class_balanced as cb
from rulesets.class_balanced.points import Tally
from tests.rulesets.test_class_balanced_builder import STATS, TEAMS, document, export, game, parse, seat

ROLES = ("civilian", "civilian", "commissar", "mafia", "don")
EMPTY = parse(document({}))


@st.composite
def stage_1_documents(draw) -> dict:
    """Small stage-1 documents: a few games of 2..7 distinct teams with random roles, classes and timeouts."""
    games = []
    for number in range(1, draw(st.integers(0, 8)) + 1):
        teams = draw(st.lists(st.sampled_from(TEAMS), min_size=2, max_size=7, unique=True))
        seats = [seat(t, draw(st.sampled_from(sorted(STATS))), role=draw(st.sampled_from(ROLES)),
                      timed_out=draw(st.booleans()), in_final_phase=draw(st.booleans())) for t in teams]
        games.append(game(number, seats, outcome=draw(st.sampled_from(("civilians", "mafia", "draw")))))
    return document({"stage-1": games})


@settings(max_examples=60, deadline=None)
@given(stage_1_documents(), st.randoms(use_true_random=False))
def test_permuting_teams_games_and_seats_never_changes_the_table(doc, rnd):
    shuffled = copy.deepcopy(doc)
    rnd.shuffle(shuffled["teams"])
    rnd.shuffle(shuffled["stages"][0]["games"])
    for g in shuffled["stages"][0]["games"]:
        rnd.shuffle(g["seats"])
    assert export(shuffled) == export(doc)


@settings(max_examples=60, deadline=None)
@given(stage_1_documents())
def test_ranks_run_from_1_without_gaps_and_every_team_appears_once(doc):
    out = export(doc)
    assert [row["rank"] for row in out["teams"]] == list(range(1, len(TEAMS) + 1))
    assert sorted(row["team"] for row in out["teams"]) == list(TEAMS)
    points = [row["points"] for row in out["teams"]]
    assert points == sorted(points, reverse=True)


figures = st.builds(
    Tally,
    points=st.fractions(min_value=0, max_value=20, max_denominator=10),
    mafia_wins=st.integers(0, 3),
    mafia_draws=st.integers(0, 3),
    mafia_wins_13=st.integers(0, 3),
    mafia_draws_13=st.integers(0, 3),
    maniac_wins=st.integers(0, 2),
    points_13=st.fractions(min_value=0, max_value=10, max_denominator=10),
)


@settings(max_examples=100, deadline=None)
@given(st.lists(figures, min_size=2, max_size=14), st.data())
def test_adding_a_point_never_lowers_a_team(tallies, data):
    names = list(TEAMS[:len(tallies)])
    table = dict(zip(names, tallies))
    chain = data.draw(st.sampled_from((cb.SHORT_CHAIN, cb.LONG_CHAIN)))
    facts = EMPTY
    draws = cb.Draws({"stage-2": "seed"})
    before = [p.team for p in cb.order_teams(facts, names, table, chain, "stage-2", draws)]
    lucky = data.draw(st.sampled_from(names))
    raised = dict(table)
    raised[lucky] = Tally(**{**table[lucky].__dict__, "points": table[lucky].points + Fraction(1, 2)})
    after = [p.team for p in cb.order_teams(facts, names, raised, chain, "stage-2", draws)]
    assert after.index(lucky) <= before.index(lucky)


@settings(max_examples=100, deadline=None)
@given(st.lists(figures, min_size=2, max_size=14), st.randoms(use_true_random=False))
def test_ordering_does_not_depend_on_input_order(tallies, rnd):
    names = list(TEAMS[:len(tallies)])
    table = dict(zip(names, tallies))
    facts = EMPTY
    draws = cb.Draws({"stage-1": "seed"})
    shuffled = names[:]
    rnd.shuffle(shuffled)
    first = cb.order_teams(facts, names, table, cb.SHORT_CHAIN, "stage-1", draws)
    second = cb.order_teams(facts, shuffled, table, cb.SHORT_CHAIN, "stage-1", draws)
    assert [(p.team, p.separated_by) for p in first] == [(p.team, p.separated_by) for p in second]
