"""Time the class_balanced schedule generators (CB-5, CB-6) over several seeds.

Usage: ``python benchmarks/schedule.py [--short]``. Runs without Django.
Prints min / median / max seconds per generator, whether every seed's
schedule passed its checker, and the goal beside the figures: a schedule in
under 5 seconds. The full run also times the raw stage-1 search
(``search_stage1_table``, one round) that built the library of stage-1 tables.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rulesets.class_balanced import schedule as cbs  # noqa: E402
from rulesets.class_balanced.schedule import stage1_search as cbs_search  # noqa: E402

GOAL_SECONDS = 5.0


def _line(name: str, seconds: Sequence[float], held: int, runs: int, goal: float | None = GOAL_SECONDS) -> str:
    figures = f"min {min(seconds):.4f}s  median {statistics.median(seconds):.4f}s  max {max(seconds):.4f}s"
    verdict = f"constraints held {held}/{runs}"
    if goal is None:
        return f"{name:<34} {figures}  {verdict}  (informative, not a goal)"
    met = "met" if max(seconds) < goal else "MISSED"
    return f"{name:<34} {figures}  {verdict}  goal < {goal:g}s: {met}"


def _time(seeds: Sequence[int], run: Callable[[int], list[str]]) -> tuple[list[float], int]:
    seconds: list[float] = []
    held = 0
    for seed in seeds:
        started = time.perf_counter()
        problems = run(seed)
        seconds.append(time.perf_counter() - started)
        held += not problems
    return seconds, held


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--short", action="store_true", help="fewer seeds, skip the raw stage-1 search")
    args = parser.parse_args(argv)
    seeds = range(10) if args.short else range(100)
    stage1_teams = [f"team {i + 1}" for i in range(cbs.STAGE1_TEAMS)]
    stage2_teams = stage1_teams[: cbs.STAGE2_TEAMS]

    def stage1(seed: int) -> list[str]:
        return cbs.check_stage1(cbs.generate_stage1(stage1_teams, seed))

    def stage2(seed: int) -> list[str]:
        return cbs.check_stage2(cbs.generate_stage2(stage2_teams, seed))

    print(f"class_balanced schedules, {len(seeds)} seeds each, Python {sys.version.split()[0]}")
    failed = False
    for name, run in (("stage 1 (CB-5, 14 teams, 48 games)", stage1), ("stage 2 (CB-6, 13 teams, 26 games)", stage2)):
        seconds, held = _time(seeds, run)
        print(_line(name, seconds, held, len(seeds)))
        failed |= held != len(seeds) or max(seconds) >= GOAL_SECONDS
    if not args.short:
        search_seeds = range(100, 110)

        def raw_search(seed: int) -> list[str]:
            table, day_of = cbs.search_stage1_table(14, 48, 7, 7, seed, rounds=1, iterations=300_000)
            misses = cbs_search._pair_misses(table, 14) + cbs_search._spread_misses(table, day_of, 14, 7)
            return ["missed"] if misses else []

        seconds, held = _time(search_seeds, raw_search)
        print(_line("raw stage-1 search, one round", seconds, held, len(search_seeds), goal=None))
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
