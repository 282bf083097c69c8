"""What an organizer waits for: ``manage.py import_tournament`` of a big league, end to end.

    .venv/bin/python benchmarks/import_command.py [--short] [--sizes 1000,10000] [--databases sqlite,postgresql]

The league is a family_league qualifying stage of 140 families of 100 players in 7 groups of 20,
every game seating one player of each family of its group (``mafia_league(games, teams=140, groups=7,
players_per_team=100)``: 10,000 games = 200,000 seats, 33 MB of JSON). For 1,000 and 10,000 games
(``--short``: 100 and 1,000), on SQLite (a temporary file) and, when ``DATABASE_URL`` names PostgreSQL, on
PostgreSQL (the benchmark database of ``benchmarks/common.py``), it runs:

- naive: a plain-Python computation of the same standings from the same file: read it, ``json.loads`` it, add
  up every seat's points (FL-13, FL-14) and mafia points per team and rank each group (FL-12's order), floats,
  no checks. The script checks that it gives the table the portal stores (points and ranks);
- the command: ``import_tournament FILE`` in a fresh process (``call_command``, as ``manage.py`` runs it),
  without a broker, so that the recompute the import's commit triggers runs in the command as it does on a
  single machine (``CELERY_TASK_ALWAYS_EAGER``): read + decode, parse (``parse_document``: every check), writes
  (the import's transaction up to its COMMIT), recompute (load the facts, compute, store the standings) and
  stored figures (``scoring.figures.store_figures``, in the recompute's transaction), each timed in that process;
  "whole" is the command from its start to its return. Each is printed as a ratio to the naive computation,
  measured in the same run just before it (the median of three);
- peak: the command process's peak resident memory (``VmHWM``: ``ru_maxrss`` without the parent's memory before
  the fork), and what of it was there before the command ran (Python, Django, the settings: "before");
- after one result: in the same process, an organizer changes one game's outcome, then ``recompute`` runs
  (standings and stored figures; the median of five), as the worker that holds the league would.

Goals at 10,000 games: whole <= 3x naive on PostgreSQL and <= 5x on SQLite; whole per game at
10,000 at most 1.25x its figure at 1,000 (linear; only when both sizes ran); peak <= 300 MB; after one result
<= 100 ms. A missed goal prints MISSED (the exit status stays 0; non-zero only on an error). The tournaments are
deleted again.
"""

from __future__ import annotations

import argparse
import atexit
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]  # benchmarks/http.py must not shadow http
sys.path.insert(0, str(HERE.parent))

from benchmarks import common  # noqa: E402

TEAMS, GROUPS, PLAYERS = 140, 7, 100
GOAL_SIZE = 10_000
GOAL_RATIO = {"postgresql": 3.0, "sqlite": 5.0}
GOAL_LINEAR = 1.25
GOAL_PEAK_MB = 300
GOAL_ONE_RESULT = 0.100
PARTS = ("read", "parse", "writes", "recompute", "figures")
ONE_RESULT_RUNS = 5


# --------------------------------------------------------------------------- the league and the naive computation


def league(games: int, slug: str) -> dict:
    from tournaments.synthetic import mafia_league

    return mafia_league(games, teams=TEAMS, groups=GROUPS, players_per_team=PLAYERS, seed=1, slug=slug)


_CIVILIANS = frozenset({"civilian", "commissar", "sergeant", "doctor"})
_MAFIA = frozenset({"mafia", "don"})


def naive_points(document: dict) -> dict[str, list]:
    """team -> [points, mafia points, group] of the document's last stage, FL-13/FL-14 with the default table and
    nothing else (the synthetic league has no penalties, no violations, no decisions)."""
    stage = document["stages"][-1]
    group_of = {team: g["name"] for g in stage.get("groups", []) for team in g["teams"]}
    table: dict[str, list] = {team: [0.0, 0.0, group] for team, group in group_of.items()}
    kills = (0.0, 0.5, 0.9)
    for game in stage["games"]:
        if game["status"] not in ("played", "technical"):
            continue
        outcome = game["outcome"]
        game_days = game.get("game_days") or 0
        for seat in game["seats"]:
            role = seat["role"]
            if role in _CIVILIANS:
                points = 1.5 if outcome == "civilians" else 0.5 if outcome == "draw" else 0.0
            elif role in _MAFIA:
                points = 4.0 if outcome == "mafia" else 3.0 if outcome == "draw" else 0.0
            else:
                n = seat.get("maniac_kills", 0)
                points = (2.0 if outcome == "maniac" else 1.5 if outcome == "draw" else 0.0) + (
                    kills[n] if n < 3 else 0.9 + 0.3 * (n - 2))
            if seat.get("timed_out"):
                points = points * seat.get("days_played", 0) / game_days if game_days else 0.0
            row = table[seat["team"]]
            row[0] += points
            if role in _MAFIA:
                row[1] += points
    return table


def naive_standings(path: str) -> list[tuple]:
    """The naive computation: (group, rank, team, points, mafia points) from the file, each group ranked by
    points then mafia points (equal teams share a rank)."""
    with open(path, "rb") as handle:
        document = json.loads(handle.read())
    rows = []
    by_group: dict[str, list] = {}
    for team, (points, mafia, group) in naive_points(document).items():
        by_group.setdefault(group, []).append((round(points, 2), round(mafia, 2), team))
    for group in sorted(by_group, key=str):
        ordered = sorted(by_group[group], key=lambda r: (-r[0], -r[1], r[2]))
        for i, (points, mafia, team) in enumerate(ordered):
            rank = i + 1 if i == 0 or ordered[i - 1][:2] != (points, mafia) else rows[-1][1]
            rows.append((group, rank, team, points, mafia))
    return rows


def exported_standings(export: dict) -> list[tuple]:
    """The same rows from the portal's export document."""
    return sorted(((row.get("group"), row["rank"], row["team"], row["points"], row["tiebreaks"]["mafia_points"])
                   for row in export["teams"]), key=lambda r: (str(r[0]), r[1], r[2]))


def same_table(exported: list[tuple], naive: list[tuple]) -> bool:
    """Whether the naive rows are the portal's: the same teams in the same groups and ranks, the same points but
    for the last digit's rounding (the portal rounds exact fractions half up, the floats may fall below)."""
    naive = sorted(naive, key=lambda r: (str(r[0]), r[1], r[2]))
    return len(exported) == len(naive) and all(
        a[:3] == b[:3] and abs(a[3] - b[3]) < 0.0101 and abs(a[4] - b[4]) < 0.0101 for a, b in zip(exported, naive))


# --------------------------------------------------------------------------- the command, in its own process


@dataclass
class Run:
    """One command run (in a child process) and the recomputes after one result that followed it."""

    games: int = 0
    seats: int = 0
    whole: float = 0.0
    parts: dict[str, float] = field(default_factory=dict)
    peak_mb: float = 0.0
    before_mb: float = 0.0
    one_result: float = 0.0
    agrees: bool = False


def _maxrss_mb() -> float:
    """This process's peak resident memory: ``VmHWM`` (the peak of its own address space since its ``exec``;
    ``ru_maxrss`` would also count the parent's peak before the fork, on Linux), else ``ru_maxrss``."""
    try:
        with open("/proc/self/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # kilobytes on Linux


class _Timer:
    """Adds up the time of calls of wrapped functions, by part."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = dict.fromkeys(PARTS, 0.0)
        self.seconds.update(store_facts=0.0, decode=0.0, load=0.0, compute=0.0, store=0.0)

    def wrap(self, part: str, func):
        def timed(*args, **kwargs):
            start = time.perf_counter()
            try:
                return func(*args, **kwargs)
            finally:
                self.seconds[part] += time.perf_counter() - start

        return timed


def command_run(path: str, slug: str, one_result_runs: int = ONE_RESULT_RUNS) -> Run:
    """Run ``import_tournament path`` in this process (Django set up, no broker), timing its parts; then the
    recompute after one result, ``one_result_runs`` times; the tournament is deleted at the end."""
    from django.core.management import call_command

    import scoring.figures
    import scoring.services
    import scoring.tasks
    import tournaments.importer as importer
    from scoring.services import recompute
    from tournaments.models import Seat, Tournament

    run = Run(before_mb=_maxrss_mb())
    timer = _Timer()
    patched = [(importer, "decode"), (importer, "parse_document"), (importer, "store_facts"),
               (scoring.tasks, "recompute"), (scoring.figures, "store_figures"), (scoring.services, "load_consistent"),
               (scoring.services, "compute_all"), (scoring.services, "store")]
    originals = [getattr(module, name) for module, name in patched]
    parts = ["decode", "parse", "store_facts", "recompute", "figures", "load", "compute", "store"]
    for (module, name), original, part in zip(patched, originals, parts):
        setattr(module, name, timer.wrap(part, original))
    try:
        start = time.perf_counter()
        call_command("import_tournament", path, stdout=open(os.devnull, "w"))  # noqa: SIM115
        run.whole = time.perf_counter() - start
    finally:
        for (module, name), original in zip(patched, originals):
            setattr(module, name, original)
    run.peak_mb = _maxrss_mb()
    s = timer.seconds
    # the recompute runs on the import's commit, inside store_facts; the figures inside the recompute
    run.parts = {"read": run.whole - s["store_facts"] - s["parse"], "parse": s["parse"],
                 "writes": s["store_facts"] - s["recompute"], "recompute": s["recompute"] - s["figures"],
                 "figures": s["figures"], "load": s["load"], "compute": s["compute"], "store": s["store"]}
    tournament = Tournament.objects.get(slug=slug)
    try:
        run.games = tournament.stages.get().games.count()
        run.seats = Seat.objects.filter(game__stage__tournament=tournament).count()
        run.agrees = same_table(exported_standings(_latest_export(tournament)), naive_standings(path))
        times = []
        for step in range(one_result_runs):
            _save_one_result(tournament.pk, step)
            start = time.perf_counter()
            recompute(tournament.pk)
            times.append(time.perf_counter() - start)
        run.one_result = statistics.median(times) if times else 0.0
    finally:
        common.delete_tournament(tournament.pk)
    return run


def _latest_export(tournament) -> dict:
    from scoring.models import StandingsSnapshot

    return StandingsSnapshot.objects.get(tournament=tournament, stage_key="").export


def _save_one_result(tournament_id: int, step: int) -> None:
    """An organizer enters one result: the outcome of one of the last games changes (the signals stamp it and
    queue the recompute, which the caller runs itself)."""
    from django.db import transaction

    from tournaments.models import Game

    outcomes = ("civilians", "mafia", "draw", "maniac")
    with common.no_recompute_on_commit(), transaction.atomic():
        game = Game.objects.filter(stage__tournament_id=tournament_id).order_by("-number")[step % 5]
        game.outcome = outcomes[(outcomes.index(game.outcome) + 1) % len(outcomes)]
        game.save()


def child_main(args) -> int:
    """``--child``: set Django up on the database the parent names and run one measurement, or migrate."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("LOG_LEVEL", "ERROR")
    import django

    django.setup()
    if args.child == "migrate":
        from django.core.management import call_command

        call_command("migrate", verbosity=0, interactive=False)
        common.delete_stale_tournaments()
        common.vacuum(reindex=True)
        return 0
    run = command_run(args.child, args.slug, args.one_result_runs)
    print("RESULT " + json.dumps(asdict(run)), flush=True)
    return 0


def child_env(url: str) -> dict[str, str]:
    """The environment of a measuring process: the database, production settings, and no broker (the command
    recomputes in its own process when its import commits)."""
    env = common.database_env()
    common.production_settings(env)
    for name in ("REDIS_URL", "CELERY_BROKER_URL"):
        env.pop(name, None)
    env["DATABASE_URL"] = url
    env.setdefault("LOG_LEVEL", "ERROR")
    return env


def child(url: str, *args: str) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, str(Path(__file__).resolve()), *args], env=child_env(url),
                          capture_output=True, text=True, timeout=1800)
    if done.returncode:
        sys.stderr.write(done.stdout + done.stderr)
        raise RuntimeError(f"the measuring process failed ({' '.join(args)}): exit {done.returncode}")
    return done


# --------------------------------------------------------------------------- the parent: databases, sizes, table


@dataclass
class Measured:
    database: str
    games: int
    naive: float
    run: Run

    def ratio(self, seconds: float) -> float:
        return seconds / self.naive if self.naive else float("inf")


def databases(wanted: list[str] | None) -> list[tuple[str, str]]:
    """(name, DATABASE_URL) of the databases to measure: a temporary SQLite file, and PostgreSQL's benchmark
    database when ``DATABASE_URL`` names PostgreSQL."""
    out = []
    if wanted is None or "sqlite" in wanted:
        handle, path = tempfile.mkstemp(prefix="bench-portal-import-", suffix=".sqlite3")
        os.close(handle)
        atexit.register(common._remove, path)
        out.append(("sqlite", f"sqlite://{path}"))
    if common.is_postgres_url(common.ORIGINAL_DATABASE_URL) and (wanted is None or "postgresql" in wanted):
        url = common.bench_database_url(common.ORIGINAL_DATABASE_URL,
                                        os.environ.get("BENCH_DATABASE") or common.schema_database_name())
        common.ensure_postgres_database(url)
        out.append(("postgresql", url))
    return out


def measure(database: str, url: str, games: int, folder: str, naive_runs: int = 3) -> Measured:
    slug = common.slug(f"import-command-{games}")
    path = os.path.join(folder, f"league-{games}.json")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as handle:
            json.dump(league(games, slug), handle, ensure_ascii=False, separators=(",", ":"))
    naive = statistics.median(common.timed(lambda: naive_standings(path))[0] for _ in range(naive_runs))
    done = child(url, "--child", path, "--slug", slug)
    line = next(line for line in done.stdout.splitlines() if line.startswith("RESULT "))
    return Measured(database, games, naive, Run(**json.loads(line[len("RESULT "):])))


def results_table(results: list[Measured]) -> str:
    rows = []
    for m in results:
        r = m.run
        rows.append([m.database, f"{m.games:,}", f"{r.seats:,}", f"{m.naive:.2f} s",
                     f"{r.whole:.2f} s ({m.ratio(r.whole):.1f}x)"]
                    + [f"{r.parts[p]:.2f} s ({m.ratio(r.parts[p]):.1f}x)" for p in PARTS]
                    + [f"{r.peak_mb:,.0f} MB", f"{r.before_mb:,.0f} MB", common.ms(r.one_result),
                       "yes" if r.agrees else "NO"])
    return common.table(["database", "games", "seats", "naive", "whole (/naive)", "read+decode", "parse", "writes",
                         "recompute", "figures", "peak", "before", "one result", "same table"], rows)


def recompute_table(results: list[Measured]) -> str:
    """The recompute the import triggers, split: load the facts, compute (the ruleset, the export), store the
    standings, store the figures."""
    rows = [[m.database, f"{m.games:,}"] + [f"{m.run.parts.get(p, 0.0):.2f} s" for p in ("load", "compute", "store",
                                                                                         "figures")]
            for m in results]
    return common.table(["database", "games", "load", "compute", "store", "figures"], rows)


def goals(results: list[Measured]) -> list[str]:
    """The goals at 10,000 games (projected linearly from the largest size run when it is smaller, but
    for the peak and the recompute after one result, which are printed as measured)."""
    lines = []
    for database in dict.fromkeys(m.database for m in results):
        mine = sorted((m for m in results if m.database == database), key=lambda m: m.games)
        largest, smallest = mine[-1], mine[0]
        how = "measured" if largest.games == GOAL_SIZE else f"at {largest.games:,} games; the goal is at {GOAL_SIZE:,}"
        limit = GOAL_RATIO[database]
        checks = [(f"{database}: whole <= {limit:.0f}x naive ({how})", f"{largest.ratio(largest.run.whole):.1f}x",
                   largest.ratio(largest.run.whole) <= limit)]
        if largest.games > smallest.games:
            growth = (largest.run.whole / largest.games) / (smallest.run.whole / smallest.games)
            checks.append((f"{database}: linear, whole per game at {largest.games:,} <= {GOAL_LINEAR}x at "
                           f"{smallest.games:,}", f"{growth:.2f}x", growth <= GOAL_LINEAR))
        checks.append((f"{database}: peak memory <= {GOAL_PEAK_MB} MB ({how})", f"{largest.run.peak_mb:.0f} MB",
                       largest.run.peak_mb <= GOAL_PEAK_MB))
        checks.append((f"{database}: after one result <= {GOAL_ONE_RESULT * 1000:.0f} ms ({how})",
                       common.ms(largest.run.one_result), largest.run.one_result <= GOAL_ONE_RESULT))
        checks.append((f"{database}: the naive table is the portal's", "yes" if all(m.run.agrees for m in mine)
                       else "NO", all(m.run.agrees for m in mine)))
        lines += [f"     {name:82} {value:>9}  {common.verdict(ok)}" for name, value, ok in checks]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time import_tournament of a big family league, end to end.")
    parser.add_argument("--short", action="store_true", help="100 and 1,000 games only (CI)")
    parser.add_argument("--sizes", help="comma-separated game counts (default 1000,10000)")
    parser.add_argument("--databases", help="sqlite,postgresql (default: both, PostgreSQL when DATABASE_URL names it)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--slug", help=argparse.SUPPRESS)
    parser.add_argument("--one-result-runs", type=int, default=ONE_RESULT_RUNS, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child_main(args)
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else ([100, 1000] if args.short else [1000, 10_000])
    targets = databases(args.databases.split(",") if args.databases else None)
    import platform

    print(f"== import_command.py: manage.py import_tournament of a family league ({TEAMS} families of {PLAYERS} "
          f"players, {GROUPS} groups of {TEAMS // GROUPS}), end to end, no broker")
    print(f"   databases: {', '.join(name for name, _url in targets)}"
          + ("" if any(name == "postgresql" for name, _ in targets) else
             " (PostgreSQL skipped: DATABASE_URL does not name it)"))
    print(f"   python {platform.python_version()}, {os.cpu_count()} CPU(s), {platform.platform(terse=True)}")
    print("   load average at the start: {:.2f} {:.2f} {:.2f} (wall times grow with it)".format(*os.getloadavg()),
          flush=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="bench-import-command-") as folder:
        for name, url in targets:
            child(url, "--child", "migrate")
            for size in sizes:
                results.append(measure(name, url, size, folder))
                print(f"   {name}: {size:,} games measured", flush=True)
    print()
    print(results_table(results))
    print("   (whole = the command from its start to its return, the recompute its commit triggers included; "
          "read+decode = reading the file and json.loads, with the command's own overhead; each part's ratio is "
          "to the naive computation of the same run; peak = the peak resident memory of the command's process, before = before "
          "the command ran)")
    print("\n   the recompute the import's commit triggers, split:")
    print(recompute_table(results))
    lines = goals(results)
    print("\n   goals:")
    print("\n".join(lines))
    print("   load average at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    missed = any(line.endswith("MISSED") for line in lines)
    print("\nimport_command.py done" + (" (goals MISSED: see above)" if missed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
