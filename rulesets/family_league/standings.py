"""Ruleset ``family_league``: the family Mafia league (``spec/family_league.md``, seed 002).

Families play as teams: a qualifying stage in groups (only with at least
``groups_from_teams`` teams, FL-7), then a final ranked on its own points
(FL-12). Seats score by the points table (FL-13, FL-14); the portal detects
four violations from the seats (FL-15), each costing 0.1 points (FL-16) and
an escalating fine (FL-17); the judge's fair-play penalties replace the 0.1
(FL-18). Prizes and cups go to places 1..5 of the final (FL-20, FL-21).

Interpretations:
- FL-7: a qualifying stage is planned when the tournament has at least
  ``groups_from_teams`` teams or the document holds one; the final then has
  ``final_games`` (20) games, otherwise ``final_games_without_qualifying`` (30).
- A stage is complete when no game of it is ``scheduled`` and each of its
  groups has at least its planned count of ``played``/``technical`` games
  (FL-8, FL-10: "the stage still has its full count of games"); the
  qualifying stage is also over once the document holds the final. Export
  ``final`` is true only for the final stage once it is complete, no appeal
  is pending and no appeal window (72 h after a decision's publication,
  FL-19) is open at ``now``, nor the window of a violation the portal
  detected (72 h after its game's ``result_recorded_at``, FL-19).
- FL-11: the qualifying cut is settled only when the stage is complete; teams
  still tied across the cut stay ``active`` (awaiting the curator) until a
  ``tie_break`` decision orders them. FL-12: the final ignores ``tie_break``
  decisions (tied teams share the place).
- A disqualified team is ranked after all others of its table, status
  ``disqualified``; it never advances and gets no prize.
- FL-2 (too few teams) and FL-7/FL-8 mismatches are reported in ``notes``,
  not refused: the document records what happened.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from collections.abc import Callable, Sequence
from fractions import Fraction
from operator import attrgetter
from typing import Any

from rulesets import mafia
from rulesets.base import (
    Award,
    Criterion,
    Problem,
    Ranked,
    RulesetError,
    Standings,
    TeamRow,
    competition_rank,
    floor_mf,
    round2,
    tied_groups,
)
from rulesets.facts import SCORING_STATUSES, Appeal, Decision, Game, Penalty, Stage, TournamentFacts
from rulesets.family_league.games import (
    FL15_CODES,
    Pool,
    Violation,
    game_pool,
    penalty_team,
    stage_pools,
)
from rulesets.family_league.ledger import GameRecord, LeagueAnalysis, StageSums, analyse
from rulesets.family_league.rounds import Rounded, RoundFigures
from rulesets.family_league.rules import detected_violation_closes, rules_of
from rulesets.family_league.settings import DEFAULT_SETTINGS as DEFAULT_SETTINGS
from rulesets.family_league.settings import setting
from rulesets.family_league.settings import validate_settings as validate_settings
from rulesets.messages import Text
from rulesets.messages import text as _
from rulesets.protocol import GamePoints

KEY = "family_league"
VERSION = 1
STAGE_KEYS: tuple[str, ...] = ("qualifying", "final")
APPEAL_FROM = "published_at"
DETECTED_VIOLATIONS: tuple[str, ...] = tuple(FL15_CODES)  # FL-15.1..FL-15.4: the violations the portal detects
DETECTED_VIOLATIONS_KINDS = frozenset(DETECTED_VIOLATIONS)
MAX_PLAYERS_IN_GAME = 21
STATS_RANGE = (150, 450)
CUPS = ("gold cup", "silver cup", "bronze cup")
STATUS = attrgetter("status")

# The ruleset's sentences without parameters (refusals of a game or a penalty, a table's note), made once.
GAME_NAMES_GROUP = _("a game of a stage with several groups names its group (FL-8)")
PENALTY_NAMES_STAGE = _("a penalty names the stage it costs points in (FL-16)")
PENALTY_NAMES_TEAM = _("a penalty names its team, or a player on a team (FL-18)")
FEW_TEAMS_FOR_GROUPS = _("a qualifying stage with fewer than groups_from_teams teams (FL-7)")
# A recorded game's status that contradicts its outcome or seats (mafia_glossary "What a recorded game holds"),
# one sentence per status, so that the status is said in words.
NEEDS_OUTCOME = {
    "played": _("a played game needs an outcome"),
    "technical": _("a technical game needs an outcome"),
}
HAS_NO_OUTCOME = {
    "scheduled": _("a scheduled game has no outcome"),
    "not_held": _("a not_held game has no outcome"),
    "annulled": _("a annulled game has no outcome"),
}
HAS_NO_SEATS = {
    "scheduled": _("a scheduled game has no seats"),
    "not_held": _("a not_held game has no seats"),
    "annulled": _("a annulled game has no seats"),
}

# --- validation -------------------------------------------------------------------------------------------


def validate(facts: TournamentFacts) -> list[Problem]:
    """The ruleset's own refusals: malformed games (glossary), groups (FL-8), penalties (FL-18), late appeals (FL-19)."""
    problems: list[Problem] = []
    for si, stage in enumerate(facts.stages):
        problems += _group_problems(stage, f"stages[{si}]")
        pools = stage_pools(facts, stage)
        for gi, game in enumerate(stage.games):
            problems += _game_problems(game, pools, f"stages[{si}].games[{gi}]")
    problems += _penalty_problems(facts)
    problems += _official_problems(facts)
    for di, decision in enumerate(facts.decisions):
        if decision.kind == "tie_break":
            teams = {t.name for t in facts.teams}
            for oi, name in enumerate(decision.order):
                if name not in teams:
                    problems.append(Problem(f"decisions[{di}].order[{oi}]", _(
                        "%(team)s is not a team; the curator orders tied teams (FL-11)", team=repr(name))))
    problems += mafia.late_appeal_problems(facts, rules_of(facts).appeal_hours, APPEAL_FROM, "FL-19")
    return problems


def _group_problems(stage: Stage, path: str) -> list[Problem]:
    problems: list[Problem] = []
    seen: dict[str, str] = {}
    for gi, group in enumerate(stage.groups):
        if len(group.teams) > MAX_PLAYERS_IN_GAME:
            problems.append(Problem(f"{path}.groups[{gi}].teams", _(
                "group %(group)s has %(count)s teams; at most 21 (FL-8)", group=group.name, count=len(group.teams))))
        for ti, team in enumerate(group.teams):
            if team in seen:
                problems.append(Problem(f"{path}.groups[{gi}].teams[{ti}]", _(
                    "%(team)s is already in group %(group)s (FL-8)", team=team, group=seen[team])))
            else:
                seen[team] = group.name
    return problems


def _game_problems(game: Game, pools: tuple[Pool, ...], path: str) -> list[Problem]:
    """A recorded game the ruleset refuses (mafia_glossary "What a recorded game holds")."""
    problems: list[Problem] = []
    scores = game.status in SCORING_STATUSES
    if scores and game.outcome is None:
        problems.append(Problem(f"{path}.outcome", _needs_outcome(game.status)))
    if not scores and game.outcome is not None:
        problems.append(Problem(f"{path}.outcome", _has_no_outcome(game.status)))
    if not scores and game.seats:
        problems.append(Problem(f"{path}.seats", _has_no_seats(game.status)))
    pool = game_pool(pools, game)
    if pool is None and game.group is None:
        problems.append(Problem(f"{path}.group", GAME_NAMES_GROUP))
    if len(game.seats) > MAX_PLAYERS_IN_GAME:
        problems.append(Problem(f"{path}.seats", _(
            "%(count)s seats; a game holds at most 21 players (FL-8)", count=len(game.seats))))
    if game.status == "not_held" and pool is not None:
        for ti, team in enumerate(game.absent_teams):
            if team not in pool.teams:
                problems.append(Problem(f"{path}.absent_teams[{ti}]", _(
                    "%(team)s is not a team of this game's group (FL-10)", team=team)))
    seen: set[str] = set()
    low, high = STATS_RANGE
    days = game.game_days
    for pi, seat in enumerate(game.seats):
        # the seat's path is spelt only for a problem: a league reads 150,000 seats
        if seat.player in seen:
            problems.append(Problem(f"{path}.seats[{pi}].player", _(
                "%(player)s already has a seat in this game", player=seat.player)))
        seen.add(seat.player)
        if seat.maniac_kills and seat.role != "maniac":
            problems.append(Problem(f"{path}.seats[{pi}].maniac_kills", _(
                "%(player)s has kills but is not the maniac", player=seat.player)))
        if seat.days_played is not None and days is not None and seat.days_played > days:
            problems.append(Problem(f"{path}.seats[{pi}].days_played", _(
                "%(days)s is greater than the game's game_days %(game_days)s (FL-14)", days=seat.days_played,
                game_days=days)))
        if seat.stats is not None and not low <= seat.stats <= high:
            problems.append(Problem(f"{path}.seats[{pi}].stats", _("%(stats)s is outside 150..450", stats=seat.stats)))
    return problems


def _needs_outcome(status: str) -> Text:
    known = NEEDS_OUTCOME.get(status)
    return known if known is not None else _("a %(status)s game needs an outcome", status=status)


def _has_no_outcome(status: str) -> Text:
    known = HAS_NO_OUTCOME.get(status)
    return known if known is not None else _("a %(status)s game has no outcome", status=status)


def _has_no_seats(status: str) -> Text:
    known = HAS_NO_SEATS.get(status)
    return known if known is not None else _("a %(status)s game has no seats", status=status)


def _penalty_problems(facts: TournamentFacts) -> list[Problem]:
    problems: list[Problem] = []
    for index, penalty in enumerate(facts.penalties):
        path = f"penalties[{index}]"
        if penalty.stage is None:
            problems.append(Problem(f"{path}.stage", PENALTY_NAMES_STAGE))
        if penalty_team(facts, penalty) is None:
            problems.append(Problem(f"{path}.team", PENALTY_NAMES_TEAM))
    return problems


def _official_problems(facts: TournamentFacts) -> list[Problem]:
    """Only a stage's judges or the curator record technical results and replays (FL-0).

    Checked only where the settings name the stage's judges or the curator and the decision names who took it.
    """
    curator = setting(facts.settings, "curator")
    judges = setting(facts.settings, "judges") or {}
    problems: list[Problem] = []
    for index, decision in enumerate(facts.decisions):
        if decision.kind not in ("technical_result", "replay") or decision.by is None:
            continue
        allowed = set(judges.get(decision.stage or "", ())) | ({curator} if curator else set())
        if allowed and decision.by not in allowed:
            if decision.stage is None:
                message = _("%(by)s is neither a judge of the None stage nor the curator (FL-0)", by=decision.by)
            else:
                message = _("%(by)s is neither a judge of the %(stage)s stage nor the curator (FL-0)", by=decision.by,
                            stage=decision.stage)
            problems.append(Problem(f"decisions[{index}].by", message))
    return problems


# --- deadlines --------------------------------------------------------------------------------------------


def decision_deadline(facts: TournamentFacts, decision: Decision) -> dt.datetime | None:
    """Last moment to appeal a judge's decision: 72 hours after its publication (FL-19)."""
    return mafia.decision_deadline(decision, rules_of(facts).appeal_hours, APPEAL_FROM)


def penalty_deadline(facts: TournamentFacts, penalty: Penalty) -> dt.datetime | None:
    """Last moment to appeal a judge's penalty: 72 hours after its publication (``published_at``, defaulting to
    ``decided_at``; FL-19, ``roles.md``)."""
    return mafia.penalty_deadline(penalty, rules_of(facts).appeal_hours)


def appeal_deadline(facts: TournamentFacts, appeal: Appeal) -> dt.datetime | None:
    """Last moment the appeal may be filed: the deadline of the decision or penalty it is against (FL-19)."""
    penalty = mafia.appealed_penalty(facts, appeal)
    if penalty is not None:
        return penalty_deadline(facts, penalty)
    decision = mafia.appealed_decision(facts, appeal)
    return None if decision is None else decision_deadline(facts, decision)


def verdict_due(facts: TournamentFacts, appeal: Appeal) -> dt.datetime | None:
    """FL-19 sets no deadline for the curator's verdict."""
    return None


def appeal_window_open(facts: TournamentFacts, now: dt.datetime) -> bool:
    """Whether a decision or a judge's penalty in force may still be appealed at ``now`` (FL-19: any
    participant may appeal a judge's decision, a penalty included, within 72 hours of its publication)."""
    return mafia.appeal_window_open(facts, rules_of(facts).appeal_hours, APPEAL_FROM, now, penalties=True)


def detected_violation_deadline(facts: TournamentFacts, game: Game, violation: Violation | None = None,
                                ) -> dt.datetime | None:
    """FL-19: a violation the portal detected in ``game`` may be appealed until 72 hours after its publication:
    the moment the game's result was first recorded (``result_recorded_at``), or, for a violation a later change
    of the result created, that change (``Game.violations_published``); None when that moment is unknown."""
    published = game.result_recorded_at if violation is None else game.published_at(
        violation.team, violation.kind, violation.player)
    if published is None:
        return None
    return detected_violation_closes(facts.rules, published)


def _latest_publication(game: Game) -> dt.datetime | None:
    moments = [at for *_key, at in game.violations_published]
    if game.result_recorded_at is not None:
        moments.append(game.result_recorded_at)
    return max(moments, default=None)


_last_windows: tuple[TournamentFacts, dt.datetime, tuple[dt.datetime, ...]] | None = None


def violation_windows(facts: TournamentFacts, now: dt.datetime,
                      analysis: LeagueAnalysis | None = None) -> list[dt.datetime]:
    """The moments the FL-19 windows of detected violations still open at ``now`` close, earliest first.

    A window is open for a violation the portal detected (FL-15, FL-10; not annulled on appeal) while ``now`` is
    before its publication + 72 h (``detected_violation_deadline``): the stage is not final then. The answer for
    the last facts object and moment is kept (a recompute asks for the final's and for its next recheck).
    """
    global _last_windows
    last = _last_windows
    if last is not None and last[0] is facts and last[1] == now:
        return list(last[2])
    closes = _violation_windows(facts, now, analysis)
    _last_windows = (facts, now, tuple(closes))
    return closes


def _violation_windows(facts: TournamentFacts, now: dt.datetime,
                       analysis: LeagueAnalysis | None) -> list[dt.datetime]:
    window = dt.timedelta(hours=rules_of(facts).detected_violation_hours)  # read once: this runs every recompute
    opened_after = now - window  # a window is open while its publication is later than this
    open_games: dict[tuple[str, int], Game] = {}
    for stage in facts.stages:
        for game in stage.games:
            recorded = game.result_recorded_at
            if game.violations_published:
                latest = _latest_publication(game)
                if latest is not None and latest > opened_after:
                    open_games[(stage.key, game.number)] = game
            elif recorded is not None and recorded > opened_after:
                open_games[(stage.key, game.number)] = game
    if not open_games:
        return []
    analysis = analysis or analyse(facts)
    closes: set[dt.datetime] = set()
    for v in analysis.violations:
        game = open_games.get((v.stage, v.game)) if v.game is not None else None
        if game is None or v.kind not in DETECTED_VIOLATIONS_KINDS:
            continue
        published = game.published_at(v.team, v.kind, v.player)
        if published is not None and now < published + window:
            closes.add(published + window)
    return sorted(closes)


def game_violations(facts: TournamentFacts, stage_key: str, number: int) -> frozenset[tuple[str, str, str | None]]:
    """``(team, kind, player)`` of each violation the portal detects in game ``number`` of the stage (FL-15, FL-10):
    what a change of the game's result publishes when it creates one (FL-19)."""
    return frozenset((v.team, v.kind, v.player) for v in analyse(facts).violations
                     if v.stage == stage_key and v.game == number and v.kind in DETECTED_VIOLATIONS_KINDS)


# --- stages and completion --------------------------------------------------------------------------------


def qualifying_planned(facts: TournamentFacts) -> bool:
    """FL-7: a qualifying stage only with at least ``groups_from_teams`` teams (or when one was played)."""
    return facts.stage("qualifying") is not None or len(facts.teams) >= setting(facts.settings, "groups_from_teams")


def planned_games(facts: TournamentFacts, stage_key: str) -> int:
    """Games a group of the stage plays: 20 in a qualifying group, 20 or 30 in the final (FL-7, FL-8)."""
    if stage_key == "qualifying":
        return setting(facts.settings, "qualifying_games")
    if qualifying_planned(facts):
        return setting(facts.settings, "final_games")
    return setting(facts.settings, "final_games_without_qualifying")


def stage_complete(facts: TournamentFacts, stage: Stage, games: Sequence[Game]) -> bool:
    """No game of the stage is scheduled and every group has its full count of scoring games (FL-8, FL-10).

    The qualifying stage is also over once the document holds the final.
    """
    if stage.key == "qualifying" and facts.stage("final") is not None:
        return True
    statuses = list(map(STATUS, games))
    if "scheduled" in statuses:
        return False
    pools = stage_pools(facts, stage)
    played: dict[str | None, int] = defaultdict(int)
    if len(pools) == 1:  # every game is the one group's: count them at once (a league has 10^4)
        played[pools[0].name] = sum(map(SCORING_STATUSES.__contains__, statuses))
    else:
        for game in games:
            pool = game_pool(pools, game)
            if pool is not None and game.status in SCORING_STATUSES:
                played[pool.name] += 1
    needed = planned_games(facts, stage.key)
    return all(played[pool.name] >= needed for pool in pools)


def _chosen_stage(facts: TournamentFacts, stage_key: str | None) -> Stage:
    if stage_key is None:
        if facts.stages:
            return facts.stages[-1]
        return Stage(key="qualifying" if qualifying_planned(facts) else "final")
    if stage_key not in STAGE_KEYS:
        raise RulesetError([Problem("stage", _("unknown stage %(key)s; family_league has %(keys)s", key=repr(stage_key),
                                               keys=", ".join(STAGE_KEYS)))])
    stage = facts.stage(stage_key)
    if stage is None:  # a key of STAGE_KEYS: its repr() is the key in single quotes
        raise RulesetError([Problem("stage", _("the tournament has no stage '%(stage)s' yet", stage=stage_key))])
    return stage


# --- team tallies -----------------------------------------------------------------------------------------


class _Tally:
    """One team's figures in one stage (FL-13..FL-18).

    Seat points are added as integer units of ``denominator`` (exact, and cheap
    for a league's 10^5 seats); penalties, which are few, stay fractions.
    """

    def __init__(self, team: str, denominator: int, units_by_game: dict[int, int] | None = None,
                 mafia_units: int = 0):
        self.team = team
        self.denominator = denominator
        self.units_by_game: dict[int, int] = units_by_game or {}
        self.seat_units = sum(self.units_by_game.values())
        self.mafia_units = mafia_units
        self.games = len(self.units_by_game)  # one scoring seat per team and game (FL-15.3)
        self.penalty_points = Fraction(0)
        self.penalty_by_game: dict[int, Fraction] = defaultdict(Fraction)

    @property
    def seat_points(self) -> Fraction:
        return Fraction(self.seat_units, self.denominator)

    @property
    def mafia_points(self) -> Fraction:
        return Fraction(self.mafia_units, self.denominator)

    @property
    def points(self) -> Fraction:
        """Seat points minus penalty points (FL-13, FL-16, FL-18)."""
        return self.seat_points - self.penalty_points

    def points_by_round(self, rounds: RoundFigures) -> list[float]:
        """The team's points in each game, rounded (a copy of ``rounds``' list). A penalty of a game replaces that
        one figure (FL-16)."""
        out = rounds.of(self.team).copy()
        for number, penalty in self.penalty_by_game.items():
            index = rounds.index.get(number)
            if penalty and index is not None:
                out[index] = round2(Fraction(self.units_by_game.get(number, 0), self.denominator) - penalty)
        return out


def _tallies(stage_key: str, analysis: LeagueAnalysis, teams: Sequence[str]) -> dict[str, _Tally]:
    sums = analysis.sums.get(stage_key) or StageSums()
    mafia = sums.team_mafia()
    tallies = {team: _Tally(team, analysis.denominator, sums.units.get(team), mafia.get(team, 0)) for team in teams}
    for violation in analysis.violations:
        tally = tallies.get(violation.team)
        if tally is None or violation.stage != stage_key:
            continue
        tally.penalty_points += violation.points
        if violation.game is not None:
            tally.penalty_by_game[violation.game] += violation.points
    return tallies


def _fines_until(analysis: LeagueAnalysis, stage_key: str) -> list[Violation]:
    """Every violation of the tournament up to and including the stage (FL-17)."""
    last = STAGE_KEYS.index(stage_key)
    return [v for v in analysis.violations if STAGE_KEYS.index(v.stage) <= last]


def _team_row(tally: _Tally, group: str | None, rounds: RoundFigures, fines: list[Violation]) -> TeamRow:
    running = 0
    listed = []
    for violation in fines:
        running += violation.fine
        listed.append({**violation.as_dict(), "running_total": running})
    return TeamRow(
        team=tally.team,
        points=tally.points,
        tiebreaks={"mafia_points": tally.mafia_points},
        group=group,
        details={
            "points_by_round": tally.points_by_round(rounds),
            "seat_points": round2(tally.seat_points),
            "penalty_points": round2(tally.penalty_points),
            "mafia_points": round2(tally.mafia_points),
            "games": tally.games,
            "penalties": listed,
            "fines_total": running,
        },
    )


# --- ranking ----------------------------------------------------------------------------------------------

CHAIN: tuple[Criterion[TeamRow], ...] = (
    Criterion("points", lambda row: row.points),
    Criterion("mafia_points", lambda row: row.tiebreaks["mafia_points"]),
)


def rank_table(rows: Sequence[TeamRow], disqualified: set[str], orders: Sequence[Sequence[str]] = ()) -> list[TeamRow]:
    """Rank by points, then mafia points, competition ranking (FL-11, FL-12).

    ``orders`` are the curator's orders of tied teams (FL-11): a tied run with
    two or more teams named in an order is ranked in that order (teams it does
    not name stay tied after them). Disqualified teams come after all others.
    """
    active = [r for r in rows if r.team not in disqualified]
    out: list[TeamRow] = []
    for run in tied_groups(competition_rank(active, CHAIN, lambda r: r.team)):
        out.extend(_ordered_run(run, orders))
    barred = competition_rank([r for r in rows if r.team in disqualified], CHAIN, lambda r: r.team)
    for index, ranked in enumerate(barred):
        row = ranked.item
        row.rank = ranked.rank + len(active)
        row.separated_by = "disqualified" if index == 0 and active else ranked.separated_by
        row.status = "disqualified"
        out.append(row)
    return out


def _ordered_run(run: list[Ranked[TeamRow]], orders: Sequence[Sequence[str]]) -> list[TeamRow]:
    """Apply the latest curator's order naming at least two teams of a tied run (FL-11)."""
    names = {r.item.team for r in run}
    order = next((o for o in reversed(orders) if len(names & set(o)) >= 2), None) if len(run) > 1 else None
    if order is None:
        for ranked in run:
            ranked.item.rank, ranked.item.separated_by = ranked.rank, ranked.separated_by
        return [r.item for r in run]
    position = {name: i for i, name in enumerate(order)}

    def key(ranked: Ranked[TeamRow]) -> int:
        return position.get(ranked.item.team, len(order))

    ordered = sorted(run, key=lambda r: (key(r), r.item.team))
    base = run[0].rank
    for index, ranked in enumerate(ordered):
        row = ranked.item
        if index == 0:
            row.rank, row.separated_by = base, run[0].separated_by
        elif key(ranked) == key(ordered[index - 1]):
            row.rank, row.separated_by = ordered[index - 1].item.rank, None
        else:
            row.rank, row.separated_by = base + index, "tie_break"
    return [r.item for r in ordered]


# --- compute ----------------------------------------------------------------------------------------------


def compute(facts: TournamentFacts, stage_key: str | None, now: dt.datetime) -> Standings:
    """Standings after ``stage_key`` (None: the latest stage of the document)."""
    return standings_of(facts, stage_key, now, analyse(facts))


def standings_of(facts: TournamentFacts, stage_key: str | None, now: dt.datetime,
                 analysis: LeagueAnalysis) -> Standings:
    """``compute`` over a given analysis of the facts (``ledger.analyse_from_scratch`` in the tests)."""
    stage = _chosen_stage(facts, stage_key)
    games = analysis.games.get(stage.key, ())
    complete = stage_complete(facts, stage, games)
    if stage.key == "qualifying":
        standings = _qualifying(facts, stage, analysis, complete)
    else:
        standings = _final(facts, stage, analysis, complete, now)
    standings.notes += _notes(facts)
    standings.details.update({
        "rounds": _rounds_of(stage, analysis).labels.copy(),
        "planned_games": planned_games(facts, stage.key),
        "complete": complete,
        "violations": [v.as_dict() for v in _fines_until(analysis, stage.key)],
        "players": _player_details(analysis.sums.get(stage.key) or StageSums(), analysis.denominator),
    })
    return standings


def _rows_for(stage: Stage, analysis: LeagueAnalysis, pools: Sequence[Pool],
              group_of: Callable[[Pool], str | None]) -> dict[str | None, list[TeamRow]]:
    teams = [t for pool in pools for t in pool.teams]
    tallies = _tallies(stage.key, analysis, teams)
    rounds = _rounds_of(stage, analysis)
    fines = _fines_until(analysis, stage.key)
    by_team: dict[str, list[Violation]] = defaultdict(list)
    for violation in fines:
        by_team[violation.team].append(violation)
    out: dict[str | None, list[TeamRow]] = defaultdict(list)
    for pool in pools:
        for team in pool.teams:
            out[pool.name].append(_team_row(tallies[team], group_of(pool), rounds, by_team[team]))
    return out


def _rounds_of(stage: Stage, analysis: LeagueAnalysis) -> RoundFigures:
    rounds = analysis.rounds.get(stage.key)
    return rounds if rounds is not None else RoundFigures((), {}, analysis.denominator)


def _qualifying(facts: TournamentFacts, stage: Stage, analysis: LeagueAnalysis, complete: bool) -> Standings:
    """Every group's table ranked within the group; the cut once the stage is complete (FL-11)."""
    pools = stage_pools(facts, stage)
    disqualified = mafia.disqualified_teams(facts)
    orders = mafia.tie_break_orders(facts, "qualifying")
    advance = setting(facts.settings, "advance_per_group")
    rows_by_pool = _rows_for(stage, analysis, pools, lambda pool: pool.name)
    teams: list[TeamRow] = []
    cut_ties: list[dict[str, Any]] = []
    for pool in pools:
        ranked = rank_table(rows_by_pool[pool.name], disqualified, orders)
        tie = _cut(ranked, advance, complete)
        if tie:
            cut_ties.append({"group": pool.name, "rank": tie[0].rank, "teams": [r.team for r in tie],
                             "settled": False})
        teams.extend(ranked)
    notes: list[str] = [_("group %(group)s: %(teams)s are tied at the cut; the curator decides (FL-11)",
                          group=t["group"], teams=", ".join(t["teams"])) for t in cut_ties if complete]
    return Standings(stage="qualifying", final=False, teams=teams, awards=[], notes=notes,
                     details={"cut_ties": cut_ties, "advance_per_group": advance})


def _cut(ranked: list[TeamRow], advance: int, complete: bool) -> list[TeamRow]:
    """Mark who goes through (FL-11); return the teams still tied across the cut."""
    active = [r for r in ranked if r.status != "disqualified"]
    tie: list[TeamRow] = []
    if len(active) > advance and active[advance - 1].rank == active[advance].rank:
        tie = [r for r in active if r.rank == active[advance - 1].rank]
    tied = {r.team for r in tie}
    if complete:
        for index, row in enumerate(active):
            if row.team in tied:
                row.status = "active"
            else:
                row.status = "advanced" if index < advance else "eliminated"
    return tie


def _final(facts: TournamentFacts, stage: Stage, analysis: LeagueAnalysis, complete: bool,
           now: dt.datetime) -> Standings:
    """The final ranked on its own points, then mafia points; ties share the place (FL-12)."""
    pools = stage_pools(facts, stage)
    rows = [row for pool_rows in _rows_for(stage, analysis, pools, lambda _p: None).values()
            for row in pool_rows]
    ranked = rank_table(rows, mafia.disqualified_teams(facts))
    final = (complete and not mafia.any_pending_appeal(facts) and not appeal_window_open(facts, now)
             and not violation_windows(facts, now, analysis))
    if final:
        for row in ranked:
            if row.status != "disqualified" and row.rank == 1:
                row.status = "winner"
    awards, cups = _awards(facts, ranked, analysis)
    return Standings(stage="final", final=final, teams=ranked, awards=awards, details={"cups": cups})


# --- prizes -----------------------------------------------------------------------------------------------


def _prize(prizes: Sequence[int], place: int, sharing: int, mode: str) -> int:
    """The prize of each of ``sharing`` teams sharing ``place`` (FL-21), rounded down to whole mf."""

    def of(p: int) -> int:
        return prizes[p - 1] if 1 <= p <= len(prizes) else 0

    if mode == "each_full":
        return of(place)
    if mode == "split_one":
        return floor_mf(Fraction(of(place), sharing))
    return floor_mf(Fraction(sum(of(p) for p in range(place, place + sharing)), sharing))


def _awards(facts: TournamentFacts, ranked: list[TeamRow], analysis: LeagueAnalysis) -> tuple[list[Award], list[dict]]:
    """Places 1..5 of the final with their prizes and cups (FL-20, FL-21); cups per player in details."""
    prizes = list(setting(facts.settings, "prizes"))
    mode = setting(facts.settings, "shared_prize")
    active = [r for r in ranked if r.status != "disqualified"]
    sharing = defaultdict(int)
    for row in active:
        sharing[row.rank] += 1
    players = _players_who_played(analysis)
    awards: list[Award] = []
    cups: list[dict] = []
    for row in active:
        if row.rank > len(prizes):
            continue
        cup = CUPS[row.rank - 1] if row.rank <= len(CUPS) else None
        awards.append(Award(place=row.rank, team=row.team, player=None,
                            prize=_prize(prizes, row.rank, sharing[row.rank], mode),
                            items=[cup] if cup else []))
        if cup:
            cups += [{"player": nick, "team": row.team, "cup": cup, "place": row.rank}
                     for nick in sorted(players.get(row.team, ()))]
    return awards, cups


def _players_who_played(analysis: LeagueAnalysis) -> dict[str, set[str]]:
    """Players with at least one game for the team in the tournament, also if they left since (FL-4, FL-20).

    A seat counts unless it was judged ``foreign_player`` or ``ineligible_player`` (``StageSums.uncounted``).
    """
    out: dict[str, set[str]] = defaultdict(set)
    for sums in analysis.sums.values():
        for (player, team), seats in sums.seats.items():
            if seats > sums.uncounted.get((player, team), 0):
                out[team].add(player)
    return out


# --- details ----------------------------------------------------------------------------------------------


def _player_details(sums: StageSums, denominator: int) -> list[dict[str, Any]]:
    """Each player's points, games and mafia points in the stage, best first (units of ``denominator``; each
    figure rounded once per value: a league's 14,000 players share a few thousand)."""
    points, mafia, rounded = sums.points, sums.mafia, Rounded(denominator)
    totals = sorted(sums.seats.items(), key=lambda entry: (-points[entry[0]], entry[0]))
    return [
        {"player": key[0], "team": key[1], "points": rounded[points[key]], "games": games,
         "mafia_points": rounded[mafia[key]]}
        for key, games in totals
    ]


def _notes(facts: TournamentFacts) -> list[str]:
    notes: list[str] = []
    minimum = setting(facts.settings, "min_teams")
    if len(facts.teams) < minimum:
        notes.append(_("%(teams)s teams: the tournament runs only with at least %(minimum)s (FL-2)",
                       teams=len(facts.teams), minimum=minimum))
    qualifying = facts.stage("qualifying")
    if qualifying is not None and len(facts.teams) < setting(facts.settings, "groups_from_teams"):
        notes.append(FEW_TEAMS_FOR_GROUPS)
    if qualifying is not None and qualifying.groups and len(qualifying.groups) != setting(facts.settings, "groups"):
        notes.append(_("the qualifying stage has %(groups)s groups, the setting says %(setting)s (FL-8)",
                       groups=len(qualifying.groups), setting=setting(facts.settings, "groups")))
    return notes


def seat_points(facts: TournamentFacts, stage_key: str) -> dict[tuple[int, str], tuple[Fraction, str]]:
    """(game number, nick) -> (points the seat earned, why) for the stage's played and technical games."""
    analysis = analyse(facts)
    return {(j.game, j.player): (j.points, j.reason) for j in analysis.seats.get(stage_key, [])}


_game_points_kept: dict[tuple[str, str], dict[int, tuple[GameRecord, GamePoints]]] = {}


def game_points(facts: TournamentFacts, stage_key: str) -> dict[int, GamePoints]:
    """game number -> ((nick, points, why), ...) per seat (FL-13, FL-14), as ``seat_points`` by game.

    A game whose judgement the ledger carried over (the same ``GameRecord``) gives the same tuple as at the last
    call, so that a shell deriving figures from it can tell the games that changed (``scoring.figures``)."""
    analysis = analyse(facts)
    kept = _game_points_kept.get((facts.slug, stage_key), {})
    fresh: dict[int, tuple[GameRecord, GamePoints]] = {}
    out: dict[int, GamePoints] = {}
    for record in analysis.records.get(stage_key, []):
        hit = kept.get(id(record))
        if hit is None or hit[0] is not record:
            hit = (record, tuple((seat.player, value[0], value[1])
                                 for seat, value in zip(record.game.seats, record.values)))
        fresh[id(record)] = hit
        out[record.game.number] = hit[1]
    _game_points_kept[(facts.slug, stage_key)] = fresh
    while len(_game_points_kept) > 4 * len(STAGE_KEYS):
        del _game_points_kept[next(iter(_game_points_kept))]
    return out
