"""The cyclic garbage collector paused while ~10^5 small fact objects are built.

Reading a league's facts (``scoring.services.recompute``) or a league's document (``tournaments.importer``)
creates 150,000 seats that all stay alive until the work ends: every collection the allocations trigger scans
them for nothing (a third of a 10,000-game document's parse). The objects hold no cycles that must be freed
during the work; the collector runs again as usual once it is over.

A recompute's objects outlive it: the loader's game cache and the ruleset's ledger keep the league's facts and
judgements between recomputes. Left to the collector, the young collection that follows the pause traversed
all of them (65-135 ms after a league's recompute from scratch, 5-10 ms after one saved result), and so did
the older generations' collections later (100-280 ms each). ``gc_paused(keep=True)`` moves every object alive
when the pause ends out of the collector's sight (``gc.freeze``): reference counting still frees each of them
once nothing refers to it, which is how every fact, ledger and table of a recompute is freed (it creates no
reference cycles: ``tests/test_collector.py``). What the collector would have found among them (a cycle made
elsewhere in the process, alive at that moment) is collected by a full collection of every object, run at the
end of a keeping pause at most once per ``FULL_COLLECTION_SECONDS``.
"""

from __future__ import annotations

import contextlib
import gc
import time
from collections.abc import Iterator

FULL_COLLECTION_SECONDS = 600.0

_last_full = time.monotonic()


@contextlib.contextmanager
def gc_paused(*, keep: bool = False) -> Iterator[None]:
    """Disable the cyclic collector for the block (left as it was found: a nested pause does not re-enable it).

    ``keep``: what the block built is kept after it (caches): every object alive when it ends is frozen
    (``gc.freeze``), after a full collection when the last one is ``FULL_COLLECTION_SECONDS`` old."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            if keep:
                _freeze()
            gc.enable()


def _freeze() -> None:
    global _last_full
    now = time.monotonic()
    if now - _last_full >= FULL_COLLECTION_SECONDS:
        gc.unfreeze()
        gc.collect()
        _last_full = now
    gc.freeze()
