"""Celery jobs that recompute the tables after each change of facts."""

from __future__ import annotations

from celery import shared_task
from django.core.cache import cache

from scoring.changes import QUEUED_KEY
from scoring.services import recompute


@shared_task(bind=True, autoretry_for=(Exception,), retry_backoff=1, retry_backoff_max=30, max_retries=5,
             acks_late=True, reject_on_worker_lost=True)
def recompute_standings(self, tournament_id: int) -> bool:
    """Recompute one tournament; a job queued meanwhile will pick up later changes."""
    cache.delete(QUEUED_KEY.format(tournament_id))
    return recompute(tournament_id)


@shared_task
def recheck_due_snapshots() -> int:
    """Recompute tables whose appeal windows closed since they were computed (beat)."""
    from django.utils import timezone

    from scoring.models import StandingsSnapshot

    due = StandingsSnapshot.objects.filter(stage_key="", recheck_at__lte=timezone.now()).values_list(
        "tournament_id", flat=True)
    count = 0
    for tournament_id in due:
        recompute(tournament_id)
        count += 1
    return count
