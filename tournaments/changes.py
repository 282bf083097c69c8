""""Tournament T changed": bump its facts version and enqueue one recompute.

Called for every change to facts (signals of the fact models, the importer,
result forms). Within one transaction a tournament gets one recompute
callback however many rows changed; a batch of transactions (``one_recompute``)
enqueues once at its end; across transactions, bursts coalesce in
the task itself (``scoring.tasks``): a recompute that finds a newer snapshot
already stored does nothing, and at most one job per tournament waits in the
queue at a time (a cache key set with ``add``).

The facts know nothing of the recompute job: ``scoring`` registers its
dispatcher here when the app is ready (``set_recompute``), so the arrow runs
from scoring to the facts, never back.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable

from django.db import connection, transaction
from django.db.models import F, Subquery

from tournaments.models import Game, Tournament


class _Recompute:
    """The dispatcher ``scoring`` registers: ``enqueue(tournament_id)`` and ``now(tournament_id, force)``."""

    enqueue: Callable[[int], None] | None = None
    now: Callable[[int, bool], object] | None = None


def set_recompute(enqueue: Callable[[int], None], now: Callable[[int, bool], object]) -> None:
    """Register how a changed tournament is recomputed: queued after commit, or at once (``recompute now``)."""
    _Recompute.enqueue = enqueue
    _Recompute.now = now


def recompute_now(tournament_id: int, *, force: bool = False) -> object:
    """Recompute the tournament's standings in this process, now (the admin's "recompute now")."""
    if _Recompute.now is None:
        raise RuntimeError("no recompute is registered (is the scoring app installed?)")
    return _Recompute.now(tournament_id, force)


class _Dispatch:
    """The on-commit callback for one tournament (recognisable to avoid duplicates)."""

    def __init__(self, tournament_id: int):
        self.tournament_id = tournament_id

    def __call__(self) -> None:
        waiting = _batch.get()
        if waiting is not None:  # a batch of transactions: enqueued once, at its end (``one_recompute``)
            waiting.add(self.tournament_id)
            return
        enqueue_recompute(self.tournament_id)


def mark_changed(tournament_id: int, *, bump: bool = True, game_id: int | None = None) -> None:
    """Record that the facts of a tournament changed and schedule its recompute.

    ``game_id``: the change touched that game only (the game row, its seats,
    no-show eliminations or absent teams); its ``revision`` becomes the
    tournament's new ``facts_version`` and the other games' facts stay valid
    for the loader's cache (``tournaments.game_cache``).
    Any other change bumps ``head_version``, which invalidates every cached game.
    """
    if bump and game_id is not None:
        Tournament.objects.filter(pk=tournament_id).update(facts_version=F("facts_version") + 1)
        Game.objects.filter(pk=game_id).update(revision=Subquery(  # the new version (tournaments.game_cache)
            Tournament.objects.filter(pk=tournament_id).values("facts_version")[:1]))
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
    """Send the recompute job (the registered dispatcher coalesces: one waits in the queue at most)."""
    if _Recompute.enqueue is not None:
        _Recompute.enqueue(tournament_id)


_suspended: contextvars.ContextVar[bool] = contextvars.ContextVar("tracking_suspended", default=False)
_batch: contextvars.ContextVar[set[int] | None] = contextvars.ContextVar("recompute_batch", default=None)


@contextlib.contextmanager
def one_recompute():
    """Within the block, each committed transaction's recompute waits; at its end every tournament changed is
    enqueued once. A batch of files, each saved in its own transaction (``tournaments.sources.log_batch``), is
    recomputed once; the facts versions still move with every change, and audit is untouched. A block inside
    another is part of it."""
    if _batch.get() is not None:
        yield
        return
    waiting: set[int] = set()
    token = _batch.set(waiting)
    try:
        yield
    finally:
        _batch.reset(token)
        for tournament_id in sorted(waiting):
            enqueue_recompute(tournament_id)


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
