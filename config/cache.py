"""Django's Redis cache, made to degrade to "nothing cached" while Redis does not answer.

Everything the portal keeps in the cache is derived data or a hint (rendered standings bodies, per-game
figures, the anonymous throttle's counters, "a recompute is already queued", a schedule job's progress);
the facts and the snapshots are in the database. So a cache that cannot be reached must not turn a page,
a read of the API or a committed save into a 500: while Redis is unreachable a read misses, a write is
dropped, and ``add`` answers True ("nothing is known to hold the key", so a caller using it to avoid
duplicate work does the work rather than skipping it).

After a failure the backend does not try Redis again for ``RETRY_AFTER`` seconds (``OPTIONS``; default
``CACHE_RETRY_SECONDS``), so a dead or black-holed server costs one connection attempt per process per
interval rather than one per call. Only connection and timeout errors are swallowed; anything else (a
bug, a wrong type stored) still raises.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from typing import Any

from django.core.cache.backends.redis import RedisCache, RedisCacheClient
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import RedisError
from redis.exceptions import TimeoutError as RedisTimeoutError

log = logging.getLogger(__name__)

UNREACHABLE = (RedisConnectionError, RedisTimeoutError, OSError)
DEFAULT_RETRY_AFTER = 5.0


def _degrading(fallback: Callable[..., Any]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Run the cache call; while Redis is unreachable answer ``fallback(*args, **kwargs)`` instead."""

    def decorate(method: Callable[..., Any]) -> Callable[..., Any]:
        @functools.wraps(method)
        def call(self: ResilientRedisCache, *args: Any, **kwargs: Any) -> Any:
            if self.down:
                return fallback(*args, **kwargs)
            try:
                result = method(self, *args, **kwargs)
            except UNREACHABLE as exc:
                self.mark_down(exc)
                return fallback(*args, **kwargs)
            self.down_until = 0.0
            return result

        return call

    return decorate


def _default(key: str, default: Any = None, *args: Any, **kwargs: Any) -> Any:
    return default


def _none(*args: Any, **kwargs: Any) -> None:
    return None


def _false(*args: Any, **kwargs: Any) -> bool:
    return False


def _true(*args: Any, **kwargs: Any) -> bool:
    return True


def _empty(*args: Any, **kwargs: Any) -> dict:
    return {}


def _all_failed(data: dict, *args: Any, **kwargs: Any) -> list:
    return list(data)


class SharedRedisClient(RedisCacheClient):
    """Django's Redis cache client with one ``redis.Redis`` per connection pool, made once.

    Django's makes a new ``redis.Redis`` for every call, and each one builds its table of about 170 response
    callbacks: a quarter of a millisecond, twice per API request for the anonymous throttle alone. A
    ``redis.Redis`` is safe to share between threads: each command takes a connection from the pool.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._clients: dict[int, Any] = {}

    def get_client(self, key: Any = None, *, write: bool = False) -> Any:
        pool = self._get_connection_pool(write)
        client = self._clients.get(id(pool))  # the pools are kept for the client's life: their ids stay theirs
        if client is None:
            client = self._clients[id(pool)] = self._client(connection_pool=pool)
        return client


class ResilientRedisCache(RedisCache):
    """``django.core.cache.backends.redis.RedisCache`` that answers a miss while Redis is unreachable (and shares
    one client per connection pool: ``SharedRedisClient``)."""

    def __init__(self, server: str, params: dict[str, Any]) -> None:
        params = dict(params)
        options = dict(params.get("OPTIONS") or {})
        self.retry_after = float(options.pop("RETRY_AFTER", DEFAULT_RETRY_AFTER))
        params["OPTIONS"] = options
        super().__init__(server, params)
        self._class = SharedRedisClient
        self.down_until = 0.0

    @property
    def down(self) -> bool:
        """True while a recent failure says Redis is unreachable (no call is tried then)."""
        return time.monotonic() < self.down_until

    def probe(self) -> bool:
        """Whether Redis answers a PING now (within the connection's timeouts, ``OPTIONS``), whatever ``down``
        says; the answer also sets or clears ``down`` for the calls that follow (``config.health``)."""
        try:
            self._cache.get_client(write=True).ping()
        except (*UNREACHABLE, RedisError) as exc:  # refused, timed out, or not Redis answering
            self.mark_down(exc)
            return False
        self.down_until = 0.0
        return True

    def mark_down(self, exc: BaseException) -> None:
        if not self.down_until:
            log.warning("the cache at %s is unreachable (%r): serving without it", self._servers, exc)
        self.down_until = time.monotonic() + self.retry_after

    get = _degrading(_default)(RedisCache.get)
    get_many = _degrading(_empty)(RedisCache.get_many)
    has_key = _degrading(_false)(RedisCache.has_key)
    set = _degrading(_none)(RedisCache.set)
    set_many = _degrading(_all_failed)(RedisCache.set_many)
    add = _degrading(_true)(RedisCache.add)
    touch = _degrading(_false)(RedisCache.touch)
    delete = _degrading(_false)(RedisCache.delete)
    delete_many = _degrading(_none)(RedisCache.delete_many)
    clear = _degrading(_false)(RedisCache.clear)
