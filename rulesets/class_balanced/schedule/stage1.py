"""Stage 1 of ``class_balanced`` (CB-2, CB-4, CB-5): generate the table and check it.

Stage 1 is 48 games of 7 of the 14 teams, 24 games a team, every pair of
teams meets 11 or 12 times, and each team plays 3 or 4 games on every day of
the week (7/7/7/7/7/7/6 games a day, CB-5); a day turn lasts 2 minutes (CB-4).

How stage 1 is built. Balancing the pairs alone is easy for a local search
(``search_stage1_table`` does it in a fraction of a second), but the pair
balance and the daily spread together leave few, isolated solutions: one
round of the seeded search finds one about one time in four or five, in
seconds, with a long tail. So the canonical 14/48/7 table is drawn from a
small library of tables that this package's own search found
(``STAGE1_TABLE_SEEDS`` records the search seed of each): the seed picks a
table, may complement every game (a game's 7 absent teams are also a valid
game: each team then plays ``day size - its old count`` games on each day
and every pair meets as often), walks it through constraint-preserving
swaps, relabels the teams, shuffles the weekdays and the order within each
day. Every draw keeps every CB-5 constraint, so generation always succeeds
in milliseconds. Other parameters (``teams_per_game``, ``games``, ``days``)
go through the search itself, which puts pair balance first and spreads the
days as evenly as it can. The search is in ``stage1_search``, the library
and the draw in ``stage1_library``; this module relabels and orders the
drawn table (``generate_stage1``) and names every way a table breaks CB-5
(``check_stage1``).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from rulesets.class_balanced.schedule.common import (
    DAY_TURN_MINUTES,
    DAYS,
    STAGE1_GAMES,
    STAGE1_TEAMS,
    STAGE1_TEAMS_PER_GAME,
    Progress,
    Seed,
    Stage1Schedule,
    _check_roster,
    _days_out_of_order,
    _report,
    _rng,
    day_sizes,
)
from rulesets.class_balanced.schedule.stage1_library import _LIBRARY_STEPS, _drawn_from_library
from rulesets.class_balanced.schedule.stage1_search import (
    _day_counts,
    _pair_bounds,
    _pair_counts,
    search_stage1_table,
)
from rulesets.messages import Text
from rulesets.messages import text as _


def _games_by_day(
    table: Sequence[set[int]], day_of: Sequence[int], roster: tuple[str, ...], labels: Sequence[str], days: int,
    rng: random.Random,
) -> list[tuple[int, tuple[str, ...]]]:
    """The games as (day, teams in roster order), team index ``t`` named ``labels[t]``, day by day in a seeded order."""
    by_day: list[list[tuple[str, ...]]] = [[] for _ in range(days)]
    for game, day in zip(table, day_of):
        members = {labels[t] for t in game}
        by_day[day].append(tuple(team for team in roster if team in members))
    schedule_games: list[tuple[int, tuple[str, ...]]] = []
    for day, day_games in enumerate(by_day):
        rng.shuffle(day_games)
        schedule_games.extend((day, game) for game in day_games)
    return schedule_games


def generate_stage1(
    teams: list[str],
    seed: Seed,
    days: int = DAYS,
    *,
    games: int = STAGE1_GAMES,
    teams_per_game: int = STAGE1_TEAMS_PER_GAME,
    progress: Progress | None = None,
) -> Stage1Schedule:
    """The stage-1 table (CB-2, CB-5): which teams play which game, on which day.

    For 14 teams, 48 games of 7 and 7 days every constraint of CB-5 holds for
    every seed: 24 games a team, every pair meets 11 or 12 times, 7/7/7/7/7/7/6
    games a day and each team plays 3 or 4 games every day. Other parameters
    use ``search_stage1_table`` (pair balance first, days as even as found).
    ``progress(done, total)`` is called now and then.
    """
    roster = _check_roster(teams, None, "CB-5")
    rng = _rng(seed)
    n = len(roster)
    canonical = (n, games, teams_per_game, days) == (STAGE1_TEAMS, STAGE1_GAMES, STAGE1_TEAMS_PER_GAME, DAYS)
    if canonical:
        table, day_of = _drawn_from_library(rng, progress)
    else:
        table, day_of = search_stage1_table(n, games, teams_per_game, days, rng.randrange(2**32), progress=progress)
    labels = list(roster)
    rng.shuffle(labels)
    schedule_games = _games_by_day(table, day_of, roster, labels, days, rng)
    if canonical:
        _report(progress, _LIBRARY_STEPS, _LIBRARY_STEPS)
    return Stage1Schedule(seed=seed, teams=roster, games=schedule_games, days=days, teams_per_game=teams_per_game)


def _stage1_shape_problems(schedule: Stage1Schedule, roster: list[str], games: int, teams_per_game: int) -> list[str]:
    """The teams, the day turn and the number of games of the table (CB-4, CB-5)."""
    problems: list[str] = []
    n = len(roster)
    if len(set(roster)) != n:
        problems.append(_("CB-5: the teams of the stage are not distinct"))
    if games == STAGE1_GAMES and teams_per_game == STAGE1_TEAMS_PER_GAME and n != STAGE1_TEAMS:
        problems.append(_("CB-5: stage 1 has %(expected)s teams, the table has %(teams)s", expected=STAGE1_TEAMS,
                          teams=n))
    if schedule.day_turn_minutes != DAY_TURN_MINUTES[1]:
        problems.append(_("CB-4: a stage-1 day turn lasts %(minutes)s minutes", minutes=DAY_TURN_MINUTES[1]))
    if len(schedule.games) != games:
        problems.append(_("CB-5: stage 1 has %(expected)s games, the table has %(games)s", expected=games,
                          games=len(schedule.games)))
    return problems


def _stage1_games(
    schedule: Stage1Schedule, roster: list[str], teams_per_game: int, problems: list[str]
) -> tuple[list[set[int]], list[int]]:
    """Each game as a set of team indexes and its day; what is wrong with a game goes to ``problems`` (CB-5)."""
    index = {team: i for i, team in enumerate(roster)}
    table: list[set[int]] = []
    day_of: list[int] = []
    for number, (day, teams) in enumerate(schedule.games, start=1):
        members = set(teams)
        if len(members) != len(teams) or len(members) != teams_per_game:
            problems.append(_("CB-5: game %(number)s must have %(expected)s distinct teams, it has %(teams)s",
                              number=number, expected=teams_per_game, teams=str(list(teams))))
        unknown = members - set(index)
        if unknown:
            problems.append(_("CB-5: game %(number)s names teams outside the stage: %(teams)s", number=number,
                              teams=str(sorted(unknown))))
        if not 0 <= day < schedule.days:
            problems.append(_("CB-5: game %(number)s is on day %(day)s, outside 0..%(last)s", number=number,
                              day=day, last=schedule.days - 1))
        table.append({index[t] for t in members if t in index})
        day_of.append(day)
    return table, day_of


def _stage1_balance_problems(roster: list[str], table: list[set[int]], teams_per_game: int) -> list[str]:
    """Games per team and meetings per pair of teams (CB-5)."""
    problems: list[str] = []
    n = len(roster)
    per_team = len(table) * teams_per_game // n
    played = [sum(1 for game in table if t in game) for t in range(n)]
    for t, count in enumerate(played):
        if count != per_team:
            problems.append(_("CB-5: %(team)s plays %(games)s games instead of %(expected)s", team=roster[t],
                              games=count, expected=per_team))
    low, high = _pair_bounds(n, len(table), teams_per_game)
    pairs = _pair_counts(table, n)
    for a in range(n):
        for b in range(a + 1, n):
            if not low <= pairs[a][b] <= high:
                problems.append(_("CB-5: %(team)s and %(other)s meet %(times)s times, not %(low)s or %(high)s",
                                  team=roster[a], other=roster[b], times=pairs[a][b], low=low, high=high))
    return problems


def _uneven_day(team: str, games: int, day: int, low: int, high: int) -> Text:
    """The sentence for a team whose ``games`` on ``day`` are outside the even spread ``low..high`` (CB-5)."""
    if low == high:
        return _("CB-5: %(team)s plays %(games)s games on day %(day)s, not %(expected)s "
                 "(even spread)", team=team, games=games, day=day, expected=low)
    return _("CB-5: %(team)s plays %(games)s games on day %(day)s, not %(low)s or %(high)s "
             "(even spread)", team=team, games=games, day=day, low=low, high=high)


def _stage1_spread_problems(
    roster: list[str], table: list[set[int]], day_of: list[int], sizes: list[int], teams_per_game: int
) -> list[str]:
    """Each team's games on each day, against that day's even spread (CB-5)."""
    problems: list[str] = []
    n = len(roster)
    counts = _day_counts(table, day_of, n, len(sizes))
    for day, size in enumerate(sizes):
        low_day, high_day = size * teams_per_game // n, -(-size * teams_per_game // n)
        for t in range(n):
            if not low_day <= counts[t][day] <= high_day:
                problems.append(_uneven_day(roster[t], counts[t][day], day, low_day, high_day))
    return problems


def check_stage1(
    schedule: Stage1Schedule, games: int = STAGE1_GAMES, teams_per_game: int = STAGE1_TEAMS_PER_GAME
) -> list[str]:
    """Every way the table breaks CB-5 (or CB-2/CB-4), as sentences; empty when it is valid."""
    roster = list(schedule.teams)
    problems = _stage1_shape_problems(schedule, roster, games, teams_per_game)
    table, day_of = _stage1_games(schedule, roster, teams_per_game, problems)
    if problems:
        return problems
    if _days_out_of_order(day_of):
        problems.append(_("CB-5: the games are not listed day by day"))
    if (len(table) * teams_per_game) % len(roster):
        problems.append(_("CB-5: the games cannot give every team the same number of games"))
        return problems
    problems.extend(_stage1_balance_problems(roster, table, teams_per_game))
    sizes = [day_of.count(day) for day in range(schedule.days)]
    if sorted(sizes) != sorted(day_sizes(len(table), schedule.days)):
        problems.append(_("CB-5: games per day %(sizes)s are not spread evenly over the %(days)s days",
                          sizes=str(sizes), days=schedule.days))
        return problems
    problems.extend(_stage1_spread_problems(roster, table, day_of, sizes, teams_per_game))
    return problems
