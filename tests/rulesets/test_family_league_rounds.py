"""``rulesets.family_league.rounds``: each team's figure per game of a stage (FL-13, FL-14), in order of play."""

from __future__ import annotations

import random
from fractions import Fraction
from types import SimpleNamespace

from hypothesis import given, settings
from hypothesis import strategies as st

from rulesets.base import round2
from rulesets.family_league.rounds import RoundFigures


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(0, 40), st.sampled_from(["every game in order", "shuffled",
                                                                                 "some games"]))
def test_fl_13_a_teams_figures_are_its_rounded_units_in_each_game_and_0_without_a_seat(rng: random.Random,
                                                                                        count: int, shape: str):
    """However the team's units were written (the build writes them in order of play, an update moves a judged
    game's to the end), ``of`` is the rounded units of each game in order of play, 0 where the team has no
    scoring seat."""
    numbers = sorted(rng.sample(range(1, 500), count))
    denominator = rng.choice([1, 2, 6, 12])
    written = [n for n in numbers if shape != "some games" or rng.random() < 0.5]
    if shape == "shuffled":
        rng.shuffle(written)
    entries = {number: rng.randint(-20, 60) for number in written}
    figures = RoundFigures([SimpleNamespace(number=n) for n in numbers], {"A": entries}, denominator)
    expected = [round2(Fraction(entries.get(n, 0), denominator)) for n in numbers]
    assert figures.of("A") == expected
    assert figures.of("B") == [0.0] * count
    assert figures.labels == [str(n) for n in numbers]
    assert figures.index == {n: i for i, n in enumerate(numbers)}
