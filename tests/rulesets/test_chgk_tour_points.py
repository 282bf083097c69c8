"""Ruleset chgk_tour_points: the acceptance example and one test per rule of spec/chgk_tour_points.md.

Documents are built in Python with the small builder below (``season_doc``);
the setup checks, the hypothesis properties and the real-data checks live in
the sibling ``test_chgk_tour_points_*.py`` files.
"""

from __future__ import annotations

import copy
import datetime as dt
import json
import zoneinfo
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from rulesets import chgk_tour_points as chgk
from rulesets.base import RulesetError
from rulesets.facts import Appeal
from rulesets.interchange import export_standings, parse_document

DATA = Path(__file__).resolve().parent.parent / "data"
MSK = zoneinfo.ZoneInfo("Europe/Moscow")
LATE = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
NAMES = ["Alpha", "Bravo", "Charlie", "Delta", "Echo", "Foxtrot", "Golf", "Hotel", "India", "Juliet", "Kilo",
         "Lima", "Mike", "November", "Oscar", "Papa"]
START = dt.date(2013, 2, 7)


# ---------------------------------------------------------------- builder

def team_doc(name: str, **extra: Any) -> dict[str, Any]:
    players = [f"{name} captain"] + [f"{name} {i}" for i in range(2, 6)]
    return {"name": name, "captain": players[0], "players": players, **extra}


def tour_doc(number: int, host: str | None, masks: dict[str, str] | None = None, *,
             played_on: dt.date | None = None, absent: list[str] | None = None,
             questions: int = 8) -> dict[str, Any]:
    """Tour ``number``, played a week after the previous one unless ``played_on`` is given."""
    day = played_on or START + dt.timedelta(days=7 * number)
    out: dict[str, Any] = {"number": number, "played_on": day.isoformat(), "questions": questions}
    if host is not None:
        out["host"] = host
    if masks is not None:
        out["masks"] = masks
    if absent is not None:
        out["absent"] = absent
    return out


def season_doc(teams: int | list[str], tours: list[dict[str, Any]], *, appeals: list[dict] | None = None,
               withdrawals: list[dict] | None = None, settings: dict | None = None,
               timezone: str = "Europe/Moscow") -> dict[str, Any]:
    names = NAMES[:teams] if isinstance(teams, int) else teams
    tournament: dict[str, Any] = {"slug": "gp-test", "name": "GP test", "ruleset": "chgk_tour_points",
                                  "timezone": timezone, "starts_on": START.isoformat()}
    if settings is not None:
        tournament["settings"] = settings
    doc: dict[str, Any] = {"format": "tournament-portal/1", "tournament": tournament,
                           "teams": [team_doc(n) for n in names],
                           "stages": [{"key": "season", "tours": tours}]}
    if appeals:
        doc["appeals"] = appeals
    if withdrawals:
        doc["withdrawals"] = withdrawals
    return doc


def appeal_doc(tour: int, question: int, team: str, kind: str = "accept_answer", *, verdict: str | None = "accepted",
               credited: list[str] | None = None, filed_at: str | None = None) -> dict[str, Any]:
    day = START + dt.timedelta(days=7 * tour + 1)
    out: dict[str, Any] = {"stage": "season", "tour": tour, "question": question, "team": team, "kind": kind,
                           "filed_at": filed_at or f"{day.isoformat()}T12:00:00+04:00"}
    if verdict is not None:
        out["verdict"] = verdict
    if credited is not None:
        out["credited_teams"] = credited
    elif kind == "accept_answer" and verdict == "accepted":
        out["credited_teams"] = [team]
    return out


def load(doc: dict[str, Any]) -> Any:
    return parse_document(copy.deepcopy(doc))


def export(doc: dict[str, Any], now: dt.datetime = LATE) -> dict[str, Any]:
    facts = load(doc)
    return export_standings(facts, chgk.compute(facts, None, now))


def rows(doc: dict[str, Any], now: dt.datetime = LATE) -> dict[str, dict[str, Any]]:
    return {row["team"]: row for row in export(doc, now)["teams"]}


def problems(doc: dict[str, Any]) -> list[str]:
    with pytest.raises(RulesetError) as error:
        parse_document(copy.deepcopy(doc))
    return [str(p) for p in error.value.problems]


def masks_of(counts: dict[str, int], questions: int = 8) -> dict[str, str]:
    """Masks answering the first ``count`` questions."""
    return {team: "1" * c + "0" * (questions - c) for team, c in counts.items()}


def points_of(doc: dict[str, Any], number: int) -> dict[str, Fraction]:
    return chgk.tour_table(load(doc), number)["points"]


# ---------------------------------------------------------------- acceptance

def test_example_document_exports_exactly_the_expected_standings():
    document = json.loads((DATA / "examples" / "chgk_tour_points.json").read_text())
    expected = json.loads((DATA / "examples" / "chgk_tour_points.expected.json").read_text())
    facts = parse_document(document)
    assert export_standings(facts, chgk.compute(facts, None, LATE)) == expected
    assert export_standings(facts, chgk.compute(facts, "season", LATE)) == expected


def test_example_is_preliminary_because_six_tours_remain_chgk_16():
    facts = parse_document(json.loads((DATA / "examples" / "chgk_tour_points.json").read_text()))
    standings = chgk.compute(facts, None, LATE)
    assert standings.final is False
    assert standings.details["planned_tours"] == 8
    assert standings.details["rounds"] == ["Tour 1", "Tour 2"]
    vega = next(r for r in standings.teams if r.team == "Vega")
    assert vega.details["points_by_round"] == [5.5, 10.0]
    assert vega.separated_by is None
    assert next(r for r in standings.teams if r.team == "Lynx").details["role_by_round"] == ["host", "played"]


def test_protocol_names():
    assert chgk.KEY == "chgk_tour_points"
    assert chgk.STAGE_KEYS == ("season",)
    assert json.loads(json.dumps(chgk.DEFAULT_SETTINGS)) == chgk.DEFAULT_SETTINGS
    assert chgk.validate_settings(chgk.DEFAULT_SETTINGS) == []


def test_unknown_stage_key_is_refused():
    facts = load(season_doc(8, []))
    with pytest.raises(RulesetError):
        chgk.compute(facts, "final", LATE)


def test_empty_season_lists_every_team_with_zero_points():
    out = export(season_doc(8, []))
    assert [r["rank"] for r in out["teams"]] == [1] * 8
    assert [r["team"] for r in out["teams"]] == sorted(NAMES[:8])
    assert out["final"] is False


# ---------------------------------------------------------------- CHGK-7 hosting

def test_chgk_7_a_team_hosting_two_tours_is_refused():
    doc = season_doc(8, [tour_doc(1, "Alpha"), tour_doc(2, "Alpha")])
    assert any("already hosts tour 1" in p and "CHGK-7" in p for p in problems(doc))


def test_chgk_7_the_host_does_not_play_its_tour():
    doc = season_doc(8, [tour_doc(1, "Alpha", {"Bravo": "10000000"}, absent=["Alpha"])])
    assert any(p.startswith("stages[0].tours[0].absent[0]") and "CHGK-7" in p for p in problems(doc))
    doc = season_doc(8, [tour_doc(1, "Alpha", {"Alpha": "10000000"})])
    assert any("the host has no mask (CHGK-7)" in p for p in problems(doc))


def test_chgk_7_more_tours_than_admitted_teams_is_refused():
    doc = season_doc(2, [tour_doc(1, "Alpha"), tour_doc(2, "Bravo"), tour_doc(3, None)])
    assert any("3 tours for 2 admitted teams" in p for p in problems(doc))


def test_chgk_7_the_table_marks_the_hosted_tour():
    doc = season_doc(8, [tour_doc(1, "Alpha", masks_of({n: 1 for n in NAMES[1:8]}))])
    standings = chgk.compute(load(doc), None, LATE)
    alpha = next(r for r in standings.teams if r.team == "Alpha")
    assert alpha.details["hosted_tour"] == 1
    assert alpha.details["role_by_round"] == ["host"]
    assert alpha.details["place_by_round"] == [None]


# ---------------------------------------------------------------- CHGK-8 questions per tour

def test_chgk_8_a_tour_played_with_another_question_count_is_taken_as_recorded():
    doc = season_doc(8, [tour_doc(1, "Alpha", {"Bravo": "1000000"}, questions=7)])
    assert rows(doc)["Bravo"]["tiebreaks"]["correct_answers"] == 1
    doc = season_doc(8, [tour_doc(1, "Alpha", {"Bravo": "1" * 12}, questions=12)],
                     settings={"questions_per_tour": 12})
    assert rows(doc)["Bravo"]["points"] == 10.0


def test_chgk_8_settings_are_validated():
    assert chgk.validate_settings({"questions_per_tour": 0})
    assert chgk.validate_settings({"questions_per_tour": True})
    assert chgk.validate_settings({"question_per_tour": 8})[0].path == "question_per_tour"
    doc = season_doc(8, [], settings={"bonus": 1})
    assert any(p.startswith("tournament.settings.bonus") for p in problems(doc))


def test_chgk_12_points_tables_setting_is_validated():
    assert chgk.validate_settings({"points_by_place": []})
    assert chgk.validate_settings({"points_by_place": [{"min_teams": 8}]})
    assert chgk.validate_settings({"points_by_place": [{"min_teams": 8, "points": [1, 2]}]})
    assert chgk.validate_settings({"points_by_place": [{"min_teams": 8, "points": [-1]}]})
    assert chgk.validate_settings({"points_by_place": {"eight": [3, 2, 1]}})
    assert chgk.validate_settings({"points_by_place": [{"min_teams": 8, "points": [2]},
                                                       {"min_teams": 8, "points": [3]}]})
    assert chgk.validate_settings({"points_by_place": {"8": [3, 2, 1], "13": ["4.5", 2]}}) == []


# ---------------------------------------------------------------- CHGK-10 absent teams

def test_chgk_10_an_absent_team_counts_zero_answers_and_did_not_play():
    masks = {"Bravo": "11000000", "Charlie": "10000000"}
    doc = season_doc(8, [tour_doc(1, "Alpha", masks, absent=["Delta"])])
    table = chgk.tour_table(load(doc), 1)
    assert table["correct"]["Delta"] == 0
    assert table["points"]["Delta"] == 0
    # question 1: 2 played teams answered it (absent teams are not counted): rating 0 + 1
    assert table["ratings"][0] == 1
    assert table["ratings"][1] == 2
    assert table["masks"].keys() == {"Bravo", "Charlie"}


def test_chgk_10_a_team_missing_from_the_results_counts_as_absent():
    masks = {n: "10000000" for n in NAMES[1:7]}  # Hotel has no mask and is not listed
    doc = season_doc(8, [tour_doc(1, "Alpha", masks)])
    table = chgk.tour_table(load(doc), 1)
    assert "Hotel" in table["absent"]
    assert table["places"]["Hotel"] == "7"
    assert table["ratings"][1] == 7  # 6 teams played, none answered


# ---------------------------------------------------------------- CHGK-12 points by place

def test_chgk_12_eight_to_twelve_teams_use_the_ten_point_table():
    counts = dict(zip(NAMES[1:12], range(11, 0, -1)))  # 11 playing teams, all different
    doc = season_doc(12, [tour_doc(1, "Alpha", masks_of(counts, 12), questions=12)],
                     settings={"questions_per_tour": 12})
    points = points_of(doc, 1)
    assert [points[n] for n in NAMES[1:12]] == [10, 8, 6, 5, 4, 3, 2, 1, 0, 0, 0]


def test_chgk_12_thirteen_or_more_teams_use_the_fifteen_point_table():
    counts = dict(zip(NAMES[1:13], range(12, 0, -1)))
    doc = season_doc(13, [tour_doc(1, "Alpha", masks_of(counts, 12), questions=12)],
                     settings={"questions_per_tour": 12})
    points = points_of(doc, 1)
    assert [points[n] for n in NAMES[1:13]] == [15, 12, 10, 8, 7, 6, 5, 4, 3, 2, 1, 0]


def test_chgk_12_fewer_than_eight_teams_use_the_eight_to_twelve_table():
    counts = dict(zip(NAMES[1:5], [4, 3, 2, 1]))
    doc = season_doc(5, [tour_doc(1, "Alpha", masks_of(counts))])
    assert [points_of(doc, 1)[n] for n in NAMES[1:5]] == [10, 8, 6, 5]


def test_chgk_12_places_past_the_table_count_zero_in_a_shared_average():
    # 8..12 table: places 8 and 9 shared -> (1 + 0) / 2
    counts = dict(zip(NAMES[1:10], [8, 7, 6, 5, 4, 3, 2, 1, 1]))
    doc = season_doc(10, [tour_doc(1, "Alpha", masks_of(counts))])
    points = points_of(doc, 1)
    assert points["India"] == points["Juliet"] == Fraction(1, 2)


def test_chgk_12_zero_correct_answers_give_zero_points():
    counts = {"Bravo": 1, "Charlie": 0, "Delta": 0}
    doc = season_doc(8, [tour_doc(1, "Alpha", masks_of(counts))])
    points = points_of(doc, 1)
    assert points == {"Bravo": 10, "Charlie": 0, "Delta": 0, **{n: 0 for n in NAMES[4:8]}}


def test_chgk_12_the_table_does_not_change_when_a_team_withdraws():
    counts = dict(zip(NAMES[1:13], range(8, 0, -1)))
    doc = season_doc(13, [tour_doc(1, "Alpha", masks_of(counts))],
                     withdrawals=[{"team": "Mike", "at": "2013-02-15T10:00:00+04:00"}])
    points = points_of(doc, 1)
    assert points["Bravo"] == 15 and points["Charlie"] == 12


def test_chgk_12_custom_points_tables_in_both_spellings():
    counts = {"Bravo": 2, "Charlie": 1}
    for setting in ({"5": [3, 1]}, [{"min_teams": 5, "points": ["2.5", 1]}]):
        doc = season_doc(8, [tour_doc(1, "Alpha", masks_of(counts))], settings={"points_by_place": setting})
        assert points_of(doc, 1)["Charlie"] == 1
    doc = season_doc(8, [tour_doc(1, "Alpha", masks_of(counts))],
                     settings={"points_by_place": [{"min_teams": 5, "points": ["2.5", 1]}]})
    assert points_of(doc, 1)["Bravo"] == Fraction(5, 2)


# ---------------------------------------------------------------- CHGK-13 shared places

def test_chgk_13_places_two_to_four_of_the_thirteen_plus_table_give_ten_each():
    counts = {"Bravo": 6, "Charlie": 5, "Delta": 5, "Echo": 5, "Foxtrot": 1}
    doc = season_doc(13, [tour_doc(1, "Alpha", masks_of(counts))])
    table = chgk.tour_table(load(doc), 1)
    assert [table["points"][n] for n in ("Charlie", "Delta", "Echo")] == [10, 10, 10]  # (12 + 10 + 8) / 3
    assert table["places"]["Delta"] == "2-4"
    assert table["points"]["Foxtrot"] == 7


def test_chgk_13_nothing_else_separates_teams_inside_a_tour():
    # Bravo answered harder questions than Charlie, yet they share places 1-2
    masks = {"Bravo": "00000011", "Charlie": "11000000", "Delta": "11000000", "Echo": "10000000"}
    doc = season_doc(8, [tour_doc(1, "Alpha", masks)])
    table = chgk.tour_table(load(doc), 1)
    assert table["rating_sums"]["Bravo"] > table["rating_sums"]["Charlie"]
    assert table["points"]["Bravo"] == table["points"]["Charlie"] == table["points"]["Delta"] == 8


def test_chgk_13_shared_points_are_exact_fractions():
    counts = {"Bravo": 3, "Charlie": 2, "Delta": 2, "Echo": 2}
    doc = season_doc(8, [tour_doc(1, "Alpha", masks_of(counts))])
    assert points_of(doc, 1)["Charlie"] == Fraction(19, 3)  # (8 + 6 + 5) / 3
    assert rows(doc)["Charlie"]["points"] == 6.33


# ---------------------------------------------------------------- CHGK-14 ratings

def test_chgk_14_question_rating_is_non_answering_players_plus_one():
    masks = {"Bravo": "1100X000", "Charlie": "1000X000", "Delta": "0?00X000"}
    doc = season_doc(8, [tour_doc(1, "Alpha", masks, absent=["Echo"])])
    table = chgk.tour_table(load(doc), 1)
    # 3 teams played (Echo absent): q1 answered by 2 -> 2; q2 by 1 (the ? counts as not answered) -> 3
    assert table["ratings"][:3] == [2, 3, 4]
    assert table["ratings"][4] is None
    assert table["rating_sums"] == {"Bravo": 5, "Charlie": 2, "Delta": 0}


def test_chgk_14_rating_sum_is_summed_over_the_season():
    t1 = tour_doc(1, "Alpha", {"Bravo": "11000000", "Charlie": "10000000"})
    t2 = tour_doc(2, "Charlie", {"Bravo": "10000000", "Alpha": "00000000"})
    out = rows(season_doc(8, [t1, t2]))
    # tour 1: q1 rating 1, q2 rating 2 (played: Bravo, Charlie); tour 2: q1 rating 2 (played: Bravo, Alpha)
    assert out["Bravo"]["tiebreaks"] == {"correct_answers": 3, "rating_sum": 5}
    assert out["Charlie"]["tiebreaks"] == {"correct_answers": 1, "rating_sum": 1}


# ---------------------------------------------------------------- CHGK-15 season ranking

def test_chgk_15_ties_on_points_are_broken_by_correct_answers_then_rating_sum():
    t1 = tour_doc(1, "Alpha", {"Bravo": "11100000", "Charlie": "11000000", "Delta": "11000000"})
    t2 = tour_doc(2, "Bravo", {"Alpha": "10000000", "Charlie": "11100000", "Delta": "11000000"})
    standings = chgk.compute(load(season_doc(8, [t1, t2])), None, LATE)
    by_team = {r.team: r for r in standings.teams}
    # Charlie: 7 + 10 = 17, 5 answers; Delta: 7 + 8 = 15; Bravo: 10; Alpha: 6
    assert [r.team for r in standings.teams][:3] == ["Charlie", "Delta", "Bravo"]
    assert by_team["Delta"].separated_by == "points"

    t1 = tour_doc(1, "Alpha", {"Bravo": "11000000", "Charlie": "10000000", "Delta": "10000000"})
    t2 = tour_doc(2, "Bravo", {"Charlie": "11000000", "Delta": "10000000", "Alpha": "00000000"})
    t3 = tour_doc(3, "Charlie", {"Bravo": "10000000", "Delta": "11000000", "Alpha": "00000000"})
    standings = chgk.compute(load(season_doc(8, [t1, t2, t3])), None, LATE)
    by_team = {r.team: r for r in standings.teams}
    # Bravo 10 + 8 = 18, Charlie 7 + 10 = 17, Delta 7 + 8 + 10 = 25
    assert [(r.team, r.points) for r in standings.teams][:3] == [("Delta", 25), ("Bravo", 18), ("Charlie", 17)]


def test_chgk_15_correct_answers_separate_equal_points():
    # 8 teams: Bravo and Charlie both end with 18 points, Bravo with more answers
    t1 = tour_doc(1, "Alpha", {"Bravo": "11111000", "Charlie": "11100000", "Delta": "11000000"})
    t2 = tour_doc(2, "Delta", {"Bravo": "11000000", "Charlie": "11100000", "Alpha": "10000000"})
    standings = chgk.compute(load(season_doc(8, [t1, t2])), None, LATE)
    by_team = {r.team: r for r in standings.teams}
    assert by_team["Bravo"].points == by_team["Charlie"].points == 18
    assert by_team["Bravo"].rank == 1 and by_team["Charlie"].rank == 2
    assert by_team["Charlie"].separated_by == "correct_answers"


def test_chgk_15_rating_sum_separates_equal_points_and_answers():
    t1 = tour_doc(1, "Alpha", {"Bravo": "11000000", "Charlie": "10100000", "Delta": "00110000", "Echo": "10000000"})
    t2 = tour_doc(2, "Echo", {"Bravo": "10000000", "Charlie": "01000000", "Delta": "11000000", "Alpha": "00000000"})
    standings = chgk.compute(load(season_doc(8, [t1, t2])), None, LATE)
    by_team = {r.team: r for r in standings.teams}
    assert by_team["Bravo"].points == by_team["Charlie"].points
    assert by_team["Bravo"].tiebreaks["correct_answers"] == by_team["Charlie"].tiebreaks["correct_answers"]
    first, second = sorted(("Bravo", "Charlie"), key=lambda n: -by_team[n].tiebreaks["rating_sum"])
    assert by_team[first].rank < by_team[second].rank
    assert by_team[second].separated_by == "rating_sum"


def _two_team_final_season(winner_masks: tuple[str, str]) -> dict[str, Any]:
    """A complete 2-team season: each hosts once, the other plays."""
    t1 = tour_doc(1, "Alpha", {"Bravo": winner_masks[0]})
    t2 = tour_doc(2, "Bravo", {"Alpha": winner_masks[1]})
    return season_doc(2, [t1, t2])


def test_chgk_15_teams_equal_on_everything_share_first_place_and_are_all_winners():
    out = export(_two_team_final_season(("10000000", "10000000")))
    assert out["final"] is True
    assert [(r["rank"], r["team"], r["status"]) for r in out["teams"]] == [(1, "Alpha", "winner"),
                                                                            (1, "Bravo", "winner")]


# ---------------------------------------------------------------- CHGK-16 preliminary / final

def test_chgk_16_final_once_every_tour_is_played_and_windows_are_closed():
    doc = _two_team_final_season(("11000000", "10000000"))
    last_day = START + dt.timedelta(days=14)
    deadline = dt.datetime.combine(last_day + dt.timedelta(days=3), dt.time(23, 59, 59), tzinfo=MSK)
    assert export(doc, deadline)["final"] is False
    out = export(doc, deadline + dt.timedelta(seconds=1))
    assert out["final"] is True
    # 10 points each; Bravo answered 2 questions, Alpha 1
    assert [(r["team"], r["status"]) for r in out["teams"]] == [("Bravo", "winner"), ("Alpha", "active")]


def test_chgk_16_preliminary_while_a_tour_remains():
    doc = season_doc(2, [tour_doc(1, "Alpha", {"Bravo": "10000000"}), tour_doc(2, "Bravo")])
    out = export(doc)
    assert out["final"] is False
    assert {r["status"] for r in out["teams"]} == {"active"}


def test_chgk_16_preliminary_while_an_appeal_is_pending():
    doc = _two_team_final_season(("10?00000", "10000000"))
    doc["appeals"] = [appeal_doc(1, 3, "Bravo", verdict=None)]
    assert export(doc)["final"] is False
    doc["appeals"] = [appeal_doc(1, 3, "Bravo", verdict="rejected")]
    assert export(doc)["final"] is True


# ---------------------------------------------------------------- CHGK-17 withdrawal

def _withdrawal_season(played_by_echo: int) -> dict[str, Any]:
    """8 teams; Echo plays the first ``played_by_echo`` tours, then withdraws (it hosts tour 8, never played)."""
    tours = []
    for number in range(1, 8):
        host = NAMES[number - 1] if number < 5 else NAMES[number]
        players = [n for n in NAMES[:8] if n != host and (n != "Echo" or number <= played_by_echo)]
        masks = {n: "1" * (1 + (NAMES.index(n) + number) % 4) + "0" * (7 - (NAMES.index(n) + number) % 4)
                 for n in players}
        if "Echo" in masks:
            masks["Echo"] = "11111111"
        tours.append(tour_doc(number, host, masks))
    left = START + dt.timedelta(days=7 * played_by_echo + 1)
    return season_doc(8, tours, withdrawals=[{"team": "Echo", "at": f"{left.isoformat()}T10:00:00+04:00"}])


def test_chgk_17_fewer_than_half_removes_the_answers_and_the_team_leaves_the_table():
    doc = _withdrawal_season(3)  # 2 x 3 < 8
    out = export(doc)
    assert "Echo" not in [r["team"] for r in out["teams"]]
    table = chgk.tour_table(load(doc), 1)
    assert "Echo" not in table["masks"] and "Echo" not in table["points"]
    without = copy.deepcopy(doc)
    without["withdrawals"] = []
    for tour in without["stages"][0]["tours"][:3]:
        del tour["masks"]["Echo"]
    assert chgk.tour_table(load(without), 1)["ratings"] == table["ratings"]
    def strip(rows: list[dict]) -> list[tuple]:
        return [(r["rank"], r["team"], r["points"], r["tiebreaks"]) for r in rows if r["team"] != "Echo"]

    assert strip(export(without)["teams"]) == strip(out["teams"])


def test_chgk_17_half_or_more_keeps_the_results_and_marks_the_team_withdrawn():
    doc = _withdrawal_season(4)  # 2 x 4 = 8, not fewer than half
    out = rows(doc)
    assert out["Echo"]["status"] == "withdrawn"
    assert out["Echo"]["points"] == 40.0
    assert out["Echo"]["tiebreaks"]["correct_answers"] == 32


def test_chgk_17_a_missed_tour_is_not_played():
    doc = _withdrawal_season(4)
    tour = doc["stages"][0]["tours"][0]
    del tour["masks"]["Echo"]
    tour["absent"] = ["Echo"]
    assert "Echo" not in rows(doc)  # 3 tours played: fewer than half of 8


def test_chgk_17_a_tour_not_hosted_yet_is_removed_from_the_calendar():
    doc = _withdrawal_season(4)
    out = export(doc)
    assert out["final"] is True  # 7 tours played, Echo's tour 8 removed: the season is over
    standings = chgk.compute(load(doc), None, LATE)
    assert standings.details["planned_tours"] == 7
    assert standings.details["removed_from_calendar"] == ["Echo"]


def test_chgk_17_a_tour_already_hosted_keeps_its_results():
    tours = [tour_doc(1, "Alpha", masks_of({"Bravo": 3, "Charlie": 2}))]
    doc = season_doc(8, tours, withdrawals=[{"team": "Alpha", "at": "2013-02-20T10:00:00+04:00"}])
    assert chgk.tour_table(load(doc), 1)["points"]["Bravo"] == 10
    standings = chgk.compute(load(doc), None, LATE)
    assert "Alpha" not in [r.team for r in standings.teams]
    assert standings.details["planned_tours"] == 8


def test_chgk_17_a_withdrawn_team_plays_no_later_tour():
    doc = _withdrawal_season(3)
    doc["stages"][0]["tours"][4]["masks"]["Echo"] = "10000000"
    assert any("Echo withdrew on" in p and "CHGK-17" in p for p in problems(doc))


def test_chgk_17_a_withdrawn_team_cannot_host_later():
    doc = season_doc(8, [tour_doc(1, "Alpha", masks_of({"Bravo": 1}))],
                     withdrawals=[{"team": "Alpha", "at": "2013-02-10T10:00:00+04:00"}])
    assert any("removed from the calendar (CHGK-17)" in p for p in problems(doc))


def test_chgk_17_a_team_withdraws_once():
    doc = season_doc(8, [], withdrawals=[{"team": "Alpha", "at": "2013-02-10T10:00:00+04:00"},
                                         {"team": "Alpha", "at": "2013-02-11T10:00:00+04:00"}])
    assert any("Alpha has already withdrawn (CHGK-17)" in p for p in problems(doc))


def test_chgk_6_a_team_may_withdraw_before_playing_anything():
    doc = season_doc(8, [tour_doc(1, "Bravo", masks_of({"Charlie": 1}))],
                     withdrawals=[{"team": "Alpha", "at": "2013-02-01T10:00:00+04:00"}])
    standings = chgk.compute(load(doc), None, LATE)
    assert "Alpha" not in [r.team for r in standings.teams]
    assert standings.details["planned_tours"] == 7


# ---------------------------------------------------------------- CHGK-18 deadlines

def _deadline_doc(timezone: str = "Europe/Moscow", played_on: dt.date = dt.date(2013, 2, 14)) -> dict[str, Any]:
    return season_doc(8, [tour_doc(1, "Alpha", {"Bravo": "1000000?"}, played_on=played_on)], timezone=timezone)


def test_chgk_18_appeal_deadline_is_2359_of_d_plus_3_in_the_tournament_zone():
    facts = load(_deadline_doc())
    appeal = Appeal(kind="removal", filed_at=LATE, tour=1, question=8, team="Bravo")
    assert chgk.appeal_deadline(facts, appeal) == dt.datetime(2013, 2, 17, 23, 59, 59, tzinfo=MSK)
    assert chgk.verdict_due(facts, appeal) == dt.datetime(2013, 2, 23, 23, 59, 59, tzinfo=MSK)
    assert chgk.questions_due(facts, 1) == dt.datetime(2013, 2, 15, 23, 59, 59, tzinfo=MSK)
    assert chgk.decision_deadline(facts, None) is None


def test_chgk_18_appeal_at_235959_is_accepted_and_at_midnight_refused():
    doc = _deadline_doc()
    doc["appeals"] = [appeal_doc(1, 8, "Bravo", "removal", filed_at="2013-02-17T23:59:59+04:00")]
    load(doc)
    doc["appeals"] = [appeal_doc(1, 8, "Bravo", "removal", filed_at="2013-02-18T00:00:00+04:00")]
    assert any(p.startswith("appeals[0].filed_at") and "CHGK-18" in p for p in problems(doc))
    # the same moment written in another offset is judged in the tournament's zone
    doc["appeals"] = [appeal_doc(1, 8, "Bravo", "removal", filed_at="2013-02-17T19:59:59+00:00")]
    load(doc)


def test_chgk_18_deadline_across_a_daylight_saving_change():
    # Berlin moves to summer time on 2024-03-31: D = 2024-03-28, D+3 ends at 23:59:59 CEST (+02:00)
    doc = _deadline_doc("Europe/Berlin", dt.date(2024, 3, 28))
    facts = load(doc)
    appeal = Appeal(kind="removal", filed_at=LATE, tour=1, question=8, team="Bravo")
    deadline = chgk.appeal_deadline(facts, appeal)
    assert deadline.utcoffset() == dt.timedelta(hours=2)
    assert deadline.astimezone(dt.UTC) == dt.datetime(2024, 3, 31, 21, 59, 59, tzinfo=dt.UTC)
    doc["appeals"] = [appeal_doc(1, 8, "Bravo", "removal", filed_at="2024-03-31T23:59:59+02:00")]
    load(doc)
    # 23:30 at the winter offset is already 00:30 summer time on April 1
    doc["appeals"] = [appeal_doc(1, 8, "Bravo", "removal", filed_at="2024-03-31T23:30:00+01:00")]
    assert any("CHGK-18" in p for p in problems(doc))


def test_chgk_18_an_appeal_on_a_tour_without_date_cannot_be_checked():
    doc = season_doc(8, [{"number": 1, "host": "Alpha", "questions": 8, "masks": {"Bravo": "10000000"}}])
    doc["appeals"] = [appeal_doc(1, 8, "Bravo", "removal", filed_at="2020-01-01T00:00:00+04:00")]
    facts = load(doc)
    assert chgk.appeal_deadline(facts, facts.appeals[0]) is None
    assert chgk.verdict_due(facts, facts.appeals[0]) is None


def test_chgk_18_missing_verdict_is_overdue_after_d_plus_9():
    doc = _deadline_doc()
    doc["appeals"] = [appeal_doc(1, 8, "Bravo", "removal", verdict=None, filed_at="2013-02-16T10:00:00+04:00")]
    facts = load(doc)
    appeal = facts.appeals[0]
    assert not chgk.verdict_overdue(facts, appeal, dt.datetime(2013, 2, 23, 23, 59, 59, tzinfo=MSK))
    assert chgk.verdict_overdue(facts, appeal, dt.datetime(2013, 2, 24, 0, 0, 0, tzinfo=MSK))
    standings = chgk.compute(facts, None, dt.datetime(2013, 3, 1, tzinfo=MSK))
    assert standings.details["overdue_verdicts"] == 1


# ---------------------------------------------------------------- CHGK-19..CHGK-22 appeals

def test_chgk_19_only_removal_and_accept_answer_appeals():
    doc = _deadline_doc()
    doc["appeals"] = [appeal_doc(1, 8, "Bravo", "decision")]
    assert any("appeals[0].kind" in p for p in problems(doc))


def test_chgk_20_only_a_team_that_played_the_tour_appeals():
    doc = season_doc(8, [tour_doc(1, "Alpha", {"Bravo": "10000000"}, absent=["Charlie"])])
    doc["appeals"] = [appeal_doc(1, 2, "Alpha", "removal", verdict="rejected")]
    assert any("Alpha did not play tour 1" in p and "CHGK-20" in p for p in problems(doc))
    doc["appeals"] = [appeal_doc(1, 2, "Charlie", "removal", verdict="rejected")]
    assert any("Charlie did not play tour 1" in p for p in problems(doc))


def test_chgk_21_an_accepted_removal_turns_the_question_into_x_for_everyone():
    masks = {"Bravo": "11000000", "Charlie": "01100000", "Delta": "10000000"}
    doc = season_doc(8, [tour_doc(1, "Alpha", masks)], appeals=[appeal_doc(1, 1, "Charlie", "removal")])
    table = chgk.tour_table(load(doc), 1)
    assert table["masks"] == {"Bravo": "X1000000", "Charlie": "X1100000", "Delta": "X0000000"}
    assert table["ratings"][0] is None
    assert table["correct"] == {"Bravo": 1, "Charlie": 2, "Delta": 0, **{n: 0 for n in NAMES[4:8]}}
    assert table["points"]["Charlie"] == 10 and table["points"]["Delta"] == 0


def test_chgk_21_rejected_and_pending_removals_change_nothing():
    masks = {"Bravo": "11000000", "Charlie": "01100000"}
    base = points_of(season_doc(8, [tour_doc(1, "Alpha", masks)]), 1)
    for verdict in ("rejected", None):
        doc = season_doc(8, [tour_doc(1, "Alpha", masks)],
                         appeals=[appeal_doc(1, 1, "Charlie", "removal", verdict=verdict)])
        assert points_of(doc, 1) == base


def test_chgk_22_an_accepted_answer_credits_the_named_teams():
    masks = {"Bravo": "1?000000", "Charlie": "10000000", "Delta": "10000000", "Echo": "00000000"}
    appeal = appeal_doc(1, 2, "Bravo", credited=["Bravo", "Charlie"])
    doc = season_doc(8, [tour_doc(1, "Alpha", masks)], appeals=[appeal])
    table = chgk.tour_table(load(doc), 1)
    assert table["masks"]["Bravo"] == "11000000"  # a ? becomes 1
    assert table["masks"]["Charlie"] == "11000000"  # a 0 becomes 1
    assert table["masks"]["Delta"] == "10000000"
    assert table["ratings"][1] == 3
    assert table["points"]["Bravo"] == table["points"]["Charlie"] == 9


def test_chgk_22_the_appealing_team_is_credited_even_if_not_named():
    masks = {"Bravo": "1?000000", "Charlie": "00000000"}
    appeal = appeal_doc(1, 2, "Bravo", credited=["Charlie"])
    table = chgk.tour_table(load(season_doc(8, [tour_doc(1, "Alpha", masks)], appeals=[appeal])), 1)
    assert table["masks"]["Bravo"] == "11000000"
    assert table["masks"]["Charlie"] == "01000000"


def test_chgk_22_pending_and_rejected_duals_leave_the_question_unanswered():
    masks = {"Bravo": "1?000000", "Charlie": "10000000"}
    for verdict, shown in ((None, "1?000000"), ("rejected", "10000000")):
        doc = season_doc(8, [tour_doc(1, "Alpha", masks)], appeals=[appeal_doc(1, 2, "Bravo", verdict=verdict)])
        table = chgk.tour_table(load(doc), 1)
        assert table["masks"]["Bravo"] == shown
        assert table["correct"]["Bravo"] == 1


def test_chgk_22_a_team_that_did_not_play_cannot_be_credited():
    doc = season_doc(8, [tour_doc(1, "Alpha", {"Bravo": "1?000000"}, absent=["Charlie"])],
                     appeals=[appeal_doc(1, 2, "Bravo", credited=["Bravo", "Charlie"])])
    assert any(p.startswith("appeals[0].credited_teams[1]") and "CHGK-22" in p for p in problems(doc))


def test_chgk_22_a_removal_wins_over_an_accepted_answer_on_the_same_question():
    masks = {"Bravo": "1?000000", "Charlie": "11000000"}
    appeals = [appeal_doc(1, 2, "Bravo"), appeal_doc(1, 2, "Charlie", "removal")]
    table = chgk.tour_table(load(season_doc(8, [tour_doc(1, "Alpha", masks)], appeals=appeals)), 1)
    assert table["masks"] == {"Bravo": "1X000000", "Charlie": "1X000000"}


def test_chgk_23_the_standings_recompute_after_each_verdict():
    masks = {"Bravo": "1?000000", "Charlie": "11000000"}
    pending = season_doc(8, [tour_doc(1, "Alpha", masks)], appeals=[appeal_doc(1, 2, "Bravo", verdict=None)])
    accepted = season_doc(8, [tour_doc(1, "Alpha", masks)], appeals=[appeal_doc(1, 2, "Bravo")])
    assert rows(pending)["Bravo"]["points"] == 8.0
    assert rows(accepted)["Bravo"]["points"] == 9.0


def test_tour_table_of_an_unknown_or_scheduled_tour():
    facts = load(season_doc(8, [tour_doc(1, "Alpha")]))
    assert chgk.tour_table(facts, 1)["played"] is False
    with pytest.raises(RulesetError):
        chgk.tour_table(facts, 2)
