"""Ruleset ``family_league``: the family Mafia league (FL-0..FL-21).

The standings and the protocol functions are in ``standings``; the settings
in ``settings``; the seat points, violations and fines in ``games``; the
calendar in ``calendar``; the eligibility rules and the group draw in
``entry``.
"""

from __future__ import annotations

from types import MappingProxyType

from rulesets import mafia
from rulesets.family_league import ledger
from rulesets.family_league.rules import CONSTANTS, detected_violation_closes
from rulesets.family_league.settings import DEFAULT_SETTINGS, validate_settings
from rulesets.family_league.standings import (
    DETECTED_VIOLATIONS,
    KEY,
    STAGE_KEYS,
    VERSION,
    appeal_deadline,
    compute,
    decision_deadline,
    detected_violation_deadline,
    game_points,
    game_violations,
    penalty_deadline,
    rank_table,
    seat_points,
    validate,
    verdict_due,
    violation_windows,
)
from rulesets.protocol import AppealPolicy, Ruleset

__all__ = [
    "KEY", "VERSION", "STAGE_KEYS", "DEFAULT_SETTINGS", "validate_settings", "validate", "compute",
    "appeal_deadline", "decision_deadline", "penalty_deadline", "verdict_due", "seat_points", "game_points", "rank_table",
    "detected_violation_deadline", "violation_windows", "game_violations", "DETECTED_VIOLATIONS", "RULESET",
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
        rule="FL-19",
        deciders=("curator",),  # FL-19: the curator decides; the jury is ChGK's only (roles.md)
        appeal_deadline=appeal_deadline,  # FL-19: the appealed decision's deadline
        decision_deadline=decision_deadline,  # FL-19: 72 hours after its publication
        penalty_deadline=penalty_deadline,  # FL-19: a judge's penalty, 72 hours after its publication (roles.md)
        appeal_opens=mafia.appeal_opens,  # roles.md: no appeal before the decision's or penalty's publication
        verdict_due=None,  # FL-19 sets no date for the curator's verdict
        detected_violation_closes=detected_violation_closes,  # FL-19: 72 h from the game's result_recorded_at
        violation_windows=violation_windows,  # FL-19: not final while a detected violation's window is open
        game_violations=game_violations,  # FL-19: a changed result publishes the violations it creates
        detected_violations=DETECTED_VIOLATIONS,  # FL-15.1..FL-15.4
    ),
    seat_points=seat_points,  # FL-13, FL-14
    game_points=game_points,  # FL-13, FL-14 by game
    teams_are_families=True,  # FL-1, FL-3: a team is its family
    forget=ledger.forget,  # the ledger kept for incremental recomputes
    rule_constants=CONSTANTS,  # FL-15, FL-17, FL-19
)
