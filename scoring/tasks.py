"""Celery jobs that recompute the tables after each change of facts."""

from __future__ import annotations

from celery import shared_task
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from scoring.models import StandingsSnapshot
from scoring.services import recompute, refresh_figures

QUEUED_KEY = "recompute-queued:{}"
QUEUED_TTL = 120


def enqueue(tournament_id: int) -> None:
    """Send the recompute job unless one for this tournament already waits in the queue."""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        recompute_standings.apply(args=[tournament_id])
        return
    if cache.add(QUEUED_KEY.format(tournament_id), 1, QUEUED_TTL):
        recompute_standings.apply_async(args=[tournament_id], countdown=settings.RECOMPUTE_COUNTDOWN)


@shared_task(bind=True, autoretry_for=(Exception,), retry_backoff=1, retry_backoff_max=30, max_retries=5,
             acks_late=True, reject_on_worker_lost=True)
def recompute_standings(self, tournament_id: int) -> bool:
    """Recompute one tournament; a job queued meanwhile will pick up later changes."""
    cache.delete(QUEUED_KEY.format(tournament_id))
    changed = recompute(tournament_id)
    if changed:
        store_figures.delay(tournament_id)
    return changed


@shared_task(acks_late=True)
def store_figures(tournament_id: int) -> int:
    """Seat points and tour tables of the facts just recomputed, for the game and tour pages (after the table)."""
    return refresh_figures(tournament_id)


@shared_task
def recheck_due_snapshots() -> int:
    """Recompute tables whose appeal windows closed since they were computed (beat)."""
    due = StandingsSnapshot.objects.filter(stage_key="", recheck_at__lte=timezone.now()).values_list(
        "tournament_id", flat=True)
    count = 0
    for tournament_id in due:
        recompute(tournament_id)
        count += 1
    return count
