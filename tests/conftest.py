"""Shared fixtures: eager Celery unless a test asks for the real worker."""

from __future__ import annotations

import contextlib
import copy
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import pytest

from tests.browser import chromium_browser, demo_site, page_factory  # noqa: F401 - the browser tests' fixtures

DATA = Path(__file__).parent / "data"
EXAMPLES = DATA / "examples"
RULESET_KEYS = ("chgk_tour_points", "family_league", "class_balanced", "elimination_gp")


def _services_of_this_xdist_worker() -> None:
    """Under pytest-xdist (``scripts/test`` runs ``-n``) each worker process has its own test database (pytest-django
    suffixes its name, ``test_NAME_gw0``), and here its own Celery queue (``$CELERY_QUEUE-gw0``) and Redis database
    (``REDIS_URL``'s number + 1 + the worker's): the Celery workers a test starts, its purges, pings and cache clears,
    and the cache keys of ids that two workers' databases share never meet. Set before any test runs, for this
    process and for the processes it starts (they read the environment)."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    if not worker:
        return
    from django.conf import settings
    from django.test import override_settings

    queue = f"{os.environ.get('CELERY_QUEUE') or 'portal'}-{worker}"
    os.environ["CELERY_QUEUE"] = queue
    changes: dict = {"CELERY_TASK_DEFAULT_QUEUE": queue}
    redis = os.environ.get("REDIS_URL")
    if redis:
        parts = urlsplit(redis)
        base = int(parts.path.strip("/") or 0)
        own = urlunsplit(parts._replace(path=f"/{(base + 1 + int(worker.removeprefix('gw'))) % 16}"))
        os.environ["REDIS_URL"] = own
        changes["REDIS_URL"] = own
        if os.environ.get("CELERY_BROKER_URL") == redis:
            os.environ["CELERY_BROKER_URL"] = own
        if settings.CELERY_BROKER_URL == redis:
            changes["CELERY_BROKER_URL"] = own
        caches = copy.deepcopy(settings.CACHES)
        if caches["default"].get("LOCATION") == redis:
            caches["default"]["LOCATION"] = own
            changes["CACHES"] = caches
    override_settings(**changes).enable()
    from config.celery import app

    app.conf.task_default_queue = queue
    if "CELERY_BROKER_URL" in changes:
        app.conf.broker_url = changes["CELERY_BROKER_URL"]


_services_of_this_xdist_worker()


@pytest.fixture(autouse=True, scope="session")
def _fast_password_hasher():
    """MD5 instead of PBKDF2's million rounds (0.3 s a password on this machine): the users of every test, the
    demo's included, are made and signed in in microseconds. Only this process: a ``manage.py`` the tests start
    hashes as production does."""
    from django.test import override_settings

    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@contextlib.contextmanager
def celery_conf(**values):
    """Celery's configuration with ``values`` set, given back exactly as it was: a key the test did not find
    overridden is removed again, so that it reads the Django settings live (a restored copy would freeze
    ``task_always_eager`` at the test's value for every later test of the process)."""
    from config.celery import app

    changes = app.conf.changes
    before = {name: changes[name] for name in values if name in changes}
    for name, value in values.items():
        app.conf[name] = value
    try:
        yield app
    finally:
        for name in values:
            if name in before:
                changes[name] = before[name]
            else:
                changes.pop(name, None)


def example(key: str) -> dict:
    return json.loads((EXAMPLES / f"{key}.json").read_text(encoding="utf-8"))


def expected_export(key: str) -> dict:
    return json.loads((EXAMPLES / f"{key}.expected.json").read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def _eager_unless_real_worker(request, settings):
    """Tests run Celery tasks in-process, except those marked ``celery_worker``."""
    if request.node.get_closest_marker("celery_worker") is None:
        settings.CELERY_TASK_ALWAYS_EAGER = True
    yield


@pytest.fixture(autouse=True)
def _webhook_receivers_on_this_machine(settings):
    """A test's webhook receiver listens on 127.0.0.1: private targets are allowed, whatever the environment (with
    ``DATABASE_URL`` or a broker set the default refuses them); ``tests/test_webhooks.py`` refuses them where it
    checks that they are refused."""
    settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS = True


@pytest.fixture(autouse=True)
def _no_address_attempt_limit(settings):
    """Many tests sign in from 127.0.0.1 within minutes; ``tests/test_login_limits.py`` sets its own limits."""
    settings.ADDRESS_ATTEMPT_LIMITS = {"login": (10**6, 600), "password_reset": (10**6, 3600)}


@pytest.fixture(autouse=True)
def _game_cache_for_every_tournament(settings):
    """Every recompute in the tests goes through the loader's game cache, which starts empty."""
    from tournaments import game_cache

    settings.FACTS_CACHE_MIN_GAMES = 0
    game_cache.forget()
    yield
    game_cache.forget()


@pytest.fixture(autouse=True)
def _empty_local_standings_cache():
    """The per-process caches of rendered standings (the API's ``portal.api.standings.local_cache``, the page's
    ``portal.page_cache``) start every test empty.

    Their keys hold the tournament's id and creation time, which a rolled-back test may share with the next. So
    does the in-process default cache (the embedded default, LocMem) with the progress of a long job keyed by a
    stage's id (the class-balanced schedule): a rolled-back test's ids come again in the next test of the process.
    """
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    from portal import page_cache
    from portal.api.standings import local_cache

    def empty() -> None:
        local_cache.clear()
        page_cache.clear()
        if isinstance(caches["default"], LocMemCache):  # a shared cache (Redis) is the real worker's too
            caches["default"].clear()

    empty()
    yield
    empty()


def real_services_available() -> bool:
    from django.conf import settings

    return bool(os.environ.get("REDIS_URL")) and settings.DATABASES["default"]["ENGINE"].endswith("postgresql")


def start_worker(extra_env: dict[str, str] | None = None) -> subprocess.Popen:
    """Start ``celery worker`` on the test database and Redis; wait until it answers a ping."""
    from django.db import connection

    db = connection.settings_dict
    env = dict(os.environ)
    env["DATABASE_URL"] = f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"
    env.update(extra_env or {})
    output = DATA.parent / "output"
    log = open(output / "celery-worker.log", "a") if output.is_dir() else subprocess.DEVNULL  # noqa: SIM115
    proc = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--loglevel", "INFO",
         "-Q", env.get("CELERY_QUEUE", "portal"), "--without-heartbeat", "--without-gossip", "--without-mingle"],
        cwd=Path(__file__).parent.parent, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    from config.celery import app

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"the Celery worker exited with {proc.returncode}; see tests/output/celery-worker.log")
        try:
            if app.control.ping(timeout=0.5):
                return proc
        except Exception:  # noqa: BLE001 - the broker may not answer yet
            pass
        time.sleep(0.3)
    proc.kill()
    pytest.fail("the Celery worker did not start within 60 s")


def stop_worker(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture
def real_services(transactional_db, settings):
    """PostgreSQL and Redis with tasks sent to the broker (a test starts its workers)."""
    if not real_services_available():
        pytest.skip("needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL); .ci/run provides them")
    from django.core.cache import cache

    cache.clear()
    settings.CELERY_TASK_ALWAYS_EAGER = False
    from config.celery import app

    app.control.purge()
    yield


@pytest.fixture
def celery_worker_process(real_services):
    """A real ``celery worker`` process on the test database and Redis."""
    proc = start_worker()
    yield proc
    stop_worker(proc)
