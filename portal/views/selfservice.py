"""Pages where people act for themselves: claims, merges, family pages, captains' team pages.

Who may act is decided in ``accounts.permissions`` (to join
``accounts.permissions``); the changes themselves are the services of
``accounts.claims``, ``tournaments.merge``, ``formats.family_league.families`` and
``formats.chgk_tour_points.captains``, each in one transaction.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.db.models import Prefetch
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts import claims
from accounts.forms import MergeForm, errors_as_messages
from accounts.models import FamilyMembership, Player
from accounts.permissions import (
    can_merge_players,
    claims_decidable_by,
)
from portal.forms import ClaimDecisionForm
from tournaments.merge import MergeRefused, merge_players
from tournaments.messages import refusal_text
from tournaments.models import Participant


def _forbidden(request: HttpRequest, text: str) -> HttpResponse:
    return render(request, "accounts/forbidden.html", {"text": text}, status=403)


# ---------------------------------------------------------------- claims

@login_required
@require_http_methods(["GET", "POST"])
def claims_view(request: HttpRequest) -> HttpResponse:
    """Pending claims the user may decide: as an organizer of a tournament the player played in, or as head."""
    if request.method == "POST":
        form = ClaimDecisionForm(request.POST)
        if not form.is_valid():
            errors_as_messages(request, form)
            return redirect("claims")
        player = get_object_or_404(Player, pk=form.cleaned_data["player"])
        nick = player.nick
        try:
            if form.cleaned_data["decision"] == "confirm":
                claims.confirm(request.user, player)
                messages.success(request, _("The claim of %(nick)s is confirmed.") % {"nick": nick})
            else:
                claims.refuse(request.user, player)
                messages.success(request, _("The claim of %(nick)s is refused; the nick is free.") % {"nick": nick})
        except claims.ClaimRefused as exc:
            return _forbidden(request, refusal_text(exc))
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
            form.add_error(None, refusal_text(exc))
        else:
            messages.success(request, _("%(duplicate)s is merged into %(target)s.") % {
                "duplicate": result["merged"], "target": target.nick})
            return redirect("player", pk=target.pk)
    return render(request, "accounts/merge.html", {"form": form})
