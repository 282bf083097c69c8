"""Ruleset chgk_tour_points against two real tournaments (tests/data/real/SOURCE.md).

The official results give whole-tournament places as averaged shared places
("14" for five teams tied at 12..16). Our shared-place computation must
reproduce them from the masks; split into tours of 12 questions, every tour's
places and points must follow CHGK-12/CHGK-13, and the official accepted and
rejected disputed answers of 13097 replayed as appeals must give back the
official masks (CHGK-22).
"""

from __future__ import annotations

import datetime as dt
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rulesets import chgk_tour_points as chgk
from rulesets.chgk_tour_points.tours import average_place, points_table_for, shared_places
from rulesets.interchange import export_standings, parse_document

REAL = Path(__file__).resolve().parent.parent / "data" / "real"
LATE = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
PER_TOUR = 12


def tournament_3506() -> tuple[dict[str, str], dict[str, Fraction]]:
    """Masks and official (averaged) positions of the 2015 Perm championship, 4 tours x 12."""
    rows = json.loads((REAL / "chgkrating_3506_teams_at_tournament.json").read_text())
    return ({r["current_name"]: r["mask"] for r in rows},
            {r["current_name"]: Fraction(r["position"]) for r in rows})


def tournament_13097() -> tuple[dict[str, str], dict[str, Fraction], list[dict[str, Any]]]:
    """Masks, official positions and disputed answers of Tolstolobik-2 (2026), 3 tours x 12."""
    rows = json.loads((REAL / "questionshub_rating_results_13097.json").read_text())
    masks = {r["team"]["name"]: r["mask"] for r in rows}
    positions = {r["team"]["name"]: Fraction(str(r["position"])) for r in rows}
    disputes = [{"team": r["team"]["name"], "question": c["questionNumber"], "status": c["status"],
                 "answer": c["answer"]} for r in rows for c in r["controversials"]]
    return masks, positions, disputes


def season_from_masks(masks: dict[str, str], played_on: dt.date, appeals: list[dict] | None = None) -> dict[str, Any]:
    """A season document of the real teams, the masks cut into tours of 12 questions (no host)."""
    length = len(next(iter(masks.values())))
    tours = [{"number": k + 1, "played_on": played_on.isoformat(), "questions": PER_TOUR,
              "masks": {team: mask[k * PER_TOUR:(k + 1) * PER_TOUR] for team, mask in masks.items()}}
             for k in range(length // PER_TOUR)]
    return {
        "format": "tournament-portal/1",
        "tournament": {"slug": "real", "name": "real", "ruleset": "chgk_tour_points",
                       "starts_on": played_on.isoformat(), "settings": {"questions_per_tour": PER_TOUR}},
        "teams": [{"name": team, "players": [f"{team} {i}" for i in range(1, 5)]} for team in masks],
        "stages": [{"key": "season", "tours": tours}],
        "appeals": appeals or [],
    }


def averaged_rank(counts: dict[str, int], team: str) -> Fraction:
    """The rating site's convention, computed independently: 1 + better teams + (equal teams - 1) / 2."""
    better = sum(1 for c in counts.values() if c > counts[team])
    equal = sum(1 for c in counts.values() if c == counts[team])
    return Fraction(2 * better + equal + 1, 2)


def label_average(label: str) -> Fraction:
    first, _, last = label.partition("-")
    return average_place(int(first), int(last or first))


CASES = {
    "3506": lambda: (*tournament_3506()[:2], dt.date(2015, 11, 8), 4),
    "13097": lambda: (*tournament_13097()[:2], dt.date(2026, 5, 24), 3),
}


def test_real_data_is_what_source_md_describes():
    masks, positions = tournament_3506()
    assert len(masks) == 36 and {len(m) for m in masks.values()} == {48}
    masks, positions, _ = tournament_13097()
    assert len(masks) == 17 and {len(m) for m in masks.values()} == {36}


@pytest.mark.parametrize("key", sorted(CASES))
def test_chgk_13_shared_places_reproduce_the_official_positions(key):
    masks, positions, _day, _tours = CASES[key]()
    totals = {team: mask.count("1") for team, mask in masks.items()}
    places = shared_places(totals)
    shoot_out = {team for team, p in positions.items() if p in (1, 2)} if key == "3506" else set()
    for team, (first, last) in places.items():
        if team in shoot_out:
            assert (first, last) == (1, 2)  # 38 answers each; the official 1 and 2 came from a shoot-out
            continue
        assert average_place(first, last) == positions[team], team
    assert len(shoot_out) == (2 if key == "3506" else 0)


@pytest.mark.parametrize("key", sorted(CASES))
def test_chgk_13_whole_tournament_as_one_tour_gives_the_official_positions(key):
    masks, positions, day, tours = CASES[key]()
    doc = season_from_masks(masks, day)
    length = tours * PER_TOUR
    doc["tournament"]["settings"]["questions_per_tour"] = length
    doc["stages"][0]["tours"] = [{"number": 1, "played_on": day.isoformat(), "questions": length, "masks": masks}]
    table = chgk.tour_table(parse_document(doc), 1)
    mismatched = {team for team in masks if label_average(table["places"][team]) != positions[team]}
    assert mismatched == ({t for t, p in positions.items() if p in (1, 2)} if key == "3506" else set())


@pytest.mark.parametrize("key", sorted(CASES))
def test_chgk_12_every_real_tour_gives_places_and_points_by_the_rules(key):
    masks, _positions, day, tours = CASES[key]()
    facts = parse_document(season_from_masks(masks, day))
    table = points_table_for([(8, [10, 8, 6, 5, 4, 3, 2, 1]), (13, [15, 12, 10, 8, 7, 6, 5, 4, 3, 2, 1])],
                             len(masks))
    assert table[0] == 15  # 36 and 17 teams: the 13+ table
    for number in range(1, tours + 1):
        tour = chgk.tour_table(facts, number)
        counts = {team: mask[(number - 1) * PER_TOUR:number * PER_TOUR].count("1") for team, mask in masks.items()}
        assert tour["correct"] == counts
        for team in masks:
            assert label_average(tour["places"][team]) == averaged_rank(counts, team)
        scoring = sorted((c for c in counts.values() if c > 0), reverse=True)
        occupied = sum((table[p] for p in range(min(len(scoring), len(table)))), Fraction(0))
        assert sum(tour["points"].values(), Fraction(0)) == occupied
        assert all(tour["points"][t] == 0 for t, c in counts.items() if c == 0)


@pytest.mark.parametrize("key", sorted(CASES))
def test_chgk_15_real_season_table_adds_up(key):
    masks, _positions, day, tours = CASES[key]()
    facts = parse_document(season_from_masks(masks, day))
    standings = chgk.compute(facts, None, LATE)
    export = export_standings(facts, standings)
    assert export["final"] is False  # N = number of teams tours were planned; only a few were played
    per_tour = [chgk.tour_table(facts, n)["points"] for n in range(1, tours + 1)]
    for row in standings.teams:
        assert row.points == sum(points[row.team] for points in per_tour)
        assert row.tiebreaks["correct_answers"] == masks[row.team].count("1")
    keys = [(-r.points, -r.tiebreaks["correct_answers"], -r.tiebreaks["rating_sum"]) for r in standings.teams]
    assert keys == sorted(keys)
    assert sum(r.points for r in standings.teams) == sum(sum(p.values(), Fraction(0)) for p in per_tour)


def test_chgk_22_official_disputed_answers_replayed_as_appeals_give_the_official_masks():
    masks, _positions, disputes = tournament_13097()
    day = dt.date(2026, 5, 24)
    disputed = {team: list(mask) for team, mask in masks.items()}
    appeals = []
    for dispute in disputes:
        disputed[dispute["team"]][dispute["question"] - 1] = "?"
        tour, question = divmod(dispute["question"] - 1, PER_TOUR)
        appeal = {"stage": "season", "tour": tour + 1, "question": question + 1, "team": dispute["team"],
                  "kind": "accept_answer", "answer": dispute["answer"], "filed_at": "2026-05-27T10:32:01+03:00",
                  "verdict": "accepted" if dispute["status"] == "A" else "rejected"}
        if dispute["status"] == "A":
            appeal["credited_teams"] = [dispute["team"]]
        appeals.append(appeal)
    facts = parse_document(season_from_masks({t: "".join(m) for t, m in disputed.items()}, day, appeals))
    assert any(a.verdict == "rejected" for a in facts.appeals) and any(a.verdict == "accepted" for a in facts.appeals)
    effective = {team: "".join(chgk.tour_table(facts, n)["masks"][team] for n in (1, 2, 3)) for team in masks}
    assert effective == masks
