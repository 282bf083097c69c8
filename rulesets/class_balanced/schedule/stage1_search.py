"""Stage 1 of ``class_balanced`` (CB-5): the seeded local search for a table.

A stage-1 table is a list of games, each a set of team indexes, and each
game's day. CB-5 wants every team in the same number of games, every pair of
teams meeting the floor or the ceiling of the average number of times, and
every team playing the floor or the ceiling of each day's average. This
module counts pairs and days (also for ``check_stage1``), balances the pairs
(``_balance_pairs``), spreads the games over the days (``_spread_days``) and
combines both in ``search_stage1_table``: the search that found the library
of ``stage1_library`` and that serves every non-canonical set of parameters.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Iterable, Sequence

from rulesets.class_balanced.schedule.common import Progress, Seed, _report, _rng, day_sizes
from rulesets.messages import text as _

Tick = Callable[[int], None]
Bounds = Sequence[tuple[int, int]]


def _pair_counts(games: Sequence[set[int]], n: int) -> list[list[int]]:
    counts = [[0] * n for _ in range(n)]
    for game in games:
        members = sorted(game)
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                counts[a][b] += 1
                counts[b][a] += 1
    return counts


def _day_counts(games: Sequence[set[int]], day_of: Sequence[int], n: int, days: int) -> list[list[int]]:
    counts = [[0] * days for _ in range(n)]
    for game, day in zip(games, day_of):
        for team in game:
            counts[team][day] += 1
    return counts


def _pair_bounds(n: int, games: int, per_game: int) -> tuple[int, int]:
    low, rest = divmod(games * per_game * (per_game - 1) // 2, n * (n - 1) // 2)
    return low, low + (1 if rest else 0)


def _day_bounds(n: int, games: int, per_game: int, days: int) -> list[tuple[int, int]]:
    return [(size * per_game // n, -(-size * per_game // n)) for size in day_sizes(games, days)]


def _outside(counts: Sequence[Sequence[int]], bounds: Bounds, teams: Iterable[int], days: Sequence[int]) -> int:
    """How many (team, day) counts fall outside that day's even spread ``bounds[day]`` (CB-5)."""
    return sum(1 for team in teams for day in days if not bounds[day][0] <= counts[team][day] <= bounds[day][1])


def _swap_teams(
    table: list[set[int]], pairs: list[list[int]], first: int, second: int,
    leaving: set[int], coming: set[int], a: int, b: int,
) -> None:
    """Move team ``a`` from game ``first`` to game ``second`` and team ``b`` back, keeping the pair counts."""
    row_a, row_b = pairs[a], pairs[b]
    for x in leaving:
        if x != a:
            row_a[x] -= 1
            pairs[x][a] -= 1
            row_b[x] += 1
            pairs[x][b] += 1
    for y in coming:
        if y != b:
            row_a[y] += 1
            pairs[y][a] += 1
            row_b[y] -= 1
            pairs[y][b] -= 1
    table[first].remove(a)
    table[first].add(b)
    table[second].remove(b)
    table[second].add(a)


def _swap_days(counts: list[list[int]], moving_on: set[int], moving_back: set[int], d1: int, d2: int) -> None:
    """Update the day counts when a game of ``moving_on`` goes from day ``d1`` to ``d2`` and one of ``moving_back`` back."""
    for team in moving_on:
        counts[team][d1] -= 1
        counts[team][d2] += 1
    for team in moving_back:
        counts[team][d2] -= 1
        counts[team][d1] += 1


def _pair_cost_target(n: int, games: int, per_game: int) -> int:
    """The least sum of squared pair counts: every pair meets the floor or the ceiling of the average."""
    low, high = _pair_bounds(n, games, per_game)
    pairs = n * (n - 1) // 2
    meetings = games * per_game * (per_game - 1) // 2
    return (meetings - low * pairs) * high * high + (pairs - (meetings - low * pairs)) * low * low


def _pair_swap_delta(pairs: list[list[int]], leaving: set[int], coming: set[int], a: int, b: int) -> int:
    """How the sum of squared pair counts changes when ``a`` (of ``leaving``) and ``b`` (of ``coming``) swap games."""
    row_a, row_b = pairs[a], pairs[b]
    delta = 0
    for x in leaving:
        if x != a:
            delta += 2 * (row_b[x] - row_a[x]) + 2
    for y in coming:
        if y != b:
            delta += 2 * (row_a[y] - row_b[y]) + 2
    return delta


def _balance_pairs(
    n: int, games: int, per_game: int, rng: random.Random, iterations: int, tick: Tick
) -> list[set[int]]:
    """Simulated annealing on the games' teams: swap two teams between two games (CB-5 pairs).

    Each team keeps its number of games; the cost is the sum of the squared
    pair counts, whose minimum is reached exactly when every pair meets
    ``floor`` or ``ceil`` of the average number of times.
    """
    order = list(range(n))
    rng.shuffle(order)
    table = [{order[(game * per_game + seat) % n] for seat in range(per_game)} for game in range(games)]
    counts = _pair_counts(table, n)
    target = _pair_cost_target(n, games, per_game)
    cost = sum(counts[a][b] ** 2 for a in range(n) for b in range(a + 1, n))
    best_cost, best = cost, [set(game) for game in table]
    temperature = 3.0
    for step in range(iterations):
        if cost == target:
            return table
        if step % 10_000 == 0:
            tick(step)
        first, second = rng.randrange(games), rng.randrange(games)
        leaving = table[first] - table[second]
        if not leaving:
            continue
        coming = table[second] - table[first]
        a = rng.choice(sorted(leaving))
        b = rng.choice(sorted(coming))
        delta = _pair_swap_delta(counts, leaving, coming, a, b)
        if delta <= 0 or rng.random() < math.exp(-delta / temperature):
            _swap_teams(table, counts, first, second, leaving, coming, a, b)
            cost += delta
            if cost < best_cost:
                best_cost, best = cost, [set(game) for game in table]
        temperature = max(0.4, temperature * 0.9997)
    return table if cost == target else best


def _day_swap_delta(
    counts: list[list[int]], means: Sequence[int], n: int, moving_on: set[int], moving_back: set[int], d1: int, d2: int
) -> int:
    """How the spread cost changes when a game of ``moving_on`` goes from day ``d1`` to ``d2`` and one back."""
    delta = 0
    for team in moving_on:
        row = counts[team]
        delta += 2 * n * (n * row[d2] - means[d2]) - 2 * n * (n * row[d1] - means[d1]) + 2 * n * n
    for team in moving_back:
        row = counts[team]
        delta += 2 * n * (n * row[d1] - means[d1]) - 2 * n * (n * row[d2] - means[d2]) + 2 * n * n
    return delta


def _spread_days(
    table: Sequence[set[int]], n: int, days: int, rng: random.Random, iterations: int, tick: Tick
) -> list[int]:
    """Simulated annealing on the games' days: swap the days of two games (CB-5 spread).

    The cost is the sum over teams and days of ``(n * count - day size * teams
    per game) ** 2``; it stops as soon as every team's count on every day is
    the floor or ceiling of that day's average.
    """
    games = len(table)
    per_game = len(table[0]) if table else 0
    sizes = day_sizes(games, days)
    bounds = _day_bounds(n, games, per_game, days)
    day_of = [day for day, size in enumerate(sizes) for _ in range(size)]
    rng.shuffle(day_of)
    counts = _day_counts(table, day_of, n, days)
    means = [size * per_game for size in sizes]
    outside = _outside(counts, bounds, range(n), range(days))
    cost = sum((n * counts[team][day] - means[day]) ** 2 for team in range(n) for day in range(days))
    best_cost, best = (outside, cost), list(day_of)
    temperature = 2.0 * n * n
    for step in range(iterations):
        if outside == 0:
            return day_of
        if step % 10_000 == 0:
            tick(step)
        first, second = rng.randrange(games), rng.randrange(games)
        d1, d2 = day_of[first], day_of[second]
        if d1 == d2:
            continue
        moving_on = table[first] - table[second]
        moving_back = table[second] - table[first]
        delta = _day_swap_delta(counts, means, n, moving_on, moving_back, d1, d2)
        if delta <= 0 or rng.random() < math.exp(-delta / temperature):
            touched = moving_on | moving_back
            before = _outside(counts, bounds, touched, (d1, d2))
            _swap_days(counts, moving_on, moving_back, d1, d2)
            outside += _outside(counts, bounds, touched, (d1, d2)) - before
            day_of[first], day_of[second] = d2, d1
            cost += delta
            if (outside, cost) < best_cost:
                best_cost, best = (outside, cost), list(day_of)
        temperature = max(0.5 * n * n, temperature * 0.999)
    return day_of if outside == 0 else best


def _spread_misses(table: Sequence[set[int]], day_of: Sequence[int], n: int, days: int) -> int:
    bounds = _day_bounds(n, len(table), len(table[0]) if table else 0, days)
    counts = _day_counts(table, day_of, n, days)
    return _outside(counts, bounds, range(n), range(days))


def _pair_misses(table: Sequence[set[int]], n: int) -> int:
    low, high = _pair_bounds(n, len(table), len(table[0]) if table else 0)
    counts = _pair_counts(table, n)
    return sum(1 for a in range(n) for b in range(a + 1, n) if not low <= counts[a][b] <= high)


def _check_search(teams_count: int, games: int, teams_per_game: int) -> None:
    if not 1 < teams_per_game <= teams_count:
        raise ValueError(_("CB-5: a game needs between 2 and all of the teams"))
    if games < 1 or (games * teams_per_game) % teams_count:
        raise ValueError(_("CB-5: the games must give every team the same number of games"))


def search_stage1_table(
    teams_count: int,
    games: int,
    teams_per_game: int,
    days: int,
    seed: Seed,
    rounds: int = 3,
    iterations: int = 200_000,
    progress: Progress | None = None,
) -> tuple[list[set[int]], list[int]]:
    """Seeded local search for a stage-1 table over team indexes ``0..teams_count-1`` (CB-5).

    Each round balances the pairs (``_balance_pairs``), then spreads the games
    over the days (``_spread_days``); the first round that gets both wins,
    otherwise the best round: pair balance first, then the fewest
    (team, day) counts outside the even spread. Returns the games (sets of
    team indexes) and each game's day, in no particular order.
    """
    _check_search(teams_count, games, teams_per_game)
    rng = _rng(seed)
    total = rounds * 2 * iterations
    best: tuple[tuple[int, int], list[set[int]], list[int]] | None = None
    for round_index in range(rounds):
        offset = round_index * 2 * iterations

        def tick(step: int, offset: int = offset) -> None:
            _report(progress, offset + step, total)

        table = _balance_pairs(teams_count, games, teams_per_game, rng, iterations, tick)
        day_of = _spread_days(
            table, teams_count, days, rng, iterations, lambda step, offset=offset: tick(step + iterations, offset)
        )
        score = (_pair_misses(table, teams_count), _spread_misses(table, day_of, teams_count, days))
        if best is None or score < best[0]:
            best = (score, table, day_of)
        if score == (0, 0):
            break
    _report(progress, total, total)
    assert best is not None
    return best[1], best[2]
