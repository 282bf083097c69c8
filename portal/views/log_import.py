"""The "import from game log" box of the game entry form: a log as a preview of the form.

The organizer uploads or pastes a mafiaonline.ru "Лог партии" page; the form comes
back filled with what the log says (``tournaments.sources.game_log_import``): the
seats in seat order with their roles, teams from the rosters, days played,
time-outs, maniac kills, the last day/night, the outcome, OMON, game days and
the log's link. Nothing is saved: the organizer checks it, assigns the teams
of the nicks no roster holds, types what the log cannot tell (stats), and saves
through the form's own path, judged as a typed game (``tournaments.commands``).

The preview lists the nicks the portal does not know yet, each with the team the seat names when
one does, and offers under each such seat "add the player to the roster" (ticked when the team is known,
with a team to choose when not). The save (``record_adding_players``) adds the ticked ones and records the
game in one transaction; the group of a stage with several groups (FL-8) is filled in when the seats' teams
name it.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest
from django.urls import reverse
from django.utils.translation import gettext as _

from accounts.models import Role
from accounts.permissions import has_role
from portal.forms import GameLogForm, LogImportPressedForm, seat_form_row
from rulesets.base import Problem
from tournaments.fact_fields import SEAT
from tournaments.models import Stage, Tournament
from tournaments.sources.files import as_text, too_large
from tournaments.sources.game_log_import import new_nicks, read_game_log


def wants_log_preview(request: HttpRequest) -> bool:
    """The POST is the import box's, not the form's save (its button, or a file without the seats)."""
    try:
        return request.method == "POST" and LogImportPressedForm(request.POST).pressed()
    except RequestDataTooBig:
        return True


def log_preview(request: HttpRequest, tournament: Tournament, stage: Stage, number: int | None,
                next_number: int) -> dict[str, Any]:
    """``fields`` and ``rows`` for the entry form from the posted log, with ``log_notes`` and ``problems``."""
    try:
        form = GameLogForm(request.POST, request.FILES)
        valid = form.is_valid()
    except RequestDataTooBig:
        return {"problems": [Problem("log", _("the pasted page is larger than the upload limit "
                                              "(IMPORT_MAX_BYTES): nothing was read"))]}
    if not valid:
        return {"problems": [Problem("log", str(m)) for ms in form.errors.values() for m in ms]}
    upload = form.cleaned_data.get("log_file")
    if upload is not None:
        problem = too_large(upload.size)
        if problem is not None:
            return {"problems": [Problem("log", problem.message)]}
        text = as_text(upload.read())
    else:
        text = form.cleaned_data.get("log_text") or ""
        problem = too_large(len(text.encode("utf-8")))
        if problem is not None:
            return {"problems": [Problem("log", problem.message)]}
    if not text.strip():
        return {"problems": [Problem("log", _("choose the saved log page or paste its HTML"))]}
    result = read_game_log(tournament, stage, number or next_number, text)
    if result.problems or result.game is None:
        return {"problems": result.problems}
    game = result.game
    fields = {"number": str(game["number"]), "status": game["status"], "outcome": game["outcome"],
              "omon": game["omon"], "game_days": str(game["game_days"]), "round": str(game.get("round") or ""),
              "link": game["link"], "group": game.get("group") or "", "absent_teams": set()}
    new = set(result.new_players)
    rows = [{**seat_form_row(lambda name, s=s: s.get(name) if SEAT.by_name[name].mapped.in_log else None),
             "team": s["team"] or "", "unknown_team": s["team"] is None, "new_player": s["player"] in new,
             "add": s["player"] in new and s["team"] is not None, "add_team": ""}
            for s in game["seats"]]
    notes = [_("Read from the log of game %(site)d: check it, then save. Nothing is saved yet.") % {
        "site": result.site_number},
             _("Not in the log: stats (type them where the stage uses classes) and fake passports.")]
    off_rosters = [nick for nick in result.unknown if nick not in new]
    if off_rosters:
        notes.append(_("On no team of the stage (choose their team): %(nicks)s") % {"nicks": ", ".join(off_rosters)})
    return {"fields": fields, "rows": rows, "log_notes": notes, "problems": [],
            "new_players": [{"nick": row["player"], "team": row["team"]} for row in rows if row["new_player"]],
            "roster_import_url": roster_import_url(request.user, tournament)}


def roster_import_url(user, tournament: Tournament) -> str:
    """Where the tournament's rosters are imported from a file, for its organizers (the site's staff
    among them); ``""`` for anyone else."""
    if not has_role(user, tournament, Role.ORGANIZER):
        return ""
    return reverse("import-rosters", args=[tournament.slug])


def roster_additions(rows: list[dict[str, Any]], origin: dict[int, int]) -> dict[int, str]:
    """Seat index of the payload -> the team chosen for "add to the roster" (``""``: the seat's own team)."""
    return {seat: rows[row].get("add_team") or "" for seat, row in origin.items() if rows[row].get("add")}


def with_roster_offers(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The posted rows again, each marked ``new_player`` when the portal does not know its nick (one query)."""
    new = set(new_nicks(row["player"] for row in rows if row.get("player")))
    return [{**row, "new_player": row.get("player") in new} for row in rows]
