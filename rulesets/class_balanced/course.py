"""The course of a ``class_balanced`` tournament: the ordering of teams (CB-11: the tie-break chains, committee
order, recorded result, seeded draw), the stages' points, eliminations (CB-12) and disqualifications (CB-7,
CB-13), and the class-balance table of a stage (CB-6, CB-7).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from rulesets import mafia
from rulesets.class_balanced.points import StageResult, Tally, class_of, counted_games, stage_result
from rulesets.class_balanced.rules import rules_of
from rulesets.class_balanced.settings import CLASSES, STAGE_KEYS, Config, config
from rulesets.facts import TournamentFacts
from rulesets.messages import Text
from rulesets.messages import text as _

SHORT_CHAIN: tuple[str, ...] = ("points", "mafia_wins", "mafia_draws")
LONG_CHAIN: tuple[str, ...] = ("points", "mafia_wins", "mafia_wins_13", "mafia_draws", "mafia_draws_13",
                               "maniac_wins", "points_13")


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
