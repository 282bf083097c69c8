"""Standings under load: gunicorn on loopback, a bounded load from a second process.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python benchmarks/http.py [--short]

For family_league finals of 100, 1,000 and 10,000 games (``--short``: 20 and
200) in the benchmark database (``benchmarks/common.py``), with the snapshot
computed beforehand as the portal always has it:

1. in-process, with Django's test client: the status, size and number of SQL
   queries of the standings JSON ``/api/v1/tournaments/<slug>/standings/``
   (first request after a recompute, then cached) and of the page ``/t/<slug>/``;
2. gunicorn (``config.wsgi``, production settings: ``DJANGO_DEBUG=False``,
   gthread workers) on 127.0.0.1 and a free port; a second process sends a
   fixed number of GET requests from a thread pool of keep-alive
   ``http.client`` connections, stopping at a time cap: requests per second,
   p50 / p95 latency, non-200 answers. Traffic goes to 127.0.0.1 only.

The anonymous API throttle (600/minute an address) stays on: the load's
requests claim 1,000 different player addresses in ``X-Forwarded-For``, as a
reverse proxy in front of the portal would append them when hundreds of
players open the table in the same minute, so each makes only a few requests.
gunicorn runs with ``DJANGO_NUM_PROXIES=1`` (one trusted proxy), so the
throttle keys on the last address of that header, as in production behind one
proxy; with the default 0 it would key on 127.0.0.1 and answer 429 after 600
requests, which the table's "not 200/304" column would show. Static files are
not requested. Goal: >= 800 requests/s for the JSON.
Without PostgreSQL and Redis the same runs on SQLite with the local-memory
cache, and the script says that the real-services figures were skipped.
"""

from __future__ import annotations

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
# this file is called http.py: its folder must not shadow the standard library's http package
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

import argparse  # noqa: E402
import concurrent.futures  # noqa: E402
import http.client  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import socket  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
from dataclasses import dataclass  # noqa: E402

from benchmarks import common  # noqa: E402

GOAL_JSON_RPS = 800.0
HOST = "127.0.0.1"
PLAYERS = 1000  # simulated players: each makes a few requests a run, well under the API's 600/minute


# --------------------------------------------------------------------------- the load (second process)


def player_address(number: int) -> str:
    """The address the load claims (``X-Forwarded-For``) for its ``number``-th simulated player."""
    return f"10.{number // 65536 % 256}.{number // 256 % 256}.{number % 256}"


def load(port: int, path: str, requests: int, concurrency: int, seconds: float,
         headers: dict[str, str] | None = None, players: int = PLAYERS) -> dict:
    """GET ``path`` ``requests`` times from ``concurrency`` threads, one keep-alive connection each.

    Request ``i`` claims to come from player ``i % players`` (``X-Forwarded-For``, as one reverse proxy
    appends it), as when hundreds of players open the table in the same minute; with the server's
    ``DJANGO_NUM_PROXIES=1`` the API's anonymous throttle keys on that address.
    Stops early at ``seconds``. Returns counts, the wall time and the latencies.
    """
    latencies: list[float] = []
    statuses: dict[int, int] = {}
    errors: list[str] = []
    lock = threading.Lock()
    counter = iter(range(requests))
    deadline = time.perf_counter() + seconds

    def worker() -> None:
        connection = http.client.HTTPConnection(HOST, port, timeout=30)
        mine: list[float] = []
        codes: dict[int, int] = {}
        try:
            while time.perf_counter() < deadline:
                with lock:
                    number = next(counter, None)
                if number is None:
                    break
                start = time.perf_counter()
                try:
                    connection.request("GET", path, headers={**(headers or {}),
                                                             "X-Forwarded-For": player_address(number % players)})
                    response = connection.getresponse()
                    response.read()
                except (OSError, http.client.HTTPException) as exc:
                    with lock:
                        errors.append(repr(exc))
                    connection.close()
                    connection = http.client.HTTPConnection(HOST, port, timeout=30)
                    continue
                mine.append(time.perf_counter() - start)
                codes[response.status] = codes.get(response.status, 0) + 1
        finally:
            connection.close()
            with lock:
                latencies.extend(mine)
                for code, count in codes.items():
                    statuses[code] = statuses.get(code, 0) + count

    start = time.perf_counter()
    with concurrent.futures.ThreadPoolExecutor(concurrency) as pool:
        for future in [pool.submit(worker) for _ in range(concurrency)]:
            future.result()
    wall = time.perf_counter() - start
    return {"wall": wall, "latencies": latencies, "statuses": statuses, "errors": errors[:5],
            "error_count": len(errors), "capped": len(latencies) + len(errors) < requests}


def run_load_process(port: int, path: str, requests: int, concurrency: int, seconds: float,
                     headers: dict[str, str] | None = None) -> dict:
    """The load, from a second process (this script with ``--load``)."""
    spec = json.dumps({"port": port, "path": path, "requests": requests, "concurrency": concurrency,
                       "seconds": seconds, "headers": headers or {}})
    done = subprocess.run([sys.executable, __file__, "--load", spec], capture_output=True, text=True,
                          timeout=seconds + 120, cwd=common.ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"the load process failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


def best_of(rounds: int, *args, **kwargs) -> dict:
    """The round with the most requests per second of ``rounds`` loads (the others were disturbed more)."""
    results = [run_load_process(*args, **kwargs) for _ in range(rounds)]
    return max(results, key=lambda r: len(r["latencies"]) / r["wall"] if r["wall"] else 0.0)


# --------------------------------------------------------------------------- the server


def wsgi_application():
    """gunicorn's target (``benchmarks.http:wsgi_application()``): ``config.wsgi`` with production settings.

    The only change: static files through the plain storage, as no ``collectstatic``
    manifest exists in a clean clone (the manifest lookup is a dict lookup in production).
    """
    import django
    from django.test.utils import override_settings

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    django.setup()
    from django.conf import settings

    storages = {**settings.STORAGES,
                "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
    override_settings(STORAGES=storages).enable()
    from django.core.wsgi import get_wsgi_application

    return get_wsgi_application()


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


def start_server(port: int, workers: int, threads: int, log_path: str) -> subprocess.Popen:
    env = common.production_settings(common.database_env())
    # DJANGO_NUM_PROXIES=1: the load plays the one reverse proxy, appending each player's address to
    # X-Forwarded-For; the anonymous throttle keys on it (with 0 every request would be 127.0.0.1's)
    env.update({"LOG_LEVEL": "ERROR", "DJANGO_NUM_PROXIES": "1"})
    log = open(log_path, "ab")  # noqa: SIM115 - closed when the server stops
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "benchmarks.http:wsgi_application()", "--bind", f"{HOST}:{port}",
         "--workers", str(workers), "--worker-class", "gthread", "--threads", str(threads),
         "--keep-alive", "30", "--backlog", "512", "--log-level", "warning", "--error-logfile", "-"],
        cwd=common.ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    process.log = log  # type: ignore[attr-defined]
    return process


def wait_for_server(process: subprocess.Popen, port: int, path: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"gunicorn exited with status {process.returncode}")
        try:
            connection = http.client.HTTPConnection(HOST, port, timeout=5)
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            connection.close()
            if response.status == 200:
                return
        except OSError:
            pass
        time.sleep(0.2)
    raise TimeoutError(f"gunicorn did not answer 200 on {path} within {seconds:.0f} s")


def stop_server(process: subprocess.Popen) -> None:
    common.stop_process(process, 30)


# --------------------------------------------------------------------------- in-process checks


@dataclass
class Probe:
    name: str
    path: str
    exists: bool
    status: int | None = None
    queries: int | None = None
    queries_cached: int | None = None
    size: int | None = None
    etag: str | None = None
    note: str = ""


def url_exists(path: str) -> bool:
    from django.urls import Resolver404, resolve

    try:
        resolve(path.split("?")[0])
    except Resolver404:
        return False
    return True


def probe(name: str, path: str) -> Probe:
    """Status, size and queries of one GET through Django's test client (twice: cold, then cached)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    if not url_exists(path):
        return Probe(name, path, exists=False, note="the URL does not exist (yet) in config/urls.py")
    client = Client(HTTP_HOST=HOST, REMOTE_ADDR="10.255.255.254")
    with CaptureQueriesContext(connection) as cold:
        response = client.get(path)
    with CaptureQueriesContext(connection) as warm:
        again = client.get(path)
    note = "" if response.status_code == 200 else f"answered {response.status_code}"
    return Probe(name, path, exists=True, status=again.status_code, queries=len(cold), queries_cached=len(warm),
                 size=len(again.content), etag=again.headers.get("ETag"), note=note)


# --------------------------------------------------------------------------- the run


@dataclass
class Run:
    games: int
    target: str
    result: dict

    @property
    def rps(self) -> float:
        return len(self.result["latencies"]) / self.result["wall"] if self.result["wall"] else 0.0

    def latency(self, fraction: float) -> float:
        return common.percentile(self.result["latencies"], fraction)

    @property
    def other(self) -> str:
        odd = {code: n for code, n in self.result["statuses"].items() if code not in ("200", "304")}
        parts = [f"{n} x {code}" for code, n in sorted(odd.items())]
        if self.result["error_count"]:
            parts.append(f"{self.result['error_count']} errors")
        return ", ".join(parts) or "-"


def prepare(games: int):
    from scoring.services import recompute
    from tournaments.synthetic import mafia_league

    tournament = common.import_quietly(mafia_league(games=games, seed=1, slug=common.slug(f"http-{games}")))
    recompute(tournament.pk, force=True)
    tournament.refresh_from_db()
    return tournament


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Standings JSON and page under gunicorn and a bounded load.")
    parser.add_argument("--short", action="store_true", help="20 and 200 games, fewer requests (CI)")
    parser.add_argument("--sizes", help="comma-separated game counts (default 100,1000,10000)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2, help="gunicorn workers (default: CPUs)")
    parser.add_argument("--threads", type=int, default=4, help="threads per gunicorn worker (default 4)")
    parser.add_argument("--concurrency", type=int, default=8, help="client connections (default 8)")
    parser.add_argument("--rounds", type=int, help="loads per target, the best reported (default 3; --short 2)")
    parser.add_argument("--load", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.load:
        spec = json.loads(args.load)
        result = load(spec["port"], spec["path"], spec["requests"], spec["concurrency"], spec["seconds"],
                      spec["headers"])
        result["statuses"] = {str(k): v for k, v in result["statuses"].items()}
        print(json.dumps(result))
        return 0

    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else ([20, 200] if args.short
                                                                        else [100, 1000, 10_000])
    json_requests, page_requests, cap = (1500, 300, 10.0) if args.short else (6000, 1500, 30.0)
    rounds = args.rounds or (2 if args.short else 3)
    where = common.setup()
    real = common.uses_postgres() and common.redis_available()
    from django.conf import settings

    cache_name = settings.CACHES["default"]["BACKEND"].rsplit(".", 1)[-1]
    common.header(f"http.py: gunicorn ({args.workers} gthread workers x {args.threads} threads, DEBUG off) on "
                  f"{HOST}, load from a second process ({args.concurrency} keep-alive connections)", where)
    print(f"   cache: {cache_name}; per target at most {json_requests:,} (JSON) / {page_requests:,} (page) "
          f"requests or {cap:g} s, {rounds} rounds, the best shown")
    if not real:
        print("   real-services figures skipped: needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL); "
              "these are SQLite / local-memory-cache figures.")
    print(flush=True)

    log_path = tempfile.mktemp(prefix="bench-http-gunicorn-", suffix=".log")
    probes: list[tuple[int, list[Probe]]] = []
    runs: list[Run] = []
    missing: list[Probe] = []
    server = None
    try:
        for games in sizes:
            tournament = prepare(games)
            try:
                targets = [
                    ("JSON", f"/api/v1/tournaments/{tournament.slug}/standings/", json_requests),
                    ("page", f"/t/{tournament.slug}/", page_requests),
                ]
                found = [probe(name, path) for name, path, _n in targets]
                probes.append((games, found))
                missing += [p for p in found if not p.exists or p.status != 200]
                usable = [(t, p) for t, p in zip(targets, found) if p.exists and p.status == 200]
                if not usable:
                    continue
                if server is None:
                    port = free_port()
                    server = start_server(port, args.workers, args.threads, log_path)
                wait_for_server(server, port, usable[0][1].path)
                for (name, path, requests), found_probe in usable:
                    run_load_process(port, path, min(200, requests), args.concurrency, cap)  # warm every worker
                    runs.append(Run(games, name, best_of(rounds, port, path, requests, args.concurrency, cap)))
                    if name == "JSON" and found_probe.etag:
                        runs.append(Run(games, "JSON, If-None-Match (304)", best_of(
                            rounds, port, path, requests, args.concurrency, cap, {"If-None-Match": found_probe.etag})))
                print(f"   {games:,} games measured", flush=True)
            finally:
                common.delete_tournament(tournament.pk)
    except Exception:
        if os.path.exists(log_path):
            print(f"\ngunicorn's log ({log_path}):\n" + Path(log_path).read_text(errors="replace")[-4000:])
        raise
    finally:
        if server is not None:
            stop_server(server)
    if os.path.exists(log_path):
        os.remove(log_path)

    print("\n-- in-process (Django test client): SQL queries per request")
    rows = []
    for games, found in probes:
        for p in found:
            if not p.exists:
                rows.append([f"{games:,}", p.name, p.path, "missing", "-", "-", "-"])
            else:
                rows.append([f"{games:,}", p.name, p.path, p.status, p.queries, p.queries_cached,
                             f"{p.size / 1024:,.1f} KB"])
    print(common.table(["games", "target", "path", "status", "queries (1st)", "queries (again)", "body"], rows))
    print("\n-- under gunicorn")
    rows = [[f"{r.games:,}", r.target, f"{len(r.result['latencies']):,}" + (" (time cap)" if r.result["capped"] else ""),
             f"{r.result['wall']:.2f} s", f"{r.rps:,.0f}", common.ms(r.latency(0.5)), common.ms(r.latency(0.95)),
             r.other] for r in runs]
    print(common.table(["games", "target", "requests", "wall", "req/s", "p50", "p95", "not 200/304"], rows))
    json_runs = [r for r in runs if r.target == "JSON"]
    ok = bool(json_runs) and all(r.rps >= GOAL_JSON_RPS for r in json_runs)
    print(f"\n   goal: standings JSON >= {GOAL_JSON_RPS:,.0f} req/s at every size: "
          + (common.verdict(ok) if json_runs else "not measured"))
    for r in json_runs:
        print(f"     {r.games:>6,} games: {r.rps:,.0f} req/s  {common.verdict(r.rps >= GOAL_JSON_RPS)}")
    for p in missing:
        if not p.exists:
            print(f"   NOT MEASURED: {p.name} {p.path}: {p.note}")
        else:
            print(f"   NOT MEASURED under load: {p.name} {p.path} answered {p.status}")
    bad = [r for r in runs if r.other != "-"]
    print("\nhttp.py done" + ("" if ok and not bad and not missing else " (see MISSED / NOT MEASURED / errors above)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
