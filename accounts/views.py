"""Self-service: sign-up, the profile with the player claim, and "my tournaments"."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods

from accounts import claims
from accounts.forms import ActionForm, ClaimForm, SignUpForm, TimezoneForm, errors_as_messages
from accounts.models import FamilyMembership, Player


@require_http_methods(["GET", "POST"])
def signup(request: HttpRequest) -> HttpResponse:
    if request.user.is_authenticated:
        return redirect("profile")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        messages.success(request, _("Welcome! Claim the player you play as to see your tournaments."))
        return redirect("profile")
    return render(request, "accounts/auth/signup.html", {"form": form})


def _player(user) -> Player | None:
    return Player.objects.filter(user=user).first()


@login_required
@require_http_methods(["GET", "POST"])
def profile(request: HttpRequest) -> HttpResponse:
    player = _player(request.user)
    # Only a POST of the claim form (action=claim) binds it: a GET or a bare POST shows no "required".
    chosen = ActionForm(request.POST, actions=("claim", "timezone", "withdraw"))
    action = chosen.cleaned_data["action"] if request.method == "POST" and chosen.is_valid() else ""
    form = ClaimForm(request.POST if action == "claim" else None, user=request.user,
                     initial={"nick": player.nick if player else "", "full_name": player.full_name if player else ""})
    zone_form = TimezoneForm(request.POST if action == "timezone" else None, instance=request.user)
    if request.method == "POST":
        if not action:
            errors_as_messages(request, chosen)
            return redirect("profile")
        if action == "withdraw":
            try:
                claims.withdraw(request.user)
            except claims.ClaimRefused as exc:
                messages.error(request, str(exc))
            else:
                messages.success(request, _("Your claim is withdrawn; the nick is free."))
            return redirect("profile")
        if action == "timezone" and zone_form.is_valid():
            zone_form.save()
            messages.success(request, _("Your time zone is saved."))
            return redirect("profile")
        if action == "claim" and form.is_valid():
            try:
                claims.claim(request.user, form.cleaned_data["nick"], form.cleaned_data["full_name"])
            except claims.ClaimRefused as exc:
                form.add_error("nick", str(exc))
            else:
                messages.success(request, _("Your claim is recorded; an organizer of a tournament you played in or "
                                            "your family head confirms it."))
                return redirect("profile")
    memberships = []
    if player is not None:
        memberships = list(FamilyMembership.objects.filter(player=player).select_related("family").order_by(
            "-joined_on", "-pk")[:20])
    return render(request, "accounts/profile.html", {
        "form": form, "zone_form": zone_form, "player": player, "memberships": memberships,
        "headed": list(player.headed_families.all()[:20]) if player else [],
        "captained": list(player.captained.select_related("tournament").order_by("-tournament__starts_on")[:20])
        if player else [],
    })
