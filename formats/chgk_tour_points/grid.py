"""The season grid (CHGK-16): teams by tours, each cell the team's place and points in that tour.

Read from the stored season snapshot (its export's ranking and the per-tour figures of its ``details``:
``place_by_round``, ``points_by_round``, ``correct_by_round``, ``role_by_round``), never computed on the
request: three queries whatever the season's size.
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from scoring.models import StandingsSnapshot
from tournaments.models import Team, Tournament


def _at(values: Any, index: int) -> Any:
    return values[index] if isinstance(values, list) and index < len(values) else None


def grid_rows(export: dict[str, Any], details: dict[str, Any], team_pks: dict[str, int]) -> list[dict[str, Any]]:
    """One row per team in table order: place, team, season points and a cell per tour played."""
    extra = details.get("details") if isinstance(details.get("details"), dict) else {}
    tours = extra.get("tour_numbers") or []
    figures = {row.get("team"): row.get("details") or {} for row in details.get("teams") or []
               if isinstance(row, dict)}
    rows = []
    for item in export.get("teams") or []:
        team = item.get("team")
        mine = figures.get(team, {})
        cells = []
        for index, number in enumerate(tours):
            cells.append({"tour": number, "role": _at(mine.get("role_by_round"), index) or "out",
                          "place": _at(mine.get("place_by_round"), index),
                          "points": _at(mine.get("points_by_round"), index),
                          "correct": _at(mine.get("correct_by_round"), index)})
        rows.append({"rank": item.get("rank"), "team": team, "team_pk": team_pks.get(team),
                     "points": item.get("points"), "status": item.get("status", ""), "cells": cells})
    return rows


def grid_view(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    snapshot = StandingsSnapshot.objects.filter(tournament=tournament, stage_key="").only(
        "export", "details", "facts_version", "stale").first()
    rows: list[dict[str, Any]] = []
    tours: list[int] = []
    if snapshot is not None:
        team_pks = dict(Team.objects.filter(tournament=tournament).values_list("name", "pk"))
        rows = grid_rows(snapshot.export, snapshot.details, team_pks)
        extra = snapshot.details.get("details") if isinstance(snapshot.details.get("details"), dict) else {}
        tours = list(extra.get("tour_numbers") or [])
    updating = snapshot is not None and (snapshot.stale or snapshot.facts_version < tournament.facts_version)
    return render(request, "chgk_tour_points/grid.html", {
        "tournament": tournament, "snapshot": snapshot, "rows": rows, "tours": tours, "updating": updating,
        "final": bool(snapshot and snapshot.export.get("final")),
    })
