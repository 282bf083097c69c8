"""How long a season takes to come in from the organizers' own files, as the commands run it.

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/test .venv/bin/python benchmarks/season_batch.py [--short]

The 2016 family cup (``tests/data/real/mafiaonline/``): the 16 clans of ``teams.txt`` (``import_rosters
--families``), then a batch of 45 game logs placed by a stage list (``import_game_logs``), each command timed end
to end as an organizer waits for it, with the one recompute the batch triggers (run in-process, as without a
broker). Only four logs of the cup survive; the batch is those four again and again, each copy given a new site
game number (its text rewritten), so that 45 distinct logs with the cup's real seats fill the stage's 45 games.
``--short``: 15 logs.

Goal (on PostgreSQL): the rosters and 45 logs in under 10 s. A missed goal prints MISSED (the exit status stays
0; non-zero only on an error). The tournament it builds (``bench-PID-season``) is deleted again.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != HERE]  # benchmarks/http.py must not shadow http
sys.path.insert(0, str(HERE.parent))

from benchmarks import common  # noqa: E402

GOAL_SECONDS = 10.0
REAL = HERE.parent / "tests" / "data" / "real" / "mafiaonline"
SOURCE_LOGS = (3624027, 3624161, 3624224, 3624505)  # the cup's own: their players are on its clans' rosters
FIRST_NUMBER = 9_100_000


def write_logs(folder: Path, count: int) -> list[int]:
    """``count`` logs in ``folder``, the real ones with new site game numbers; the numbers, in order."""
    numbers = []
    for index in range(count):
        source = SOURCE_LOGS[index % len(SOURCE_LOGS)]
        number = FIRST_NUMBER + index
        text = (REAL / "logs" / f"{source}.html").read_text(encoding="utf-8").replace(str(source), str(number))
        (folder / f"{number}.html").write_text(text, encoding="utf-8")
        numbers.append(number)
    return numbers


def skeleton(slug: str, games: int) -> dict:
    return {"format": "tournament-portal/1",
            "tournament": {"slug": slug, "name": "Семейный кубок 2016 (benchmark)", "ruleset": "family_league",
                           "timezone": "Europe/Moscow", "starts_on": "2016-07-04"},
            "teams": [], "stages": [{"key": "qualifying", "games": [
                {"number": n, "status": "scheduled"} for n in range(1, games + 1)]}]}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--short", action="store_true", help="15 logs instead of 45")
    args = parser.parse_args()
    count = 15 if args.short else 45
    where = common.setup()
    common.header(f"A season from the organizers' files: 16 clans and {count} game logs", where)

    from django.contrib.auth import get_user_model
    from django.core.management import call_command

    from tournaments.models import Game, Team

    user, _created = get_user_model().objects.get_or_create(username=f"bench-{common.slug('season')}",
                                                            defaults={"is_superuser": True, "is_staff": True})
    slug = common.slug("season")
    tournament = common.import_quietly(skeleton(slug, count))
    rows = []
    try:
        with tempfile.TemporaryDirectory(prefix="bench-season-") as folder:
            numbers = write_logs(Path(folder), count)
            stage_list = Path(folder) / "games.txt"
            stage_list.write_text("Этап1: " + ", ".join(map(str, numbers)) + "\n", encoding="utf-8")
            quiet = {"stdout": open("/dev/null", "w"), "stderr": open("/dev/null", "w")}  # noqa: SIM115
            started = time.perf_counter()
            call_command("import_rosters", str(REAL / "family_cup_2016" / "teams.txt"), tournament=slug,
                         families=True, user=user.username, **quiet)
            rosters = time.perf_counter() - started
            started = time.perf_counter()
            call_command("import_game_logs", *(str(Path(folder) / f"{n}.html") for n in numbers), tournament=slug,
                         stage="qualifying", games=str(stage_list), line=["Этап1"], user=user.username, **quiet)
            logs = time.perf_counter() - started
        played = Game.objects.filter(stage__tournament=tournament).exclude(status="scheduled").count()
        clans = Team.objects.filter(tournament=tournament).count()
        whole = rosters + logs
        rows = [("rosters (16 clans)", f"{rosters:.2f} s"), (f"game logs ({count}, one recompute)", f"{logs:.2f} s"),
                ("whole", f"{whole:.2f} s")]
        print(common.table(["step", "time"], rows))
        print(f"\n   {clans} clans, {played} of {count} games saved")
        if played != count or clans != 16:
            print("   ERROR: the batch did not save every log")
            return 1
        if common.uses_postgres() and not args.short:
            print(f"   goal: under {GOAL_SECONDS:.0f} s on PostgreSQL: {common.verdict(whole < GOAL_SECONDS)}")
        else:
            print(f"   (the goal, under {GOAL_SECONDS:.0f} s, is for 45 logs on PostgreSQL)")
    finally:
        common.delete_tournament(tournament.pk)
        user.delete()
    return 0


if __name__ == "__main__":
    sys.exit(main())
