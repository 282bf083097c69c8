"""The game facts a process loaded last, reused while the games have not changed.

A 10,000-game league holds 150,000 seats; reading and assembling them is
most of a recompute. Every change of one game's facts (the game row, its
seats, no-show eliminations, absent teams) bumps that game's ``revision``,
and every other change of facts bumps the tournament's ``head_version``
(``tournaments.changes.mark_changed``). So the loader reads the games' headers
(id, stage, revision, number, status) each time and only the games whose
header differs from the cached one, as long as the tournament's key
(id, creation time, ``head_version``) is the same.

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
    games: dict[int, tuple[Header, F.Game]]


_games: LRU[int, CachedGames] = LRU(max_entries=4)


def tournament_key(tournament: Any) -> tuple[Any, ...]:
    return (tournament.pk, tournament.created_at, tournament.head_version)


def cached_games(tournament: Any) -> dict[int, tuple[Header, F.Game]]:
    """The cached games of the tournament (game id -> (header, facts)); empty when its key changed."""
    entry = _games.get(tournament.pk)
    if entry is None or entry.key != tournament_key(tournament):
        return {}
    return entry.games


def remember(tournament: Any, games: dict[int, tuple[Header, F.Game]]) -> None:
    """Keep the tournament's games (the least recently used tournament goes when the cache is full)."""
    _games.max_entries = getattr(settings, "FACTS_CACHE_TOURNAMENTS", 4)
    if _games.max_entries <= 0 or len(games) < getattr(settings, "FACTS_CACHE_MIN_GAMES", 200):
        _games.pop(tournament.pk)
        return
    _games.set(tournament.pk, CachedGames(tournament_key(tournament), games))


def forget(tournament_id: int | None = None) -> None:
    """Drop one tournament's games, or everything."""
    if tournament_id is None:
        _games.clear()
    else:
        _games.pop(tournament_id)
