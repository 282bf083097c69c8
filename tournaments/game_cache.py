"""The game facts a process loaded last, reused while the games have not changed.

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

The cache is per process, bounded (``FACTS_CACHE_TOURNAMENTS`` tournaments
of at least ``FACTS_CACHE_MIN_GAMES`` games) and never needed for
correctness: a miss reads everything.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.conf import settings

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

_games: LRU[int, CachedGames] = LRU(max_entries=4)


def tournament_key(tournament: Any) -> tuple[Any, ...]:
    return (tournament.pk, tournament.created_at, tournament.head_version)


def cached(tournament: Any) -> CachedGames | None:
    """The cached games of the tournament, or None when there are none or its key changed."""
    entry = _games.get(tournament.pk)
    if entry is None or entry.key != tournament_key(tournament):
        return None
    return entry


def remember(tournament: Any, games: dict[int, tuple[Header, F.Game]], revision: int | None = None) -> None:
    """Keep the tournament's games (the least recently used tournament goes when the cache is full);
    ``revision``: their greatest revision, when the caller knows it."""
    _games.max_entries = getattr(settings, "FACTS_CACHE_TOURNAMENTS", 4)
    if _games.max_entries <= 0 or len(games) < getattr(settings, "FACTS_CACHE_MIN_GAMES", 200):
        _games.pop(tournament.pk)
        return
    if revision is None:
        revision = max((header[HEADER_REVISION] for header, _game in games.values()), default=0)
    _games.set(tournament.pk, CachedGames(tournament_key(tournament), games, revision))


def forget(tournament_id: int | None = None) -> None:
    """Drop one tournament's games, or everything."""
    if tournament_id is None:
        _games.clear()
    else:
        _games.pop(tournament_id)
