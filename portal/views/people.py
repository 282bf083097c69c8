"""The team page and the player page."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

from django.db import connection
from django.db.models import Exists, F, Func, JSONField, OuterRef, Q, Value
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import JSONObject
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.formats import localize
from django.utils.translation import gettext as _

import rulesets
from accounts.models import Player
from portal.labels import (
    ITEMS,
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
from tournaments.models import GameStatus, Outcome, Penalty, RoleChoice, RosterEntry, Seat, Team, Tournament

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


def _player_elements(column: str, path: tuple[str, ...], nick: str) -> Any:
    """The JSON array at ``path`` of ``column``, on PostgreSQL only its elements whose ``player`` is ``nick``.

    A snapshot's export and details hold every player of the tournament; the player's page needs one row of
    each, so PostgreSQL filters them (``jsonb_path_query_array``) and the rows stay small at any size. Other
    databases read the array at ``path`` (never the whole document); the page filters either way.
    """
    if connection.vendor != "postgresql":
        return _json_at(column, path)
    jsonpath = "$." + ".".join(path) + "[*] ? (@.player == $nick)"
    return Func(F(column), Func(Value(jsonpath), template="(%(expressions)s)::jsonpath"),
                JSONObject(nick=Value(nick)), function="jsonb_path_query_array", output_field=JSONField())


def _json_at(column: str, path: tuple[str, ...]) -> Any:
    """``column__path`` as a JSON value (Django's key transforms: ``->`` on PostgreSQL, ``json_extract``)."""
    expression: Any = F(column)
    for key in path:
        expression = KeyTransform(key, expression)
    return expression


class PlayerSnapshot(NamedTuple):
    """What the player's page reads of one snapshot."""

    stage_key: str
    rows: list[dict[str, Any]]  # the export's ``players`` (on PostgreSQL only the player's rows)
    lists_players: bool  # the export has a table of players (else the page shows ``details.details.players``)
    awards: list[dict[str, Any]]
    figures: Any  # ``details.details.players`` (on PostgreSQL only the player's)
    cups: Any  # ``details.details.cups`` (on PostgreSQL only the player's; FL-20)


def _player_snapshots(tournament_ids: list[int], nick: str) -> dict[int, list[PlayerSnapshot]]:
    """Per tournament: what the page reads of each stage's snapshot, or of the latest where there is none.

    Only what the player's page reads: the export's rows of the player (``players``, and whether it lists
    players at all), its ``awards``, and the player's rows of ``details.details.players`` and ``.cups``.
    The latest snapshot of a tournament with stage snapshots is left out (it repeats the last stage).
    """
    by_tournament: dict[int, list] = {}
    if not tournament_ids:
        return by_tournament
    staged = StandingsSnapshot.objects.filter(tournament_id__in=tournament_ids, tournament_id=OuterRef("tournament_id")
                                              ).exclude(stage_key="")  # the ids bound PostgreSQL's hashed subplan
    rows = StandingsSnapshot.objects.filter(tournament_id__in=tournament_ids).exclude(
        Q(stage_key="") & Exists(staged)).values_list(
        "tournament_id", "stage_key", _player_elements("export", ("players",), nick),
        _json_at("export", ("players", "0")), _json_at("export", ("awards",)),
        _player_elements("details", ("details", "players"), nick),
        _player_elements("details", ("details", "cups"), nick))
    for tid, stage_key, mine, first_player, awards, players, cups in rows:
        by_tournament.setdefault(tid, []).append(PlayerSnapshot(
            stage_key, mine if isinstance(mine, list) else [], first_player is not None,
            awards if isinstance(awards, list) else [], players, cups))
    for tid, items in by_tournament.items():
        staged_items = [item for item in items if item.stage_key]
        by_tournament[tid] = sorted(staged_items or items, key=lambda item: item.stage_key)
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


def _player_results(player: Player, entries: list[RosterEntry],
                    snapshots: dict[int, list[PlayerSnapshot]]) -> dict[int, dict]:
    """Per tournament: the player's table rows, the awards of the player and of the player's teams."""
    out: dict[int, dict] = {}
    teams_of = {}
    for entry in entries:
        teams_of.setdefault(entry.team.tournament_id, []).append(entry.team)
    for tid, items in snapshots.items():
        result = out.setdefault(tid, {"rows": [], "awards": []})
        for stage_key, rows, lists_players, awards, players, cups in items:
            names = {t.name for t in teams_of.get(tid, []) if t.stage is None or t.stage.key == stage_key}
            for p in rows:
                if isinstance(p, dict) and p.get("player") == player.nick:
                    result["rows"].append({**p, "stage": stage_key,
                                           "status_label": str(label(TEAM_STATUSES, p.get("status")))})
            if not lists_players:
                for p in players or []:
                    if isinstance(p, dict) and p.get("player") == player.nick:
                        result["rows"].append({**p, "stage": stage_key, "rank": None, "status_label": ""})
            for award in awards:
                if award.get("player") == player.nick or (award.get("player") is None and award.get("team") in names):
                    items_given = _items_of(award, player, cups)
                    result["awards"].append({**award, "stage": stage_key, "team_award": award.get("player") is None,
                                             "items": items_given,
                                             "items_text": [str(label(ITEMS, i)) for i in items_given]})
    return out


PLAYER_GAME_COLUMNS = ("role", "timed_out", "team_id", "team__name", "game__number", "game__status",
                       "game__outcome", "game__stage__key", "game__stage__tournament__slug",
                       "game__stage__tournament__name")


def _player_games(rows: Iterable[tuple], tournament_urls: dict[str, str]) -> list[dict[str, str | bool]]:
    """The player's games as the page shows them, from plain rows (``PLAYER_GAME_COLUMNS``) of the tournaments
    whose links ``tournament_urls`` holds by slug.

    Each link and text is made once per team, stage or value and the template only prints them: a page of 50
    games builds no model instances and looks nothing up (issue 20, item 3).
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
    """The player's tournaments, newest first, a page at a time (``?tournaments_page=``), with the player's table
    rows, awards and games (a page at a time: ``?page=``) in the shown ones. A fixed number of queries, and work
    bounded by the page, whatever the number of tournaments the player plays in."""
    player = get_object_or_404(Player, pk=pk)
    shown = paginate(request, Tournament.objects.filter(
        pk__in=RosterEntry.objects.filter(player=player).values("team__tournament_id")).only(
        "slug", "name", "starts_on").order_by("-starts_on", "name", "pk"), TOURNAMENTS_PAGE, TOURNAMENTS_PARAM)
    tournaments: dict[int, dict[str, Any]] = {t.pk: {"tournament": t, "url": t.get_absolute_url(), "teams": []}
                                              for t in shown}
    entries = list(RosterEntry.objects.filter(player=player, team__tournament_id__in=list(tournaments)).select_related(
        "team__stage").order_by("team__stage__order", "team__order", "team__name", "pk"))
    for entry in entries:
        entry.team.tournament = tournaments[entry.team.tournament_id]["tournament"]
        tournaments[entry.team.tournament_id]["teams"].append(
            {"team": entry.team, "captain": entry.team.captain_id == player.pk,
             "url": reverse("team", args=[entry.team.tournament.slug, entry.team.pk])})
    seats = paginate(request, Seat.objects.filter(
        player=player, game__stage__tournament_id__in=list(tournaments)).order_by(
        "-game__stage__tournament__starts_on", "game__stage__tournament_id", "game__stage__order", "game__number"
    ).values_list(*PLAYER_GAME_COLUMNS), PLAYER_GAMES_PAGE)
    results = _player_results(player, entries, _player_snapshots(list(tournaments), player.nick))
    for tid, item in tournaments.items():
        item.update(results.get(tid, {"rows": [], "awards": []}))
    return render(request, "tournaments/player.html", {
        "player": player, "tournaments": list(tournaments.values()), "tournaments_page": shown,
        "tournaments_param": TOURNAMENTS_PARAM, "seats": seats,
        "games": _player_games(seats, {item["tournament"].slug: item["url"] for item in tournaments.values()}),
        "awards": [a | {"tournament": t["tournament"], "tournament_url": t["url"]}
                   for t in tournaments.values() for a in t["awards"]],
    })
