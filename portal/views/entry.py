"""Result entry forms for organizers: a tour's masks as a grid, a Mafia game with its seats.

The forms are a thin layer over the write commands (``tournaments.commands``),
the same versioned, atomic, ruleset-judged ``record_tour_masks``,
``record_game`` and ``update_game`` the API calls, so a result typed here is
refused exactly as the same result sent to the API or imported in a document
would be. The forms only turn the posted fields into the commands' payload and
show a refusal's problems beside the row they name, with the status of its
kind (``portal.api.errors.STATUS``).
"""

from __future__ import annotations

import re
from typing import Any

from django import forms
from django.contrib.auth.decorators import login_required
from django.core.exceptions import NON_FIELD_ERRORS, PermissionDenied
from django.db.models import Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

import rulesets
from accounts.models import Player
from accounts.permissions import can_enter_results, enters_some_results, result_entry_refusal
from accounts.zones import zones_caption
from formats import registry
from portal import hooks
from portal.api.errors import status_of
from portal.forms import SEAT_CELLS, SEAT_FLAGS, SEAT_NUMBERS, GameForm, TourMasksForm, seat_form_row
from portal.labels import field_label, in_words
from portal.paths import path_words
from portal.views.log_import import log_preview, roster_additions, wants_log_preview, with_roster_offers
from rulesets.base import Problem
from rulesets.errors import Conflict, Invalid, NotFound, Refused
from rulesets.facts import GAME_STATUSES, OUTCOMES, ROLES
from tournaments import commands
from tournaments.faults import once_more_after_race
from tournaments.loader import load_facts
from tournaments.messages import render as message_text
from tournaments.models import Game, GameStatus, Group, Mask, Outcome, RoleChoice, Stage, Team, Tour, Tournament
from tournaments.sources.game_log_import import record_adding_players

BLANK_SEATS = 2  # empty seat rows offered below the recorded ones (the script adds more)
NEW_GAME_SEATS = 10
MAX_SEAT_ROWS = 60
PATH_INDEX = re.compile(r"^seats\[(\d+)\](?:\.(\w+))?")


def _tournament_for_entry(request: HttpRequest, slug: str) -> Tournament:
    """The tournament, if the user enters the results of some stage of it (the stage is ``_require_stage``'s)."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if not enters_some_results(request.user, tournament):
        raise PermissionDenied(result_entry_refusal())
    return tournament


def _require_stage(request: HttpRequest, tournament: Tournament, stage: Stage) -> None:
    """A stage's results are its judges', the curator's and the organizers' (``can_enter_results``)."""
    if not can_enter_results(request.user, tournament, stage.key):
        raise PermissionDenied(result_entry_refusal(stage.key))


def _stage_teams(tournament: Tournament, stage: Stage) -> list[Team]:
    """The teams a stage's results name: the tournament's, then the stage's own draw (which wins a name clash)."""
    teams: dict[str, Team] = {}
    for team in Team.objects.filter(Q(stage__isnull=True) | Q(stage=stage), tournament=tournament).order_by(
            "stage_id", "order", "name"):
        if team.stage_id is None or team.name not in teams or teams[team.name].stage_id is None:
            teams[team.name] = team
    return sorted(teams.values(), key=lambda t: (t.order, t.name))


def _form_problems(form: forms.Form) -> list[Problem]:
    """What the form itself refuses: a seat count that is not a number, a NUL byte (the rest is read as typed)."""
    if form.is_valid():
        return []
    return [Problem(name if name != NON_FIELD_ERRORS else "", str(message))
            for name, messages in form.errors.items() for message in messages]


def _messages(problems: list[Problem], tournament: Tournament | None = None) -> list[dict[str, str]]:
    """Problems as the page lists them, in words: the field's label, not its id; a problem of
    another part of the tournament by the things it names ("stage 3, game 25, seat 9 (nick): team")."""
    facts = load_facts(tournament) if tournament is not None and any("[" in p.path.split(".")[0]
                                                                      for p in problems) else None
    return [{"path": _where(p.path, facts), "message": in_words(message_text(p.message))} for p in problems]


def _where(path: str, facts) -> str:
    if not path:
        return ""
    return path_words(path, facts) if facts is not None and path.startswith("stages[") else field_label(path)


# --- a tour's masks ---


def _normalized_mask(raw: str) -> str:
    """What an organizer types, as the interchange reads it: spaces dropped, ``x`` as ``X``."""
    return "".join(raw.split()).replace("x", "X")


def _team_problems(problems: list[Problem], names: list[str]) -> tuple[dict[str, list[str]], list[Problem]]:
    """Problems of one team's mask (path ``masks.<team>``), and the others (whole columns, the version...)."""
    by_team: dict[str, list[str]] = {}
    rest: list[Problem] = []
    for problem in problems:
        team = next((n for n in sorted(names, key=len, reverse=True)
                     if problem.path == f"masks.{n}" or problem.path.startswith((f"masks.{n}.", f"masks.{n}["))),
                    None)
        if team is None:
            rest.append(problem)
        else:
            by_team.setdefault(team, []).append(problem.message)
    return by_team, rest


@login_required
def tour_entry_view(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    """``/t/<slug>/tours/<n>/enter/``: every team's mask of the tour, as a grid."""
    tournament = _tournament_for_entry(request, slug)
    tour = Tour.objects.select_related("stage", "host").filter(stage__tournament=tournament, number=number).order_by(
        "stage__order").first()
    if tour is None:
        raise Http404("no such tour")
    _require_stage(request, tournament, tour.stage)
    teams = [t for t in _stage_teams(tournament, tour.stage) if t.pk != tour.host_id]
    stored = dict(Mask.objects.filter(tour=tour).values_list("team_id", "mask"))
    listed_absent = set(tour.absent.values_list("pk", flat=True))
    version = tour.version
    by_team: dict[str, list[str]] = {}
    general: list[Problem] = []
    conflict = None
    status = 200
    if request.method == "POST":
        form = TourMasksForm(request.POST, teams=teams)
        form_problems = _form_problems(form)
        posted = {t.pk: _normalized_mask(form.cleaned_data.get(f"mask-{t.pk}", "")) for t in teams}
        absent = {t.pk for t in teams if form.cleaned_data.get(f"absent-{t.pk}")}
        masks = {t.name: posted[t.pk] for t in teams if t.pk not in absent and posted[t.pk]}
        empty = [t.name for t in teams if t.pk not in absent and not posted[t.pk]]
        version = form.cleaned_data.get("version")
        try:
            if form_problems:
                raise Invalid(form_problems)
            if empty:
                raise Invalid([Problem(f"masks.{name}", _("%(team)s: the mask is empty; type it or mark the "
                                                          "team absent") % {"team": name}) for name in empty])
            once_more_after_race(lambda: commands.record_tour_masks(
                request.user, tour.pk, {"masks": masks, "version": version}), "the tour's masks")
        except NotFound as exc:
            raise Http404("gone") from exc
        except Refused as refused:
            status = status_of(refused)
            by_team, general = _team_problems(refused.located(), [t.name for t in teams])
            if isinstance(refused, Conflict):
                conflict = general[0].message if general else ""
                general = []
        else:
            return redirect(reverse("tour-entry", args=[tournament.slug, tour.number]) + "?saved=1")
        current = posted
        current_absent = absent
    else:
        has_results = bool(stored)
        current = {t.pk: stored.get(t.pk, "" if has_results else "0" * tour.questions) for t in teams}
        current_absent = {t.pk for t in teams if t.pk in listed_absent or (has_results and t.pk not in stored)}
    rows = [{
        "team": team, "mask": current.get(team.pk, ""), "absent": team.pk in current_absent,
        "problems": by_team.get(team.name, []),
        "cells": [current.get(team.pk, "")[q] if q < len(current.get(team.pk, "")) else ""
                  for q in range(tour.questions)],
    } for team in teams]
    return render(request, "tournaments/entry_tour.html", {
        "tournament": tournament, "tour": tour, "rows": rows, "version": version if version is not None else "",
        "question_numbers": list(range(1, tour.questions + 1)), "problems": _messages(general),
        "conflict": conflict, "saved": request.method == "GET" and request.GET.get("saved") == "1",
        "zone": zones_caption(tournament.timezone, [tour.played_on]),
    }, status=status)


# --- a Mafia game ---


def _number(raw: str) -> Any:
    """An integer field: empty is None, a number is an int, anything else goes on as typed to be refused."""
    raw = raw.strip()
    if not raw:
        return None
    try:
        return int(raw)
    except ValueError:
        return raw


def _payload(form: GameForm, rows: list[dict[str, Any]], game: Game | None) -> tuple[dict[str, Any], dict[int, int]]:
    """The services' game payload from the form, and which form row each sent seat came from."""
    data = form.cleaned_data
    absent = data.get("absent", [])
    payload: dict[str, Any] = {
        "number": _number(data.get("number", "")),
        "status": data.get("status") or "played",
        "outcome": data.get("outcome") or None,
        "omon": bool(data.get("omon")),
        "game_days": _number(data.get("game_days", "")),
        "round": _number(data.get("round", "")),
        "link": data.get("link") or None,
        "absent_teams": absent,
    }
    if data.get("group"):
        payload["group"] = data["group"]
    if game is not None:  # what the form does not show is kept as it is
        if game.scheduled_at is not None:
            payload["scheduled_at"] = game.scheduled_at.isoformat()
        if game.group_label and data.get("group") is None:  # the form posted no group field at all
            payload["group"] = game.group_label
        kept = {ns.team.name: ns.player.nick for ns in game.no_show_eliminations.select_related("team", "player")
                if ns.team.name in absent}
        if kept:
            payload["no_show_eliminated"] = kept
    seats, origin = [], {}
    for index, row in enumerate(rows):
        if not row["player"]:
            continue
        seat = {"player": row["player"], "team": row["team"], "role": row["role"]}
        for key in SEAT_NUMBERS:
            value = _number(row[key])
            if value is not None:
                seat[key] = value
        seat.update({key: row[key] for key in SEAT_FLAGS})
        origin[len(seats)] = index
        seats.append(seat)
    payload["seats"] = seats
    return payload, origin


def _seat_rows_of(game: Game | None) -> list[dict[str, Any]]:
    if game is None:
        return []
    return [{**seat_form_row(lambda name, s=s: getattr(s, name)), "player": s.player.nick, "team": s.team.name}
            for s in game.seats.select_related("player", "team").order_by("order", "pk")]


def _blank_seat() -> dict[str, Any]:
    return {**seat_form_row(lambda name: None), "player": "", "team": "", "role": "civilian"}


def _seat_problems(problems: list[Problem], origin: dict[int, int]) -> tuple[dict[int, list[str]], list[Problem]]:
    by_row: dict[int, list[str]] = {}
    rest: list[Problem] = []
    for problem in problems:
        match = PATH_INDEX.match(problem.path)
        if match and int(match.group(1)) in origin:
            field = match.group(2)
            message = in_words(message_text(problem.message))
            text = f"{field_label(field)}: {message}" if field else message
            by_row.setdefault(origin[int(match.group(1))], []).append(text)
        else:
            rest.append(problem)
    return by_row, rest


def _field_problems(problems: list[Problem], path: str) -> tuple[list[str], list[Problem]]:
    """The messages of the problems at the game's field ``path`` (shown at that field), and the others."""
    at = [in_words(message_text(p.message)) for p in problems if p.path == path]
    return at, [p for p in problems if p.path != path]


def _next_number(stage: Stage) -> int:
    return (Game.objects.filter(stage=stage).order_by("-number").values_list("number", flat=True).first() or 0) + 1


def _stored_fields(game: Game | None, stage: Stage) -> dict[str, Any]:
    """The form's game fields as the game stands (a new game: the next number, played)."""
    return {
        "number": str(game.number) if game else str(_next_number(stage)),
        "status": game.status if game else GameStatus.PLAYED, "outcome": game.outcome if game else None,
        "omon": game.omon if game else False,
        "game_days": "" if game is None or game.game_days is None else str(game.game_days),
        "round": "" if game is None or game.round is None else str(game.round),
        "link": game.link if game else "",
        "group": game.group_label if game else "",
        "absent_teams": set(game.absent_teams.values_list("name", flat=True)) if game else set(),
    }


@login_required
def game_entry_view(request: HttpRequest, slug: str, stage_key: str, number: int | None = None) -> HttpResponse:
    """``/t/<slug>/<stage>/games/<n>/enter/`` (or ``games/new/``): a game's result with its seats."""
    tournament = _tournament_for_entry(request, slug)
    if rulesets.get(tournament.ruleset).rounds != "games":
        raise Http404("this tournament plays tours, not games")
    stage = get_object_or_404(Stage, tournament=tournament, key=stage_key)
    _require_stage(request, tournament, stage)
    game = None
    if number is not None:
        game = get_object_or_404(Game.objects.select_related("stage"), stage=stage, number=number)
    teams = _stage_teams(tournament, stage)
    groups = list(Group.objects.filter(stage=stage).order_by("order", "name").values_list("name", flat=True))
    version = game.version if game else None
    by_row: dict[int, list[str]] = {}
    general: list[Problem] = []
    group_problems: list[str] = []
    new_players: list[dict[str, str]] = []
    roster_import = ""
    conflict = None
    later: list[dict[str, str]] = []  # the later games a correction puts in conflict, to confirm
    status = 200
    log_notes: list[str] = []
    preview = wants_log_preview(request)
    if preview:  # the log fills the form; nothing is saved until the organizer saves it
        read = log_preview(request, tournament, stage, number, _next_number(stage))
        general = read["problems"]
        status = 400 if general else 200
        log_notes = read.get("log_notes", [])
        new_players = read.get("new_players", [])
        roster_import = read.get("roster_import_url", "")
        rows = read.get("rows") or _seat_rows_of(game)
        fields = read.get("fields") or _stored_fields(game, stage)
        rows += [_blank_seat() for _i in range(BLANK_SEATS)]
    elif request.method == "POST":
        form = GameForm(request.POST, max_seats=MAX_SEAT_ROWS, seat_numbers=SEAT_NUMBERS, seat_flags=SEAT_FLAGS)
        form_problems = _form_problems(form)
        rows = form.seat_rows()
        payload, origin = _payload(form, rows, game)
        fields = {**payload, "absent_teams": set(payload["absent_teams"]),
                  "number": form.cleaned_data.get("number", ""), "game_days": form.cleaned_data.get("game_days", ""),
                  "round": form.cleaned_data.get("round", "")}
        try:
            if form_problems:
                raise Invalid(form_problems)
            if game is not None:
                version = _number(form.cleaned_data.get("version", ""))
            # The ticked new players join their rosters and the game is saved, in one transaction
            # a race lost to a concurrent save (the same new player, the same game number) is answered as without
            # it: the second try finds what the other save wrote (tournaments.faults)
            saved = once_more_after_race(lambda: record_adding_players(
                request.user, tournament, stage, game, payload if game is None else {**payload, "version": version},
                roster_additions(rows, origin), game_problems=hooks.game_problems,
                accept_conflicts=bool(form.cleaned_data.get("accept_conflicts"))), "the game")
        except NotFound as exc:
            raise Http404("gone") from exc
        except commands.LaterConflicts as refused:
            status = status_of(refused)
            later = _messages(refused.located(), tournament)
        except Refused as refused:
            status = status_of(refused)
            rows = with_roster_offers(rows)
            by_row, general = _seat_problems(refused.located(), origin)
            if groups:
                group_problems, general = _field_problems(general, "group")
            if isinstance(refused, Conflict):
                conflict = general[0].message if general else ""
                general = []
        else:
            return redirect(reverse("game-entry", args=[tournament.slug, stage.key, saved.number]) + "?saved=1")
    else:
        rows = _seat_rows_of(game)
        fields = _stored_fields(game, stage)
        rows += [_blank_seat() for _i in range(max(BLANK_SEATS, NEW_GAME_SEATS - len(rows)))]
    seat_rows = [{**row, "index": i, "problems": by_row.get(i, []),
                  "cells": [{**cell, "value": row[cell["name"]]} for cell in SEAT_CELLS]} for i, row in enumerate(rows)]
    nicks = list(Player.objects.filter(roster_entries__team__in=teams).order_by("nick").values_list(
        "nick", flat=True).distinct()) if teams else []
    saved_view = request.method == "GET" and request.GET.get("saved") == "1"
    return render(request, "tournaments/entry_game.html", {
        "tournament": tournament, "stage": stage, "game": game, "fields": fields, "seats": seat_rows,
        "seat_count": len(seat_rows), "teams": teams, "seat_cells": SEAT_CELLS, "seat_columns": 4 + len(SEAT_CELLS),
        "groups": groups, "group_required": len(groups) > 1, "group_problems": group_problems,
        "new_players": new_players, "roster_import_url": roster_import, "nicks": nicks,
        "version": "" if version is None else version,
        "statuses": [(value, GameStatus(value).label) for value in GAME_STATUSES],
        "outcomes": [(value, Outcome(value).label) for value in OUTCOMES],
        "roles": [(value, RoleChoice(value).label) for value in ROLES],
        "problems": _messages(general, tournament), "conflict": conflict, "later_conflicts": later,
        "saved": saved_view, "log_notes": log_notes,
        "log_preview": preview and not general,
        **(registry.for_tournament(tournament).game_entry_context(tournament, stage.key) if game is not None
           else {}),
        "zone": zones_caption(tournament.timezone, [game.scheduled_at if game else None]),
    }, status=status)
