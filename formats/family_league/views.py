"""Family league entry pages: the head's application (FL-1..FL-3) and the organizer's calendar (FL-9).

Who may act: ``accounts.permissions`` (via ``formats.family_league.services``); the
changes are the services of ``formats.family_league.services``, each in one transaction.
"""

from __future__ import annotations

import datetime as dt
import secrets

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext
from django.views.decorators.http import require_http_methods

from accounts.forms import errors_as_messages
from accounts.models import Family
from accounts.permissions import confirmed_player_of, is_head_of, refuse_application
from formats.family_league import families
from formats.family_league import services as entry
from formats.family_league.forms import ApplyForm, CalendarForm, FamilyActionForm, GroupsForm
from tournaments.messages import refusal_text
from tournaments.models import GroupTeam, RosterEntry, Stage, Tournament


def _forbidden(request: HttpRequest, text: str) -> HttpResponse:
    return render(request, "accounts/forbidden.html", {"text": text}, status=403)


def _ics_url(tournament: Tournament, stage_key: str | None = None) -> str:
    url = reverse("api-schedule-ics", kwargs={"slug": tournament.slug})
    return f"{url}?stage={stage_key}" if stage_key else url


@login_required
@require_http_methods(["GET", "POST"])
def apply_view(request: HttpRequest, slug: str) -> HttpResponse:
    """The family's head applies and sees the FL-3 warnings of the roster and the FL-2 count."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if tournament.ruleset != entry.RULESET:
        return _forbidden(request, _("Applications by family are taken only for the family league."))
    headed = entry.families_headed_by(request.user)
    form = ApplyForm(request.POST if request.method == "POST" else None)
    chosen = form.cleaned_data["family"] if form.is_valid() else None
    wanted = str(chosen) if chosen else request.GET.get("family")
    family = next((f for f in headed if str(f.pk) == wanted), headed[0] if headed else None)
    if family is None:
        return _forbidden(request, _("Only the head of a family may apply for the family league (FL-1)."))
    refusal = refuse_application(request.user, family)
    if refusal is not None:
        return _forbidden(request, refusal)
    if request.method == "POST":
        if not form.is_valid():
            errors_as_messages(request, form)
            return redirect(f"{reverse('family-apply', args=[tournament.slug])}?family={family.pk}")
        try:
            entry.apply(request.user, tournament, family, form.cleaned_data["players"])
        except entry.EntryRefused as exc:
            return _forbidden(request, refusal_text(exc))
        messages.success(request, _("%(family)s has applied.") % {"family": family.name})
        return redirect(f"{reverse('family-apply', args=[tournament.slug])}?family={family.pk}")
    team = entry.family_team(tournament, family)
    members = entry.current_members(family)
    if team is not None:
        roster = [e.player for e in RosterEntry.objects.filter(team=team, left_at__isnull=True)
                  .select_related("player").order_by("order")]
        problems = entry.warnings_for(tournament)
        team_name = team.name
    else:
        roster = members
        problems = entry.warnings_for(tournament, extra=(family.name, family, members))
        team_name = family.name
    zone = entry.zone_of(tournament)
    return render(request, "family_league/apply.html", {
        "tournament": tournament, "family": family, "families": headed, "team": team, "roster": roster,
        "members": members,
        "warnings": [entry.warning_text(w, {team_name: family.name}) for w in problems if w.team == team_name],
        "applications": entry.applications(tournament),
        "refusal": entry.refuse(request.user, tournament, family) if team is None else None,
        "zone": zone.key, "start": entry.official_start(tournament), "ics_url": _ics_url(tournament),
    })


def _starts_on(request: HttpRequest, tournament: Tournament, stage: Stage, posted: dt.date | None = None) -> dt.date:
    """The posted first day, else the previewed one (``?starts_on=``), else the first scheduled game's day."""
    if posted is not None:
        return posted
    raw = request.GET.get("starts_on")
    if raw:
        try:
            return dt.date.fromisoformat(raw)
        except ValueError:
            pass
    first = stage.games.filter(scheduled_at__isnull=False).order_by("scheduled_at").values_list(
        "scheduled_at", flat=True).first()
    if first is not None:
        return first.astimezone(entry.zone_of(tournament)).date()
    return tournament.starts_on or timezone.now().astimezone(entry.zone_of(tournament)).date()


@login_required
@require_http_methods(["GET", "POST"])
def calendar_view(request: HttpRequest, slug: str, stage_key: str) -> HttpResponse:
    """The organizer generates a stage's calendar of scheduled games (FL-9)."""
    tournament = get_object_or_404(Tournament, slug=slug)
    stage = get_object_or_404(Stage, tournament=tournament, key=stage_key)
    if tournament.ruleset != entry.RULESET:
        return _forbidden(request, _("The calendar is generated only for the family league."))
    if not entry.can_manage_calendar(request.user, tournament):
        return _forbidden(request, _("Only the tournament's organizer or curator generates its calendar (FL-9)."))
    form = CalendarForm(request.POST if request.method == "POST" else None)
    if request.method == "POST" and not form.is_valid():
        errors_as_messages(request, form)
        return redirect(reverse("family-calendar", args=[tournament.slug, stage.key]))
    starts_on = _starts_on(request, tournament, stage, form.cleaned_data["starts_on"] if form.is_bound else None)
    if request.method == "POST":
        try:
            games = entry.generate_stage_calendar(request.user, tournament, stage, starts_on)
        except entry.EntryRefused as exc:
            return _forbidden(request, refusal_text(exc))
        messages.success(request, ngettext("The calendar of %(count)d game is generated.",
                                           "The calendar of %(count)d games is generated.", len(games))
                         % {"count": len(games)})
        return redirect(f"{reverse('family-calendar', args=[tournament.slug, stage.key])}"
                        f"?starts_on={starts_on.isoformat()}")
    return render(request, "family_league/calendar.html", {
        "tournament": tournament, "stage": stage, "starts_on": starts_on,
        "slots": entry.preview_calendar(tournament, stage, starts_on),
        "scheduled": stage.games.count(), "locked": entry.stage_has_results(stage),
        "zone": entry.zone_of(tournament).key, "ics_url": _ics_url(tournament, stage.key),
    })


@login_required
@require_http_methods(["GET", "POST"])
def groups_view(request: HttpRequest, slug: str) -> HttpResponse:
    """The organizer draws the qualifying groups with a public seed (FL-8)."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if tournament.ruleset != entry.RULESET:
        return _forbidden(request, _("The calendar is generated only for the family league."))
    if not entry.can_manage_calendar(request.user, tournament):
        return _forbidden(request, _("Only the tournament's organizer or curator draws its qualifying groups (FL-8)."))
    if request.method == "POST":
        form = GroupsForm(request.POST)
        if not form.is_valid():
            errors_as_messages(request, form)
            return redirect(reverse("family-groups", args=[tournament.slug]))
        seed = form.cleaned_data["seed"]
        try:
            entry.draw_qualifying_groups(request.user, tournament, seed)
        except entry.EntryRefused as exc:
            return _forbidden(request, refusal_text(exc))
        messages.success(request, _("The groups are drawn with the seed %(seed)s (FL-8).") % {"seed": seed})
        return redirect(reverse("family-groups", args=[tournament.slug]))
    stage = Stage.objects.filter(tournament=tournament, key="qualifying").first()
    rows = list(GroupTeam.objects.filter(group__stage=stage).select_related("group", "team").order_by(
        "group__order", "order")) if stage else []
    groups: dict[str, list[str]] = {}
    for row in rows:
        groups.setdefault(row.group.name, []).append(row.team.name)
    return render(request, "family_league/groups.html", {
        "tournament": tournament, "stage": stage, "groups": groups, "suggested_seed": secrets.token_hex(4)})


# ---------------------------------------------------------------- families

FAMILY_ACTIONS = {
    "request": lambda user, family, _pk: families.request_to_join(user, family),
    "withdraw": lambda user, family, _pk: families.withdraw_request(user, family),
    "leave": lambda user, family, _pk: families.leave(user, family),
    "accept": families.accept_request,
    "refuse": families.refuse_request,
}
FAMILY_DONE = {
    "request": gettext_lazy("Your request is sent to the family's head."),
    "withdraw": gettext_lazy("Your request is withdrawn."),
    "leave": gettext_lazy("You have left the family."),
    "accept": gettext_lazy("The player is now a member."),
    "refuse": gettext_lazy("The request is refused."),
}


@require_http_methods(["GET", "POST"])
def family_view(request: HttpRequest, pk: int) -> HttpResponse:
    family = get_object_or_404(Family.objects.select_related("head"), pk=pk)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect(f"{_login_url()}?next={request.path}")
        form = FamilyActionForm(request.POST)
        if not form.is_valid():
            errors_as_messages(request, form)
            return redirect("family", pk=family.pk)
        action = form.cleaned_data["action"]
        try:
            FAMILY_ACTIONS[action](request.user, family, form.cleaned_data["membership"])
        except families.FamilyRefused as exc:
            messages.error(request, refusal_text(exc))
        else:
            messages.success(request, str(FAMILY_DONE[action]))
        return redirect("family", pk=family.pk)
    rows = list(family.memberships.select_related("player").order_by("joined_on", "pk"))
    members = [m for m in rows if m.joined_on is not None]
    head = is_head_of(request.user, family)
    me = confirmed_player_of(request.user)
    mine = [m for m in rows if me is not None and m.player_id == me.pk]
    return render(request, "family_league/family.html", {
        "family": family, "members": members, "is_head": head,
        "requests": [m for m in rows if m.joined_on is None and m.left_on is None] if head or (
            request.user.is_staff) else [],
        "me": me, "member_now": any(m.joined_on and m.left_on is None for m in mine),
        "requested": any(m.joined_on is None and m.left_on is None for m in mine),
        "signed_in": request.user.is_authenticated,
    })


def _login_url() -> str:
    return settings.LOGIN_URL


