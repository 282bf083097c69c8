"""Stage 1 of ``class_balanced`` (CB-5): the library of searched tables and the seeded draw from it.

Pair balance and the daily spread of CB-5 together leave few, isolated
solutions, which the seeded search of ``stage1_search`` finds only now and
then, in seconds. So the canonical 14/48/7 table is drawn from the tables
below, which that search found (``STAGE1_TABLE_SEEDS``): the seed picks a
table, may complement every game (a game's 7 absent teams are also a valid
game), walks it through swaps that keep every CB-5 constraint (``_walk``)
and shuffles the weekdays. The tables are stored as text (``_encode_table``,
``_decode_table``) so that a test can re-run the search and compare.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from rulesets.class_balanced.schedule.common import DAYS, STAGE1_TEAMS, Progress, _report, day_sizes
from rulesets.class_balanced.schedule.stage1_search import (
    _day_bounds,
    _day_counts,
    _pair_bounds,
    _pair_counts,
    _swap_days,
    _swap_teams,
)

_LETTERS = "abcdefghijklmnopqrstuvwxyz"
_WALK_STEPS = 3000
_LIBRARY_STEPS = 4

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


@dataclass
class _Walk:
    """A table under the walk, with its pair counts, day counts and the CB-5 bounds they must stay in."""

    table: list[set[int]]
    day_of: list[int]
    pairs: list[list[int]]
    counts: list[list[int]]
    pair_bounds: tuple[int, int]
    day_bounds: list[tuple[int, int]]

    @classmethod
    def of(cls, table: list[set[int]], day_of: list[int], n: int, days: int) -> _Walk:
        games = len(table)
        per_game = len(table[0])
        return cls(
            table=table,
            day_of=day_of,
            pairs=_pair_counts(table, n),
            counts=_day_counts(table, day_of, n, days),
            pair_bounds=_pair_bounds(n, games, per_game),
            day_bounds=_day_bounds(n, games, per_game, days),
        )

    def can_move(self, team: int, source: int, target: int) -> bool:
        """Whether ``team`` can play one game less on day ``source`` and one more on ``target`` (CB-5 spread)."""
        bounds = self.day_bounds
        return self.counts[team][source] > bounds[source][0] and self.counts[team][target] < bounds[target][1]

    def swap_days(self, first: int, second: int, leaving: set[int], coming: set[int]) -> None:
        """Swap the days of games ``first`` and ``second`` when every team stays in its daily bounds."""
        d1, d2 = self.day_of[first], self.day_of[second]
        if (
            d1 == d2
            or not all(self.can_move(t, d1, d2) for t in leaving)
            or not all(self.can_move(t, d2, d1) for t in coming)
        ):
            return
        _swap_days(self.counts, leaving, coming, d1, d2)
        self.day_of[first], self.day_of[second] = d2, d1

    def swap_teams(self, rng: random.Random, first: int, second: int, leaving: set[int], coming: set[int]) -> None:
        """Swap a team of ``leaving`` with one of ``coming`` when every pair and day count stays in bounds."""
        d1, d2 = self.day_of[first], self.day_of[second]
        a = rng.choice(sorted(leaving))
        b = rng.choice(sorted(coming))
        if d1 != d2 and not (self.can_move(a, d1, d2) and self.can_move(b, d2, d1)):
            return
        low, high = self.pair_bounds
        row_a, row_b = self.pairs[a], self.pairs[b]
        if any(x != a and (row_a[x] <= low or row_b[x] >= high) for x in leaving):
            return
        if any(y != b and (row_b[y] <= low or row_a[y] >= high) for y in coming):
            return
        _swap_teams(self.table, self.pairs, first, second, leaving, coming, a, b)
        _swap_days(self.counts, {a}, {b}, d1, d2)


def _walk(table: list[set[int]], day_of: list[int], n: int, days: int, rng: random.Random, steps: int) -> None:
    """Random moves that keep every CB-5 constraint: swap two games' days, or two teams between games."""
    games = len(table)
    walk = _Walk.of(table, day_of, n, days)
    for _step in range(steps):
        first, second = rng.randrange(games), rng.randrange(games)
        leaving = table[first] - table[second]
        if not leaving:
            continue
        coming = table[second] - table[first]
        if rng.random() < 0.5:
            walk.swap_days(first, second, leaving, coming)
        else:
            walk.swap_teams(rng, first, second, leaving, coming)


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
