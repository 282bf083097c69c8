"""Ruleset ``elimination_gp``: the elimination Grand Prix (GP-1..GP-23).

The standings and the protocol functions are in ``standings``; the seeded
draws in ``draw``, the registration rules in ``registration``, the
tour-by-tour replay in ``process``, the finalists in ``finalists``.
"""

from __future__ import annotations

from types import MappingProxyType

from rulesets import mafia
from rulesets.elimination_gp.draw import draw_no_show, draw_teams, make_baskets
from rulesets.elimination_gp.registration import stage_roster
from rulesets.elimination_gp.rules import CONSTANTS
from rulesets.elimination_gp.standings import (
    DEFAULT_SETTINGS,
    KEY,
    STAGE_KEYS,
    VERSION,
    appeal_deadline,
    compute,
    decision_deadline,
    no_show_seed,
    qualified_players,
    seat_points,
    suggest_committee_picks,
    validate,
    validate_settings,
    verdict_due,
)
from rulesets.protocol import AppealPolicy, Ruleset

__all__ = [
    "KEY", "VERSION", "STAGE_KEYS", "DEFAULT_SETTINGS", "validate_settings", "validate", "compute",
    "appeal_deadline", "decision_deadline", "verdict_due", "seat_points", "suggest_committee_picks",
    "no_show_seed", "qualified_players", "draw_teams", "draw_no_show", "make_baskets", "stage_roster",
    "RULESET",
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
        rule="GP-23",
        deciders=("curator",),  # GP-23: the committee (the curator role); the jury is ChGK's only (roles.md)
        appeal_deadline=appeal_deadline,  # GP-23: the appealed decision's deadline
        decision_deadline=decision_deadline,  # GP-23: 72 hours after ``decided_at``
        appeal_opens=mafia.appeal_opens,  # roles.md: no appeal before the decision's publication
        verdict_due=None,  # GP-23 sets no date for the committee's verdict
    ),
    seat_points=seat_points,  # GP-14
    teams_per_stage=True,  # GP-8: one team a stage, drawn for the stage
    rule_constants=CONSTANTS,  # GP-22, GP-23
)
