"""Find a player or a team across tournaments (``/search/?q=``): bounded, case-insensitive, two queries."""

from __future__ import annotations

from django.db.models import Q
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from accounts.models import Player
from tournaments.models import Team, TournamentStatus

LIMIT = 50
MIN_LENGTH = 2
MAX_LENGTH = 100


def _contains(field: str, text: str) -> Q:
    """``field`` contains ``text`` whatever the case.

    PostgreSQL's ``icontains`` folds every alphabet; SQLite's folds only ASCII, so the usual spellings of a
    Cyrillic word (as typed, lower, upper, capitalised) are asked for too.
    """
    query = Q(**{f"{field}__icontains": text})
    for variant in {text.lower(), text.upper(), text.capitalize(), text.title()} - {text}:
        query |= Q(**{f"{field}__contains": variant})
    return query


def search_view(request: HttpRequest) -> HttpResponse:
    """Players by nick or full name, teams by name (in tournaments that are not drafts), at most LIMIT each."""
    text = " ".join(request.GET.get("q", "").split())[:MAX_LENGTH]
    players: list[Player] = []
    teams: list[Team] = []
    too_short = 0 < len(text) < MIN_LENGTH
    if len(text) >= MIN_LENGTH:
        players = list(Player.objects.filter(_contains("nick", text) | _contains("full_name", text)).only(
            "pk", "nick", "full_name").order_by("nick")[:LIMIT + 1])
        teams = list(Team.objects.filter(_contains("name", text)).exclude(
            tournament__status=TournamentStatus.DRAFT).select_related("tournament", "stage").only(
            "pk", "name", "stage__key", "tournament__slug", "tournament__name", "tournament__starts_on").order_by(
            "name", "-tournament__starts_on", "tournament__name")[:LIMIT + 1])
    return render(request, "tournaments/search.html", {
        "q": text, "too_short": too_short, "min_length": MIN_LENGTH, "limit": LIMIT,
        "players": players[:LIMIT], "more_players": len(players) > LIMIT,
        "teams": teams[:LIMIT], "more_teams": len(teams) > LIMIT,
    })
