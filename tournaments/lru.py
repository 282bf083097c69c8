"""A small thread-safe least-recently-used map with an optional expiry per entry.

Per-process caches of derived data use it (``tournaments.game_cache``, the standings
API's rendered bodies): bounded, so a process never grows with the site.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class LRU(Generic[K, V]):
    """At most ``max_entries`` values (0: keeps nothing), each until its expiry (a ``time.time()`` moment)."""

    def __init__(self, max_entries: int) -> None:
        self.max_entries = max_entries
        self._entries: OrderedDict[K, tuple[float, V]] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, key: K, now: float | None = None) -> V | None:
        now = time.time() if now is None else now
        with self._lock:
            item = self._entries.get(key)
            if item is None:
                return None
            if item[0] <= now:
                del self._entries[key]
                return None
            self._entries.move_to_end(key)
            return item[1]

    def set(self, key: K, value: V, expires: float = math.inf) -> None:
        if self.max_entries <= 0:
            return
        with self._lock:
            self._entries[key] = (expires, value)
            self._entries.move_to_end(key)
            while len(self._entries) > self.max_entries:
                self._entries.popitem(last=False)

    def pop(self, key: K) -> None:
        with self._lock:
            self._entries.pop(key, None)

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, key: object) -> bool:
        return key in self._entries
