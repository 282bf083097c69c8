"""A per-address limit on login and password-reset attempts.

django-axes locks a username tried from one address after ``AXES_FAILURE_LIMIT`` failures; this limit stops one
address trying many usernames (password spraying) and flooding the reset form. Each POST to a limited form counts
against the client's address (``accounts.addresses.client_address``) for the scope's window; past the limit the
form answers 429 with a page saying when to try again, and the attempt is not made.
``ADDRESS_ATTEMPT_LIMITS`` maps a scope to ``(attempts, seconds)``.
"""

from __future__ import annotations

import functools
import logging
import math
import time
from collections.abc import Callable

from django.conf import settings
from django.core.cache import cache
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from accounts.addresses import client_address

log = logging.getLogger("portal.security")
DEFAULT_LIMITS = {"login": (30, 600), "password_reset": (5, 3600)}


def limit_of(scope: str) -> tuple[int, int]:
    return {**DEFAULT_LIMITS, **getattr(settings, "ADDRESS_ATTEMPT_LIMITS", {})}[scope]


def over_limit(scope: str, address: str, now: float | None = None) -> int:
    """Count one attempt; the seconds until the window ends when the address is past its limit, else 0."""
    attempts, seconds = limit_of(scope)
    now = time.time() if now is None else now
    window = int(now // seconds)
    key = f"attempts:{scope}:{address}:{window}"
    cache.add(key, 0, timeout=seconds + 60)
    try:
        count = cache.incr(key)
    except ValueError:
        cache.set(key, 1, timeout=seconds + 60)
        count = 1
    if count <= attempts:
        return 0
    return max(1, math.ceil((window + 1) * seconds - now))


def limited(scope: str) -> Callable:
    """Wrap a view: a POST past the address's limit for ``scope`` answers 429 and never reaches the view."""

    def decorate(view: Callable) -> Callable:
        @functools.wraps(view)
        def wrapper(request: HttpRequest, *args, **kwargs) -> HttpResponse:
            if request.method == "POST":
                address = client_address(request)
                wait = over_limit(scope, address)
                if wait:
                    log.warning("too many %s attempts from one address", scope, extra={"address": address})
                    minutes = max(1, math.ceil(wait / 60))
                    response = render(request, "accounts/too_many.html", {"text": _(
                        "Too many attempts from your address. Try again in %(minutes)s min.")
                        % {"minutes": minutes}}, status=429)
                    response["Retry-After"] = str(wait)
                    return response
            return view(request, *args, **kwargs)

        return wrapper

    return decorate
