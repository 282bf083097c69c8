"""Seeded schedule generators for the ``class_balanced`` ruleset (CB-2, CB-4..CB-6).

Pure standard-library Python: no Django, no clock, every draw from
``random.Random(seed)`` so anyone can re-run a published table (CB-2).

- Stage 1 (CB-5): 48 games of 7 of the 14 teams, 24 games a team, every pair
  of teams meets 11 or 12 times, and each team plays 3 or 4 games on every
  day of the week (7/7/7/7/7/7/6 games a day).
- Stage 2 (CB-6): 26 games of all 13 teams with a class table: 4 C, 5 B and
  4 A seats a game, 8 A / 10 B / 8 C games a team, never the same class more
  than 2 games running; a day turn lasts 3 minutes (CB-4).
- Stage 3 (CB-2): the calendar of 24 games of all 10 teams.

Games are placed on day indexes ``0..days-1`` (the first ``games % days``
days carry one game more) and ordered within their day; the Django side turns
day and order into times.

One module a stage, this package re-exporting what the other modules use:

- ``common``: the constants, ``GameSlot``, the three tables' dataclasses,
  ``day_sizes``, the seeded ``Random``, progress and the roster checks;
- ``stage1_search``: the seeded local search for a stage-1 table (CB-5);
- ``stage1_library``: the library of searched stage-1 tables, its text codec
  and the constraint-preserving walk that draws from it (CB-5);
- ``stage1``: ``generate_stage1`` and ``check_stage1`` (CB-2, CB-4, CB-5);
- ``stage2``: the class sequences, ``generate_stage2`` and ``check_stage2``
  (CB-2, CB-4, CB-6);
- ``stage3``: ``generate_stage3_calendar`` and ``check_stage3`` (CB-2, CB-4).
"""

from __future__ import annotations

from rulesets.class_balanced.schedule.common import (
    CLASSES,
    DAY_TURN_MINUTES,
    DAYS,
    MAX_CLASS_RUN,
    STAGE1_GAMES,
    STAGE1_TEAMS,
    STAGE1_TEAMS_PER_GAME,
    STAGE2_GAMES,
    STAGE2_GAMES_PER_CLASS,
    STAGE2_SEATS_PER_CLASS,
    STAGE2_TEAMS,
    STAGE3_GAMES,
    STAGE3_TEAMS,
    GameSlot,
    Progress,
    Seed,
    Stage1Schedule,
    Stage2Schedule,
    Stage3Calendar,
    day_sizes,
)
from rulesets.class_balanced.schedule.stage1 import check_stage1, generate_stage1
from rulesets.class_balanced.schedule.stage1_library import STAGE1_TABLE_SEEDS
from rulesets.class_balanced.schedule.stage1_search import search_stage1_table
from rulesets.class_balanced.schedule.stage2 import check_stage2, generate_stage2
from rulesets.class_balanced.schedule.stage3 import check_stage3, generate_stage3_calendar

__all__ = [
    "Progress", "Seed", "DAYS", "CLASSES", "DAY_TURN_MINUTES", "STAGE1_TEAMS", "STAGE1_GAMES",
    "STAGE1_TEAMS_PER_GAME", "STAGE2_TEAMS", "STAGE2_GAMES", "STAGE2_SEATS_PER_CLASS", "STAGE2_GAMES_PER_CLASS",
    "MAX_CLASS_RUN", "STAGE3_TEAMS", "STAGE3_GAMES", "STAGE1_TABLE_SEEDS", "GameSlot", "Stage1Schedule",
    "Stage2Schedule", "Stage3Calendar", "day_sizes", "search_stage1_table", "generate_stage1", "check_stage1",
    "generate_stage2", "check_stage2", "generate_stage3_calendar", "check_stage3",
]
