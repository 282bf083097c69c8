"""The organizers' acts on a tournament's webhooks: subscribe a URL, change or end a subscription, send a
delivery again.

Only the tournament's organizers and staff (``accounts.permissions.has_role``); anyone else is refused with
``NotAllowed`` naming the rule. A URL is checked (``targets.check``: http or https, no credentials, a public
address unless private targets are allowed) and the events are among ``WebhookEvent``; a refusal is ``Invalid``
at ``url`` or ``events``. Subscribing, changing and unsubscribing are each one history entry
(``webhook_subscribe``, ``webhook_change``, ``webhook_unsubscribe``) naming the URL and the events, never the
secret. The secret is Standard Webhooks' ``whsec_`` and 32 random bytes in base64: shown to the organizer once,
when the subscription is made.
"""

from __future__ import annotations

import base64
import secrets
from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Role
from accounts.permissions import has_role
from rulesets.errors import Invalid, NotAllowed, Problem
from tournaments import audit
from tournaments.models import DeliveryStatus, Tournament, WebhookDelivery, WebhookEvent, WebhookSubscription
from tournaments.webhooks import targets
from tournaments.webhooks.events import dispatch

MAX_SUBSCRIPTIONS = 20  # a tournament's


def rule_text(tournament: Tournament) -> str:
    return _("Only the organizers of %(tournament)s subscribe URLs to its events and read its webhook "
             "deliveries.") % {"tournament": tournament.name}


def may_manage(user, tournament: Tournament) -> bool:
    return user is not None and user.is_authenticated and user.is_active and has_role(user, tournament,
                                                                                      Role.ORGANIZER)


def require_manager(user, tournament: Tournament) -> None:
    if not may_manage(user, tournament):
        raise NotAllowed(rule_text(tournament))


def new_secret() -> str:
    return "whsec_" + base64.b64encode(secrets.token_bytes(32)).decode()


def clean_url(url: Any) -> str:
    try:
        return targets.check(url)
    except targets.NotATarget as refused:
        raise Invalid(Problem("url", str(refused))) from refused


def clean_events(events: Any) -> list[str]:
    """The events named, in ``WebhookEvent``'s order; at least one."""
    if isinstance(events, str) or not isinstance(events, Iterable):
        raise Invalid(Problem("events", _("a list of events: %(events)s") % {"events": ", ".join(WebhookEvent.values)}))
    events = list(events)
    unknown = [event for event in events if event not in WebhookEvent.values]
    if unknown:
        raise Invalid([Problem(f"events[{events.index(event)}]", _("not an event; the events are %(events)s") % {
            "events": ", ".join(WebhookEvent.values)}) for event in unknown])
    if not events:
        raise Invalid(Problem("events", _("choose at least one event")))
    return [event for event in WebhookEvent.values if event in events]


def _state(subscription: WebhookSubscription) -> dict[str, Any]:
    return {"url": subscription.url, "events": list(subscription.events), "active": subscription.active}


def subscribe(user, tournament: Tournament, url: Any, events: Any) -> WebhookSubscription:
    """A new active subscription of ``url`` to ``events`` of the tournament; its ``secret`` is the one to show."""
    require_manager(user, tournament)
    url, events = clean_url(url), clean_events(events)
    with transaction.atomic():
        Tournament.objects.select_for_update().filter(pk=tournament.pk).values_list("pk", flat=True).first()
        if WebhookSubscription.objects.filter(tournament=tournament).count() >= MAX_SUBSCRIPTIONS:
            raise Invalid(Problem("url", _("a tournament has at most %(max)d webhook subscriptions") % {
                "max": MAX_SUBSCRIPTIONS}))
        subscription = WebhookSubscription.objects.create(tournament=tournament, url=url, events=events,
                                                          secret=new_secret(), created_by=user)
        audit.record("webhook_subscribe", subscription, None, _state(subscription), user=user)
    return subscription


def change(user, subscription: WebhookSubscription, *, events: Any = None, active: Any = None,
           url: Any = None) -> WebhookSubscription:
    """Change a subscription's URL, events or whether it is active (``None`` keeps it); one history entry."""
    require_manager(user, subscription.tournament)
    if active is not None and not isinstance(active, bool):
        raise Invalid(Problem("active", _("true or false")))
    url = clean_url(url) if url is not None else None
    events = clean_events(events) if events is not None else None
    with transaction.atomic():
        row = WebhookSubscription.objects.select_for_update().get(pk=subscription.pk)
        before = _state(row)
        row.url = url if url is not None else row.url
        row.events = events if events is not None else row.events
        row.active = active if active is not None else row.active
        row.save(update_fields=["url", "events", "active"])
        audit.record_change("webhook_change", row, before, _state(row), user=user)
    return row


def unsubscribe(user, subscription: WebhookSubscription) -> None:
    """Delete the subscription and its delivery log; one history entry."""
    require_manager(user, subscription.tournament)
    with transaction.atomic():
        audit.record("webhook_unsubscribe", subscription, _state(subscription), None, user=user)
        subscription.delete()


def send_again(user, delivery: WebhookDelivery) -> WebhookDelivery:
    """Send the delivery again now (the same message id and payload, signed anew), with 24 hours of retries from
    now if it fails."""
    require_manager(user, delivery.subscription.tournament)
    now = timezone.now()
    WebhookDelivery.objects.filter(pk=delivery.pk).update(status=DeliveryStatus.PENDING, next_attempt_at=now,
                                                          retry_from=now)
    pk = delivery.pk
    transaction.on_commit(lambda: dispatch([pk]))
    delivery.refresh_from_db()
    return delivery
