"""The results a ruleset returns, and shared ranking helpers.

The protocol a ruleset follows is the typed ``Ruleset`` of
``rulesets.protocol`` (each package's ``RULESET``, registered in
``rulesets/__init__.py``).

Everything here is pure: no ORM, no clock.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from typing import Any, Generic, TypeVar

from rulesets.errors import Invalid, Problem  # Problem is defined with the refusals; imported from here too

Number = Fraction | int


class RulesetError(Invalid, ValueError):
    """Facts a ruleset refuses; carries every problem found (an ``Invalid``, and still a ``ValueError``)."""

    def __init__(self, problems: Sequence[Problem]):
        super().__init__(list(problems))


@dataclass
class TeamRow:
    team: str
    points: Number
    rank: int = 0
    status: str = "active"
    tiebreaks: dict[str, Number] = field(default_factory=dict)
    group: str | None = None
    separated_by: str | None = None
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class PlayerRow:
    player: str
    team: str | None
    points: Number
    games: int
    rank: int = 0
    status: str = "active"
    details: dict[str, Any] = field(default_factory=dict)


@dataclass
class Award:
    place: int
    team: str | None
    player: str | None
    prize: int
    currency: str = "mf"
    items: list[str] = field(default_factory=list)


@dataclass
class Standings:
    """What a ruleset computes for one stage; the export is built from it."""

    stage: str
    final: bool
    teams: list[TeamRow]
    players: list[PlayerRow] | None = None
    awards: list[Award] | None = None
    seed: str | None = None
    best_player: list[str] | None = None
    notes: list[str] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)


def round2(value: Number) -> float:
    """Round an exact number to 2 decimals, half away from zero (spec README).

    Integer arithmetic on numerator and denominator: exact, and fast enough
    for the tens of thousands of figures a large league exports.
    """
    if isinstance(value, int):
        return float(value)
    frac = value if isinstance(value, Fraction) else Fraction(value)
    numerator, denominator = frac.numerator, frac.denominator
    hundredths, remainder = divmod(abs(numerator) * 100, denominator)
    if 2 * remainder >= denominator:
        hundredths += 1
    return (-hundredths if numerator < 0 else hundredths) / 100


def to_fraction(value: Decimal | str | int | float | Fraction) -> Fraction:
    """Exact conversion of a decimal amount (strings and Decimals stay exact)."""
    if isinstance(value, float):
        return Fraction(Decimal(repr(value)))
    if isinstance(value, str):
        return Fraction(Decimal(value))
    return Fraction(value)


def floor_mf(value: Number) -> int:
    """Money is whole mf, rounded down (FL-21)."""
    return int(Fraction(value) // 1)


T = TypeVar("T")


@dataclass(frozen=True)
class Criterion(Generic[T]):
    """One link of a tie-break chain: ``key`` names it, ``value`` reads it.

    ``descending`` (the default) ranks larger values first.
    """

    key: str
    value: Callable[[T], Any]
    descending: bool = True

    def sort_key(self, item: T) -> Any:
        v = self.value(item)
        return _Desc(v) if self.descending else v


class _Desc:
    __slots__ = ("v",)

    def __init__(self, v: Any):
        self.v = v

    def __lt__(self, other: _Desc) -> bool:
        return other.v < self.v

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Desc) and self.v == other.v


@dataclass
class Ranked(Generic[T]):
    item: T
    rank: int
    separated_by: str | None


def competition_rank(
    items: Iterable[T],
    chain: Sequence[Criterion[T]],
    name: Callable[[T], str],
) -> list[Ranked[T]]:
    """Rank by a tie-break chain with competition ranking (1, 2, 2, 4).

    Items equal on every criterion share a rank and come in name order.
    ``separated_by`` is the key of the first criterion that told a row from
    the row above it (``None`` for the first row and for shared ranks).
    """
    ordered = sorted(items, key=lambda it: (*[c.sort_key(it) for c in chain], name(it)))
    out: list[Ranked[T]] = []
    for index, item in enumerate(ordered):
        if index == 0:
            out.append(Ranked(item, 1, None))
            continue
        prev = ordered[index - 1]
        differing = next((c.key for c in chain if c.value(prev) != c.value(item)), None)
        if differing is None:
            out.append(Ranked(item, out[-1].rank, None))
        else:
            out.append(Ranked(item, index + 1, differing))
    return out


def tied_groups(ranked: Sequence[Ranked[T]]) -> list[list[Ranked[T]]]:
    """Consecutive runs of rows sharing a rank (runs of length 1 included)."""
    groups: list[list[Ranked[T]]] = []
    for row in ranked:
        if groups and groups[-1][0].rank == row.rank:
            groups[-1].append(row)
        else:
            groups.append([row])
    return groups


def average_of_places(table: Sequence[Number], first_place: int, count: int) -> Fraction:
    """Average of the points of places first_place..first_place+count-1.

    Places past the end of the table give 0 (CHGK-12).
    """
    total = Fraction(0)
    for place in range(first_place, first_place + count):
        if 1 <= place <= len(table):
            total += Fraction(table[place - 1])
    return total / count


def end_of_day(day: dt.date, tz: dt.tzinfo) -> dt.datetime:
    """23:59:59 of ``day`` in ``tz``, as an aware datetime."""
    return dt.datetime.combine(day, dt.time(23, 59, 59), tzinfo=tz)


def merge_settings(defaults: dict[str, Any], given: dict[str, Any] | None) -> dict[str, Any]:
    merged = dict(defaults)
    merged.update(given or {})
    return merged


def strip_prefix(problems: Iterable[Problem], prefix: str) -> list[Problem]:
    """Paths relative to the object the client sent (``stages[0].games[3].seats[1]`` -> ``seats[1]``)."""
    out = []
    for p in problems:
        path = p.path
        if prefix and path == prefix:
            path = ""
        elif prefix and path.startswith(prefix + "."):
            path = path[len(prefix) + 1:]
        out.append(Problem(path.lstrip("."), p.message))
    return out
