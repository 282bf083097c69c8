"""Appeals at their edges (``spec/roles.md``): the one set of checks of a filed appeal (pure: no Django).

The portal's filing (the form and the API, through ``appeals.services.file_appeal``, which puts the new appeal
after the tournament's stored ones) and the import (``rulesets.interchange``, every appeal of the document) refuse
alike:

- no appeal before the tour is played: filing opens at 00:00 of D (CHGK-18), or at the appealed decision's or
  penalty's publication (GP-23, FL-19, CB-17), ``AppealPolicy.appeal_opens``; a ChGK tour not played yet takes
  none;
- one appeal per team (or appellant), target and kind: a second one while the first is pending or decided is
  refused, naming the first (other teams file their own);
- once a removal is upheld (CHGK-21), new appeals on that question are refused (a pending one filed before stays
  for the jury and changes nothing);
- only a team that played the tour appeals one of its questions: not its host (CHGK-7), not a team absent from
  it (CHGK-10).

Each refusal is an ``Edge``: the key of the appeal it is about and a message naming the rule. Moments and the
earlier appeal are worded by the caller (``moment``, ``earlier``): the import names ISO times and
``appeals[i]``, the portal the time in the tournament's zone and the appeal's number.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass

from rulesets.base import Problem
from rulesets.facts import Appeal, Tour, TournamentFacts
from rulesets.messages import Text
from rulesets.messages import text as _
from rulesets.protocol import AppealPolicy

QUESTION_KINDS = ("removal", "accept_answer")

Moment = Callable[[dt.datetime], str]
Earlier = Callable[[int], str]


def iso(moment: dt.datetime) -> str:
    return moment.isoformat()


def position(index: int) -> str:
    return f"appeals[{index}]"


@dataclass(frozen=True)
class Edge:
    """One refusal of an appeal: the key it is about (``filed_at``, ``question``, ...) and why, with the rule."""

    key: str
    message: Text


def _tour(facts: TournamentFacts, appeal: Appeal) -> Tour | None:
    stages = [facts.stage(appeal.stage)] if appeal.stage else list(facts.stages[:1])
    for stage in stages:
        if stage is not None:
            for tour in stage.tours:
                if tour.number == appeal.tour:
                    return tour
    return None


def _has_results(tour: Tour) -> bool:
    return bool(tour.masks or tour.absent)


def target_of(appeal: Appeal) -> tuple | None:
    """What the appeal is about, to compare two appeals: a tour's question, a decision or a penalty."""
    if appeal.kind in QUESTION_KINDS:
        return None if appeal.tour is None or appeal.question is None else ("question", appeal.tour, appeal.question)
    if appeal.kind == "penalty":
        return None if appeal.penalty is None else ("penalty", appeal.penalty)
    if appeal.kind == "decision":
        return None if appeal.decision is None else ("decision", appeal.decision)
    return None


def appellant_of(appeal: Appeal) -> str | None:
    """Who appeals: the team, else the appellant the appeal names."""
    return appeal.team or appeal.appellant or None


def not_played(tour: Tour, team: str | None) -> Text | None:
    """Why ``team`` may not appeal a question of ``tour`` (None: it played it). The host does not play its tour
    (CHGK-7); once the tour's results are in, a team without a mask did not play it (CHGK-10)."""
    if team is None:
        return None
    if team == tour.host:
        return _("%(team)s did not play tour %(tour)s, which it hosted (CHGK-7), and cannot appeal its questions "
                 "(CHGK-20)", team=team, tour=tour.number)
    if _has_results(tour) and team not in {name for name, _mask in tour.masks}:
        return _("%(team)s did not play tour %(tour)s and cannot appeal its questions (CHGK-20)", team=team,
                 tour=tour.number)
    return None


def _opening(facts: TournamentFacts, policy: AppealPolicy, appeal: Appeal, moment: Moment) -> Edge | None:
    if appeal.kind in QUESTION_KINDS:
        tour = _tour(facts, appeal)
        if tour is None:
            return None
        if tour.played_on is None and not _has_results(tour):
            return Edge("tour", _("tour %(tour)s has not been played yet: no appeal on its questions before it "
                                  "(CHGK-18)", tour=tour.number))
    opens = policy.appeal_opens(facts, appeal) if policy.appeal_opens is not None else None
    if opens is None or appeal.filed_at >= opens:
        return None
    filed, start = moment(appeal.filed_at), moment(opens)
    if appeal.kind in QUESTION_KINDS:
        return Edge("filed_at", _("filed %(filed)s, before tour %(tour)s was played: appeals on its questions open "
                                  "at 00:00 of its day, %(opens)s (CHGK-18)", filed=filed, tour=appeal.tour,
                                  opens=start))
    if appeal.kind == "penalty":
        return Edge("filed_at", _("filed %(filed)s, before penalty %(number)s was published at %(opens)s: no appeal "
                                  "before its publication (FL-19)", filed=filed, number=appeal.penalty, opens=start))
    return Edge("filed_at", _("filed %(filed)s, before decision %(number)s was published at %(opens)s: no appeal "
                              "before its publication (%(rule)s)", filed=filed, number=appeal.decision, opens=start,
                              rule=policy.rule))


def _removed(facts: TournamentFacts, index: int, earlier: Earlier) -> Edge | None:
    """CHGK-21: an appeal filed once a removal of its question was upheld (at or after the verdict)."""
    appeal = facts.appeals[index]
    if appeal.kind not in QUESTION_KINDS:
        return None
    target = target_of(appeal)
    for j, other in enumerate(facts.appeals):
        if (j != index and other.kind == "removal" and other.verdict == "accepted" and target_of(other) == target
                and other.decided_at is not None and appeal.filed_at >= other.decided_at):
            return Edge("question", _("question %(question)s of tour %(tour)s was removed when %(earlier)s was upheld "
                                      "(CHGK-21): no new appeal on it", question=appeal.question, tour=appeal.tour,
                                      earlier=earlier(j)))
    return None


def _repeated(facts: TournamentFacts, policy: AppealPolicy, index: int, earlier: Earlier) -> Edge | None:
    """One appeal per team (or appellant), target and kind: the first one, pending or decided, is named."""
    appeal = facts.appeals[index]
    target, who = target_of(appeal), appellant_of(appeal)
    if target is None or who is None:
        return None
    for j in range(index):
        other = facts.appeals[j]
        if other.kind != appeal.kind or target_of(other) != target or appellant_of(other) != who:
            continue
        first = earlier(j)
        if appeal.kind == "removal":
            return Edge("question", _("%(team)s has already asked for the removal of question %(question)s of tour "
                                      "%(tour)s: %(earlier)s; one appeal per team, question and kind (CHGK-19)",
                                      team=who, question=appeal.question, tour=appeal.tour, earlier=first))
        if appeal.kind == "accept_answer":
            return Edge("question", _("%(team)s has already asked to accept its answer to question %(question)s of "
                                      "tour %(tour)s: %(earlier)s; one appeal per team, question and kind (CHGK-19)",
                                      team=who, question=appeal.question, tour=appeal.tour, earlier=first))
        if appeal.kind == "penalty":
            return Edge("penalty", _("%(appellant)s has already appealed penalty %(number)s: %(earlier)s; one appeal "
                                     "per appellant and penalty (FL-19)", appellant=who, number=appeal.penalty,
                                     earlier=first))
        return Edge("decision", _("%(appellant)s has already appealed decision %(number)s: %(earlier)s; one appeal "
                                  "per appellant and decision (%(rule)s)", appellant=who, number=appeal.decision,
                                  earlier=first, rule=policy.rule))
    return None


def edges(facts: TournamentFacts, index: int, policy: AppealPolicy, *, moment: Moment = iso,
          earlier: Earlier = position, played: bool = True) -> list[Edge]:
    """The refusals of ``facts.appeals[index]`` at the edges (``roles.md``) under the ruleset's ``policy``, the
    appeals before it in ``facts.appeals`` as filed before it.

    ``played``: also whether its team played the tour (the import has the ruleset's own check of it)."""
    appeal = facts.appeals[index]
    out: list[Edge] = []
    if played and appeal.kind in QUESTION_KINDS:
        tour = _tour(facts, appeal)
        problem = not_played(tour, appeal.team) if tour is not None else None
        if problem is not None:
            out.append(Edge("team", problem))
    for edge in (_opening(facts, policy, appeal, moment), _removed(facts, index, earlier),
                 _repeated(facts, policy, index, earlier)):
        if edge is not None:
            out.append(edge)
    return out


def document_problems(facts: TournamentFacts, policy: AppealPolicy) -> list[Problem]:
    """The edges of every appeal of a document, at ``appeals[i].key`` (the import)."""
    return [Problem(f"appeals[{i}].{edge.key}", edge.message)
            for i in range(len(facts.appeals)) for edge in edges(facts, i, policy, played=False)]
