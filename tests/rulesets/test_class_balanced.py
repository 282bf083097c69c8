"""``class_balanced``: the example document, settings, classes and points (CB-1..CB-4, CB-8..CB-10)."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from rulesets import class_balanced as cb
from rulesets.base import RulesetError
from rulesets.class_balanced.points import class_of
from rulesets.interchange import export_standings, parse_document
from tests.rulesets.test_class_balanced_builder import (
    LATE,
    TEAMS,
    document,
    export,
    game,
    parse,
    rows,
    seat,
    stage_1_games,
    standings,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "data" / "examples"


def test_example_document_exports_the_expected_standings():
    doc = json.loads((EXAMPLES / "class_balanced.json").read_text())
    expected = json.loads((EXAMPLES / "class_balanced.expected.json").read_text())
    facts = parse_document(doc)
    assert export_standings(facts, cb.compute(facts, None, LATE)) == expected


def test_protocol_names():
    assert cb.KEY == "class_balanced"
    assert cb.STAGE_KEYS == ("stage-1", "stage-2", "stage-3")
    assert cb.validate_settings(cb.DEFAULT_SETTINGS) == []
    json.dumps(cb.DEFAULT_SETTINGS)


# --------------------------------------------------------------------------- settings (CB-1, CB-4)


def test_cb_1_stage_sizes_are_settings_with_the_spec_defaults():
    s = cb.DEFAULT_SETTINGS
    assert s["players_per_game"] == {"stage-1": 7, "stage-2": 13, "stage-3": 10}
    assert s["teams"] == {"stage-1": 14, "stage-2": 13, "stage-3": 10}
    assert s["games"] == {"stage-1": 48, "stage-2": 26, "stage-3": 24}
    assert s["eliminated_after"] == {"stage-1": 1, "stage-2": 3}


def test_cb_4_day_turn_is_3_minutes_in_stage_2_only():
    assert cb.DEFAULT_SETTINGS["day_turn_minutes"] == {"stage-1": 2, "stage-2": 3, "stage-3": 2}
    doc = document({"stage-1": [], "stage-2": []})
    assert standings(doc, "stage-2").details["day_turn_minutes"] == 3
    assert standings(doc, "stage-1").details["day_turn_minutes"] == 2


def test_cb_4_day_turn_may_be_given_as_a_list_in_order_of_play():
    doc = document({"stage-2": []}, settings={"day_turn_minutes": [2, 4, 2]})
    assert standings(doc).details["day_turn_minutes"] == 4


def test_settings_refuse_unknown_keys_and_bad_values():
    problems = {p.path: p.message for p in cb.validate_settings({
        "colour": "red",
        "day_turn_minutes": {"stage-2": 0},
        "points_table": {"stage-2": {"mafia_win": "-1"}, "stage-9": {}},
        "maniac_kill_points": [],
        "eliminated_after": {"stage-3": 1},
    })}
    assert set(problems) == {"colour", "day_turn_minutes.stage-2", "points_table.stage-2.mafia_win",
                             "points_table.stage-9", "maniac_kill_points", "eliminated_after.stage-3"}


def test_settings_refuse_a_class_table_that_does_not_add_up():
    problems = cb.validate_settings({"class_table_per_game": {"A": 5, "B": 5, "C": 4}})
    assert [p.path for p in problems] == ["class_table_per_game"]
    problems = cb.validate_settings({"games_per_team": {"stage-1": 25}})
    assert [p.path for p in problems] == ["games_per_team.stage-1"]


def test_a_document_with_bad_settings_is_refused_with_the_settings_path():
    with pytest.raises(RulesetError) as error:
        parse(document({}, settings={"points": 1}))
    assert [p.path for p in error.value.problems] == ["tournament.settings.points"]


def test_a_custom_points_table_is_used():
    games = [game(1, [seat("T01", role="don"), seat("T02")], outcome="mafia")]
    doc = document({"stage-1": games}, settings={"points_table": {"stage-1": {"mafia_win": "5"}}})
    assert rows(export(doc))["T01"]["points"] == 5.0


# --------------------------------------------------------------------------- CB-2, CB-3


def test_cb_2_an_imported_stage_counts_as_published():
    doc = document({"stage-1": stage_1_games()[:3]})
    assert rows(export(doc))["T01"]["points"] == 3.0


def test_cb_2_the_table_is_due_a_day_before_the_first_game():
    games = [game(1, [seat("T01")], scheduled_at="2015-03-02T18:00:00+03:00"),
             game(2, [seat("T02")], scheduled_at="2015-03-02T12:00:00+03:00")]
    facts = parse(document({"stage-1": games}))
    assert cb.schedule_due(facts, "stage-1").isoformat() == "2015-03-01T12:00:00+03:00"
    assert cb.schedule_due(facts, "stage-2") is None


@pytest.mark.parametrize(("stats", "cls"), [(150, "C"), (250, "C"), (251, "B"), (350, "B"), (351, "A"),
                                            (450, "A"), (149, None), (451, None)])
def test_cb_3_class_by_stat_sum(stats, cls):
    assert class_of(stats) == cls


def test_cb_3_stats_outside_150_450_are_refused_with_the_seat_path():
    games = [game(1, [seat("T01"), {**seat("T02"), "stats": 480}])]
    with pytest.raises(RulesetError) as error:
        parse(document({"stage-1": games}))
    assert [str(p) for p in error.value.problems] == ["stages[0].games[0].seats[1].stats: 480 is outside 150..450 (CB-3)"]


def test_cb_3_stats_are_required():
    games = [game(1, [{"player": "T01-p1", "team": "T01", "role": "civilian"}])]
    with pytest.raises(RulesetError) as error:
        parse(document({"stage-1": games}))
    assert error.value.problems[0].path == "stages[0].games[0].seats[0].stats"
    assert "(CB-3)" in error.value.problems[0].message


# --------------------------------------------------------------------------- points (CB-8..CB-10)


def _points(doc: dict, stage: str | None = None) -> dict[tuple[int, str], tuple[Fraction, str]]:
    return cb.seat_points(parse(doc), stage)


def _civilians_and_mafia(final_phase: set[str] = frozenset()) -> list[dict]:
    seats = [seat(t, role="mafia" if t in ("T01", "T02") else "civilian", in_final_phase=t in final_phase)
             for t in TEAMS[:10]]
    return seats


@pytest.mark.parametrize(("stage", "mafia_win", "mafia_draw"), [("stage-1", 4, 3), ("stage-3", 4, 3)])
def test_cb_8_points_tables_of_stages_1_and_3(stage, mafia_win, mafia_draw):
    games = [game(1, [seat("T01", role="don"), seat("T02")], outcome="mafia"),
             game(2, [seat("T01", role="don"), seat("T02", in_final_phase=True)], outcome="draw"),
             game(3, [seat("T01", role="don"), seat("T02")], outcome="civilians")]
    points = _points(document({stage: games}))
    assert points[(1, "T01-p1")][0] == mafia_win and points[(1, "T02-p1")][0] == 0
    assert points[(2, "T01-p1")][0] == mafia_draw and points[(2, "T02-p1")][0] == Fraction(1, 2)
    assert points[(3, "T01-p1")][0] == 0 and points[(3, "T02-p1")][0] == Fraction(3, 2)


def test_cb_8_stage_2_table():
    games = [game(1, [seat("T01", role="don"), seat("T02")], outcome="mafia"),
             game(2, [seat("T01", role="don"), seat("T02", in_final_phase=True)], outcome="draw"),
             game(3, [seat("T01", role="don"), seat("T02")], outcome="civilians")]
    points = _points(document({"stage-2": games}))
    assert points[(1, "T01-p1")][0] == Fraction(9, 2)
    assert points[(2, "T01-p1")][0] == Fraction(7, 2) and points[(2, "T02-p1")][0] == Fraction(1, 2)
    assert points[(3, "T02-p1")][0] == Fraction(3, 2)


def test_cb_8_stage_2_draw_without_a_civilian_in_the_last_day_pays_no_civilian():
    doc = document({"stage-2": [game(1, _civilians_and_mafia(), outcome="draw")]})
    points = _points(doc)
    civilians = [points[(1, f"{t}-p1")] for t in TEAMS[2:10]]
    assert all(value == 0 for value, _ in civilians)
    assert "(CB-8)" in civilians[0][1]
    assert points[(1, "T01-p1")][0] == Fraction(7, 2)
    assert rows(export(doc))["T05"]["points"] == 0.0


def test_cb_8_stage_2_draw_with_one_civilian_in_the_last_day_pays_every_civilian():
    doc = document({"stage-2": [game(1, _civilians_and_mafia({"T07"}), outcome="draw")]})
    points = _points(doc)
    assert all(points[(1, f"{t}-p1")][0] == Fraction(1, 2) for t in TEAMS[2:10])
    assert rows(export(doc))["T03"]["points"] == 0.5


def test_cb_8_a_mafia_seat_in_the_last_day_does_not_pay_the_civilians():
    doc = document({"stage-3": [game(1, _civilians_and_mafia({"T01", "T02"}), outcome="draw")]})
    assert _points(doc)[(1, "T05-p1")][0] == 0


def test_cb_8_stage_1_draw_pays_civilians_unconditionally():
    doc = document({"stage-1": [game(1, _civilians_and_mafia()[:7], outcome="draw")]})
    assert _points(doc)[(1, "T05-p1")][0] == Fraction(1, 2)


def _maniac_game(outcome: str, kills: int, timed_out: bool = False) -> dict:
    seats = [seat("T01", role="maniac", maniac_kills=kills, timed_out=timed_out),
             seat("T02", role="don"), seat("T03", role="commissar")]
    return game(1, seats, outcome=outcome)


def test_cb_9_maniac_with_4_kills_who_wins_scores_3_5():
    points = _points(document({"stage-2": [_maniac_game("maniac", 4)]}))
    assert points[(1, "T01-p1")][0] == Fraction(7, 2)
    assert points[(1, "T02-p1")][0] == 0 and points[(1, "T03-p1")][0] == 0


@pytest.mark.parametrize(("kills", "expected"), [(0, "0"), (1, "0.5"), (2, "0.9"), (3, "1.2"), (4, "1.5"),
                                                 (5, "1.8")])
def test_cb_9_kill_points_05_04_then_03(kills, expected):
    points = _points(document({"stage-3": [_maniac_game("civilians", kills)]}))
    assert points[(1, "T01-p1")][0] == Fraction(expected)


def test_cb_9_maniac_draw_adds_1_5_and_a_losing_maniac_keeps_its_kills():
    assert _points(document({"stage-2": [_maniac_game("draw", 2)]}))[(1, "T01-p1")][0] == Fraction("2.4")
    assert _points(document({"stage-2": [_maniac_game("mafia", 2)]}))[(1, "T01-p1")][0] == Fraction("0.9")


def test_cb_9_a_maniac_win_counts_as_a_maniac_win():
    doc = document({"stage-3": [_maniac_game("maniac", 1)]})
    assert rows(export(doc))["T01"]["tiebreaks"]["maniac_wins"] == 1.0


def test_cb_10_timed_out_mafia_in_a_mafia_win_scores_nothing_and_no_mafia_win():
    seats = [seat("T01", role="don", timed_out=True, days_played=2), seat("T02", role="mafia"), seat("T03")]
    doc = document({"stage-2": [game(1, seats, outcome="mafia", game_days=4)]})
    value, reason = _points(doc)[(1, "T01-p1")]
    assert value == 0 and "(CB-10)" in reason
    table = rows(export(doc))
    assert table["T01"]["points"] == 0.0
    assert table["T01"]["tiebreaks"]["mafia_wins"] == 0.0 and table["T01"]["tiebreaks"]["mafia_wins_13"] == 0.0
    assert table["T02"]["tiebreaks"]["mafia_wins"] == 1.0 and table["T02"]["tiebreaks"]["points_13"] == 4.5


def test_cb_10_a_timed_out_maniac_loses_its_kill_points_and_its_win():
    doc = document({"stage-2": [_maniac_game("maniac", 3, timed_out=True)]})
    assert _points(doc)[(1, "T01-p1")][0] == 0
    assert rows(export(doc))["T01"]["tiebreaks"]["maniac_wins"] == 0.0


def test_cb_10_a_timed_out_mafia_draw_is_no_mafia_draw():
    seats = [seat("T01", role="mafia", timed_out=True), seat("T02", role="mafia"), seat("T03", in_final_phase=True)]
    table = rows(export(document({"stage-1": [game(1, seats, outcome="draw")]})))
    assert table["T01"]["tiebreaks"]["mafia_draws"] == 0.0
    assert table["T02"]["tiebreaks"]["mafia_draws"] == 1.0


def test_omon_game_scores_by_its_recorded_outcome():
    seats = [seat("T01", role="don"), seat("T02")]
    doc = document({"stage-1": [game(1, seats, outcome="mafia", omon=True)]})
    assert rows(export(doc))["T01"]["points"] == 4.0


def test_only_played_and_technical_games_score():
    games = [game(1, [], outcome=None, status="scheduled"), game(2, [], outcome=None, status="not_held"),
             game(3, [seat("T01")])]
    table = rows(export(document({"stage-1": games})))
    assert table["T01"]["points"] == 1.5


def test_a_fair_play_penalty_is_deducted_from_the_team_total_only():
    games = [game(1, [seat("T01")])]
    penalty = {"stage": "stage-1", "team": "T01", "kind": "fair_play", "code": "FP-9", "points": "0.5",
               "decided_at": "2015-03-03T12:00:00+03:00"}
    table = rows(export(document({"stage-1": games}, penalties=[penalty])))
    assert table["T01"]["points"] == 1.0


def test_details_are_json_serialisable_and_chart_ready():
    s1 = stage_1_games()[:10]
    result = standings(document({"stage-1": s1, "stage-2": []}))
    json.dumps(result.details)
    assert result.details["rounds"] == ["stage-1", "stage-2"]
    for row in result.teams:
        json.dumps(row.details)
        assert len(row.details["points_by_round"]) == 2
