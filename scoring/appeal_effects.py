"""What a verdict changed in the standings, read from what the recompute job stores.

A verdict never computes a table in the request: it keeps the stored table of
the appeal's stage as it was (``Appeal.standings_before``, with the facts
version the verdict made), and the first recompute that includes the verdict
compares its table of that stage with it and stores the change
(``Appeal.standings_change``).

The change is read in the appealed stage's table: the stage
of the appealed penalty, decision or violation (a penalty filed without a
stage of its own is still the stage's), and its first row is always the
appealed team's, before and after (``"appealed": true``), even when its place
did not move; the other rows of that table that moved follow. Every row names
its stage.
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
    """The stage whose table an appeal can change: the appealed penalty's, decision's, game's (FL-19) or tour's
    (CHGK-18), or the appeal's own; the latest table only when none of them has a stage."""
    for owner in (appeal.penalty, appeal.decision, appeal.game, appeal.tour):
        if owner is not None and owner.stage_id:
            return owner.stage.key
    return appeal.stage.key if appeal.stage_id else LATEST


def appealed_team(appeal: Appeal) -> str | None:
    """The team whose row the appeal is about: the penalised team (FL-18), the team a decision names, else the
    appealing team (a detected violation is the appellant's own, FL-19; a ChGK appeal, CHGK-19)."""
    for owner in (appeal.penalty, appeal.decision):
        if owner is not None and owner.team_id:
            return owner.team.name
    if appeal.team_id:
        return appeal.team.name
    return appeal.appellant or None


def stored_table(tournament_id: int, stage_key: str) -> list[dict[str, Any]]:
    """The team rows of the stored table of ``stage_key`` (the latest table when that stage has none)."""
    exports = dict(StandingsSnapshot.objects.filter(tournament_id=tournament_id, stage_key__in={stage_key, LATEST})
                   .values_list("stage_key", "export"))
    return _rows(exports.get(stage_key) or exports.get(LATEST))


def before_verdict(appeal: Appeal, facts_version: int) -> dict[str, Any]:
    """What ``Appeal.standings_before`` keeps: the stage, the appealed team, the verdict's facts version and the
    stored rows of that stage's table."""
    stage_key = stage_of(appeal)
    return {"stage": stage_key, "team": appealed_team(appeal), "version": facts_version,
            "rows": stored_table(appeal.tournament_id, stage_key)}


def _change(name: str, a: dict[str, Any] | None, b: dict[str, Any] | None, stage: str,
            appealed: bool) -> dict[str, Any]:
    return {
        "team": name, "stage": stage, "appealed": appealed,
        "rank_before": a and a["rank"], "rank_after": b and b["rank"],
        "points_before": a and a["points"], "points_after": b and b["points"],
        "status_before": a and a["status"], "status_after": b and b["status"],
    }


def table_change(before: list[dict[str, Any]], after: list[dict[str, Any]], *, team: str | None = None,
                 stage: str = LATEST) -> list[dict[str, Any]]:
    """The appealed ``team``'s row first (before -> after, moved or not), then the other rows of the same table
    whose rank, points or status moved."""
    old = {row["team"]: row for row in before}
    new = {row["team"]: row for row in after}
    changes = []
    for name in sorted((set(old) | set(new)) - {team}):
        a, b = old.get(name), new.get(name)
        if a is None or b is None or a["rank"] != b["rank"] or a["points"] != b["points"] or a["status"] != b[
                "status"]:
            changes.append(_change(name, a, b, stage, False))
    changes.sort(key=lambda c: (c["rank_after"] is None, c["rank_after"] or 0, c["team"]))
    if team is not None and (team in old or team in new):
        changes.insert(0, _change(team, old.get(team), new.get(team), stage, True))
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
        export = exports.get(stage_key) or exports.get(LATEST) or {}
        after = _rows(export)
        change = table_change(before.get("rows") or [], after, team=before.get("team"),
                              stage=stage_key or export.get("stage") or LATEST)
        Appeal.objects.filter(pk=pk).update(standings_change=change, standings_before=None)
        settled += 1
    return settled
