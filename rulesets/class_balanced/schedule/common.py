"""What the ``class_balanced`` schedule generators share (CB-2, CB-4, CB-5, CB-6).

The format's constants (days of the week, classes, day turns of CB-4, the
teams and games of each stage), the placement of a game (``GameSlot``), the
three published tables (``Stage1Schedule``, ``Stage2Schedule``,
``Stage3Calendar``), the even spread of games over the days (``day_sizes``,
CB-5), the seeded ``random.Random`` every draw comes from (CB-2), the
progress callback, and the roster checks of every generator.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from rulesets.messages import text as _

Progress = Callable[[int, int], None]
Seed = int | str

DAYS = 7
CLASSES = ("A", "B", "C")
DAY_TURN_MINUTES = {1: 2, 2: 3, 3: 2}  # CB-4

STAGE1_TEAMS = 14
STAGE1_GAMES = 48
STAGE1_TEAMS_PER_GAME = 7

STAGE2_TEAMS = 13
STAGE2_GAMES = 26
STAGE2_SEATS_PER_CLASS = {"A": 4, "B": 5, "C": 4}
STAGE2_GAMES_PER_CLASS = {"A": 8, "B": 10, "C": 8}
MAX_CLASS_RUN = 2

STAGE3_TEAMS = 10
STAGE3_GAMES = 24


class GameSlot(NamedTuple):
    """Where a game sits: ``number`` counts from 1, ``day`` and ``order`` from 0."""

    number: int
    day: int
    order: int


def _slots(days_of_games: Sequence[int]) -> list[GameSlot]:
    slots = []
    order = 0
    for index, day in enumerate(days_of_games):
        order = order + 1 if index and days_of_games[index - 1] == day else 0
        slots.append(GameSlot(index + 1, day, order))
    return slots


@dataclass(frozen=True)
class Stage1Schedule:
    """Stage 1 table (CB-2, CB-5): per game its day index and its teams (in roster order)."""

    seed: Seed
    teams: tuple[str, ...]
    games: list[tuple[int, tuple[str, ...]]]
    days: int = DAYS
    teams_per_game: int = STAGE1_TEAMS_PER_GAME
    day_turn_minutes: int = DAY_TURN_MINUTES[1]

    def slots(self) -> list[GameSlot]:
        """Number, day and order within the day of every game, in table order."""
        return _slots([day for day, _ in self.games])


@dataclass(frozen=True)
class Stage2Schedule:
    """Stage 2 class table (CB-2, CB-4, CB-6): per game its day index and team -> class."""

    seed: Seed
    teams: tuple[str, ...]
    games: list[tuple[int, dict[str, str]]]
    days: int = DAYS
    day_turn_minutes: int = DAY_TURN_MINUTES[2]

    def slots(self) -> list[GameSlot]:
        """Number, day and order within the day of every game, in table order."""
        return _slots([day for day, _ in self.games])

    def classes_of(self, team: str) -> str:
        """The team's classes game by game, e.g. ``"ABBCA..."`` (CB-6)."""
        return "".join(classes[team] for _, classes in self.games)


@dataclass(frozen=True)
class Stage3Calendar:
    """Stage 3 calendar (CB-2): every team plays every game; each picks its class (CB-7)."""

    seed: Seed
    teams: tuple[str, ...]
    games: list[tuple[int, tuple[str, ...]]]
    days: int = DAYS
    day_turn_minutes: int = DAY_TURN_MINUTES[3]

    def slots(self) -> list[GameSlot]:
        """Number, day and order within the day of every game, in table order."""
        return _slots([day for day, _ in self.games])


def day_sizes(games: int, days: int = DAYS) -> list[int]:
    """Games on each day: as even as possible, the first ``games % days`` days one more (CB-5)."""
    if days < 1 or games < 0:
        raise ValueError(_("days must be positive and games non-negative"))
    base, extra = divmod(games, days)
    return [base + (1 if day < extra else 0) for day in range(days)]


def _day_of_games(games: int, days: int) -> list[int]:
    """Each game's day when the games fill the days in order, ``day_sizes`` games a day."""
    return [day for day, size in enumerate(day_sizes(games, days)) for _ in range(size)]


def _check_roster(teams: Sequence[str], expected: int | None, rule: str) -> tuple[str, ...]:
    roster = tuple(teams)
    if any(not isinstance(team, str) or not team for team in roster):
        raise ValueError(_("%(rule)s: every team must be a non-empty string", rule=rule))
    if len(set(roster)) != len(roster):
        raise ValueError(_("%(rule)s: the teams must be distinct", rule=rule))
    if expected is not None and len(roster) != expected:
        raise ValueError(_("%(rule)s: the stage needs %(expected)s teams, got %(teams)s", rule=rule,
                           expected=expected, teams=len(roster)))
    return roster


def _check_seed(seed: Seed) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int | str):
        raise TypeError(_("the seed must be an int or a str"))


def _rng(seed: Seed) -> random.Random:
    _check_seed(seed)
    return random.Random(seed)


def _report(progress: Progress | None, done: int, total: int) -> None:
    if progress is not None:
        progress(done, total)


def _days_out_of_order(day_list: Sequence[int]) -> bool:
    """Whether a game is listed after a game of a later day (the tables list the games day by day)."""
    return any(day_list[i] > day_list[i + 1] for i in range(len(day_list) - 1))
