"""A tournament's roles page: its organizers grant and revoke every role of ``spec/roles.md``.

The tournament's own roles (organizer, judge with its stages, curator, jury ...), its teams' captains and its
families' heads, each changed through ``tournaments.grants`` (one transaction, in the tournament's history). Only
the organizers and staff open the page; anyone else gets the styled 403 with the rule, and nothing changes. Each
form posts its ``action`` and the page answers by redirecting to itself with what was done, or why not.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from accounts.forms import ActionForm, errors_as_messages
from accounts.models import Role
from accounts.permissions import has_role
from rulesets.errors import NotAllowed, Refused
from tournaments import grants
from tournaments.labels import stage_label
from tournaments.messages import refusal_text
from tournaments.models import Tournament


def _role_choices() -> list[tuple[str, Any]]:
    return [(role, Role(role).label) for role in grants.TOURNAMENT_ROLES]


class GrantForm(forms.Form):
    user = forms.CharField(label=gettext_lazy("User name"), max_length=150)
    role = forms.ChoiceField(label=gettext_lazy("Role"), choices=_role_choices)
    stages = forms.MultipleChoiceField(label=gettext_lazy("Stages"), required=False,
                                       widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, tournament: Tournament, stages: list | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["stages"].choices = [(stage.key, stage_label(stage.key)) for stage in (
            stages if stages is not None else tournament.stages.order_by("order", "pk"))]


class RevokeForm(forms.Form):
    user = forms.CharField(label=gettext_lazy("User name"), max_length=150)
    role = forms.ChoiceField(label=gettext_lazy("Role"), choices=_role_choices)


class CaptainForm(forms.Form):
    team = forms.IntegerField(label=gettext_lazy("Team"), min_value=1, max_value=grants.MAX_ID)
    player = forms.CharField(label=gettext_lazy("Captain"), max_length=100, required=False)


class HeadForm(forms.Form):
    family = forms.IntegerField(label=gettext_lazy("Family"), min_value=1, max_value=grants.MAX_ID)
    player = forms.CharField(label=gettext_lazy("Family head"), max_length=100, required=False)


def _grant(request: HttpRequest, tournament: Tournament, data: dict) -> str | None:
    row, changed = grants.grant_role(request.user, tournament, data["user"], data["role"], data["stages"])
    words = {"user": row.user.username, "role": row.get_role_display()}
    if not changed:
        messages.info(request, _("%(user)s already holds the role %(role)s as it is.") % words)
    else:
        messages.success(request, _("%(user)s holds the role %(role)s.") % words)


def _revoke(request: HttpRequest, tournament: Tournament, data: dict) -> str | None:
    row = grants.revoke_role(request.user, tournament, data["user"], data["role"])
    messages.success(request, _("%(user)s no longer holds the role %(role)s.") % {
        "user": row.user.username, "role": row.get_role_display()})
    if row.user_id == request.user.pk and row.role == Role.ORGANIZER and not request.user.is_staff:
        return tournament.get_absolute_url()  # this page is no longer theirs
    return None


def _captain(request: HttpRequest, tournament: Tournament, data: dict) -> str | None:
    team, changed = grants.set_captain(request.user, grants.team_of(tournament, data["team"]), data["player"])
    if not changed:
        messages.info(request, _("Nothing changed."))
    elif team.captain_id:
        messages.success(request, _("%(player)s is the captain of %(team)s.") % {"player": team.captain.nick,
                                                                                  "team": team.name})
    else:
        messages.success(request, _("%(team)s has no captain now.") % {"team": team.name})


def _head(request: HttpRequest, tournament: Tournament, data: dict) -> str | None:
    family, changed = grants.set_family_head(request.user, tournament, grants.family_of(tournament, data["family"]),
                                             data["player"])
    if not changed:
        messages.info(request, _("Nothing changed."))
    elif family.head_id:
        messages.success(request, _("%(player)s heads %(family)s.") % {"player": family.head.nick,
                                                                        "family": family.name})
    else:
        messages.success(request, _("%(family)s has no head now.") % {"family": family.name})


# each act answers where to go next (None: back to this page)
ACTIONS: dict[str, tuple[type[forms.Form], Callable[[HttpRequest, Tournament, dict], str | None]]] = {
    "grant": (GrantForm, _grant), "revoke": (RevokeForm, _revoke), "captain": (CaptainForm, _captain),
    "head": (HeadForm, _head),
}


def _forbidden(request: HttpRequest, text: str) -> HttpResponse:
    return render(request, "accounts/forbidden.html", {"text": text}, status=403)


def _act(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    chosen = ActionForm(request.POST, actions=tuple(ACTIONS))
    if not chosen.is_valid():
        errors_as_messages(request, chosen)
        return redirect("tournament-roles", slug=tournament.slug)
    form_class, act = ACTIONS[chosen.cleaned_data["action"]]
    extra = {"tournament": tournament} if form_class is GrantForm else {}
    form = form_class(request.POST, **extra)
    if not form.is_valid():
        errors_as_messages(request, form)
        return redirect("tournament-roles", slug=tournament.slug)
    try:
        then = act(request, tournament, form.cleaned_data)
    except NotAllowed as refusal:
        return _forbidden(request, refusal_text(refusal))
    except Refused as refusal:
        messages.error(request, refusal_text(refusal))
        then = None
    return redirect(then or reverse("tournament-roles", args=[tournament.slug]))


def _rows(held: grants.Holders) -> dict[str, Any]:
    every = _("every stage")
    return {
        "grants": [{"row": row, "player": getattr(row.user, "player", None),
                    "stages": (", ".join(stage_label(key) for key in row.stages) or every)
                    if row.role == Role.JUDGE else ""} for row in held.roles],
        "teams": [{"team": team, "stage": stage_label(team.stage.key) if team.stage_id else "",
                   "roster": held.rosters.get(team.pk, [])} for team in held.teams],
        "families": held.families,
    }


@login_required
@require_http_methods(["GET", "POST"])
def roles_view(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not has_role(request.user, tournament, Role.ORGANIZER):
        return _forbidden(request, grants.rule_text(tournament))
    if request.method == "POST":
        return _act(request, tournament)
    held = grants.holders(tournament)
    return render(request, "accounts/roles.html", {
        "tournament": tournament, "form": GrantForm(tournament=tournament, stages=held.stages),
        "judge": Role.JUDGE, **_rows(held),
    })
