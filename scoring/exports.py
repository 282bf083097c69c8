"""Files built from what is already stored: standings as CSV / XLSX, a schedule as iCalendar.

The standings builders read the export document of a snapshot
(``tournament-portal/standings/1``) and never compute anything; the same
table, teams first, then players where the ruleset ranks them.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.utils import timezone
from django.utils.translation import gettext as _

TEAM_COLUMNS = ("rank", "group", "team", "points", "status")
FORMULA_LEADS = ("=", "+", "-", "@", "\t", "\r")


def neutral(value: Any) -> Any:
    """A text cell that a spreadsheet would read as a formula, with a single quote before it (OWASP, CSV
    injection): a team named ``=HYPERLINK(...)`` stays text. Numbers and everything else are kept as they are."""
    if isinstance(value, str) and value.startswith(FORMULA_LEADS):
        return "'" + value
    return value


def _neutral_rows(table: list[list[Any]]) -> list[list[Any]]:
    return [[neutral(cell) for cell in row] for row in table]
PLAYER_COLUMNS = ("rank", "player", "team", "points", "games", "status")


def _as_is(key: str) -> str:
    return key


@dataclass(frozen=True)
class Words:
    """How a sheet words the export's codes: tie-break keys (headers), statuses and award items. The
    portal passes its translated labels (``portal.labels.sheet_words``); by default the codes stay."""

    criterion: Callable[[str], str] = _as_is
    status: Callable[[str], str] = _as_is
    item: Callable[[str], str] = _as_is


CODES = Words()


def _labels() -> dict[str, str]:
    return {"rank": _("Rank"), "group": _("Group"), "team": _("Team"), "points": _("Points"),
            "status": _("Status"), "player": _("Player"), "games": _("Games"), "place": _("Place"),
            "prize": _("Prize"), "currency": _("Currency"), "items": _("Items")}


def _tiebreak_keys(rows: list[dict[str, Any]]) -> list[str]:
    keys: list[str] = []
    for row in rows:
        for key in row.get("tiebreaks") or {}:
            if key not in keys:
                keys.append(key)
    return keys


def _worded(column: str, value: Any, words: Words) -> Any:
    return words.status(value) if column == "status" and isinstance(value, str) else value


def team_table(export: dict[str, Any], words: Words = CODES) -> list[list[Any]]:
    """The teams of the export as rows, a header first (tie-break figures by their keys, worded)."""
    rows = export.get("teams") or []
    grouped = any(row.get("group") is not None for row in rows)
    columns = [c for c in TEAM_COLUMNS if grouped or c != "group"]
    tiebreaks = _tiebreak_keys(rows)
    labels = _labels()
    table: list[list[Any]] = [[labels[c] for c in columns] + [words.criterion(k) for k in tiebreaks]]
    for row in rows:
        table.append([_worded(c, row.get(c), words) for c in columns]
                     + [(row.get("tiebreaks") or {}).get(k) for k in tiebreaks])
    return table


def player_table(export: dict[str, Any], words: Words = CODES) -> list[list[Any]] | None:
    """The players of the export as rows (None where the ruleset does not rank players)."""
    if export.get("players") is None:
        return None
    labels = _labels()
    table: list[list[Any]] = [[labels[c] for c in PLAYER_COLUMNS]]
    table += [[_worded(c, row.get(c), words) for c in PLAYER_COLUMNS] for row in export["players"]]
    return table


def award_table(export: dict[str, Any], words: Words = CODES) -> list[list[Any]] | None:
    if export.get("awards") is None:
        return None
    labels = _labels()
    columns = ("place", "team", "player", "prize", "currency", "items")
    table: list[list[Any]] = [[labels[c] for c in columns]]
    for row in export["awards"]:
        table.append([row.get(c) if c != "items" else ", ".join(words.item(i) for i in row.get("items") or [])
                      for c in columns])
    return table


def standings_csv(export: dict[str, Any], words: Words = CODES) -> bytes:
    """CSV (UTF-8 with a byte-order mark, for spreadsheets): the teams; then, after an empty line, the players."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerows(_neutral_rows(team_table(export, words)))
    players = player_table(export, words)
    if players is not None:
        writer.writerow([])
        writer.writerows(_neutral_rows(players))
    return out.getvalue().encode("utf-8-sig")


def standings_xlsx(export: dict[str, Any], words: Words = CODES) -> bytes:
    """An Excel workbook: a sheet of teams, one of players and one of awards where present."""
    from openpyxl import Workbook
    from openpyxl.utils import get_column_letter

    workbook = Workbook()
    sheets = [(_("Teams"), team_table(export, words)), (_("Players"), player_table(export, words)),
              (_("Awards"), award_table(export, words))]
    first = True
    for title, table in sheets:
        if table is None:
            continue
        table = _neutral_rows(table)
        sheet = workbook.active if first else workbook.create_sheet()
        first = False
        sheet.title = str(title)[:31]
        for row in table:
            sheet.append(row)
        sheet.freeze_panes = "A2"
        for index, header in enumerate(table[0], start=1):
            width = max(len(str(r[index - 1])) if r[index - 1] is not None else 0 for r in table)
            sheet.column_dimensions[get_column_letter(index)].width = min(max(width, len(str(header))) + 2, 40)
    meta = workbook.properties
    meta.title = f"{export.get('tournament', '')} {export.get('stage') or ''}".strip()
    meta.creator = "tournament-portal"
    buffer = io.BytesIO()
    workbook.save(buffer)
    return buffer.getvalue()


GAME_STATUS_CANCELLED = ("not_held", "annulled")


def schedule_ics(tournament, games: list[dict[str, Any]], tours: list[dict[str, Any]],
                 domain: str = "tournament-portal") -> bytes:
    """An iCalendar of the schedule: games at their times in the tournament's zone, tours as all-day events."""
    import zoneinfo

    from icalendar import Calendar, Event

    try:
        zone = zoneinfo.ZoneInfo(tournament.timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo("Europe/Moscow")
    calendar = Calendar()
    calendar.add("prodid", "-//tournament-portal//schedule//EN")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("x-wr-calname", tournament.name)
    calendar.add("x-wr-timezone", zone.key)
    now = timezone.now()
    for game in games:
        if game["scheduled_at"] is None:
            continue
        event = Event()
        event.add("uid", f"{tournament.slug}-game-{game['id']}@{domain}")
        event.add("dtstamp", game.get("updated_at") or now)
        event.add("dtstart", game["scheduled_at"].astimezone(zone))
        summary = _("%(tournament)s: game %(number)d (%(stage)s)") % {
            "tournament": tournament.name, "number": game["number"], "stage": game["stage"]}
        if game.get("group"):
            summary += " · " + _("group %(group)s") % {"group": game["group"]}
        event.add("summary", summary)
        if game.get("link"):
            event.add("url", game["link"])
        if game["status"] in GAME_STATUS_CANCELLED:
            event.add("status", "CANCELLED")
        calendar.add_component(event)
    for tour in tours:
        if tour["played_on"] is None:
            continue
        event = Event()
        event.add("uid", f"{tournament.slug}-tour-{tour['id']}@{domain}")
        event.add("dtstamp", tour.get("updated_at") or now)
        event.add("dtstart", tour["played_on"])
        event.add("dtend", tour["played_on"] + dt.timedelta(days=1))
        summary = _("%(tournament)s: tour %(number)d") % {"tournament": tournament.name, "number": tour["number"]}
        if tour.get("host"):
            summary += " · " + _("hosted by %(team)s") % {"team": tour["host"]}
        event.add("summary", summary)
        calendar.add_component(event)
    calendar.add_missing_timezones()
    return calendar.to_ical()
