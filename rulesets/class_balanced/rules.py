"""The class-balanced tournament's rule constants, frozen with each tournament (design principle 8,
``rulesets.rules``). Its points, limits and appeal window are settings already (``settings``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rulesets.facts import TournamentFacts
from rulesets.rules import resolved

ClassRanges = tuple[tuple[str, int, int], ...]

CONSTANTS: Mapping[str, Any] = MappingProxyType({
    "class_ranges": (("C", 150, 250), ("B", 251, 350), ("A", 351, 450)),  # CB-3: the classes a stat sum sets
})


@dataclass(frozen=True, slots=True)
class BalanceRules:
    class_ranges: ClassRanges


def rules_from(stored: Mapping[str, Any] | None) -> BalanceRules:
    """The constants of a tournament that froze ``stored`` (``Tournament.rules``)."""
    values = resolved(stored, CONSTANTS)
    return BalanceRules(class_ranges=tuple((str(name), int(low), int(high))
                                           for name, low, high in values["class_ranges"]))


def rules_of(facts: TournamentFacts) -> BalanceRules:
    """The constants ``facts``' tournament is computed under."""
    return rules_from(facts.rules)
