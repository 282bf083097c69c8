"""Player rankings of a Mafia tournament whose ruleset ranks its players (family_league, class_balanced).

Read from the stored snapshot of the stage asked for (``?stage=``, the latest by default): its ``details``
hold the players' figures (``details["details"]["players"]``, as the ruleset stored them) and its export the
best player where the ruleset names one (CB-14). Only those two JSON keys are read, never the whole
``details``: four queries whatever the tournament's size. The homes route their own URL to ``render_rankings``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.models import Player
from scoring.models import StandingsSnapshot
from tournaments.models import Team, Tournament

LIMIT = 1000  # rows shown; a league's stage has a few hundred players


@dataclass(frozen=True)
class Column:
    """A figure of a player's row: its key in the stored row, its heading and whether it is a number of points."""

    key: str
    heading: str
    points: bool = True


def _ranked(rows: list[dict[str, Any]], by: str) -> list[dict[str, Any]]:
    """Rows with a ``place``: the stored rank where there is one, else the competition rank by ``by``."""
    out = []
    previous = None
    rank = 0
    for position, row in enumerate(rows):
        if "rank" in row:
            place = row.get("rank")
        else:
            if row.get(by) != previous:
                rank, previous = position + 1, row.get(by)
            place = rank
        out.append({**row, "place": place})
    return out


def render_rankings(request: HttpRequest, slug: str, *, ruleset: str, columns: tuple[Column, ...], by: str,
                    rule: str, best_rule: str = "") -> HttpResponse:
    """The rankings page of tournament ``slug`` (404 for another ruleset's tournament)."""
    tournament = get_object_or_404(Tournament, slug=slug, ruleset=ruleset)
    stages = list(StandingsSnapshot.objects.filter(tournament=tournament).exclude(stage_key="").order_by(
        "pk").values_list("stage_key", flat=True))
    stage_key = request.GET.get("stage", "")
    if stage_key and stage_key not in stages:
        raise Http404("no table for this stage")
    stored = StandingsSnapshot.objects.filter(tournament=tournament, stage_key=stage_key).values_list(
        "details__details__players", "export__best_player", "export__stage").first()
    players, best, shown_stage = stored if stored else (None, None, None)
    rows = [row for row in (players or [])[:LIMIT] if isinstance(row, dict)]
    nicks = {row.get("player") for row in rows} | set(best or [])
    player_pks = dict(Player.objects.filter(nick__in=nicks).values_list("nick", "pk")) if nicks else {}
    team_pks = dict(Team.objects.filter(tournament=tournament).values_list("name", "pk")) if rows else {}
    best_set = set(best or [])
    table = [{**row, "player_pk": player_pks.get(row.get("player")), "team_pk": team_pks.get(row.get("team")),
              "best": row.get("player") in best_set,
              "values": [(row.get(c.key), c.points) for c in columns]} for row in _ranked(rows, by)]
    return render(request, "tournaments/player_rankings.html", {
        "tournament": tournament, "stored": stored is not None, "rows": table, "columns": columns,
        "stages": stages, "stage_key": stage_key, "shown_stage": shown_stage, "rule": rule, "best_rule": best_rule,
        "best": [{"nick": nick, "pk": player_pks.get(nick)} for nick in best or []],
        "has_best": best is not None, "more": len(players or []) > LIMIT,
    })
