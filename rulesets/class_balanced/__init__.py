"""Ruleset ``class_balanced``: three class-balanced Mafia stages (CB-1..CB-17, FP-1..FP-12).

The standings are in ``standings`` (which also hands on the protocol functions): the stages' course and the
balance table in ``course``, the validation in ``validation``; the settings in ``settings``; classes and seat points in ``points``; the table generators
in ``schedule``; the fair-play catalogue in ``fair_play``.
"""

from __future__ import annotations

from types import MappingProxyType

from rulesets import mafia
from rulesets.class_balanced.rules import CONSTANTS
from rulesets.class_balanced.settings import DEFAULT_SETTINGS, STAGE_KEYS, validate_settings
from rulesets.class_balanced.standings import (
    KEY,
    LONG_CHAIN,
    SHORT_CHAIN,
    VERSION,
    Draws,
    appeal_deadline,
    best_players,
    class_balance,
    compute,
    course,
    decision_deadline,
    order_teams,
    schedule_due,
    scheduled_class_problems,
    seat_points,
    validate,
    verdict_due,
)
from rulesets.protocol import AppealPolicy, Ruleset

__all__ = [
    "KEY", "VERSION", "STAGE_KEYS", "DEFAULT_SETTINGS", "validate_settings", "validate", "compute",
    "appeal_deadline", "decision_deadline", "verdict_due", "seat_points", "schedule_due",
    "scheduled_class_problems", "class_balance", "best_players", "course", "order_teams", "Draws",
    "SHORT_CHAIN", "LONG_CHAIN", "RULESET",
]

RULESET = Ruleset(
    key=KEY,
    version=VERSION,
    stage_keys=STAGE_KEYS,
    default_settings=MappingProxyType(DEFAULT_SETTINGS),
    validate_settings=validate_settings,
    validate=validate,
    compute=compute,
    appeal_policy=AppealPolicy(
        rule="CB-17",
        deciders=("judge", "curator"),  # CB-17: the judge (of the appeal's stage) or the curator decides; no jury
        appeal_deadline=appeal_deadline,  # CB-17: the appealed decision's deadline
        decision_deadline=decision_deadline,  # CB-17: 48 hours after its publication
        appeal_opens=mafia.appeal_opens,  # roles.md: no appeal before the decision's publication
        verdict_due=None,  # CB-17 sets no date for the answer
    ),
    seat_points=seat_points,  # CB-8..CB-10
    rule_constants=CONSTANTS,  # CB-3
)
