"""\"My tournaments\": what a logged-in player has to come, across tournaments."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone

from portal.overview import overview


@login_required
def my_tournaments(request: HttpRequest) -> HttpResponse:
    return render(request, "accounts/my_tournaments.html", overview(request.user, timezone.now()))
