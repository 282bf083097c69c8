"""``/favicon.ico``: the site's icon where browsers and feed readers look for it without reading the page's
``<link rel="icon">`` (the same picture as ``static/img/favicon.svg``). No database, cached for a day."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

ICON = Path(settings.BASE_DIR) / "static" / "img" / "favicon.ico"


@cache
def _icon() -> bytes:
    return ICON.read_bytes()


@require_safe
@cache_control(public=True, max_age=86400)
def favicon(request: HttpRequest) -> HttpResponse:
    return HttpResponse(_icon(), content_type="image/x-icon")
