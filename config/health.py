"""``GET /healthz/``: the container's liveness and readiness probe.

Answered by a middleware at the top of the stack, before the host check (``ALLOWED_HOSTS``), the HTTPS redirect
and sessions: a probe from inside the container (``http://127.0.0.1:8000/healthz/``) must not need the public
host name nor TLS.

Every dependency it names is asked now, each within ``HEALTH_TIMEOUT`` seconds (default 2), not taken from what
an earlier call in this process happened to find:

- ``database``: ``SELECT 1`` on a connection of the probe's own (PostgreSQL: ``connect_timeout`` and
  ``statement_timeout`` from ``HEALTH_TIMEOUT``; SQLite: the process's connection), ``ok`` or ``down``. Down,
  the probe answers 503: the portal cannot serve without it.
- ``cache``: a ``PING`` through the cache's own client and timeouts (``config.cache.ResilientRedisCache.probe``),
  ``ok`` or ``down``; the local-memory cache is ``ok``.
- ``broker``: a ``PING`` of Celery's broker, ``ok`` or ``down``; ``in-process`` when there is none (the jobs run
  in the web process: ``CELERY_TASK_ALWAYS_EAGER``).

The cache and the broker down still answer 200 (``"status": "degraded"``): the portal serves without them
(reads miss the cache, a save recomputes in-process: ``config.cache``, ``scoring.tasks.enqueue``).
"""

from __future__ import annotations

import copy
import json
import logging
import math
from collections.abc import Callable
from typing import Any

import redis
from django.conf import settings
from django.core.cache import caches
from django.core.cache.backends.dummy import DummyCache
from django.core.cache.backends.locmem import LocMemCache
from django.db import DEFAULT_DB_ALIAS, connection, connections
from django.db.utils import load_backend
from django.http import HttpRequest, HttpResponse

from config.celery import app as celery_app
from tournaments.faults import database_named, reason_of

log = logging.getLogger(__name__)

PATH = "/healthz/"
PROBE_KEY = "healthz:probe"


def timeout() -> float:
    return float(getattr(settings, "HEALTH_TIMEOUT", 2))


def probe_connection() -> Any:
    """The connection the probe asks: its own, with the short timeouts (PostgreSQL), or the process's (SQLite)."""
    current = connections[DEFAULT_DB_ALIAS]
    if current.vendor == "sqlite":
        return connection
    settings_dict = copy.deepcopy(current.settings_dict)
    options = settings_dict.setdefault("OPTIONS", {})
    options["connect_timeout"] = max(2, math.ceil(timeout()))  # libpq's smallest
    if current.vendor == "postgresql":
        options["options"] = f"{options.get('options', '')} -c statement_timeout={int(timeout() * 1000)}".strip()
    settings_dict["CONN_MAX_AGE"] = 0
    return load_backend(settings_dict["ENGINE"]).DatabaseWrapper(settings_dict, DEFAULT_DB_ALIAS)


def database_state() -> str:
    probe = None
    try:
        probe = probe_connection()
        with probe.cursor() as cursor:
            cursor.execute("SELECT 1")
            answered = cursor.fetchone() == (1,)
    except Exception as exc:  # noqa: BLE001 - any failure to answer is "down"
        log.warning("health check: the database did not answer: %s (%s)", reason_of(exc), database_named())
        return "down"
    finally:
        if probe is not None and probe is not connection and hasattr(probe, "close"):
            probe.close()  # the probe's own connection
    return "ok" if answered else "down"


def cache_state() -> str:
    backend = caches["default"]
    probe: Callable[[], bool] | None = getattr(backend, "probe", None)
    if probe is not None:
        return "ok" if probe() else "down"
    if isinstance(backend, (LocMemCache, DummyCache)):
        return "ok"
    try:
        backend.set(PROBE_KEY, "1", 10)
        return "ok" if backend.get(PROBE_KEY) == "1" else "down"
    except Exception as exc:  # noqa: BLE001 - any failure to answer is "down"
        log.warning("health check: the cache did not answer: %r", exc)
        return "down"


def broker_url() -> str | None:
    if settings.CELERY_TASK_ALWAYS_EAGER:
        return None
    return celery_app.conf.broker_write_url or celery_app.conf.broker_url or None


def broker_state() -> str:
    url = broker_url()
    if not url:
        return "in-process"
    seconds = timeout()
    try:
        if url.startswith(("redis://", "rediss://", "unix://")):  # the client kombu's Redis transport uses
            client = redis.Redis.from_url(url, socket_connect_timeout=seconds, socket_timeout=seconds)
            try:
                client.ping()
            finally:
                client.close()
        else:
            with celery_app.connection_for_write(connect_timeout=seconds) as conn:
                conn.ensure_connection(max_retries=1, interval_start=0, timeout=seconds)
    except Exception as exc:  # noqa: BLE001 - any failure to answer is "down"
        log.warning("health check: the broker did not answer: %r", exc)
        return "down"
    return "ok"


def health(request: HttpRequest) -> HttpResponse:
    body = {"database": database_state(), "cache": cache_state(), "broker": broker_state()}
    if body["database"] != "ok":
        status = "unavailable"
    elif "down" in (body["cache"], body["broker"]):
        status = "degraded"
    else:
        status = "ok"
    response = HttpResponse(json.dumps({"status": status, **body}), status=503 if status == "unavailable" else 200,
                            content_type="application/json")
    response["Cache-Control"] = "no-store"
    return response


class HealthCheckMiddleware:
    """Answer ``GET``/``HEAD /healthz/`` before any other middleware runs."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path == PATH and request.method in ("GET", "HEAD"):
            return health(request)
        return self.get_response(request)
