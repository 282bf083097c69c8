"""Filing appeals, the jury's queue and verdicts, and the public record of each appeal."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.decorators import login_required
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone

import rulesets
from accounts.models import Player, Role, TournamentRole
from accounts.permissions import (
    appeal_deciders,
    appeal_refusal,
    can_decide_appeal,
    can_see_hidden_appellant,
    refuse_to_file,
)
from appeals.filing import filing_team
from appeals.forms import (
    AppealTargetForm,
    ChgkAppealForm,
    DecisionAppealForm,
    ReplacementDecisionForm,
    ReplacementPenaltyForm,
    VerdictForm,
)
from appeals.services import (
    AppealNotAllowed,
    AppealRefused,
    AppealTarget,
    decide,
    file_appeal,
    filing_deadline,
    question_removed_by,
    verdict_due,
    verdict_given_late,
    verdict_overdue,
)
from scoring.models import StandingsSnapshot
from tournaments.messages import refusal_text
from tournaments.models import Appeal, AppealKind, Decision, Game, Penalty, Team, Tour, Tournament


def _target(request: HttpRequest, tournament: Tournament) -> AppealTarget:
    """The appeal's target from the link (GET) or the filing form's hidden fields (POST); 404 when it names none."""
    form = AppealTargetForm(request.GET if request.method == "GET" else request.POST)
    if not form.is_valid():
        raise Http404("bad appeal target")
    params = form.cleaned_data
    if rulesets.get(tournament.ruleset).appeal_policy.question_kinds:
        if params["tour"] is None or params["question"] is None:
            raise Http404("bad appeal target")
        tour = get_object_or_404(Tour, stage__tournament=tournament, number=params["tour"])
        return AppealTarget(kind=params["kind"] or "accept_answer", tour=tour, question=params["question"])
    if params["penalty"] is not None:  # FL-19: a judge's penalty, by its id
        penalty = get_object_or_404(Penalty.objects.select_related("stage", "game", "team", "player"),
                                    tournament=tournament, pk=params["penalty"], replacement_for=None)
        return AppealTarget(kind=AppealKind.PENALTY, penalty=penalty)
    if params["violation"]:
        if params["game"] is None:
            raise Http404("bad appeal target")
        game = get_object_or_404(Game, stage__tournament=tournament, stage__key=params["stage"], number=params["game"])
        player = Player.objects.filter(nick=params["player"]).first() if params["player"] else None
        return AppealTarget(kind="violation", game=game, violation=params["violation"], player=player)
    if params["decision"] is None:
        raise Http404("bad appeal target")
    decision = get_object_or_404(Decision, tournament=tournament, index=params["decision"], replacement_for=None)
    return AppealTarget(kind="decision", decision=decision)


@login_required
def file_view(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    target = _target(request, tournament)
    deadline = filing_deadline(tournament, target)
    chgk = bool(rulesets.get(tournament.ruleset).appeal_policy.question_kinds)
    form_class = ChgkAppealForm if chgk else DecisionAppealForm
    form = form_class(request.POST or None, initial={"kind": target.kind})
    error = None
    team = filing_team(request.user, tournament)  # the captain's team, or a delegate's (CHGK-20)
    refusal = refuse_to_file(request.user, tournament, team)  # who may file: the refusal page naming the rule
    if refusal:
        return _not_a_filer(request, tournament, refusal)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        if chgk:
            target = AppealTarget(kind=data["kind"], tour=target.tour, question=target.question)
        try:
            appeal = file_appeal(tournament, request.user, target, team=team, answer=data.get("answer", ""),
                                 argument=data["argument"], appellant=data.get("appellant", ""))
        except AppealNotAllowed as exc:  # the delegation ended meanwhile (CHGK-20)
            return _not_a_filer(request, tournament, refusal_text(exc))
        except AppealRefused as exc:
            error = refusal_text(exc)
        else:
            return redirect("appeal-detail", pk=appeal.pk)
    question = None
    if target.tour is not None:
        question = target.tour.question_set.filter(number=target.question).first()
    return render(request, "appeals/file.html", {
        "tournament": tournament, "target": target, "deadline": deadline, "form": form, "error": error,
        "team": team, "question": question, "now": timezone.now(),
    })


def _not_a_filer(request: HttpRequest, tournament: Tournament, text: str) -> HttpResponse:
    """Only a participant files a Mafia appeal, only the captain or a delegate a ChGK one (FL-19, CHGK-20): anyone
    else gets the site's refusal page, naming the rule."""
    return render(request, "appeals/forbidden.html", {"text": text, "tournament": tournament}, status=403)


def detail_view(request: HttpRequest, pk: int) -> HttpResponse:
    appeal = get_object_or_404(Appeal.objects.select_related(
        "tournament", "tour__stage", "team", "decision", "penalty__stage", "penalty__game", "penalty__team",
        "penalty__player", "filed_by__player"), pk=pk)
    tournament = appeal.tournament
    show_team = appeal.verdict is not None or can_see_hidden_appellant(request.user, tournament) or (
        appeal.filed_by_id is not None and appeal.filed_by_id == request.user.pk)
    return render(request, "appeals/detail.html", {
        "appeal": appeal, "tournament": tournament, "show_team": show_team,
        "credited": list(appeal.credited_teams.values_list("name", flat=True)),
        "verdict_due": verdict_due(tournament, appeal), "given_late": verdict_given_late(appeal),
        "overdue": verdict_overdue(appeal),
        "replacement": Decision.objects.filter(replacement_for=appeal).first() if appeal.decision_id else None,
        "changed_penalty": Penalty.objects.filter(replacement_for=appeal).first() if appeal.penalty_id else None,
        "removed_by": question_removed_by(appeal),
        "can_decide": can_decide_appeal(request.user, appeal),
    })


@login_required
def queue_view(request: HttpRequest) -> HttpResponse:
    """The jury's queue: pending appeals of the user's tournaments, oldest first, overdue flagged from 00:00 of D+10
    in the tournament's zone (CHGK-18, the ruleset's ``verdict_overdue``), every time in that zone."""
    roles = TournamentRole.objects.filter(user=request.user).values_list("tournament_id", "tournament__ruleset",
                                                                        "role", "stages")
    query = Q(pk__in=[])
    for tid, ruleset, role, stages in roles:
        if role not in appeal_deciders(ruleset):
            continue
        if role == Role.JUDGE and stages:  # a judge decides the appeals of the role's stages only (CB-17)
            query |= Q(tournament_id=tid, stage__key__in=stages)
        else:
            query |= Q(tournament_id=tid)
    if request.user.is_staff:
        query = Q()
    pending = list(Appeal.objects.filter(query, verdict__isnull=True).select_related(
        "tournament", "tour", "tour__stage", "decision", "penalty").order_by("filed_at")[:200])
    now = timezone.now()
    rows = []
    for appeal in pending:
        due = verdict_due(appeal.tournament, appeal)
        rows.append({"appeal": appeal, "due": due, "overdue": verdict_overdue(appeal, now),
                     "zone": appeal.tournament.timezone, "removed_by": question_removed_by(appeal)})
    return render(request, "appeals/queue.html", {"rows": rows, "now": now})


def ruled_on(appeal: Appeal) -> dict[str, Any]:
    """What a verdict rules on, named in full for the verdict form and the appeal page: the
    decision, the penalty, the detected violation (game, team, player, rule code as the stored table of its
    stage lists it, FL-15) or the tour's question."""
    out: dict[str, Any] = {"decision": appeal.decision, "penalty": appeal.penalty, "game": appeal.game,
                           "tour": appeal.tour, "question": appeal.question, "violation": None}
    if appeal.game_id:
        player = appeal.violating_player.nick if appeal.violating_player_id else None
        team = appeal.team.name if appeal.team_id else None
        listed = StandingsSnapshot.objects.filter(tournament_id=appeal.tournament_id,
                                                  stage_key=appeal.game.stage.key).values_list(
            "details__details__violations", flat=True).first()
        found = next((v for v in listed or [] if isinstance(v, dict) and v.get("game") == appeal.game.number
                      and v.get("kind") == appeal.violation and (v.get("player") or None) == player
                      and (team is None or v.get("team") == team)), None) if isinstance(listed, list) else None
        out["violation"] = {"kind": appeal.violation, "team": (found or {}).get("team") or team, "player": player,
                            "code": (found or {}).get("code") or "", "points": (found or {}).get("points"),
                            "text": (found or {}).get("text") or ""}
    return out


@login_required
def verdict_view(request: HttpRequest, pk: int) -> HttpResponse:
    appeal = get_object_or_404(Appeal.objects.select_related(
        "tournament", "tour__stage", "team", "decision__stage", "decision__game", "decision__team",
        "decision__player", "penalty__stage", "penalty__game", "penalty__team", "penalty__player", "game__stage",
        "violating_player"), pk=pk)
    if not can_decide_appeal(request.user, appeal):
        return render(request, "appeals/forbidden.html", {"text": appeal_refusal(appeal.tournament)}, status=403)
    teams = Team.objects.filter(tournament=appeal.tournament).order_by("name")
    form = VerdictForm(request.POST or None, teams=teams,
                       kind=AppealKind.PENALTY if appeal.penalty_id else appeal.kind)
    # FL-19: a partly upheld appeal against a Mafia decision records the changed decision; against a judge's
    # penalty, the changed penalty
    if appeal.penalty_id:
        changed = ReplacementPenaltyForm(request.POST or None, penalty=appeal.penalty)
    else:
        changed = ReplacementDecisionForm(request.POST or None, decision=appeal.decision) if appeal.decision else None
    error = None
    if request.method == "POST" and form.is_valid():
        credited = list(teams.filter(pk__in=form.cleaned_data.get("credited") or []))
        replacement = (changed.document() if changed is not None and form.cleaned_data["verdict"] == "partly"
                       and changed.is_valid() else None)
        try:
            decide(appeal, request.user, form.cleaned_data["verdict"], reasons=form.cleaned_data["reasons"],
                   credited=credited, replacement=replacement)
        except AppealRefused as exc:
            error = refusal_text(exc)
        else:
            return redirect("appeal-detail", pk=appeal.pk)
    return render(request, "appeals/verdict.html", {"appeal": appeal, "form": form, "error": error,
                                                    "changed": changed, "ruled_on": ruled_on(appeal),
                                                    "removed_by": question_removed_by(appeal),
                                                    "show_team": can_see_hidden_appellant(request.user,
                                                                                          appeal.tournament)})
