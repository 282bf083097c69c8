"""Where a webhook may be sent: an http(s) URL whose host resolves only to public addresses.

A subscription's URL is checked when it is given and again, resolved anew, at each attempt (a name may point
elsewhere by then): the attempt connects to the address that was checked, not to whatever a second lookup
answers. Loopback, private, link-local, shared, reserved, multicast and unspecified addresses (anything
``ipaddress`` does not call global) are refused unless ``settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS`` (the laptop
setup and the tests, where the receiver runs on the same machine).
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from django.conf import settings
from django.utils.translation import gettext as _

MAX_URL = 500


class NotATarget(ValueError):
    """The URL cannot be a webhook's target; the message says why."""


@dataclass(frozen=True)
class Target:
    scheme: str
    host: str
    port: int
    path: str  # with the query
    addresses: tuple[str, ...]


def parse(url: object) -> tuple[str, str, int, str]:
    """(scheme, host, port, path with query) of an absolute http(s) URL without credentials; ``NotATarget``."""
    if not isinstance(url, str) or not url.strip():
        raise NotATarget(_("give the URL that receives the events"))
    url = url.strip()
    if len(url) > MAX_URL:
        raise NotATarget(_("a URL has at most %(max)d characters") % {"max": MAX_URL})
    if any(ord(char) < 33 or ord(char) == 127 for char in url):
        raise NotATarget(_("a URL holds no spaces or control characters"))
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise NotATarget(_("not a URL: %(error)s") % {"error": exc}) from exc
    if parts.scheme not in ("http", "https"):
        raise NotATarget(_("the URL starts with https:// (or http://)"))
    if not parts.hostname:
        raise NotATarget(_("the URL names no host"))
    if parts.username is not None or parts.password is not None:
        raise NotATarget(_("the URL holds no user name or password: the signature authenticates the portal"))
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, parts.hostname, port or (443 if parts.scheme == "https" else 80), path


def is_public(address: str) -> bool:
    """Whether ``address`` is a public (global unicast) address; an IPv4-mapped IPv6 address counts as its IPv4."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def private_allowed() -> bool:
    return bool(getattr(settings, "WEBHOOKS_ALLOW_PRIVATE_TARGETS", False))


def resolve(url: object) -> Target:
    """The URL's target with the addresses its host resolves to; refused when one of them is not public (unless
    allowed) or the host does not resolve."""
    scheme, host, port, path = parse(url)
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise NotATarget(_("the host %(host)s does not resolve") % {"host": host}) from exc
    addresses = tuple(dict.fromkeys(str(info[4][0]) for info in found))
    if not addresses:
        raise NotATarget(_("the host %(host)s does not resolve") % {"host": host})
    if not private_allowed():
        refused = [address for address in addresses if not is_public(address)]
        if refused and refused[0] == host:
            raise NotATarget(_("%(address)s is a loopback, private or reserved address: webhooks go to public "
                               "addresses only") % {"address": host})
        if refused:
            raise NotATarget(_("%(host)s resolves to %(address)s, a loopback, private or reserved address: "
                               "webhooks go to public addresses only") % {"host": host, "address": refused[0]})
    return Target(scheme, host, port, path, addresses)


def check(url: object) -> str:
    """The URL as a subscription keeps it, once it is known to be a possible target (``NotATarget``). Where
    private targets are allowed there is nothing to resolve for: the host is looked up at the attempt."""
    parse(url)
    if not private_allowed():
        resolve(url)
    return str(url).strip()
