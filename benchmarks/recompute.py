"""How long a full standings recompute takes as a tournament grows.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python benchmarks/recompute.py [--short]

For a family_league final of 100, 1,000 and 10,000 games (``--short``: 100
and 1,000; about 15 seats a game), in a benchmark database of its own
(``benchmarks/common.py``), it times each step of ``scoring.services.recompute``:

- import: ``import_document`` of the synthetic document (without its recompute);
- load: ``load_consistent`` (the version and every fact, one repeatable-read transaction);
- ruleset: the ruleset's ``compute`` calls for the stages (pure Python);
- export: turning the standings into the export document and the details;
- store: writing the snapshots;
- figures: computing and storing the per-game and per-tour figures the pages show (``scoring.figures``),
  in the recompute's own transaction;
- whole: ``recompute(force=True)`` end to end (wall time), and "whole CPU", the
  CPU time this process spent in it (without PostgreSQL's own work): when
  the machine is busy with other work, wall times grow and CPU times do not;
- raw: one SELECT joining seats, games, players and teams, fetched in full
  through ``connection.cursor()`` (what reading the same facts costs at the
  least), and whole / raw.

Goals (on PostgreSQL): 10,000 games recomputed in at most 1 s end
to end, the ruleset's own computation at most 150 ms, the whole at most twice
the raw fetch, storing at most 100 ms, and the recompute after one
saved result at most 100 ms (the family league is then judged incrementally,
``rulesets.family_league.ledger``; measured, not projected, at 10,000 games). A missed goal prints MISSED (the exit status stays 0) and a
cProfile of one recompute at the largest size: where the time goes, by file
and by function. A second table shows the other rulesets at their own sizes.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import pstats
import statistics
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]  # benchmarks/http.py must not shadow http
sys.path.insert(0, str(HERE.parent))

import rulesets  # noqa: E402
from benchmarks import common  # noqa: E402

GOAL_WHOLE_10K = 1.0
GOAL_RULESET_10K = 0.150
GOAL_STORE_10K = 0.100  # storing the snapshots
GOAL_ONE_RESULT_10K = 0.100  # the recompute after one saved result, incremental
GOAL_RATIO = 2.0
GOAL_SIZE = 10_000


@dataclass
class Result:
    label: str
    games: int
    rows: int
    imported: float
    load: float
    ruleset: float
    export: float
    store: float
    figures: float
    whole: float
    raw: float
    snapshot_bytes: int
    queries: int
    whole_cpu: float = 0.0
    one_load: float = 0.0
    one_ruleset: float = 0.0
    one_export: float = 0.0
    one_store: float = 0.0
    one_figures: float = 0.0
    one_whole: float = 0.0
    one_whole_cpu: float = 0.0
    one_queries: int = 0

    @property
    def ratio(self) -> float:
        return self.whole / self.raw if self.raw else float("inf")


def raw_fetch_sql(ruleset: str) -> str:
    """One SELECT of the bulk of the facts: every seat with its game, player and team (Mafia), or every mask with
    its tour and team (ChGK), fetched in full through ``connection.cursor()``: the least reading them can cost."""
    from django.db import connection

    from accounts.models import Player
    from tournaments.models import Game, Mask, Seat, Stage, Team, Tour

    q = connection.ops.quote_name

    def col(model, name: str) -> str:
        return q(model._meta.get_field(name).column)

    if rulesets.get(ruleset).rounds == "tours":
        return (
            f"SELECT r.{col(Tour, 'number')}, r.{col(Tour, 'questions')}, r.{col(Tour, 'played_on')}, "
            f"t.{col(Team, 'name')}, m.{col(Mask, 'mask')}, m.{col(Mask, 'order')} "
            f"FROM {q(Mask._meta.db_table)} m "
            f"JOIN {q(Tour._meta.db_table)} r ON m.{col(Mask, 'tour')} = r.id "
            f"JOIN {q(Stage._meta.db_table)} st ON r.{col(Tour, 'stage')} = st.id "
            f"JOIN {q(Team._meta.db_table)} t ON m.{col(Mask, 'team')} = t.id "
            f"WHERE st.{col(Stage, 'tournament')} = %s ORDER BY r.id, m.{col(Mask, 'order')}"
        )
    seat_cols = ", ".join(f"s.{col(Seat, n)}" for n in (
        "order", "role", "stats", "timed_out", "days_played", "maniac_kills", "in_final_phase", "fake_passport"))
    # the per-game times and links are left out: the loader reads them once a game, and converting the
    # same timestamp again for each of a game's ~15 seats would double the raw figure (a laxer goal)
    game_cols = ", ".join(f"g.{col(Game, n)}" for n in ("number", "status", "outcome", "round", "omon", "game_days"))
    return (
        f"SELECT g.id, st.{col(Stage, 'key')}, {game_cols}, p.{col(Player, 'nick')}, t.{col(Team, 'name')}, "
        f"{seat_cols} "
        f"FROM {q(Seat._meta.db_table)} s "
        f"JOIN {q(Game._meta.db_table)} g ON s.{col(Seat, 'game')} = g.id "
        f"JOIN {q(Stage._meta.db_table)} st ON g.{col(Game, 'stage')} = st.id "
        f"JOIN {q(Player._meta.db_table)} p ON s.{col(Seat, 'player')} = p.id "
        f"JOIN {q(Team._meta.db_table)} t ON s.{col(Seat, 'team')} = t.id "
        f"WHERE st.{col(Stage, 'tournament')} = %s ORDER BY g.id, s.{col(Seat, 'order')}"
    )


def raw_fetch(sql: str, tournament_id: int) -> int:
    from django.db import connection

    with connection.cursor() as cursor:
        cursor.execute(sql, [tournament_id])
        return len(cursor.fetchall())


def phases(tournament_id: int, cold: bool = False):
    """One recompute split into its steps, each timed; returns the seconds per step.

    ``cold``: what the process keeps of the tournament is dropped first (``forget_kept``, as ``recompute(force=True)``
    does): every fact is read and every game judged anew.
    """
    from scoring.services import forget_kept
    from tournaments.collector import gc_paused
    from tournaments.models import Tournament

    out: dict[str, float] = {}
    now = _now()
    if cold:
        forget_kept(tournament_id, *Tournament.objects.filter(pk=tournament_id).values_list("slug", "ruleset").get())
    with gc_paused(keep=True):  # as recompute() runs them
        return _phases(tournament_id, now, out)


def _phases(tournament_id: int, now, out: dict[str, float]) -> dict[str, float]:
    import rulesets
    from scoring.figures import store_figures
    from scoring.services import LATEST, Computed, load_consistent, next_recheck, rulesets_latest_is_last, store

    out["load"], (tournament, facts) = common.timed(lambda: load_consistent(tournament_id))
    compute = rulesets.get(facts.ruleset).compute
    ruleset = export = 0.0
    computed = []
    for key in [s.key for s in facts.stages] or [None]:
        seconds, standings = common.timed(lambda key=key: compute(facts, key, now))
        ruleset += seconds
        seconds, item = common.timed(lambda key=key, standings=standings: Computed.of(
            key if key is not None else LATEST, facts, standings))
        export += seconds
        computed.append(item)
    if facts.stages and rulesets_latest_is_last(facts):  # as compute_all: the last stage's table is the latest
        last = computed[-1]
        computed.append(Computed(LATEST, last.export, last.details, last.summary))
    elif facts.stages:
        seconds, item = common.timed(lambda: Computed.of(LATEST, facts, compute(facts, None, now)))
        export += seconds
        computed.append(item)
    seconds, recheck_at = common.timed(lambda: next_recheck(facts, now))
    export += seconds
    out["ruleset"], out["export"] = ruleset, export
    out["store"], _ = common.timed(lambda: store(tournament, computed, now, recheck_at))
    out["figures"], _ = common.timed(lambda: store_figures(tournament, facts))
    return out


def save_one_result(tournament_id: int, step: int) -> None:
    """An organizer enters one result: the outcome of one of the last games changes (signals stamp the game)."""
    from django.db import transaction

    from tournaments.models import Game

    outcomes = ("civilians", "mafia", "draw", "maniac")
    with common.no_recompute_on_commit(), transaction.atomic():
        game = Game.objects.filter(stage__tournament_id=tournament_id).order_by("-number")[step % 5]
        game.outcome = outcomes[(outcomes.index(game.outcome) + 1) % len(outcomes)]
        game.save()


def after_one_result(tournament_id: int, repeat: int) -> dict[str, float]:
    """The recompute that follows one saved result, with the loader's game cache warm (``tournaments.game_cache``)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from scoring.services import recompute

    steps, wholes = [], []
    for step in range(repeat):
        save_one_result(tournament_id, 2 * step)
        steps.append(phases(tournament_id))
        save_one_result(tournament_id, 2 * step + 1)
        with CaptureQueriesContext(connection) as captured:
            wholes.append(common.timed_cpu(lambda: recompute(tournament_id))[:2])
    out = {f"one_{key}": statistics.median(s[key] for s in steps) for key in ("load", "ruleset", "export", "store",
                                                                              "figures")}
    out["one_whole"] = statistics.median(w for w, _ in wholes)
    out["one_whole_cpu"] = statistics.median(c for _, c in wholes)
    out["one_queries"] = len(captured)
    return out


def _now():
    from django.utils import timezone

    return timezone.now()


def measure(label: str, document: dict, repeat: int, incremental: bool = False) -> Result:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from scoring.models import StandingsSnapshot
    from scoring.services import recompute

    imported, tournament = common.timed(lambda: common.import_quietly(document))
    try:
        recompute(tournament.pk, force=True)  # warm up: the first snapshot, imports, caches
        steps = [phases(tournament.pk, cold=True) for _ in range(repeat)]
        with CaptureQueriesContext(connection) as captured:
            recompute(tournament.pk, force=True)
        wholes = [common.timed_cpu(lambda: recompute(tournament.pk, force=True))[:2] for _ in range(repeat)]
        whole, whole_cpu = statistics.median(w for w, _ in wholes), statistics.median(c for _, c in wholes)
        sql = raw_fetch_sql(document["tournament"]["ruleset"])
        rows = raw_fetch(sql, tournament.pk)
        raw = common.median_time(lambda: raw_fetch(sql, tournament.pk), repeat)
        snapshot_bytes = sum(len(json.dumps(e)) + len(json.dumps(d)) for e, d in StandingsSnapshot.objects.filter(
            tournament=tournament).values_list("export", "details"))
        one = after_one_result(tournament.pk, repeat) if incremental else {}
        games = sum(len(s.get("games", [])) or len(s.get("tours", [])) for s in document["stages"])
        return Result(label=label, games=games, rows=rows, imported=imported,
                      load=statistics.median(s["load"] for s in steps),
                      ruleset=statistics.median(s["ruleset"] for s in steps),
                      export=statistics.median(s["export"] for s in steps),
                      store=statistics.median(s["store"] for s in steps),
                      figures=statistics.median(s["figures"] for s in steps),
                      whole=whole, raw=raw, snapshot_bytes=snapshot_bytes, queries=len(captured),
                      whole_cpu=whole_cpu, **one)
    finally:
        common.delete_tournament(tournament.pk)


def profile_recompute(document: dict, limit: int = 14) -> str:
    """cProfile of one recompute: seconds by file, then the functions with the most own time."""
    from scoring.services import recompute

    tournament = common.import_quietly(document)
    try:
        recompute(tournament.pk, force=True)
        profiler = cProfile.Profile()
        profiler.enable()
        recompute(tournament.pk, force=True)
        profiler.disable()
    finally:
        common.delete_tournament(tournament.pk)
    stats = pstats.Stats(profiler)
    by_file: dict[str, float] = defaultdict(float)
    total = 0.0
    for (filename, _line, _name), (_cc, _nc, tottime, _ct, _callers) in stats.stats.items():
        by_file[_short_path(filename)] += tottime
        total += tottime
    lines = [f"   own time by file (total {total:.2f} s under the profiler):"]
    for name, seconds in sorted(by_file.items(), key=lambda kv: -kv[1])[:limit]:
        lines.append(f"     {seconds:7.3f} s  {100 * seconds / total:5.1f}%  {name}")
    buffer = io.StringIO()
    pstats.Stats(profiler, stream=buffer).sort_stats("tottime").print_stats(limit)
    body = [line for line in buffer.getvalue().splitlines() if line.strip()]
    start = next((i for i, line in enumerate(body) if line.lstrip().startswith("ncalls")), 0)
    lines.append("   functions with the most own time:")
    lines += ["     " + line.replace(str(common.ROOT) + "/", "") for line in body[start:]]
    return "\n".join(lines)


def _short_path(filename: str) -> str:
    root = str(common.ROOT) + "/"
    if filename.startswith(root):
        filename = filename[len(root):]
    for marker in ("site-packages/", "lib/python3"):
        if marker in filename:
            filename = filename.split(marker, 1)[1]
            if marker == "lib/python3":
                filename = "stdlib:" + filename.split("/", 1)[-1]
    return filename


def league_table(results: list[Result]) -> str:
    rows = []
    for r in results:
        rows.append([f"{r.games:,}", f"{r.rows:,}", f"{r.imported:.2f} s", common.ms(r.load), common.ms(r.ruleset),
                     common.ms(r.export), common.ms(r.store), common.ms(r.figures), common.ms(r.whole), common.ms(r.whole_cpu),
                     common.ms(r.raw), f"{r.ratio:.1f}x", r.queries, f"{r.snapshot_bytes / 1024:,.0f} KB"])
    return common.table(["games", "seats", "import", "load", "ruleset", "export", "store", "figures", "whole", "whole CPU",
                         "raw SQL", "whole/raw", "queries", "snapshots"], rows)


def one_result_table(results: list[Result]) -> str:
    rows = [[f"{r.games:,}", common.ms(r.one_load), common.ms(r.one_ruleset), common.ms(r.one_export),
             common.ms(r.one_store), common.ms(r.one_figures), common.ms(r.one_whole), common.ms(r.one_whole_cpu), common.ms(r.raw),
             f"{r.one_whole / r.raw if r.raw else float('inf'):.1f}x", r.one_queries,
             "yes" if r.games >= _cache_min_games() else "no (below FACTS_CACHE_MIN_GAMES)"]
            for r in results]
    return common.table(["games", "load", "ruleset", "export", "store", "figures", "whole", "whole CPU", "raw SQL",
                         "whole/raw",
                         "queries", "games cached"], rows)


def _cache_min_games() -> int:
    from django.conf import settings

    return settings.FACTS_CACHE_MIN_GAMES


def growth(results: list[Result]) -> list[str]:
    """Each step's cost per 1,000 games at every size: flat means linear growth."""
    lines = ["   per 1,000 games (flat = linear growth):"]
    for attr in ("load", "ruleset", "export", "store", "figures", "whole", "raw"):
        per = [getattr(r, attr) / r.games * 1000 for r in results if r.games]
        lines.append(f"     {attr:8} " + "  ".join(f"{common.ms(v):>11}" for v in per))
    return lines


def goals(results: list[Result]) -> tuple[list[str], bool]:
    """The goals beside the figures; at 10,000 games, or projected linearly from the largest size run."""
    largest = max(results, key=lambda r: r.games)
    scale = GOAL_SIZE / largest.games
    measured = largest.games == GOAL_SIZE
    how = "measured" if measured else f"projected linearly from {largest.games:,} games"
    whole, ruleset_seconds = largest.whole * scale, largest.ruleset * scale
    lines = [f"   goals at {GOAL_SIZE:,} games ({how}):"]
    checks = [
        (f"whole recompute <= {GOAL_WHOLE_10K:.0f} s", f"{whole:.2f} s", whole <= GOAL_WHOLE_10K),
        (f"ruleset computation <= {GOAL_RULESET_10K * 1000:.0f} ms", common.ms(ruleset_seconds), ruleset_seconds <= GOAL_RULESET_10K),
    ]
    store = largest.store * scale
    checks.append((f"storing <= {GOAL_STORE_10K * 1000:.0f} ms", common.ms(store), store <= GOAL_STORE_10K))
    if largest.one_whole and measured:  # incremental: its time does not grow with the games, do not project it
        checks.append((f"after one result: whole <= {GOAL_ONE_RESULT_10K * 1000:.0f} ms", common.ms(largest.one_whole),
                       largest.one_whole <= GOAL_ONE_RESULT_10K))
        checks.append((f"after one result: storing <= {GOAL_STORE_10K * 1000:.0f} ms", common.ms(largest.one_store),
                       largest.one_store <= GOAL_STORE_10K))
    elif largest.one_whole:
        lines.append(f"     after one result at {GOAL_SIZE:,} games: not measured in this run (needs --sizes ...,10000)")
    for r in results:
        checks.append((f"whole <= {GOAL_RATIO:.0f}x raw SQL at {r.games:,} games", f"{r.ratio:.1f}x",
                       r.ratio <= GOAL_RATIO))
    for r in results:
        if r.one_whole and r.raw:
            ratio = r.one_whole / r.raw
            checks.append((f"after one result: <= {GOAL_RATIO:.0f}x raw at {r.games:,}", f"{ratio:.1f}x",
                           ratio <= GOAL_RATIO))
    ok = True
    for name, value, passed in checks:
        ok &= passed
        lines.append(f"     {name:42} {value:>12}  {common.verdict(passed)}")
    return lines, ok


def other_rulesets(short: bool) -> list[Result]:
    from tournaments.synthetic import chgk_season, class_balanced_tournament, elimination_gp_series

    cases = [
        ("chgk_tour_points 30 x 30" if short else "chgk_tour_points 60 x 60",
         chgk_season(teams=30 if short else 60, seed=1, slug=common.slug("recompute-chgk"))),
        ("class_balanced, 3 stages", class_balanced_tournament(seed=1, stages=3, slug=common.slug("recompute-cb"))),
        ("elimination_gp, 2 stages" if short else "elimination_gp, 5 stages",
         elimination_gp_series(stages=2 if short else 5, seed=1, slug=common.slug("recompute-gp"))),
    ]
    return [measure(label, document, repeat=3) for label, document in cases]


def others_table(results: list[Result]) -> str:
    rows = [[r.label, f"{r.games:,}", f"{r.rows:,}", common.ms(r.load), common.ms(r.ruleset), common.ms(r.export),
             common.ms(r.store), common.ms(r.figures), common.ms(r.whole), common.ms(r.raw), f"{r.ratio:.1f}x",
             r.queries] for r in results]
    return common.table(["tournament", "games/tours", "seats/masks", "load", "ruleset", "export", "store", "figures",
                         "whole",
                         "raw SQL", "whole/raw", "queries"], rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Time the standings recompute as a tournament grows.")
    parser.add_argument("--short", action="store_true", help="100 and 1,000 games only (CI)")
    parser.add_argument("--sizes", help="comma-separated game counts (default 100,1000,10000)")
    parser.add_argument("--no-profile", action="store_true", help="skip the profile of a missed goal")
    args = parser.parse_args(argv)
    common.production_settings()  # as a deployed worker runs (DEBUG off); the workers inherit it
    where = common.setup()
    sizes = [int(s) for s in args.sizes.split(",")] if args.sizes else ([100, 1000] if args.short
                                                                        else [100, 1000, 10_000])
    common.header("recompute.py: load facts -> ruleset -> store, family_league final (15 teams)", where)
    if not common.uses_postgres():
        print("   PostgreSQL figures skipped: DATABASE_URL does not name PostgreSQL; these are SQLite figures "
              "(the goals are set for PostgreSQL).\n")
    from tournaments.synthetic import mafia_league

    results = []
    for size in sizes:
        document = mafia_league(games=size, seed=1, slug=common.slug(f"recompute-{size}"))
        results.append(measure(f"{size:,} games", document, repeat=5 if size <= 1000 else 3, incremental=True))
        print(f"   {size:,} games measured", flush=True)
    print()
    print("   from scratch (recompute(force=True): every fact read):")
    print(league_table(results))
    print("\n".join(growth(results)))
    print("\n   after one saved result (the worker's game cache warm: only the changed game is read again):")
    print(one_result_table(results))
    lines, ok = goals(results)
    print("\n".join(lines))
    if not ok and not args.no_profile:
        largest = max(sizes)
        print(f"\n   profile of one recompute at {largest:,} games (cProfile; a goal was MISSED):")
        print(profile_recompute(mafia_league(games=largest, seed=1, slug=common.slug(f"recompute-{largest}"))))
    print("\n== other rulesets (median of 3)")
    print(others_table(other_rulesets(args.short)))
    print("\nrecompute.py done" + ("" if ok else " (goals MISSED: see above)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
