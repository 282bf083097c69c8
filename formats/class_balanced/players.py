"""class_balanced player rankings: average points per game and the best player (CB-14)."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.utils.translation import gettext_lazy as _

from formats.rankings import Column, render_rankings
from rulesets.class_balanced import KEY

COLUMNS = (Column("average", _("Average per game")), Column("points", _("Points")),
           Column("games", _("Games"), points=False))


def players_view(request: HttpRequest, slug: str) -> HttpResponse:
    """Players by average points per game, those short of the CB-14 minimums after the others."""
    return render_rankings(request, slug, ruleset=KEY, columns=COLUMNS, by="average", rule="CB-14",
                           best_rule="CB-14")
