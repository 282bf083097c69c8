"""Per-game and per-tour figures, stored in the database by the recompute that stores the standings.

A seat's points (Mafia ``seat_points``) and a tour's matrix (ChGK ``tour_table``) are computed from the facts
the recompute has just loaded and stored as ``PageFigures`` rows in the same transaction as the snapshots
(design.md principle 3): whichever process computed them, every process reads them. A stage's games are kept
``BLOCK`` to a row, so a page reads one small row and a 10,000-game stage stores 100; a recompute rewrites only
the rows whose figures changed (their digest) and stamps the others with the new facts version in one update.

A block of seat points is encoded to JSON once: its digest is that text's, and the text is what is
written (``bulk.JsonText``; new rows in a few ``COPY``s on PostgreSQL). A seat's rounded points and its reason's
JSON form are made once per object (``_SeatFigures``: a league's 200,000 seats share the points table's values and
a few hundred reasons). This process keeps, per block, only the ruleset's per-game objects it came from and its
digest, not its figures. (A seat block's digest has been its text's only since blocks are encoded once: a table
stored before is rewritten once, by its next recompute.)
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict, defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import chain
from typing import Any

from django.db.models import Q

import rulesets
from rulesets.base import RulesetError, round2
from rulesets.facts import TournamentFacts
from rulesets.messages import as_data
from scoring.models import PageFigures
from tournaments import bulk
from tournaments.models import Tournament
from tournaments.serialize import jsonable

BLOCK = 100  # games per stored row
SEATS = "seats"
TOUR = "tour"

Key = tuple[str, str, int]  # kind, stage key, block
NEW_FIELDS = ("tournament_id", "kind", "stage_key", "block", "facts_version", "digest", "data")
NEW_ROWS_A_WRITE = 25  # new rows written together: a 10,000-game league's 100 blocks in 4 writes


@dataclass
class _Block:
    """What this process derived last from one block of games: the ruleset's per-game objects it came from, and
    the digest of the figures it derived from them (the figures themselves are not kept)."""

    games: tuple[tuple[int, Any], ...]
    digest: str


class _Derived:
    """Blocks this process derived, per tournament: a speed-up only (``store_figures`` compares the stored
    digest too, so a block another process wrote differently is derived again)."""

    kept: OrderedDict[int, dict[tuple[str, int], _Block]] = OrderedDict()
    lock = threading.Lock()
    TOURNAMENTS = 4

    @classmethod
    def of(cls, tournament_id: int) -> dict[tuple[str, int], _Block]:
        with cls.lock:
            blocks = cls.kept.pop(tournament_id, {})
            cls.kept[tournament_id] = blocks
            while len(cls.kept) > cls.TOURNAMENTS:
                cls.kept.popitem(last=False)
            return blocks


def _games_by_number(ruleset: Any, facts: TournamentFacts, stage: Any) -> dict[int, Any]:
    """number -> the ruleset's ((nick, points, reason), ...) of each game of the stage (none: an empty tuple)."""
    try:
        if ruleset.game_points is not None:
            by_game = dict(ruleset.game_points(facts, stage.key))
        else:
            grouped: dict[int, list] = defaultdict(list)
            for (number, nick), (points, reason) in ruleset.seat_points(facts, stage.key).items():
                grouped[number].append((nick, points, reason))
            by_game = {number: tuple(entries) for number, entries in grouped.items()}
    except RulesetError:
        by_game = {}
    for game in stage.games:
        by_game.setdefault(game.number, ())
    return by_game


def _seat_blocks(tournament_id: int, ruleset: Any, facts: TournamentFacts, stored: dict[Key, str]
                 ) -> Iterator[tuple[Key, str, str | None]]:
    """(key, digest, JSON text of its figures) of each (seats, stage, block), as they are derived; the text None
    for a block derived from the same games as the stored row (nothing to write)."""
    derived = _Derived.of(tournament_id)
    fresh: dict[tuple[str, int], _Block] = {}
    seat = _SeatFigures()
    for stage in facts.stages:
        blocks: dict[int, list[tuple[int, Any]]] = defaultdict(list)
        for number, entries in sorted(_games_by_number(ruleset, facts, stage).items()):
            blocks[number // BLOCK].append((number, entries))
        for block, games in blocks.items():
            key = (SEATS, stage.key, block)
            last = derived.get((stage.key, block))
            if last is not None and stored.get(key) == last.digest and len(last.games) == len(games) and all(
                    a[0] == b[0] and a[1] is b[1] for a, b in zip(last.games, games)):
                fresh[(stage.key, block)] = last
                yield key, last.digest, None
                continue
            text = "{" + ", ".join(f'"{number}": [{", ".join([seat(*entry) for entry in entries])}]'
                                   for number, entries in games) + "}"
            item = fresh[(stage.key, block)] = _Block(tuple(games), _text_digest(text))
            yield key, item.digest, None if stored.get(key) == item.digest else text
    derived.clear()
    derived.update(fresh)


class _SeatFigures:
    """The JSON text of a seat's ``[nick, rounded points, reason as data]``, as ``json.dumps`` writes it, from the
    texts of its parts, each made once: per nick, and per points and reason object (the same points and the same
    reason objects recur across a league's seats). A block's text is these joined as ``json.dumps`` joins them
    (``_seat_blocks``): the same text, so the same digest, without encoding a league's 200,000 seats one by one."""

    def __init__(self) -> None:
        # by id, the object kept alive with its text: a seat's points are mostly the points table's own
        # Fractions, and hashing a Fraction costs more than rounding it
        self.points: dict[int, tuple[Any, str]] = {}
        self.reasons: dict[int, tuple[Any, str]] = {}
        self.nicks: dict[str, str] = {}

    def __call__(self, nick: str, points: Any, reason: Any) -> str:
        rounded = self.points.get(id(points))
        if rounded is None or rounded[0] is not points:
            rounded = self.points[id(points)] = (points, json.dumps(round2(points)))
        known = self.reasons.get(id(reason))
        if known is None or known[0] is not reason:
            known = self.reasons[id(reason)] = (reason, json.dumps(as_data(reason)))
        name = self.nicks.get(nick)
        if name is None:
            name = self.nicks[nick] = json.dumps(nick)
        return f"[{name}, {rounded[1]}, {known[1]}]"


def compute_figures(facts: TournamentFacts) -> dict[Key, Any]:
    """Every game's seat points (``{number: [[nick, points, reason], ...]}`` per block) and every tour's table."""
    ruleset = rulesets.get(facts.ruleset)
    payload: dict[Key, Any] = {}
    if ruleset.seat_points is not None:
        for stage in facts.stages:
            for number, entries in _games_by_number(ruleset, facts, stage).items():
                payload.setdefault((SEATS, stage.key, number // BLOCK), {})[str(number)] = [
                    [nick, round2(points), as_data(reason)] for nick, points, reason in entries]
    payload.update(_tour_tables(ruleset, facts))
    return payload


def _tour_tables(ruleset: Any, facts: TournamentFacts) -> dict[Key, Any]:
    out: dict[Key, Any] = {}
    if ruleset.tour_table is not None:
        for stage in facts.stages:
            for tour in stage.tours:
                try:
                    out[(TOUR, "", tour.number)] = jsonable(ruleset.tour_table(facts, tour.number))
                except RulesetError:
                    continue
    return out


def _digest(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)
    return _text_digest(text)


def _text_digest(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


def store_figures(tournament: Tournament, facts: TournamentFacts) -> int:
    """Store the figures of ``facts`` (loaded at ``tournament.facts_version``); returns the rows written.

    Run inside the recompute's transaction, after the snapshots. Unchanged rows only take the new version: a
    block of games is derived again only when the ruleset judged one of its games anew (``game_points``)."""
    version = tournament.facts_version
    rows = list(PageFigures.objects.filter(tournament=tournament).values_list(
        "pk", "kind", "stage_key", "block", "digest", "facts_version"))
    if any(row[5] > version for row in rows):  # a recompute of newer facts has stored its figures already
        return 0
    stored = {(kind, stage_key, block): (pk, digest) for pk, kind, stage_key, block, digest, _v in rows}
    ruleset = rulesets.get(facts.ruleset)
    figures: Iterable[tuple[Key, str, str | None]] = ()  # (key, digest, JSON text; None: as stored)
    if ruleset.seat_points is not None:
        figures = _seat_blocks(tournament.pk, ruleset, facts, {k: v[1] for k, v in stored.items()})
    tours = ((key, _digest(value), json.dumps(value)) for key, value in _tour_tables(ruleset, facts).items())
    seen: set[Key] = set()
    new: list[tuple] = []
    changed: list[PageFigures] = []
    written = 0
    for key, digest, text in chain(figures, tours):
        seen.add(key)
        known = stored.get(key)
        if known is None:
            new.append((tournament.pk, key[0], key[1], key[2], version, digest, bulk.JsonText(text)))
            if len(new) == NEW_ROWS_A_WRITE:  # the texts of a league's blocks are not all held at once
                written += _insert(new)
                new = []
        elif known[1] != digest:
            changed.append(PageFigures(pk=known[0], facts_version=version, digest=digest, data=json.loads(text)))
    written += _insert(new)
    gone = [pk for key, (pk, _digest_) in stored.items() if key not in seen]  # no new row has a gone one's key
    if gone:
        PageFigures.objects.filter(pk__in=gone).delete()
    if changed:
        PageFigures.objects.bulk_update(changed, ["facts_version", "digest", "data"], batch_size=100)
    PageFigures.objects.filter(tournament=tournament).exclude(facts_version=version).update(facts_version=version)
    return written + len(changed)


def _insert(rows: list[tuple]) -> int:
    """New rows of ``NEW_FIELDS``: one COPY on PostgreSQL (``bulk_create`` sent the JSON texts as arrays that
    psycopg escaped character by character, 10 s of a 10,000-game league's import)."""
    bulk.insert(PageFigures, NEW_FIELDS, rows)
    return len(rows)


def stored_seat_points(tournament: Tournament, wanted: dict[str, list[int]]) -> dict[str, dict[int, list]]:
    """stage -> game number -> [[nick, points, reason]] as stored, in one query; a game not stored has none."""
    blocks = Q()
    for stage_key, numbers in wanted.items():
        blocks |= Q(stage_key=stage_key, block__in={number // BLOCK for number in numbers})
    found = {(stage_key, block): data for stage_key, block, data in PageFigures.objects.filter(
        blocks, tournament=tournament, kind=SEATS).values_list("stage_key", "block", "data")}
    out: dict[str, dict[int, list]] = {}
    for stage_key, numbers in wanted.items():
        for number in numbers:
            games = found.get((stage_key, number // BLOCK))
            if games is not None and str(number) in games:
                out.setdefault(stage_key, {})[number] = games[str(number)]
    return out


def stored_tour_table(tournament: Tournament, number: int) -> dict[str, Any] | None:
    """The stored table of tour ``number`` (None when the recompute stored none: the tour is not played)."""
    return PageFigures.objects.filter(tournament=tournament, kind=TOUR, stage_key="", block=number).values_list(
        "data", flat=True).first()
