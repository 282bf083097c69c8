"""Seeded schedule generators for the ``class_balanced`` ruleset (CB-2, CB-4..CB-6).

Pure standard-library Python: no Django, no clock, every draw from
``random.Random(seed)`` so anyone can re-run a published table (CB-2).

- Stage 1 (CB-5): 48 games of 7 of the 14 teams, 24 games a team, every pair
  of teams meets 11 or 12 times, and each team plays 3 or 4 games on every
  day of the week (7/7/7/7/7/7/6 games a day).
- Stage 2 (CB-6): 26 games of all 13 teams with a class table: 4 C, 5 B and
  4 A seats a game, 8 A / 10 B / 8 C games a team, never the same class more
  than 2 games running; a day turn lasts 3 minutes (CB-4).
- Stage 3 (CB-2): the calendar of 24 games of all 10 teams.

Games are placed on day indexes ``0..days-1`` (the first ``games % days``
days carry one game more) and ordered within their day; the Django side turns
day and order into times.

How stage 1 is built. Balancing the pairs alone is easy for a local search
(``search_stage1_table`` does it in a fraction of a second), but the pair
balance and the daily spread together leave few, isolated solutions: one
round of the seeded search finds one about one time in four or five, in
seconds, with a long tail. So the canonical 14/48/7 table is drawn from a
small library of tables that this module's own search found
(``STAGE1_TABLE_SEEDS`` records the search seed of each): the seed picks a
table, may complement every game (a game's 7 absent teams are also a valid
game: each team then plays ``day size - its old count`` games on each day
and every pair meets as often), walks it through constraint-preserving
swaps, relabels the teams, shuffles the weekdays and the order within each
day. Every draw keeps every CB-5 constraint, so generation always succeeds
in milliseconds. Other parameters (``teams_per_game``, ``games``, ``days``)
go through the search itself, which puts pair balance first and spreads the
days as evenly as it can.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from rulesets.messages import text as _

Progress = Callable[[int, int], None]
Seed = int | str

DAYS = 7
CLASSES = ("A", "B", "C")
DAY_TURN_MINUTES = {1: 2, 2: 3, 3: 2}  # CB-4

STAGE1_TEAMS = 14
STAGE1_GAMES = 48
STAGE1_TEAMS_PER_GAME = 7

STAGE2_TEAMS = 13
STAGE2_GAMES = 26
STAGE2_SEATS_PER_CLASS = {"A": 4, "B": 5, "C": 4}
STAGE2_GAMES_PER_CLASS = {"A": 8, "B": 10, "C": 8}
MAX_CLASS_RUN = 2

STAGE3_TEAMS = 10
STAGE3_GAMES = 24

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_WALK_STEPS = 3000
_LIBRARY_STEPS = 4
_STAGE2_WALK_STEPS = 4000
_STAGE2_BASE_TRIES = 10_000
_STAGE2_FALLBACK_BASE = "ACCACABCCBABABBCBABCABCABB"


class GameSlot(NamedTuple):
    """Where a game sits: ``number`` counts from 1, ``day`` and ``order`` from 0."""

    number: int
    day: int
    order: int


def _slots(days_of_games: Sequence[int]) -> list[GameSlot]:
    slots = []
    order = 0
    for index, day in enumerate(days_of_games):
        order = order + 1 if index and days_of_games[index - 1] == day else 0
        slots.append(GameSlot(index + 1, day, order))
    return slots


@dataclass(frozen=True)
class Stage1Schedule:
    """Stage 1 table (CB-2, CB-5): per game its day index and its teams (in roster order)."""

    seed: Seed
    teams: tuple[str, ...]
    games: list[tuple[int, tuple[str, ...]]]
    days: int = DAYS
    teams_per_game: int = STAGE1_TEAMS_PER_GAME
    day_turn_minutes: int = DAY_TURN_MINUTES[1]

    def slots(self) -> list[GameSlot]:
        """Number, day and order within the day of every game, in table order."""
        return _slots([day for day, _ in self.games])


@dataclass(frozen=True)
class Stage2Schedule:
    """Stage 2 class table (CB-2, CB-4, CB-6): per game its day index and team -> class."""

    seed: Seed
    teams: tuple[str, ...]
    games: list[tuple[int, dict[str, str]]]
    days: int = DAYS
    day_turn_minutes: int = DAY_TURN_MINUTES[2]

    def slots(self) -> list[GameSlot]:
        """Number, day and order within the day of every game, in table order."""
        return _slots([day for day, _ in self.games])

    def classes_of(self, team: str) -> str:
        """The team's classes game by game, e.g. ``"ABBCA..."`` (CB-6)."""
        return "".join(classes[team] for _, classes in self.games)


@dataclass(frozen=True)
class Stage3Calendar:
    """Stage 3 calendar (CB-2): every team plays every game; each picks its class (CB-7)."""

    seed: Seed
    teams: tuple[str, ...]
    games: list[tuple[int, tuple[str, ...]]]
    days: int = DAYS
    day_turn_minutes: int = DAY_TURN_MINUTES[3]

    def slots(self) -> list[GameSlot]:
        """Number, day and order within the day of every game, in table order."""
        return _slots([day for day, _ in self.games])


def day_sizes(games: int, days: int = DAYS) -> list[int]:
    """Games on each day: as even as possible, the first ``games % days`` days one more (CB-5)."""
    if days < 1 or games < 0:
        raise ValueError(_("days must be positive and games non-negative"))
    base, extra = divmod(games, days)
    return [base + (1 if day < extra else 0) for day in range(days)]


def _check_roster(teams: Sequence[str], expected: int | None, rule: str) -> tuple[str, ...]:
    roster = tuple(teams)
    if any(not isinstance(team, str) or not team for team in roster):
        raise ValueError(_("%(rule)s: every team must be a non-empty string", rule=rule))
    if len(set(roster)) != len(roster):
        raise ValueError(_("%(rule)s: the teams must be distinct", rule=rule))
    if expected is not None and len(roster) != expected:
        raise ValueError(_("%(rule)s: the stage needs %(expected)s teams, got %(teams)s", rule=rule,
                           expected=expected, teams=len(roster)))
    return roster


def _check_seed(seed: Seed) -> None:
    if isinstance(seed, bool) or not isinstance(seed, int | str):
        raise TypeError(_("the seed must be an int or a str"))


def _rng(seed: Seed) -> random.Random:
    _check_seed(seed)
    return random.Random(seed)


def _report(progress: Progress | None, done: int, total: int) -> None:
    if progress is not None:
        progress(done, total)


# ---------------------------------------------------------------------------
# Stage 1 (CB-5): the seeded local search
# ---------------------------------------------------------------------------


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


def _balance_pairs(
    n: int, games: int, per_game: int, rng: random.Random, iterations: int, tick: Callable[[int], None]
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
    low, high = _pair_bounds(n, games, per_game)
    pairs = n * (n - 1) // 2
    meetings = games * per_game * (per_game - 1) // 2
    target = (meetings - low * pairs) * high * high + (pairs - (meetings - low * pairs)) * low * low
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
        row_a, row_b = counts[a], counts[b]
        delta = 0
        for x in leaving:
            if x != a:
                delta += 2 * (row_b[x] - row_a[x]) + 2
        for y in coming:
            if y != b:
                delta += 2 * (row_a[y] - row_b[y]) + 2
        if delta <= 0 or rng.random() < math.exp(-delta / temperature):
            for x in leaving:
                if x != a:
                    row_a[x] -= 1
                    counts[x][a] -= 1
                    row_b[x] += 1
                    counts[x][b] += 1
            for y in coming:
                if y != b:
                    row_a[y] += 1
                    counts[y][a] += 1
                    row_b[y] -= 1
                    counts[y][b] -= 1
            table[first].remove(a)
            table[first].add(b)
            table[second].remove(b)
            table[second].add(a)
            cost += delta
            if cost < best_cost:
                best_cost, best = cost, [set(game) for game in table]
        temperature = max(0.4, temperature * 0.9997)
    return table if cost == target else best


def _spread_days(
    table: Sequence[set[int]], n: int, days: int, rng: random.Random, iterations: int, tick: Callable[[int], None]
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
    outside = sum(
        1 for team in range(n) for day in range(days) if not bounds[day][0] <= counts[team][day] <= bounds[day][1]
    )
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
        delta = 0
        for team in moving_on:
            row = counts[team]
            delta += 2 * n * (n * row[d2] - means[d2]) - 2 * n * (n * row[d1] - means[d1]) + 2 * n * n
        for team in moving_back:
            row = counts[team]
            delta += 2 * n * (n * row[d1] - means[d1]) - 2 * n * (n * row[d2] - means[d2]) + 2 * n * n
        if delta <= 0 or rng.random() < math.exp(-delta / temperature):
            touched = moving_on | moving_back
            before = sum(
                1 for team in touched for day in (d1, d2) if not bounds[day][0] <= counts[team][day] <= bounds[day][1]
            )
            for team in moving_on:
                counts[team][d1] -= 1
                counts[team][d2] += 1
            for team in moving_back:
                counts[team][d2] -= 1
                counts[team][d1] += 1
            after = sum(
                1 for team in touched for day in (d1, d2) if not bounds[day][0] <= counts[team][day] <= bounds[day][1]
            )
            outside += after - before
            day_of[first], day_of[second] = d2, d1
            cost += delta
            if (outside, cost) < best_cost:
                best_cost, best = (outside, cost), list(day_of)
        temperature = max(0.5 * n * n, temperature * 0.999)
    return day_of if outside == 0 else best


def _spread_misses(table: Sequence[set[int]], day_of: Sequence[int], n: int, days: int) -> int:
    bounds = _day_bounds(n, len(table), len(table[0]) if table else 0, days)
    counts = _day_counts(table, day_of, n, days)
    return sum(
        1 for team in range(n) for day in range(days) if not bounds[day][0] <= counts[team][day] <= bounds[day][1]
    )


def _pair_misses(table: Sequence[set[int]], n: int) -> int:
    low, high = _pair_bounds(n, len(table), len(table[0]) if table else 0)
    counts = _pair_counts(table, n)
    return sum(1 for a in range(n) for b in range(a + 1, n) if not low <= counts[a][b] <= high)


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
    if not 1 < teams_per_game <= teams_count:
        raise ValueError(_("CB-5: a game needs between 2 and all of the teams"))
    if games < 1 or (games * teams_per_game) % teams_count:
        raise ValueError(_("CB-5: the games must give every team the same number of games"))
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


# ---------------------------------------------------------------------------
# Stage 1 (CB-5): the library of searched tables and the seeded draw
# ---------------------------------------------------------------------------

# Search seeds of the tables below: ``search_stage1_table(14, 48, 7, 7, seed, rounds=1, iterations=300_000)``
# (``_encode_table`` of its result); tests re-run some of them.
STAGE1_TABLE_SEEDS: tuple[int, ...] = (0, 10, 14, 15, 18, 24, 36, 37, 39)

# One table a string: day after day (the 6-game day last), a game as the
# letters of its teams (a = team 0 ... n = team 13).
_STAGE1_TABLES: tuple[str, ...] = (
    (
        "abcehim abdeghk afgjkln bcdijmn bcgijln cdfhjkm efiklmn\n"
        "acdfghn acghimn adfhiln bcdegjk bcehklm bdegijl efjklmn\n"
        "abfgkmn acgjklm adefhjl bcdefhi bghikln cefgijm dehikln\n"
        "abefgil abehjmn abfhjlm acdgijk bcdflmn cdehjkn dfghikm\n"
        "abcekln abfhijk acdefkl adegjmn bdefgmn cfghijl dhijlmn\n"
        "abdfijk abdikmn acefgim aceijln bcghklm bdghjlm cefghkn\n"
        "abcfhjn acdiklm adeghlm bcdfgln befijkm eghijkn"
    ),
    (
        "abcghij abfijlm adefgmn adejkln bceikmn cfghkln defghij\n"
        "abcfiln abdgikl acfhjkm befgjkn cdehimn cehjklm dfghiln\n"
        "abfhjmn aceglmn adegijn adfhjkl bcdghik befgklm cdeijlm\n"
        "abefhij acdefkl adghkmn bcdfgjn bcdfimn beghjln cgijklm\n"
        "abcdehl abeikln aefhikm bcdfhlm bcdgjkm ceghjln fgijkmn\n"
        "abcdjkn abdghkm acefgik achijmn bdefjlm beghilm dfhikln\n"
        "abcefgh acfglmn adgijlm bdehkmn bhijkln cdefijk"
    ),
    (
        "abdjlmn abfghin acdefjk bcghjkm bdefhkl ceiklmn defgijm\n"
        "abcehjm acdegin acdhjln aegikmn bdfghlm bfijkmn cdfgikl\n"
        "abcdfik acehijl adghkmn aefghlm bcehjkn bdijkln befgjmn\n"
        "abcdgln acefgkl afghijn bcfhikm bcgijlm defhjlm dehikmn\n"
        "abcghkm abdeilm abfhkln aehijkl bcdegjn cdfghij cefklmn\n"
        "abdefhi acfjlmn agijklm bcefgln bdgijkl cdfhimn deghjkn\n"
        "abcdeim abefgjk adfjkmn beghiln cdghklm cfhijln"
    ),
    (
        "abcdkmn abfiklm aceghij adfghjl bdfgijm cdejlmn efghkln\n"
        "adeglmn adfghjk agiklmn bcdefgk bcfijln behijmn cdefhim\n"
        "abcghln abdfhlm acdehik acefjkn befgiln beghjkm cdfijlm\n"
        "abdefjn acdgijn aefhikl bcdgikn bcdhklm bhjklmn cefgilm\n"
        "abfhijn acdghmn acefkmn adeijkl bcdehjl bcegjkl fghikmn\n"
        "abcefgm abcghil abehijm bdgijkn cfhjkmn dehikln dfgjklm\n"
        "abdefln abegjkm acijklm bcdfhik cfghjln deghimn"
    ),
    (
        "abcdhkm abefhjn abfgilm cdfhijk cefikln cghjlmn degjkln\n"
        "abcdgij adgikln aeghilm afhijkl bcfhlmn bdefkmn cdefgjm\n"
        "abgijkm acdeflm acdfhin bceghik bcijkln bdefhln deghjmn\n"
        "abcdegl abdehil acehijn adfjklm bcgikmn bfghjkn fghjklm\n"
        "abcefgj abfgkln adhijmn bcdfijm bdehjkl cehiklm degikmn\n"
        "abdhkmn acefkmn acejklm aefgijn bcdghjl befghim cdfgiln\n"
        "abcejkn acdfghk acghlmn bdijlmn befijlm defghik"
    ),
    (
        "abcghjl abdfhik abeghkm acgijlm bcdfjkn defhkmn efgilmn\n"
        "abfhjmn acehkln adefijl bcdegkm bgijkln cdeghij cdfglmn\n"
        "abceimn abdegln aefghjk afgjklm bcfhjmn cdhijkl deghikm\n"
        "abdefgi achikmn afghijn bcdghlm bcefikl bdehjln defjklm\n"
        "abdfhil acdikmn acejkln adghklm bcefjkm bdgijmn cefghin\n"
        "abcdeij acdfhln acefgjm bdfgjkn behilmn bhijklm cfgikln\n"
        "abcdflm abegkln adijkmn bcfghik cdeghjn efhijlm"
    ),
    (
        "abceikl adefijn aghjklm bcdghmn bcfhikl beijkmn cdefgln\n"
        "abcfjmn abdgikn adghjkl bcdefjl bfhikln ceghimn dehijlm\n"
        "abgjklm acdehik acdelmn aefhijn bdfgilm befgjkn cdfghjk\n"
        "abdegim abfhlmn acefikm adefghk bcdhijl cghijkn dejklmn\n"
        "abcdhln abdfhkn afgijlm bcefgkm bceghjl cdfijkm eghilmn\n"
        "abcehkm abcgijn acefgjl adfgiln bdfhijm cdgjkmn efhklmn\n"
        "abeghij acdiklm acfhjmn bdefghm bdejkln cfgikln"
    ),
    (
        "abdefim acdghik acdjkmn bcfjklm bdghjln begilmn cefghjn\n"
        "abcfhil abfhijn abfjklm bcdefgm cdegikl ceghjkn dgiklmn\n"
        "abehjkl acehilm adeijln adfghjk bcfgikn befgijm cdfhlmn\n"
        "abcdekn abdgijl afgjlmn bcdehjl bchijkm defhklm fghikmn\n"
        "abcghil abdgkln acegjmn adefhkm bcdhimn defghij efijkln\n"
        "abcefgn abehkmn acdfglm aghijkm bdefikn cdfhjln ceijklm\n"
        "acdijmn acefgkl aefhiln bcdfijk bdeghjm bghklmn"
    ),
    (
        "abefglm achijkn adehilm bcdegik bcehjln cfiklmn dfghjmn\n"
        "abcfhkl abdgjkm adeijln bdehimn bdfhjkl ceghjmn cfgiklm\n"
        "acdefgi acfghln aghijkm bcehjkm bdefjln bdgikmn cdefklm\n"
        "abefkmn aceglmn aefijkn aeghijl bcdfhin bdghjkl cdfghim\n"
        "abcdghn abcfgjn abefhkm adfijlm begikln cdefhjm cdijkln\n"
        "abceijm abchikl abdfgij adefhkn bghilmn cdegjkl fgjklmn\n"
        "abcdjlm acdegkn adhklmn bcfijmn befghil efghijk"
    ),
)


def _encode_table(table: Sequence[set[int]], day_of: Sequence[int], days: int) -> str:
    sizes = day_sizes(len(table), days)
    by_day: list[list[str]] = [[] for _ in range(days)]
    for game, day in zip(table, day_of):
        by_day[day].append("".join(_LETTERS[team] for team in sorted(game)))
    order = sorted(range(days), key=lambda day: (-len(by_day[day]), day))
    assert sorted((len(by_day[day]) for day in order), reverse=True) == sorted(sizes, reverse=True)
    return "\n".join(" ".join(sorted(by_day[day])) for day in order)


def _decode_table(text: str) -> tuple[list[set[int]], list[int]]:
    table: list[set[int]] = []
    day_of: list[int] = []
    for day, line in enumerate(text.strip().splitlines()):
        for word in line.split():
            table.append({_LETTERS.index(letter) for letter in word})
            day_of.append(day)
    return table, day_of


def _walk(table: list[set[int]], day_of: list[int], n: int, days: int, rng: random.Random, steps: int) -> None:
    """Random moves that keep every CB-5 constraint: swap two games' days, or two teams between games."""
    games = len(table)
    per_game = len(table[0])
    low, high = _pair_bounds(n, games, per_game)
    bounds = _day_bounds(n, games, per_game, days)
    pairs = _pair_counts(table, n)
    counts = _day_counts(table, day_of, n, days)

    def can_move(team: int, source: int, target: int) -> bool:
        return counts[team][source] > bounds[source][0] and counts[team][target] < bounds[target][1]

    for _step in range(steps):
        first, second = rng.randrange(games), rng.randrange(games)
        leaving = table[first] - table[second]
        if not leaving:
            continue
        coming = table[second] - table[first]
        d1, d2 = day_of[first], day_of[second]
        if rng.random() < 0.5:
            if (
                d1 == d2
                or not all(can_move(t, d1, d2) for t in leaving)
                or not all(can_move(t, d2, d1) for t in coming)
            ):
                continue
            for team in leaving:
                counts[team][d1] -= 1
                counts[team][d2] += 1
            for team in coming:
                counts[team][d2] -= 1
                counts[team][d1] += 1
            day_of[first], day_of[second] = d2, d1
            continue
        a = rng.choice(sorted(leaving))
        b = rng.choice(sorted(coming))
        if d1 != d2 and not (can_move(a, d1, d2) and can_move(b, d2, d1)):
            continue
        row_a, row_b = pairs[a], pairs[b]
        if any(x != a and (row_a[x] <= low or row_b[x] >= high) for x in leaving):
            continue
        if any(y != b and (row_b[y] <= low or row_a[y] >= high) for y in coming):
            continue
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
        counts[a][d1] -= 1
        counts[a][d2] += 1
        counts[b][d2] -= 1
        counts[b][d1] += 1


def _drawn_from_library(rng: random.Random, progress: Progress | None) -> tuple[list[set[int]], list[int]]:
    total = _LIBRARY_STEPS
    _report(progress, 0, total)
    table, day_of = _decode_table(_STAGE1_TABLES[rng.randrange(len(_STAGE1_TABLES))])
    if rng.random() < 0.5:
        everyone = set(range(STAGE1_TEAMS))
        table = [everyone - game for game in table]
    _report(progress, 1, total)
    _walk(table, day_of, STAGE1_TEAMS, DAYS, rng, _WALK_STEPS)
    _report(progress, 2, total)
    # The library stores the big days first and the 6-game day last, as day_sizes() wants them.
    weekdays = list(range(DAYS - 1))
    rng.shuffle(weekdays)
    mapping = weekdays + [DAYS - 1]
    day_of = [mapping[day] for day in day_of]
    _report(progress, 3, total)
    return table, day_of


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
    by_day: list[list[tuple[str, ...]]] = [[] for _ in range(days)]
    for game, day in zip(table, day_of):
        members = {labels[t] for t in game}
        by_day[day].append(tuple(team for team in roster if team in members))
    schedule_games: list[tuple[int, tuple[str, ...]]] = []
    for day, day_games in enumerate(by_day):
        rng.shuffle(day_games)
        schedule_games.extend((day, game) for game in day_games)
    if canonical:
        _report(progress, _LIBRARY_STEPS, _LIBRARY_STEPS)
    return Stage1Schedule(seed=seed, teams=roster, games=schedule_games, days=days, teams_per_game=teams_per_game)


def check_stage1(
    schedule: Stage1Schedule, games: int = STAGE1_GAMES, teams_per_game: int = STAGE1_TEAMS_PER_GAME
) -> list[str]:
    """Every way the table breaks CB-5 (or CB-2/CB-4), as sentences; empty when it is valid."""
    problems: list[str] = []
    roster = list(schedule.teams)
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
    if problems:
        return problems
    if any(day_of[i] > day_of[i + 1] for i in range(len(day_of) - 1)):
        problems.append(_("CB-5: the games are not listed day by day"))
    if (len(table) * teams_per_game) % n:
        problems.append(_("CB-5: the games cannot give every team the same number of games"))
        return problems
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
    sizes = [day_of.count(day) for day in range(schedule.days)]
    if sorted(sizes) != sorted(day_sizes(len(table), schedule.days)):
        problems.append(_("CB-5: games per day %(sizes)s are not spread evenly over the %(days)s days",
                          sizes=str(sizes), days=schedule.days))
        return problems
    counts = _day_counts(table, day_of, n, schedule.days)
    for day, size in enumerate(sizes):
        low_day, high_day = size * teams_per_game // n, -(-size * teams_per_game // n)
        for t in range(n):
            if not low_day <= counts[t][day] <= high_day:
                if low_day == high_day:
                    problems.append(_("CB-5: %(team)s plays %(games)s games on day %(day)s, not %(expected)s "
                                      "(even spread)", team=roster[t], games=counts[t][day], day=day,
                                      expected=low_day))
                else:
                    problems.append(_("CB-5: %(team)s plays %(games)s games on day %(day)s, not %(low)s or %(high)s "
                                      "(even spread)", team=roster[t], games=counts[t][day], day=day, low=low_day,
                                      high=high_day))
    return problems


# ---------------------------------------------------------------------------
# Stage 2 (CB-6): the class table
# ---------------------------------------------------------------------------


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
    day_of = [day for day, size in enumerate(day_sizes(STAGE2_GAMES, days)) for _ in range(size)]
    schedule_games = [(day_of[game], {team: row_of[team][game] for team in roster}) for game in range(STAGE2_GAMES)]
    _report(progress, total, total)
    return Stage2Schedule(seed=seed, teams=roster, games=schedule_games, days=days)


def check_stage2(schedule: Stage2Schedule) -> list[str]:
    """Every way the class table breaks CB-6 (or CB-2/CB-4), as sentences; empty when it is valid."""
    problems: list[str] = []
    roster = list(schedule.teams)
    if len(roster) != STAGE2_TEAMS or len(set(roster)) != len(roster):
        problems.append(_("CB-6: stage 2 has %(expected)s distinct teams, the table has %(teams)s",
                          expected=STAGE2_TEAMS, teams=str(roster)))
    if schedule.day_turn_minutes != DAY_TURN_MINUTES[2]:
        problems.append(_("CB-4: a stage-2 day turn lasts %(minutes)s minutes, not %(given)s",
                          minutes=DAY_TURN_MINUTES[2], given=schedule.day_turn_minutes))
    if len(schedule.games) != STAGE2_GAMES:
        problems.append(_("CB-6: stage 2 has %(expected)s games, the table has %(games)s", expected=STAGE2_GAMES,
                          games=len(schedule.games)))
    for number, (day, classes) in enumerate(schedule.games, start=1):
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
        if not 0 <= day < schedule.days:
            problems.append(_("CB-6: game %(number)s is on day %(day)s, outside 0..%(last)s", number=number,
                              day=day, last=schedule.days - 1))
    day_list = [day for day, _classes in schedule.games]
    if any(day_list[i] > day_list[i + 1] for i in range(len(day_list) - 1)):
        problems.append(_("CB-6: the games are not listed day by day"))
    sizes = [day_list.count(day) for day in range(schedule.days)]
    if sorted(sizes) != sorted(day_sizes(len(day_list), schedule.days)):
        problems.append(_("CB-6: games per day %(sizes)s are not spread evenly over the %(days)s days",
                          sizes=str(sizes), days=schedule.days))
    for team in roster:
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


# ---------------------------------------------------------------------------
# Stage 3 (CB-2): the calendar
# ---------------------------------------------------------------------------


def generate_stage3_calendar(teams: list[str], seed: Seed, days: int = DAYS) -> Stage3Calendar:
    """The stage-3 calendar (CB-2): 24 games, every one of the 10 teams in every game.

    There is nothing to draw (each team picks its class game by game, CB-7),
    so the calendar is the same for every seed; the seed is kept so that the
    three stages publish alike. Days carry 4/4/4/3/3/3/3 games.
    """
    roster = _check_roster(teams, STAGE3_TEAMS, "CB-2")
    _check_seed(seed)
    day_of = [day for day, size in enumerate(day_sizes(STAGE3_GAMES, days)) for _ in range(size)]
    return Stage3Calendar(seed=seed, teams=roster, games=[(day, roster) for day in day_of], days=days)


def check_stage3(calendar: Stage3Calendar) -> list[str]:
    """Every way the calendar breaks the stage-3 format (CB-2, CB-4), as sentences."""
    problems: list[str] = []
    roster = tuple(calendar.teams)
    if len(roster) != STAGE3_TEAMS or len(set(roster)) != len(roster):
        problems.append(_("CB-2: stage 3 has %(expected)s distinct teams, the calendar has %(teams)s",
                          expected=STAGE3_TEAMS, teams=str(list(roster))))
    if calendar.day_turn_minutes != DAY_TURN_MINUTES[3]:
        problems.append(_("CB-4: a stage-3 day turn lasts %(minutes)s minutes", minutes=DAY_TURN_MINUTES[3]))
    if len(calendar.games) != STAGE3_GAMES:
        problems.append(_("CB-2: stage 3 has %(expected)s games, the calendar has %(games)s", expected=STAGE3_GAMES,
                          games=len(calendar.games)))
    for number, (day, teams) in enumerate(calendar.games, start=1):
        if sorted(teams) != sorted(roster):
            problems.append(_("CB-2: every team plays every stage-3 game; game %(number)s has %(teams)s",
                              number=number, teams=str(list(teams))))
        if not 0 <= day < calendar.days:
            problems.append(_("CB-2: game %(number)s is on day %(day)s, outside 0..%(last)s", number=number,
                              day=day, last=calendar.days - 1))
    day_list = [day for day, _teams in calendar.games]
    if day_list != sorted(day_list):
        problems.append(_("CB-2: the games are not listed day by day"))
    return problems
