"""The ``standings.changed`` event: the new tables' version and the rows that moved.

The recompute (``scoring.services.recompute``) reads the stored team rows of every stage's table before it
stores the new ones (``rows_before``: only when someone subscribes to the event, else one query and nothing
read), and compares them after (``changed``): a row moved when it is new, gone, or its rank, points or status
changed. One event per recompute that moved a row, with the facts version the tables were computed from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from tournaments.models import Tournament, WebhookEvent
from tournaments.webhooks.events import emit, subscribed

Rows = dict[str, dict[str, Any]]
Stored = Callable[[], Iterable[tuple[str, Mapping[str, Any]]]]  # (stage key, export document) of the stored tables
FIELDS = ("rank", "points", "status")


def team_rows(export: Mapping[str, Any] | None) -> Rows:
    """``{team: {rank, points, status}}`` of a stored export document."""
    return {row["team"]: {key: row.get(key) for key in FIELDS} for row in (export or {}).get("teams", ())
            if isinstance(row, Mapping) and "team" in row}


def rows_before(tournament_id: int, stored: Stored) -> dict[str, Rows] | None:
    """The team rows of each stage's stored table, ``stored()`` giving (stage key, export) pairs (``scoring``
    stores the tables; the latest table, ``""``, is left out: it repeats one of them); None, and ``stored`` not
    called, when nobody subscribes to ``standings.changed``."""
    if not subscribed(tournament_id, WebhookEvent.STANDINGS_CHANGED):
        return None
    return {key: team_rows(export) for key, export in stored() if key}


def moved(stage: str, before: Rows, after: Rows) -> list[dict[str, Any]]:
    """The rows of one stage's table that moved, in the new table's order (rows gone last)."""
    out = []
    for team in set(before) | set(after):
        old, new = before.get(team), after.get(team)
        if old is not None and new is not None and old == new:
            continue
        out.append({"stage": stage, "team": team,
                    **{f"{key}_before": old and old[key] for key in FIELDS},
                    **{f"{key}_after": new and new[key] for key in FIELDS}})
    out.sort(key=lambda row: (row["rank_after"] is None, row["rank_after"] or 0, row["team"]))
    return out


def changed(tournament: Tournament, before: dict[str, Rows] | None, exports: Mapping[str, Mapping[str, Any]]) -> int:
    """Emit ``standings.changed`` when a row of a stage's table moved; ``before`` is ``rows_before``'s answer
    (None: nobody listens, nothing to do). ``exports``: the new export of each table, by stage key."""
    if before is None:
        return 0
    rows = []
    finals = {}
    for key, export in exports.items():
        if not key:
            continue
        rows += moved(key, before.get(key, {}), team_rows(export))
        finals[key] = bool(export.get("final"))
    if not rows:
        return 0
    return emit(tournament, WebhookEvent.STANDINGS_CHANGED, {
        "version": tournament.facts_version, "stages": sorted({row["stage"] for row in rows}),
        "final": finals, "moved": rows})
