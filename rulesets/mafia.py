"""Helpers shared by the three Mafia rulesets (``mafia_glossary.md``).

Decisions (technical results, replays, disqualifications, committee orders)
are facts applied on top of the recorded games; an accepted appeal against a
decision annuls it, a ``partly`` upheld one puts the changed decision of its
verdict (``replacement``) in its place (interchange: Appeals; FL-19). A judge's
penalty appealed (``kind: "penalty"``, FL-19, ``roles.md``) is treated the same
way: accepted annuls it, ``partly`` puts the changed penalty in its place.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from fractions import Fraction

from rulesets.base import Problem
from rulesets.facts import Appeal, Decision, Game, Penalty, Stage, TournamentFacts
from rulesets.messages import text as _

KILL_POINTS = (Fraction(1, 2), Fraction(2, 5))
LATER_KILL_POINTS = Fraction(3, 10)


def maniac_kill_points(kills: int) -> Fraction:
    """0.5 for the first kill, 0.4 for the second, 0.3 for each further one (FL-13, CB-9)."""
    total = Fraction(0)
    for index in range(kills):
        total += KILL_POINTS[index] if index < len(KILL_POINTS) else LATER_KILL_POINTS
    return total


def annulled_decision_indexes(facts: TournamentFacts) -> set[int]:
    """1-based indexes of decisions annulled by an accepted appeal."""
    return {
        a.decision
        for a in facts.appeals
        if a.kind == "decision" and a.verdict == "accepted" and a.decision is not None
    }


def replacements(facts: TournamentFacts) -> dict[int, Decision]:
    """1-based index -> the changed decision a ``partly`` verdict put in the appealed decision's place (FL-19)."""
    return {
        a.decision: dataclasses.replace(a.replacement, index=a.decision)
        for a in facts.appeals
        if a.kind == "decision" and a.verdict == "partly" and a.replacement is not None and a.decision is not None
    }


def appealable_decisions(facts: TournamentFacts) -> list[Decision]:
    """The decisions as taken, not annulled by an accepted appeal: their windows are the appeal windows."""
    annulled = annulled_decision_indexes(facts)
    return [d for d in facts.decisions if d.index not in annulled and not d.annulled]


def active_decisions(facts: TournamentFacts) -> list[Decision]:
    """Decisions in force, in document order: not annulled by an accepted appeal, and for a ``partly`` upheld
    appeal the changed decision of its verdict in place of the appealed one (FL-19)."""
    decisions = appealable_decisions(facts)
    changed = replacements(facts)
    if not changed:
        return decisions
    return [changed.get(d.index, d) for d in decisions]


def active_penalties(facts: TournamentFacts) -> tuple[Penalty, ...]:
    """The judges' penalties in force, in document order: an accepted appeal against a penalty annuls it, a
    ``partly`` upheld one puts the changed penalty of its verdict in its place (FL-19). The changed penalty keeps
    the appealed one's moment, so the fines are numbered in the same order (FL-17)."""
    changes: dict[int, Penalty | None] = {}
    for a in facts.appeals:
        if a.kind != "penalty" or a.penalty is None or a.verdict not in ("accepted", "partly"):
            continue
        replacement = a.replacement if a.verdict == "partly" and isinstance(a.replacement, Penalty) else None
        changes[a.penalty] = replacement
    if not changes:
        return facts.penalties
    out: list[Penalty] = []
    for index, penalty in enumerate(facts.penalties, start=1):
        if index not in changes:
            out.append(penalty)
            continue
        changed = changes[index]
        if changed is not None:
            out.append(dataclasses.replace(changed, decided_at=penalty.decided_at or changed.decided_at,
                                           published_at=penalty.published_at))
    return tuple(out)


def effective_games(facts: TournamentFacts, stage: Stage) -> tuple[Game, ...]:
    """The stage's games with technical results and replays applied (CB-15, CB-16)."""
    changes: dict[int, Decision] = {}
    for decision in active_decisions(facts):
        if decision.stage == stage.key and decision.game is not None and decision.kind in (
            "technical_result",
            "replay",
        ):
            changes[decision.game] = decision
    if not changes:
        return stage.games
    games = []
    for game in stage.games:
        decision = changes.get(game.number)
        if decision is None:
            games.append(game)
        elif decision.kind == "technical_result":
            games.append(dataclasses.replace(game, status="technical", outcome=decision.outcome))
        else:
            games.append(dataclasses.replace(game, status="annulled", outcome=None))
    return tuple(games)


def disqualified_teams(facts: TournamentFacts) -> set[str]:
    return {d.team for d in active_decisions(facts) if d.kind == "disqualification" and d.team}


def disqualified_players(facts: TournamentFacts) -> set[str]:
    from_decisions = {d.player for d in active_decisions(facts) if d.kind == "disqualification" and d.player}
    return from_decisions | {p.nick for p in facts.players if p.disqualified}


def tie_break_orders(facts: TournamentFacts, stage_key: str | None = None) -> list[tuple[str, ...]]:
    """Committee orders of tied rows, for the stage (or for any stage when ``stage_key`` is None)."""
    return [
        d.order
        for d in active_decisions(facts)
        if d.kind == "tie_break" and (stage_key is None or d.stage in (None, stage_key))
    ]


def decision_deadline(decision: Decision, hours: int, start: str) -> dt.datetime | None:
    """Last moment to appeal a decision: ``hours`` after its ``decided_at`` or ``published_at``."""
    moment = decision.published_at if start == "published_at" else decision.decided_at
    if moment is None:
        moment = decision.decided_at or decision.published_at
    return None if moment is None else moment + dt.timedelta(hours=hours)


def appealed_decision(facts: TournamentFacts, appeal: Appeal) -> Decision | None:
    """The decision a Mafia appeal is against (its 1-based ``decision`` index), if it exists."""
    if appeal.kind == "penalty" or appeal.decision is None or not 1 <= appeal.decision <= len(facts.decisions):
        return None
    return facts.decisions[appeal.decision - 1]


def appealed_penalty(facts: TournamentFacts, appeal: Appeal) -> Penalty | None:
    """The penalty an appeal of kind ``penalty`` is against (its 1-based ``penalty`` index), if it exists."""
    if appeal.kind != "penalty" or appeal.penalty is None or not 1 <= appeal.penalty <= len(facts.penalties):
        return None
    return facts.penalties[appeal.penalty - 1]


def penalty_deadline(penalty: Penalty, hours: int) -> dt.datetime | None:
    """Last moment to appeal a judge's penalty: ``hours`` after its publication (``published_at``, defaulting to
    ``decided_at``; FL-19, ``roles.md``)."""
    moment = penalty.published
    return None if moment is None else moment + dt.timedelta(hours=hours)


def appeal_opens(facts: TournamentFacts, appeal: Appeal) -> dt.datetime | None:
    """No appeal before the appealed decision or penalty is published (``roles.md``): its ``published_at``,
    defaulting to ``decided_at``; None when neither is known."""
    penalty = appealed_penalty(facts, appeal)
    if penalty is not None:
        return penalty.published
    decision = appealed_decision(facts, appeal)
    if decision is None:
        return None
    return decision.published_at or decision.decided_at


def late_appeal_problems(facts: TournamentFacts, hours: int, start: str, rule: str) -> list[Problem]:
    """Appeals against decisions (and penalties, FL-19) filed after their deadline are refused (GP-23, FL-19,
    CB-17)."""
    problems: list[Problem] = []
    for index, appeal in enumerate(facts.appeals):
        penalty = appealed_penalty(facts, appeal)
        if penalty is not None:
            deadline = penalty_deadline(penalty, hours)
        elif appeal.kind != "decision" or appeal.decision is None or appeal.decision > len(facts.decisions):
            continue
        else:
            deadline = decision_deadline(facts.decisions[appeal.decision - 1], hours, start)
        if deadline is not None and appeal.filed_at > deadline:
            problems.append(
                Problem(
                    f"appeals[{index}].filed_at",
                    _("filed %(filed)s after the deadline %(deadline)s (%(rule)s)", filed=appeal.filed_at.isoformat(),
                      deadline=deadline.isoformat(), rule=rule),
                )
            )
    return problems


def appeal_window_open(facts: TournamentFacts, hours: int, start: str, now: dt.datetime, *,
                       penalties: bool = False) -> bool:
    """Whether some decision in force (with ``penalties``: or a judge's penalty, FL-19) can still be appealed at
    ``now`` (export: ``final``).

    A changed decision a verdict records is no new decision to appeal: the appealed one's window counts.
    """
    for decision in appealable_decisions(facts):
        deadline = decision_deadline(decision, hours, start)
        if deadline is not None and now <= deadline:
            return True
    if penalties:
        annulled = {a.penalty for a in facts.appeals if a.kind == "penalty" and a.verdict == "accepted"}
        for index, penalty in enumerate(facts.penalties, start=1):
            deadline = penalty_deadline(penalty, hours)
            if index not in annulled and deadline is not None and now <= deadline:
                return True
    return False


def any_pending_appeal(facts: TournamentFacts) -> bool:
    return any(a.verdict is None for a in facts.appeals)

