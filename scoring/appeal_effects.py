"""What a verdict changed in the standings, read from what the recompute job stores (issue 15, item 5).

A verdict never computes a table in the request: it keeps the stored table of
the appeal's stage as it was (``Appeal.standings_before``, with the facts
version the verdict made), and the first recompute that includes the verdict
compares its table of that stage with it and stores the rows that moved
(``Appeal.standings_change``).
"""

from __future__ import annotations

from typing import Any

from scoring.models import StandingsSnapshot
from tournaments.models import Appeal, Tournament

LATEST = ""


def _rows(export: dict[str, Any] | None) -> list[dict[str, Any]]:
    return [{"team": row["team"], "rank": row.get("rank"), "points": row.get("points"), "status": row.get("status")}
            for row in (export or {}).get("teams", [])]


def stage_of(appeal: Appeal) -> str:
    """The stage whose table an appeal can change: its own (a Mafia decision's, a ChGK tour's), else the latest."""
    return appeal.stage.key if appeal.stage_id else LATEST


def stored_table(tournament_id: int, stage_key: str) -> list[dict[str, Any]]:
    """The team rows of the stored table of ``stage_key`` (the latest table when that stage has none)."""
    exports = dict(StandingsSnapshot.objects.filter(tournament_id=tournament_id, stage_key__in={stage_key, LATEST})
                   .values_list("stage_key", "export"))
    return _rows(exports.get(stage_key) or exports.get(LATEST))


def before_verdict(appeal: Appeal, facts_version: int) -> dict[str, Any]:
    """What ``Appeal.standings_before`` keeps: the stage, the verdict's facts version and the stored rows."""
    stage_key = stage_of(appeal)
    return {"stage": stage_key, "version": facts_version, "rows": stored_table(appeal.tournament_id, stage_key)}


def table_change(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Rows of the team table whose rank, points or status moved: before -> after."""
    old = {row["team"]: row for row in before}
    new = {row["team"]: row for row in after}
    changes = []
    for name in sorted(set(old) | set(new)):
        a, b = old.get(name), new.get(name)
        if a is None or b is None or a["rank"] != b["rank"] or a["points"] != b["points"] or a["status"] != b[
                "status"]:
            changes.append({
                "team": name,
                "rank_before": a and a["rank"], "rank_after": b and b["rank"],
                "points_before": a and a["points"], "points_after": b and b["points"],
                "status_before": a and a["status"], "status_after": b and b["status"],
            })
    changes.sort(key=lambda c: (c["rank_after"] is None, c["rank_after"] or 0, c["team"]))
    return changes


def settle(tournament: Tournament, exports: dict[str, dict[str, Any]]) -> int:
    """Store the change of every verdict this computation includes; returns how many were settled.

    ``exports``: the export of each stage just computed (``""`` the latest), at ``tournament.facts_version``.
    A verdict whose facts version is newer than the computation waits for the next one.
    """
    settled = 0
    waiting = Appeal.objects.filter(tournament=tournament, verdict__isnull=False,
                                    standings_before__isnull=False).values_list("pk", "standings_before")
    for pk, before in waiting:
        if int(before.get("version") or 0) > tournament.facts_version:
            continue
        stage_key = before.get("stage") or LATEST
        after = _rows(exports.get(stage_key) or exports.get(LATEST))
        Appeal.objects.filter(pk=pk).update(standings_change=table_change(before.get("rows") or [], after),
                                            standings_before=None)
        settled += 1
    return settled
