"""How long importing an interchange document takes as a league grows.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python benchmarks/imports.py [--short]

For a family_league final of 1,000 and 10,000 games (``--short``: 100 and 1,000; 15 seats a game, so
150,000 seats and 22 MB of JSON at 10,000), in a benchmark database of its own (``benchmarks/common.py``),
it times, each the median of a few runs:

- parse: ``rulesets.interchange.parse_document`` of the decoded document (every check of the format: the
  text check, limits, references, the ruleset's ``validate``);
- reference: the plain reference loop, what the same run costs without a database: parse the document, then
  compute its standings with the ruleset directly on the parsed facts
  (``rulesets.get(key).compute(facts, None, now)``) and turn them into the export (``export_standings``);
- import: one ``tournaments.importer.import_document`` call, i.e. the parse and every check again, then the
  writes in its one transaction, up to and including the COMMIT (wall time; "import CPU" is this process's
  CPU time in it, without PostgreSQL's own work). The recompute job the commit queues is not part of it: it
  runs separately, in a worker (the benchmark suppresses it; ``benchmarks/recompute.py`` times it;
  ``benchmarks/import_command.py`` times what an organizer waits for, the command with that recompute);
- import / reference: the ratio the goal is set on;
- replace: the same import over the tournament it imported before (``replace=True``: the old tournament's rows
  deleted first, in the same transaction), as an organizer re-imports a corrected season. A figure, no goal.

Goals (on PostgreSQL): a 10,000-game league imported in at most 2 s, and at most 3x the
reference loop. A missed goal prints MISSED (the exit status stays 0; non-zero only on an error); the
statements that took the most time in one import at the largest size are listed either way. The tournaments
it imports (``bench-PID-imports-...``) are deleted again.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]  # benchmarks/http.py must not shadow http
sys.path.insert(0, str(HERE.parent))

from benchmarks import common  # noqa: E402

GOAL_IMPORT_10K = 2.0
GOAL_RATIO = 3.0
GOAL_SIZE = 10_000


@dataclass
class Result:
    games: int
    seats: int
    megabytes: float
    parse: float
    reference: float
    imported: float
    imported_cpu: float
    queries: int
    statements: list[tuple[float, str]]
    replaced: float = 0.0

    @property
    def ratio(self) -> float:
        return self.imported / self.reference if self.reference else float("inf")


def reference_loop(document: dict) -> None:
    """Parse the document and compute its standings with the ruleset, as plainly as it gets (no database)."""
    from django.utils import timezone

    import rulesets
    from rulesets.interchange import export_standings, parse_document

    facts = parse_document(document)
    standings = rulesets.get(facts.ruleset).compute(facts, None, timezone.now())
    export_standings(facts, standings)


def one_import(document: dict) -> tuple[float, float, int, list[tuple[float, str]]]:
    """(wall, CPU, queries, the statements by time) of one ``import_document`` up to its commit."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as captured:
        wall, cpu, tournament = common.timed_cpu(lambda: common.import_quietly(document))
    try:
        statements = sorted(((float(q["time"]), q["sql"]) for q in captured.captured_queries), reverse=True)
        return wall, cpu, len(captured), statements
    finally:
        common.delete_tournament(tournament.pk)


def one_replace(document: dict) -> float:
    """Wall time of one ``import_document(replace=True)`` over the same document imported just before."""
    first = common.import_quietly(document)
    wall, second = common.timed(lambda: common.import_quietly(document, replace=True))
    if second.pk != first.pk:
        common.delete_tournament(second.pk)
    return wall


def measure(games: int, repeat: int) -> Result:
    import json

    from rulesets.interchange import parse_document
    from tournaments.synthetic import mafia_league

    document = mafia_league(games=games, seed=1, slug=common.slug(f"imports-{games}"))
    megabytes = len(json.dumps(document)) / 1e6
    seats = sum(len(g.get("seats", [])) for s in document["stages"] for g in s.get("games", []))
    one_import(document)  # warm up: imports, caches, the players of the league
    parse = statistics.median(common.timed(lambda: parse_document(document))[0] for _ in range(repeat))
    reference = statistics.median(common.timed(lambda: reference_loop(document))[0] for _ in range(repeat))
    runs = [one_import(document) for _ in range(repeat)]
    middle = sorted(runs, key=lambda r: r[0])[len(runs) // 2]
    replaced = statistics.median(one_replace(document) for _ in range(repeat))
    return Result(games=games, seats=seats, megabytes=megabytes, parse=parse, reference=reference,
                  imported=middle[0], imported_cpu=middle[1], queries=middle[2], statements=middle[3],
                  replaced=replaced)


def results_table(results: list[Result]) -> str:
    rows = [[f"{r.games:,}", f"{r.seats:,}", f"{r.megabytes:.1f} MB", f"{r.parse:.2f} s", f"{r.reference:.2f} s",
             f"{r.imported:.2f} s", f"{r.imported_cpu:.2f} s", f"{r.ratio:.1f}x", r.queries, f"{r.replaced:.2f} s"]
            for r in results]
    return common.table(["games", "seats", "JSON", "parse", "reference", "import", "import CPU", "import/ref",
                         "queries", "replace"], rows)


def goals(results: list[Result]) -> list[str]:
    """The goals beside the figures, both set at 10,000 games: the 2 s (projected linearly from the
    largest size run when it is smaller) and the ratio (at the largest size run; at the smaller sizes the fixed
    cost of the transaction's few dozen statements weighs more, and the table shows it)."""
    largest = max(results, key=lambda r: r.games)
    scale = GOAL_SIZE / largest.games
    how = "measured" if largest.games == GOAL_SIZE else f"projected linearly from {largest.games:,} games"
    checks = [(f"import <= {GOAL_IMPORT_10K:.0f} s at {GOAL_SIZE:,} games ({how})", f"{largest.imported * scale:.2f} s",
               largest.imported * scale <= GOAL_IMPORT_10K)]
    checks.append((f"import <= {GOAL_RATIO:.0f}x the reference loop at {largest.games:,} games"
                   + ("" if largest.games == GOAL_SIZE else f" (the goal is at {GOAL_SIZE:,})"),
                   f"{largest.ratio:.1f}x", largest.ratio <= GOAL_RATIO))
    return [f"     {name:62} {value:>8}  {common.verdict(ok)}" for name, value, ok in checks]


def where_time_goes(result: Result, limit: int = 8) -> list[str]:
    total = sum(seconds for seconds, _ in result.statements)
    lines = [f"   where one import of {result.games:,} games goes ({result.imported:.2f} s wall, "
             f"{result.imported_cpu:.2f} s CPU of this process; parse alone {result.parse:.2f} s):",
             f"     {total:6.3f} s in {result.queries} SQL statements (the COPY and the COMMIT include the server's "
             "work), the slowest:"]
    for seconds, sql in result.statements[:limit]:
        lines.append(f"     {seconds:6.3f} s  {sql[:96]}")
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time importing an interchange document as a league grows.")
    parser.add_argument("--short", action="store_true", help="100 and 1,000 games only (CI)")
    parser.add_argument("--sizes", help="comma-separated game counts (default 1000,10000)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each step per size (median)")
    args = parser.parse_args(argv)
    where = common.setup()
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else ([100, 1000] if args.short else [1000, 10_000])
    common.header("imports.py: interchange document -> import_document (parse, checks, bulk writes, commit), "
                  "family_league final (15 teams)", where)
    if not common.uses_postgres():
        print("   PostgreSQL figures skipped: DATABASE_URL does not name PostgreSQL; these are SQLite figures "
              "(the goals are set for PostgreSQL).\n")
    print("   load average at the start: {:.2f} {:.2f} {:.2f} (wall times grow with it; CPU times less)".format(
        *os.getloadavg()))
    results = []
    for size in sizes:
        results.append(measure(size, args.repeat))
        print(f"   {size:,} games measured", flush=True)
    print()
    print(results_table(results))
    print("   (reference = parse + the ruleset's compute + export_standings on the parsed facts, no database;"
          " import = import_document up to its commit, without the recompute it queues)")
    lines = goals(results)
    print("\n   goals:")
    print("\n".join(lines))
    print()
    print("\n".join(where_time_goes(max(results, key=lambda r: r.games))))
    print("   load average at the end: {:.2f} {:.2f} {:.2f}".format(*os.getloadavg()))
    missed = any(line.endswith("MISSED") for line in lines)
    print("\nimports.py done" + (" (goals MISSED: see above)" if missed else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
