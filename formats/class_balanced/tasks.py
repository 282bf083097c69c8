"""Long organizer jobs run by Celery, with their progress in the cache for the page to show."""

from __future__ import annotations

from celery import shared_task
from django.core.cache import cache

from formats.class_balanced.services import ScheduleRefused, generate
from tournaments.models import Stage

PROGRESS_KEY = "schedule-progress:{}"


@shared_task
def generate_class_schedule(stage_id: int, seed: str) -> int:
    """Generate a class_balanced stage's schedule (CB-5, CB-6), reporting progress."""
    key = PROGRESS_KEY.format(stage_id)

    def progress(done: int, total: int) -> None:
        cache.set(key, {"state": "running", "done": done, "total": total}, 3600)

    progress(0, 1)
    try:
        count = generate(Stage.objects.select_related("tournament").get(pk=stage_id), seed, progress)
    except ScheduleRefused as exc:
        cache.set(key, {"state": "refused", "message": str(exc)}, 3600)
        return 0
    except Exception as exc:
        cache.set(key, {"state": "failed", "message": repr(exc)}, 3600)
        raise
    cache.set(key, {"state": "done", "games": count}, 3600)
    return count


def progress_of(stage_id: int) -> dict | None:
    return cache.get(PROGRESS_KEY.format(stage_id))
