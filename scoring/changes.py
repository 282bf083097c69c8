""""Tournament T changed": bump its facts version and enqueue one recompute.

Called for every change to facts (signals of the fact models, the importer,
result forms). Within one transaction a tournament gets one recompute
callback however many rows changed; across transactions, bursts coalesce in
the task itself (``scoring.tasks``): a recompute that finds a newer snapshot
already stored does nothing, and at most one job per tournament waits in the
queue at a time (a cache key set with ``add``).
"""

from __future__ import annotations

import contextlib
import contextvars

from django.conf import settings
from django.core.cache import cache
from django.db import connection, transaction
from django.db.models import F

QUEUED_KEY = "recompute-queued:{}"
QUEUED_TTL = 120


class _Dispatch:
    """The on-commit callback for one tournament (recognisable to avoid duplicates)."""

    def __init__(self, tournament_id: int):
        self.tournament_id = tournament_id

    def __call__(self) -> None:
        enqueue_recompute(self.tournament_id)


def mark_changed(tournament_id: int, *, bump: bool = True, game_id: int | None = None) -> None:
    """Record that the facts of a tournament changed and schedule its recompute.

    ``game_id``: the change touched that game only (the game row, its seats,
    no-show eliminations or absent teams); its ``revision`` is bumped and the
    other games' facts stay valid for the loader's cache (``scoring.game_cache``).
    Any other change bumps ``head_version``, which invalidates every cached game.
    """
    from tournaments.models import Game, Tournament

    if bump and game_id is not None:
        Tournament.objects.filter(pk=tournament_id).update(facts_version=F("facts_version") + 1)
        Game.objects.filter(pk=game_id).update(revision=F("revision") + 1)
    elif bump:
        Tournament.objects.filter(pk=tournament_id).update(facts_version=F("facts_version") + 1,
                                                           head_version=F("head_version") + 1)
    pending = getattr(connection, "run_on_commit", [])
    if connection.in_atomic_block and any(
        isinstance(func, _Dispatch) and func.tournament_id == tournament_id for _sids, func, _robust in pending
    ):
        return
    transaction.on_commit(_Dispatch(tournament_id))


def enqueue_recompute(tournament_id: int) -> None:
    """Send the recompute job unless one for this tournament already waits in the queue."""
    from scoring.tasks import recompute_standings

    if settings.CELERY_TASK_ALWAYS_EAGER:
        recompute_standings.apply(args=[tournament_id])
        return
    if cache.add(QUEUED_KEY.format(tournament_id), 1, QUEUED_TTL):
        recompute_standings.apply_async(args=[tournament_id], countdown=settings.RECOMPUTE_COUNTDOWN)


_suspended: contextvars.ContextVar[bool] = contextvars.ContextVar("tracking_suspended", default=False)


@contextlib.contextmanager
def bulk_change():
    """Within the block, row signals neither audit nor recompute: the caller records the change once."""
    token = _suspended.set(True)
    try:
        yield
    finally:
        _suspended.reset(token)


def tracking_suspended() -> bool:
    return _suspended.get()
