"""How recompute jobs are queued so that workers scale out (issue 20, item 4; ``scoring.tasks``).

No ETA (a worker would hold such jobs while another idles): the coalescing wait happens inside the job; the
figures after a changed table are coalesced per tournament and sent at the lowest priority, behind every table.
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
    monkeypatch.setattr(tasks, "enqueue_figures", lambda tournament_id: None)
    cache.set(key, 1, 60)
    tasks.recompute_standings.run(tournament.pk, time.time())
    (waited, key_then), = seen
    assert 0.2 < waited <= 0.3 and key_then == 1
    assert cache.get(key) is None


@pytest.mark.django_db(transaction=True)
def test_changed_tables_queue_their_figures_once_at_the_lowest_priority(settings, monkeypatch):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    tournament = import_document(example("chgk_tour_points"))
    sent = Sent()
    monkeypatch.setattr(tasks.store_figures, "apply_async", sent)
    cache.delete(tasks.FIGURES_KEY.format(tournament.pk))
    for _ in range(3):
        Tournament.objects.filter(pk=tournament.pk).update(facts_version=F("facts_version") + 1)
        assert tasks.recompute_standings.run(tournament.pk) is True
    assert tasks.recompute_standings.run(tournament.pk) is False
    assert sent.calls == [((), {"args": [tournament.pk], "priority": tasks.FIGURES_PRIORITY})]
    monkeypatch.setattr(tasks, "refresh_figures", lambda tournament_id: 0)
    tasks.store_figures.run(tournament.pk)
    assert cache.get(tasks.FIGURES_KEY.format(tournament.pk)) is None, "the next changed table queues them again"


@pytest.mark.django_db(transaction=True)
def test_figures_that_cannot_be_queued_free_their_key(settings, monkeypatch):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    tournament = import_document(example("chgk_tour_points"))

    def refuse(*args, **kwargs):
        raise OSError("Connection refused")

    monkeypatch.setattr(tasks.store_figures, "apply_async", refuse)
    Tournament.objects.filter(pk=tournament.pk).update(facts_version=F("facts_version") + 1)
    assert tasks.recompute_standings.run(tournament.pk) is True
    assert cache.get(tasks.FIGURES_KEY.format(tournament.pk)) is None


def test_the_broker_serves_a_table_before_figures_queued_earlier(real_services, settings):
    """Redis: priority 0 before 9, across the queues a worker consumes; no worker needs another ``-Q``."""
    tournament = import_document(example("chgk_tour_points"))
    recompute(tournament.pk, force=True)
    cache.delete(tasks.FIGURES_KEY.format(tournament.pk))
    cache.delete(tasks.QUEUED_KEY.format(tournament.pk))
    celery_app.control.purge()  # the import's own job
    tasks.enqueue_figures(tournament.pk)
    tasks.enqueue(tournament.pk)
    with celery_app.connection_for_read() as connection:
        channel = connection.default_channel
        first = channel.basic_get(settings.CELERY_TASK_DEFAULT_QUEUE, no_ack=True)
        second = channel.basic_get(settings.CELERY_TASK_DEFAULT_QUEUE, no_ack=True)
        assert channel.basic_get(settings.CELERY_TASK_DEFAULT_QUEUE, no_ack=True) is None
    assert first.headers["task"] == "scoring.tasks.recompute_standings"
    assert second.headers["task"] == "scoring.tasks.store_figures"
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
    """Issue 20 item 4: the coalescing wait is for an idle queue; with other tables' jobs waiting the worker has
    work to do, and the later saves of this tournament coalesce on its queued key anyway."""
    settings.RECOMPUTE_COUNTDOWN = 0.3
    tournament = import_document(example("chgk_tour_points"))
    other = import_document({**example("chgk_tour_points"), "tournament": {
        **example("chgk_tour_points")["tournament"], "slug": "waiting-behind"}})
    celery_app.control.purge()  # the imports' own jobs
    slept: list[float] = []
    monkeypatch.setattr(tasks.time, "sleep", slept.append)
    monkeypatch.setattr(tasks, "enqueue_figures", lambda tournament_id: None)
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
