"""Ruleset ``swiss_mafia``: a Swiss-system Mafia league of one stage (pure: no Django, no clock).

SW-1: every seat on the winning side scores 1 point for its team, every other seat 0; a drawn game scores 0.5 a
seat. SW-2: teams rank by points, then by wins (seats on a winning side), then share the place (competition
ranking). SW-3: a decision may be appealed to the curator within 24 hours of its publication.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from fractions import Fraction
from types import MappingProxyType
from typing import Any

from rulesets import mafia
from rulesets.base import Criterion, Problem, Standings, TeamRow, competition_rank, round2
from rulesets.facts import Appeal, Decision, TournamentFacts
from rulesets.messages import text as _
from rulesets.protocol import AppealPolicy, Ruleset

KEY = "swiss_mafia"
STAGE = "swiss"
HOURS = 24  # SW-3


def seat_points(facts: TournamentFacts, stage_key: str) -> dict[tuple[int, str], tuple[Fraction, str]]:
    """SW-1: each seat's points and why."""
    stage = facts.stage(stage_key)
    out: dict[tuple[int, str], tuple[Fraction, str]] = {}
    for game in mafia.effective_games(facts, stage) if stage else ():
        if game.status != "played" or game.outcome is None:
            continue
        for seat in game.seats:
            if game.outcome == "draw":
                out[(game.number, seat.player)] = (Fraction(1, 2), _("a drawn game (%(rule)s)", rule="SW-1"))
            elif seat.side == game.outcome:
                out[(game.number, seat.player)] = (Fraction(1), _("a win (%(rule)s)", rule="SW-1"))
            else:
                out[(game.number, seat.player)] = (Fraction(0), _("a loss (%(rule)s)", rule="SW-1"))
    return out


def compute(facts: TournamentFacts, stage_key: str | None, now: dt.datetime) -> Standings:
    """SW-2: the table after the stage's games."""
    stage = facts.stage(STAGE)
    points: dict[str, Fraction] = {team.name: Fraction(0) for team in facts.teams}
    wins: dict[str, int] = defaultdict(int)
    team_of = {(game.number, seat.player): seat.team for game in (stage.games if stage else ()) for seat in game.seats}
    for (number, player), (value, _reason) in seat_points(facts, STAGE).items():
        team = team_of[(number, player)]
        points[team] = points.get(team, Fraction(0)) + value
        wins[team] += value == 1
    chain = [Criterion("points", lambda t: points[t]), Criterion("wins", lambda t: wins[t])]
    ranked = competition_rank(sorted(points), chain, name=lambda t: t)
    teams = [TeamRow(team=r.item, points=round2(points[r.item]), rank=r.rank,
                     tiebreaks={"wins": wins[r.item]}, separated_by=r.separated_by) for r in ranked]
    played = bool(stage and stage.games) and all(g.status != "scheduled" for g in stage.games)
    return Standings(stage=STAGE, final=played and not mafia.any_pending_appeal(facts), teams=teams)


def validate(facts: TournamentFacts) -> list[Problem]:
    return []


def validate_settings(settings: dict[str, Any]) -> list[Problem]:
    return [Problem(key, _("%(key)s is not a setting of this ruleset", key=key)) for key in settings]


def decision_deadline(facts: TournamentFacts, decision: Decision) -> dt.datetime | None:
    """SW-3: 24 hours after the decision's publication."""
    return mafia.decision_deadline(decision, HOURS, "published_at")


def appeal_deadline(facts: TournamentFacts, appeal: Appeal) -> dt.datetime | None:
    decision = mafia.appealed_decision(facts, appeal)
    return decision_deadline(facts, decision) if decision else None


RULESET = Ruleset(
    key=KEY,
    version=1,
    stage_keys=(STAGE,),
    default_settings=MappingProxyType({}),
    validate_settings=validate_settings,
    validate=validate,
    compute=compute,
    appeal_policy=AppealPolicy(rule="SW-3", deciders=("curator",), appeal_deadline=appeal_deadline,
                               decision_deadline=decision_deadline, appeal_opens=mafia.appeal_opens),
    seat_points=seat_points,
)
