"""``/accounts/dashboard/<slug>/structure/``: the organizer builds a tournament's structure.

The page lists the stages with their groups, tours (ChGK) and game slots (Mafia), and posts one form per button to
the commands of ``tournaments.structure``; a refusal is shown above the forms with the field it names, with the
status of its kind (``portal.api.errors.STATUS``). Those who see the dashboard see the page; only the organizers
(and staff) write, anyone else gets the refusal page (403) and nothing changes.

A format's own per-stage act is looked up by the tournament's ruleset (``portal.stage_registration``): the Grand
Prix opens registration per stage once its conditions are published (GP-2) and closes it stage by stage (GP-5).
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.db.models import Min, Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.text import capfirst
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

import rulesets
from accounts.forms import ActionForm, form_problems
from accounts.models import Role
from accounts.permissions import can_see_dashboard, has_role
from accounts.zones import zone_caption
from formats import registry
from portal import forms_structure as sf
from portal.api.errors import status_of
from rulesets.errors import NotAllowed, Refused
from tournaments import structure
from tournaments.messages import render as message_text
from tournaments.models import Game, Group, GroupTeam, Stage, Team, Tour, Tournament

LABELS = {
    "key": gettext_lazy("stage key"), "order": gettext_lazy("order"), "seed": gettext_lazy("public draw seed"),
    "name": gettext_lazy("group name"), "group": gettext_lazy("group"), "team": gettext_lazy("team"),
    "number": gettext_lazy("number"), "host": gettext_lazy("host team"), "played_on": gettext_lazy("played on"),
    "questions": gettext_lazy("questions"), "scheduled_at": gettext_lazy("scheduled at"),
    "registration_deadline": gettext_lazy("registration deadline"),
    "published_at": gettext_lazy("schedule published at"), "status": gettext_lazy("status"),
}


class Refusal(Exception):
    """A form that could not be read: its problems, one line each."""

    def __init__(self, lines: list[str]):
        super().__init__("; ".join(lines))
        self.lines = lines


def _forbidden(request: HttpRequest, tournament: Tournament, text: str) -> HttpResponse:
    return render(request, "accounts/forbidden.html", {"text": text, "tournament": tournament}, status=403)


def _lines(refused: Refused) -> list[str]:
    """A refusal's problems in words, each after the field it names."""
    out = []
    for problem in refused.located():
        text = message_text(problem.message)
        label = LABELS.get(problem.path.split(".")[0]) if problem.path else None
        out.append(f"{capfirst(str(label))}: {text}" if label else text)
    return out


def _read(form: forms.Form) -> dict[str, Any]:
    if not form.is_valid():
        raise Refusal(form_problems(form))
    return form.cleaned_data


def _stages(tournament: Tournament) -> list[Stage]:
    """The stages with everything the page lists, in a fixed number of queries."""
    groups = Group.objects.order_by("order", "pk").prefetch_related(
        Prefetch("groupteam_set", queryset=GroupTeam.objects.select_related("team").order_by("order", "pk")))
    return list(Stage.objects.filter(tournament=tournament).annotate(starts_at=Min("games__scheduled_at")).order_by(
        "order", "pk").prefetch_related(
        Prefetch("groups", queryset=groups),
        Prefetch("tours", queryset=Tour.objects.select_related("host").order_by("number")),
        Prefetch("games", queryset=Game.objects.select_related("group").only(
            "pk", "stage_id", "number", "status", "scheduled_at", "group__name", "group_label").order_by("number"))))


def _picked(rows: list[Any], pk: int) -> Any:
    return next(row for row in rows if row.pk == pk)


def _act(request: HttpRequest, tournament: Tournament, stages: list[Stage], teams: list[Team]) -> str:
    """Do what the POST asks; the success message. Raises ``Refused`` or ``Refusal``."""
    user = request.user
    action = _read(ActionForm(request.POST, actions=sf.ACTIONS))["action"]
    ruleset = rulesets.get(tournament.ruleset)
    groups = [g for s in stages for g in s.groups.all()]
    for group in groups:
        group.stage = _picked(stages, group.stage_id)
    if action == "add_stage":
        data = _read(sf.StageForm(request.POST, keys=ruleset.stage_keys))
        stage = structure.add_stage(user, tournament, data["key"], order=data["order"], seed=data["seed"])
        return _("Stage %(key)s is added.") % {"key": stage.key}
    if action in ("edit_stage", "publish", "delete_stage", "open_stage_registration", "close_stage_registration"):
        stage = _picked(stages, _read(sf.StageRefForm(request.POST, stages=stages))["stage"])
        stage.tournament = tournament
        if action == "edit_stage":
            data = _read(sf.StageForm(request.POST, keys=ruleset.stage_keys))
            structure.update_stage(user, stage, key=data["key"], order=data["order"], seed=data["seed"])
            return _("Stage %(key)s is saved.") % {"key": stage.key}
        if action == "publish":
            structure.publish_schedule(user, stage)
            return _("The schedule of stage %(key)s is published.") % {"key": stage.key}
        if action == "delete_stage":
            structure.delete_stage(user, stage)
            return _("Stage %(key)s is deleted.") % {"key": stage.key}
        per_stage = registry.get(tournament.ruleset).stage_registration
        if per_stage is None:
            raise Refusal([_("Registration of %(tournament)s is per tournament, not per stage.")
                           % {"tournament": tournament.name}])
        if action == "close_stage_registration":
            structure.run_stage_act(user, stage, per_stage.close)
            return _("Registration for stage %(key)s is closed, and so are its invitations (%(rule)s).") % {
                "key": stage.key, "rule": per_stage.rule}
        structure.run_stage_act(user, stage, per_stage.open)
        return _("Registration for stage %(key)s is open (%(rule)s).") % {"key": stage.key, "rule": per_stage.rule}
    if action == "add_group":
        data = _read(sf.GroupForm(request.POST, stages=stages))
        stage = _picked(stages, data["stage"])
        stage.tournament = tournament
        group = structure.add_group(user, stage, data["name"])
        return _("Group %(name)s is added to stage %(key)s.") % {"name": group.name, "key": stage.key}
    if action in ("rename_group", "delete_group"):
        data = _read(sf.GroupRefForm(request.POST, groups=groups))
        group = _picked(groups, data["group"])
        group.stage.tournament = tournament
        if action == "delete_group":
            structure.delete_group(user, group)
            return _("Group %(name)s is deleted.") % {"name": group.name}
        structure.rename_group(user, group, data["name"])
        return _("The group is renamed %(name)s.") % {"name": group.name}
    if action in ("group_team", "ungroup_team"):
        data = _read(sf.GroupTeamForm(request.POST, groups=groups, teams=teams))
        group, team = _picked(groups, data["group"]), _picked(teams, data["team"])
        group.stage.tournament = tournament
        if action == "ungroup_team":
            structure.remove_team_from_group(user, group, team)
            return _("%(team)s has left group %(name)s.") % {"team": team.name, "name": group.name}
        structure.put_team_in_group(user, group, team)
        return _("%(team)s is in group %(name)s.") % {"team": team.name, "name": group.name}
    if action in ("add_tour", "edit_tour"):
        return _tour_act(request, tournament, stages, teams, action)
    if action == "delete_game":
        games = [game for s in stages for game in s.games.all()]
        game = _picked(games, _read(sf.GameRefForm(request.POST, games=games))["game"])
        game.stage = _picked(stages, game.stage_id)
        game.stage.tournament = tournament
        structure.delete_game_slot(user, game)
        return _("Game %(number)s of stage %(key)s is deleted.") % {"number": game.number, "key": game.stage.key}
    if action == "add_game":
        data = _read(sf.GameSlotForm(request.POST, stages=stages, groups=groups, zone=tournament.timezone))
        stage = _picked(stages, data["stage"])
        stage.tournament = tournament
        group = _picked(groups, data["group"]) if data["group"] is not None else None
        game = structure.add_game_slot(user, stage, data["number"], group=group, scheduled_at=data["scheduled_at"])
        return _("Game %(number)s of stage %(key)s is scheduled.") % {"number": game.number, "key": stage.key}
    if action == "open_registration":
        data = _read(sf.RegistrationForm(request.POST, zone=tournament.timezone))
        structure.open_registration(user, tournament, data["registration_deadline"])
        return _("Registration is open.")
    structure.close_registration(user, tournament)
    return _("Registration is closed.")


def _tour_act(request: HttpRequest, tournament: Tournament, stages: list[Stage], teams: list[Team],
              action: str) -> str:
    own_teams = [t for t in teams if t.stage_id is None]
    data = _read(sf.TourForm(request.POST, stages=stages, teams=own_teams))
    host = _picked(own_teams, data["host"]) if data["host"] is not None else None
    if action == "add_tour":
        if data["stage"] is None:
            raise Refusal([_("Stage: add the stage the tours are played in first.") if not stages else
                           _("Stage: choose the stage of the tour.")])
        stage = _picked(stages, data["stage"])
        stage.tournament = tournament
        tour = structure.add_tour(user=request.user, stage=stage, number=data["number"], host=host,
                                  played_on=data["played_on"], questions=data["questions"])
        return _("Tour %(number)s is added.") % {"number": tour.number}
    tours = [t for s in stages for t in s.tours.all()]
    tour = next((t for t in tours if t.pk == data["tour"]), None)
    if tour is None:
        raise Refusal([_("Choose the tour to change.")])
    tour.stage = _picked(stages, tour.stage_id)
    tour.stage.tournament = tournament
    tour = structure.update_tour(request.user, tour, number=data["number"], host=host, played_on=data["played_on"],
                                 questions=data["questions"])
    return _("Tour %(number)s is saved.") % {"number": tour.number}


def _page(request: HttpRequest, tournament: Tournament, stages: list[Stage], teams: list[Team],
          problems: list[str], status: int = 200) -> HttpResponse:
    ruleset = rulesets.get(tournament.ruleset)
    per_stage = registry.get(tournament.ruleset).stage_registration
    rows = []
    for stage in stages:
        games = list(stage.games.all())
        lateness = structure.publication_lateness(tournament, stage.published_at, stage.starts_at)
        rows.append({
            "stage": stage, "groups": list(stage.groups.all()), "tours": [{
                "tour": tour, "entry": reverse("tour-entry", args=[tournament.slug, tour.number]),
                "questions": reverse("chgk-questions", args=[tournament.slug, tour.number])}
                for tour in stage.tours.all()],
            "games": [{"game": game, "entry": reverse("game-entry", args=[tournament.slug, stage.key, game.number])}
                      for game in games],
            "new_game": reverse("game-new", args=[tournament.slug, stage.key]),
            "lateness": lateness,
            "registration": None if per_stage is None else {
                "open": per_stage.is_open(stage), "rule": per_stage.rule,
                "url": reverse(per_stage.url_name, args=[tournament.slug, stage.key])},
        })
    used = {stage.key for stage in stages}
    tours = ruleset.rounds == "tours"
    own_teams = [t for t in teams if t.stage_id is None]
    last_tour = max((t.number for s in stages for t in s.tours.all()), default=0)
    return render(request, "accounts/structure.html", {
        "tournament": tournament, "rows": rows, "problems": problems, "teams": teams, "own_teams": own_teams,
        "free_keys": [key for key in ruleset.stage_keys if key not in used], "stage_keys": ruleset.stage_keys,
        "plays_tours": tours, "plays_games": not tours, "per_stage": per_stage,
        "may_write": has_role(request.user, tournament, Role.ORGANIZER),
        "registration_open": structure.registration_is_open(tournament),
        "next_tour": last_tour + 1, "default_questions": structure.default_questions(tournament),
        "hosting": reverse("chgk-hosting", args=[tournament.slug]) if tours else None,
        "zone": zone_caption(tournament.timezone), "now": timezone.now(),
    }, status=status)


def structure_view(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not can_see_dashboard(request.user, tournament):
        return _forbidden(request, tournament, _("Only the organizers, curators and judges of %(tournament)s see "
                                                 "its structure; only its organizers change it.")
                          % {"tournament": tournament.name})
    stages = _stages(tournament)
    teams = list(Team.objects.filter(tournament=tournament).select_related("stage").order_by(
        "stage__order", "order", "name"))
    if request.method != "POST":
        return _page(request, tournament, stages, teams, [])
    try:
        structure.require_organizer(request.user, tournament)
        done = _act(request, tournament, stages, teams)
    except NotAllowed as refused:
        return _forbidden(request, tournament, message_text(refused.message))
    except Refused as refused:
        return _page(request, tournament, stages, teams, _lines(refused), status=status_of(refused))
    except Refusal as refusal:
        return _page(request, tournament, stages, teams, refusal.lines, status=400)
    messages.success(request, done)
    return redirect("tournament-structure", slug=tournament.slug)
