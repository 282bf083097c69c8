"""The facts a process loaded last, reused while they have not changed.

A 10,000-game league holds 150,000 seats; reading and assembling them is
most of a recompute. Every change of one game's facts (the game row, its
seats, no-show eliminations, absent teams) sets that game's ``revision`` to
the tournament's new ``facts_version``, and every other change of facts bumps
the tournament's ``head_version`` (``tournaments.changes.mark_changed``). The
versions only grow, and a change takes the tournament's row lock, so changes
commit in the order of their versions: while the tournament's key (id,
creation time, ``head_version``) is the same, the games changed since a
cached read are exactly those whose revision is above the greatest revision
cached. The loader reads those and counts the tournament's games (a count
below the cached games plus the new ones means some were removed: then
everything is read again).

The rest of the facts (stages, teams and rosters, groups, tours, participants,
families, penalties, decisions, appeals, withdrawals: ``CachedContext``) change
only with ``head_version``, so they are kept under the same key; after a saved
result the loader reads none of their dozen tables. A few of them
name games by stage and number (penalties, decisions, upheld violation
appeals): the context keeps the position (stage, number) of every game as it
read them, and a game read again at another position, or gone, makes the
loader read the context again.

Facts are kept only once what they were read from is committed (``_once_committed``): a change that rolls
back leaves the versions it took to the next change, so facts read inside it, kept under those versions, would
be served as the next change's.

The caches are per process, bounded (``FACTS_CACHE_TOURNAMENTS`` tournaments
of at least ``FACTS_CACHE_MIN_GAMES`` games; ``FACTS_CACHE_CONTEXTS``
tournaments' contexts, of any size) and never needed for correctness: a miss
reads everything.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import transaction

from rulesets import facts as F
from tournaments.lru import LRU

Header = tuple[Any, ...]


@dataclass
class CachedGames:
    key: tuple[Any, ...]
    games: dict[int, tuple[Header, F.Game]]  # game id -> (header, facts), in the loader's order
    revision: int  # the greatest revision among the headers


HEADER_FIELDS = ("id", "stage_id", "revision", "number", "status")  # a game's header, as the loader reads it
HEADER_REVISION = HEADER_FIELDS.index("revision")
HEADER_NUMBER = HEADER_FIELDS.index("number")

_games: LRU[int, CachedGames] = LRU(max_entries=4)


@dataclass(frozen=True)
class CachedContext:
    """Every fact of a tournament but its games, as the loader assembles them, and the games' positions.

    ``positions``: game id -> (stage id, number) of every game when the context was read (penalties, decisions
    and upheld violation appeals name their game by its stage and number)."""

    key: tuple[Any, ...]
    stages: tuple[tuple[int, str, Any], ...]  # (id, key, seed), in order
    team_name: dict[int, str]
    team_facts: dict[int | None, tuple[F.Team, ...]]  # by stage id (None: the tournament's own teams)
    groups: dict[int, tuple[F.Group, ...]]
    tours: dict[int, tuple[F.Tour, ...]]
    players: tuple[F.Player, ...]
    families: tuple[F.Family, ...]
    penalties: tuple[F.Penalty, ...]
    decisions: tuple[F.Decision, ...]
    appeals: tuple[F.Appeal, ...]
    waived: tuple[F.WaivedViolation, ...]
    withdrawals: tuple[F.Withdrawal, ...]
    positions: dict[int, tuple[int, int]]

    def holds(self, read: Iterable[Header], games: Mapping[int, Any] | None = None) -> bool:
        """Whether every game whose header was just read (``read``, ``HEADER_FIELDS``) is where the context read
        it; ``games``: every game of the tournament by id, when ``read`` is all of them (a game of the context
        missing from them is gone)."""
        positions = self.positions
        for row in read:
            known = positions.get(row[0])
            if known is not None and known != (row[1], row[HEADER_NUMBER]):
                return False
        return games is None or all(gid in games for gid in positions)


_contexts: LRU[int, CachedContext] = LRU(max_entries=64)


KEY_FIELDS = ("pk", "created_at", "head_version")  # a tournament's key: the caches hold while it is the same


def tournament_key(tournament: Any) -> tuple[Any, ...]:
    return tuple(getattr(tournament, name) for name in KEY_FIELDS)


def _current(entries: LRU, tournament_id: int, key: tuple[Any, ...]) -> Any:
    """The tournament's entry in ``entries``, or None when there is none or its key changed."""
    entry = entries.get(tournament_id)
    return entry if entry is not None and entry.key == key else None


def cached(tournament_id: int, key: tuple[Any, ...]) -> CachedGames | None:
    """The cached games of the tournament, or None when there are none or its key (``tournament_key``) changed."""
    return _current(_games, tournament_id, key)


def _once_committed(keep: Callable[[], None]) -> None:
    """Run ``keep`` now outside a transaction, else when the transaction commits (never if it rolls back). The
    test runner's own transaction around a test (Django's ``TestCase``) never commits; it counts as none."""
    connection = transaction.get_connection()
    if not connection.in_atomic_block or all(getattr(block, "_from_testcase", False)
                                             for block in connection.atomic_blocks):
        keep()
    else:
        transaction.on_commit(keep)


def remember(tournament_id: int, key: tuple[Any, ...], games: dict[int, tuple[Header, F.Game]],
             revision: int | None = None) -> None:
    """Keep the tournament's games once they are committed (the least recently used tournament goes when the
    cache is full); ``revision``: their greatest revision, when the caller knows it."""
    _once_committed(lambda: _remember(tournament_id, key, games, revision))


def _remember(tournament_id: int, key: tuple[Any, ...], games: dict[int, tuple[Header, F.Game]],
              revision: int | None) -> None:
    _games.max_entries = getattr(settings, "FACTS_CACHE_TOURNAMENTS", 4)
    if _games.max_entries <= 0 or len(games) < getattr(settings, "FACTS_CACHE_MIN_GAMES", 200):
        _games.pop(tournament_id)
        return
    if revision is None:
        revision = max((header[HEADER_REVISION] for header, _game in games.values()), default=0)
    _games.set(tournament_id, CachedGames(key, games, revision))


def cached_context(tournament_id: int, key: tuple[Any, ...]) -> CachedContext | None:
    """The cached context of the tournament, or None when there is none or its key changed."""
    return _current(_contexts, tournament_id, key)


def remember_context(tournament_id: int, context: CachedContext) -> None:
    """Keep the tournament's context once it is committed (the least recently used goes when
    ``FACTS_CACHE_CONTEXTS`` are kept)."""
    _once_committed(lambda: _remember_context(tournament_id, context))


def _remember_context(tournament_id: int, context: CachedContext) -> None:
    _contexts.max_entries = getattr(settings, "FACTS_CACHE_CONTEXTS", 64)
    if _contexts.max_entries <= 0:
        _contexts.pop(tournament_id)
        return
    _contexts.set(tournament_id, context)


def forget(tournament_id: int | None = None) -> None:
    """Drop one tournament's games and context, or everything."""
    if tournament_id is None:
        _games.clear()
        _contexts.clear()
    else:
        _games.pop(tournament_id)
        _contexts.pop(tournament_id)
