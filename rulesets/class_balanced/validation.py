"""The ``class_balanced`` ruleset's refusals of a document (CB-1, CB-3, CB-6, CB-9, CB-12, CB-15..CB-17), and the
check of a stage-2 game against the published class table (CB-6).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rulesets import mafia
from rulesets.base import Problem
from rulesets.class_balanced.course import Course, course
from rulesets.class_balanced.fair_play import GROUNDS_BY_KIND, KNOWN_CODES, KNOWN_CODES_TEXT, UNCODED_KINDS
from rulesets.class_balanced.points import STATS_MAX, STATS_MIN, class_of
from rulesets.class_balanced.rules import rules_from, rules_of
from rulesets.class_balanced.settings import CLASSES, STAGE_KEYS, Config, config
from rulesets.facts import Game, TournamentFacts
from rulesets.messages import Text
from rulesets.messages import text as _

NOT_A_TEAM_OF_THE_STAGE = _("not a team of the stage (CB-1)")


def validate(facts: TournamentFacts) -> list[Problem]:
    """The ruleset's refusals of a document (CB-1, CB-3, CB-6, CB-9, CB-12, CB-15..CB-17)."""
    cfg = config(facts.settings)
    problems: list[Problem] = []
    for si, stage in enumerate(facts.stages):
        for gi, game in enumerate(stage.games):
            problems += _game_problems(facts, cfg, stage.key, game, f"stages[{si}].games[{gi}]")
    problems += _decision_problems(facts, cfg)
    problems += _field_problems(facts)
    problems += mafia.late_appeal_problems(facts, cfg.appeal_hours, "published_at", "CB-17")
    return problems


def _seat_problems(facts: TournamentFacts, cfg: Config, stage_key: str, game: Game, path: str) -> list[Problem]:
    problems: list[Problem] = []
    rosters = {team.name: team.players for team in facts.teams}
    for pi, seat in enumerate(game.seats):
        spath = f"{path}.seats[{pi}]"
        if seat.stats is None:
            problems.append(Problem(f"{spath}.stats", _("%(player)s: stats are required (CB-3)", player=seat.player)))
        elif not STATS_MIN <= seat.stats <= STATS_MAX:
            problems.append(Problem(f"{spath}.stats", _("%(stats)s is outside %(low)s..%(high)s (CB-3)",
                                                        stats=seat.stats, low=STATS_MIN, high=STATS_MAX)))
        if seat.team in rosters and seat.player not in rosters[seat.team]:
            problems.append(Problem(f"{spath}.player", _("%(player)s is not a player of team %(team)s (CB-1)",
                                                         player=seat.player, team=seat.team)))
        if seat.role == "maniac" and stage_key not in cfg.maniac_stages:
            problems.append(Problem(f"{spath}.role", _("%(player)s: %(stage)s has no maniac (CB-9)",
                                                       player=seat.player, stage=stage_key)))
        if seat.maniac_kills and seat.role != "maniac":
            problems.append(Problem(f"{spath}.maniac_kills", _("%(player)s has kills but is not the maniac (CB-9)",
                                                               player=seat.player)))
        if seat.days_played is not None and game.game_days is not None and seat.days_played > game.game_days:
            problems.append(Problem(f"{spath}.days_played", _("%(days)s is greater than the game's game_days "
                                                              "%(game_days)s (CB-10)", days=seat.days_played,
                                                              game_days=game.game_days)))
    return problems


def _game_problems(facts: TournamentFacts, cfg: Config, stage_key: str, game: Game, path: str) -> list[Problem]:
    """One game's seats: stats, rosters, one player a team, size, maniac, the stage-2 class mix."""
    problems = _seat_problems(facts, cfg, stage_key, game, path)
    seen: dict[str, int] = {}
    for pi, seat in enumerate(game.seats):
        if seat.team in seen:
            problems.append(Problem(f"{path}.seats[{pi}].team", _("two seats of team %(team)s in game %(number)s: "
                                                                  "one player a team (CB-1)", team=seat.team,
                                                                  number=game.number)))
        seen.setdefault(seat.team, pi)
    size = cfg.players_per_game.get(stage_key)
    if size is not None and len(game.seats) > size:
        problems.append(Problem(f"{path}.seats", _("game %(number)s has %(seats)s seats; a %(stage)s game has "
                                                   "%(players)s players (CB-1)", number=game.number,
                                                   seats=len(game.seats), stage=stage_key, players=size)))
    if game.outcome == "maniac" and stage_key not in cfg.maniac_stages:
        problems.append(Problem(f"{path}.outcome", _("%(stage)s has no maniac (CB-9)", stage=stage_key)))
    if stage_key == cfg.class_table_stage and size is not None and len(game.seats) == size:
        ranges = rules_of(facts).class_ranges
        mix = {c: sum(1 for s in game.seats if class_of(s.stats, ranges) == c) for c in CLASSES}
        wanted = cfg.class_table_per_game
        if any(mix[c] != wanted.get(c, 0) for c in CLASSES):
            have = ", ".join(f"{mix[c]} {c}" for c in ("C", "B", "A"))
            need = ", ".join(f"{wanted.get(c, 0)} {c}" for c in ("C", "B", "A"))
            problems.append(Problem(f"{path}.seats", _("game %(number)s has %(have)s; a %(stage)s game has "
                                                       "%(need)s (CB-6)", number=game.number, have=have,
                                                       stage=stage_key, need=need)))
    return problems


def scheduled_class_problems(game: Game, path: str, scheduled: Mapping[str, str],
                             stored_rules: Mapping[str, Any] | None = None) -> list[Problem]:
    """CB-6: in stage 2 each seat plays the class the published table gives its team for this game.

    ``scheduled`` maps team -> class ("A", "B", "C") for the game (the schedule is not part of the
    interchange document; the portal passes its stored table, and the tournament's frozen ``stored_rules``).
    """
    ranges = rules_from(stored_rules).class_ranges
    problems = []
    for pi, seat in enumerate(game.seats):
        wanted = scheduled.get(seat.team)
        have = class_of(seat.stats, ranges)
        if wanted is not None and have != wanted:
            problems.append(Problem(f"{path}.seats[{pi}].stats",
                                    _("%(player)s (%(team)s) plays class %(have)s with %(stats)s; the table gives "
                                      "%(team)s class %(wanted)s in game %(number)s (CB-6)", player=seat.player,
                                      team=seat.team, have=have, stats=seat.stats, wanted=wanted,
                                      number=game.number)))
    return problems


def _decision_problems(facts: TournamentFacts, cfg: Config) -> list[Problem]:
    """Every judge's decision cites a known code (CB-15..CB-17, FP-1..FP-12); technical results on FP-4 or
    technical grounds (CB-15), replays on FP-1..3 or technical (CB-16); citing the rule itself is allowed."""
    problems = []
    for index, decision in enumerate(facts.decisions):
        path = f"decisions[{index}]"
        grounds = GROUNDS_BY_KIND.get(decision.kind)
        rule = grounds[1] if grounds is not None else "CB-15..CB-17"
        if decision.kind in UNCODED_KINDS:
            pass
        elif decision.code is None:
            problems.append(Problem(f"{path}.code", _("a %(decision)s cites the rule it rests on, one of %(codes)s "
                                                      "(%(rule)s)", decision=decision.kind, codes=KNOWN_CODES_TEXT,
                                                      rule=rule)))
        elif decision.code is not None and decision.code not in KNOWN_CODES:
            problems.append(Problem(f"{path}.code", _("unknown code %(code)s; a decision cites one of %(codes)s "
                                                      "(%(rule)s)", code=repr(decision.code), codes=KNOWN_CODES_TEXT,
                                                      rule=rule)))
        elif (grounds is not None and decision.code is not None and decision.code not in grounds[0]
              and decision.code != grounds[1]):
            problems.append(Problem(f"{path}.code", _("a %(decision)s is not ordered on %(code)s; grounds: "
                                                      "%(grounds)s (%(rule)s)", decision=decision.kind,
                                                      code=decision.code, grounds=", ".join(grounds[0]),
                                                      rule=grounds[1])))
        if (decision.kind == "technical_result" and decision.outcome == "maniac"
                and decision.stage is not None and decision.stage not in cfg.maniac_stages):
            problems.append(Problem(f"{path}.outcome", _("%(stage)s has no maniac (CB-9)", stage=decision.stage)))
    return problems


def _field_problems(facts: TournamentFacts) -> list[Problem]:
    """Seats of teams already out or disqualified when a stage starts (CB-7, CB-12)."""
    present = [STAGE_KEYS.index(stage.key) for stage in facts.stages]
    if not present:
        return []
    state = course(facts, max(present))
    problems = []
    for si, stage in enumerate(facts.stages):
        index = STAGE_KEYS.index(stage.key)
        if index == 0:
            continue
        allowed = set(state.fields[index])
        for gi, game in enumerate(stage.games):
            for pi, seat in enumerate(game.seats):
                if seat.team not in allowed:
                    problems.append(Problem(f"stages[{si}].games[{gi}].seats[{pi}].team",
                                            _("team %(team)s is not in %(stage)s: %(reason)s", team=seat.team,
                                              stage=stage.key, reason=_why_out(state, seat.team))))
    return problems


def _why_out(state: Course, team: str) -> Text:
    if team in state.disqualified:
        return state.dq_reasons[team]
    stage = next((STAGE_KEYS[i] for i, teams in state.out.items() if team in teams), None)
    return _("eliminated after %(stage)s (CB-12)", stage=stage) if stage else NOT_A_TEAM_OF_THE_STAGE
