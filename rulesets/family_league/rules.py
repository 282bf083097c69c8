"""The family league's rule constants, frozen with each tournament (design principle 8, ``rulesets.rules``)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from rulesets.facts import TournamentFacts
from rulesets.rules import resolved

CONSTANTS: Mapping[str, Any] = MappingProxyType({
    "violation_points": Fraction(1, 10),  # FL-15: each violation costs its team 0.1 point
    "fine_base": 25,  # FL-17: the n-th fine is 25 + 25 x n mf
    "fine_step": 25,
    "appeal_hours": 72,  # FL-19: a decision may be appealed within 72 hours of its publication
    "detected_violation_hours": 72,  # FL-19: a detected violation, within 72 hours of its game's result
})


@dataclass(frozen=True, slots=True)
class LeagueRules:
    violation_points: Fraction
    fine_base: int
    fine_step: int
    appeal_hours: int
    detected_violation_hours: int


def rules_from(stored: Mapping[str, Any] | None) -> LeagueRules:
    """The constants of a tournament that froze ``stored`` (``Tournament.rules``)."""
    values = resolved(stored, CONSTANTS)
    return LeagueRules(
        violation_points=Fraction(values["violation_points"]),
        fine_base=int(values["fine_base"]),
        fine_step=int(values["fine_step"]),
        appeal_hours=int(values["appeal_hours"]),
        detected_violation_hours=int(values["detected_violation_hours"]),
    )


def rules_of(facts: TournamentFacts) -> LeagueRules:
    """The constants ``facts``' tournament is computed under."""
    return rules_from(facts.rules)


def detected_violation_closes(stored: Mapping[str, Any] | None, recorded_at: dt.datetime) -> dt.datetime:
    """FL-19: the end of the window for appealing a violation detected in a game whose result was first
    recorded at ``recorded_at``."""
    return recorded_at + dt.timedelta(hours=rules_from(stored).detected_violation_hours)
