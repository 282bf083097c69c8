"""Tour arithmetic of the ChGK Grand Prix (``spec/chgk_tour_points.md``, CHGK-12..CHGK-14, CHGK-21, CHGK-22).

Pure functions over masks and answer counts, used by ``rulesets.chgk_tour_points``:
shared places, tour points from a points table, question ratings, and the
effective masks once appeal verdicts are applied.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from fractions import Fraction
from typing import Any

from rulesets.base import average_of_places, to_fraction

DEFAULT_POINTS_BY_PLACE: list[dict[str, Any]] = [
    {"min_teams": 8, "points": [10, 8, 6, 5, 4, 3, 2, 1]},
    {"min_teams": 13, "points": [15, 12, 10, 8, 7, 6, 5, 4, 3, 2, 1]},
]

ANSWERED = "1"
REMOVED = "X"
DISPUTED = "?"


def normalise_points_tables(value: Any) -> list[tuple[int, tuple[Fraction, ...]]]:
    """The setting ``points_by_place`` as (minimum number of teams, points per place), ascending.

    Two spellings are accepted: a list of ``{"min_teams": 8, "points": [...]}``
    objects, or an object keyed by the minimum number of teams
    (``{"8": [...], "13": [...]}``). The value must have passed ``points_tables_problems``.
    """
    if isinstance(value, Mapping):
        pairs = [(int(key), points) for key, points in value.items()]
    else:
        pairs = [(int(entry["min_teams"]), entry["points"]) for entry in value]
    return sorted((minimum, tuple(to_fraction(p) for p in points)) for minimum, points in pairs)


def points_table_for(tables: Sequence[tuple[int, Sequence[Fraction]]], season_teams: int) -> tuple[Fraction, ...]:
    """The table for a season of ``season_teams`` admitted teams (CHGK-12).

    The table with the largest threshold not above the number of teams; a
    season smaller than every threshold uses the smallest one (fewer than 8
    teams: the 8..12 table).
    """
    ordered = sorted(tables)
    chosen = ordered[0][1]
    for minimum, points in ordered:
        if season_teams >= minimum:
            chosen = points
    return tuple(Fraction(p) for p in chosen)


def shared_places(correct: Mapping[str, int]) -> dict[str, tuple[int, int]]:
    """First and last place each team shares, ordered by correct answers (CHGK-13).

    Teams with equal correct answers share all their places; nothing else
    separates them inside a tour.
    """
    counts = sorted(set(correct.values()), reverse=True)
    places: dict[str, tuple[int, int]] = {}
    next_place = 1
    for count in counts:
        group = [team for team, c in correct.items() if c == count]
        first, last = next_place, next_place + len(group) - 1
        for team in group:
            places[team] = (first, last)
        next_place = last + 1
    return places


def average_place(first: int, last: int) -> Fraction:
    """The averaged place of a shared range, e.g. places 12..16 -> 14 (the rating site's convention)."""
    return Fraction(first + last, 2)


def place_label(first: int, last: int) -> str:
    """``"3"`` for a place of its own, ``"2-4"`` for shared places."""
    return str(first) if first == last else f"{first}-{last}"


def tour_points(correct: Mapping[str, int], table: Sequence[Fraction]) -> dict[str, Fraction]:
    """Points of every team of a tour (CHGK-12, CHGK-13).

    Teams with 0 correct answers (absent teams included, CHGK-10) get 0; the
    others get the exact average of the points of the places they share,
    places past the end of the table counting 0.
    """
    places = shared_places(correct)
    points: dict[str, Fraction] = {}
    for team, count in correct.items():
        if count <= 0:
            points[team] = Fraction(0)
            continue
        first, last = places[team]
        points[team] = average_of_places(table, first, last - first + 1)
    return points


def correct_answers(mask: str) -> int:
    """Questions answered in an effective mask (``?`` and ``X`` count nothing, CHGK-14, CHGK-21)."""
    return mask.count(ANSWERED)


def question_ratings(masks: Iterable[str], questions: int) -> list[int | None]:
    """Rating of each question: teams that played and did not answer it, plus one (CHGK-14).

    ``masks`` are the effective masks of the teams that played the tour; a
    removed question (``X``) has no rating.
    """
    masks = list(masks)
    ratings: list[int | None] = []
    for q in range(questions):
        if any(mask[q] == REMOVED for mask in masks):
            ratings.append(None)
            continue
        answered = sum(1 for mask in masks if mask[q] == ANSWERED)
        ratings.append(len(masks) - answered + 1)
    return ratings


def rating_sum(mask: str, ratings: Sequence[int | None]) -> int:
    """Sum of the ratings of the questions a team answered in one tour (CHGK-14)."""
    return sum(r for c, r in zip(mask, ratings) if c == ANSWERED and r is not None)


def apply_verdicts(
    masks: Mapping[str, str],
    questions: int,
    removed: Iterable[int],
    credited: Mapping[int, Iterable[str]],
    pending: Iterable[int],
) -> dict[str, str]:
    """Effective masks of a tour after the appeal verdicts (CHGK-21, CHGK-22).

    ``removed``: 1-based questions removed by an accepted appeal, shown as
    ``X`` in every mask. ``credited``: question -> teams whose answer was
    accepted (a ``0`` or ``?`` becomes ``1``). A ``?`` stays ``?`` while an
    appeal on that question is pending (``pending``), otherwise it is the ``0``
    the verdicts left it.
    """
    removed_set = {q - 1 for q in removed if 1 <= q <= questions}
    pending_set = {q - 1 for q in pending}
    out: dict[str, str] = {}
    for team, mask in masks.items():
        marks = list(mask)
        for q, mark in enumerate(marks):
            if q in removed_set or mark == REMOVED:
                marks[q] = REMOVED
            elif team in set(credited.get(q + 1, ())):
                marks[q] = ANSWERED
            elif mark == DISPUTED and q not in pending_set:
                marks[q] = "0"
        out[team] = "".join(marks)
    return out
