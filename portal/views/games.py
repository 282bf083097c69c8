"""The game page (Mafia) and the tour page (ChGK)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.translation import gettext as _

import rulesets
from accounts.permissions import can_see_hidden_appellant, player_of
from accounts.zones import zone_caption, zones_caption
from appeals.filing import tour_window
from portal.labels import PENALTY_KINDS, SIDES, label
from portal.views.common import TeamIndex
from portal.views.figures import figures_state, seat_points, tour_table
from rulesets.facts import SIDE_OF_ROLE
from scoring.models import StandingsSnapshot
from tournaments.messages import render as message_text
from tournaments.models import (
    Appeal,
    AppealKind,
    Decision,
    Game,
    Mask,
    Penalty,
    Question,
    RosterEntry,
    Tour,
    Tournament,
    Verdict,
)


def stage_violations(tournament: Tournament, stage_key: str) -> list[dict[str, Any]] | None:
    """Penalties the ruleset derived itself (FL-15) and the judge's, as the stage's snapshot lists them.

    None when the ruleset lists none (then the recorded penalties are shown).
    """
    value = StandingsSnapshot.objects.filter(tournament=tournament, stage_key=stage_key).values_list(
        "details__details__violations", flat=True).first()
    return value if isinstance(value, list) else None


def decision_rows(request: HttpRequest, tournament: Tournament, game: Game) -> list[dict[str, Any]]:
    """The game's decisions with their times and appeal deadline (as the job stored it), and whether the reader
    may still appeal each (GP-23, FL-19, CB-17: a participant of a team of the tournament, before the deadline)."""
    decisions = list(Decision.objects.filter(game=game, replacement_for=None).order_by("index"))
    if not decisions:
        return []
    deadlines = StandingsSnapshot.objects.filter(tournament=tournament, stage_key="").values_list(
        "details__deadlines", flat=True).first() or {}
    player = player_of(request.user)
    entitled = request.user.is_authenticated and (request.user.is_staff or (player is not None and RosterEntry.objects.filter(
        team__tournament=tournament, player=player).exists()))
    now = timezone.now()
    rows = []
    for decision in decisions:
        raw = deadlines.get(str(decision.index)) if isinstance(deadlines, dict) else None
        deadline = dt.datetime.fromisoformat(raw) if raw else None
        is_open = deadline is not None and now <= deadline
        rows.append({"decision": decision, "deadline": deadline, "open": is_open,
                     "can_appeal": bool(entitled and is_open)})
    return rows


def _penalty_rows(game: Game, violations: list[dict[str, Any]] | None) -> list[dict[str, Any]]:
    """The game's penalties as the stored table lists them; a judge's penalty among them carries the id of its
    recorded row (``penalty_pk``), which its appeal link names (FL-19)."""
    if violations is not None:
        rows = [{**v, "kind_label": str(label(PENALTY_KINDS, v.get("kind")))}
                for v in violations if v.get("game") == game.number and v.get("stage") == game.stage.key]
        if rows:
            recorded = list(Penalty.objects.filter(game=game, replacement_for=None).order_by("order", "pk").values_list(
                "pk", "kind", "team__name", "player__nick"))
            for row in rows:
                row["penalty_pk"] = next((pk for pk, kind, team, player in recorded if kind == row.get("kind")
                                          and team in (None, row.get("team"))
                                          and player == (row.get("player") or None)), None)
        return rows
    return [{"team": p.team.name if p.team else None, "player": p.player.nick if p.player else None,
             "kind": p.kind, "kind_label": str(label(PENALTY_KINDS, p.kind)), "code": p.code,
             "points": float(p.points), "text": p.text, "decided_at": p.decided_at, "fine": None, "penalty_pk": p.pk}
            for p in Penalty.objects.filter(game=game, replacement_for=None).select_related("team", "player").order_by(
                "order", "pk")]


def annulled_on_appeal(game: Game, seats: list) -> list[Appeal]:
    """The game's detected violations an upheld appeal annulled (FL-19), each with its appeal; a seat of the
    violating player gets ``annulled_by`` (the appeal), so the page marks its reason as annulled, not live."""
    appeals = list(Appeal.objects.filter(game=game, kind=AppealKind.VIOLATION, verdict=Verdict.ACCEPTED).select_related(
        "team", "violating_player").order_by("order", "pk"))
    for seat in seats:
        seat.annulled_by = next((a for a in appeals if a.violating_player_id == seat.player_id and (
            a.team_id is None or a.team_id == seat.team_id)), None)
    return appeals


def game_view(request: HttpRequest, slug: str, stage_key: str, number: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    game = get_object_or_404(Game.objects.select_related("stage", "group"), stage__tournament=tournament,
                             stage__key=stage_key, number=number)
    seats = list(game.seats.select_related("player", "team").order_by("order", "pk"))
    points = seat_points(tournament, stage_key, [number]).get(number)
    points = points or {}
    teams: dict[str, dict[str, Any]] = {}
    for seat in seats:
        seat.side = SIDE_OF_ROLE.get(seat.role, "")
        seat.side_label = str(label(SIDES, seat.side))
        earned = points.get(seat.player.nick)
        seat.points, seat.reason = (earned[0], message_text(earned[1])) if earned else (None, "")
        entry = teams.setdefault(seat.team.name, {"team": seat.team, "players": [], "points": None})
        entry["players"].append(seat.player.nick)
        if seat.points is not None:
            entry["points"] = round((entry["points"] or 0) + seat.points, 2)
    violations = stage_violations(tournament, stage_key)
    annulled = annulled_on_appeal(game, seats)
    return render(request, "tournaments/game.html", {
        "tournament": tournament, "game": game, "seats": seats, "teams": list(teams.values()),
        "absent": list(game.absent_teams.order_by("order", "name")),
        "no_shows": list(game.no_show_eliminations.select_related("team", "player").order_by("pk")),
        "penalties": _penalty_rows(game, violations), "annulled": annulled,
        "decisions": decision_rows(request, tournament, game),
        "appealable_violations": rulesets.get(tournament.ruleset).appeal_policy.detected_violations,
        "appealable_penalties": rulesets.get(tournament.ruleset).appeal_policy.penalty_deadline is not None,
        "has_points": bool(points), "figures": figures_state(tournament), "zone": zone_caption(tournament.timezone, game.scheduled_at),
    })


def _cells(mask: str | None, raw: str | None, questions: int, removed: set[int]) -> list[dict[str, str]]:
    """One row of the matrix: each mark with what happened to it (answered, credited on appeal, removed...)."""
    cells = []
    for q in range(questions):
        mark = mask[q] if mask and q < len(mask) else ""
        before = raw[q] if raw and q < len(raw) else ""
        if q + 1 in removed or mark == "X":
            kind = "removed"
        elif mark == "1" and before not in ("1", ""):
            kind = "credited"
        elif mark == "1":
            kind = "yes"
        elif mark == "?":
            kind = "disputed"
        elif mark == "":
            kind = "none"
        else:
            kind = "no"
        cells.append({"mark": mark, "kind": kind})
    return cells


def _removed_questions(table: dict[str, Any], raw_masks: dict[str, str]) -> set[int]:
    ratings = table.get("ratings") or []
    removed = {i + 1 for i, rating in enumerate(ratings) if rating is None and table.get("played")}
    for mask in raw_masks.values():
        removed |= {i + 1 for i, mark in enumerate(mask) if mark == "X"}
    return removed


def site_difference(place: str | None, site_position: float | None) -> dict[str, str] | None:
    """The rating site's position where it is not the portal's place, with why.

    The portal shares places of equal correct answers (CHGK-13), the site gives their average: equal is no
    difference. A whole position inside the shared range is the site breaking the tie (a shoot-out); any other is
    a difference of the answers themselves (a mask or a verdict recorded otherwise)."""
    if place is None or site_position is None:
        return None
    first, _sep, last = str(place).partition("-")
    low, high = int(first), int(last or first)
    if site_position == (low + high) / 2:
        return None
    position = f"{site_position:g}"
    if low <= site_position <= high and float(site_position).is_integer():
        reason = _("the site breaks the tie (a shoot-out); here the places are shared (CHGK-13)")
    else:
        reason = _("the site's answers differ from those recorded here (a mask or a verdict)")
    return {"position": position, "reason": reason}


def tour_view(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    tour = Tour.objects.select_related("stage", "host").filter(stage__tournament=tournament, number=number).order_by(
        "stage__order").first()
    if tour is None:
        raise Http404("no such tour")
    stored = tour_table(tournament, number)
    table = stored or {}
    stored_masks = {name: (mask, site) for name, mask, site in Mask.objects.filter(tour=tour).values_list(
        "team__name", "mask", "site_position")}
    raw_masks = {name: mask for name, (mask, _site) in stored_masks.items()}
    removed = _removed_questions(table, raw_masks)
    teams = TeamIndex(tournament)
    rows = []
    for row in table.get("rows", []):
        site = stored_masks.get(row["team"], (None, None))[1]
        rows.append({**row, "team_pk": teams.pk(row["team"], tour.stage.key),
                     "site": site_difference(row.get("place"), site),
                     "cells": _cells(row.get("mask"), raw_masks.get(row["team"]), tour.questions, removed)})
    appeals = list(Appeal.objects.filter(tour=tour).select_related("team").prefetch_related(
        "credited_teams").order_by("question", "filed_at", "order"))
    ratings = table.get("ratings") or [None] * tour.questions
    window = tour_window(request.user, tournament, tour)
    by_question: dict[int, list[Appeal]] = {}
    for appeal in appeals:
        by_question.setdefault(appeal.question, []).append(appeal)
    questions = {q.number: q for q in Question.objects.filter(tour=tour).order_by("number")}
    return render(request, "tournaments/tour.html", {
        "tournament": tournament, "tour": tour, "table": table, "rows": rows,
        "question_numbers": list(range(1, tour.questions + 1)),
        "ratings": ratings, "removed": sorted(removed), "appeals": appeals,
        "questions": list(questions.values()),
        "host_pk": tour.host_id, "zone": zones_caption(tournament.timezone, [tour.played_on]),
        "window": window, "sees_appellant": can_see_hidden_appellant(request.user, tournament),
        "question_rows": [{"number": n, "question": questions.get(n), "appeals": by_question.get(n, []),
                           "removed": n in removed} for n in range(1, tour.questions + 1)],
        "figures": figures_state(tournament),
    })
