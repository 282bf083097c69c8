"""The game facts a process loaded last, reused while the games have not changed.

A 10,000-game league holds 150,000 seats; reading and assembling them is
most of a recompute. Every change of one game's facts (the game row, its
seats, no-show eliminations, absent teams) bumps that game's ``revision``,
and every other change of facts bumps the tournament's ``head_version``
(``scoring.changes.mark_changed``). So the loader reads the games' headers
(id, stage, revision, number, status) each time and only the games whose
header differs from the cached one, as long as the tournament's key
(id, creation time, ``head_version``) is the same.

The cache is per process, bounded (``FACTS_CACHE_TOURNAMENTS`` tournaments
of at least ``FACTS_CACHE_MIN_GAMES`` games) and never needed for
correctness: a miss reads everything.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from rulesets import facts as F

Header = tuple[Any, ...]


@dataclass
class CachedGames:
    key: tuple[Any, ...]
    games: dict[int, tuple[Header, F.Game]]


_lock = threading.Lock()
_entries: OrderedDict[int, CachedGames] = OrderedDict()


def tournament_key(tournament: Any) -> tuple[Any, ...]:
    return (tournament.pk, tournament.created_at, tournament.head_version)


def cached_games(tournament: Any) -> dict[int, tuple[Header, F.Game]]:
    """The cached games of the tournament (game id -> (header, facts)); empty when its key changed."""
    with _lock:
        entry = _entries.get(tournament.pk)
        if entry is None or entry.key != tournament_key(tournament):
            return {}
        _entries.move_to_end(tournament.pk)
        return entry.games


def remember(tournament: Any, games: dict[int, tuple[Header, F.Game]]) -> None:
    """Keep the tournament's games (the least recently used tournament goes when the cache is full)."""
    limit = getattr(settings, "FACTS_CACHE_TOURNAMENTS", 4)
    if limit <= 0 or len(games) < getattr(settings, "FACTS_CACHE_MIN_GAMES", 200):
        forget(tournament.pk)
        return
    with _lock:
        _entries[tournament.pk] = CachedGames(tournament_key(tournament), games)
        _entries.move_to_end(tournament.pk)
        while len(_entries) > limit:
            _entries.popitem(last=False)


def forget(tournament_id: int | None = None) -> None:
    """Drop one tournament's games, or everything."""
    with _lock:
        if tournament_id is None:
            _entries.clear()
        else:
            _entries.pop(tournament_id, None)
