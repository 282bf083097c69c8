"""Pages where people act for themselves: claims, merges, family pages, captains' team pages (issue 10).

Who may act is decided in ``accounts.permissions`` (to join
``accounts.permissions``); the changes themselves are the services of
``accounts.claims``, ``accounts.merge``, ``accounts.families`` and
``accounts.captains``, each in one transaction.
"""

from __future__ import annotations

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_http_methods

from accounts import captains, claims, families
from accounts.forms import AddPlayersForm, CaptainForm, LineUpForm, MergeForm, ReplaceForm
from accounts.merge import MergeRefused, merge_players
from accounts.models import Family, FamilyMembership, Player
from accounts.permissions import (
    can_manage_team,
    can_merge_players,
    claims_decidable_by,
    confirmed_player_of,
    is_head_of,
)
from tournaments.models import Participant, Team


def _forbidden(request: HttpRequest, text: str) -> HttpResponse:
    return render(request, "accounts/forbidden.html", {"text": text}, status=403)


# ---------------------------------------------------------------- claims

@login_required
@require_http_methods(["GET", "POST"])
def claims_view(request: HttpRequest) -> HttpResponse:
    """Pending claims the user may decide: as an organizer of a tournament the player played in, or as head."""
    if request.method == "POST":
        player = get_object_or_404(Player, pk=request.POST.get("player") or 0)
        nick = player.nick
        try:
            if request.POST.get("decision") == "confirm":
                claims.confirm(request.user, player)
                messages.success(request, _("The claim of %(nick)s is confirmed.") % {"nick": nick})
            else:
                claims.refuse(request.user, player)
                messages.success(request, _("The claim of %(nick)s is refused; the nick is free.") % {"nick": nick})
        except claims.ClaimRefused as exc:
            return _forbidden(request, str(exc))
        return redirect("claims")
    pending = list(claims_decidable_by(request.user).select_related("user").prefetch_related(
        Prefetch("participations", queryset=Participant.objects.select_related("tournament").order_by(
            "-tournament__starts_on")),
        Prefetch("memberships", queryset=FamilyMembership.objects.filter(
            joined_on__isnull=False, left_on__isnull=True).select_related("family")),
    ).order_by("nick")[:200])
    return render(request, "accounts/claims.html", {"pending": pending})


# ---------------------------------------------------------------- merge

@login_required
@require_http_methods(["GET", "POST"])
def merge_view(request: HttpRequest) -> HttpResponse:
    if not can_merge_players(request.user):
        return _forbidden(request, _("Only site staff merge players."))
    form = MergeForm(request.POST or None, initial=request.GET or None)
    if request.method == "POST" and form.is_valid():
        duplicate, target = form.cleaned_data["duplicate"], form.cleaned_data["target"]
        try:
            result = merge_players(duplicate, target, user=request.user)
        except MergeRefused as exc:
            form.add_error(None, str(exc))
        else:
            messages.success(request, _("%(duplicate)s is merged into %(target)s.") % {
                "duplicate": result["merged"], "target": target.nick})
            return redirect("player", pk=target.pk)
    return render(request, "accounts/merge.html", {"form": form})


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
        action = request.POST.get("action", "")
        if action not in FAMILY_ACTIONS:
            return _forbidden(request, _("Unknown action."))
        try:
            member_id = int(request.POST.get("membership") or 0)
            FAMILY_ACTIONS[action](request.user, family, member_id)
        except families.FamilyRefused as exc:
            messages.error(request, str(exc))
        except ValueError:
            messages.error(request, _("Unknown join request."))
        else:
            messages.success(request, str(FAMILY_DONE[action]))
        return redirect("family", pk=family.pk)
    rows = list(family.memberships.select_related("player").order_by("joined_on", "pk"))
    members = [m for m in rows if m.joined_on is not None]
    head = is_head_of(request.user, family)
    me = confirmed_player_of(request.user)
    mine = [m for m in rows if me is not None and m.player_id == me.pk]
    return render(request, "accounts/family.html", {
        "family": family, "members": members, "is_head": head,
        "requests": [m for m in rows if m.joined_on is None and m.left_on is None] if head or (
            request.user.is_staff) else [],
        "me": me, "member_now": any(m.joined_on and m.left_on is None for m in mine),
        "requested": any(m.joined_on is None and m.left_on is None for m in mine),
        "signed_in": request.user.is_authenticated,
    })


def _login_url() -> str:
    return settings.LOGIN_URL


# ---------------------------------------------------------------- teams

@login_required
@require_http_methods(["GET", "POST"])
def team_manage_view(request: HttpRequest, pk: int) -> HttpResponse:
    team = get_object_or_404(Team.objects.select_related("tournament", "captain", "stage"), pk=pk)
    if not can_manage_team(request.user, team):
        return _forbidden(request, _("Only the captain of %(team)s manages it.") % {"team": team.name})
    action = request.POST.get("action", "") if request.method == "POST" else ""
    state = captains.roster_state(team)
    add_form = AddPlayersForm(request.POST if action == "add" else None, prefix="add")
    replace_form = ReplaceForm(request.POST if action == "replace" else None, prefix="replace",
                               entries=state.current)
    captain_form = CaptainForm(request.POST if action == "captain" else None, prefix="captain",
                               entries=state.current, captain_id=team.captain_id)
    is_chgk = team.tournament.ruleset == captains.CHGK
    tour = captains.next_tour(team) if is_chgk else None
    line_ups = captains.stored_line_ups(team) if is_chgk else []
    current_line_up = next((lu for lu in line_ups if tour is not None and lu.tour_id == tour.pk), None)
    line_up_form = LineUpForm(request.POST if action == "line_up" else None, prefix="line_up", initial={
        "line_up": "\n\n".join("\n".join(seg) for seg in current_line_up.segments) if current_line_up else ""})
    problems: list[str] = []
    line_up_checked = False
    try:
        if action == "add" and add_form.is_valid():
            added = captains.add_players(request.user, team, add_form.cleaned_data["names"])
            messages.success(request, _("Added: %(names)s.") % {"names": ", ".join(e.player.nick for e in added)})
            return redirect("team-manage", pk=team.pk)
        if action == "replace" and replace_form.is_valid():
            entry = captains.replace_player(request.user, team, replace_form.cleaned_data["old"],
                                            replace_form.cleaned_data["new"])
            messages.success(request, _("%(name)s joins the roster as a replacement.") % {"name": entry.player.nick})
            return redirect("team-manage", pk=team.pk)
        if action == "captain" and captain_form.is_valid():
            team = captains.hand_over_captaincy(request.user, team, captain_form.cleaned_data["player"])
            messages.success(request, _("%(name)s is the captain now.") % {"name": team.captain.nick})
            if not can_manage_team(request.user, team):
                return redirect("team", slug=team.tournament.slug, pk=team.pk)
            return redirect("team-manage", pk=team.pk)
        if action == "line_up" and line_up_form.is_valid() and tour is None:
            problems = captains.check_line_up(team, line_up_form.cleaned_data["line_up"])
            line_up_checked = True
        elif action == "line_up" and line_up_form.is_valid():
            stored = captains.store_line_up(request.user, team, line_up_form.cleaned_data["line_up"])
            messages.success(request, _("The line-up for tour %(number)s is stored (CHGK-4).") % {
                "number": stored.tour.number})
            return redirect("team-manage", pk=team.pk)
    except captains.RosterRefused as exc:
        problems = exc.problems
    return render(request, "accounts/team_manage.html", {
        "team": team, "tournament": team.tournament, "state": state,
        "is_chgk": is_chgk, "next_tour": tour, "line_ups": line_ups, "current_line_up": current_line_up,
        "line_up_refused": bool(problems) and action == "line_up" and not line_up_checked,
        "add_form": add_form, "replace_form": replace_form, "captain_form": captain_form,
        "line_up_form": line_up_form, "problems": problems, "line_up_checked": line_up_checked,
        "left": [e for e in state.entries if e.left_at is not None],
    }, status=400 if problems and not line_up_checked else 200)
