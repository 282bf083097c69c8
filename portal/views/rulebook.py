"""The rules page of a tournament (``/t/SLUG/rules/``): scoring, tie-break order and every rule code, explained."""

from __future__ import annotations

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from portal import careers
from portal.rulebook import rulebook_of
from tournaments.models import Tournament


def rulebook_view(request: HttpRequest, slug: str) -> HttpResponse:
    """One query: the tournament; the texts are the format home's (translated at render), and for a Mafia
    tournament the formula of the site-wide ranking by role its games count in (``portal.careers``)."""
    tournament = get_object_or_404(Tournament, slug=slug)
    book = rulebook_of(tournament)
    if book is None:
        raise Http404("no rulebook for this format")
    return render(request, "tournaments/rulebook.html", {
        "tournament": tournament, "book": book,
        "ranking_rules": careers.ranking_rules() if careers.is_mafia(tournament.ruleset) else []})
