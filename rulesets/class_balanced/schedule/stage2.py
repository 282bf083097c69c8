"""Stage 2 of ``class_balanced`` (CB-2, CB-4, CB-6): the class table, generated and checked.

All 13 teams play each of the 26 games; every game has 4 C, 5 B and 4 A
seats, every team plays 8 games as A, 10 as B and 8 as C and never the same
class more than 2 games running (CB-6); a day turn lasts 3 minutes (CB-4).
The table starts from a seeded cyclic class sequence (``_cyclic_base``)
that every team plays rotated by an even number of games, and a seeded
walk of swaps that keep every CB-6 count and run mixes it
(``_walk_classes``); ``check_stage2`` names every way a table breaks CB-6.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from rulesets.class_balanced.schedule.common import (
    CLASSES,
    DAY_TURN_MINUTES,
    DAYS,
    MAX_CLASS_RUN,
    STAGE2_GAMES,
    STAGE2_GAMES_PER_CLASS,
    STAGE2_SEATS_PER_CLASS,
    STAGE2_TEAMS,
    Progress,
    Seed,
    Stage2Schedule,
    _check_roster,
    _day_of_games,
    _days_out_of_order,
    _report,
    _rng,
    day_sizes,
)
from rulesets.messages import text as _

_STAGE2_WALK_STEPS = 4000
_STAGE2_BASE_TRIES = 10_000
_STAGE2_FALLBACK_BASE = "ACCACABCCBABABBCBABCABCABB"


def _longest_run(sequence: Sequence[str]) -> int:
    longest = run = 0
    previous = None
    for item in sequence:
        run = run + 1 if item == previous else 1
        previous = item
        longest = max(longest, run)
    return longest


def _cyclic_base(rng: random.Random) -> list[str]:
    """A 26-game class sequence whose even and odd games each hold 4 A, 5 B and 4 C seats (CB-6).

    No class runs more than twice, even around the end: every rotation by an
    even number of games is then a valid team sequence, and the 13 rotations
    by 0, 2, ..., 24 fill every game with exactly 4 A, 5 B and 4 C.
    """
    half = [cls for cls in CLASSES for _ in range(STAGE2_SEATS_PER_CLASS[cls])]
    for _try in range(_STAGE2_BASE_TRIES):
        even, odd = list(half), list(half)
        rng.shuffle(even)
        rng.shuffle(odd)
        sequence = [cls for pair in zip(even, odd) for cls in pair]
        if _is_cyclic_base(sequence):
            return sequence
    return list(_STAGE2_FALLBACK_BASE)


def _is_cyclic_base(sequence: Sequence[str]) -> bool:
    """Whether rotations of ``sequence`` by 0, 2, ..., 24 games make a valid CB-6 table."""
    length = len(sequence)
    if length != STAGE2_GAMES:
        return False
    for parity in (0, 1):
        half = sequence[parity::2]
        if any(half.count(cls) != STAGE2_SEATS_PER_CLASS[cls] for cls in CLASSES):
            return False
    return all(not (sequence[i] == sequence[(i + 1) % length] == sequence[(i + 2) % length]) for i in range(length))


def _walk_classes(table: list[list[str]], rng: random.Random, steps: int) -> None:
    """Swap two teams' classes in two games when that keeps every CB-6 count and run (table[team][game])."""
    teams = len(table)
    games = len(table[0])
    for _step in range(steps):
        a, b = rng.sample(range(teams), 2)
        first = rng.randrange(games)
        x, y = table[a][first], table[b][first]
        if x == y:
            continue
        candidates = [g for g in range(games) if g != first and table[a][g] == y and table[b][g] == x]
        if not candidates:
            continue
        second = rng.choice(candidates)
        for team, new_first, new_second in ((a, y, x), (b, x, y)):
            table[team][first], table[team][second] = new_first, new_second
        if _longest_run(table[a]) > MAX_CLASS_RUN or _longest_run(table[b]) > MAX_CLASS_RUN:
            table[a][first], table[a][second] = x, y
            table[b][first], table[b][second] = y, x


def generate_stage2(
    teams: list[str], seed: Seed, days: int = DAYS, *, progress: Progress | None = None
) -> Stage2Schedule:
    """The stage-2 class table (CB-2, CB-4, CB-6), valid for every seed.

    All 13 teams play each of the 26 games; every game has 4 A, 5 B and 4 C
    seats; every team plays 8 games as A, 10 as B and 8 as C and never the
    same class more than 2 games running. Built from a seeded cyclic table
    (team ``i`` plays the base sequence rotated by ``2 i`` games) that a
    seeded walk of count-preserving swaps then mixes; a day turn lasts 3
    minutes (CB-4). ``progress(done, total)`` is called now and then.
    """
    roster = _check_roster(teams, STAGE2_TEAMS, "CB-6")
    rng = _rng(seed)
    chunks = 8
    total = chunks + 2
    _report(progress, 0, total)
    base = _cyclic_base(rng)
    table = [[base[(game + 2 * team) % STAGE2_GAMES] for game in range(STAGE2_GAMES)] for team in range(STAGE2_TEAMS)]
    _report(progress, 1, total)
    for chunk in range(chunks):
        _walk_classes(table, rng, _STAGE2_WALK_STEPS // chunks)
        _report(progress, 2 + chunk, total)
    labels = list(roster)
    rng.shuffle(labels)
    row_of = {team: table[i] for i, team in enumerate(labels)}
    day_of = _day_of_games(STAGE2_GAMES, days)
    schedule_games = [(day_of[game], {team: row_of[team][game] for team in roster}) for game in range(STAGE2_GAMES)]
    _report(progress, total, total)
    return Stage2Schedule(seed=seed, teams=roster, games=schedule_games, days=days)


def _stage2_shape_problems(schedule: Stage2Schedule, roster: list[str]) -> list[str]:
    """The teams, the day turn and the number of games of the table (CB-4, CB-6)."""
    problems: list[str] = []
    if len(roster) != STAGE2_TEAMS or len(set(roster)) != len(roster):
        problems.append(_("CB-6: stage 2 has %(expected)s distinct teams, the table has %(teams)s",
                          expected=STAGE2_TEAMS, teams=str(roster)))
    if schedule.day_turn_minutes != DAY_TURN_MINUTES[2]:
        problems.append(_("CB-4: a stage-2 day turn lasts %(minutes)s minutes, not %(given)s",
                          minutes=DAY_TURN_MINUTES[2], given=schedule.day_turn_minutes))
    if len(schedule.games) != STAGE2_GAMES:
        problems.append(_("CB-6: stage 2 has %(expected)s games, the table has %(games)s", expected=STAGE2_GAMES,
                          games=len(schedule.games)))
    return problems


def _stage2_game_problems(number: int, day: int, classes: dict[str, str], roster: list[str], days: int) -> list[str]:
    """What is wrong with game ``number``: its seats, its classes and its day (CB-6)."""
    problems: list[str] = []
    if set(classes) != set(roster):
        problems.append(_("CB-6: game %(number)s must seat every team once, it seats %(teams)s", number=number,
                          teams=str(sorted(classes))))
    wrong = sorted(team for team, cls in classes.items() if cls not in CLASSES)
    if wrong:
        problems.append(_("CB-6: game %(number)s gives %(teams)s a class outside A/B/C", number=number,
                          teams=str(wrong)))
    for cls in CLASSES:
        seats = sum(1 for value in classes.values() if value == cls)
        if seats != STAGE2_SEATS_PER_CLASS[cls]:
            problems.append(_("CB-6: game %(number)s has %(seats)s seats of class %(cls)s, not %(expected)s",
                              number=number, seats=seats, expected=STAGE2_SEATS_PER_CLASS[cls], cls=cls))
    if not 0 <= day < days:
        problems.append(_("CB-6: game %(number)s is on day %(day)s, outside 0..%(last)s", number=number,
                          day=day, last=days - 1))
    return problems


def _stage2_day_problems(schedule: Stage2Schedule) -> list[str]:
    """Whether the games are listed day by day and spread evenly over the days (CB-6)."""
    problems: list[str] = []
    day_list = [day for day, _classes in schedule.games]
    if _days_out_of_order(day_list):
        problems.append(_("CB-6: the games are not listed day by day"))
    sizes = [day_list.count(day) for day in range(schedule.days)]
    if sorted(sizes) != sorted(day_sizes(len(day_list), schedule.days)):
        problems.append(_("CB-6: games per day %(sizes)s are not spread evenly over the %(days)s days",
                          sizes=str(sizes), days=schedule.days))
    return problems


def _stage2_team_problems(schedule: Stage2Schedule, team: str) -> list[str]:
    """The team's games per class and its longest run of one class (CB-6)."""
    problems: list[str] = []
    sequence = [classes.get(team, "") for _day, classes in schedule.games]
    for cls in CLASSES:
        played = sequence.count(cls)
        if played != STAGE2_GAMES_PER_CLASS[cls]:
            problems.append(_("CB-6: %(team)s plays %(games)s games as %(cls)s, not %(expected)s", team=team,
                              games=played, expected=STAGE2_GAMES_PER_CLASS[cls], cls=cls))
    run = _longest_run(sequence)
    if run > MAX_CLASS_RUN:
        problems.append(_("CB-6: %(team)s keeps the same class %(games)s games running (at most %(most)s)",
                          team=team, games=run, most=MAX_CLASS_RUN))
    return problems


def check_stage2(schedule: Stage2Schedule) -> list[str]:
    """Every way the class table breaks CB-6 (or CB-2/CB-4), as sentences; empty when it is valid."""
    roster = list(schedule.teams)
    problems = _stage2_shape_problems(schedule, roster)
    for number, (day, classes) in enumerate(schedule.games, start=1):
        problems.extend(_stage2_game_problems(number, day, classes, roster, schedule.days))
    problems.extend(_stage2_day_problems(schedule))
    for team in roster:
        problems.extend(_stage2_team_problems(schedule, team))
    return problems
