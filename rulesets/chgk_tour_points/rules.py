"""The ChGK season's rule constants, frozen with each tournament (design principle 8, ``rulesets.rules``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from rulesets.facts import TournamentFacts
from rulesets.rules import resolved

CONSTANTS: Mapping[str, Any] = MappingProxyType({
    "questions_published_days": 1,  # CHGK-18: the questions are published by 23:59 of D+1
    "appeal_days": 3,  # CHGK-18: appeals are filed by 23:59 of D+3
    "verdict_days": 9,  # CHGK-18: the jury's verdicts by 23:59 of D+9
})


@dataclass(frozen=True, slots=True)
class SeasonRules:
    questions_published_days: int
    appeal_days: int
    verdict_days: int


def rules_of(facts: TournamentFacts) -> SeasonRules:
    """The constants ``facts``' tournament is computed under."""
    values = resolved(facts.rules, CONSTANTS)
    return SeasonRules(questions_published_days=int(values["questions_published_days"]),
                       appeal_days=int(values["appeal_days"]), verdict_days=int(values["verdict_days"]))
