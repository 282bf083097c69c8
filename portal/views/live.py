"""Live standings: a small version document the standings page polls (``static/js/live.js``).

``/t/SLUG/standings/version/?stage=KEY`` answers ``{facts_version, snapshot_version, computed_at, pending, stamp}``
in two queries: the tournament's facts version, the stored table's, and whether a recompute is pending (the
table lags the facts or is marked stale, or a recompute job waits in the queue, ``scoring.tasks.QUEUED_KEY``).
When the ``stamp`` (``snapshot_version`` and ``computed_at``) changes the page fetches itself again and swaps in the new
table; while ``pending`` it says "updating". Never cached: the answer is the point.
"""

from __future__ import annotations

import datetime as dt

from django.core.cache import cache
from django.http import Http404, HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404
from django.views.decorators.cache import never_cache

from scoring.models import StandingsSnapshot
from scoring.tasks import QUEUED_KEY
from tournaments.models import Tournament


def stamp(facts_version: int | None, computed_at: dt.datetime | None) -> str:
    """What identifies one stored table: its facts version and when it was computed ("" for none)."""
    if facts_version is None:
        return ""
    return f"{facts_version}@{computed_at.isoformat() if computed_at else ''}"


def queued(tournament_id: int) -> bool:
    """A recompute job of the tournament waits in the queue (a cache that does not answer says no)."""
    try:
        return bool(cache.get(QUEUED_KEY.format(tournament_id)))
    except Exception:  # noqa: BLE001 - an unreachable cache must not break the poll
        return False


@never_cache
def standings_version_view(request: HttpRequest, slug: str) -> JsonResponse:
    tournament = get_object_or_404(Tournament.objects.only("pk", "slug", "facts_version"), slug=slug)
    stage_key = request.GET.get("stage", "")
    if len(stage_key) > 40:
        raise Http404("no such stage")
    row = StandingsSnapshot.objects.filter(tournament=tournament, stage_key=stage_key).values_list(
        "facts_version", "stale", "computed_at").first()
    snapshot_version, stale, computed_at = row if row else (None, False, None)
    pending = (stale or snapshot_version is None or snapshot_version < tournament.facts_version
               or queued(tournament.pk))
    return JsonResponse({
        "facts_version": tournament.facts_version,
        "snapshot_version": snapshot_version,
        "computed_at": computed_at.isoformat() if computed_at else None,
        "pending": bool(pending),
        "stamp": stamp(snapshot_version, computed_at),
    })
