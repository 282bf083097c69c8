"""The family league's player rankings: every player's points, games and mafia points in a stage (FL-11..FL-14)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _

from formats.rankings import Column, render_rankings
from rulesets.family_league import KEY

COLUMNS = (Column("points", _("Points")), Column("games", _("Games"), points=False),
           Column("mafia_points", _("Mafia points")))


def players_view(request: HttpRequest, slug: str) -> HttpResponse:
    """Players of the stage by points, from the stored snapshot (FL-13); the most points first."""
    return render_rankings(request, slug, ruleset=KEY, columns=COLUMNS, by="points", rule="FL-13")
