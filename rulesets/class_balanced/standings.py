"""Ruleset ``class_balanced``: three class-balanced Mafia stages (``spec/class_balanced.md``, seed 004).

Fourteen teams play stage 1 (7-player games), thirteen stage 2 (13-player
games with a class table), ten stage 3 (10-player games); points carry over
(CB-1). After stage 1 the last team is out, after stage 2 the last three
(CB-12); a team that ends stage 1 or 3 with unequal class counts is
disqualified and takes that stage's elimination places first (CB-7, CB-13).

Settings live in ``rulesets.class_balanced.settings``, classes and points in
``rulesets.class_balanced.points``, the fair-play catalogue in
``rulesets.class_balanced.fair_play``, the ordering, the stages' course and
the class-balance table in ``rulesets.class_balanced.course``, the refusals
(``validate``) in ``rulesets.class_balanced.validation``. This module holds
``compute``, the deadlines, and the public figures ``seat_points``,
``class_balance`` and ``best_players``.

Seeded draw (CB-11): rows equal on the whole chain are ordered by
``sha256(f"{seed}:{team}")`` in hex, ascending. The seed is the stage's
``seed`` in the document, else ``f"{slug}:{stage_key}"``. Before the draw, a
committee's ``tie_break`` decision that names the tied teams orders them, and
at an elimination cut a team that the document shows playing a later stage
goes before one that does not (the draw's result as recorded).
"""

from __future__ import annotations

import datetime as dt
from fractions import Fraction
from typing import Any

from rulesets import mafia
from rulesets.base import Problem, RulesetError, Standings, TeamRow, round2, to_fraction
from rulesets.class_balanced.course import (
    LONG_CHAIN,  # noqa: F401  (a name of the package)
    SHORT_CHAIN,  # noqa: F401  (a name of the package)
    Course,
    Draws,  # noqa: F401  (a name of the package)
    Placed,
    balance_table,
    course,
    order_teams,
)
from rulesets.class_balanced.points import Tally, seat_score, team_of_player
from rulesets.class_balanced.settings import (
    DEFAULT_SETTINGS,  # noqa: F401  (protocol name)
    STAGE_KEYS,
    config,
    validate_settings,  # noqa: F401  (protocol name)
)
from rulesets.class_balanced.validation import (
    scheduled_class_problems,  # noqa: F401  (protocol name)
    validate,  # noqa: F401  (protocol name)
)
from rulesets.facts import Appeal, Decision, TournamentFacts
from rulesets.messages import text as _

KEY = "class_balanced"
VERSION = 1

DRAW_PROCEDURE = _(
    "Rows equal on every tie-break are ordered by the SHA-256 hex digest of '<seed>:<team name>' (UTF-8), "
    "ascending; the seed is the stage's seed, or '<tournament slug>:<stage key>' when the document gives none."
)
GAME_ANNULLED = _("game annulled, replayed (CB-16)")


def class_balance(facts: TournamentFacts, stage_key: str) -> dict[str, dict]:
    """The live "still owed per class" table of a stage for the teams playing it (CB-7).

    Per team: games played per class (``A``, ``B``, ``C``), ``games``, ``expected_games``, ``remaining``,
    ``owed`` per class, ``can_still_balance`` (False: warn, CB-7) and ``balanced`` (equal classes so far).
    """
    index = _stage_index(stage_key)
    state = course(facts, index)
    return balance_table(facts, state.cfg, stage_key, state.fields[index])



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
