"""A Celery worker keeps its database connection from job to job.

Celery's Django fixup closed the connections before and after every job unless ``CELERY_DB_REUSE_MAX`` is set, so
each 20-40 ms recompute opened a PostgreSQL session of its own. ``config.celery`` now closes, between jobs, only the
connections Django would close between two requests: the unusable ones and those older than ``CONN_MAX_AGE``.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from django.db import connection, connections

from config.celery import app, close_old_connections_between_jobs
from tests.conftest import example
from tests.test_recompute import wait_for_version
from tournaments.importer import import_document
from tournaments.models import Mask

A_WORKERS_JOB = SimpleNamespace(request=SimpleNamespace(is_eager=False))
AN_EAGER_JOB = SimpleNamespace(request=SimpleNamespace(is_eager=True))


def test_celery_closes_a_workers_connections_only_every_many_jobs():
    assert app.conf.get("CELERY_DB_REUSE_MAX") >= 1000  # what celery.fixups.django reads


@pytest.fixture
def closes(monkeypatch) -> list[bool]:
    """The connection's ``close`` calls (recorded, not made: an in-memory SQLite database cannot be reopened)."""
    calls: list[bool] = []
    default = connections["default"]
    default.ensure_connection()
    monkeypatch.setattr(default, "close", lambda: calls.append(True))
    monkeypatch.setattr(default, "close_at", time.monotonic() + 60)  # CONN_MAX_AGE = 60, as deployed
    return calls


@pytest.mark.django_db(transaction=True)
def test_a_healthy_connection_serves_the_next_job(closes):
    close_old_connections_between_jobs(sender=A_WORKERS_JOB)
    assert closes == []


@pytest.mark.django_db(transaction=True)
def test_an_unusable_connection_is_closed_between_jobs(closes, monkeypatch):
    monkeypatch.setattr(connections["default"], "is_usable", lambda: False)
    monkeypatch.setattr(connections["default"], "errors_occurred", True)
    close_old_connections_between_jobs(sender=A_WORKERS_JOB)
    assert closes == [True]


@pytest.mark.django_db(transaction=True)
def test_a_connection_older_than_conn_max_age_is_closed_between_jobs(closes, monkeypatch):
    monkeypatch.setattr(connections["default"], "close_at", time.monotonic() - 1)
    close_old_connections_between_jobs(sender=A_WORKERS_JOB)
    assert closes == [True]


@pytest.mark.django_db(transaction=True)
def test_a_job_run_eagerly_leaves_its_callers_connection_alone(closes, monkeypatch):
    monkeypatch.setattr(connections["default"], "is_usable", lambda: False)
    monkeypatch.setattr(connections["default"], "errors_occurred", True)
    close_old_connections_between_jobs(sender=AN_EAGER_JOB)
    assert closes == []


def worker_sessions() -> frozenset[tuple[int, object]]:
    """The other sessions on the test database: (pid, when it started)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pid, backend_start FROM pg_stat_activity WHERE datname = current_database() "
                       "AND pid <> pg_backend_pid() AND backend_type = 'client backend'")
        return frozenset(cursor.fetchall())


@pytest.mark.celery_worker
def test_a_real_worker_recomputes_one_result_after_another_in_one_database_session(
        celery_worker_process):
    tournament = import_document(example("chgk_tour_points"))
    wait_for_version(tournament)
    mask = Mask.objects.get(tour__number=1, team__name="Quark")
    seen = []
    for _ in range(4):
        mask.mask = "".join("0" if c == "1" else "1" for c in mask.mask)
        mask.save()
        wait_for_version(tournament)
        seen.append(worker_sessions())
    assert seen[0], "the worker holds no session after its job"
    assert len(set(seen)) == 1, seen
