"""Self-service: sign-up, the player claim, and "my tournaments"."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from accounts.forms import ClaimForm, SignUpForm
from accounts.models import Player


def signup(request: HttpRequest) -> HttpResponse:
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = form.save()
        login(request, user, backend="django.contrib.auth.backends.ModelBackend")
        return redirect("profile")
    return render(request, "registration/signup.html", {"form": form})


@login_required
def profile(request: HttpRequest) -> HttpResponse:
    player = getattr(request.user, "player", None)
    form = ClaimForm(request.POST or None, user=request.user,
                     initial={"nick": player.nick if player else "", "full_name": player.full_name if player else ""})
    if request.method == "POST" and form.is_valid():
        with transaction.atomic():
            player, _created = Player.objects.select_for_update().get_or_create(nick=form.cleaned_data["nick"])
            player.user = request.user
            player.full_name = form.cleaned_data["full_name"] or player.full_name
            player.save()
        messages.success(request, _("Your claim is recorded; an organizer or your family head confirms it."))
        return redirect("profile")
    return render(request, "accounts/profile.html", {"form": form, "player": player})


@login_required
def my_tournaments(request: HttpRequest) -> HttpResponse:
    from appeals.models import Appeal
    from tournaments.models import Seat, Team

    player = getattr(request.user, "player", None)
    teams = []
    seats = []
    if player is not None:
        teams = list(Team.objects.filter(roster__player=player).select_related("tournament", "stage")
                     .order_by("-tournament__starts_on")[:100])
        seats = list(Seat.objects.filter(player=player).select_related("game", "game__stage__tournament", "team")
                     .order_by("-game__scheduled_at")[:50])
    appeals = list(Appeal.objects.filter(filed_by=request.user).select_related("tournament").order_by("-filed_at")[:50])
    return render(request, "accounts/my_tournaments.html",
                  {"player": player, "teams": teams, "seats": seats, "appeals": appeals})
