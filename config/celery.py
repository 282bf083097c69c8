"""The Celery application; tasks run eagerly in-process when no broker is set."""

import os

from celery import Celery
from celery.signals import task_postrun, task_prerun
from django.db import close_old_connections

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("portal")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


@task_prerun.connect
@task_postrun.connect
def close_old_connections_between_jobs(sender=None, **_kwargs) -> None:
    """Between a worker's jobs, close the database connections that are unusable or older than ``CONN_MAX_AGE``,
    as Django does between requests; the others serve the next job (``CELERY_DB_REUSE_MAX``). A job run eagerly,
    inside its caller's request or transaction, is left alone."""
    if getattr(getattr(sender, "request", None), "is_eager", False):
        return
    close_old_connections()
