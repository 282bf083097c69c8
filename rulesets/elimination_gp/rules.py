"""The Grand Prix's rule constants, frozen with each tournament (design principle 8, ``rulesets.rules``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rulesets.facts import TournamentFacts
from rulesets.rules import resolved

CONSTANTS: Mapping[str, Any] = MappingProxyType({
    "appeal_hours": 72,  # GP-23: a decision may be appealed within 72 hours of ``decided_at``
    "medal_places": 3,  # GP-22: the first three places of the final take the series' medals
})


@dataclass(frozen=True, slots=True)
class SeriesRules:
    appeal_hours: int
    medal_places: int


def rules_of(facts: TournamentFacts) -> SeriesRules:
    """The constants ``facts``' tournament is computed under."""
    values = resolved(facts.rules, CONSTANTS)
    return SeriesRules(appeal_hours=int(values["appeal_hours"]), medal_places=int(values["medal_places"]))
