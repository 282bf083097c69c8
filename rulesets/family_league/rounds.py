"""A stage's figures round by round: each team's points in each game, in order of play (FL-13, FL-14), before
FL-16's penalties, which the standings write over their games' figures on a copy.

A league's stage has 10^4 games: a table of every team's figure in every game is 10^5 values. They are built
when first read and kept with the ledger's analysis; the analysis after an update carries them over with only
the judged games' positions written again (a saved result no longer rebuilds them all).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from fractions import Fraction
from itertools import repeat
from operator import attrgetter

from rulesets.base import round2
from rulesets.facts import Game

NUMBER = attrgetter("number")


class Rounded(dict):
    """Units of ``denominator`` -> the rounded figure, computed once per value."""

    def __init__(self, denominator: int):
        super().__init__()
        self.denominator = denominator

    def __missing__(self, units: int) -> float:
        figure = self[units] = round2(Fraction(units, self.denominator))
        return figure


class RoundFigures:
    """Each team's rounded points per game of one stage, in the order of ``games``, from ``units`` (team -> game
    number -> the units of its scoring seat, ``StageSums.units``).

    ``of(team)`` is shared by every reader of the analysis: copy it before writing into it.
    """

    def __init__(self, games: Sequence[Game], units: Mapping[str, Mapping[int, int]], denominator: int,
                 earlier: RoundFigures | None = None, judged: Collection[int] = ()):
        """``earlier``: the figures of the ledger's previous analysis; ``judged``: the numbers of the games judged
        again since. When ``games`` are ``earlier``'s, perhaps with new games after them, the lists ``earlier``
        had built are copied and written at the judged and the new games' positions; otherwise every list is
        built again when first read."""
        self.numbers = list(map(NUMBER, games))
        self.units = units
        self.rounded = Rounded(denominator)
        self._by_team: dict[str, list[float]] = {}
        self._labels: list[str] | None = None
        self._index: dict[int, int] | None = None
        if earlier is None or earlier.rounded.denominator != denominator:
            return
        kept = len(earlier.numbers)
        if kept > len(self.numbers) or earlier.numbers != self.numbers[:kept]:
            return
        self.rounded = rounded = earlier.rounded
        added = self.numbers[kept:]
        if earlier._labels is not None:
            self._labels = earlier._labels + list(map(str, added)) if added else earlier._labels
        if earlier._index is not None:
            self._index = {**earlier._index, **dict(zip(added, range(kept, len(self.numbers))))} if added else (
                earlier._index)
        again = [(self.index[number], number) for number in judged if number in self.index and (
            self.index[number] < kept)]
        for team, figures in list(earlier._by_team.items()):  # list(): another thread may be adding a team
            entries = units.get(team, {})
            figures = figures + [rounded[entries.get(number, 0)] for number in added]
            for position, number in again:
                figures[position] = rounded[entries.get(number, 0)]
            self._by_team[team] = figures

    @property
    def index(self) -> dict[int, int]:
        """Game number -> its position."""
        if self._index is None:
            self._index = {number: position for position, number in enumerate(self.numbers)}
        return self._index

    @property
    def labels(self) -> list[str]:
        """The games' numbers as the rounds' labels (shared: copy before writing)."""
        if self._labels is None:
            self._labels = list(map(str, self.numbers))
        return self._labels

    def of(self, team: str) -> list[float]:
        """The team's figure in each game (0 where it has no scoring seat)."""
        figures = self._by_team.get(team)
        if figures is None:
            entries = self.units.get(team, {})
            figures = self._by_team[team] = list(map(self.rounded.__getitem__, map(
                entries.get, self.numbers, repeat(0, len(self.numbers)))))
        return figures


__all__ = ["NUMBER", "RoundFigures", "Rounded"]
