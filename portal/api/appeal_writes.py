"""Appeals and verdicts through the API: the JSON body -> ``appeals.services`` commands.

An appeal goes through ``appeals.services.file_appeal`` (deadline, who may
file, stored before any mail); a verdict through ``appeals.services.decide``.
This module only reads the body into the commands' arguments (the target,
the team, the credited teams); a decision is recorded by
``tournaments.commands.record_decision``. Refusals are ``rulesets.errors``
classes, answered by ``portal.api.errors``.
"""

from __future__ import annotations

from typing import Any

from django.utils.translation import gettext as _

import rulesets
from accounts.models import Player
from accounts.permissions import appeal_refusal, can_decide_appeal
from appeals.services import AppealNotAllowed, AppealTarget, decide, file_appeal
from rulesets.base import Problem
from rulesets.errors import Invalid
from tournaments.commands import as_object, refuse, team_named, tournament_of
from tournaments.models import Appeal, AppealKind, Decision, Game, Penalty, Team, Tour, Tournament


def create_appeal(user, data: Any) -> Appeal:
    """``POST /api/v1/appeals/``: the appellant's side files (CHGK-20, GP-23, FL-19, CB-17): on a tour's question,
    against a decision, against a judge's penalty (``penalty``: its id, FL-19) or a detected violation (``stage``,
    ``game``, ``violation``, ``player``: FL-15, FL-19). The checks are the service's, as for the form."""
    data = as_object(data)
    tournament = tournament_of(data)
    allowed = {"kind", "tour", "question", "team", "answer", "argument", "decision", "appellant", "penalty", "stage",
               "game", "violation", "player"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise Invalid([Problem(key, _("unknown key")) for key in unknown])
    if rulesets.get(tournament.ruleset).appeal_policy.question_kinds:
        kind = data.get("kind")
        if kind not in (AppealKind.REMOVAL, AppealKind.ACCEPT_ANSWER):
            raise refuse("kind", _("a ChGK appeal is removal or accept_answer (CHGK-19)"))
        tour = Tour.objects.filter(stage__tournament=tournament, number=_int(data, "tour")).first()
        if tour is None:
            raise refuse("tour", _("unknown tour"))
        target = AppealTarget(kind=kind, tour=tour, question=_int(data, "question"))
    elif data.get("penalty") is not None:
        penalty = Penalty.objects.filter(tournament=tournament, pk=_int(data, "penalty"),
                                         replacement_for=None).select_related("stage").first()
        if penalty is None:
            raise refuse("penalty", _("unknown penalty"))
        target = AppealTarget(kind=AppealKind.PENALTY, penalty=penalty)
    elif data.get("violation") is not None:
        game = Game.objects.filter(stage__tournament=tournament, stage__key=str(data.get("stage") or ""),
                                   number=_int(data, "game")).select_related("stage").first()
        if game is None:
            raise refuse("game", _("unknown game"))
        player = Player.objects.filter(nick=str(data["player"])).first() if data.get("player") else None
        if data.get("player") and player is None:
            raise refuse("player", _("unknown player"))
        target = AppealTarget(kind=AppealKind.VIOLATION, game=game, violation=str(data["violation"]), player=player)
    else:
        decision = Decision.objects.filter(tournament=tournament, index=_int(data, "decision"),
                                           replacement_for=None).first()
        if decision is None:
            raise refuse("decision", _("unknown decision"))
        target = AppealTarget(kind=AppealKind.DECISION, decision=decision)
    owner = target.tour or target.decision or target.penalty or target.game
    team = team_named(tournament, owner.stage, data.get("team"))
    if team is None:
        team = _own_team(user, tournament)
    return file_appeal(tournament, user, target, team=team, answer=str(data.get("answer") or ""),
                       argument=str(data.get("argument") or ""), appellant=str(data.get("appellant") or ""))


def _own_team(user, tournament: Tournament) -> Team | None:
    """The team the filer appeals for when none is named: the one they captain, else the one they play for."""
    player = getattr(user, "player", None)
    if player is None:
        return None
    teams = Team.objects.filter(tournament=tournament)
    return (teams.filter(captain=player).order_by("-stage__order").first()
            or teams.filter(roster__player=player).order_by("-stage__order").first())


def record_verdict(user, appeal: Appeal, data: Any) -> Appeal:
    """``POST /api/v1/appeals/ID/verdict/``: only the appeal's deciders (``accounts.permissions.can_decide_appeal``:
    the jury in ChGK, the curator, in CB also the judge of the appeal's stage)."""
    data = as_object(data)
    if not can_decide_appeal(user, appeal):  # before the body is read, as decide() would refuse
        raise AppealNotAllowed(appeal_refusal(appeal.tournament))
    names = data.get("credited_teams") or []
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise refuse("credited_teams", _("must be a list of team names"))
    teams = list(Team.objects.filter(tournament=appeal.tournament, name__in=names))
    if len({t.name for t in teams}) != len(set(names)):
        raise refuse("credited_teams", _("unknown team"))
    replacement = data.get("replacement")  # FL-19: the changed decision (or penalty) of a partly upheld appeal
    if replacement is not None and not isinstance(replacement, dict):
        raise refuse("replacement", _("must be a penalty object") if appeal.penalty_id else
                     _("must be a decision object"))
    return decide(appeal, user, str(data.get("verdict") or ""), reasons=str(data.get("reasons") or ""),
                  credited=teams, replacement=replacement)


def _int(data: dict, key: str) -> int:
    value = data.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        raise refuse(key, _("must be an integer"))
    return value
