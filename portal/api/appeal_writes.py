"""Decisions, appeals and verdicts through the API, on the same services as the pages.

A decision is read by the interchange rules (the same paths and messages as
an imported one) and judged by the ruleset with the decision in place; an
appeal goes through ``appeals.services.file_appeal`` (deadline, who may file,
stored before any mail); a verdict through ``appeals.services.decide``.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework import status
from rest_framework.exceptions import PermissionDenied

import rulesets
from accounts.models import Player
from accounts.permissions import can_decide_appeals, can_record_decisions
from appeals.services import AppealRefused, AppealTarget, decide, file_appeal
from portal.api.common import strip_prefix
from portal.api.writes import WriteRefused, _object, _refuse, judge
from rulesets.base import Problem
from rulesets.interchange import Reader, parse_decision
from tournaments.loader import load_facts
from tournaments.models import Appeal, AppealKind, Decision, Game, Stage, Team, Tour, Tournament


def _tournament(data: dict) -> Tournament:
    slug = data.pop("tournament", None)
    tournament = Tournament.objects.filter(slug=slug).first() if isinstance(slug, str) else None
    if tournament is None:
        raise _refuse("tournament", _("unknown tournament %(slug)r") % {"slug": slug})
    return tournament


def create_decision(user, data: Any) -> Decision:
    """``POST /api/v1/decisions/``: a judge's, commission's or committee's decision as a fact."""
    data = _object(data)
    tournament = _tournament(data)
    if not can_record_decisions(user, tournament):
        raise PermissionDenied(_("Only the tournament's judges, curator or organizers record decisions."))
    data.setdefault("decided_at", timezone.now().isoformat())
    data.setdefault("by", user.get_username())
    with transaction.atomic():
        Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
        index = (Decision.objects.filter(tournament=tournament).order_by("-index").values_list(
            "index", flat=True).first() or 0) + 1
        reader = Reader()
        fdecision = parse_decision(reader, data, "", index)
        if reader.problems or fdecision is None:
            raise WriteRefused(strip_prefix(reader.problems, ""))
        facts = load_facts(tournament)
        after = dataclasses.replace(facts, decisions=facts.decisions + (fdecision,))
        problems = judge(tournament, facts, after, f"decisions[{len(facts.decisions)}]")
        if problems:
            raise WriteRefused(problems)
        stage = Stage.objects.filter(tournament=tournament, key=fdecision.stage).first() if fdecision.stage else None
        return Decision.objects.create(
            tournament=tournament, index=index, kind=fdecision.kind, stage=stage,
            game=Game.objects.filter(stage=stage, number=fdecision.game).first() if stage and fdecision.game else None,
            code=fdecision.code or "", outcome=fdecision.outcome, team=_team(tournament, stage, fdecision.team),
            player=Player.objects.filter(nick=fdecision.player).first() if fdecision.player else None,
            order=list(fdecision.order), reason=fdecision.reason, decided_at=fdecision.decided_at,
            published_at=fdecision.published_at, by=fdecision.by or "", text=fdecision.text, author=user)


def _team(tournament: Tournament, stage: Stage | None, name: str | None) -> Team | None:
    if not name:
        return None
    teams = Team.objects.filter(tournament=tournament, name=name)
    return teams.filter(stage=stage).first() or teams.filter(stage__isnull=True).first() or teams.first()


def create_appeal(user, data: Any) -> Appeal:
    """``POST /api/v1/appeals/``: the appellant's side files (CHGK-20, GP-23, FL-19, CB-17)."""
    data = _object(data)
    tournament = _tournament(data)
    allowed = {"kind", "tour", "question", "team", "answer", "argument", "decision", "appellant"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise WriteRefused([Problem(key, _("unknown key")) for key in unknown])
    if rulesets.get(tournament.ruleset).appeal_policy.question_kinds:
        kind = data.get("kind")
        if kind not in (AppealKind.REMOVAL, AppealKind.ACCEPT_ANSWER):
            raise _refuse("kind", _("a ChGK appeal is removal or accept_answer (CHGK-19)"))
        tour = Tour.objects.filter(stage__tournament=tournament, number=_int(data, "tour")).first()
        if tour is None:
            raise _refuse("tour", _("unknown tour"))
        target = AppealTarget(kind=kind, tour=tour, question=_int(data, "question"))
    else:
        decision = Decision.objects.filter(tournament=tournament, index=_int(data, "decision")).first()
        if decision is None:
            raise _refuse("decision", _("unknown decision"))
        target = AppealTarget(kind=AppealKind.DECISION, decision=decision)
    team = _team(tournament, target.tour.stage if target.tour else target.decision.stage, data.get("team"))
    if team is None:
        team = _own_team(user, tournament)
    try:
        return file_appeal(tournament, user, target, team=team, answer=str(data.get("answer") or ""),
                           argument=str(data.get("argument") or ""), appellant=str(data.get("appellant") or ""))
    except AppealRefused as exc:
        raise WriteRefused([Problem("", str(exc))]) from exc


def _own_team(user, tournament: Tournament) -> Team | None:
    """The team the filer appeals for when none is named: the one they captain, else the one they play for."""
    player = getattr(user, "player", None)
    if player is None:
        return None
    teams = Team.objects.filter(tournament=tournament)
    return (teams.filter(captain=player).order_by("-stage__order").first()
            or teams.filter(roster__player=player).order_by("-stage__order").first())


def record_verdict(user, appeal: Appeal, data: Any) -> Appeal:
    """``POST /api/v1/appeals/ID/verdict/``: only the tournament's appeal jury decides."""
    data = _object(data)
    if not can_decide_appeals(user, appeal.tournament):
        raise PermissionDenied(_("Only the tournament's appeal jury decides this appeal."))
    names = data.get("credited_teams") or []
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise _refuse("credited_teams", _("must be a list of team names"))
    teams = list(Team.objects.filter(tournament=appeal.tournament, name__in=names))
    if len({t.name for t in teams}) != len(set(names)):
        raise _refuse("credited_teams", _("unknown team"))
    try:
        return decide(appeal, user, str(data.get("verdict") or ""), reasons=str(data.get("reasons") or ""),
                      credited=teams)
    except AppealRefused as exc:
        raise WriteRefused([Problem("verdict", str(exc))], status.HTTP_400_BAD_REQUEST) from exc


def _int(data: dict, key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise _refuse(key, _("must be an integer"))
    return value
