"""Readers: 500 concurrent clients on the standings pages and the API, 1 and 2 gunicorn processes.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python benchmarks/readers.py [--short]

Two tournaments with current snapshots (a ``family_league`` final of 120 games and
a ChGK season of 12 x 12), served by gunicorn as ``benchmarks/http.py`` starts it
(``config.wsgi`` with ``DJANGO_DEBUG=False``, gthread workers, 127.0.0.1 and a
free port, ``DJANGO_NUM_PROXIES=1``), once with 1 and once with 2 worker
processes (``--threads`` each). A second process (this script with
``--load``) opens ``--clients`` (500) keep-alive connections with asyncio and
raw sockets (no dependency) and, for ``--seconds``, each client asks in turn
for the standings page ``/t/<slug>/`` and the standings JSON
``/api/v1/tournaments/<slug>/standings/`` of both tournaments, each request
claiming its own player address in ``X-Forwarded-For`` (as one reverse proxy
appends it; the API's 600/minute anonymous throttle stays on). Printed per
gunicorn process count: requests, requests per second, p50 / p95 / max latency
(the client's time from sending to the last byte, queueing included), answers
other than 200 and connection errors, by target. Traffic goes to 127.0.0.1 only.
There is no pass mark for the latency; the script prints each
process count's p50 / p95 beside the one mark, no failed request (errors 0:
connection errors, client timeouts of 30 s and answers other than 200/304),
``ok`` / ``MISSED``, with the load average before and after the run.

Every client sends its next request as soon as the last one is answered (a
closed loop, no think time), so the server is saturated and a request's
latency is mostly its wait behind the other clients' requests: p50 is about
clients / requests per second. The latency of one request alone is the row of
``--clients 1``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]  # benchmarks/http.py must not shadow http
sys.path.insert(0, str(HERE.parent))

from benchmarks import common  # noqa: E402
from benchmarks import http as http_bench  # noqa: E402

HOST = http_bench.HOST
CLIENTS = 500
REDIS_DB = 13


# --------------------------------------------------------------------------- the load (second process)


async def read_response(reader: asyncio.StreamReader) -> int:
    """One HTTP/1.1 response (Content-Length or chunked); its status."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    headers = {k.strip().lower(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)}
    if "content-length" in headers:
        await reader.readexactly(int(headers["content-length"]))
    elif headers.get("transfer-encoding", "").lower() == "chunked":
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            await reader.readexactly(size + 2)
            if size == 0:
                break
    if headers.get("connection", "").lower() == "close":
        raise ConnectionResetError("the server closed the connection")
    return status


async def run_clients(port: int, paths: list[str], clients: int, seconds: float) -> dict:
    samples: dict[str, list[float]] = {p: [] for p in paths}
    statuses: dict[str, dict[str, int]] = {p: {} for p in paths}
    errors: dict[str, int] = {}
    counter = iter(range(10 ** 9))
    start = time.perf_counter()
    deadline = start + seconds

    async def client(number: int) -> None:
        reader = writer = None
        turn = number
        while time.perf_counter() < deadline:
            path = paths[turn % len(paths)]
            turn += 1
            address = http_bench.player_address(next(counter) % http_bench.PLAYERS)
            try:
                if writer is None:
                    reader, writer = await asyncio.wait_for(asyncio.open_connection(HOST, port), timeout=30)
                began = time.perf_counter()
                writer.write((f"GET {path} HTTP/1.1\r\nHost: {HOST}\r\nX-Forwarded-For: {address}\r\n"
                              f"Accept: */*\r\n\r\n").encode())
                status = await asyncio.wait_for(read_response(reader), timeout=30)
                samples[path].append(time.perf_counter() - began)
                statuses[path][str(status)] = statuses[path].get(str(status), 0) + 1
            except (TimeoutError, OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ValueError) as exc:
                name = type(exc).__name__
                errors[name] = errors.get(name, 0) + 1
                if writer is not None:
                    writer.close()
                reader = writer = None
                await asyncio.sleep(0.05)
        if writer is not None:
            writer.close()

    await asyncio.gather(*(client(n) for n in range(clients)))
    return {"wall": time.perf_counter() - start, "samples": samples, "statuses": statuses, "errors": errors}


def load(port: int, paths: list[str], clients: int, seconds: float) -> dict:
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < clients + 100:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, clients + 1024), hard))
    return asyncio.run(run_clients(port, paths, clients, seconds))


def run_load_process(port: int, paths: list[str], clients: int, seconds: float) -> dict:
    spec = json.dumps({"port": port, "paths": paths, "clients": clients, "seconds": seconds})
    done = subprocess.run([sys.executable, __file__, "--load", spec], capture_output=True, text=True,
                          timeout=seconds + 180, cwd=common.ROOT)
    if done.returncode != 0:
        raise RuntimeError(f"the load process failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout)


# --------------------------------------------------------------------------- the run


def prepare() -> list:
    from scoring.services import recompute
    from tournaments.synthetic import chgk_season, mafia_league

    out = []
    for document in (mafia_league(games=120, seed=1, slug=common.slug("readers-league")),
                     chgk_season(teams=12, seed=1, slug=common.slug("readers-chgk"))):
        tournament = common.import_quietly(document)
        recompute(tournament.pk, force=True)
        out.append(tournament)
    return out


def label(path: str) -> str:
    kind = "JSON" if path.startswith("/api/") else "page"
    return f"{kind} {path.rstrip('/').split('/')[-2 if kind == 'JSON' else -1]}"


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f}"


def report(results: list[tuple[int, dict]], clients: int) -> list[tuple[str, str, bool]]:
    """The table of every run; returns the goals as (goal, figure, passed)."""
    rows = []
    goals: list[tuple[str, str, bool]] = []
    for workers, result in results:
        everything = [s for values in result["samples"].values() for s in values]
        wall = result["wall"]
        bad = sum(n for per in result["statuses"].values() for code, n in per.items() if code not in ("200", "304"))
        errors = sum(result["errors"].values())
        goals.append((f"{clients} clients, {workers} gunicorn process(es): errors 0",
                      f"{bad + errors} errors; p50 {common.ms(common.percentile(everything, 0.5))}, p95 "
                      f"{common.ms(common.percentile(everything, 0.95))}, {len(everything) / wall:,.0f} req/s",
                      not bad and not errors and bool(everything)))
        rows.append([workers, "all", f"{len(everything):,}", f"{len(everything) / wall:,.0f}",
                     common.ms(common.percentile(everything, 0.5)), common.ms(common.percentile(everything, 0.95)),
                     common.ms(max(everything) if everything else float("nan")), bad,
                     ", ".join(f"{n} x {name}" for name, n in result["errors"].items()) or "0"])
        for path, values in result["samples"].items():
            odd = sum(n for code, n in result["statuses"][path].items() if code not in ("200", "304"))
            rows.append(["", label(path), f"{len(values):,}", f"{len(values) / wall:,.0f}",
                         common.ms(common.percentile(values, 0.5)), common.ms(common.percentile(values, 0.95)),
                         common.ms(max(values) if values else float("nan")), odd, ""])
    print(f"\n-- {clients} concurrent clients (keep-alive, asyncio), standings pages and JSON of 2 tournaments")
    print(common.table(["gunicorn processes", "target", "requests", "req/s", "p50", "p95", "max", "not 200/304",
                        "errors"], rows))
    return goals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="500 concurrent readers, 1 and 2 gunicorn processes.")
    parser.add_argument("--short", action="store_true", help="8 s per run (CI)")
    parser.add_argument("--seconds", type=float, help="length of each load (default 20; --short 8)")
    parser.add_argument("--clients", type=int, default=CLIENTS, help=f"concurrent connections (default {CLIENTS})")
    parser.add_argument("--threads", type=int, default=8, help="threads per gunicorn process (default 8)")
    parser.add_argument("--workers", default="1,2", help="gunicorn process counts (default 1,2)")
    parser.add_argument("--load", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.load:
        spec = json.loads(args.load)
        print(json.dumps(load(spec["port"], spec["paths"], spec["clients"], spec["seconds"])))
        return 0
    seconds = args.seconds or (8.0 if args.short else 20.0)
    loaded = load_average()
    if os.environ.get("REDIS_URL"):
        from benchmarks.site_pages import own_redis_db

        os.environ["REDIS_URL"] = own_redis_db(os.environ["REDIS_URL"], REDIS_DB)
    where = common.setup()
    real = common.uses_postgres() and common.redis_available()
    common.header(f"readers.py: {args.clients} concurrent clients from a second process -> gunicorn (gthread, "
                  f"{args.threads} threads a process, DEBUG off) on {HOST}, {seconds:g} s a run", where)
    if not real:
        print("   real-services figures skipped: needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL); "
              "these are SQLite / local-memory-cache figures.\n")
    log_path = tempfile.mktemp(prefix="bench-readers-gunicorn-", suffix=".log")
    tournaments = prepare()
    results: list[tuple[int, dict]] = []
    try:
        paths = [p for t in tournaments for p in (f"/t/{t.slug}/", f"/api/v1/tournaments/{t.slug}/standings/")]
        for workers in [int(n) for n in args.workers.split(",")]:
            port = http_bench.free_port()
            server = http_bench.start_server(port, workers, args.threads, log_path)
            try:
                for path in paths:
                    http_bench.wait_for_server(server, port, path)
                run_load_process(port, paths, min(50, args.clients), 2.0)  # warm every worker
                results.append((workers, run_load_process(port, paths, args.clients, seconds)))
                print(f"   {workers} gunicorn process(es) measured", flush=True)
            finally:
                http_bench.stop_server(server)
    except Exception:
        if os.path.exists(log_path):
            print(f"\ngunicorn's log ({log_path}):\n" + Path(log_path).read_text(errors="replace")[-4000:])
        raise
    finally:
        common.delete_tournaments([t.pk for t in tournaments])
    if os.path.exists(log_path):
        os.remove(log_path)
    goals = report(results, args.clients)
    if len(results) == 2:
        rates = [sum(len(v) for v in r["samples"].values()) / r["wall"] for _w, r in results]
        print(f"\n   requests per second, {results[1][0]} / {results[0][0]} processes: "
              f"{rates[1] / rates[0] if rates[0] else float('nan'):.2f}x")
    print(f"\n-- goals; load average {loaded} before the run, {load_average()} after")
    print(common.table(["goal", "figure", ""], [[goal, figure, common.verdict(passed)]
                                                 for goal, figure, passed in goals]))
    ok = bool(goals) and all(passed for _g, _f, passed in goals)
    print("\nreaders.py done" + ("" if ok else " (requests failed: see above)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
