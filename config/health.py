"""``GET /healthz/``: a cheap liveness and readiness probe for the container's health check (issue 19, item 8).

Answered by a middleware at the top of the stack, before the host check (``ALLOWED_HOSTS``), the HTTPS redirect
and sessions: a probe from inside the container (``http://127.0.0.1:8000/healthz/``) must not need the public
host name nor TLS. 200 ``{"status": "ok", ...}`` when the database answers ``SELECT 1``; 503 when it does not.
The cache is reported but does not fail the probe: the portal serves without it (``config.cache``).
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable

from django.core.cache import caches
from django.db import connection
from django.http import HttpRequest, HttpResponse

log = logging.getLogger(__name__)

PATH = "/healthz/"


def database_ok() -> bool:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
            return cursor.fetchone() == (1,)
    except Exception:  # noqa: BLE001 - any failure to answer is "not ready"
        log.exception("health check: the database does not answer")
        return False


def cache_state() -> str:
    """``ok``, or ``degraded`` while the resilient Redis cache (``config.cache``) has found Redis unreachable."""
    return "degraded" if getattr(caches["default"], "down", False) else "ok"


def health(request: HttpRequest) -> HttpResponse:
    db = database_ok()
    body = {"status": "ok" if db else "unavailable", "database": "ok" if db else "down", "cache": cache_state()}
    response = HttpResponse(json.dumps(body), status=200 if db else 503, content_type="application/json")
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
