"""The family league ruleset (spec/family_league.md): the example, then one test per rule code."""

from __future__ import annotations

import copy
import datetime as dt
import json
from fractions import Fraction
from pathlib import Path

import pytest

from rulesets import family_league
from rulesets.base import RulesetError
from rulesets.interchange import export_standings, parse_document
from tests.rulesets.test_family_league_builder import (
    NOW,
    at,
    document,
    export,
    filler_games,
    final_stage,
    full_game,
    game,
    names,
    qualifying_stage,
    row,
    seat,
    standings,
    team_row,
)

EXAMPLES = Path(__file__).resolve().parent.parent / "data" / "examples"
NINE = names(9)


def load(name: str) -> dict:
    return json.loads((EXAMPLES / name).read_text(encoding="utf-8"))


# --- acceptance ---------------------------------------------------------------------------------------------


def test_example_document_exports_the_expected_standings():
    facts = parse_document(load("family_league.json"))
    exported = export_standings(facts, family_league.compute(facts, None, NOW))
    assert exported == load("family_league.expected.json")


def test_example_is_not_final_while_most_of_the_30_final_games_remain():
    computed = family_league.compute(parse_document(load("family_league.json")), "final", NOW)
    assert computed.final is False
    assert computed.details["planned_games"] == 30
    assert computed.details["rounds"] == ["1", "2", "3", "4", "5", "6"]


def test_example_seat_points_name_their_reasons():
    points = family_league.seat_points(parse_document(load("family_league.json")), "final")
    assert points[(4, "Fam02-p2")] == (Fraction(6, 5), "loss, 3 kills")
    assert points[(2, "Fam03-p3")] == (Fraction(0), "civilians win; timeout: 0 of 3 days")
    assert points[(4, "Fam03-p4")][0] == 0 and points[(4, "Fam03-p4")][1].startswith("two_players")


# --- FL-0 .. FL-6: entry ------------------------------------------------------------------------------------


def test_fl_0_tournament_facts_are_accepted_as_settings():
    settings = {"room": "улица Ожидания", "organizers": ["Турнирные Мастера"], "curator": "Другой ветер",
                "judges": {"qualifying": ["Majesty", "Unstoppable"], "final": ["Tiberi"]},
                "ends_on": "2014-09-26", "registration_deadline": "2014-08-30"}
    assert family_league.validate_settings(settings) == []
    bad = family_league.validate_settings({"judges": {"semi": ["X"]}, "ends_on": "26.09.2014"})
    assert [p.path for p in bad] == ["judges.semi", "ends_on"]


def test_fl_1_only_the_family_head_may_apply():
    from rulesets.family_league.entry import can_apply

    doc = document(NINE, [])
    doc["families"] = [{"name": "Fam01", "head": "Fam01-p1"}]
    facts = parse_document(doc)
    assert can_apply(facts, "Fam01", "Fam01-p1")
    assert not can_apply(facts, "Fam01", "Fam01-p2")
    assert not can_apply(facts, "Fam02", "Fam02-p1")


def test_fl_2_too_few_families_is_noted_and_min_teams_is_a_setting():
    computed = standings(document(names(8), [final_stage(names(8), [])]))
    assert any("FL-2" in note for note in computed.notes)
    assert not any("FL-2" in n for n in standings(document(NINE, [final_stage(NINE, [])])).notes)
    assert [p.path for p in family_league.validate_settings({"min_teams": "nine"})] == ["min_teams"]


def test_fl_4_a_player_who_left_the_family_keeps_the_cup():
    doc = document(NINE, [final_stage(NINE, [full_game(1, NINE, "civilians")])])
    doc["players"] = [{"nick": "Fam01-p1", "family": "Fam02"}]
    cups = standings(doc).details["cups"]
    assert {"player": "Fam01-p1", "team": "Fam01", "cup": "gold cup", "place": 1} in cups
    assert not any(c["player"] == "Fam01-p2" for c in cups)


def _departure_league(left_at: str) -> dict:
    """Fam01-p1 wins game 1 as mafia (2 September), then sits in game 2 (4 September) and game 3 (no time)."""
    games = [full_game(1, NINE, "mafia", roles={"Fam01": "mafia"}, scheduled_at=at(2)),
             full_game(2, NINE, "civilians", scheduled_at=at(4)), full_game(3, NINE, "civilians")]
    doc = document(NINE, [final_stage(NINE, games)])
    doc["teams"][0]["left_at"] = {"Fam01-p1": left_at}
    return doc


def test_fl_4_a_player_who_left_the_family_scores_in_no_later_game_and_keeps_the_cup():
    doc = _departure_league(at(3, 12))
    points = family_league.seat_points(parse_document(doc), "final")
    assert points[(1, "Fam01-p1")] == (Fraction(4), "mafia win")
    for number in (2, 3):
        assert points[(number, "Fam01-p1")] == (
            Fraction(0), "ineligible_player (FL-15.2): Fam01-p1 left Fam01's roster at 2014-09-03T12:00:00+04:00 "
                         "(FL-3, FL-4)")
    computed = standings(doc)
    assert [(v["game"], v["team"], v["kind"], v["player"], v["fine"]) for v in computed.details["violations"]] == [
        (2, "Fam01", "ineligible_player", "Fam01-p1", 50), (3, "Fam01", "ineligible_player", "Fam01-p1", 75)]
    fam01 = team_row(computed, "Fam01")
    assert (fam01.rank, fam01.points) == (1, 4 - Fraction(2, 10))
    assert {"player": "Fam01-p1", "team": "Fam01", "cup": "gold cup", "place": 1} in computed.details["cups"]


def test_fl_3_a_player_removed_at_the_judging_moment_is_ineligible_in_every_game():
    doc = _departure_league(at(1, 19))  # 24 hours before the first game (FL-3)
    points = family_league.seat_points(parse_document(doc), "final")
    assert all(points[(n, "Fam01-p1")][1].startswith("ineligible_player (FL-15.2): Fam01-p1 left") for n in (1, 2, 3))
    computed = standings(doc)
    assert [(v["game"], v["kind"]) for v in computed.details["violations"]] == [
        (1, "ineligible_player"), (2, "ineligible_player"), (3, "ineligible_player")]
    assert not any(c["player"] == "Fam01-p1" for c in computed.details["cups"])


def test_fl_3_fl_4_a_departure_names_a_player_of_the_team_and_an_aware_time():
    doc = _departure_league(at(3))
    doc["teams"][0]["left_at"] = {"Fam02-p1": at(3), "Fam01-p2": "2014-09-03T12:00:00", "Fam01-p3": 5}
    with pytest.raises(RulesetError) as error:
        parse_document(doc)
    assert [p.path for p in error.value.problems] == [
        "teams[0].left_at.Fam02-p1", "teams[0].left_at.Fam01-p2", "teams[0].left_at.Fam01-p3"]
    doc["teams"][0]["left_at"] = ["Fam01-p1"]
    with pytest.raises(RulesetError, match="teams\\[0\\].left_at"):
        parse_document(doc)


def test_fl_5_a_seat_over_the_game_limit_is_ineligible_counting_every_earlier_seat():
    games = [
        full_game(1, NINE),
        game(2, [seat("Fam01-p1", team="Fam02")] + [seat(f"{t}-p2") for t in NINE]),
        full_game(3, NINE),
    ]
    doc = document(NINE, [final_stage(NINE, games)], settings={"max_games_per_player": 2})
    points = family_league.seat_points(parse_document(doc), "final")
    assert points[(1, "Fam01-p1")][0] == Fraction(3, 2)
    assert points[(2, "Fam01-p1")][1].startswith("ineligible_player")
    assert points[(3, "Fam01-p1")][1].startswith("ineligible_player (FL-15.2): Fam01-p1 already played 2 games")
    assert points[(3, "Fam02-p1")][0] == Fraction(3, 2)


def test_fl_6_a_fake_passport_seat_is_ineligible():
    seats = [seat("Fam01-p1", fake_passport=True), seat("Fam01-p2")] + [seat(f"{t}-p1") for t in NINE[1:]]
    doc = document(NINE, [final_stage(NINE, [game(1, seats)])])
    computed = standings(doc)
    assert team_row(computed, "Fam01").points == Fraction(3, 2) - Fraction(1, 10)
    kinds = [(v["team"], v["kind"]) for v in computed.details["violations"]]
    assert kinds == [("Fam01", "ineligible_player")]


# --- FL-7 .. FL-12: stages -----------------------------------------------------------------------------------


def test_fl_7_below_16_teams_the_final_has_30_games():
    assert standings(document(NINE, [final_stage(NINE, [])])).details["planned_games"] == 30
    sixteen = names(16)
    assert standings(document(sixteen, [final_stage(sixteen[:10], [])])).details["planned_games"] == 20


def test_fl_7_a_final_of_30_played_games_is_final_with_a_winner():
    games = [full_game(1, NINE, "mafia", roles={"Fam03": "don"})] + filler_games(2, 29, NINE)
    exported = export(document(NINE, [final_stage(NINE, games)]))
    assert exported["final"] is True
    assert exported["teams"][0] == {"rank": 1, "team": "Fam03", "points": 4.0, "status": "winner",
                                    "tiebreaks": {"mafia_points": 4.0}}
    assert {r["status"] for r in exported["teams"][1:]} == {"active"}
    short = export(document(NINE, [final_stage(NINE, games[:29])]))
    assert short["final"] is False and short["teams"][0]["status"] == "active"


def test_fl_7_a_scheduled_game_keeps_the_final_open():
    games = filler_games(1, 30, NINE) + [game(31, [], outcome=None, status="scheduled")]
    assert export(document(NINE, [final_stage(NINE, games)]))["final"] is False


def test_fl_8_a_team_in_two_groups_and_a_game_without_its_group_are_refused():
    sixteen = names(16)
    stage = qualifying_stage({"1": sixteen[:8], "2": sixteen[7:]}, [full_game(1, sixteen[:8])])
    with pytest.raises(RulesetError) as error:
        parse_document(document(sixteen, [stage]))
    paths = {p.path for p in error.value.problems}
    assert paths == {"stages[0].groups[1].teams[0]", "stages[0].games[0].group"}
    assert "FL-8" in str(error.value)


def test_fl_8_each_qualifying_group_plays_20_games_before_the_cut():
    sixteen = names(16)
    groups = {"1": sixteen[:8], "2": sixteen[8:]}
    games = []
    for first, (name, teams) in zip((1, 21), groups.items()):
        games.append(full_game(first, teams, "civilians", roles={t: "mafia" for t in teams[5:]}, group=name))
        games += filler_games(first + 1, 18 if name == "2" else 19, teams, group=name)
    open_stage = export(document(sixteen, [qualifying_stage(groups, games)]))
    assert {r["status"] for r in open_stage["teams"]} == {"active"}
    games += filler_games(40, 1, groups["2"], group="2")
    done = export(document(sixteen, [qualifying_stage(groups, games)]))
    assert [r["status"] for r in done["teams"]] == ["advanced"] * 5 + ["eliminated"] * 3 + ["advanced"] * 5 + [
        "eliminated"] * 3
    assert done["final"] is False and done["awards"] == []
    assert [r["group"] for r in done["teams"]] == ["1"] * 8 + ["2"] * 8


def test_fl_10_absent_teams_of_a_not_held_game_get_a_no_show_each_and_the_stage_needs_its_replay():
    games = filler_games(1, 29, NINE) + [
        game(30, [], outcome=None, status="not_held", absent_teams=["Fam02", "Fam03"])]
    computed = standings(document(NINE, [final_stage(NINE, games)]))
    assert computed.final is False
    assert team_row(computed, "Fam02").points == Fraction(-1, 10)
    assert [(v["team"], v["kind"], v["code"], v["fine"]) for v in computed.details["violations"]] == [
        ("Fam02", "no_show", "FL-10", 50), ("Fam03", "no_show", "FL-10", 50)]
    replayed = games + filler_games(31, 1, NINE)
    decision = {"stage": "final", "game": 30, "kind": "replay", "decided_at": at(2)}
    computed = standings(document(NINE, [final_stage(NINE, replayed)], decisions=[decision]))
    assert computed.final is True
    assert team_row(computed, "Fam03").points == Fraction(-1, 10)


def test_fl_10_absent_team_outside_the_group_is_refused():
    games = [game(1, [], outcome=None, status="not_held", absent_teams=["Fam10"])]
    with pytest.raises(RulesetError, match="FL-10"):
        parse_document(document(names(10), [final_stage(NINE, games)]))


def _cut_league() -> tuple[list[str], dict]:
    """Group 1: Fam05 and Fam06 tied on points at the cut, Fam05 with more mafia points.
    Group 2: Fam13 and Fam14 tied on points and mafia points at the cut."""
    t = names(16)
    g1, g2 = t[:8], t[8:]
    games = [
        full_game(1, g1, "draw", roles={"Fam05": "mafia", "Fam06": "maniac"}, group="1"),
        full_game(2, g1, "civilians", roles={"Fam05": "mafia", "Fam07": "mafia", "Fam08": "mafia"}, group="1"),
        full_game(3, g1, "civilians", roles={"Fam05": "mafia", "Fam06": "mafia", "Fam08": "mafia"}, group="1"),
        full_game(4, g2, "civilians", roles={"Fam15": "mafia", "Fam16": "mafia"}, group="2"),
        full_game(5, g2, "civilians", roles={"Fam13": "mafia", "Fam14": "mafia", "Fam15": "don",
                                             "Fam16": "mafia"}, group="2"),
        full_game(6, g2, "mafia", group="2"),
    ]
    return t, qualifying_stage({"1": g1, "2": g2}, games)


def test_fl_11_a_tie_at_the_cut_goes_to_mafia_points_and_else_to_the_curator():
    teams, stage = _cut_league()
    exported = export(document(teams, [stage], settings={"qualifying_games": 3}))
    group1 = [r for r in exported["teams"] if r["group"] == "1"]
    assert [(r["team"], r["rank"], r["points"], r["tiebreaks"]["mafia_points"], r["status"]) for r in group1] == [
        ("Fam01", 1, 3.5, 0.0, "advanced"), ("Fam02", 1, 3.5, 0.0, "advanced"),
        ("Fam03", 1, 3.5, 0.0, "advanced"), ("Fam04", 1, 3.5, 0.0, "advanced"),
        ("Fam05", 5, 3.0, 3.0, "advanced"), ("Fam06", 6, 3.0, 0.0, "eliminated"),
        ("Fam07", 7, 2.0, 0.0, "eliminated"), ("Fam08", 8, 0.5, 0.0, "eliminated")]
    group2 = [(r["team"], r["rank"], r["status"]) for r in exported["teams"] if r["group"] == "2"]
    assert group2 == [("Fam09", 1, "advanced"), ("Fam10", 1, "advanced"), ("Fam11", 1, "advanced"),
                      ("Fam12", 1, "advanced"), ("Fam13", 5, "active"), ("Fam14", 5, "active"),
                      ("Fam15", 7, "eliminated"), ("Fam16", 7, "eliminated")]
    computed = standings(document(teams, [stage], settings={"qualifying_games": 3}))
    assert computed.details["cut_ties"] == [{"group": "2", "rank": 5, "teams": ["Fam13", "Fam14"], "settled": False}]
    assert any("curator decides (FL-11)" in note for note in computed.notes)
    assert team_row(computed, "Fam06").separated_by == "mafia_points"


def test_fl_11_the_curators_tie_break_decision_settles_the_cut():
    teams, stage = _cut_league()
    decision = {"stage": "qualifying", "kind": "tie_break", "order": ["Fam14", "Fam13"], "by": "Другой ветер",
                "decided_at": at(20)}
    computed = standings(document(teams, [stage], settings={"qualifying_games": 3}, decisions=[decision]))
    assert [(r.team, r.rank, r.status, r.separated_by) for r in computed.teams if r.group == "2"][4:6] == [
        ("Fam14", 5, "advanced", "points"), ("Fam13", 6, "eliminated", "tie_break")]
    assert computed.details["cut_ties"] == []


def test_fl_11_qualifying_table_after_the_final_started():
    teams, stage = _cut_league()
    doc = document(teams, [stage, final_stage(teams[:5] + teams[8:12], [])], settings={"qualifying_games": 3})
    assert export(doc, "qualifying")["stage"] == "qualifying"
    assert export(doc)["stage"] == "final"
    with pytest.raises(RulesetError):
        standings(document(teams, [stage]), "final")


def _shared_second_place(**settings) -> dict:
    """Fam01 5.5; Fam02 and Fam03 1.5 each; Fam04 1.0 (a fair-play penalty); the rest 0."""
    games = [
        full_game(1, NINE, "civilians", roles={t: "mafia" for t in NINE[4:]}),
        full_game(2, NINE, "mafia", roles={"Fam01": "don"}),
    ]
    penalty = {"stage": "final", "game": 2, "team": "Fam04", "kind": "fair_play", "code": "FP-9", "points": "0.5",
               "decided_at": at(3)}
    return document(NINE, [final_stage(NINE, games)], penalties=[penalty], settings=settings or None)


def test_fl_12_equal_points_and_mafia_points_share_the_place_and_skip_the_next():
    exported = export(_shared_second_place())
    assert [(r["team"], r["rank"]) for r in exported["teams"]] == [
        ("Fam01", 1), ("Fam02", 2), ("Fam03", 2), ("Fam04", 4), ("Fam05", 5), ("Fam06", 5), ("Fam07", 5),
        ("Fam08", 5), ("Fam09", 5)]


def test_fl_12_the_final_counts_final_points_only_and_mafia_points_break_ties():
    sixteen = names(16)
    qualifying = qualifying_stage({"1": sixteen[:8], "2": sixteen[8:]},
                                  [full_game(1, sixteen[:8], "mafia", roles={"Fam02": "mafia"}, group="1")])
    finalists = sixteen[:5] + sixteen[8:13]
    others = {t: "mafia" for t in finalists if t not in ("Fam02", "Fam03")}
    final_games = [
        full_game(1, finalists, "mafia", roles={"Fam01": "mafia"}),
        full_game(2, finalists, "civilians", roles=others),
        full_game(3, finalists, "civilians", roles=others),
    ]
    doc = document(sixteen, [qualifying, final_stage(finalists, final_games)])
    computed = standings(doc)
    top = [(r.team, r.rank, r.points, r.separated_by) for r in computed.teams[:3]]
    assert top == [("Fam01", 1, 4, None), ("Fam02", 2, 3, "points"), ("Fam03", 2, 3, None)]
    assert all(r.group is None for r in computed.teams)
    assert len(computed.teams) == 10
    not_fam02 = {t: "mafia" for t in finalists if t != "Fam02"}
    mafia_tie = [full_game(1, finalists, "mafia", roles={"Fam01": "mafia"}),
                 full_game(2, finalists, "civilians", roles=not_fam02),
                 full_game(3, finalists, "civilians", roles=not_fam02)]
    penalty = {"stage": "final", "team": "Fam01", "kind": "fair_play", "points": 1, "decided_at": at(9)}
    computed = standings(document(sixteen, [qualifying, final_stage(finalists, mafia_tie)], penalties=[penalty]))
    assert [(r.team, r.rank, r.separated_by) for r in computed.teams[:2]] == [("Fam01", 1, None),
                                                                             ("Fam02", 2, "mafia_points")]


# --- FL-13, FL-14: points ------------------------------------------------------------------------------------


def test_fl_13_default_points_table_with_maniac_kills():
    games = [
        game(1, [seat("Fam01-p1", "maniac", maniac_kills=4), seat("Fam02-p1", "don"), seat("Fam03-p1")], "maniac"),
        game(2, [seat("Fam01-p1", "maniac", maniac_kills=2), seat("Fam02-p1", "mafia"), seat("Fam03-p1")], "draw"),
        game(3, [seat("Fam01-p1", "maniac", maniac_kills=1), seat("Fam02-p1", "mafia"), seat("Fam03-p1")],
             "civilians"),
    ]
    points = family_league.seat_points(parse_document(document(NINE, [final_stage(NINE, games)])), "final")
    assert points[(1, "Fam01-p1")] == (Fraction(7, 2), "maniac win, 4 kills")
    assert points[(1, "Fam02-p1")][0] == 0
    assert points[(2, "Fam01-p1")][0] == Fraction(12, 5)
    assert points[(2, "Fam02-p1")] == (Fraction(3), "draw")
    assert points[(2, "Fam03-p1")] == (Fraction(1, 2), "draw")
    assert points[(3, "Fam01-p1")] == (Fraction(1, 2), "loss, 1 kill")
    assert points[(3, "Fam03-p1")] == (Fraction(3, 2), "civilians win")


def test_fl_13_points_table_setting_overrides_single_entries():
    settings = {"points_table": {"mafia": {"win": "4.5"}, "maniac": {"kills": [1]}}}
    games = [game(1, [seat("Fam01-p1", "maniac", maniac_kills=3), seat("Fam02-p1", "mafia"), seat("Fam03-p1")],
                  "mafia")]
    computed = standings(document(NINE, [final_stage(NINE, games)], settings=settings))
    assert team_row(computed, "Fam01").points == 3
    assert team_row(computed, "Fam02").points == Fraction(9, 2)
    problems = family_league.validate_settings({"points_table": {"mafia": {"win": -1, "loss": 0}, "town": {}}})
    assert [p.path for p in problems] == ["points_table.town", "points_table.mafia.loss", "points_table.mafia.win"]


def test_fl_13_only_played_and_technical_games_score():
    games = [
        full_game(1, NINE, "civilians"),
        game(2, [], outcome=None, status="scheduled"),
        game(3, [], outcome=None, status="annulled"),
        game(4, [seat("Fam01-p2", "don"), seat("Fam02-p2")], "mafia", status="technical"),
        full_game(5, NINE, "mafia", roles={"Fam02": "mafia"}),
    ]
    decisions = [{"stage": "final", "game": 5, "kind": "replay", "code": "FP-3", "decided_at": at(5)},
                 {"stage": "final", "game": 1, "kind": "technical_result", "outcome": "mafia", "code": "FP-4",
                  "decided_at": at(5)}]
    computed = standings(document(NINE, [final_stage(NINE, games)], decisions=decisions))
    assert team_row(computed, "Fam01").points == 4
    assert team_row(computed, "Fam02").points == 0
    # FL-15: the technical game 4 is a started game, so the teams without a seat in it are no-shows
    assert [(v["game"], v["team"], v["kind"]) for v in computed.details["violations"]] == [
        (4, team, "no_show") for team in NINE[2:]]


def test_fl_14_a_timeout_with_zero_game_days_scores_nothing():
    seats = [seat("Fam01-p1", timed_out=True, days_played=0), seat("Fam02-p1")]
    computed = standings(document(NINE, [final_stage(NINE[:2], [game(1, seats, game_days=0)])]))
    assert team_row(computed, "Fam01").points == 0
    assert team_row(computed, "Fam02").points == Fraction(3, 2)


def test_fl_14_a_timeout_scores_days_played_over_game_days():
    seats = [seat("Fam01-p1", timed_out=True, days_played=3), seat("Fam02-p1", "mafia", timed_out=True),
             seat("Fam03-p1", "don", timed_out=True, days_played=2)]
    computed = standings(document(NINE, [final_stage(NINE[:3], [game(1, seats, "civilians", game_days=5)])]))
    assert team_row(computed, "Fam01").points == Fraction(9, 10)
    assert team_row(computed, "Fam02").points == 0
    mafia_win = [seat("Fam02-p1", "mafia", timed_out=True, days_played=2), seat("Fam01-p1")]
    computed = standings(document(NINE, [final_stage(NINE[:2], [game(1, mafia_win, "mafia", game_days=6)])]))
    assert team_row(computed, "Fam02").points == Fraction(4, 3)
    assert team_row(computed, "Fam02").tiebreaks["mafia_points"] == Fraction(4, 3)


def test_fl_14_days_played_beyond_game_days_is_refused():
    seats = [seat("Fam01-p1", timed_out=True, days_played=4)]
    with pytest.raises(RulesetError, match="days_played"):
        parse_document(document(NINE, [final_stage(NINE, [game(1, seats, game_days=3)])]))


# --- FL-15 .. FL-18: penalties and fines --------------------------------------------------------------------


def test_fl_15_two_players_of_one_team_in_one_game_second_seat_scores_nothing():
    seats = [seat("Fam01-p1"), seat("Fam02-p1"), seat("Fam01-p2")]
    doc = document(NINE, [final_stage(NINE[:2], [game(1, seats, "civilians")])])
    computed = standings(doc)
    assert team_row(computed, "Fam01").points == Fraction(3, 2) - Fraction(1, 10)
    assert computed.details["violations"][0] == {
        "stage": "final", "game": 1, "team": "Fam01", "kind": "two_players", "code": "FL-15.3",
        "player": "Fam01-p2", "seat": 2, "points": 0.1, "decided_at": None,
        "text": "two_players (FL-15.3): Fam01 already has a player in game 1", "number": 1, "fine": 50}
    points = family_league.seat_points(parse_document(doc), "final")
    assert points[(1, "Fam01-p2")][0] == 0


def test_fl_15_seat_order_decides_which_seat_scores():
    seats = [seat("Fam01-p1", "mafia", team="Fam01", fake_passport=True), seat("Fam01-p2"), seat("Fam01-p3"),
             seat("Fam02-p1")]
    computed = standings(document(NINE, [final_stage(NINE[:2], [game(1, seats, "civilians")])]))
    assert [(v["player"], v["kind"]) for v in computed.details["violations"]] == [
        ("Fam01-p1", "ineligible_player"), ("Fam01-p3", "two_players")]
    assert team_row(computed, "Fam01").points == Fraction(3, 2) - Fraction(2, 10)


def test_fl_15_foreign_player_from_another_group_and_no_show():
    sixteen = names(16)
    g1, g2 = sixteen[:8], sixteen[8:]
    seats = [seat(f"{t}-p1") for t in g1[:-1]] + [seat("Fam09-p1")]
    stage = qualifying_stage({"1": g1, "2": g2}, [game(1, seats, "civilians", group="1")])
    computed = standings(document(sixteen, [stage]))
    assert [(v["team"], v["kind"]) for v in computed.details["violations"]] == [
        ("Fam09", "foreign_player"), ("Fam08", "no_show")]
    assert team_row(computed, "Fam09").points == Fraction(-1, 10)
    assert team_row(computed, "Fam08").points == Fraction(-1, 10)
    assert team_row(computed, "Fam01").points == Fraction(3, 2)


def test_fl_15_a_player_not_on_the_roster_is_ineligible_and_the_team_is_not_a_no_show():
    seats = [seat("Stranger", team="Fam01"), seat("Fam02-p1")]
    doc = document(NINE, [final_stage(NINE[:2], [game(1, seats)])], players=[{"nick": "Stranger"}])
    computed = standings(doc)
    assert [(v["team"], v["kind"]) for v in computed.details["violations"]] == [("Fam01", "ineligible_player")]


def test_fl_15_disqualifications_apply_from_their_decision_on():
    games = [full_game(1, NINE, scheduled_at=at(1)), full_game(2, NINE, scheduled_at=at(3))]
    decisions = [{"kind": "disqualification", "team": "Fam09", "decided_at": at(2)},
                 {"kind": "disqualification", "player": "Fam08-p1", "decided_at": at(2)}]
    computed = standings(document(NINE, [final_stage(NINE, games)], decisions=decisions))
    assert [(v["game"], v["team"], v["kind"]) for v in computed.details["violations"]] == [
        (2, "Fam08", "ineligible_player"), (2, "Fam09", "foreign_player")]
    last = computed.teams[-1]
    assert (last.team, last.status, last.rank, last.separated_by) == ("Fam09", "disqualified", 9, "disqualified")
    assert last.points == Fraction(3, 2) - Fraction(1, 10)
    assert all(a.team != "Fam09" for a in computed.awards)


def test_fl_15_a_disqualified_player_flag_applies_to_every_game():
    doc = document(NINE, [final_stage(NINE, [full_game(1, NINE)])],
                   players=[{"nick": "Fam01-p1", "disqualified": True}])
    computed = standings(doc)
    assert [(v["team"], v["kind"]) for v in computed.details["violations"]] == [("Fam01", "ineligible_player")]


def _judged_game(status: str, decisions: list[dict] | None = None):
    """Group 1 of 16 teams: Fam01 twice, Fam02 on a fake passport, Fam09 of group 2, Fam08 absent."""
    sixteen = names(16)
    seats = [seat("Fam01-p1"), seat("Fam01-p2"), seat("Fam02-p1", fake_passport=True), seat("Fam09-p1")] + [
        seat(f"{t}-p1") for t in sixteen[2:7]]
    stage = qualifying_stage({"1": sixteen[:8], "2": sixteen[8:]},
                             [game(1, seats, "civilians", status=status, group="1", scheduled_at=at(2))])
    return standings(document(sixteen, [stage], decisions=decisions))


def test_fl_15_technical_game_seats_are_judged_like_played_ones():
    played = _judged_game("played")
    expected = [("Fam01", "two_players", "FL-15.3", 1, 50), ("Fam02", "ineligible_player", "FL-15.2", 2, 50),
                ("Fam09", "foreign_player", "FL-15.4", 3, 50), ("Fam08", "no_show", "FL-15.1", None, 50)]
    awarded = [{"stage": "qualifying", "game": 1, "kind": "technical_result", "outcome": "civilians",
                "code": "FP-4", "decided_at": at(3)}]
    for computed in (played, _judged_game("technical"), _judged_game("played", awarded)):
        assert [(v["team"], v["kind"], v["code"], v["seat"], v["fine"])
                for v in computed.details["violations"]] == expected
        assert team_row(computed, "Fam01").points == Fraction(3, 2) - Fraction(1, 10)
        assert team_row(computed, "Fam02").points == Fraction(-1, 10)
        assert team_row(computed, "Fam08").points == Fraction(-1, 10)
        assert team_row(computed, "Fam09").points == Fraction(-1, 10)


def test_fl_15_fl_5_fl_17_earlier_technical_seats_count_for_the_limit_and_the_fine_numbering():
    games = [full_game(1, NINE[1:]), game(2, [seat(f"{t}-p2") for t in NINE[1:]], status="technical"),
             full_game(3, NINE[1:], player=3)]
    computed = standings(document(NINE, [final_stage(NINE, games)]))
    assert [(v["game"], v["kind"], v["fine"]) for v in team_row(computed, "Fam01").details["penalties"]] == [
        (1, "no_show", 50), (2, "no_show", 75), (3, "no_show", 100)]
    limited = [game(1, [seat("Fam01-p1"), seat("Fam02-p1")], status="technical"),
               game(2, [seat("Fam01-p1"), seat("Fam02-p2")]),
               game(3, [seat("Fam01-p2"), seat("Fam01-p1")], status="technical")]
    doc = document(NINE, [final_stage(NINE[:2], limited)], settings={"max_games_per_player": 1})
    computed = standings(doc)
    points = family_league.seat_points(parse_document(doc), "final")
    assert points[(2, "Fam01-p1")][1].startswith("ineligible_player (FL-15.2): Fam01-p1 already played 1 games")
    assert [(v["game"], v["team"], v["kind"], v["fine"]) for v in computed.details["violations"]] == [
        (2, "Fam01", "ineligible_player", 50), (3, "Fam01", "ineligible_player", 75),
        (3, "Fam02", "no_show", 50)]


def test_fl_16_a_penalty_costs_points_only_in_its_stage():
    sixteen = names(16)
    g1, g2 = sixteen[:8], sixteen[8:]
    q_games = [game(1, [seat(f"{t}-p1") for t in g1[1:]], "civilians", group="1")]
    stage_q = qualifying_stage({"1": g1, "2": g2}, q_games)
    finalists = g1[:5] + g2[:5]
    doc = document(sixteen, [stage_q, final_stage(finalists, [full_game(1, finalists)])])
    assert row(export(doc, "qualifying"), "Fam01")["points"] == -0.1
    assert row(export(doc), "Fam01")["points"] == 1.5


def test_fl_17_the_third_violation_of_a_team_costs_100_mf():
    games = [full_game(n, NINE[1:]) for n in (1, 2, 3)]
    computed = standings(document(NINE, [final_stage(NINE, games)]))
    fam01 = team_row(computed, "Fam01")
    assert [p["fine"] for p in fam01.details["penalties"]] == [50, 75, 100]
    assert [p["running_total"] for p in fam01.details["penalties"]] == [50, 125, 225]
    assert fam01.details["fines_total"] == 225
    assert fam01.points == Fraction(-3, 10)


def test_fl_17_fine_counter_tournament_numbers_every_violation_together():
    games = [full_game(1, NINE[1:]), full_game(2, NINE[:-1])]
    computed = standings(document(NINE, [final_stage(NINE, games)], settings={"fine_counter": "tournament"}))
    assert [(v["team"], v["fine"]) for v in computed.details["violations"]] == [("Fam01", 50), ("Fam09", 75)]


def test_fl_18_fair_play_points_replace_the_tenth_and_share_the_fine_numbering():
    games = [full_game(1, NINE[1:]), full_game(2, NINE), full_game(3, NINE[1:])]
    penalties = [
        {"stage": "final", "team": "Fam01", "kind": "fair_play", "code": "FP-11", "points": "0.75",
         "decided_at": at(10)},
        {"stage": "final", "game": 2, "player": "Fam01-p1", "kind": "fair_play", "code": "FP-9", "points": 1,
         "decided_at": at(3)},
    ]
    computed = standings(document(NINE, [final_stage(NINE, games)], penalties=penalties))
    fam01 = team_row(computed, "Fam01")
    assert fam01.points == Fraction(3, 2) - Fraction(1, 10) * 2 - 1 - Fraction(3, 4)
    assert [(p["game"], p["kind"], p["code"], p["fine"]) for p in fam01.details["penalties"]] == [
        (1, "no_show", "FL-15.1", 50), (2, "fair_play", "FP-9", 75), (3, "no_show", "FL-15.1", 100),
        (None, "fair_play", "FP-11", 125)]


def test_fl_18_a_penalty_without_stage_or_team_is_refused():
    penalties = [{"kind": "fair_play", "points": "0.5"}]
    with pytest.raises(RulesetError) as error:
        parse_document(document(NINE, [final_stage(NINE, [])], penalties=penalties))
    assert {p.path for p in error.value.problems} == {"penalties[0].stage", "penalties[0].team"}


# --- FL-19: appeals ------------------------------------------------------------------------------------------


def _with_decision(appeals: list[dict] | None = None) -> dict:
    games = [full_game(1, NINE, "civilians", roles={"Fam02": "mafia"})] + filler_games(2, 29, NINE)
    decision = {"stage": "final", "game": 1, "kind": "technical_result", "outcome": "mafia", "code": "FP-4",
                "decided_at": at(2, 12), "published_at": at(2, 18), "by": "Tiberi"}
    return document(NINE, [final_stage(NINE, games)], decisions=[decision], appeals=appeals)


def test_fl_19_an_appeal_after_72_hours_from_publication_is_refused():
    late = {"stage": "final", "decision": 1, "appellant": "Fam01", "kind": "decision", "filed_at": at(5, 19),
            "verdict": "rejected"}
    with pytest.raises(RulesetError, match="FL-19"):
        parse_document(_with_decision([late]))
    in_time = dict(late, filed_at=at(5, 18))
    facts = parse_document(_with_decision([in_time]))
    assert family_league.appeal_deadline(facts, facts.appeals[0]).isoformat() == "2014-09-05T18:00:00+04:00"
    assert family_league.decision_deadline(facts, facts.decisions[0]) == family_league.appeal_deadline(
        facts, facts.appeals[0])
    assert family_league.verdict_due(facts, facts.appeals[0]) is None


def test_fl_19_final_waits_for_pending_appeals_and_open_windows():
    pending = {"stage": "final", "decision": 1, "appellant": "Fam01", "kind": "decision", "filed_at": at(3)}
    assert export(_with_decision([pending]))["final"] is False
    facts = parse_document(_with_decision())
    assert family_league.compute(facts, None, NOW).final is True
    inside = facts.decisions[0].published_at.replace(day=5, hour=17)
    assert family_league.compute(facts, None, inside).final is False


def test_fl_19_an_accepted_appeal_annuls_the_decision_and_recomputes():
    assert row(export(_with_decision()), "Fam02")["points"] == 4.0
    accepted = {"stage": "final", "decision": 1, "appellant": "Fam01", "kind": "decision", "filed_at": at(3),
                "verdict": "accepted"}
    assert row(export(_with_decision([accepted])), "Fam02")["points"] == 0.0
    assert row(export(_with_decision([accepted])), "Fam01")["points"] == 1.5


def test_fl_19_a_fair_play_penalty_opens_its_own_72_hour_window():
    """A judge's penalty is appealable like any decision (roles.md), within 72 hours of its publication,
    so the final is not final before that window closes (it asserted the opposite before penalties were
    appealable)."""
    games = filler_games(1, 30, NINE)
    penalty = {"stage": "final", "team": "Fam01", "kind": "fair_play", "points": "0.2", "decided_at": at(20)}
    facts = parse_document(document(NINE, [final_stage(NINE, games)], penalties=[penalty]))
    closes = facts.penalties[0].decided_at + dt.timedelta(hours=72)
    assert family_league.compute(facts, None, facts.penalties[0].decided_at.replace(day=21)).final is False
    assert family_league.compute(facts, None, closes).final is False
    assert family_league.compute(facts, None, closes + dt.timedelta(microseconds=1)).final is True


# --- FL-20, FL-21: prizes ------------------------------------------------------------------------------------


def test_fl_20_places_1_to_5_get_prizes_and_the_first_three_cups():
    exported = export(_shared_second_place(shared_prize="each_full"))
    awards = [(a["place"], a["team"], a["prize"], a["items"]) for a in exported["awards"]]
    assert awards[:4] == [(1, "Fam01", 6000, ["gold cup"]), (2, "Fam02", 4500, ["silver cup"]),
                          (2, "Fam03", 4500, ["silver cup"]), (4, "Fam04", 2000, [])]
    assert all(a["player"] is None and a["currency"] == "mf" for a in exported["awards"])
    cups = standings(_shared_second_place()).details["cups"]
    assert {c["player"] for c in cups if c["team"] == "Fam01"} == {"Fam01-p1"}
    assert {(c["team"], c["cup"]) for c in cups} == {("Fam01", "gold cup"), ("Fam02", "silver cup"),
                                                     ("Fam03", "silver cup")}


def test_fl_21_two_teams_sharing_second_place_split_8000_and_the_next_team_is_fourth():
    exported = export(_shared_second_place())
    awards = [(a["place"], a["team"], a["prize"], a["items"]) for a in exported["awards"]]
    assert awards == [(1, "Fam01", 6000, ["gold cup"]), (2, "Fam02", 4000, ["silver cup"]),
                      (2, "Fam03", 4000, ["silver cup"]), (4, "Fam04", 2000, []),
                      (5, "Fam05", 200, []), (5, "Fam06", 200, []), (5, "Fam07", 200, []),
                      (5, "Fam08", 200, []), (5, "Fam09", 200, [])]


def test_fl_21_split_one_and_rounding_down():
    split = export(_shared_second_place(shared_prize="split_one"))
    assert [a["prize"] for a in split["awards"][:4]] == [6000, 2250, 2250, 2000]
    doc = _shared_second_place()
    doc["penalties"] = []
    three_way = export(doc)
    assert [(a["place"], a["prize"]) for a in three_way["awards"][:4]] == [(1, 6000), (2, 3333), (2, 3333),
                                                                           (2, 3333)]
    assert family_league.validate_settings({"shared_prize": "half"})[0].path == "shared_prize"


# --- protocol --------------------------------------------------------------------------------------------------


def test_settings_defaults_and_unknown_settings():
    assert family_league.DEFAULT_SETTINGS["prizes"] == [6000, 4500, 3500, 2000, 1000]
    assert family_league.DEFAULT_SETTINGS["points_table"]["maniac"]["kills"] == [0.5, 0.4, 0.3]
    json.dumps(family_league.DEFAULT_SETTINGS)
    with pytest.raises(RulesetError, match="tournament.settings.bonus"):
        parse_document(document(NINE, [], settings={"bonus": 1}))
    problems = family_league.validate_settings({"room_comment": "{group} {round}", "prizes": [100, -1],
                                                "game_times": ["22:00", "19:00"]})
    assert [p.path for p in problems] == ["prizes", "room_comment", "game_times"]


def test_unknown_or_missing_stage_is_an_error():
    doc = document(NINE, [final_stage(NINE, [])])
    with pytest.raises(RulesetError):
        standings(doc, "semifinal")
    with pytest.raises(RulesetError):
        standings(doc, "qualifying")


def test_a_document_without_stages_gives_an_empty_final_table():
    computed = standings(document(NINE, []))
    assert computed.stage == "final" and computed.final is False
    assert [r.rank for r in computed.teams] == [1] * 9


def test_team_details_hold_points_by_round_for_a_chart():
    computed = standings(_shared_second_place())
    assert computed.details["rounds"] == ["1", "2"]
    assert team_row(computed, "Fam01").details["points_by_round"] == [1.5, 4.0]
    assert team_row(computed, "Fam04").details["points_by_round"] == [1.5, -0.5]
    json.dumps(computed.details)
    json.dumps([r.details for r in computed.teams])


def test_input_document_is_not_changed():
    doc = _shared_second_place()
    before = copy.deepcopy(doc)
    export(doc)
    assert doc == before


def test_fl_0_only_the_stages_judges_or_the_curator_record_technical_results():
    games = [full_game(1, NINE)]
    decision = {"stage": "final", "game": 1, "kind": "technical_result", "outcome": "mafia", "by": "Majesty",
                "decided_at": at(2)}
    settings = {"curator": "Другой ветер", "judges": {"final": ["Tiberi"]}}
    with pytest.raises(RulesetError, match="FL-0"):
        parse_document(document(NINE, [final_stage(NINE, games)], decisions=[decision], settings=settings))
    for by in ("Tiberi", "Другой ветер"):
        parse_document(document(NINE, [final_stage(NINE, games)], decisions=[dict(decision, by=by)],
                                settings=settings))


def test_fl_8_a_final_without_groups_after_a_qualifying_holds_the_teams_its_games_name():
    sixteen = names(16)
    stage_q = qualifying_stage({"1": sixteen[:8], "2": sixteen[8:]}, [])
    finalists = sixteen[:5] + sixteen[8:13]
    doc = document(sixteen, [stage_q, {"key": "final", "games": [full_game(1, finalists)]}])
    computed = standings(doc)
    assert sorted(r.team for r in computed.teams) == sorted(finalists)
    assert computed.details["violations"] == []


def test_fl_11_the_qualifying_is_over_once_the_final_is_in_the_document():
    teams, stage = _cut_league()
    finalists = teams[:5] + teams[8:13]
    doc = document(teams, [stage, final_stage(finalists, [])])
    statuses = {r["team"]: r["status"] for r in export(doc, "qualifying")["teams"]}
    assert (statuses["Fam05"], statuses["Fam06"], statuses["Fam13"]) == ("advanced", "eliminated", "active")
