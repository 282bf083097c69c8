"""The Celery jobs of webhooks: one delivery's attempt, and beat's sweep of the deliveries due.

``send_due`` runs every ``WEBHOOKS_SWEEP_SECONDS`` (``CELERY_BEAT_SCHEDULE["webhooks-send-due"]``): it leases
the due deliveries (their ``next_attempt_at`` moved out of reach to an exact moment) and sends one ``deliver``
job each, naming the lease; so a delivery due for a retry, one whose first job the broker refused, and one
whose worker died mid-attempt are all sent again, once.
"""

from __future__ import annotations

import datetime as dt

from celery import shared_task
from django.utils import timezone

from tournaments.models import DeliveryStatus, WebhookDelivery
from tournaments.webhooks import delivery

BATCH = 200


@shared_task(acks_late=True, ignore_result=True)
def deliver(delivery_id: int, lease: str | None = None) -> str | None:
    """One attempt of the delivery (``lease``: the moment the sweep leased it at, ISO)."""
    return delivery.attempt(delivery_id, dt.datetime.fromisoformat(lease) if lease else None)


@shared_task(ignore_result=True)
def send_due() -> int:
    """Lease and send the deliveries whose next attempt is due; how many."""
    now = timezone.now()
    lease = now + delivery.LEASE
    ids = list(WebhookDelivery.objects.filter(status=DeliveryStatus.PENDING, next_attempt_at__lte=now).order_by(
        "next_attempt_at", "pk").values_list("pk", flat=True)[:BATCH])
    if not ids:
        return 0
    WebhookDelivery.objects.filter(pk__in=ids, status=DeliveryStatus.PENDING, next_attempt_at__lte=now).update(
        next_attempt_at=lease)
    for pk in ids:
        deliver.apply_async(args=[pk, lease.isoformat()])
    return len(ids)
