"""Webhooks: an organizer subscribes a URL to a tournament's events; each event becomes a signed message.

- ``events``: ``emit(tournament, event, data)`` at the places the events happen (a result saved or corrected,
  the standings changed, the schedule changed, an appeal filed or decided, the tournament published): one
  ``WebhookDelivery`` row per active subscription to the event, written in the saving transaction, sent after
  it commits. Nothing of it fails or delays the save: a broken broker leaves the row for beat's sweep.
- ``delivery``: one attempt, signed by the ``standardwebhooks`` package (``webhook-id``, ``webhook-timestamp``,
  ``webhook-signature``), POSTed with a short timeout; the retries back off for 24 hours, then the delivery has
  failed.
- ``targets``: the URL's checks; a target resolving to a loopback, private, link-local or reserved address is
  refused unless ``settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS``.
- ``standings``: what moved between two stored tables (the ``standings.changed`` event).
- ``subscriptions``: the organizers' acts (subscribe, change, unsubscribe, send again), each in the history.
- ``tasks``: the Celery jobs (one delivery; beat's sweep of the deliveries due).
"""

from tournaments.models import WebhookEvent
from tournaments.webhooks.events import appeal_event, emit, result_saved, schedule_changed

__all__ = ["WebhookEvent", "appeal_event", "emit", "result_saved", "schedule_changed"]
