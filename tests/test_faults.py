"""Faults of the services around the portal.

- Redis unreachable (cache and broker): a committed save answers success and its table is recomputed in the
  web process (``scoring.tasks.enqueue``'s fallback); standings, pages and lists are served from the database
  snapshot without the cache (``config.cache.ResilientRedisCache``). The closed-port tests use the real Redis
  client and the real Celery producer against ``redis://127.0.0.1:1/0``, so they run on every database.
- A recompute killed mid-run: the beat's sweep (``scoring.tasks.sweep_stale_standings``) closes its run row and
  recomputes the stale table within seconds, with no one reading it. The real-worker version kills a worker
  with SIGKILL and lets a real ``celery beat`` drive the sweep (PostgreSQL + Redis, ``.ci/run``); the logic is
  also tested in-process on any database.
"""

from __future__ import annotations

import datetime as dt
import os
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest
from django.conf import settings as django_settings
from django.core.cache import cache, caches
from django.db import connection
from django.db.models import F
from django.utils import timezone
from kombu.exceptions import OperationalError
from redis.exceptions import ConnectionError as RedisConnectionError
from rest_framework.test import APIClient

from accounts.models import Role, TournamentRole
from config.cache import ResilientRedisCache
from config.celery import app as celery_app
from scoring import services, tasks
from scoring.models import RecomputeRun, StandingsSnapshot
from scoring.services import ABANDONED, current_export, recompute
from tests.conftest import celery_conf, example, real_services_available, start_worker, stop_worker
from tests.test_recompute import kill_worker_mid_recompute, wait_for_version
from tournaments.importer import import_document
from tournaments.models import Game, Mask, Tour, Tournament
from tournaments.synthetic import mafia_league

CLOSED_PORT = "redis://127.0.0.1:1/0"
API = "/api/v1"


def latest(tournament: Tournament) -> StandingsSnapshot:
    return StandingsSnapshot.objects.get(tournament=tournament, stage_key="")


@pytest.fixture(autouse=True)
def _broker_presumed_up():
    """Each test starts with no memory of an earlier broker failure."""
    tasks.BrokerState.down_until = 0.0
    yield
    tasks.BrokerState.down_until = 0.0


@pytest.fixture
def redis_down(settings):
    """The cache and the Celery broker point at a closed port: every Redis connection is refused."""
    settings.CACHES = {"default": {"BACKEND": "config.cache.ResilientRedisCache", "LOCATION": CLOSED_PORT,
                                   "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}}
    settings.CELERY_TASK_ALWAYS_EAGER = False
    with celery_conf(broker_url=CLOSED_PORT, broker_write_url=CLOSED_PORT, task_always_eager=False):
        celery_app._pool = None
        celery_app.amqp._producer_pool = None
        yield
    celery_app._pool = None
    celery_app.amqp._producer_pool = None


def organizer_client(tournament: Tournament, django_user_model) -> APIClient:
    user = django_user_model.objects.create_user("organizer", password="pw-organizer-123456")
    TournamentRole.objects.create(user=user, tournament=tournament, role=Role.ORGANIZER)
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    api.force_login(user)
    return api


# --- Redis unreachable ---


@pytest.mark.django_db(transaction=True)
def test_with_redis_unreachable_a_save_answers_200_and_its_table_is_recomputed_in_process(redis_down,
                                                                                           django_user_model):
    """The save is committed and says so; the fallback recomputes the table; no job key is left behind."""
    tournament = import_document(example("chgk_tour_points"))
    before = latest(tournament).facts_version
    api = organizer_client(tournament, django_user_model)
    tour = Tour.objects.filter(stage__tournament=tournament).order_by("number").first()
    masks = {team: "1" * tour.questions for team in Mask.objects.filter(tour=tour).values_list("team__name",
                                                                                                flat=True)}
    started = time.monotonic()
    response = api.put(f"{API}/tours/{tour.pk}/masks/", {"masks": masks, "version": tour.version}, format="json")
    assert response.status_code == 200, response.content
    assert time.monotonic() - started < 10
    assert response.json()["version"] == tour.version + 1
    tournament.refresh_from_db()
    snap = latest(tournament)
    assert snap.facts_version == tournament.facts_version > before
    assert not snap.stale
    assert snap.export == current_export(tournament)
    assert tasks.broker_down()  # the next saves go straight to the fallback for BROKER_RETRY_SECONDS
    assert caches["default"].down


@pytest.mark.django_db(transaction=True)
def test_with_redis_unreachable_standings_pages_and_the_game_list_are_served_from_the_snapshot(redis_down):
    """No 500 without the cache: the standings export, the game list (API), the HTML pages all answer 200."""
    tournament = import_document(example("family_league"))
    snap = latest(tournament)
    anonymous = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    response = anonymous.get(f"{API}/tournaments/{tournament.slug}/standings/")
    assert response.status_code == 200, response.content
    assert response.json() == snap.export
    assert "X-Standings-Outdated" not in response
    games = anonymous.get(f"{API}/games/", {"tournament": tournament.slug})
    assert games.status_code == 200 and games.json()["count"] == Game.objects.filter(
        stage__tournament=tournament).count()
    game = Game.objects.filter(stage__tournament=tournament).select_related("stage").order_by("number").first()
    for url in ("/", f"/t/{tournament.slug}/", f"/t/{tournament.slug}/schedule/",
                f"/t/{tournament.slug}/{game.stage.key}/games/{game.number}/"):
        assert anonymous.get(url).status_code == 200, url


@pytest.mark.django_db(transaction=True)
def test_an_outdated_table_read_with_redis_unreachable_is_served_and_recomputed(redis_down):
    """The standings endpoint's own enqueue falls back too: the old table is served, then the new one."""
    tournament = import_document(example("chgk_tour_points"))
    Tournament.objects.filter(pk=tournament.pk).update(facts_version=F("facts_version") + 1)
    anonymous = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    first = anonymous.get(f"{API}/tournaments/{tournament.slug}/standings/")
    assert first.status_code == 200
    tournament.refresh_from_db()
    assert latest(tournament).facts_version == tournament.facts_version
    second = anonymous.get(f"{API}/tournaments/{tournament.slug}/standings/")
    assert second.status_code == 200 and "X-Standings-Outdated" not in second


def test_after_redis_was_unreachable_celery_reads_eagerness_from_the_settings_again(settings):
    """The fixture above gives Celery's configuration back as it found it: a copy of its values would have frozen
    ``task_always_eager`` off, and a later test's ``.delay()`` in the same process (the class-balanced schedule
    page's, under pytest-xdist) went to a broker that is not there instead of running."""
    assert settings.CELERY_TASK_ALWAYS_EAGER is True
    assert celery_app.conf.task_always_eager is True
    settings.CELERY_TASK_ALWAYS_EAGER = False
    assert celery_app.conf.task_always_eager is False


# --- in-process, with mocks: the fallback's rules ---


@pytest.mark.django_db
def test_a_refused_publish_recomputes_in_process_and_frees_the_queued_key(settings, monkeypatch):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    tournament = import_document(example("chgk_tour_points"))
    recompute(tournament.pk, force=True)
    Tournament.objects.filter(pk=tournament.pk).update(facts_version=F("facts_version") + 1)
    sent: list[int] = []

    def refuse(*args, **kwargs):
        sent.append(1)
        raise OperationalError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

    monkeypatch.setattr(tasks.recompute_standings, "apply_async", refuse)
    tasks.enqueue(tournament.pk)
    tournament.refresh_from_db()
    assert latest(tournament).facts_version == tournament.facts_version
    assert cache.get(tasks.QUEUED_KEY.format(tournament.pk)) is None, "a key left behind would block the next job"
    Tournament.objects.filter(pk=tournament.pk).update(facts_version=F("facts_version") + 1)
    tasks.enqueue(tournament.pk)
    assert len(sent) == 1, "within BROKER_RETRY_SECONDS the broker is not tried again"
    tournament.refresh_from_db()
    assert latest(tournament).facts_version == tournament.facts_version


@pytest.mark.django_db
def test_a_failing_in_process_recompute_does_not_fail_the_save(settings, monkeypatch):
    """The save is committed already: its fallback logs the failure, the table stays stale for the sweep."""
    settings.CELERY_TASK_ALWAYS_EAGER = False
    tournament = import_document(example("chgk_tour_points"))
    recompute(tournament.pk, force=True)
    monkeypatch.setattr(tasks.recompute_standings, "apply_async",
                        lambda *a, **k: (_ for _ in ()).throw(OperationalError("refused")))

    def broken(*args, **kwargs):
        raise RuntimeError("ruleset exploded")

    monkeypatch.setattr(services, "compute_all", broken)
    Tournament.objects.filter(pk=tournament.pk).update(facts_version=F("facts_version") + 1)
    tasks.enqueue(tournament.pk)  # does not raise
    assert latest(tournament).stale
    assert tournament.pk in services.stale_tournament_ids()


class _RefusingClient:
    """Stands in for Django's RedisCacheClient: every call is a refused connection; counts the attempts."""

    def __init__(self) -> None:
        self.calls = 0

    def __getattr__(self, name):
        def refuse(*args, **kwargs):
            self.calls += 1
            raise RedisConnectionError("Error 111 connecting to 127.0.0.1:1. Connection refused.")

        return refuse


def test_the_resilient_cache_answers_misses_and_retries_redis_only_after_its_interval(monkeypatch):
    backend = ResilientRedisCache(CLOSED_PORT, {"OPTIONS": {"RETRY_AFTER": 30}})
    refusing = _RefusingClient()
    monkeypatch.setattr(backend, "_cache", refusing)
    assert backend.get("k", "fallback") == "fallback"
    assert backend.down and refusing.calls == 1
    assert backend.get_many(["a", "b"]) == {}
    assert backend.set("k", 1) is None
    assert backend.set_many({"a": 1, "b": 2}) == ["a", "b"]
    assert backend.add("k", 1) is True, "add answers True: the caller does the work rather than skip it"
    assert backend.delete("k") is False and backend.has_key("k") is False
    assert refusing.calls == 1, "while down, no call reaches Redis"
    backend.down_until = time.monotonic() - 1
    assert backend.get("k") is None and refusing.calls == 2


def test_the_resilient_cache_does_not_hide_other_errors(monkeypatch):
    backend = ResilientRedisCache(CLOSED_PORT, {})

    class Broken:
        def get(self, *args, **kwargs):
            raise ValueError("not a connection problem")

    monkeypatch.setattr(backend, "_cache", Broken())
    with pytest.raises(ValueError):
        backend.get("k")
    assert not backend.down


def test_the_real_closed_port_is_a_miss_not_an_exception():
    backend = ResilientRedisCache(CLOSED_PORT, {"OPTIONS": {"socket_connect_timeout": 1}})
    assert backend.get("k", "miss") == "miss"
    assert backend.add("k", 1) is True
    assert backend.down


def test_the_cache_makes_one_redis_client_per_pool_not_one_per_call():
    backend = ResilientRedisCache(CLOSED_PORT, {})
    client = backend._cache.get_client("a")
    assert backend._cache.get_client("b", write=True) is client
    assert client.connection_pool is backend._cache._get_connection_pool(True)


@pytest.mark.skipif(not os.environ.get("REDIS_URL"), reason="needs Redis (REDIS_URL); .ci/run provides it")
def test_the_shared_redis_client_serves_threads_at_once():
    from concurrent.futures import ThreadPoolExecutor

    backend = ResilientRedisCache(os.environ["REDIS_URL"], {"KEY_PREFIX": f"shared-client-{os.getpid()}"})

    def round_trip(n: int) -> int:
        backend.set(f"k{n}", n, 30)
        return backend.get(f"k{n}")

    with ThreadPoolExecutor(8) as pool:
        assert list(pool.map(round_trip, range(200))) == list(range(200))
    backend.delete_many([f"k{n}" for n in range(200)])
    assert not backend.down


# --- runs nobody finishes, tables nobody recomputes ---


def _simulate_killed_run(tournament: Tournament, started_ago: float) -> RecomputeRun:
    """What a SIGKILLed worker leaves: facts newer than the table, the table marked stale, an open run row."""
    Tournament.objects.filter(pk=tournament.pk).update(facts_version=F("facts_version") + 1)
    tournament.refresh_from_db()
    StandingsSnapshot.objects.filter(tournament=tournament).update(stale=True)
    return RecomputeRun.objects.create(tournament=tournament, facts_version=tournament.facts_version,
                                       started_at=timezone.now() - dt.timedelta(seconds=started_ago))


@pytest.mark.django_db
def test_the_sweep_closes_an_abandoned_run_and_recomputes_the_stale_table(settings):
    tournament = import_document(example("chgk_tour_points"))
    recompute(tournament.pk, force=True)
    run = _simulate_killed_run(tournament, started_ago=settings.RECOMPUTE_RUN_TIMEOUT + 5)
    assert services.stale_tournament_ids() == [tournament.pk]
    result = services.sweep(tasks.enqueue)
    assert result.closed == 1 and result.queued == [tournament.pk]
    run.refresh_from_db()
    assert run.finished_at is not None and not run.ok and run.error == ABANDONED
    snap = latest(tournament)
    assert snap.facts_version == tournament.facts_version and not snap.stale
    assert snap.export == current_export(tournament)
    assert services.stale_tournament_ids() == []
    assert services.sweep(tasks.enqueue).queued == [], "a current table is left alone"


@pytest.mark.django_db
def test_the_sweep_task_reports_what_it_did(settings):
    tournament = import_document(example("chgk_tour_points"))
    recompute(tournament.pk, force=True)
    _simulate_killed_run(tournament, started_ago=settings.RECOMPUTE_RUN_TIMEOUT + 5)
    assert tasks.sweep_stale_standings.apply().get() == {"closed": 1, "queued": [tournament.pk], "running": []}


@pytest.mark.django_db
def test_without_advisory_locks_a_young_unfinished_run_counts_as_running(settings):
    """SQLite: a run open for less than RECOMPUTE_RUN_TIMEOUT may be alive; the sweep leaves its tournament."""
    if connection.vendor == "postgresql":
        pytest.skip("PostgreSQL knows a live run by its advisory lock (see the test below)")
    tournament = import_document(example("chgk_tour_points"))
    recompute(tournament.pk, force=True)
    run = _simulate_killed_run(tournament, started_ago=1)
    result = services.sweep(tasks.enqueue)
    assert result.closed == 0 and result.running == [tournament.pk] and result.queued == []
    run.refresh_from_db()
    assert run.finished_at is None


def _until_no_session_holds(key: tuple[int, int], seconds: float = 10.0) -> None:
    """A closed client's backend ends a moment after the client: wait until the server has let its lock go."""
    deadline = time.monotonic() + seconds
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute("SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND classid = %s AND objid = %s",
                           [key[0], key[1]])
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.05)
    pytest.fail(f"the advisory lock {key} was still held {seconds} s after its session closed")


@pytest.mark.django_db
def test_on_postgresql_a_run_is_abandoned_as_soon_as_no_session_holds_its_lock():
    """A live recompute holds the shared advisory lock; the sweep leaves it; once its session ends, closes it."""
    if connection.vendor != "postgresql":
        pytest.skip("advisory locks need PostgreSQL (.ci/run runs this against it)")
    tournament = import_document(example("chgk_tour_points"))
    recompute(tournament.pk, force=True)
    run = _simulate_killed_run(tournament, started_ago=1)
    db = connection.settings_dict
    other = psycopg.connect(host=db["HOST"], port=db["PORT"] or 5432, user=db["USER"], dbname=db["NAME"],
                            password=db["PASSWORD"] or None, autocommit=True)
    try:
        other.execute("SELECT pg_advisory_lock_shared(%s::integer, %s::integer)", services.lock_key(tournament.pk))
        result = services.sweep(tasks.enqueue)
        assert result.closed == 0 and result.running == [tournament.pk]
        run.refresh_from_db()
        assert run.finished_at is None
    finally:
        other.close()  # the "worker" dies: its session, and so its lock, is gone
    _until_no_session_holds(services.lock_key(tournament.pk))
    result = services.sweep(tasks.enqueue)
    assert result.closed == 1 and result.queued == [tournament.pk]
    run.refresh_from_db()
    assert run.error == ABANDONED
    assert latest(tournament).facts_version == Tournament.objects.get(pk=tournament.pk).facts_version


@pytest.mark.django_db
def test_the_sweep_backs_off_a_table_whose_recompute_keeps_failing():
    tournament = import_document(example("chgk_tour_points"))
    recompute(tournament.pk, force=True)
    Tournament.objects.filter(pk=tournament.pk).update(facts_version=F("facts_version") + 1)
    tournament.refresh_from_db()
    assert services.stale_tournament_ids() == [tournament.pk]
    now = timezone.now()
    for _ in range(services.FAILED_RUNS_BEFORE_BACKOFF):
        RecomputeRun.objects.create(tournament=tournament, facts_version=tournament.facts_version, started_at=now,
                                    finished_at=now, ok=False, error="RuntimeError('ruleset exploded')")
    assert services.stale_tournament_ids() == []
    later = now + dt.timedelta(seconds=services.FAILED_BACKOFF_SECONDS + 1)
    assert services.stale_tournament_ids(later) == [tournament.pk]


def test_beat_runs_the_sweep_every_few_seconds():
    entry = django_settings.CELERY_BEAT_SCHEDULE["standings-sweep-stale"]
    assert entry["task"] == "scoring.tasks.sweep_stale_standings"
    assert entry["schedule"] == django_settings.STANDINGS_SWEEP_SECONDS <= 30
    assert "scoring.tasks.sweep_stale_standings" in celery_app.tasks


# --- with the real services: SIGKILL a worker mid-recompute, a real beat drives the sweep ---


def start_beat(extra_env: dict[str, str], schedule: Path) -> subprocess.Popen:
    """``celery beat`` on the test database and Redis (it sends the sweep to the test's queue)."""
    db = connection.settings_dict
    env = dict(os.environ)
    env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"
    env.update(extra_env)
    output = Path(__file__).parent / "output"
    log = open(output / "celery-beat.log", "a") if output.is_dir() else subprocess.DEVNULL  # noqa: SIM115
    return subprocess.Popen([sys.executable, "-m", "celery", "-A", "config", "beat", "--loglevel", "INFO",
                             "-s", str(schedule)], cwd=Path(__file__).parent.parent, env=env, stdout=log,
                            stderr=subprocess.STDOUT)


@pytest.mark.celery_worker
def test_a_table_left_by_a_killed_worker_is_recomputed_by_the_sweep_without_a_read(real_services, tmp_path):
    """SIGKILL mid-recompute; the broker would hand the job back only after 10 minutes (visibility timeout),
    and nobody reads the table: beat's sweep closes the dead run and the next worker recomputes the table."""
    assert real_services_available()
    slow = {"CELERY_VISIBILITY_TIMEOUT": "600"}
    tournament = import_document(mafia_league(games=1500, teams=15, seed=19, slug="killed-then-swept"))
    worker = start_worker(slow)
    try:
        wait_for_version(tournament, seconds=120)
        kill_worker_mid_recompute(worker, tournament)
    finally:
        stop_worker(worker)
    tournament.refresh_from_db()
    killed = RecomputeRun.objects.filter(tournament=tournament).order_by("-started_at").first()
    snap = latest(tournament)
    if killed.finished_at is not None or snap.facts_version == tournament.facts_version:
        pytest.skip("the recompute finished before the worker was killed (machine too fast for this test)")
    worker = start_worker(slow)
    beat = start_beat({**slow, "STANDINGS_SWEEP_SECONDS": "1"}, tmp_path / "celerybeat-schedule")
    try:
        snap = wait_for_version(tournament, seconds=60)
    finally:
        stop_worker(beat)
        stop_worker(worker)
    killed.refresh_from_db()
    assert killed.finished_at is not None and not killed.ok and killed.error == ABANDONED
    assert not snap.stale
    assert snap.export == current_export(tournament)
