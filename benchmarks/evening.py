"""A game evening: 50 tournaments receive results at the same time, with 1 and with 2 Celery workers.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test REDIS_URL=redis://127.0.0.1:6379/0 \\
        .venv/bin/python benchmarks/evening.py [--short]

50 tournaments of all four rulesets at realistic sizes (built as in
``benchmarks/site_pages.py``: 8 imported and recomputed, the others copied in bulk),
then, once with 1 and once with 2 Celery workers (``celery -A config worker
--pool solo --concurrency 1`` each, separate processes, on a queue of this run,
``$CELERY_QUEUE-evening-PID``, and a Redis database of its own, ``REDIS_DB``):

1. the evening: one writer saves a result into every tournament in turn (a
   ChGK mask or a Mafia seat, each in its own transaction, as a result form
   does: ``benchmarks/latency.py``'s ``Saver``), each tournament every
   ``--every`` seconds, for ``--seconds``; a poller reads every table's
   version every 20 ms. For each save: the time until the tournament's latest
   snapshot reflects it; for each tournament: the time from its last save until
   its snapshot was current. Goal: every table current within 2 s of its last save (p95 over the
   tournaments, the max beside it).
2. flat out: the writer saves as fast as it can into all 50 for ``--seconds``,
   skipping a tournament while its recompute job still waits in the queue
   (``scoring.tasks.QUEUED_KEY``: that save would only coalesce into the job, so
   the workers' load is the same, but on a 2-CPU machine the writer would take
   CPU from them; ``--blind`` saves anyway): every table always has a job waiting;
   the recomputes the workers finished per second (``RecomputeRun`` rows), and
   how long after the last save every table was current. Goal: about twice
   the recomputes per second with 2 workers as with 1 (>= 1.7x counted as ok).
   The flat-out phases run twice, in the order 1, 2, 2, 1 workers, and each
   count's rate pools its two (``schedule``, ``pooled_rate``): the speed of a
   shared 2-vCPU guest drifts by a quarter from run to run, and within a run
   a drift then favours neither count. While the writer saves flat out, nothing
   else of this process reads the database: the poller starts when the saves
   stop and the saves' versions are read once then; when every tournament's job
   still waits, the writer pauses ``IDLE_PASS`` (the benchmark's own CPU is CPU
   the workers lose on a machine they share).
   The writer learns which jobs still wait with one Redis ``MGET`` per pass over
   the tournaments (a GET per tournament made it spin at thousands of requests a
   second, CPU the workers need). Beside the ratio: the machine's own, two
   CPU-bound processes at once against one (``machine_scaling``): on a shared
   2-vCPU guest it moves between 1.1x and 2.0x from run to run. And where the
   machine's CPU went in each phase (``CpuSplit``, from ``/proc``): the workers,
   the writer, the database server, the rest, and what was left idle. The writer
   and the database share the workers' machine here (on a deployment they run
   elsewhere): when the 2-worker phase leaves no CPU idle, the ratio is the
   machine's limit, not a lock's.
3. flat out, capped: the same, with each worker held to ``--worker-cpu`` CPUs
   (0.5 by default) by a cgroup of its own (``benchmarks/cpu_cap.py``), as if
   each ran on a machine of its own that size; the database, the broker and
   the writer stay shared, as they are when the queue scales out across
   machines. Two capped workers take one CPU of two, so the machine has room
   for everything beside them, and their ratio shows whether anything shared
   (a lock, a hot row, the broker, the database) holds them back. This ratio
   is the goal; the uncapped one is printed beside it (on a 2-CPU machine, one
   uncapped worker with its database already takes more than a core, so two
   cannot make twice its recomputes: 1.38-1.93x in the runs of 12-03 and
   12-04). Capped and uncapped phases alike run in the order 1, 2, 2, 1.
   Where this process cannot make a cgroup (no root, a read-only
   ``/sys/fs/cgroup``), the capped phases are left out, said so, and the
   goal is the uncapped ratio.

Each goal is printed beside its figure (``ok`` / ``MISSED``) at the end, with the load average
(``os.getloadavg()``) before and after the run: the machine may be shared.

Without Redis and PostgreSQL it prints "skipped: needs Redis and PostgreSQL" and exits 0.
"""

from __future__ import annotations

import argparse
import os
import re
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]  # benchmarks/http.py must not shadow http
sys.path.insert(0, str(HERE.parent))

from benchmarks import common  # noqa: E402
from benchmarks import site_pages as site_bench  # noqa: E402
from benchmarks.cpu_cap import CpuCap  # noqa: E402

TOURNAMENTS = 50
EVENING, FLAT_OUT, CAPPED = "evening", "flat out", "flat out, capped"
WORKER_CPU = 0.5  # the CPUs of each worker's own "machine" in the capped phases (--worker-cpu)
GOAL_CURRENT = 2.0
GOAL_RATIO = 1.7  # "about twice"
REDIS_DB = 12
POLL = 0.02
# flat out, the writer's pause when every tournament's job still waits: the queue holds dozens of jobs, seconds of
# work, so the workers never run dry, and a writer asking Redis every 5 ms took 0.1 core of the two they share
IDLE_PASS = 0.05
WAIT = 120.0
SUCCEEDED = re.compile(r"Task (\S+)\[[^\]]*\] succeeded in ([0-9.eE+-]+)s")


def real_services() -> bool:
    return common.redis_available() and common.is_postgres_url(common.ORIGINAL_DATABASE_URL)


def worker_name(number: int) -> str:
    return f"bench-evening-{os.getpid()}-{number}@{socket.gethostname()}"


def start_worker(queue: str, number: int, log_path: str, capped: bool = False) -> subprocess.Popen:
    """A solo Celery worker on ``queue``; ``capped``: in a cgroup of its own (``process.cap``, None where the
    machine allows none), uncapped until a phase sets its share (``set_caps``)."""
    env = common.database_env()
    env["CELERY_QUEUE"] = queue
    log = open(log_path, "ab")  # noqa: SIM115 - closed when the worker stops
    process = subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "config", "worker", "--pool", "solo", "--concurrency", "1",
         "--loglevel", "INFO", "-Q", queue, "-n", worker_name(number), "--without-heartbeat",
         "--without-gossip", "--without-mingle"],
        cwd=common.ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    process.log = log  # type: ignore[attr-defined]
    process.cap = CpuCap.make(f"bench-evening-{os.getpid()}-{number}") if capped else None  # type: ignore[attr-defined]
    if process.cap is not None:
        process.cap.add(process.pid)
    return process


def can_cap() -> bool:
    """Whether this process can hold a worker to a share of the CPU here (``CpuCap``)."""
    probe = CpuCap.make(f"bench-evening-{os.getpid()}-probe")
    if probe is None:
        return False
    probe.remove()
    return True


def set_caps(processes: list[subprocess.Popen], cores: float | None) -> None:
    """Hold each worker to ``cores`` CPUs (None: as many as the machine gives it)."""
    for process in processes:
        if getattr(process, "cap", None) is not None:
            process.cap.set(cores)
        elif cores:
            raise RuntimeError("a worker to be capped has no cgroup of its own")


def wait_for_workers(processes: list[subprocess.Popen], seconds: float = 90) -> float:
    from config.celery import app

    start = time.perf_counter()
    names = [worker_name(n) for n in range(len(processes))]
    while time.perf_counter() - start < seconds:
        for process in processes:
            if process.poll() is not None:
                raise RuntimeError(f"a Celery worker exited with status {process.returncode}")
        try:
            answered = app.control.ping(destination=names, timeout=0.5)
            if len({name for reply in answered for name in reply}) == len(names):
                return time.perf_counter() - start
        except Exception:  # noqa: BLE001 - the broker may not answer yet
            pass
        time.sleep(0.2)
    raise TimeoutError(f"the Celery workers did not answer within {seconds:.0f} s")


def stop_worker(process: subprocess.Popen) -> None:
    common.stop_process(process, 30)
    if getattr(process, "cap", None) is not None:
        process.cap.remove()


def stat_cpu(stat: str) -> float:
    """User + system CPU seconds in the text of a ``/proc/<pid>/stat`` (0 when it cannot be read)."""
    try:
        fields = stat.rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (ValueError, IndexError):
        return 0.0


def process_cpu(pid: int) -> float:
    """User + system CPU seconds of one process so far (``/proc``; 0 where it cannot be read)."""
    try:
        return stat_cpu(Path(f"/proc/{pid}/stat").read_text())
    except OSError:
        return 0.0


def cpu_seconds(processes: list[subprocess.Popen]) -> float:
    """User + system CPU time of the workers so far (``/proc``; 0 where it cannot be read)."""
    return sum(process_cpu(process.pid) for process in processes)


_database_seen: dict[tuple[str, str], float] = {}  # (pid, start time) -> the CPU seconds last read


def database_cpu() -> float:
    """CPU seconds of this machine's PostgreSQL processes so far (0 when the server runs elsewhere).

    A process that exits (a closed connection's backend, an autovacuum worker) keeps counting with what it had
    spent when last read, so that the total never goes back: the CPU it spent after that is lost to "rest".
    """
    for entry in Path("/proc").iterdir() if Path("/proc").is_dir() else ():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if stat[stat.find("(") + 1:stat.rfind(")")].startswith("postgres"):
                fields = stat.rsplit(")", 1)[1].split()
                _database_seen[entry.name, fields[19] if len(fields) > 19 else ""] = stat_cpu(stat)
    return sum(_database_seen.values())


class DatabaseSampler(threading.Thread):
    """Reads ``database_cpu`` every ``every`` seconds, so that a backend that exits during a phase (a worker's
    connection closed at ``CONN_MAX_AGE``) takes at most that much of its CPU with it."""

    def __init__(self, every: float = 0.5):
        super().__init__(daemon=True)
        self.every = every
        self.stop = threading.Event()

    def run(self) -> None:
        while not self.stop.wait(self.every):
            database_cpu()


def machine_cpu() -> tuple[float, float]:
    """(busy, idle) CPU seconds of the whole machine so far, every core summed (``/proc/stat``; zeros elsewhere)."""
    try:
        ticks = [int(v) for v in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    except (OSError, ValueError):
        return 0.0, 0.0
    hz = os.sysconf("SC_CLK_TCK")
    idle = ticks[3] + (ticks[4] if len(ticks) > 4 else 0)  # idle and iowait
    return (sum(ticks[:8]) - idle) / hz, idle / hz


@dataclass
class CpuSplit:
    """Where the machine's CPU went during a phase, in cores (CPU seconds per second): the workers, this writer
    (with its poller), the database server, everything else, and what was left idle. With no CPU left idle, two
    workers recompute no faster however little they wait for each other."""

    workers: float = 0.0
    writer: float = 0.0
    database: float = 0.0
    rest: float = 0.0
    idle: float = 0.0

    @classmethod
    def between(cls, start: dict[str, float], end: dict[str, float], seconds: float) -> CpuSplit:
        if seconds <= 0 or not end["busy"] + end["idle"]:
            return cls()
        spent = {name: (end[name] - start[name]) / seconds for name in start}
        rest = spent["busy"] - spent["workers"] - spent["writer"] - spent["database"]
        return cls(spent["workers"], spent["writer"], spent["database"], max(0.0, rest), spent["idle"])

    @property
    def measured(self) -> bool:
        """False where ``/proc`` could not be read (every share 0)."""
        return bool(self.workers + self.idle)

    def __str__(self) -> str:
        return (f"{self.workers:.2f} / {self.writer:.2f} / {self.database:.2f} / {self.rest:.2f} / {self.idle:.2f}"
                if self.measured else "-")


def cpu_now(processes: list[subprocess.Popen]) -> dict[str, float]:
    """The CPU seconds ``CpuSplit`` subtracts: the workers', this process's, the database's and the machine's."""
    busy, idle = machine_cpu()
    return {"workers": cpu_seconds(processes), "writer": time.process_time(), "database": database_cpu(),
            "busy": busy, "idle": idle}


class WorkerLog:
    """The workers' shared log: the jobs that succeeded between two points, with their run time (INFO lines)."""

    def __init__(self, path: str):
        self.path = path

    def offset(self) -> int:
        return os.path.getsize(self.path) if os.path.exists(self.path) else 0

    def jobs(self, start: int, end: int) -> dict[str, list[float]]:
        with open(self.path, "rb") as log:
            log.seek(start)
            text = log.read(end - start).decode(errors="replace")
        out: dict[str, list[float]] = {}
        for name, runtime in SUCCEEDED.findall(text):
            out.setdefault(name.rsplit(".", 1)[-1], []).append(float(runtime))
        return out


class Poller(threading.Thread):
    """Every POLL seconds: each tournament's latest snapshot version, and when it first reached it."""

    def __init__(self, ids: list[int]):
        super().__init__(daemon=True)
        self.ids = ids
        self.reached: dict[int, list[tuple[int, float]]] = {i: [] for i in ids}
        self.stop = threading.Event()
        self.error: BaseException | None = None

    def versions(self) -> dict[int, int]:
        from scoring.models import StandingsSnapshot

        return dict(StandingsSnapshot.objects.filter(tournament_id__in=self.ids, stage_key="").values_list(
            "tournament_id", "facts_version"))

    def run(self) -> None:
        from django.db import connection

        try:
            while not self.stop.is_set():
                now = time.perf_counter()
                for tid, version in self.versions().items():
                    seen = self.reached[tid]
                    if not seen or version > seen[-1][0]:
                        seen.append((version, now))
                time.sleep(POLL)
        except BaseException as exc:  # noqa: BLE001 - reported by the main thread
            self.error = exc
        finally:
            connection.close()

    def current_at(self, tid: int, version: int) -> float | None:
        """The first poll that saw the tournament's table at ``version`` or later."""
        return next((at for v, at in self.reached[tid] if v >= version), None)


def facts_versions(ids: list[int]) -> dict[int, int]:
    from tournaments.models import Tournament

    return dict(Tournament.objects.filter(pk__in=ids).values_list("pk", "facts_version"))


@dataclass
class Phase:
    label: str
    workers: int
    seconds: float
    saves: list[tuple[int, int, float]] = field(default_factory=list)  # (tournament, version after it, when)
    recomputes: int = 0
    window: float = 0.0
    after_last: dict[int, float] = field(default_factory=dict)
    per_save: list[float] = field(default_factory=list)
    unfinished: int = 0
    busy: float = 0.0  # from the first save until every table was current
    skipped: int = 0  # flat out: saves left out while the tournament's job was still queued
    cpu: float = 0.0  # the workers' CPU seconds from the first save until every table was current
    jobs: dict[str, list[float]] = field(default_factory=dict)  # task name -> run times, from the workers' log
    split: CpuSplit = field(default_factory=CpuSplit)  # the machine's CPU from the first save until all were current
    cap: float | None = None  # the CPUs each worker was held to (None: uncapped)

    def job_summary(self, name: str) -> str:
        times = self.jobs.get(name, [])
        return f"{len(times)} x {common.ms(sum(times) / len(times))}" if times else "0"

    @property
    def worker_busy(self) -> str:
        spent = sum(sum(times) for times in self.jobs.values())
        return f"{spent / (self.workers * self.busy):.0%}" if self.busy else "-"

    @property
    def worker_cpu(self) -> str:
        """The workers' CPU time over their jobs' run time: well under 100% when they wait for a CPU (or a lock)."""
        spent = sum(sum(times) for times in self.jobs.values())
        return f"{self.cpu / spent:.0%}" if spent and self.cpu else "-"

    @property
    def rate(self) -> float:
        return self.recomputes / self.busy if self.busy else 0.0

    @property
    def worst(self) -> float:
        return max(self.after_last.values()) if self.after_last else float("inf")

    @property
    def p95(self) -> float:
        return common.percentile(list(self.after_last.values()), 0.95) if self.after_last else float("inf")


def run_phase(label: str, workers: int, ids: list[int], savers: dict, seconds: float, every: float | None,
              log: WorkerLog, processes: list[subprocess.Popen], blind: bool = False,
              cap: float | None = None) -> Phase:
    """Save into every tournament in turn (each every ``every`` seconds, or flat out), then wait for the tables.

    Flat out, a tournament whose job still waits in the queue is skipped unless ``blind``; ``cap``: each worker
    held to that many CPUs (``set_caps``) for the phase.
    """
    from django.core.cache import cache
    from django.utils import timezone

    from scoring.models import RecomputeRun
    from scoring.tasks import QUEUED_KEY
    from tournaments.models import Tournament

    set_caps(processes, cap)
    phase = Phase(label, workers, seconds, cap=cap)
    poller = Poller(ids)
    if every:  # flat out, the poller starts when the saves stop: only the tables' last versions are timed
        poller.start()
    step = every / len(ids) if every else 0.0
    started_at = timezone.now()
    log_start = log.offset()
    cpu_start = cpu_now(processes)
    sampler = DatabaseSampler()
    sampler.start()
    start = time.perf_counter()
    count = turn = 0
    keys = [QUEUED_KEY.format(tid) for tid in ids]
    waiting: set[int] = set()
    while time.perf_counter() - start < seconds:
        if not step and not blind:
            if turn % len(ids) == 0:  # a pass: which tournaments' jobs still wait, in one round trip
                queued = cache.get_many(keys)
                waiting = {tid for tid, key in zip(ids, keys) if queued.get(key)}
                if len(waiting) == len(ids):
                    phase.skipped += len(ids)
                    time.sleep(IDLE_PASS)  # every tournament's job still waits
                    continue
            tid = ids[turn % len(ids)]
            turn += 1
            if tid in waiting:
                phase.skipped += 1
                continue
        else:
            tid = ids[count % len(ids)]
        due = start + count * step
        if step and time.perf_counter() < due:
            time.sleep(due - time.perf_counter())
        savers[tid].save()
        version = Tournament.objects.filter(pk=tid).values_list("facts_version", flat=True).get() if every else 0
        phase.saves.append((tid, version, time.perf_counter()))
        count += 1
    phase.window = time.perf_counter() - start
    if not every:  # the versions the saves left, read once: the writer alone changes these tournaments
        poller.start()
        final = facts_versions(ids)
        phase.saves = [(tid, final[tid], at) for tid, _version, at in phase.saves]
    last = {tid: (version, at) for tid, version, at in phase.saves}
    deadline = time.perf_counter() + WAIT
    while time.perf_counter() < deadline and any(poller.current_at(t, v) is None for t, (v, _at) in last.items()):
        if poller.error:
            raise poller.error
        time.sleep(POLL)
    drained_at, drained = timezone.now(), time.perf_counter()
    sampler.stop.set()
    sampler.join()
    cpu_end = cpu_now(processes)
    phase.cpu = cpu_end["workers"] - cpu_start["workers"]
    phase.split = CpuSplit.between(cpu_start, cpu_end, drained - start)
    time.sleep(0.2)  # the last jobs' log lines
    phase.jobs = log.jobs(log_start, log.offset())
    poller.stop.set()
    poller.join()
    for tid, (version, at) in last.items():
        reached = poller.current_at(tid, version)
        if reached is None:
            phase.unfinished += 1
        else:
            phase.after_last[tid] = max(0.0, reached - at)
    for tid, version, at in phase.saves if every else ():  # flat out, only the last save's version is known
        reached = poller.current_at(tid, version)
        if reached is not None:
            phase.per_save.append(max(0.0, reached - at))
    # from the first save until every table was current: the workers' throughput while there was work
    phase.recomputes = RecomputeRun.objects.filter(tournament_id__in=ids, ok=True, finished_at__gte=started_at,
                                                   finished_at__lte=drained_at).count()
    phase.busy = drained - start
    facts = facts_versions(ids)
    if any(v < last[t][0] for t, v in facts.items() if t in last):
        raise RuntimeError("a tournament's facts version went back")
    return phase


SPIN = "import time\nstart = time.perf_counter()\nd = {}\nfor i in range(4_000_000):\n    d[i & 4095] = i\n" \
       "print(time.perf_counter() - start)"


def machine_scaling(repeat: int = 5) -> float:
    """How much more CPU-bound work two processes do at once than one on this machine (2.0: two free cores;
    less when the cores share caches, memory bandwidth or a host with other guests): the median of ``repeat``."""
    def run(count: int) -> float:
        processes = [subprocess.Popen([sys.executable, "-c", SPIN], stdout=subprocess.PIPE, text=True)
                     for _ in range(count)]
        return max(float(p.communicate()[0]) for p in processes)

    return statistics.median(2 * run(1) / run(2) for _ in range(repeat))


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f}, {five:.2f}, {fifteen:.2f}"


def report(phases: list[Phase], every: float, scaling: float | None = None) -> list[tuple[str, str, bool]]:
    """The tables of both phases; returns the goals as (goal, figure, passed). ``scaling``: the machine's own
    (``machine_scaling``), printed beside the workers' ratio."""
    print(f"\n-- the evening: each of {TOURNAMENTS} tournaments gets a result every {every:g} s; goal: every table "
          f"current within {GOAL_CURRENT:g} s of its last save (p95 over the tournaments)")
    rows = []
    goals: list[tuple[str, str, bool]] = []
    for p in [p for p in phases if p.label == EVENING]:
        passed = not p.unfinished and p.p95 <= GOAL_CURRENT
        goals.append((f"evening, {p.workers} worker(s): table current after the last save, p95 <= {GOAL_CURRENT:g} s",
                      f"p95 {common.ms(p.p95)}, max {common.ms(p.worst)}, {p.unfinished} never current", passed))
        rows.append([p.workers, len(p.saves), f"{len(p.saves) / p.window:,.1f}/s", f"{p.rate:,.1f}/s",
                     common.ms(common.percentile(p.per_save, 0.5)), common.ms(common.percentile(p.per_save, 0.95)),
                     common.ms(common.percentile(list(p.after_last.values()), 0.5)), common.ms(p.p95),
                     common.ms(p.worst), p.unfinished, p.job_summary("recompute_standings"),
                     p.job_summary("store_figures"), p.worker_busy, p.worker_cpu, common.verdict(passed)])
    print(common.table(["workers", "saves", "saves/s", "recomputes/s", "per save p50", "per save p95",
                        "after last save p50", "p95", "max", "never current", "table jobs", "figures jobs",
                        "workers busy", "on CPU", "goal"], rows))
    flat = [p for p in phases if p.label in (FLAT_OUT, CAPPED)]
    print("\n-- flat out: saves as fast as one writer makes them into all tournaments (skipping a tournament while its "
          "job waits in the queue, unless --blind); recomputes finished per second from the first save until every "
          "table was current; capped: each worker held to its CPUs (a machine of its own)")
    rows = [[p.workers, f"{p.cap:g} CPU" if p.cap else "-", len(p.saves), f"{len(p.saves) / p.window:,.1f}/s",
             f"{p.skipped:,}", p.recomputes, f"{p.rate:,.2f}/s",
             common.ms(p.worst), p.unfinished, p.job_summary("recompute_standings"), p.job_summary("store_figures"),
             p.worker_busy, p.worker_cpu, str(p.split)] for p in flat]
    print(common.table(["workers", "cap", "saves", "saves/s", "skipped (job queued)", "recomputes", "recomputes/s",
                        "all current after last save",
                        "never current", "table jobs", "figures jobs", "workers busy", "on CPU",
                        "cores: workers / writer / database / rest / idle"], rows))
    print("   table jobs / figures jobs: jobs finished until every table was current x their mean run time (the "
          "workers' log); workers busy: their run time / (workers x that time); on CPU: the workers' CPU time / their "
          "jobs' run time (low: the jobs waited for a CPU, the database or a lock); cores: the machine's CPU seconds "
          "per second in that time, spent by the workers, this writer (and its poller), the database server and "
          "everything else, and left idle")
    uncapped = scale_out(flat, FLAT_OUT, scaling)
    capped = scale_out(flat, CAPPED)
    if capped:
        ratio, figure = capped
        cap = next(p.cap for p in flat if p.label == CAPPED)
        goals.append((f"flat out, each worker held to {cap:g} CPU (a machine of its own): recomputes/s, 2 workers / "
                      f"1 worker, about 2x (>= {GOAL_RATIO:g}x)", figure, ratio >= GOAL_RATIO))
        if uncapped:
            print(f"\n   beside the goal, the workers uncapped on this {os.cpu_count()}-CPU machine that the database "
                  f"and the writer share: {uncapped[1]}")
    elif uncapped:
        ratio, figure = uncapped
        goals.append((f"flat out: recomputes/s, 2 workers / 1 worker, about 2x (>= {GOAL_RATIO:g}x)", figure,
                      ratio >= GOAL_RATIO))
    return goals


def scale_out(phases: list[Phase], label: str, scaling: float | None = None) -> tuple[float, str] | None:
    """(2 workers' pooled recomputes per second / 1 worker's, the figure printed) of the ``label`` phases; None
    without both counts. ``scaling``: the machine's own (``machine_scaling``), printed beside it."""
    one, two = pooled_rate(phases, 1, label), pooled_rate(phases, 2, label)
    if not (one and two):
        return None
    machine = f"; this machine: {scaling:.2f}x for two CPU-bound processes" if scaling else ""
    idle = [p.split.idle for p in phases if p.label == label and p.workers == 2 and p.split.measured]
    if idle:
        machine += f"; {max(idle):.2f} cores left idle with 2 workers"
    return two / one, f"{two / one:.2f}x ({two:,.2f}/s vs {one:,.2f}/s{machine})"


def pooled_rate(phases: list[Phase], workers: int, label: str = FLAT_OUT) -> float:
    """The recomputes per second of every ``label`` phase run with ``workers``, pooled (all their recomputes over
    all their time): with the phases in the order 1, 2, 2, 1 (``schedule``), a machine that grows slower or
    quicker during the run favours neither count."""
    runs = [p for p in phases if p.workers == workers and p.label == label]
    busy = sum(p.busy for p in runs)
    return sum(p.recomputes for p in runs) / busy if busy else 0.0


def schedule(counts: list[int], capped: bool = False) -> list[tuple[int, list[str]]]:
    """The phases, as (workers, labels) in the order they run: each count's evening and flat-out phase (and its
    capped one), then the flat-out phases again in the reverse order of the counts (1, 2, 2, 1 for 1,2: capped
    and uncapped alike), so that a drift of the machine's speed during the run cancels out of each ratio; the
    last count keeps its workers for the second."""
    kinds = [FLAT_OUT, CAPPED] if capped else [FLAT_OUT]
    order = [(count, [EVENING, *kinds]) for count in counts]
    if len(counts) > 1:
        order[-1][1].extend(reversed(kinds))
        order += [(count, list(reversed(kinds))) for count in reversed(counts[:-1])]
    return order


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="50 tournaments receiving results at once, 1 and 2 Celery workers.")
    parser.add_argument("--short", action="store_true", help="8 s phases (CI)")
    parser.add_argument("--seconds", type=float, help="length of each phase (default 20; --short 8)")
    parser.add_argument("--every", type=float, default=5.0, help="seconds between two results of one tournament "
                                                                  "in the evening phase (default 5)")
    parser.add_argument("--workers", default="1,2", help="worker counts to run (default 1,2)")
    parser.add_argument("--worker-cpu", type=float, default=WORKER_CPU,
                        help=f"the CPUs each worker is held to in the capped flat-out phases (default {WORKER_CPU:g}; "
                             "0: no capped phases)")
    parser.add_argument("--blind", action="store_true", help="flat out, save even into tournaments whose job still "
                                                             "waits in the queue")
    args = parser.parse_args(argv)
    if not real_services():
        print("== evening.py: skipped: needs Redis and PostgreSQL (set REDIS_URL and a postgres:// DATABASE_URL; "
              ".ci/run does)")
        return 0
    seconds = args.seconds or (8.0 if args.short else 20.0)
    queue = f"{os.environ.get('CELERY_QUEUE') or 'bench'}-evening-{os.getpid()}"
    os.environ["CELERY_QUEUE"] = queue
    os.environ["REDIS_URL"] = site_bench.own_redis_db(os.environ["REDIS_URL"], REDIS_DB)
    os.environ.pop("CELERY_BROKER_URL", None)  # the broker is the same Redis database
    common.production_settings()  # as a deployed worker runs (DEBUG off); the workers inherit it
    where = common.setup()
    from django.conf import settings
    from django.core.cache import cache

    from benchmarks.latency import Saver
    from scoring.tasks import QUEUED_KEY
    from tournaments.models import Tournament

    if settings.CELERY_TASK_ALWAYS_EAGER:
        print("== evening.py: skipped: needs Redis and PostgreSQL (Celery is eager in these settings)")
        return 0
    counts = [int(n) for n in args.workers.split(",")]
    loaded = load_average()
    scaling = machine_scaling()
    common.header(f"evening.py: {TOURNAMENTS} tournaments saving at once -> Celery workers (solo, queue {queue}, "
                  f"Redis db {REDIS_DB})", where)
    capped = args.worker_cpu > 0 and can_cap()
    if args.worker_cpu > 0:
        print(f"   capped phases: each worker held to {args.worker_cpu:g} CPU (a cgroup of its own)" if capped else
              "   capped phases left out: this process cannot make a cgroup of the cpu controller (needs root and a "
              "writable /sys/fs/cgroup); the ratio is the uncapped one", flush=True)
    site = site_bench.Site()
    log_path = tempfile.mktemp(prefix="bench-evening-worker-", suffix=".log")
    phases: list[Phase] = []
    try:
        built = site.grow(TOURNAMENTS)
        ids = list(site.ids)
        print(f"   {len(ids)} tournaments built in {built:.1f} s (4 rulesets, realistic sizes)", flush=True)
        savers = {t.pk: Saver(t) for t in Tournament.objects.filter(pk__in=ids)}
        for tid in ids:
            cache.delete(QUEUED_KEY.format(tid))
        for count, labels in schedule(counts, capped):
            workers = [start_worker(queue, n, log_path, capped) for n in range(count)]
            try:
                print(f"   {count} worker(s) answered after {wait_for_workers(workers):.1f} s", flush=True)
                for label in labels:
                    every = args.every if label == EVENING else None
                    phases.append(run_phase(label, count, ids, savers, seconds, every, WorkerLog(log_path),
                                            workers, args.blind, args.worker_cpu if label == CAPPED else None))
                    print(f"   {count} worker(s), {label}: {len(phases[-1].saves)} saves", flush=True)
            finally:
                for worker in workers:
                    stop_worker(worker)
        goals = report(phases, args.every, scaling)
    except Exception:
        if os.path.exists(log_path):
            print(f"\nthe workers' log ({log_path}):\n" + Path(log_path).read_text(errors="replace")[-4000:])
        raise
    finally:
        site.delete()
    if os.path.exists(log_path):
        os.remove(log_path)
    print(f"\n-- goals; load average {loaded} before the run, {load_average()} after")
    print(common.table(["goal", "figure", ""], [[goal, figure, common.verdict(passed)]
                                                 for goal, figure, passed in goals]))
    ok = bool(goals) and all(passed for _g, _f, passed in goals)
    print("\nevening.py done" + ("" if ok else " (goal MISSED: see above)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
