"""elimination_gp: the acceptance example and the tour-by-tour rules GP-9..GP-15a, GP-23."""

from __future__ import annotations

import datetime as dt
import json
from fractions import Fraction
from pathlib import Path

import pytest

from rulesets import elimination_gp as gp
from rulesets.interchange import export_standings, parse_document
from tests.rulesets.test_elimination_gp_helpers import (
    LATER,
    document,
    export,
    game,
    player_row,
    problems_of,
    stage,
    standings,
    team_row,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "data" / "examples"


def test_example_document_exports_the_expected_standings():
    doc = json.loads((EXAMPLES / "elimination_gp.json").read_text())
    expected = json.loads((EXAMPLES / "elimination_gp.expected.json").read_text())
    facts = parse_document(doc)
    assert export_standings(facts, gp.compute(facts, None, LATER)) == expected


def test_example_is_final_because_its_only_stage_is_over_gp_13():
    doc = json.loads((EXAMPLES / "elimination_gp.json").read_text())
    result = gp.compute(parse_document(doc), None, LATER)
    assert result.final is True
    assert result.details["over_after_tour"] == 13
    doc["stages"][0]["games"] = doc["stages"][0]["games"][:12]
    assert gp.compute(parse_document(doc), None, LATER).final is False


def test_example_stage_can_be_asked_for_by_key():
    doc = json.loads((EXAMPLES / "elimination_gp.json").read_text())
    assert export(doc, "qualifying-1") == export(doc)


def test_protocol_names():
    assert gp.KEY == "elimination_gp"
    assert gp.STAGE_KEYS == ("qualifying-1", "qualifying-2", "qualifying-3", "qualifying-4", "qualifying-5", "final")
    assert json.loads(json.dumps(gp.DEFAULT_SETTINGS)) == gp.DEFAULT_SETTINGS
    assert gp.validate_settings(dict(gp.DEFAULT_SETTINGS)) == []


# -- small stages: 4 teams of 2 (A1, A2, B1, ...) -------------------------------------------------

def small(*games, teams=4, size=2, **kwargs):
    return document(stage("qualifying-1", teams, size, list(games)), **kwargs)


def test_gp_9_two_players_of_one_team_in_a_tour_are_refused():
    doc = small(game(1, "civilians", {"A1": "mafia", "A2": "civilian", "B1": "civilian", "C1": "civilian",
                                      "D1": "commissar"}))
    assert any("seats[1].team" in p and "GP-9" in p for p in problems_of(doc))


def test_gp_9_a_player_of_another_team_is_refused():
    doc = small(game(1, "civilians", {"A1": "mafia", "B1": "civilian", "C1": "civilian", "D1": "commissar"}))
    doc["stages"][0]["games"][0]["seats"][0]["team"] = "B"
    problems = problems_of(doc)
    assert any("seats[0].player" in p and "not a player of team B" in p for p in problems)


def test_gp_9_a_remaining_team_without_seat_must_be_listed_absent():
    doc = small(game(1, "civilians", {"A1": "mafia", "B1": "civilian", "C1": "civilian"}))
    assert any("team D is still in the tournament" in p for p in problems_of(doc))
    doc = small(game(1, "civilians", {"A1": "mafia", "B1": "civilian", "C1": "civilian"}, absent=["D"],
                     no_show={"D": "D2"}))
    assert problems_of(doc) == []


def test_gp_9_one_game_a_tour_but_an_annulled_game_may_be_replayed_in_the_same_tour():
    seats = {"A1": "mafia", "B1": "civilian", "C1": "civilian", "D1": "commissar"}
    doc = small(game(1, "mafia", seats, number=1), game(1, "mafia", seats, number=2))
    assert any("one game a tour (GP-9)" in p for p in problems_of(doc))
    doc = small(game(1, "mafia", seats, number=1), game(1, "civilians", seats, number=2),
                decisions=[{"stage": "qualifying-1", "game": 1, "kind": "replay",
                            "decided_at": "2013-05-07T22:00:00+04:00"}])
    assert problems_of(doc) == []
    result = standings(doc)
    assert [e["player"] for e in result.details["eliminations"]] == ["A1"]
    assert player_row(result, "A1").games == 1


def test_gp_9_the_round_is_the_tour_number_and_is_required():
    doc = small(game(1, "mafia", {"A1": "mafia", "B1": "civilian", "C1": "civilian", "D1": "commissar"}))
    del doc["stages"][0]["games"][0]["round"]
    assert any("no tour number (GP-9)" in p for p in problems_of(doc))


def test_gp_9_games_are_replayed_in_order_of_tour_whatever_the_document_order():
    g1 = game(1, "civilians", {"A1": "mafia", "B1": "civilian", "C1": "civilian", "D1": "commissar"}, number=7)
    g2 = game(2, "civilians", {"A2": "mafia", "B1": "civilian", "C1": "civilian", "D1": "commissar"}, number=3)
    assert export(small(g2, g1)) == export(small(g1, g2))
    result = standings(small(g2, g1))
    assert team_row(result, "A").status == "eliminated"
    assert result.details["rounds"] == ["Tour 1", "Tour 2"]


def test_no_eliminated_player_ever_appears_in_a_later_game_refused():
    doc = small(game(1, "civilians", {"A1": "mafia", "B1": "civilian", "C1": "civilian", "D1": "commissar"}),
                game(2, "civilians", {"A1": "mafia", "B1": "civilian", "C1": "civilian", "D1": "commissar"}))
    problems = problems_of(doc)
    assert any(p.startswith("stages[0].games[1].seats[0].player") and "eliminated in tour 1" in p for p in problems)


def test_gp_10_absent_team_loses_the_recorded_player():
    doc = small(game(1, "maniac", {"B1": "civilian", "C1": "mafia", "D1": "maniac"}, absent=["A"],
                     no_show={"A": "A2"}))
    result = standings(doc)
    assert result.details["eliminations"] == [
        {"player": "A2", "team": "A", "tour": 1, "game": 1, "rule": "GP-10", "reason": "team A absent"}]
    assert player_row(result, "A2").status == "eliminated"
    assert result.seed is None


def test_gp_10_absent_team_without_a_name_loses_a_drawn_player_and_the_seed_is_reported():
    doc = small(game(1, "maniac", {"B1": "civilian", "C1": "mafia", "D1": "maniac"}, absent=["A"]))
    result = standings(doc)
    drawn = gp.draw_no_show(["A1", "A2"], "gp-test/qualifying-1", 1, "A")
    assert [e["player"] for e in result.details["eliminations"]] == [drawn]
    assert result.seed == "gp-test/qualifying-1"
    assert standings(doc).details == result.details
    doc["stages"][0]["seed"] = "public-42"
    result = standings(doc)
    assert result.seed == "public-42"
    assert [e["player"] for e in result.details["eliminations"]] == [gp.draw_no_show(["A1", "A2"], "public-42", 1, "A")]


def test_gp_10_the_draw_depends_only_on_seed_tour_team_and_who_remains():
    players = [f"A{i}" for i in range(1, 7)]
    picks = {gp.draw_no_show(players, f"seed-{n}", 3, "A") for n in range(40)}
    assert len(picks) > 1
    assert gp.draw_no_show(players, "s", 3, "A") == gp.draw_no_show(list(reversed(players)), "s", 3, "A")
    with pytest.raises(ValueError):
        gp.draw_no_show([], "s", 1, "A")


def test_gp_10_no_show_must_name_a_remaining_player_of_an_absent_team():
    doc = small(game(1, "maniac", {"B1": "civilian", "C1": "mafia", "D1": "maniac"}, absent=["A"],
                     no_show={"A": "B2"}))
    assert any("no_show_eliminated.A" in p and "not a remaining player of team A" in p for p in problems_of(doc))
    doc = small(game(1, "maniac", {"A1": "civilian", "C1": "mafia", "D1": "maniac"}, absent=["B"],
                     no_show={"A": "A2", "B": "B1"}))
    assert any("no_show_eliminated.A" in p and "not in the game's absent_teams" in p for p in problems_of(doc))


def test_gp_10_a_not_held_game_still_costs_each_absent_team_a_player():
    doc = small(game(1, None, {}, status="not_held", absent=["A", "B"], no_show={"A": "A1", "B": "B2"}))
    result = standings(doc)
    assert sorted(e["player"] for e in result.details["eliminations"]) == ["A1", "B2"]
    assert player_row(result, "A1").games == 0


def test_gp_11_losers_of_a_clean_win_are_out_and_the_winners_stay():
    doc = small(game(1, "mafia", {"A1": "don", "B1": "civilian", "C1": "commissar", "D1": "civilian"}))
    result = standings(doc)
    assert sorted(e["player"] for e in result.details["eliminations"]) == ["B1", "C1", "D1"]
    assert {e["rule"] for e in result.details["eliminations"]} == {"GP-11"}
    assert player_row(result, "A1").status == "active"


def test_gp_11_a_maniac_seat_is_on_neither_side_and_loses_a_clean_win():
    doc = small(game(1, "civilians", {"A1": "maniac", "B1": "mafia", "C1": "commissar", "D1": "civilian"}))
    result = standings(doc)
    assert sorted(e["player"] for e in result.details["eliminations"]) == ["A1", "B1"]


def test_gp_11_a_maniac_win_is_not_a_clean_win_nobody_is_out():
    doc = small(game(1, "maniac", {"A1": "maniac", "B1": "mafia", "C1": "commissar", "D1": "civilian"}))
    assert standings(doc).details["eliminations"] == []


def test_gp_11_a_technical_result_decides_the_eliminations():
    seats = {"A1": "don", "B1": "civilian", "C1": "commissar", "D1": "civilian"}
    doc = small(game(1, "mafia", seats), decisions=[
        {"stage": "qualifying-1", "game": 1, "kind": "technical_result", "outcome": "civilians",
         "decided_at": "2013-05-07T22:00:00+04:00"}])
    result = standings(doc)
    assert [e["player"] for e in result.details["eliminations"]] == ["A1"]
    assert player_row(result, "B1").points == Fraction(3, 2)


def omon_stage(tour: int, **kwargs):
    """A stage whose first game is tour ``tour`` and ends by OMON."""
    return small(game(tour, "draw", {"A1": "don", "B1": "civilian", "C1": "commissar", "D1": "civilian"}), **kwargs)


def test_gp_12_omon_in_tour_20_eliminates_nobody():
    assert standings(omon_stage(20)).details["eliminations"] == []


def test_gp_12_omon_from_tour_21_eliminates_the_civilians_of_the_game():
    result = standings(omon_stage(21))
    assert sorted(e["player"] for e in result.details["eliminations"]) == ["B1", "C1", "D1"]
    assert {e["rule"] for e in result.details["eliminations"]} == {"GP-12"}
    assert player_row(result, "A1").status == "active"


def test_gp_12_the_omon_flag_makes_any_outcome_an_omon_and_the_tour_is_a_setting():
    flagged = small(game(5, "mafia", {"A1": "don", "B1": "civilian", "C1": "commissar", "D1": "civilian"},
                         omon=True))
    assert standings(flagged).details["eliminations"] == []
    result = standings(omon_stage(5, settings={"omon_elimination_from_tour": 5}))
    assert len(result.details["eliminations"]) == 3


def test_gp_13_two_teams_out_in_the_same_game_take_the_count_from_2_to_4_and_end_the_stage():
    games = [
        game(1, "civilians", {"A1": "mafia", "B1": "mafia", "C1": "civilian", "D1": "civilian", "E1": "commissar",
                              "F1": "civilian"}),
        game(2, "mafia", {"A2": "civilian", "B2": "civilian", "C1": "mafia", "D1": "civilian", "E1": "civilian",
                          "F1": "civilian"}),
        game(3, "civilians", {"C1": "civilian", "D2": "mafia", "E2": "mafia", "F2": "civilian"}),
    ]
    result = standings(document(stage("qualifying-1", 6, 2, games)))
    assert result.details["teams_out"] == {"A": 2, "B": 2, "D": 3, "E": 3}
    assert result.details["over_after_tour"] == 3
    assert [r.status for r in result.teams].count("eliminated") == 4
    assert team_row(result, "C").status == "winner"
    assert result.final is True


def test_gp_13_the_stage_ends_when_the_third_team_is_out_and_later_games_are_refused():
    games = [
        game(1, "civilians", {"A1": "mafia", "B1": "mafia", "C1": "mafia", "D1": "commissar"}),
        game(2, "civilians", {"A2": "mafia", "B2": "mafia", "C2": "mafia", "D1": "commissar"}),
        game(3, None, {}, status="scheduled"),
    ]
    doc = small(*games)
    assert any(p.startswith("stages[0].games[2]") and "stage was over after tour 2" in p and "GP-13" in p
               for p in problems_of(doc))
    doc["stages"][0]["games"].pop()
    result = standings(doc)
    assert result.details["over"] is True
    assert team_row(result, "D").status == "winner"


def test_gp_13_a_stage_with_fewer_than_3_teams_out_is_not_over_and_not_final():
    doc = small(game(1, "civilians", {"A1": "mafia", "B1": "mafia", "C1": "civilian", "D1": "commissar"}))
    result = standings(doc)
    assert result.details["over"] is False
    assert result.final is False
    assert all(row.status in ("active", "eliminated") for row in result.teams)
    assert all(row.status != "qualified" for row in result.players)


def test_gp_13_an_out_team_may_not_be_listed_absent():
    games = [
        game(1, "civilians", {"A1": "mafia", "B1": "mafia", "C1": "civilian", "D1": "commissar"}),
        game(2, "civilians", {"A2": "mafia", "B2": "civilian", "C1": "civilian", "D1": "commissar"}),
        game(3, "civilians", {"B2": "mafia", "C1": "civilian", "D1": "commissar"}, absent=["A"]),
    ]
    assert any("absent_teams[0]" in p and "out of the tournament" in p for p in problems_of(small(*games)))


def test_gp_14_default_points_table():
    doc = small(game(1, "draw", {"A1": "don", "B1": "civilian", "C1": "commissar", "D1": "mafia"}),
                game(2, "mafia", {"A1": "mafia", "B1": "civilian", "C1": "commissar", "D2": "civilian"}),
                game(3, "civilians", {"A1": "mafia", "B2": "civilian", "C2": "commissar", "D1": "civilian"}))
    result = standings(doc)
    assert player_row(result, "A1").points == 3 + 4 + 0
    assert player_row(result, "B1").points == Fraction(1, 2)
    assert player_row(result, "B2").points == Fraction(3, 2)
    assert team_row(result, "D").points == 3 + 0 + Fraction(3, 2)
    facts = parse_document(doc)
    assert gp.seat_points(facts, "qualifying-1")[(1, "A1")] == (3, "draw as mafia")
    assert gp.seat_points(facts, "qualifying-1")[(2, "B1")] == (0, "civilians loss")


def test_gp_14_points_table_setting_overrides_entries():
    doc = small(game(1, "civilians", {"A1": "don", "B1": "civilian", "C1": "commissar", "D1": "maniac"}),
                settings={"points_table": {"civilians": {"civilians": "2.25"}, "maniac": {"civilians": 1}}})
    result = standings(doc)
    assert player_row(result, "B1").points == Fraction(9, 4)
    assert player_row(result, "D1").points == 1
    assert player_row(result, "A1").points == 0


def test_gp_15_three_way_tie_on_remaining_players_and_points_is_separated_by_the_worst_players():
    # Draws before tour 21 eliminate nobody: mafia 3, civilians 0.5 each.
    games = [
        game(1, "draw", {"A1": "mafia", "B1": "mafia", "C1": "mafia", "D1": "civilian"}),
        game(2, "draw", {"A2": "civilian", "B2": "civilian", "C1": "civilian", "D1": "civilian"}),
        game(3, "draw", {"A3": "civilian", "B2": "civilian", "C1": "civilian", "D1": "civilian"}),
    ]
    result = standings(document(stage("qualifying-1", 4, 3, games)))
    rows = result.teams
    assert [r.team for r in rows] == ["A", "B", "C", "D"]
    assert [r.points for r in rows[:3]] == [4, 4, 4]
    assert [r.tiebreaks["remaining_players"] for r in rows] == [3, 3, 3, 3]
    assert [r.details["worst_players"] for r in rows[:3]] == [[0.5, 0.5, 3.0], [0.0, 1.0, 3.0], [0.0, 0.0, 4.0]]
    assert [(r.rank, r.separated_by) for r in rows] == [(1, None), (2, "worst_player_1"), (3, "worst_player_2"),
                                                        (4, "points")]


def test_gp_15_the_worst_players_include_the_eliminated_ones():
    games = [
        game(1, "civilians", {"A1": "mafia", "B1": "mafia", "C1": "civilian", "D1": "commissar"}),
        game(2, "draw", {"A2": "mafia", "B2": "civilian", "C1": "civilian", "D1": "civilian"}),
        game(3, "draw", {"A3": "civilian", "B2": "mafia", "C2": "civilian", "D1": "civilian"}),
    ]
    # A: A1 0 (out), A2 3, A3 0.5; B: B1 0 (out), B2 3.5, B3 0. Both keep 2 players and score 3.5.
    # Counting the eliminated A1 and B1 the worst players are equal and the second-worst decide.
    result = standings(document(stage("qualifying-1", 4, 3, games)))
    assert [(r.team, r.rank, r.separated_by) for r in result.teams] == [
        ("C", 1, None), ("D", 2, "worst_player_2"), ("A", 3, "remaining_players"), ("B", 4, "worst_player_2")]


def test_gp_15_ranking_chain_remaining_players_then_points():
    games = [
        game(1, "civilians", {"A1": "mafia", "B1": "civilian", "C1": "civilian", "D1": "commissar"}),
        game(2, "draw", {"A2": "mafia", "B1": "civilian", "C1": "mafia", "D1": "civilian"}),
    ]
    result = standings(document(stage("qualifying-1", 4, 3, games)))
    assert [(r.team, r.rank, r.separated_by) for r in result.teams] == [
        ("C", 1, None), ("B", 2, "points"), ("D", 2, None), ("A", 4, "remaining_players")]


def test_gp_15_teams_equal_on_everything_share_the_rank_and_all_win():
    games = [
        game(1, "civilians", {"A1": "civilian", "B1": "civilian", "C1": "mafia", "D1": "mafia", "E1": "mafia"}),
        game(2, "civilians", {"A1": "civilian", "B1": "civilian", "C2": "mafia", "D2": "mafia", "E2": "mafia"}),
    ]
    result = standings(document(stage("qualifying-1", 5, 2, games)))
    assert [(r.team, r.rank, r.status) for r in result.teams] == [
        ("A", 1, "winner"), ("B", 1, "winner"), ("C", 3, "eliminated"), ("D", 3, "eliminated"),
        ("E", 3, "eliminated")]


def test_gp_15a_player_table_ranks_by_points_with_shared_ranks_in_name_order():
    doc = small(game(1, "mafia", {"B1": "don", "A1": "mafia", "C1": "commissar", "D1": "civilian"}))
    result = standings(doc)
    assert [(p.player, p.rank, p.games, p.status) for p in result.players] == [
        ("A1", 1, 1, "active"), ("B1", 1, 1, "active"), ("A2", 3, 0, "active"), ("B2", 3, 0, "active"),
        ("C1", 3, 1, "eliminated"), ("C2", 3, 0, "active"), ("D1", 3, 1, "eliminated"), ("D2", 3, 0, "active")]


def test_chart_figures_per_tour():
    doc = small(game(1, "mafia", {"A1": "don", "B1": "mafia", "C1": "commissar", "D1": "civilian"}),
                game(2, "civilians", {"A1": "don", "B1": "commissar", "C2": "civilian", "D2": "civilian"}))
    result = standings(doc)
    assert result.details["rounds"] == ["Tour 1", "Tour 2"]
    assert team_row(result, "A").details["points_by_round"] == [4.0, 0.0]
    assert team_row(result, "B").details["points_by_round"] == [4.0, 1.5]
    assert team_row(result, "A").details["remaining_by_round"] == [2, 1]


def test_gp_23_late_appeal_is_refused_and_the_deadline_is_72_hours_after_decided_at():
    seats = {"A1": "don", "B1": "civilian", "C1": "commissar", "D1": "civilian"}
    decision = {"stage": "qualifying-1", "game": 1, "kind": "technical_result", "outcome": "civilians",
                "decided_at": "2013-05-07T22:00:00+04:00", "published_at": "2013-05-08T22:00:00+04:00"}
    late = {"stage": "qualifying-1", "decision": 1, "kind": "decision", "filed_at": "2013-05-10T22:00:01+04:00",
            "verdict": "rejected"}
    assert any("appeals[0].filed_at" in p and "GP-23" in p for p in problems_of(small(game(1, "mafia", seats),
                                                                                    decisions=[decision],
                                                                                    appeals=[late])))
    in_time = dict(late, filed_at="2013-05-10T22:00:00+04:00")
    facts = parse_document(small(game(1, "mafia", seats), decisions=[decision], appeals=[in_time]))
    deadline = dt.datetime(2013, 5, 10, 22, 0, tzinfo=dt.timezone(dt.timedelta(hours=4)))
    assert gp.decision_deadline(facts, facts.decisions[0]) == deadline
    assert gp.appeal_deadline(facts, facts.appeals[0]) == deadline
    assert gp.verdict_due(facts, facts.appeals[0]) is None


def test_gp_23_final_waits_for_the_appeal_window_and_pending_appeals():
    games = [game(1, "civilians", {"A1": "mafia", "B1": "mafia", "C1": "mafia", "D1": "commissar"}),
             game(2, "civilians", {"A2": "mafia", "B2": "mafia", "C2": "mafia", "D1": "commissar"})]
    decision = {"stage": "qualifying-1", "kind": "qualify", "player": "A1", "reason": "vacancy",
                "decided_at": "2013-05-09T12:00:00+04:00"}
    doc = small(*games, decisions=[decision])
    before = dt.datetime(2013, 5, 12, 11, 59, tzinfo=dt.timezone(dt.timedelta(hours=4)))
    assert standings(doc, now=before).final is False
    assert standings(doc).final is True
    pending = {"stage": "qualifying-1", "decision": 1, "kind": "decision", "filed_at": "2013-05-10T10:00:00+04:00"}
    assert standings(small(*games, decisions=[decision], appeals=[pending])).final is False


def test_gp_23_an_accepted_appeal_annuls_the_decision():
    seats = {"A1": "don", "B1": "civilian", "C1": "commissar", "D1": "civilian"}
    decision = {"stage": "qualifying-1", "game": 1, "kind": "technical_result", "outcome": "civilians",
                "decided_at": "2013-05-07T22:00:00+04:00"}
    accepted = {"stage": "qualifying-1", "decision": 1, "kind": "decision",
                "filed_at": "2013-05-08T22:00:00+04:00", "verdict": "accepted"}
    result = standings(small(game(1, "mafia", seats), decisions=[decision], appeals=[accepted]))
    assert sorted(e["player"] for e in result.details["eliminations"]) == ["B1", "C1", "D1"]


def test_empty_document_and_unknown_stage():
    doc = document()
    result = standings(doc)
    assert result.teams == [] and result.final is False
    with pytest.raises(ValueError):
        gp.compute(parse_document(small()), "final", LATER)


def test_a_document_with_several_stages_gives_each_stage_its_own_table():
    first = small(game(1, "civilians", {"A1": "mafia", "B1": "mafia", "C1": "mafia", "D1": "commissar"}),
                  game(2, "civilians", {"A2": "mafia", "B2": "mafia", "C2": "mafia", "D1": "commissar"}))
    second = stage("qualifying-2", 4, 2, [game(1, "draw", {"A1": "mafia", "B1": "civilian", "C1": "civilian",
                                                           "D1": "civilian"})])
    doc = document(first["stages"][0], second)
    latest = standings(doc)
    assert latest.stage == "qualifying-2" and latest.final is False
    earlier = standings(doc, "qualifying-1")
    assert earlier.stage == "qualifying-1"
    assert team_row(earlier, "D").status == "winner"
    assert earlier.final is False  # a game of the tournament (qualifying-2) remains to be played
    facts = parse_document(doc)
    assert gp.no_show_seed(facts, "qualifying-2") == "gp-test/qualifying-2"
    assert set(gp.qualified_players(facts)) == {"D1", "D2"} | {
        f["player"] for f in earlier.details["finalists"]}


def test_scheduled_games_are_not_final_and_eliminate_nobody():
    doc = small(game(1, "civilians", {"A1": "mafia", "B1": "civilian", "C1": "civilian", "D1": "commissar"}),
                game(2, None, {}, status="scheduled"))
    result = standings(doc)
    assert [e["player"] for e in result.details["eliminations"]] == ["A1"]
    assert result.final is False
