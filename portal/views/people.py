"""The team page and the player page."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

import rulesets
from accounts.models import Player
from portal.labels import ITEMS, PENALTY_KINDS, SIDES, TEAM_STATUSES, TOUR_ROLES, label, reason_text
from portal.views.chart import build_chart
from portal.views.common import paginate
from portal.views.figures import seat_points_by_stage
from portal.views.standings import place_labels, snapshot_status
from rulesets.facts import SIDE_OF_ROLE
from scoring.models import StandingsSnapshot
from tournaments.models import Penalty, RosterEntry, Seat, Team, Tournament

ROUNDS_TABLE_LIMIT = 60


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
        seat.points, seat.reason = (earned[0], reason_text(earned[1])) if earned else (None, "")
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
    chart = build_chart([(team.name, [r["points"] for r in rounds])], [r["label"] for r in rounds]) if rounds else None
    return render(request, "tournaments/team.html", {
        "tournament": tournament, "team": team, "roster": roster, "row": row,
        "row_status": str(label(TEAM_STATUSES, row.get("status"))) if row else "",
        "status": snapshot_status(tournament, snapshot), "rounds": rounds,
        "rounds_table": rounds if len(rounds) <= ROUNDS_TABLE_LIMIT else [],
        "chart": chart, "seats": seats, "penalties": _team_penalties(team, details),
        "fines_total": details.get("fines_total"), "players": _team_players(snapshot, team.name),
        "is_chgk": rulesets.get(tournament.ruleset).rounds == "tours",
    })


def _player_snapshots(tournament_ids: set[int]) -> dict[int, list[tuple[str, dict[str, Any], Any, Any]]]:
    """Per tournament: (stage key, export, players figures, cups) of each stage's snapshot, or the latest."""
    by_tournament: dict[int, list] = {}
    if not tournament_ids:
        return by_tournament
    rows = StandingsSnapshot.objects.filter(tournament_id__in=tournament_ids).values_list(
        "tournament_id", "stage_key", "export", "details__details__players", "details__details__cups")
    for tid, stage_key, export, players, cups in rows:
        by_tournament.setdefault(tid, []).append((stage_key, export, players, cups))
    for tid, items in by_tournament.items():
        staged = [item for item in items if item[0]]
        by_tournament[tid] = sorted(staged or items, key=lambda item: item[0])
    return by_tournament


def _items_of(award: dict[str, Any], player: Player, cups: Any) -> list[str]:
    """The cups and medals of an award that this player receives.

    A team's award carries its cups; where the ruleset lists who receives them
    (``details.cups``: FL-20, every family member with at least one game), a
    roster member who never played gets the team's prize line but no cup.
    """
    items = list(award.get("items") or [])
    if award.get("player") is not None or not isinstance(cups, list):
        return items
    mine = {c.get("cup") for c in cups if isinstance(c, dict) and c.get("player") == player.nick
            and c.get("team") == award.get("team")}
    return [item for item in items if item in mine]


def _player_results(player: Player, entries: list[RosterEntry], snapshots: dict[int, list]) -> dict[int, dict]:
    """Per tournament: the player's table rows, the awards of the player and of the player's teams."""
    out: dict[int, dict] = {}
    teams_of = {}
    for entry in entries:
        teams_of.setdefault(entry.team.tournament_id, []).append(entry.team)
    for tid, items in snapshots.items():
        result = out.setdefault(tid, {"rows": [], "awards": []})
        for stage_key, export, players, cups in items:
            names = {t.name for t in teams_of.get(tid, []) if t.stage is None or t.stage.key == stage_key}
            for p in export.get("players") or []:
                if p.get("player") == player.nick:
                    result["rows"].append({**p, "stage": stage_key,
                                           "status_label": str(label(TEAM_STATUSES, p.get("status")))})
            if not export.get("players"):
                for p in players or []:
                    if isinstance(p, dict) and p.get("player") == player.nick:
                        result["rows"].append({**p, "stage": stage_key, "rank": None, "status_label": ""})
            for award in export.get("awards") or []:
                if award.get("player") == player.nick or (award.get("player") is None and award.get("team") in names):
                    items_given = _items_of(award, player, cups)
                    result["awards"].append({**award, "stage": stage_key, "team_award": award.get("player") is None,
                                             "items": items_given,
                                             "items_text": [str(label(ITEMS, i)) for i in items_given]})
    return out


def player_view(request: HttpRequest, pk: int) -> HttpResponse:
    player = get_object_or_404(Player, pk=pk)
    entries = list(RosterEntry.objects.filter(player=player).select_related(
        "team__tournament", "team__stage").order_by("-team__tournament__starts_on", "team__tournament__name"))
    seats = paginate(request, Seat.objects.filter(player=player).select_related(
        "game__stage__tournament", "team").order_by("-game__stage__tournament__starts_on", "game__stage__tournament_id",
                                                    "game__stage__order", "game__number"))
    for seat in seats:
        seat.side_label = str(label(SIDES, SIDE_OF_ROLE.get(seat.role)))
    tournaments: dict[int, dict[str, Any]] = {}
    for entry in entries:
        item = tournaments.setdefault(entry.team.tournament_id, {"tournament": entry.team.tournament, "teams": []})
        item["teams"].append({"team": entry.team, "captain": entry.team.captain_id == player.pk})
    results = _player_results(player, entries, _player_snapshots(set(tournaments)))
    for tid, item in tournaments.items():
        item.update(results.get(tid, {"rows": [], "awards": []}))
    return render(request, "tournaments/player.html", {
        "player": player, "tournaments": list(tournaments.values()), "seats": seats,
        "awards": [a | {"tournament": t["tournament"]} for t in tournaments.values() for a in t["awards"]],
    })
