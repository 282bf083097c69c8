"""Celery jobs that recompute the tables after each change of facts.

A save is committed before its recompute is queued (``tournaments.changes`` enqueues on commit), so the
queueing must never undo the save's success: when the broker does not take the job, this
process recomputes the table itself (``recompute_inline``), and for ``BROKER_RETRY_SECONDS`` it does so at
once, without trying the broker again on every save. A recompute that fails there is logged and leaves the
table marked stale; the beat's sweep (``sweep_stale_standings``) recomputes every stale table that nobody is
recomputing and closes the runs of workers that died.

Scaling out: jobs are sent without an ETA, so they stay in the broker until a free worker
takes them (a worker holds ETA jobs it has read, outside ``worker_prefetch_multiplier``, while other workers
idle); the saves made while a job waits or runs coalesce on the per-tournament queued key. With
``RECOMPUTE_COUNTDOWN`` (0.2 s) the job itself first waits out what is left of it since it was queued, so that
a burst of saves on an idle queue makes one run, not two; a job that waited that long in the queue already
starts at once, and so does a job behind which others wait (``others_waiting``): a worker with work to do
loses no time to the wait (one solo worker at 10 saves a second across 50 tournaments spent a third of its time
in it, fell behind, and then its tables were seconds late). The per-game and per-tour figures the pages show are
stored by the same recompute, in the same transaction as the table (``scoring.figures``).
"""

from __future__ import annotations

import logging
import time

from celery import shared_task
from django.conf import settings
from django.core.cache import cache
from django.utils import timezone

from scoring import services
from scoring.models import StandingsSnapshot
from scoring.services import recompute

log = logging.getLogger(__name__)

QUEUED_KEY = "recompute-queued:{}"
QUEUED_TTL = 120


class BrokerState:
    """Until when (``time.monotonic()``) this process takes the broker for unreachable."""

    down_until = 0.0


def broker_down() -> bool:
    return time.monotonic() < BrokerState.down_until


def enqueue(tournament_id: int) -> None:
    """Send the recompute job unless one for this tournament already waits in the queue.

    Never raises for an unreachable broker or cache: the recompute then runs in this process.
    """
    if settings.CELERY_TASK_ALWAYS_EAGER:
        recompute_standings.apply(args=[tournament_id])
        return
    if not broker_down():
        key = QUEUED_KEY.format(tournament_id)
        if not cache.add(key, 1, QUEUED_TTL):  # config.cache answers True while Redis is unreachable
            return
        try:
            recompute_standings.apply_async(args=[tournament_id, time.time()])
            return
        except Exception as exc:  # noqa: BLE001 - kombu's OperationalError, a refused or timed-out connection
            BrokerState.down_until = time.monotonic() + settings.BROKER_RETRY_SECONDS
            log.warning("the broker did not take the recompute of tournament %s (%r): recomputing in-process",
                        tournament_id, exc)
            cache.delete(key)  # no job waits: the next save must not take the key for one
    recompute_inline(tournament_id)


def recompute_inline(tournament_id: int) -> bool:
    """The fallback for an unreachable broker: recompute here and now; False when it failed or was not needed."""
    try:
        return recompute(tournament_id)
    except Exception:  # noqa: BLE001 - the save is committed; the table stays marked stale for the sweep
        log.exception("the in-process recompute of tournament %s failed; the sweep will retry it", tournament_id)
        return False


@shared_task(bind=True, autoretry_for=(Exception,), retry_backoff=1, retry_backoff_max=30, max_retries=5,
             acks_late=True, reject_on_worker_lost=True)
def recompute_standings(self, tournament_id: int, queued_at: float | None = None) -> bool:
    """Recompute one tournament; a job queued meanwhile will pick up later changes.

    ``queued_at`` (``time.time()`` of the ``enqueue``): the job first waits until ``RECOMPUTE_COUNTDOWN`` has
    passed since then, with the queued key still set, so that the saves of a burst join this run.
    """
    wait = 0.0 if queued_at is None else coalescing_wait(queued_at)
    if wait and not others_waiting(self.app, (self.request.delivery_info or {}).get("routing_key")):
        time.sleep(wait)
    cache.delete(QUEUED_KEY.format(tournament_id))
    return recompute(tournament_id)


def others_waiting(app, queue: str | None = None) -> bool:
    """Whether other jobs wait in the worker's queue (the broker's count of its messages); False when there is
    no broker (eager tasks) or it cannot tell in time.
"""
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return False
    try:
        with app.pool.acquire(block=True, timeout=1) as connection:
            declared = connection.default_channel.queue_declare(
                queue=queue or settings.CELERY_TASK_DEFAULT_QUEUE, passive=True)
            return declared.message_count > 0
    except Exception:  # noqa: BLE001 - a broker that cannot tell: wait as usual
        log.debug("could not count the waiting jobs", exc_info=True)
        return False


def coalescing_wait(queued_at: float, now: float | None = None) -> float:
    """Seconds still to wait for ``RECOMPUTE_COUNTDOWN`` since ``queued_at``; never more (clocks of two machines)."""
    countdown = settings.RECOMPUTE_COUNTDOWN
    elapsed = (time.time() if now is None else now) - queued_at
    return min(countdown, max(0.0, countdown - elapsed))


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


@shared_task
def sweep_stale_standings() -> dict[str, object]:
    """Close abandoned recompute runs and queue the recompute of every stale table nobody recomputes (beat).

    ``STANDINGS_SWEEP_SECONDS`` apart (15 s by default): a worker killed mid-recompute, a job lost with a
    restarted Redis, a save whose job was never queued leave their table stale for at most that long.
    """
    result = services.sweep(enqueue)
    if result.closed or result.queued:
        log.warning("sweep: closed %d abandoned runs, queued the recompute of tournaments %s", result.closed,
                    result.queued)
    return {"closed": result.closed, "queued": result.queued, "running": result.running}
