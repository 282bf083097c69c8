"""Statuses that follow the facts: the tournament's, each stage table's, each row's, and why a
table is still open.

Decided here, for the pages only: the shown status of a tournament is *derived* from its stored snapshots, not
written back to ``Tournament.status`` (which the organizer sets and other rules read, e.g. FL-1 applications, the
CHGK-11 checklists): a tournament whose latest stored table is final (interchange ``final``: nothing left to play,
no appeal pending, no appeal window open) is shown as finished, on its pages and on the home page. A draft stays
a draft.

A stage's table is shown final when the tournament's latest table is final, or when the stage is over even if
later stages exist: a later stage has games or tours, no appeal of the stage is pending and no appeal window of the
tournament is open (the snapshot's ``recheck_at``, the next closing, is past or unset). The export's own
``final`` flag is left as the interchange defines it. In a final table a row still "in play" (``active``) is
shown as "finished", so the badge and the rows agree. A preliminary table says which rule holds it open.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from typing import Any

from django.db.models import Exists, F, OuterRef, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

import rulesets
from accounts.zones import moment_text
from portal.labels import status_label
from scoring.models import StandingsSnapshot
from tournaments.models import Appeal, Stage, Tournament, TournamentStatus

LATEST = ""
FINAL = "final"  # portal.views.standings.FINAL (not imported: the template filters read this module)
PRELIMINARY = "preliminary"


def final_latest_table() -> Exists:
    """True where the tournament's latest stored table is final and current (for ``annotate``)."""
    return Exists(StandingsSnapshot.objects.filter(
        tournament=OuterRef("pk"), stage_key=LATEST, stale=False, export__final=True,
        facts_version__gte=OuterRef("facts_version")))


def with_table_final(queryset: QuerySet[Tournament]) -> QuerySet[Tournament]:
    return queryset.annotate(table_final=final_latest_table())


def is_table_final(tournament: Tournament) -> bool:
    """Whether the latest stored table is final (read once per request and kept on the tournament)."""
    value = getattr(tournament, "table_final", None)
    if value is None:
        value = StandingsSnapshot.objects.filter(
            tournament=tournament, stage_key=LATEST, stale=False, export__final=True,
            facts_version__gte=F("tournament__facts_version")).exists()
        tournament.table_final = value
    return bool(value)


def shown_status(tournament: Tournament) -> str:
    """The status a page shows: finished once the latest stored table is final; a draft stays a draft."""
    if tournament.status == TournamentStatus.DRAFT:
        return tournament.status
    if tournament.status != TournamentStatus.FINISHED and is_table_final(tournament):
        return TournamentStatus.FINISHED
    return tournament.status


def shown_status_label(tournament: Tournament) -> str:
    return str(TournamentStatus(shown_status(tournament)).label)


def _window_open(snapshot: StandingsSnapshot, now: dt.datetime) -> bool:
    return snapshot.recheck_at is not None and snapshot.recheck_at > now


def stage_over(stage_key: str, stages: list[Stage], pending: list[Appeal], snapshot: StandingsSnapshot,
               now: dt.datetime) -> bool:
    """A stage some later stage of which has games or tours, with no appeal of it pending and no appeal window
    open. ``stages``: the tournament's stages in order, annotated with ``games_count`` and ``tours_count`` (the
    tournament page's); ``pending``: its pending appeals (with their stage) -- no query of its own."""
    keys = [s.key for s in stages]
    if stage_key not in keys or _window_open(snapshot, now):
        return False
    later = stages[keys.index(stage_key) + 1:]
    started = any(getattr(s, "games_count", 0) or getattr(s, "tours_count", 0) for s in later)
    return started and not any(a.stage_id is not None and a.stage.key == stage_key for a in pending)


def open_reasons(tournament: Tournament, stage_key: str, snapshot: StandingsSnapshot, pending: list[Appeal],
                 now: dt.datetime) -> list[str]:
    """Which rule holds the table open: appeals awaiting a verdict, an appeal window (until when), else games or
    tours still to play. No query: ``pending`` are the page's pending appeals, the window the snapshot's."""
    rule = rulesets.get(tournament.ruleset).appeal_policy.rule or "-"
    if stage_key:
        pending = [a for a in pending if a.stage_id is not None and a.stage.key == stage_key]
    reasons = []
    if pending:
        reasons.append(ngettext("%(count)s appeal awaits a verdict (%(rule)s).",
                                "%(count)s appeals await a verdict (%(rule)s).", len(pending))
                       % {"count": len(pending), "rule": rule})
    if _window_open(snapshot, now):
        closes = moment_text(snapshot.recheck_at - dt.timedelta(seconds=1), tournament.timezone, with_zone=False)
        reasons.append(_("An %(rule)s appeal window is open until %(moment)s (%(zone)s).")
                       % {"rule": rule, "moment": closes, "zone": tournament.timezone})
    if not reasons:
        reasons.append(_("Games or tours of this table remain to be played."))
    return reasons


def _zone(tournament: Tournament) -> zoneinfo.ZoneInfo:
    return zoneinfo.ZoneInfo(tournament.timezone)


def settle_table(table: Any, tournament: Tournament, stage_key: str, snapshot: StandingsSnapshot | None, *,
                 stages: list[Stage], pending: list[Appeal], now: dt.datetime | None = None) -> Any:
    """Make the table's badge, its rows and its reasons agree with the facts (see the module's docstring)."""
    table.reasons = []
    if snapshot is None:
        return table
    now = now or timezone.now()
    if table.status == PRELIMINARY and stage_key and (
            is_table_final(tournament) or stage_over(stage_key, stages, pending, snapshot, now)):
        table.status, table.status_label = FINAL, _("final")
    if table.status == FINAL:
        for group in table.groups:
            for row in group.rows:
                if row.status == "active":
                    row.status, row.status_label = "finished", status_label("active", final=True)
    elif table.status == PRELIMINARY:
        table.reasons = open_reasons(tournament, stage_key, snapshot, pending, now)
    return table

