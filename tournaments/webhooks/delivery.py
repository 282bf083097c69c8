"""One attempt of a webhook delivery, and when the next one is due.

The message is the Standard Webhooks one: the body is the delivery's payload as compact JSON (``{"type",
"timestamp", "data"}``), the headers ``webhook-id`` (the delivery's message id, the same at every attempt),
``webhook-timestamp`` (the attempt's, in seconds) and ``webhook-signature`` (``v1,<base64 HMAC-SHA256>`` of
``id.timestamp.body`` under the subscription's secret), signed by ``standardwebhooks.Webhook``. A 2xx answer
delivers it; anything else (another status, a redirect, a refused or timed-out connection, a target that now
resolves to a private address) is a failed attempt, retried after ``RETRY_OFFSETS`` counted from the
delivery's ``retry_from``: backing off from 30 seconds to 4 hours, for 24 hours, then the delivery has failed.

An attempt is claimed first (``claim``): one ``UPDATE`` that moves ``next_attempt_at`` out of reach by
``LEASE``, so that the job sent after the save and beat's sweep never send the same attempt twice; a worker that
dies mid-attempt leaves the lease to expire and the sweep to try again.
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import logging
import socket
import ssl
from dataclasses import dataclass

from django.conf import settings
from django.db.models import F, Q
from django.utils import timezone
from standardwebhooks import Webhook

from tournaments.models import DeliveryStatus, WebhookDelivery
from tournaments.webhooks import targets

log = logging.getLogger(__name__)

RETRY_OFFSETS = tuple(dt.timedelta(seconds=s) for s in (
    30, 120, 600, 1800, 3600, 2 * 3600, 4 * 3600, 8 * 3600, 12 * 3600, 16 * 3600, 20 * 3600, 24 * 3600))
LEASE = dt.timedelta(minutes=5)
USER_AGENT = "tournament-portal-webhooks/1"
MAX_ANSWER = 64 * 1024  # of an answer's body, read and dropped


def next_attempt(retry_from: dt.datetime, now: dt.datetime) -> dt.datetime | None:
    """When the next attempt is due after one that failed at ``now``; None once 24 hours of retries are over."""
    for offset in RETRY_OFFSETS:
        if retry_from + offset > now:
            return retry_from + offset
    return None


def body_of(payload: dict) -> bytes:
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode()


def signed_headers(secret: str, msg_id: str, body: bytes, now: dt.datetime) -> dict[str, str]:
    """The Standard Webhooks headers of one attempt."""
    return {"webhook-id": msg_id, "webhook-timestamp": str(int(now.timestamp())),
            "webhook-signature": Webhook(secret).sign(msg_id, now, body),
            "content-type": "application/json", "user-agent": USER_AGENT}


class _PinnedHTTPConnection(http.client.HTTPConnection):
    """An HTTP connection to the address the target was checked at, whatever the name resolves to now."""

    def __init__(self, target: targets.Target, address: str, timeout: float):
        super().__init__(target.host, target.port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """The same over TLS: the certificate is checked against the URL's host name."""

    def __init__(self, target: targets.Target, address: str, timeout: float):
        super().__init__(target.host, target.port, timeout=timeout, context=ssl.create_default_context())
        self._address = address

    def connect(self) -> None:
        sock = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._context.wrap_socket(sock, server_hostname=self.host)


@dataclass
class Answer:
    code: int | None
    error: str

    @property
    def ok(self) -> bool:
        return self.code is not None and 200 <= self.code < 300


def post(url: str, headers: dict[str, str], body: bytes, timeout: float | None = None) -> Answer:
    """POST ``body`` to ``url`` once, at an address the target checks allow; never raises for the network."""
    timeout = settings.WEBHOOKS_TIMEOUT if timeout is None else timeout
    try:
        target = targets.resolve(url)
    except targets.NotATarget as refused:
        return Answer(None, str(refused))
    kind = _PinnedHTTPSConnection if target.scheme == "https" else _PinnedHTTPConnection
    connection = kind(target, target.addresses[0], timeout)
    try:
        connection.request("POST", target.path, body=body, headers=headers)
        response = connection.getresponse()
        response.read(MAX_ANSWER)
        error = "" if 200 <= response.status < 300 else f"HTTP {response.status} {response.reason}"[:300]
        return Answer(response.status, error)
    except (OSError, http.client.HTTPException, ValueError) as exc:
        return Answer(None, (f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__)[:300])
    finally:
        connection.close()


def claim(delivery_id: int, now: dt.datetime, lease: dt.datetime | None = None) -> bool:
    """Take the delivery's next attempt: pending and due, or leased by the sweep at ``lease``."""
    due = Q(next_attempt_at__lte=now) | (Q(next_attempt_at=lease) if lease is not None else Q(pk__in=[]))
    return bool(WebhookDelivery.objects.filter(due, pk=delivery_id, status=DeliveryStatus.PENDING).update(
        next_attempt_at=now + LEASE, attempts=F("attempts") + 1, last_attempt_at=now))


def attempt(delivery_id: int, lease: dt.datetime | None = None) -> str | None:
    """Send the delivery once if its attempt is due (or leased at ``lease``); its status after, None when it was
    not this call's to send."""
    now = timezone.now()
    if not claim(delivery_id, now, lease):
        return None
    delivery = WebhookDelivery.objects.select_related("subscription").get(pk=delivery_id)
    subscription = delivery.subscription
    if not subscription.active:
        answer = Answer(None, "the subscription is inactive")
    else:
        body = body_of(delivery.payload)
        answer = post(subscription.url, signed_headers(subscription.secret, delivery.msg_id, body, now), body)
    done = timezone.now()
    fields = {"last_response_code": answer.code, "last_error": answer.error}
    if answer.ok:
        fields.update(status=DeliveryStatus.DELIVERED, delivered_at=done, next_attempt_at=None)
    else:
        retry = next_attempt(delivery.retry_from, done) if subscription.active else None
        fields.update(status=DeliveryStatus.PENDING if retry else DeliveryStatus.FAILED, next_attempt_at=retry)
        log.info("webhook %s to %s failed (%s); next attempt %s", delivery.msg_id, subscription.url,
                 answer.error, retry)
    WebhookDelivery.objects.filter(pk=delivery_id).update(**fields)
    return fields["status"]
