"""The cyclic garbage collector paused while ~10^5 small fact objects are built (issue 20).

Reading a league's facts (``scoring.services.recompute``) or a league's document (``tournaments.importer``)
creates 150,000 seats that all stay alive until the work ends: every collection the allocations trigger scans
them for nothing (a third of a 10,000-game document's parse). The objects hold no cycles that must be freed
during the work; the collector runs again as usual once it is over.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Disable the cyclic collector for the block (left as it was found: a nested pause does not re-enable it)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
