"""How recompute jobs are queued so that workers scale out (``scoring.tasks``).

No ETA (a worker would hold such jobs while another idles): the coalescing wait happens inside the job.
"""

from __future__ import annotations

import time

import pytest
from django.core.cache import cache
from django.db.models import F

from config.celery import app as celery_app
from scoring import tasks
from scoring.services import recompute
from tests.conftest import example
from tournaments.importer import import_document
from tournaments.models import Tournament


class Sent:
    """Stands in for a task's ``apply_async``: records each call's arguments."""

    def __init__(self) -> None:
        self.calls: list[tuple[tuple, dict]] = []

    def __call__(self, *args, **kwargs) -> None:
        self.calls.append((args, kwargs))


@pytest.mark.django_db
def test_enqueue_sends_the_job_without_an_eta_and_with_its_queueing_time(settings, monkeypatch):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    sent = Sent()
    monkeypatch.setattr(tasks.recompute_standings, "apply_async", sent)
    cache.delete(tasks.QUEUED_KEY.format(7))
    before = time.time()
    tasks.enqueue(7)
    tasks.enqueue(7)  # coalesced on the queued key
    assert len(sent.calls) == 1
    (_, kwargs), = sent.calls
    assert "countdown" not in kwargs and "eta" not in kwargs
    tournament_id, queued_at = kwargs["args"]
    assert tournament_id == 7 and before <= queued_at <= time.time()
    cache.delete(tasks.QUEUED_KEY.format(7))


def test_the_coalescing_wait_is_what_is_left_of_the_countdown(settings):
    settings.RECOMPUTE_COUNTDOWN = 0.2
    assert tasks.coalescing_wait(100.0, now=100.05) == pytest.approx(0.15)
    assert tasks.coalescing_wait(100.0, now=100.5) == 0.0, "a job that waited in the queue starts at once"
    assert tasks.coalescing_wait(100.0, now=90.0) == 0.2, "a clock behind the sender's never waits longer"


@pytest.mark.django_db(transaction=True)
def test_a_job_keeps_the_queued_key_while_it_waits_then_frees_it(settings, monkeypatch):
    settings.RECOMPUTE_COUNTDOWN = 0.3
    tournament = import_document(example("chgk_tour_points"))
    key = tasks.QUEUED_KEY.format(tournament.pk)
    seen: list[object] = []
    monkeypatch.setattr(tasks.time, "sleep", lambda seconds: seen.append((seconds, cache.get(key))))
    cache.set(key, 1, 60)
    tasks.recompute_standings.run(tournament.pk, time.time())
    (waited, key_then), = seen
    assert 0.2 < waited <= 0.3 and key_then == 1
    assert cache.get(key) is None


def test_a_table_job_is_sent_without_an_eta(real_services, settings):
    """Redis: the job waits in the broker, not in a worker that read it early (no ETA)."""
    tournament = import_document(example("chgk_tour_points"))
    recompute(tournament.pk, force=True)
    cache.delete(tasks.QUEUED_KEY.format(tournament.pk))
    celery_app.control.purge()  # the import's own job
    tasks.enqueue(tournament.pk)
    with celery_app.connection_for_read() as connection:
        channel = connection.default_channel
        first = channel.basic_get(settings.CELERY_TASK_DEFAULT_QUEUE, no_ack=True)
        assert channel.basic_get(settings.CELERY_TASK_DEFAULT_QUEUE, no_ack=True) is None
    assert first.headers["task"] == "scoring.tasks.recompute_standings"
    assert "eta" not in first.headers or first.headers["eta"] is None


@pytest.mark.django_db(transaction=True)
def test_without_a_countdown_a_job_starts_at_once(settings, monkeypatch):
    settings.RECOMPUTE_COUNTDOWN = 0
    tournament = import_document(example("chgk_tour_points"))
    slept: list[float] = []
    monkeypatch.setattr(tasks.time, "sleep", slept.append)
    tasks.recompute_standings.run(tournament.pk, time.time())
    assert slept == []


def test_a_job_with_others_waiting_behind_it_starts_at_once(real_services, settings, monkeypatch):
    """The coalescing wait is for an idle queue; with other tables' jobs waiting the worker has
    work to do, and the later saves of this tournament coalesce on its queued key anyway."""
    settings.RECOMPUTE_COUNTDOWN = 0.3
    tournament = import_document(example("chgk_tour_points"))
    other = import_document({**example("chgk_tour_points"), "tournament": {
        **example("chgk_tour_points")["tournament"], "slug": "waiting-behind"}})
    celery_app.control.purge()  # the imports' own jobs
    slept: list[float] = []
    monkeypatch.setattr(tasks.time, "sleep", slept.append)
    assert not tasks.others_waiting(celery_app)
    tasks.recompute_standings.run(tournament.pk, time.time())
    assert len(slept) == 1 and 0.2 < slept[0] <= 0.3, "an idle queue: the job waits for the burst"
    cache.delete(tasks.QUEUED_KEY.format(other.pk))
    tasks.enqueue(other.pk)
    assert tasks.others_waiting(celery_app)
    slept.clear()
    Tournament.objects.filter(pk=tournament.pk).update(facts_version=F("facts_version") + 1)
    assert tasks.recompute_standings.run(tournament.pk, time.time()) is True
    assert slept == [], "another table waits: no time lost"
    celery_app.control.purge()


def test_without_a_broker_nobody_is_counted_waiting(settings):
    settings.CELERY_TASK_ALWAYS_EAGER = True
    assert tasks.others_waiting(celery_app) is False
