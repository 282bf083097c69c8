"""Classes and points of the ``class_balanced`` ruleset (CB-3, CB-8..CB-11).

A seat earns points for its team by the stage's points table; the team's
tie-break figures of CB-11 are counted from the same seats. Only ``played``
and ``technical`` games count (after the judge's decisions, CB-15/CB-16).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from rulesets.base import to_fraction
from rulesets.class_balanced.rules import CONSTANTS, ClassRanges
from rulesets.class_balanced.settings import Config
from rulesets.facts import Game, Seat, Stage, TournamentFacts
from rulesets.mafia import active_penalties, effective_games
from rulesets.messages import Text
from rulesets.messages import text as _

STATS_MIN, STATS_MAX = 150, 450
CLASS_RANGES: ClassRanges = CONSTANTS["class_ranges"]  # the code's ranges today; a tournament's are frozen with it
TIEBREAK_KEYS: tuple[str, ...] = ("mafia_wins", "mafia_draws", "mafia_wins_13", "mafia_draws_13", "maniac_wins",
                                  "points_13")

# Why a seat earns its points (CB-8..CB-10): one message object for every seat of the same reason.
TIMEOUT = _("timeout: scores nothing (CB-10)")
CIVILIANS_WIN = _("civilians win")
MAFIA_WIN = _("mafia win")
MAFIA_DRAW = _("mafia draw")
CIVILIANS_DRAW = _("civilians draw")
CIVILIANS_DRAW_UNPAID = _("civilians draw, no civilian in the last day/night (CB-8)")
LOSS = _("loss")
ONE_KILL = _("1 kill")


def class_of(stats: int | None, ranges: ClassRanges = CLASS_RANGES) -> str | None:
    """The class a stat sum sets (CB-3): C 150..250, B 251..350, A 351..450; None outside.

    A tournament's pages and tables pass its frozen ``ranges`` (``rules_of(facts).class_ranges``)."""
    if stats is None:
        return None
    for name, low, high in ranges:
        if low <= stats <= high:
            return name
    return None


def civilians_draw_paid(game: Game, stage_key: str, cfg: Config) -> bool:
    """CB-8: in stages 2 and 3 a draw pays the civilians only if one of them was in the last day/night."""
    if not cfg.draw_needs_final_phase.get(stage_key, False):
        return True
    return any(seat.side == "civilians" and seat.in_final_phase for seat in game.seats)


def kills_text(kills: int) -> Text:
    """The maniac's kills in a seat's reason, "1 kill" or "3 kills" (CB-9)."""
    return ONE_KILL if kills == 1 else _("%(kills)s kills", kills=kills)


def seat_score(game: Game, seat: Seat, stage_key: str, cfg: Config) -> tuple[Fraction, Text]:
    """Points one seat earns for its team in a counted game, with the reason (CB-8..CB-10)."""
    if seat.timed_out:
        return Fraction(0), TIMEOUT
    table = cfg.points.get(stage_key, {})
    outcome, side = game.outcome, seat.side
    if side == "maniac":
        kills = cfg.kill_points_for(seat.maniac_kills)
        killed = kills_text(seat.maniac_kills)
        if outcome == "maniac":
            return kills + table.get("maniac_win", Fraction(0)), _("maniac win, %(kills)s (CB-9)", kills=killed)
        if outcome == "draw":
            return kills + table.get("maniac_draw", Fraction(0)), _("maniac draw, %(kills)s (CB-9)", kills=killed)
        return kills, _("maniac loss, keeps %(kills)s (CB-9)", kills=killed)
    if outcome == "civilians" and side == "civilians":
        return table["civilians_win"], CIVILIANS_WIN
    if outcome == "mafia" and side == "mafia":
        return table["mafia_win"], MAFIA_WIN
    if outcome == "draw" and side == "mafia":
        return table["mafia_draw"], MAFIA_DRAW
    if outcome == "draw" and side == "civilians":
        if civilians_draw_paid(game, stage_key, cfg):
            return table["civilians_draw"], CIVILIANS_DRAW
        return Fraction(0), CIVILIANS_DRAW_UNPAID
    return Fraction(0), LOSS


@dataclass
class Tally:
    """A team's points and CB-11 figures over some games."""

    points: Fraction = Fraction(0)
    mafia_wins: int = 0
    mafia_draws: int = 0
    mafia_wins_13: int = 0
    mafia_draws_13: int = 0
    maniac_wins: int = 0
    points_13: Fraction = Fraction(0)
    games: int = 0

    def __add__(self, other: Tally) -> Tally:
        return Tally(*(getattr(self, name) + getattr(other, name) for name in self.__dataclass_fields__))

    def figure(self, key: str) -> Fraction | int:
        return getattr(self, key)

    def tiebreaks(self) -> dict[str, Fraction]:
        """The six export figures, always all of them, as exact numbers."""
        return {key: Fraction(getattr(self, key)) for key in TIEBREAK_KEYS}


def count_seat(tally: Tally, game: Game, seat: Seat, points: Fraction, on_13: bool) -> None:
    """Add one seat to its team's tally; a timed-out seat counts in no figure (CB-10, CB-11)."""
    tally.points += points
    tally.games += 1
    if on_13:
        tally.points_13 += points
    if seat.timed_out:
        return
    if seat.side == "mafia" and game.outcome == "mafia":
        tally.mafia_wins += 1
        tally.mafia_wins_13 += int(on_13)
    elif seat.side == "mafia" and game.outcome == "draw":
        tally.mafia_draws += 1
        tally.mafia_draws_13 += int(on_13)
    elif seat.side == "maniac" and game.outcome == "maniac":
        tally.maniac_wins += 1


@dataclass
class StageResult:
    """Per team and per player results of one stage."""

    teams: dict[str, Tally] = field(default_factory=dict)
    player_points: dict[str, Fraction] = field(default_factory=dict)
    player_games: dict[str, int] = field(default_factory=dict)


def counted_games(facts: TournamentFacts, stage: Stage | None) -> list[Game]:
    """The stage's games that score: ``played`` or ``technical`` after decisions (CB-11, CB-15, CB-16)."""
    if stage is None:
        return []
    return [game for game in effective_games(facts, stage) if game.scores]


def team_of_player(facts: TournamentFacts, nick: str) -> str | None:
    return next((team.name for team in facts.teams if nick in team.players), None)


def stage_result(facts: TournamentFacts, stage_key: str, cfg: Config) -> StageResult:
    """Points and figures of every team and player in one stage, penalties deducted."""
    result = StageResult({team.name: Tally() for team in facts.teams})
    on_13 = cfg.is_13_player_stage(stage_key)
    for game in counted_games(facts, facts.stage(stage_key)):
        for seat in game.seats:
            points, _reason = seat_score(game, seat, stage_key, cfg)
            count_seat(result.teams.setdefault(seat.team, Tally()), game, seat, points, on_13)
            result.player_points[seat.player] = result.player_points.get(seat.player, Fraction(0)) + points
            result.player_games[seat.player] = result.player_games.get(seat.player, 0) + 1
    for penalty in active_penalties(facts):  # a penalty annulled on appeal costs nothing
        if (penalty.stage or "stage-1") != stage_key:
            continue
        team = penalty.team or (team_of_player(facts, penalty.player) if penalty.player else None)
        if team is not None:
            result.teams.setdefault(team, Tally()).points -= to_fraction(penalty.points)
    return result
