"""Shared plumbing of the benchmark scripts: a separate database, timing, tables.

Every script calls ``setup()`` before it imports anything from Django. It
points the process at a benchmark database of its own so that no real data
is touched:

- ``DATABASE_URL`` names PostgreSQL: the database ``bench_portal_<hash of the migrations>`` (or
  ``BENCH_DATABASE``) on the same server, created through the ``postgres``
  maintenance database when missing;
- otherwise a fresh SQLite file in the temporary directory, removed at exit.

Then Django is set up and the migrations are applied. The tournaments a
script creates have slugs ``bench-PID-...`` (``slug()``) and are deleted
again; leftovers of runs whose process is gone (or older than a day) are
deleted at the start, while the tournaments of a run going on at the same
time (another script, ``.ci/run``) are left alone.
"""

from __future__ import annotations

import atexit
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from urllib.parse import urlparse, urlunparse

ROOT = Path(__file__).resolve().parent.parent
# run as a script, this folder comes first on sys.path, where benchmarks/http.py would shadow the stdlib's http
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT / "benchmarks"]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

BENCH_PREFIX = "bench-"
ORIGINAL_DATABASE_URL = os.environ.get("DATABASE_URL", "")


def is_postgres_url(url: str) -> bool:
    return urlparse(url).scheme in ("postgres", "postgresql", "pgsql")


def bench_database_url(url: str, name: str) -> str:
    """The same server as ``url``, another database."""
    parsed = urlparse(url)
    return urlunparse(parsed._replace(path=f"/{name}"))


def ensure_postgres_database(url: str) -> None:
    """CREATE DATABASE for ``url`` unless it exists (through the ``postgres`` maintenance database)."""
    import psycopg

    parsed = urlparse(url)
    name = parsed.path.lstrip("/")
    maintenance = bench_database_url(url, "postgres").replace("postgres://", "postgresql://", 1)
    maintenance = maintenance.replace("pgsql://", "postgresql://", 1)
    with psycopg.connect(maintenance, autocommit=True) as conn:
        exists = conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone()
        if not exists:
            conn.execute(f'CREATE DATABASE "{name}"')


def schema_database_name() -> str:
    """``bench_portal_<hash of the migrations>``: migrations are squashed while the project is young, so a
    database migrated by an older initial migration must not be reused under the same name."""
    import hashlib

    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for path in sorted(root.glob("*/migrations/0*.py")):
        digest.update(path.read_bytes())
    return f"bench_portal_{digest.hexdigest()[:10]}"


PRODUCTION_ENV = {"DJANGO_DEBUG": "False", "SECRET_KEY": "benchmark-only-" + "x" * 40, "SECURE_SSL_REDIRECT": "False",
                  "ALLOWED_HOSTS": "127.0.0.1,localhost,testserver"}


def production_settings(env: dict[str, str] | None = None) -> dict[str, str]:
    """Run with the production settings (``DJANGO_DEBUG=False``), as a deployed process does: with DEBUG on,
    Django records every query's SQL, which a worker or a page does not pay. Sets ``env`` (default: this
    process's environment, before ``setup``) and returns it."""
    env = os.environ if env is None else env
    env.update(PRODUCTION_ENV)
    return env


def setup(*, migrate: bool = True) -> str:
    """Point the process at the benchmark database, set Django up, migrate; returns a description.

    Leftover tournaments of interrupted runs are deleted (``delete_stale_tournaments``).
    """
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "ERROR")
    if is_postgres_url(ORIGINAL_DATABASE_URL):
        url = bench_database_url(ORIGINAL_DATABASE_URL, os.environ.get("BENCH_DATABASE") or schema_database_name())
        ensure_postgres_database(url)
        os.environ["DATABASE_URL"] = url
        where = f"PostgreSQL database {urlparse(url).path.lstrip('/')} on {urlparse(url).hostname}"
    else:
        handle, path = tempfile.mkstemp(prefix="bench-portal-", suffix=".sqlite3")
        os.close(handle)
        atexit.register(_remove, path)
        os.environ["DATABASE_URL"] = f"sqlite://{path}"
        where = f"SQLite file {path} (DATABASE_URL is not PostgreSQL)"
    import django

    django.setup()
    if migrate:
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)
    delete_stale_tournaments()
    vacuum(reindex=True)
    return where


def _remove(path: str) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        try:
            os.remove(path + suffix)
        except OSError:
            pass


def database_env() -> dict[str, str]:
    """The environment a child process (worker, gunicorn) needs to use the same benchmark database."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(ROOT), env.get("PYTHONPATH", "")) if p)
    return env


def uses_postgres() -> bool:
    from django.db import connection

    return connection.vendor == "postgresql"


def redis_available() -> bool:
    return bool(os.environ.get("REDIS_URL"))


# --------------------------------------------------------------------------- data


@contextmanager
def no_recompute_on_commit():
    """Within the block, a change's on-commit callback enqueues nothing (the benchmark times recomputes itself)."""
    import tournaments.changes as changes

    original = changes.enqueue_recompute
    changes.enqueue_recompute = lambda tournament_id: None
    try:
        yield
    finally:
        changes.enqueue_recompute = original


def import_quietly(document: dict, *, replace: bool = False) -> Any:
    """Import a document without the recompute its commit would trigger (replacing the tournament of its slug
    when ``replace``); returns the tournament."""
    from tournaments.importer import import_document

    with no_recompute_on_commit():
        return import_document(document, replace=replace)


def delete_tournament(tournament_id: int) -> None:
    """Delete a tournament fast: games, seats, tours and masks by SQL, then the rest through the ORM.

    Its audit entries go too (they would outlive it, detached); the players stay (they are global).
    """
    delete_tournaments([tournament_id])


def delete_tournaments(tournament_ids: Sequence[int], batch: int = 200) -> None:
    """``delete_tournament`` for many tournaments, ``batch`` of them in each statement."""
    from django.db import transaction

    from tournaments.changes import bulk_change
    from tournaments.models import AuditEntry, Tournament
    from tournaments.purge import delete_games_and_tours

    ids = list(tournament_ids)
    for start in range(0, len(ids), batch):
        chunk = ids[start:start + batch]
        with transaction.atomic(), bulk_change(), no_recompute_on_commit():
            delete_games_and_tours(chunk)
            AuditEntry.objects.filter(tournament_id__in=chunk).delete()
            Tournament.objects.filter(pk__in=chunk).delete()
    if ids:
        vacuum()


def vacuum(reindex: bool = False) -> None:
    """PostgreSQL: ``VACUUM ANALYZE`` the benchmark database, as autovacuum keeps a real site.

    The benchmarks import and delete hundreds of thousands of rows; on a server whose autovacuum is off (the CI
    and test servers here) the tables and indexes keep the deleted rows and every later run writes and reads
    their blocks (an import of 10,000 games took 2.8 s instead of 2 s with 600,000 dead seats). Without
    ``ANALYZE`` the planner still sees bulk-inserted tables as they were. ``reindex`` (at the start of a run):
    the indexes of a table that are more than twice its size and 16 MB are built again (``VACUUM`` frees their
    pages but does not shrink them: after many runs the seat indexes were 35 MB over an empty table, and a page
    reading seats by player walked them). Skipped inside a transaction.
    """
    from django.db import connection

    if connection.vendor != "postgresql" or connection.in_atomic_block:
        return
    with connection.cursor() as cursor:
        cursor.execute("VACUUM ANALYZE")
        if not reindex:
            return
        cursor.execute(
            "SELECT c.oid::regclass::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relkind = 'r' AND n.nspname = 'public' AND (SELECT coalesce(sum(pg_relation_size(i.indexrelid)), "
            "0) FROM pg_index i WHERE i.indrelid = c.oid) > 2 * pg_relation_size(c.oid) + 16 * 1024 * 1024")
        for (table,) in cursor.fetchall():
            cursor.execute(f"REINDEX TABLE {table}")


def slug(name: str) -> str:
    """The slug of a benchmark tournament of this process: ``bench-PID-name``."""
    return f"{BENCH_PREFIX}{os.getpid()}-{name}"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def delete_stale_tournaments(max_age_hours: float = 24) -> None:
    """Delete the benchmark tournaments of processes that are gone, or older than ``max_age_hours``."""
    import datetime as dt

    from django.utils import timezone

    from tournaments.models import Tournament

    old = timezone.now() - dt.timedelta(hours=max_age_hours)
    stale = []
    for pk, name, created in Tournament.objects.filter(slug__startswith=BENCH_PREFIX).values_list(
            "pk", "slug", "created_at"):
        pid = name[len(BENCH_PREFIX):].split("-", 1)[0]
        if not pid.isdigit() or not _alive(int(pid)) or int(pid) == os.getpid() or (created and created < old):
            stale.append(pk)
    delete_tournaments(stale)


# --------------------------------------------------------------------------- timing and tables


def timed(func: Callable[[], Any]) -> tuple[float, Any]:
    """(seconds, result) of one call."""
    start = time.perf_counter()
    result = func()
    return time.perf_counter() - start, result


def timed_cpu(func: Callable[[], Any]) -> tuple[float, float, Any]:
    """(wall seconds, CPU seconds of this process, result) of one call."""
    wall, cpu = time.perf_counter(), time.process_time()
    result = func()
    return time.perf_counter() - wall, time.process_time() - cpu, result


def median_time(func: Callable[[], Any], repeat: int) -> float:
    """The median of ``repeat`` timed calls, in seconds."""
    return statistics.median(timed(func)[0] for _ in range(repeat))


def percentile(values: Sequence[float], fraction: float) -> float:
    """The nearest-rank percentile (0 < fraction <= 1) of ``values``."""
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    rank = max(1, min(len(ordered), int(-(-fraction * len(ordered) // 1))))
    return ordered[rank - 1]


def ms(seconds: float) -> str:
    return f"{seconds * 1000:,.1f} ms"


def verdict(ok: bool) -> str:
    return "ok" if ok else "MISSED"


def table(headers: Sequence[str], rows: Iterable[Sequence[Any]]) -> str:
    """A plain text table, columns right-aligned except the first."""
    rows = [[str(c) for c in row] for row in rows]
    widths = [max(len(str(h)), *(len(r[i]) for r in rows)) if rows else len(str(h)) for i, h in enumerate(headers)]

    def line(cells: Sequence[str]) -> str:
        return "  ".join(c.ljust(widths[i]) if i == 0 else c.rjust(widths[i]) for i, c in enumerate(cells))

    out = [line([str(h) for h in headers]), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out)


def header(title: str, where: str) -> None:
    import platform

    import django

    print(f"== {title}")
    print(f"   database: {where}")
    print(f"   python {platform.python_version()}, Django {django.get_version()}, {os.cpu_count()} CPU(s), "
          f"{platform.platform(terse=True)}")
    print(flush=True)


if __name__ == "__main__":  # .ci/run runs every benchmarks/*.py; this one only holds helpers
    print("benchmarks/common.py: shared helpers of the benchmark scripts (nothing to measure)")


def stop_process(process: subprocess.Popen, seconds: float = 30) -> None:
    """Stop a server or worker the benchmark started (SIGTERM, then SIGKILL) and close its log."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
    process.log.close()  # type: ignore[attr-defined]
