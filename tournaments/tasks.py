"""The facts' Celery jobs, found by ``app.autodiscover_tasks``: the webhooks' (``tournaments.webhooks.tasks``)."""

from tournaments.webhooks.tasks import deliver, send_due

__all__ = ["deliver", "send_due"]
