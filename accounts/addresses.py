"""The client's address as the portal sees it behind its reverse proxies.

Behind the README's TLS proxy every request comes from the proxy's address; each proxy appends the address it saw
to ``X-Forwarded-For``. ``DJANGO_NUM_PROXIES`` (``REST_FRAMEWORK["NUM_PROXIES"]``) says how many proxies stand in
front of the portal: the client is the entry that many from the end, the same rule as the API's throttle. With 0
(the default) the header is not trusted at all, so a client cannot dodge a limit by inventing addresses.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest


def trusted_proxies() -> int:
    return int(getattr(settings, "REST_FRAMEWORK", {}).get("NUM_PROXIES") or 0)


def client_address(request: HttpRequest) -> str:
    """The address the login lockout (django-axes) and the attempt limits key on."""
    remote = request.META.get("REMOTE_ADDR", "") or ""
    proxies = trusted_proxies()
    forwarded = request.META.get("HTTP_X_FORWARDED_FOR", "")
    if proxies <= 0 or not forwarded:
        return remote
    entries = [entry.strip() for entry in forwarded.split(",") if entry.strip()]
    if not entries:
        return remote
    return entries[-min(proxies, len(entries))]
