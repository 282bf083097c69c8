"""Remember who is acting, so the audit trail can name them."""

from __future__ import annotations

import contextvars
from collections.abc import Callable

from django.http import HttpRequest, HttpResponse

current_user: contextvars.ContextVar = contextvars.ContextVar("current_user", default=None)


class CurrentUserMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        token = current_user.set(request.user if getattr(request, "user", None) is not None else None)
        try:
            return self.get_response(request)
        finally:
            current_user.reset(token)
