"""Standings as the pages show them, read from a stored snapshot (never computed on a request).

The tournament page reads the snapshot's ``export`` and its ``summary``
(``scoring.serialize.page_summary``: the team rows without the per-round lists
and the chart already sampled), never its ``details``, whose size grows with
the number of games: load the snapshot with ``.defer("details")``. A snapshot
stored before ``summary`` existed gets it derived from ``details`` on the fly.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.utils.translation import gettext_lazy as _

from portal.labels import CRITERIA_SHORT, ITEMS, TEAM_STATUSES, criterion_label, label
from portal.views.chart import Chart, draw_chart
from portal.views.penalties import penalty_marks
from scoring.models import StandingsSnapshot
from scoring.serialize import SUMMARY_VERSION, page_summary
from tournaments.models import Tournament

UPDATING = "updating"
FINAL = "final"
PRELIMINARY = "preliminary"
MISSING = "missing"
STATUS_LABELS = {
    UPDATING: _("updating…"),
    FINAL: _("final"),
    PRELIMINARY: _("preliminary"),
    MISSING: _("not computed yet"),
}


@dataclass
class Row:
    rank: int
    place: str
    team: str
    team_pk: int | None
    points: Any
    status: str
    status_label: str
    tiebreaks: list[Any]
    separated_by: str | None
    separated_label: str
    details: dict[str, Any]
    penalties: list[dict[str, Any]] = field(default_factory=list)  # portal.views.penalties.penalty_marks


@dataclass
class GroupTable:
    name: str | None
    rows: list[Row] = field(default_factory=list)


@dataclass
class Table:
    status: str
    status_label: str
    columns: list[tuple[str, str]]
    groups: list[GroupTable]
    chart: Chart | None
    players: list[dict[str, Any]]
    awards: list[dict[str, Any]]
    best_player: list[str] | None
    seed: str | None
    notes: list[str]
    stage: str | None
    has_separators: bool


def snapshot_status(tournament: Tournament, snapshot: StandingsSnapshot | None) -> str:
    """preliminary / final / updating (the snapshot lags the facts, or its last recompute failed)."""
    if snapshot is None:
        return MISSING
    if snapshot.stale or snapshot.facts_version < tournament.facts_version:
        return UPDATING
    return FINAL if snapshot.export.get("final") else PRELIMINARY


def place_labels(ranks: list[int]) -> list[str]:
    """Shared places as ranges: ranks 1, 2, 2, 4 -> "1", "2-3", "2-3", "4"."""
    counts: dict[int, int] = {}
    for rank in ranks:
        counts[rank] = counts.get(rank, 0) + 1
    return [f"{rank}-{rank + counts[rank] - 1}" if counts[rank] > 1 else str(rank) for rank in ranks]


def snapshot_summary(snapshot: StandingsSnapshot | None) -> dict[str, Any]:
    """The page's part of a snapshot: its stored ``summary``, or one derived from ``details`` for an older row.

    The fallback reads ``details`` (one more query when the snapshot was loaded with ``.defer("details")``).
    """
    if snapshot is None:
        return {}
    summary = snapshot.summary
    if isinstance(summary, dict) and summary.get("version") == SUMMARY_VERSION:
        return summary
    return page_summary(snapshot.details)


def _detail_rows(summary: dict[str, Any]) -> list[dict[str, Any]]:
    rows = summary.get("teams")
    return rows if isinstance(rows, list) else []


def team_rows(snapshot: StandingsSnapshot, team_pks: dict[str, int],
              summary: dict[str, Any] | None = None) -> tuple[list[GroupTable], list[str]]:
    """The export's rows with their summary details, split by group when rows carry one."""
    export_rows = snapshot.export.get("teams", [])
    details = _detail_rows(summary if summary is not None else snapshot_summary(snapshot))
    by_index = {i: d for i, d in enumerate(details)}
    columns = list(export_rows[0].get("tiebreaks", {})) if export_rows else []
    groups: dict[str | None, GroupTable] = {}
    for index, item in enumerate(export_rows):
        extra = by_index.get(index, {})
        if extra.get("team") != item.get("team"):
            extra = next((d for d in details if d.get("team") == item.get("team")), {})
        group = item.get("group", extra.get("group"))
        table = groups.setdefault(group, GroupTable(name=group))
        separated = extra.get("separated_by")
        table.rows.append(Row(
            rank=item.get("rank", 0), place="", team=item.get("team", ""), team_pk=team_pks.get(item.get("team")),
            points=item.get("points"), status=item.get("status", ""),
            status_label=str(label(TEAM_STATUSES, item.get("status"))),
            tiebreaks=[item.get("tiebreaks", {}).get(key) for key in columns],
            separated_by=separated, separated_label=criterion_label(separated),
            details=extra.get("details") or {},
        ))
    for table in groups.values():
        for row, place in zip(table.rows, place_labels([r.rank for r in table.rows])):
            row.place = place
    return list(groups.values()), columns


def _chart(summary: dict[str, Any]) -> Chart | None:
    """The chart sampled at store time (``summary["chart"]``): drawing it costs the same at any size."""
    chart = summary.get("chart")
    return draw_chart(chart) if isinstance(chart, dict) else None


def _awards(export: dict[str, Any], team_pks: dict[str, int], player_pks: dict[str, int]) -> list[dict[str, Any]]:
    out = []
    for award in export.get("awards") or []:
        out.append({**award, "team_pk": team_pks.get(award.get("team")),
                    "player_pk": player_pks.get(award.get("player")),
                    "items_text": [str(label(ITEMS, item)) for item in award.get("items") or []]})
    return out


def _players(export: dict[str, Any], team_pks: dict[str, int], player_pks: dict[str, int]) -> list[dict[str, Any]]:
    rows = export.get("players") or []
    places = place_labels([p.get("rank", 0) for p in rows])
    return [{**p, "place": place, "player_pk": player_pks.get(p.get("player")), "team_pk": team_pks.get(p.get("team")),
             "status_label": str(label(TEAM_STATUSES, p.get("status")))} for p, place in zip(rows, places)]


def player_nicks(snapshot: StandingsSnapshot | None) -> set[str]:
    """Every nick the snapshot's export names (players table, awards, best player)."""
    if snapshot is None:
        return set()
    export = snapshot.export
    nicks = {p.get("player") for p in export.get("players") or []}
    nicks |= {a.get("player") for a in export.get("awards") or []}
    nicks |= set(export.get("best_player") or [])
    return {n for n in nicks if n}


def build_table(tournament: Tournament, snapshot: StandingsSnapshot | None, team_pks: dict[str, int],
                player_pks: dict[str, int], summary: dict[str, Any] | None = None) -> Table:
    """The page's table from the snapshot's export and summary (``snapshot_summary`` when not given)."""
    status = snapshot_status(tournament, snapshot)
    if snapshot is None:
        return Table(status=status, status_label=str(STATUS_LABELS[status]), columns=[], groups=[], chart=None,
                     players=[], awards=[], best_player=None, seed=None, notes=[], stage=None, has_separators=False)
    if summary is None:
        summary = snapshot_summary(snapshot)
    groups, columns = team_rows(snapshot, team_pks, summary)
    for group in groups:
        for row in group.rows:
            row.penalties = penalty_marks(tournament, row.details)
    export = snapshot.export
    notes = summary.get("notes") or []
    return Table(
        status=status, status_label=str(STATUS_LABELS[status]),
        columns=[(key, str(label(CRITERIA_SHORT, key))) for key in columns],
        groups=groups, chart=_chart(summary),
        players=_players(export, team_pks, player_pks), awards=_awards(export, team_pks, player_pks),
        best_player=export.get("best_player"), seed=export.get("seed"), notes=list(notes),
        stage=export.get("stage"),
        has_separators=any(r.separated_by and r.separated_by != "points" for g in groups for r in g.rows),
    )
