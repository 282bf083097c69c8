"""The rendered standings of a tournament's page, kept while nothing they show has changed.

Below its header, ``/t/SLUG/`` (the table, the chart, the stage tabs, the stages, tours and pending appeals) reads
only the tournament's row, its facts and its stored tables, never the reader: hundreds of players reloading the
table of a game evening get the same body. The header (the links a signed-in reader may follow) is rendered on
every request.

A body is kept under a key made of every value of the tournament's row (its ``facts_version`` among them, which
every change of facts bumps: ``tournaments.changes``), every stored table's version and time of computing, the
stage asked for, the language and the time zone. It is kept only while the tables it shows are current (computed
from the tournament's facts version, not stale) and until the first re-check moment of a table (an appeal window
closing changes a table's status, ``portal.table_status``). Each process keeps the last ``LOCAL_ENTRIES`` bodies
(``tournaments.lru.LRU``): a cache of derived data, never the only copy. It is not shared through Django's cache on
purpose: a body is the templates' and the code's output too, and a process started with new code starts empty,
where a shared entry would outlive a deploy; rendering it once per process costs one uncached request.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils import timezone
from django.utils.translation import get_language

from portal.table_status import LATEST
from tournaments.lru import LRU
from tournaments.models import Tournament

LOCAL_ENTRIES = 256  # rendered bodies each process keeps (about 20-40 KB each)
KEEP_SECONDS = 24 * 3600  # at most this long, re-check moments aside
# what a key reads of each stored table (``scoring.models.StandingsSnapshot``), in this order
SNAPSHOT_FIELDS = ("stage_key", "pk", "facts_version", "ruleset_version", "computed_at", "recheck_at", "stale")


@dataclass(frozen=True)
class Body:
    """A rendered body and what the header needs of the tables behind it."""

    html: str
    table_final: bool


bodies: LRU[str, Body] = LRU(LOCAL_ENTRIES)


def body_key(tournament: Tournament, stage_key: str, snapshots: Sequence[tuple],
             now: dt.datetime | None = None) -> tuple[str, float] | None:
    """The key of the body of ``tournament``'s page for ``stage_key`` and until when it may be served, given the
    tournament's stored tables (rows of ``SNAPSHOT_FIELDS``); None when the body must not be kept: a table it shows
    is missing, stale, older than the facts or past its re-check moment."""
    now = now or timezone.now()
    current = {stage for stage, _pk, version, _rules, _at, _recheck, stale in snapshots
               if not stale and version >= tournament.facts_version}
    if not {stage_key, LATEST} <= current:  # the table shown and the latest, which the header's status reads
        return None
    expires = now.timestamp() + KEEP_SECONDS
    for *_row, recheck_at, _stale in snapshots:
        if recheck_at is not None:
            if recheck_at <= now:
                return None
            expires = min(expires, recheck_at.timestamp())
    row_values = [getattr(tournament, f.attname) for f in Tournament._meta.concrete_fields]
    text = repr((row_values, sorted(snapshots), stage_key, get_language(), timezone.get_current_timezone_name()))
    return f"standings-body:{tournament.pk}:{hashlib.sha256(text.encode()).hexdigest()}", expires


def get(key: str) -> Body | None:
    return bodies.get(key)


def keep(key: str, body: Body, expires: float = math.inf) -> None:
    bodies.set(key, body, expires)


def clear() -> None:
    bodies.clear()
