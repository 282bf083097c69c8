"""The typed protocol of a ruleset: what ``rulesets.get(key)`` returns.

Each ruleset package (``rulesets/<key>/``) defines one ``RULESET: Ruleset``;
the registry (``rulesets/__init__.py``) collects the four. Callers read
fields, never probe a module with ``hasattr``: an extra a ruleset lacks is
``None`` (``seat_points`` for ChGK, ``tour_table`` for the Mafia rulesets).

Pure: no Django, no clock (times are arguments).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rulesets.base import Problem, Standings
from rulesets.facts import Appeal, Decision, Penalty, TournamentFacts

AppealDeadline = Callable[[TournamentFacts, Appeal], "dt.datetime | None"]
AppealCheck = Callable[[TournamentFacts, Appeal], bool]
AppealAtCheck = Callable[[TournamentFacts, Appeal, dt.datetime], bool]
PenaltyDeadline = Callable[[TournamentFacts, Penalty], "dt.datetime | None"]
WindowClosings = Callable[[TournamentFacts, dt.datetime], list[dt.datetime]]
DecisionDeadline = Callable[[TournamentFacts, Decision], "dt.datetime | None"]
SeatPoints = Callable[[TournamentFacts, str], dict[tuple[int, str], tuple[Fraction, str]]]
TourTable = Callable[[TournamentFacts, int], dict[str, Any]]
GamePoints = tuple[tuple[str, Fraction, str], ...]  # (nick, points, reason) of each seat of one game
GamePointsByNumber = Callable[[TournamentFacts, str], Mapping[int, GamePoints]]
ViolationCloses = Callable[[Mapping[str, Any], dt.datetime], dt.datetime]
GameViolations = Callable[[TournamentFacts, str, int], frozenset[tuple[str, str, "str | None"]]]
FilerCheck = Callable[[str, "str | None", str, Collection[str]], list[Problem]]


@dataclass(frozen=True)
class AppealPolicy:
    """Who decides appeals, what may be appealed, and by when (GP-23, CHGK-18..CHGK-20, FL-19, CB-17).

    - ``deciders``: the tournament roles (``accounts.models.Role`` values) whose
      members decide appeals: the committee (GP-23), the appeal jury (CHGK-18),
      the curator (FL-19), the judge or curator (CB-17); site staff always may.
      A ``judge`` decides only the appeals of the stages its role names
      (``accounts.permissions.can_decide_appeal``).
    - ``appeal_deadline(facts, appeal)``: the last moment ``appeal`` may be filed.
    - ``decision_deadline(facts, decision)``: the last moment a decision may be
      appealed; ``None`` where appeals are never against decisions (ChGK,
      CHGK-19).
    - ``verdict_due(facts, appeal)``: when the verdict is due; ``None`` where the
      rules set no date (only CHGK-18 does: D+9).
    - ``appeal_in_time(facts, appeal)``: whether ``appeal`` (at its ``filed_at``)
      is in time: the one comparison the form, the API and the import use
      (CHGK-18: any instant before 00:00 of D+4); ``None`` where the deadline is
      a last moment itself (filed at or before it: GP-23, FL-19, CB-17).
    - ``verdict_late(facts, appeal)``: whether a given verdict (its
      ``decided_at``) came after the date the rules set (CHGK-18: at or after
      00:00 of D+10, "given late"); ``None`` where the rules set no date.
    - ``verdict_overdue(facts, appeal, now)``: whether a pending appeal's
      verdict is overdue at ``now`` (CHGK-18: from 00:00 of D+10, not one
      second earlier); ``None`` where the rules set no date.
    - ``appeal_opens(facts, appeal)``: the first moment ``appeal`` may be filed
      (``roles.md``, "Appeals at their edges": 00:00 of D for a ChGK tour, the
      publication of the appealed decision or penalty for a Mafia one); ``None``
      when it cannot be known. An appeal filed earlier is refused.
    - ``penalty_deadline(facts, penalty)``: the last moment a judge's penalty may
      be appealed (FL-19: 72 hours after its publication); ``None`` where
      penalties are not appealed (then the interchange refuses ``kind: penalty``).
    - ``detected_violation_closes(rules, recorded_at)``: the end of the window for
      appealing a violation the portal detected in a game whose result was first
      recorded at ``recorded_at`` (``Game.result_recorded_at``; FL-19, 72 h under
      the tournament's frozen ``rules``); ``None`` where such violations cannot be
      appealed.
    - ``violation_windows(facts, now)``: the moments the detected-violation
      windows still open at ``now`` close (FL-19: a stage is not final while one
      is open; the recompute wakes up then); ``None`` where there are none.
    - ``game_violations(facts, stage_key, number)``: ``(team, kind, player)`` of
      the violations the portal detects in a game: a change of a recorded result
      that creates one publishes it at the change (FL-19); ``None`` where none.
    - ``detected_violations``: the kinds of detected violation that may be
      appealed (FL-15.1..FL-15.4); empty where none may.
    - ``question_kinds``: the appeal kinds on a tour's question (CHGK-19:
      ``removal``, ``accept_answer``); empty where appeals are against
      decisions instead (GP-23, FL-19, CB-17).
    - ``captain_files``: only the team's captain files an appeal (CHGK-20);
      otherwise any participant of the team (GP-23, FL-19, CB-17).
    - ``filer_check(team, captain, filer, delegates)``: the problems of ``filer``
      filing for ``team`` when only the captain or a delegate may (CHGK-20).
    - ``rule``: the rule code the workflow cites (``"CHGK-18"``, ``"GP-23"``, ...).
    """

    deciders: tuple[str, ...]
    appeal_deadline: AppealDeadline
    decision_deadline: DecisionDeadline | None = None
    verdict_due: AppealDeadline | None = None
    appeal_in_time: AppealCheck | None = None
    verdict_late: AppealCheck | None = None
    verdict_overdue: AppealAtCheck | None = None
    appeal_opens: AppealDeadline | None = None
    penalty_deadline: PenaltyDeadline | None = None
    detected_violation_closes: ViolationCloses | None = None
    violation_windows: WindowClosings | None = None
    game_violations: GameViolations | None = None
    detected_violations: tuple[str, ...] = ()
    question_kinds: tuple[str, ...] = ()
    captain_files: bool = False
    filer_check: FilerCheck | None = None
    rule: str = ""


@dataclass(frozen=True)
class Ruleset:
    """One ruleset, as the portal uses it.

    - ``key``: e.g. ``"family_league"``; ``version``: bumped when a rule's
      computation changes; ``stage_keys``: the stage keys it accepts, in order
      of play; ``default_settings``: every setting with its default (read-only).
    - ``validate_settings(settings) -> list[Problem]`` (paths relative to
      ``tournament.settings``); ``validate(facts) -> list[Problem]``: the
      ruleset's own checks of a whole document (paths as in the interchange
      document); ``compute(facts, stage_key, now) -> Standings``: the standings
      after the stage (``None``: the latest stage with any facts).
    - ``appeal_policy``: see ``AppealPolicy``.
    - ``rounds``: what a tournament plays, ``"games"`` of Mafia (seats, roles) or
      ``"tours"`` of questions (masks, CHGK-12).
    - ``teams_per_stage``: its teams are drawn anew for each stage and listed in
      the stage (GP-8), not at the top of a document; a player may then play for
      several teams of a tournament.
    - ``teams_are_families``: a team is a family, so a team that names no family
      is its own (FL-1, FL-3).
    - Optional extras (``None`` when the ruleset has none):
      ``seat_points(facts, stage_key)``: ``{(game number, nick): (points,
      reason)}`` of a Mafia stage (GP-14, FL-13, CB-8..CB-10); ``game_points(facts,
      stage_key)``: the same per game, ``{number: ((nick, points, reason), ...)}``, the same tuple object for a
      game whose judgement did not change since the last call (the shell then reuses what it derived from it;
      without it the shell groups ``seat_points``); ``tour_table(facts,
      tour_number)``: a ChGK tour's masks, ratings, places and points
      (CHGK-12..CHGK-15); ``forget(slug)``: drop what the ruleset keeps of a
      tournament between computations (the family league's ledger), so that its
      next facts are judged from scratch.
    - ``rule_constants``: the numbers of its rules that are not settings, as the
      code has them today (``rulesets.rules``): a new tournament freezes them,
      and ``compute`` reads the frozen ones from ``TournamentFacts.rules``.
    """

    key: str
    version: int
    stage_keys: tuple[str, ...]
    default_settings: Mapping[str, Any]
    validate_settings: Callable[[dict[str, Any]], list[Problem]]
    validate: Callable[[TournamentFacts], list[Problem]]
    compute: Callable[[TournamentFacts, str | None, dt.datetime], Standings]
    appeal_policy: AppealPolicy
    rounds: str = "games"
    teams_per_stage: bool = False
    teams_are_families: bool = False
    seat_points: SeatPoints | None = None
    game_points: GamePointsByNumber | None = None
    tour_table: TourTable | None = None
    forget: Callable[[str], None] | None = None
    rule_constants: Mapping[str, Any] = field(default_factory=dict)
