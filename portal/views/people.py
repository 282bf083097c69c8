"""The team page and the player page."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.formats import localize
from django.utils.translation import gettext as _

import rulesets
from accounts.models import Player
from portal import careers
from portal.labels import (
    PENALTY_KINDS,
    SIDES,
    TEAM_STATUSES,
    TOUR_ROLES,
    label,
    stage_label,
    status_label,
)
from portal.views.chart import build_chart, draw_chart
from portal.views.common import paginate
from portal.views.figures import seat_points_by_stage
from portal.views.standings import place_labels, snapshot_status
from rulesets.facts import SIDE_OF_ROLE
from scoring.models import StandingsSnapshot
from tournaments.messages import render as message_text
from tournaments.models import GameStatus, Outcome, Penalty, RoleChoice, Seat, Team, Tournament

ROUNDS_TABLE_LIMIT = 60
TOURNAMENTS_PAGE = 20  # the player page lists this many tournaments at a time, newest first
TOURNAMENTS_PARAM = "tournaments_page"
PLAYER_GAMES_PAGE = 50  # and this many of the player's games (``?page=``)


def _row_of(snapshot: StandingsSnapshot | None, name: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The team's export row and its details row in a snapshot (empty dicts when absent)."""
    if snapshot is None:
        return {}, {}
    export_rows = snapshot.export.get("teams", [])
    group = _group_of(export_rows, name)
    same_group = [r for r in export_rows if r.get("group") == group]
    places = place_labels([r.get("rank", 0) for r in same_group])
    row = next(({**r, "place": p} for r, p in zip(same_group, places) if r.get("team") == name), {})
    details_rows = snapshot.details.get("teams", []) if isinstance(snapshot.details, dict) else []
    extra = next((d for d in details_rows if d.get("team") == name), {})
    return row, extra.get("details") or {}


def _group_of(rows: list[dict[str, Any]], name: str) -> str | None:
    return next((r.get("group") for r in rows if r.get("team") == name), None)


def _rounds(snapshot: StandingsSnapshot | None, details: dict[str, Any]) -> list[dict[str, Any]]:
    """Per round: label, points and (ChGK) role, correct answers and place, in the order of play."""
    if snapshot is None:
        return []
    extra = snapshot.details.get("details", {}) if isinstance(snapshot.details, dict) else {}
    labels = extra.get("rounds") or []
    tour_numbers = extra.get("tour_numbers") or []
    points = details.get("points_by_round") or []
    out = []
    for index, value in enumerate(points):
        role = (details.get("role_by_round") or [None] * len(points))[index]
        out.append({
            "label": labels[index] if index < len(labels) else str(index + 1),
            "tour": tour_numbers[index] if index < len(tour_numbers) else None,
            "points": value,
            "correct": (details.get("correct_by_round") or [None] * len(points))[index],
            "place": (details.get("place_by_round") or [None] * len(points))[index],
            "role": role, "role_label": str(label(TOUR_ROLES, role)) if role else "",
        })
    return out


def _team_penalties(team: Team, details: dict[str, Any]) -> list[dict[str, Any]]:
    """The ruleset's list (derived violations with fines, FL-15..FL-18) or else the recorded penalties."""
    if isinstance(details.get("penalties"), list):
        return [{**p, "kind_label": str(label(PENALTY_KINDS, p.get("kind")))} for p in details["penalties"]]
    return [{"stage": p.stage.key if p.stage else None, "game": p.game.number if p.game else None,
             "player": p.player.nick if p.player else None, "kind": p.kind,
             "kind_label": str(label(PENALTY_KINDS, p.kind)), "code": p.code, "points": float(p.points),
             "text": p.text, "fine": None, "running_total": None}
            for p in Penalty.objects.filter(team=team).select_related("stage", "game", "player").order_by("order")]


def _team_players(snapshot: StandingsSnapshot | None, name: str) -> list[dict[str, Any]]:
    if snapshot is None:
        return []
    rows = [p for p in snapshot.export.get("players") or [] if p.get("team") == name]
    if not rows:
        extra = snapshot.details.get("details", {}) if isinstance(snapshot.details, dict) else {}
        rows = [p for p in extra.get("players") or [] if isinstance(p, dict) and p.get("team") == name]
    return [{**p, "status_label": str(label(TEAM_STATUSES, p.get("status"))) if p.get("status") else ""}
            for p in rows]


def _seats_with_points(tournament: Tournament, seats: list[Seat]) -> None:
    wanted: dict[str, list[int]] = {}
    for seat in seats:
        wanted.setdefault(seat.game.stage.key, []).append(seat.game.number)
    points = seat_points_by_stage(tournament, wanted)
    for seat in seats:
        earned = points.get(seat.game.stage.key, {}).get(seat.game.number, {}).get(seat.player.nick)
        seat.points, seat.reason = (earned[0], message_text(earned[1])) if earned else (None, "")
        seat.side_label = str(label(SIDES, SIDE_OF_ROLE.get(seat.role)))


def team_view(request: HttpRequest, slug: str, pk: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    team = get_object_or_404(Team.objects.select_related("captain", "stage", "family"), tournament=tournament, pk=pk)
    roster = list(team.roster.select_related("player").order_by("order", "pk"))
    stage_key = team.stage.key if team.stage else ""
    snapshot = StandingsSnapshot.objects.filter(tournament=tournament, stage_key=stage_key).first()
    row, details = _row_of(snapshot, team.name)
    rounds = _rounds(snapshot, details)
    seats = paginate(request, Seat.objects.filter(team=team).select_related("game", "game__stage", "player").order_by(
        "game__stage__order", "game__number", "order"))
    _seats_with_points(tournament, list(seats))
    # a long league stores the team's sampled chart instead of its per-round list (scoring.serialize.ROUNDS_KEPT)
    chart = build_chart([(team.name, [r["points"] for r in rounds])], [r["label"] for r in rounds]) if rounds else (
        draw_chart(details["chart"]) if isinstance(details.get("chart"), dict) else None)
    return render(request, "tournaments/team.html", {
        "tournament": tournament, "team": team, "roster": roster, "row": row,
        "row_status": status_label(row.get("status"), bool(snapshot and snapshot.export.get("final"))) if row else "",
        "status": snapshot_status(tournament, snapshot), "rounds": rounds,
        "rounds_table": rounds if len(rounds) <= ROUNDS_TABLE_LIMIT else [],
        "chart": chart, "seats": seats, "penalties": _team_penalties(team, details),
        "fines_total": details.get("fines_total"), "players": _team_players(snapshot, team.name),
        "is_chgk": rulesets.get(tournament.ruleset).rounds == "tours",
    })


PLAYER_GAME_COLUMNS = ("role", "timed_out", "team_id", "team__name", "game__number", "game__status",
                       "game__outcome", "game__stage__key", "game__stage__tournament__slug",
                       "game__stage__tournament__name")


def _player_games(rows: Iterable[tuple], tournament_urls: dict[str, str]) -> list[dict[str, str | bool]]:
    """The player's games as the page shows them, from plain rows (``PLAYER_GAME_COLUMNS``) of the tournaments
    whose links ``tournament_urls`` holds by slug.

    Each link and text is made once per team, stage or value and the template only prints them: a page of 50
    games builds no model instances and looks nothing up.
    """
    team_urls: dict[int, str] = {}
    texts: dict[tuple, str] = {}

    def team_url(slug: str, team_id: int) -> str:
        if team_id not in team_urls:
            team_urls[team_id] = reverse("team", args=[slug, team_id])
        return team_urls[team_id]

    def text(kind: str, value: Any, make: Any) -> str:
        if (kind, value) not in texts:
            texts[kind, value] = str(make(value))
        return texts[kind, value]

    roles, statuses, outcomes = dict(RoleChoice.choices), dict(GameStatus.choices), dict(Outcome.choices)
    game_number = _("game %(number)s")
    out = []
    for role, timed_out, team_id, team_name, number, status, outcome, stage_key, slug, tournament_name in rows:
        out.append({
            "tournament": tournament_name, "tournament_url": tournament_urls[slug],
            "label": text("stage", stage_key, stage_label) + ", " + game_number % {"number": localize(number)},
            "url": reverse("game", args=[slug, stage_key, number]),
            "team": team_name, "team_url": team_url(slug, team_id),
            "role": text("role", role, lambda r: f"{roles.get(r, r)} ({label(SIDES, SIDE_OF_ROLE.get(r))})"),
            "timed_out": timed_out,
            "result": text("outcome", outcome, lambda o: outcomes.get(o, o)) if outcome else text(
                "status", status, lambda s: statuses.get(s, s)),
        })
    return out


def player_view(request: HttpRequest, pk: int) -> HttpResponse:
    """The player's tournaments of any format, newest first, a page at a time (``?tournaments_page=``), with the
    player's teams, table rows, awards and (ChGK) the team's season history in the shown ones, the player's games
    there (a page at a time: ``?page=``), and the player's Mafia figures by role over the whole career
    (``portal.careers``). Six queries, and work bounded by the page, whatever the number of tournaments the
    player plays in."""
    player = get_object_or_404(Player, pk=pk)
    shown = paginate(request, careers.tournaments_of(player), TOURNAMENTS_PAGE, TOURNAMENTS_PARAM)
    tournaments = careers.career(player, list(shown))
    seats = paginate(request, Seat.objects.filter(
        player=player, game__stage__tournament_id__in=[item.tournament.pk for item in tournaments]).order_by(
        "-game__stage__tournament__starts_on", "game__stage__tournament_id", "game__stage__order", "game__number"
    ).values_list(*PLAYER_GAME_COLUMNS), PLAYER_GAMES_PAGE)
    roles = careers.role_figures(player.pk)
    return render(request, "tournaments/player.html", {
        "player": player, "tournaments": tournaments, "tournaments_page": shown,
        "tournaments_param": TOURNAMENTS_PARAM, "seats": seats,
        "games": _player_games(seats, {item.tournament.slug: item.url for item in tournaments}),
        "awards": [a | {"tournament": item.tournament, "tournament_url": item.url}
                   for item in tournaments for a in item.awards],
        "seasons": [item for item in tournaments if item.season],
        "roles": roles, "roles_total": careers.total_of(roles) if roles else None,
    })
