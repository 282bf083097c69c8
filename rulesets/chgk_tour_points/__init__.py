"""Ruleset ``chgk_tour_points``: the ChGK tour-points Grand Prix (CHGK-1..CHGK-23).

The standings and the protocol functions are in ``standings``; the
season-setup checks (rosters, admission queue, hosting draw, packs,
checklists) in ``season``; the tour arithmetic in ``tours``.
"""

from __future__ import annotations

from types import MappingProxyType

from rulesets.chgk_tour_points.rules import CONSTANTS
from rulesets.chgk_tour_points.season import (
    Application,
    ChecklistItem,
    HostingWish,
    QueueEntry,
    admission_queue,
    check_appeal_filer,
    check_appeal_jury,
    check_application,
    check_line_up,
    check_pack,
    check_question,
    check_roster_change,
    checklist,
    draw_hosting_order,
    host_written_range,
    line_up_players,
    overdue_items,
)
from rulesets.chgk_tour_points.standings import (
    DEFAULT_SETTINGS,
    KEY,
    STAGE_KEYS,
    VERSION,
    appeal_deadline,
    appeal_in_time,
    appeal_opens,
    compute,
    decision_deadline,
    questions_due,
    tour_table,
    validate,
    validate_settings,
    verdict_due,
    verdict_late,
    verdict_overdue,
)
from rulesets.protocol import AppealPolicy, Ruleset

__all__ = [
    "KEY", "VERSION", "STAGE_KEYS", "DEFAULT_SETTINGS", "validate_settings", "validate", "compute",
    "appeal_deadline", "appeal_in_time", "appeal_opens", "decision_deadline", "verdict_due", "verdict_late", "verdict_overdue",
    "questions_due", "tour_table",
    "Application", "ChecklistItem", "HostingWish", "QueueEntry", "admission_queue", "check_appeal_filer",
    "check_appeal_jury", "check_application", "check_line_up", "check_pack", "check_question",
    "check_roster_change", "checklist", "draw_hosting_order", "host_written_range", "line_up_players",
    "overdue_items", "RULESET",
]

RULESET = Ruleset(
    key=KEY,
    version=VERSION,
    stage_keys=STAGE_KEYS,
    default_settings=MappingProxyType(DEFAULT_SETTINGS),
    validate_settings=validate_settings,
    validate=validate,
    compute=compute,
    rounds="tours",
    appeal_policy=AppealPolicy(
        rule="CHGK-18",
        deciders=("jury",),  # CHGK-18: the appeal jury gives the verdicts
        appeal_deadline=appeal_deadline,  # CHGK-18: 23:59 of D+3
        decision_deadline=None,  # CHGK-19: appeals are on questions, never against decisions
        verdict_due=verdict_due,  # CHGK-18: 23:59 of D+9
        appeal_in_time=appeal_in_time,  # CHGK-18: before 00:00 of D+4, the one comparison everywhere
        verdict_late=verdict_late,  # CHGK-18: a verdict at or after 00:00 of D+10 is "given late"
        verdict_overdue=verdict_overdue,  # CHGK-18: a pending appeal is overdue from 00:00 of D+10
        appeal_opens=appeal_opens,  # roles.md: no appeal before 00:00 of D
        question_kinds=("removal", "accept_answer"),  # CHGK-19
        captain_files=True,
        filer_check=check_appeal_filer,  # CHGK-20: the captain, or a player delegated for a stated period
    ),
    tour_table=tour_table,  # CHGK-12..CHGK-15
    rule_constants=CONSTANTS,  # CHGK-18
)
