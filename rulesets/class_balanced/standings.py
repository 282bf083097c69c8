"""Ruleset ``class_balanced``: three class-balanced Mafia stages (``spec/class_balanced.md``, seed 004).

Fourteen teams play stage 1 (7-player games), thirteen stage 2 (13-player
games with a class table), ten stage 3 (10-player games); points carry over
(CB-1). After stage 1 the last team is out, after stage 2 the last three
(CB-12); a team that ends stage 1 or 3 with unequal class counts is
disqualified and takes that stage's elimination places first (CB-7, CB-13).

Settings live in ``rulesets.class_balanced.settings``, classes and points in
``rulesets.class_balanced.points``, the fair-play catalogue in
``rulesets.class_balanced.fair_play``. This module holds the protocol:
``validate``, ``compute``, the deadlines, and the public figures
``seat_points``, ``class_balance`` and ``best_players``.

Seeded draw (CB-11): rows equal on the whole chain are ordered by
``sha256(f"{seed}:{team}")`` in hex, ascending. The seed is the stage's
``seed`` in the document, else ``f"{slug}:{stage_key}"``. Before the draw, a
committee's ``tie_break`` decision that names the tied teams orders them, and
at an elimination cut a team that the document shows playing a later stage
goes before one that does not (the draw's result as recorded).
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

from rulesets import mafia
from rulesets.base import Problem, RulesetError, Standings, TeamRow, round2, to_fraction
from rulesets.class_balanced.fair_play import GROUNDS_BY_KIND, KNOWN_CODES, KNOWN_CODES_TEXT, UNCODED_KINDS
from rulesets.class_balanced.points import (
    STATS_MAX,
    STATS_MIN,
    StageResult,
    Tally,
    class_of,
    counted_games,
    seat_score,
    stage_result,
    team_of_player,
)
from rulesets.class_balanced.rules import rules_from, rules_of
from rulesets.class_balanced.settings import (
    CLASSES,
    DEFAULT_SETTINGS,  # noqa: F401  (protocol name)
    STAGE_KEYS,
    Config,
    config,
    validate_settings,  # noqa: F401  (protocol name)
)
from rulesets.facts import Appeal, Decision, Game, TournamentFacts
from rulesets.messages import Text
from rulesets.messages import text as _

KEY = "class_balanced"
VERSION = 1

SHORT_CHAIN: tuple[str, ...] = ("points", "mafia_wins", "mafia_draws")
LONG_CHAIN: tuple[str, ...] = ("points", "mafia_wins", "mafia_wins_13", "mafia_draws", "mafia_draws_13",
                               "maniac_wins", "points_13")
DRAW_PROCEDURE = _(
    "Rows equal on every tie-break are ordered by the SHA-256 hex digest of '<seed>:<team name>' (UTF-8), "
    "ascending; the seed is the stage's seed, or '<tournament slug>:<stage key>' when the document gives none."
)
NOT_A_TEAM_OF_THE_STAGE = _("not a team of the stage (CB-1)")
GAME_ANNULLED = _("game annulled, replayed (CB-16)")


# --------------------------------------------------------------------------- ordering


@dataclass
class Placed:
    """One team in an ordering, with what separated it from the team above.

    ``stage`` is the stage whose seed a ``"draw"`` separation used.
    """

    team: str
    separated_by: str | None
    stage: str = ""


@dataclass(frozen=True)
class Draws:
    """The seeds of the public draws (CB-11), by stage key."""

    seeds: dict[str, str]

    def key(self, stage_key: str, team: str) -> str:
        return hashlib.sha256(f"{self.seeds[stage_key]}:{team}".encode()).hexdigest()


def _committee_order(facts: TournamentFacts, stage_key: str, group: Sequence[str]) -> tuple[str, ...] | None:
    """The latest committee ``tie_break`` order for the stage that names every team of the tied group."""
    orders = [o for o in mafia.tie_break_orders(facts, stage_key) if set(group) <= set(o)]
    return orders[-1] if orders else None


def order_teams(
    facts: TournamentFacts,
    teams: Iterable[str],
    figures: dict[str, Tally],
    chain: Sequence[str],
    stage_key: str,
    draws: Draws,
    later_players: set[str] | None = None,
) -> list[Placed]:
    """Order teams by the tie-break chain (CB-11), then committee order, recorded result, seeded draw.

    ``later_players`` (at an elimination cut): teams the document shows playing a later stage.
    """

    def values(team: str) -> tuple:
        return tuple(figures[team].figure(key) for key in chain)

    ordered = sorted(teams, key=lambda t: (tuple(-v for v in values(t)), t))
    out: list[Placed] = []
    start = 0
    while start < len(ordered):
        end = start
        while end + 1 < len(ordered) and values(ordered[end + 1]) == values(ordered[start]):
            end += 1
        out += _break_tie(facts, ordered[start:end + 1], stage_key, draws, later_players or set())
        start = end + 1
    for index in range(1, len(out)):
        above, row = out[index - 1].team, out[index].team
        differing = next((key for key in chain if figures[above].figure(key) != figures[row].figure(key)), None)
        if differing is not None:
            out[index].separated_by = differing
    if out:
        out[0].separated_by = None
    return out


def _break_tie(facts: TournamentFacts, group: list[str], stage_key: str, draws: Draws,
               later_players: set[str]) -> list[Placed]:
    """Order a group equal on the whole chain: committee order, recorded result, then the seeded draw."""
    if len(group) == 1:
        return [Placed(group[0], None, stage_key)]
    committee = _committee_order(facts, stage_key, group) or ()

    def before_draw(team: str) -> tuple[int, bool]:
        return (committee.index(team) if team in committee else len(committee), team not in later_players)

    ordered = sorted(group, key=lambda t: (before_draw(t), draws.key(stage_key, t)))
    placed = [Placed(ordered[0], None, stage_key)]
    for above, team in zip(ordered, ordered[1:]):
        a, b = before_draw(above), before_draw(team)
        if a[0] != b[0]:
            placed.append(Placed(team, "tie_break", stage_key))
        elif a[1] != b[1]:
            placed.append(Placed(team, "next_stage", stage_key))
        else:
            placed.append(Placed(team, "draw", stage_key))
    return placed


# --------------------------------------------------------------------------- the tournament's course


@dataclass
class Course:
    """The tournament as it stood after stage ``view`` (an index into ``STAGE_KEYS``)."""

    cfg: Config
    view: int
    has_counted: list[bool]
    results: list[StageResult]
    cumulative: list[dict[str, Tally]]
    complete: list[bool]
    fields: list[list[str]]
    out: dict[int, list[str]]
    cut_orders: dict[int, list[Placed]]
    disqualified: dict[str, int]
    dq_reasons: dict[str, Text]
    draws: Draws

    @property
    def view_key(self) -> str:
        return STAGE_KEYS[self.view]

    def chain(self, index: int | None = None) -> tuple[str, ...]:
        """The chain in force after stage ``index`` (CB-11): long from the first counted game of stage 2 on."""
        index = self.view if index is None else index
        if index >= 2 or (index == 1 and self.has_counted[1]):
            return LONG_CHAIN
        return SHORT_CHAIN


def stage_complete(facts: TournamentFacts, stage_key: str, cfg: Config) -> bool:
    """CB-12: all the stage's games are played or technical (annulled ones replaced by their replays).

    Complete when the stage has at least its number of counted games (48, 26, 24) and nothing is still scheduled.
    """
    stage = facts.stage(stage_key)
    if stage is None:
        return False
    games = mafia.effective_games(facts, stage)
    if any(game.status == "scheduled" for game in games):
        return False
    return sum(1 for game in games if game.scores) >= cfg.games[stage_key]


def _plays_in(facts: TournamentFacts, stage_keys: Iterable[str]) -> set[str]:
    """Teams with a seat in any game of the given stages."""
    teams: set[str] = set()
    for key in stage_keys:
        stage = facts.stage(key)
        if stage is not None:
            teams |= {seat.team for game in stage.games for seat in game.seats}
    return teams


def _decision_disqualifications(facts: TournamentFacts, view: int) -> dict[str, int]:
    """Teams disqualified by an active decision, with the stage index it belongs to (at most ``view``).

    A decision without a stage belongs to the last stage in which the team has a seat (stage 1 if none).
    """
    out: dict[str, int] = {}
    for decision in mafia.active_decisions(facts):
        if decision.kind != "disqualification" or not decision.team:
            continue
        if decision.stage in STAGE_KEYS:
            index = STAGE_KEYS.index(decision.stage)
        else:
            index = max((i for i, key in enumerate(STAGE_KEYS) if decision.team in _plays_in(facts, [key])),
                        default=0)
        if index <= view:
            out[decision.team] = min(out.get(decision.team, index), index)
    return out


def course(facts: TournamentFacts, view: int) -> Course:
    """Points, eliminations (CB-12) and disqualifications (CB-7, CB-13) up to stage ``view``."""
    cfg = config(facts.settings)
    results = [stage_result(facts, key, cfg) for key in STAGE_KEYS[:view + 1]]
    names = [team.name for team in facts.teams]
    cumulative: list[dict[str, Tally]] = []
    running = {name: Tally() for name in names}
    for result in results:
        running = {name: running.get(name, Tally()) + result.teams.get(name, Tally())
                   for name in set(running) | set(result.teams)}
        cumulative.append(running)
    seeds = {key: (facts.stage(key).seed if facts.stage(key) and facts.stage(key).seed is not None
                   else f"{facts.slug}:{key}") for key in STAGE_KEYS}
    has_counted = [bool(counted_games(facts, facts.stage(key))) for key in STAGE_KEYS]
    state = Course(cfg=cfg, view=view, has_counted=has_counted, results=results, cumulative=cumulative,
                   complete=[stage_complete(facts, key, cfg) for key in STAGE_KEYS],
                   fields=[names], out={}, cut_orders={}, disqualified={}, dq_reasons={}, draws=Draws(seeds))
    for team, index in _decision_disqualifications(facts, view).items():
        state.disqualified[team] = index
        state.dq_reasons[team] = _("disqualified by decision in %(stage)s (CB-13)", stage=STAGE_KEYS[index])
    for index in range(view + 1):
        _close_stage(facts, state, index)
    return state


def _close_stage(facts: TournamentFacts, state: Course, index: int) -> None:
    """Apply the end of stage ``index``: class-balance disqualifications, then the elimination cut."""
    key, cfg = STAGE_KEYS[index], state.cfg
    field_now = state.fields[index]
    if key in cfg.balanced_stages and state.complete[index]:
        table = balance_table(facts, cfg, key, field_now)
        for team in field_now:
            if not table[team]["balanced"] and state.disqualified.get(team, index + 1) > index:
                state.disqualified[team] = index
                state.dq_reasons[team] = _("disqualified: unequal classes at the end of %(stage)s (CB-7)", stage=key)
    remaining = [t for t in field_now if state.disqualified.get(t, index + 1) > index]
    places = cfg.eliminated_after.get(key, 0)
    if places and state.complete[index] and index + 1 < len(STAGE_KEYS):
        disqualified_here = sum(1 for t in field_now if state.disqualified.get(t) == index)
        n_out = max(0, places - disqualified_here)
        later = _plays_in(facts, STAGE_KEYS[index + 1:])
        order = order_teams(facts, remaining, state.cumulative[index], state.chain(index), key, state.draws, later)
        state.cut_orders[index] = order
        state.out[index] = [p.team for p in order[len(order) - n_out:]] if n_out else []
        remaining = [t for t in remaining if t not in state.out[index]]
    state.fields.append(remaining)


# --------------------------------------------------------------------------- class balance


def balance_table(facts: TournamentFacts, cfg: Config, stage_key: str, teams: Iterable[str]) -> dict[str, dict]:
    """Classes played and still owed per team in one stage (CB-6, CB-7); every seat counts, timeouts too."""
    counts = {team: dict.fromkeys(CLASSES, 0) for team in teams}
    ranges = rules_of(facts).class_ranges
    for game in counted_games(facts, facts.stage(stage_key)):
        for seat in game.seats:
            cls = class_of(seat.stats, ranges)
            if seat.team in counts and cls is not None:
                counts[seat.team][cls] += 1
    expected = cfg.games_per_team.get(stage_key, 0)
    return {team: _balance_row(cfg, stage_key, by_class, expected) for team, by_class in counts.items()}


def _balance_row(cfg: Config, stage_key: str, by_class: dict[str, int], expected: int) -> dict[str, Any]:
    played = sum(by_class.values())
    remaining = max(0, expected - played)
    if stage_key in cfg.balanced_stages:
        total = played + remaining
        target = total // len(CLASSES)
        targets = dict.fromkeys(CLASSES, target)
        can = total % len(CLASSES) == 0 and max(by_class.values()) <= target
        balanced = len(set(by_class.values())) == 1
    elif stage_key == cfg.class_table_stage:
        targets = dict(cfg.class_table_per_team)
        can = all(by_class[c] <= targets.get(c, 0) for c in CLASSES)
        balanced = all(by_class[c] == targets.get(c, 0) for c in CLASSES)
    else:
        targets, can, balanced = {}, True, True
    return {
        **by_class,
        "games": played,
        "expected_games": expected,
        "remaining": remaining,
        "owed": {c: max(0, targets[c] - by_class[c]) for c in targets},
        "can_still_balance": can,
        "balanced": balanced,
    }


def class_balance(facts: TournamentFacts, stage_key: str) -> dict[str, dict]:
    """The live "still owed per class" table of a stage for the teams playing it (CB-7).

    Per team: games played per class (``A``, ``B``, ``C``), ``games``, ``expected_games``, ``remaining``,
    ``owed`` per class, ``can_still_balance`` (False: warn, CB-7) and ``balanced`` (equal classes so far).
    """
    index = _stage_index(stage_key)
    state = course(facts, index)
    return balance_table(facts, state.cfg, stage_key, state.fields[index])


# --------------------------------------------------------------------------- validation


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


# --------------------------------------------------------------------------- standings


def _stage_index(stage_key: str) -> int:
    if stage_key not in STAGE_KEYS:
        raise RulesetError([Problem("stage", _("unknown stage %(key)s; class_balanced has %(keys)s",
                                               key=repr(stage_key), keys=", ".join(STAGE_KEYS)))])
    return STAGE_KEYS.index(stage_key)


def _view_index(facts: TournamentFacts, stage_key: str | None) -> int:
    if stage_key is not None:
        return _stage_index(stage_key)
    return max((STAGE_KEYS.index(stage.key) for stage in facts.stages), default=0)


def is_final(facts: TournamentFacts, state: Course, now: dt.datetime) -> bool:
    """Interchange ``final``: every stage complete, no pending appeal, no open appeal window (CB-17)."""
    return (state.view == len(STAGE_KEYS) - 1 and all(state.complete)
            and not mafia.any_pending_appeal(facts)
            and not mafia.appeal_window_open(facts, state.cfg.appeal_hours, "published_at", now))


def _blocks(facts: TournamentFacts, state: Course) -> list[tuple[str, list[Placed]]]:
    """Rows in table order (CB-12, CB-13): teams still in, out after stage 2, out after stage 1, disqualified."""
    view, figures = state.view, state.cumulative[state.view]
    out_now = set(state.out.get(view, []))
    active = [t for t in state.fields[view] if t not in state.disqualified and t not in out_now]
    if view in state.cut_orders:
        active_rows = [p for p in state.cut_orders[view] if p.team in active]
    else:
        active_rows = order_teams(facts, active, figures, state.chain(), state.view_key, state.draws)
    blocks = [("active", active_rows)]
    for index in sorted(state.out, reverse=True):
        rows = [p for p in state.cut_orders[index] if p.team in state.out[index] and p.team not in state.disqualified]
        blocks.append(("eliminated", rows))
    disqualified = list(state.disqualified)
    blocks.append(("disqualified", order_teams(facts, disqualified, figures, state.chain(), state.view_key,
                                               state.draws)))
    return blocks


def compute(facts: TournamentFacts, stage_key: str | None, now: dt.datetime) -> Standings:
    """The standings after ``stage_key`` (None: the latest stage of the document) at ``now``."""
    view = _view_index(facts, stage_key)
    state = course(facts, view)
    final = is_final(facts, state, now)
    figures = state.cumulative[view]
    rows: list[TeamRow] = []
    blocks = _blocks(facts, state)
    draws = _draws_used(state, blocks)
    for status, placed in blocks:
        for position, item in enumerate(placed):
            separated = item.separated_by if position else (status if rows and status != "active" else None)
            row_status = "winner" if final and status == "active" and not rows else status
            rows.append(TeamRow(team=item.team, points=figures[item.team].points, rank=len(rows) + 1,
                                status=row_status, tiebreaks=figures[item.team].tiebreaks(),
                                separated_by=separated, details=_row_details(facts, state, item.team)))
    balance = _view_balance(facts, state)
    warnings = [team for team, entry in balance.items() if not entry["can_still_balance"]]
    notes: list[str] = [_("%(team)s can no longer balance its classes in %(stage)s (CB-7)", team=team,
                          stage=state.view_key) for team in sorted(warnings)]
    notes += [_("%(team)s: %(reason)s", team=team, reason=reason) for team, reason in sorted(state.dq_reasons.items())]
    return Standings(
        stage=state.view_key,
        final=final,
        teams=rows,
        seed=_seed_text(draws),
        best_player=best_players(facts, state),
        notes=notes,
        details={
            "rounds": list(STAGE_KEYS[:view + 1]),
            "chain": list(state.chain()),
            "complete": dict(zip(STAGE_KEYS, state.complete)),
            "day_turn_minutes": state.cfg.day_turn_minutes.get(state.view_key),
            "players_per_game": state.cfg.players_per_game.get(state.view_key),
            "class_balance": balance,
            "class_warnings": sorted(warnings),
            "eliminated": {STAGE_KEYS[i]: list(teams) for i, teams in state.out.items()},
            "disqualified": dict(state.dq_reasons),
            "draws": draws,
            "draw_procedure": DRAW_PROCEDURE,
            "players": player_table(facts, state),
        },
    )


def _row_details(facts: TournamentFacts, state: Course, team: str) -> dict[str, Any]:
    return {
        "points_by_round": [round2(result.teams.get(team, Tally()).points) for result in state.results],
        "games": state.cumulative[state.view][team].games,
        "penalties": _penalties(facts, state, team),
    }


def _penalties(facts: TournamentFacts, state: Course, team: str) -> list[dict[str, Any]]:
    """The penalties deducted from the team's points in the stages shown (a stageless one is stage 1's)."""
    shown = set(STAGE_KEYS[:state.view + 1])
    out = []
    for penalty in mafia.active_penalties(facts):
        stage = penalty.stage or "stage-1"
        owner = penalty.team or (team_of_player(facts, penalty.player) if penalty.player else None)
        if owner == team and stage in shown:
            out.append({"stage": stage, "game": penalty.game, "kind": penalty.kind, "code": penalty.code,
                        "player": penalty.player, "points": round2(to_fraction(penalty.points)),
                        "text": penalty.text})
    return out


def _view_balance(facts: TournamentFacts, state: Course) -> dict[str, dict]:
    key = state.view_key
    if key not in state.cfg.balanced_stages and key != state.cfg.class_table_stage:
        return {}
    return balance_table(facts, state.cfg, key, state.fields[state.view])


def _draws_used(state: Course, blocks: list[tuple[str, list[Placed]]]) -> list[dict[str, Any]]:
    """The draws that order the table shown: ties drawn inside a block, and cuts decided by a draw (CB-11)."""
    groups: list[dict[str, Any]] = []

    def add(stage_key: str, above: str, team: str) -> None:
        last = groups[-1] if groups else None
        if last is not None and last["stage"] == stage_key and last["teams"][-1] == above:
            last["teams"].append(team)
        else:
            groups.append({"stage": stage_key, "seed": state.draws.seeds[stage_key], "teams": [above, team]})

    for _status, placed in blocks:
        for above, row in zip(placed, placed[1:]):
            if row.separated_by == "draw":
                add(row.stage, above.team, row.team)
    for index, order in sorted(state.cut_orders.items()):
        n_out = len(state.out[index])
        if 0 < n_out < len(order) and order[len(order) - n_out].separated_by == "draw":
            first_out = len(order) - n_out
            add(STAGE_KEYS[index], order[first_out - 1].team, order[first_out].team)
    return groups


def _seed_text(draws: list[dict[str, Any]]) -> str | None:
    """The seed of the draws used (CB-11); several stages' seeds are named by stage."""
    seeds = {entry["stage"]: entry["seed"] for entry in draws}
    if not seeds:
        return None
    if len(set(seeds.values())) == 1:
        return next(iter(seeds.values()))
    return "; ".join(f"{stage}={seed}" for stage, seed in sorted(seeds.items()))


# --------------------------------------------------------------------------- best player, seats


def best_players(facts: TournamentFacts, state: Course) -> list[str]:
    """CB-14: highest average points per game among players with the minimum games of every stage size.

    A stage's games count as games "with N players" for its size (stage 1: 7, stage 2: 13, stage 3: 10);
    a timed-out game counts as a game played (CB-10). Disqualified players are not eligible; ties share.
    """
    averages = {nick: row[2] / row[1] for nick, row in _player_totals(facts, state).items() if row[1] and row[3]}
    if not averages:
        return []
    best = max(averages.values())
    return sorted(nick for nick, value in averages.items() if value == best)


def player_table(facts: TournamentFacts, state: Course) -> list[dict[str, Any]]:
    """Every player of the stages shown, for the player rankings (CB-14): eligible players first, by average.

    Each row: player, team, points, games, average (per game), eligible (the CB-14 minimums met and not
    disqualified) and rank (competition rank of the average among eligible players; None for the others).
    """
    rows = []
    for nick, (team, games, points, eligible) in _player_totals(facts, state).items():
        average = points / games if games else Fraction(0)
        rows.append((not eligible, -average, -points, nick, team, games, points, average, eligible))
    rows.sort()
    out: list[dict[str, Any]] = []
    previous: Fraction | None = None
    rank = 0
    for position, (_not_eligible, _neg, _negp, nick, team, games, points, average, eligible) in enumerate(rows):
        if eligible and average != previous:
            rank, previous = position + 1, average
        out.append({"player": nick, "team": team, "points": round2(points), "games": games,
                    "average": round2(average), "eligible": eligible, "rank": rank if eligible else None})
    return out


def _player_totals(facts: TournamentFacts, state: Course) -> dict[str, tuple[str | None, int, Fraction, bool]]:
    """nick -> (team, games, points, eligible for CB-14) over the stages shown."""
    barred = mafia.disqualified_players(facts)
    minimums = state.cfg.best_player_min_games
    points: dict[str, Fraction] = {}
    games: dict[str, int] = {}
    per_stage: list[dict[str, int]] = [result.player_games for result in state.results]
    for result in state.results:
        for nick, value in result.player_points.items():
            points[nick] = points.get(nick, Fraction(0)) + value
            games[nick] = games.get(nick, 0) + result.player_games[nick]

    def eligible(nick: str) -> bool:
        for index, key in enumerate(STAGE_KEYS):
            played = per_stage[index].get(nick, 0) if index < len(per_stage) else 0
            if played < minimums.get(key, 0):
                return False
        return nick not in barred

    return {nick: (team_of_player(facts, nick), games[nick], points.get(nick, Fraction(0)), eligible(nick))
            for nick in sorted(games)}


def seat_points(facts: TournamentFacts, stage_key: str | None) -> dict[tuple[int, str], tuple[Fraction, str]]:
    """(game number, nick) -> (points the seat earned for its team, reason) for one stage (CB-8..CB-10)."""
    key = STAGE_KEYS[_view_index(facts, stage_key)]
    stage = facts.stage(key)
    cfg = config(facts.settings)
    out: dict[tuple[int, str], tuple[Fraction, str]] = {}
    if stage is None:
        return out
    for game in mafia.effective_games(facts, stage):
        for seat in game.seats:
            if game.scores:
                out[(game.number, seat.player)] = seat_score(game, seat, key, cfg)
            elif game.status == "annulled":
                out[(game.number, seat.player)] = (Fraction(0), GAME_ANNULLED)
    return out


# --------------------------------------------------------------------------- deadlines


def schedule_due(facts: TournamentFacts, stage_key: str) -> dt.datetime | None:
    """CB-2: the latest moment to publish a stage's table: a day (setting) before its first scheduled game."""
    stage = facts.stage(stage_key)
    starts = [game.scheduled_at for game in stage.games if game.scheduled_at is not None] if stage else []
    if not starts:
        return None
    return min(starts) - dt.timedelta(days=config(facts.settings).schedule_published_days_before)


def decision_deadline(facts: TournamentFacts, decision: Decision) -> dt.datetime | None:
    """CB-17: a decision may be appealed within 48 hours of its publication."""
    return mafia.decision_deadline(decision, config(facts.settings).appeal_hours, "published_at")


def appeal_deadline(facts: TournamentFacts, appeal: Appeal) -> dt.datetime | None:
    """The last moment the appeal may be filed: its decision's deadline (CB-17)."""
    decision = mafia.appealed_decision(facts, appeal)
    return None if decision is None else decision_deadline(facts, decision)


def verdict_due(facts: TournamentFacts, appeal: Appeal) -> dt.datetime | None:
    """The seed sets no deadline for the judge's or curator's answer (CB-17)."""
    return None
