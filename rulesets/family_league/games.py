"""What the games of a family league give: seat points, FL-15 violations, penalties and fines.

The whole tournament is read once, in order of play (stage, then game
number), because a player's game limit (FL-5) and the fine numbering
(FL-17) run over the tournament.

Interpretations (``spec/family_league.md``):
- Game statuses are the effective ones (technical results and replays
  applied, ``rulesets.mafia.effective_games``). Seats of ``played`` and
  ``technical`` games (the started games) are judged alike (FL-15): their
  violating seats and the ``no_show`` of their seatless teams are penalties,
  and their scoring seats score (FL-13); other games give no FL-15 penalties.
  The FL-10 ``no_show`` of an absent team is given for every game recorded
  ``not_held``, also when a replay was ordered for it.
- The game limit counts every earlier seat of the player (violating seats
  included) in ``played`` and ``technical`` games, in order of stage and game
  number (FL-15).
- A disqualification (the player's ``disqualified`` flag, or an active
  decision) is in force for a game scheduled at or after the decision's
  ``decided_at``; without either time it is in force for every game.
- A player who left the team's roster (removed at the FL-3 judging moment,
  or gone from the family, FL-4: the team's ``left_at``) is no longer on it
  for a game scheduled at or after that moment (a game without a time
  included): such a seat is ``ineligible_player`` (FL-15.2); earlier seats
  stand.
- Fines are numbered in order of play: per game, its seat violations in seat
  order, then its ``no_show`` penalties (in the group's team order, or the
  order of ``absent_teams``), then the fair-play penalties about that game
  (by ``decided_at``, then document order); a fair-play penalty that names no
  game comes after every game of its stage, by ``decided_at`` (FL-17, FL-18).
"""

from __future__ import annotations

import datetime as dt
from collections import Counter, defaultdict
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import lcm
from typing import NamedTuple

from rulesets import mafia
from rulesets.base import round2, to_fraction
from rulesets.facts import Game, Penalty, Seat, Stage, TournamentFacts
from rulesets.family_league.rules import LeagueRules
from rulesets.family_league.settings import PointsTable
from rulesets.messages import Text, join
from rulesets.messages import text as _

STAGE_ORDER = ("qualifying", "final")
SCORES = "scores"
FL15_CODES = {
    "no_show": "FL-15.1",
    "ineligible_player": "FL-15.2",
    "two_players": "FL-15.3",
    "foreign_player": "FL-15.4",
}

# Why a scoring seat earns its points (FL-13): the outcome for its side, one message each, made once.
CIVILIANS_WIN = _("civilians win")
MAFIA_WIN = _("mafia win")
MANIAC_WIN = _("maniac win")
DRAW = _("draw")
LOSS = _("loss")
ONE_KILL = _("1 kill")


@dataclass(frozen=True)
class Pool:
    """The teams of one group of a stage (``name`` None: a stage that lists no groups)."""

    name: str | None
    teams: tuple[str, ...]


class SeatJudgement(NamedTuple):
    """How one seat was judged (FL-15) and what it earned (FL-13, FL-14).

    ``units`` is ``points`` counted in the analysis's common denominator
    (``LeagueAnalysis.denominator``), so that a tournament's 10^5 seats add up
    as integers and stay exact.
    """

    stage: str
    game: int
    index: int
    player: str
    team: str
    side: str
    verdict: str
    points: Fraction
    reason: str
    units: int = 0

    @property
    def scores(self) -> bool:
        return self.verdict == SCORES

    @property
    def mafia_points(self) -> Fraction:
        """Points earned while on the mafia side (FL-11, FL-12)."""
        return self.points if self.side == "mafia" else Fraction(0)


@dataclass
class Violation:
    """One penalty: detected (FL-15, FL-10) or ruled by the judge (FL-18), with its fine (FL-17)."""

    stage: str
    game: int | None
    team: str
    kind: str
    code: str
    points: Fraction
    player: str | None = None
    seat: int | None = None
    decided_at: dt.datetime | None = None
    text: str = ""
    number: int = 0
    fine: int = 0

    def as_dict(self) -> dict:
        return {
            "stage": self.stage, "game": self.game, "team": self.team, "kind": self.kind, "code": self.code,
            "player": self.player, "seat": self.seat, "points": round2(self.points),
            "decided_at": self.decided_at.isoformat() if self.decided_at else None, "text": self.text,
            "number": self.number, "fine": self.fine,
        }


def ordered_stages(facts: TournamentFacts) -> list[Stage]:
    return sorted(facts.stages, key=lambda s: STAGE_ORDER.index(s.key) if s.key in STAGE_ORDER else len(STAGE_ORDER))


def stage_pools(facts: TournamentFacts, stage: Stage) -> tuple[Pool, ...]:
    """The stage's groups (FL-8).

    A stage listing no groups is one pool: every team of the tournament, or,
    for a final after a qualifying stage, the teams its games name (seats and
    ``absent_teams``), so that the teams knocked out are not taken for no-shows.
    """
    if stage.groups:
        return tuple(Pool(g.name, g.teams) for g in stage.groups)
    teams = tuple(t.name for t in facts.teams)
    if stage.key == "final" and facts.stage("qualifying") is not None:
        named = {s.team for g in stage.games for s in g.seats} | {t for g in stage.games for t in g.absent_teams}
        teams = tuple(t for t in teams if t in named)
    return (Pool(None, teams),)


def game_pool(pools: tuple[Pool, ...], game: Game) -> Pool | None:
    """The group whose teams take part in the game; a single group may be left out of the game."""
    if len(pools) == 1:
        return pools[0]
    return next((p for p in pools if p.name == game.group), None)


def disqualification_times(facts: TournamentFacts) -> tuple[dict[str, dt.datetime | None], dict[str, dt.datetime | None]]:
    """Teams and players under disqualification, each with the moment it began (None: always)."""
    teams: dict[str, dt.datetime | None] = {}
    players: dict[str, dt.datetime | None] = {p.nick: None for p in facts.players if p.disqualified}
    for decision in mafia.active_decisions(facts):
        if decision.kind != "disqualification":
            continue
        for target, table in ((decision.team, teams), (decision.player, players)):
            if target is None:
                continue
            if target in table and (table[target] is None or decision.decided_at is None):
                table[target] = None
            elif target in table:
                table[target] = min(table[target], decision.decided_at)
            else:
                table[target] = decision.decided_at
    return teams, players


def in_force(times: dict[str, dt.datetime | None], name: str, game: Game) -> bool:
    """Whether the disqualification of ``name`` applies to ``game``."""
    if name not in times:
        return False
    since = times[name]
    return since is None or game.scheduled_at is None or game.scheduled_at >= since


def seat_value(seat: Seat, game: Game, table: PointsTable) -> tuple[Fraction, Text]:
    """The points a scoring seat earns and why (FL-13), cut by a timeout (FL-14)."""
    outcome = game.outcome
    side = seat.side
    kills = 0
    if side == "civilians":
        points, reason = {
            "civilians": (table.civilians_win, CIVILIANS_WIN),
            "draw": (table.civilians_draw, DRAW),
        }.get(outcome, (Fraction(0), LOSS))
    elif side == "mafia":
        points, reason = {
            "mafia": (table.mafia_win, MAFIA_WIN),
            "draw": (table.mafia_draw, DRAW),
        }.get(outcome, (Fraction(0), LOSS))
    else:
        bonus, reason = {
            "maniac": (table.maniac_win, MANIAC_WIN),
            "draw": (table.maniac_draw, DRAW),
        }.get(outcome, (Fraction(0), LOSS))
        points = bonus + table.kill_points(seat.maniac_kills)
        kills = seat.maniac_kills
    timeout = None
    if seat.timed_out:
        days = seat.days_played or 0
        game_days = game.game_days or 0
        points = points * Fraction(days, game_days) if game_days else Fraction(0)
        timeout = (days, game_days)
    if kills or timeout is not None:
        reason = seat_reason(reason.template, kills, timeout)
    return points, reason


_OUTCOME_REASONS = {reason.template: reason for reason in (CIVILIANS_WIN, MAFIA_WIN, MANIAC_WIN, DRAW, LOSS)}


@lru_cache(maxsize=1024, typed=True)
def seat_reason(outcome: str, kills: int, timeout: tuple[int, int] | None) -> Text:
    """The reason of a seat whose outcome (``"maniac win"``, ...) is followed by the maniac's kills and a timeout
    (FL-13, FL-14), made once per combination: ``"maniac win, 2 kills; timeout: 3 of 5 days"``."""
    reason: Text | str = _OUTCOME_REASONS[outcome]
    if kills:
        reason = join(", ", [reason, ONE_KILL if kills == 1 else _("%(kills)s kills", kills=kills)])
    if timeout is not None:
        reason = join("; ", [reason, _("timeout: %(days)s of %(game_days)s days", days=timeout[0],
                                       game_days=timeout[1])])
    return reason  # type: ignore[return-value]  # a join of messages is a message


def common_denominator(facts: TournamentFacts, table: PointsTable) -> int:
    """A denominator every seat's points can be written over (FL-13, FL-14).

    A seat earns a table value (or a maniac's bonus plus kill points), cut by a
    timeout to ``days/game_days`` of it: the product of the table's common
    denominator and of every ``game_days`` of the tournament divides them all.
    """
    table_part = lcm(*(value.denominator for value in table.values()))
    days_part = lcm(*{g.game_days for stage in facts.stages for g in stage.games if g.game_days}, 1)
    return table_part * days_part


def penalty_team(facts: TournamentFacts, penalty: Penalty) -> str | None:
    """The team a fair-play penalty is charged to: its own ``team``, else the player's team (FL-18)."""
    if penalty.team is not None:
        return penalty.team
    if penalty.player is None:
        return None
    stage = facts.stage(penalty.stage) if penalty.stage else None
    game = stage.game(penalty.game) if stage is not None and penalty.game is not None else None
    if game is not None:
        for seat in game.seats:
            if seat.player == penalty.player:
                return seat.team
    return next((t.name for t in facts.teams if penalty.player in t.players), None)


def fair_play_by_game(facts: TournamentFacts, stage: Stage) -> dict[int | None, list[Violation]]:
    """The stage's fair-play penalties (FL-18) in force, grouped by game; game-less ones under None. A penalty
    annulled on appeal costs nothing; one partly upheld costs its changed penalty (FL-19)."""
    far_future = dt.datetime.max.replace(tzinfo=dt.UTC)
    listed = [
        (index, p) for index, p in enumerate(mafia.active_penalties(facts))
        if p.stage == stage.key and penalty_team(facts, p) is not None
    ]
    listed.sort(key=lambda item: (item[1].decided_at or far_future, item[0]))
    out: dict[int | None, list[Violation]] = defaultdict(list)
    for _index, penalty in listed:
        out[penalty.game].append(Violation(
            stage=stage.key, game=penalty.game, team=penalty_team(facts, penalty) or "", kind=penalty.kind,
            code=penalty.code or "FL-18", points=to_fraction(penalty.points), player=penalty.player,
            decided_at=penalty.decided_at, text=penalty.text,
        ))
    game_less = out.pop(None, [])
    ordered: dict[int | None, list[Violation]] = dict(sorted(out.items()))
    if game_less:
        ordered[None] = game_less
    return ordered


def number_fines(violations: list[Violation], counter: str, rules: LeagueRules) -> None:
    """Fine 25 + 25 x n mf, n counted per team or over the tournament (FL-17)."""
    seen: Counter[str] = Counter()
    for violation in violations:
        key = violation.team if counter == "team" else ""
        seen[key] += 1
        violation.number = seen[key]
        violation.fine = rules.fine_base + rules.fine_step * violation.number
