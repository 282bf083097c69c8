"""``tournaments.collector``: the recompute's objects are kept out of the cyclic collector's sight."""

from __future__ import annotations

import gc
import weakref

import pytest

from scoring.services import recompute
from tests.test_pages import demo, load
from tournaments import collector
from tournaments.models import Game


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def _cycle() -> tuple[_Node, weakref.ref]:
    first, second = _Node(), _Node()
    first.other, second.other = second, first
    return first, weakref.ref(first)


@pytest.fixture
def collector_clock(monkeypatch):
    """The collector's last full collection, set by the test; the process's frozen objects unfrozen after it."""
    yield lambda seconds_ago: monkeypatch.setattr(collector, "_last_full", collector.time.monotonic() - seconds_ago)
    gc.unfreeze()


@pytest.mark.django_db
@pytest.mark.parametrize("ruleset", ["family_league", "chgk_tour_points", "class_balanced", "elimination_gp"])
def test_a_recompute_leaves_no_reference_cycles(ruleset):
    """What the keeping pause freezes is freed by reference counting alone: a recompute, from scratch and after a
    saved result, leaves nothing that only the cyclic collector would free."""
    tournament = load(demo(ruleset))
    game = Game.objects.filter(stage__tournament=tournament).first()
    gc.collect()
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        gc.set_debug(gc.DEBUG_SAVEALL)
        recompute(tournament.pk, force=True)
        if game is not None:
            game.save()
            recompute(tournament.pk)
        found = gc.collect()
        kinds = sorted({type(o).__name__ for o in gc.garbage})
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        if was_enabled:
            gc.enable()
    assert found == 0, kinds


def test_a_keeping_pause_freezes_what_is_alive_and_a_plain_one_does_not(collector_clock):
    collector_clock(0)
    gc.unfreeze()
    with collector.gc_paused():
        kept = [object() for _ in range(10)], {"a": []}
    assert gc.isenabled() and gc.get_freeze_count() == 0
    with collector.gc_paused(keep=True):
        kept = [[] for _ in range(10)]
        assert not gc.isenabled()
    assert gc.isenabled() and gc.get_freeze_count() > len(kept)


def test_a_cycle_frozen_by_a_keeping_pause_is_collected_by_the_periodic_full_collection(collector_clock):
    """A cycle alive when a keeping pause ends is out of the collector's sight; the full collection at the end of
    a keeping pause once ``FULL_COLLECTION_SECONDS`` have passed frees it."""
    collector_clock(0)
    node, alive = _cycle()
    with collector.gc_paused(keep=True):
        pass
    del node
    gc.collect()
    assert alive() is not None  # frozen: the collector does not see it
    collector_clock(collector.FULL_COLLECTION_SECONDS - 5)
    with collector.gc_paused(keep=True):
        pass
    assert alive() is not None  # the full collection is not due yet
    collector_clock(collector.FULL_COLLECTION_SECONDS + 1)
    with collector.gc_paused(keep=True):
        pass
    assert alive() is None
    assert collector.time.monotonic() - collector._last_full < 5


def test_a_nested_keeping_pause_leaves_the_collector_paused(collector_clock):
    collector_clock(0)
    gc.disable()
    try:
        with collector.gc_paused(keep=True):
            pass
        assert not gc.isenabled()
    finally:
        gc.enable()
