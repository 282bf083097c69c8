"""``class_balanced``: refusals of a document, judge's decisions, appeals and ``final`` (CB-1, CB-6, CB-9, CB-15..CB-17)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from fractions import Fraction

import pytest

from rulesets import class_balanced as cb
from rulesets.base import RulesetError
from rulesets.facts import Decision, Seat
from tests.rulesets.test_class_balanced_builder import (
    TEAMS,
    document,
    export,
    full_tournament,
    game,
    parse,
    rows,
    seat,
    stage_2_games,
)

MSK = dt.timezone(dt.timedelta(hours=3))


def _problems(doc: dict) -> list[str]:
    with pytest.raises(RulesetError) as error:
        parse(doc)
    return [str(p) for p in error.value.problems]


# --------------------------------------------------------------------------- refusals


def test_cb_1_two_seats_of_one_team_in_a_game_are_refused():
    games = [game(1, [seat("T01"), seat("T01", player="T01-p2")])]
    assert _problems(document({"stage-1": games})) == [
        "stages[0].games[0].seats[1].team: two seats of team T01 in game 1: one player a team (CB-1)"]


def test_cb_1_more_seats_than_players_a_game_are_refused():
    games = [game(1, [seat(t) for t in TEAMS[:8]])]
    assert _problems(document({"stage-1": games})) == [
        "stages[0].games[0].seats: game 1 has 8 seats; a stage-1 game has 7 players (CB-1)"]


def test_cb_1_a_player_of_another_team_is_refused():
    games = [game(1, [seat("T01", player="T02-p3")])]
    assert _problems(document({"stage-1": games})) == [
        "stages[0].games[0].seats[0].player: T02-p3 is not a player of team T01 (CB-1)"]


def test_cb_6_a_full_stage_2_game_needs_4_c_5_b_4_a():
    games = stage_2_games(TEAMS[:13])[:1]
    games[0]["seats"][0]["stats"] = 400
    problems = _problems(document({"stage-2": games}))
    assert problems == ["stages[0].games[0].seats: game 1 has 3 C, 5 B, 5 A; a stage-2 game has 4 C, 5 B, 4 A (CB-6)"]


def test_cb_6_a_stage_2_game_with_missing_seats_is_not_checked_for_its_mix():
    games = stage_2_games(TEAMS[:13])[:1]
    games[0]["seats"] = games[0]["seats"][:12]
    parse(document({"stage-2": games}))


def test_cb_6_seats_must_match_the_published_class_table():
    facts = parse(document({"stage-2": stage_2_games(TEAMS[:13])[:1]}))
    played = facts.stage("stage-2").games[0]
    table = {"T01": "C", "T02": "A"}
    problems = cb.scheduled_class_problems(played, "stages[0].games[0]", table)
    assert [p.path for p in problems] == ["stages[0].games[0].seats[1].stats"]
    assert "(CB-6)" in problems[0].message


def test_cb_9_stage_1_has_no_maniac():
    games = [game(1, [seat("T01", role="maniac", maniac_kills=1), seat("T02")], outcome="maniac")]
    assert _problems(document({"stage-1": games})) == [
        "stages[0].games[0].seats[0].role: T01-p1: stage-1 has no maniac (CB-9)",
        "stages[0].games[0].outcome: stage-1 has no maniac (CB-9)"]


def test_cb_9_stages_2_and_3_allow_a_maniac():
    for key in ("stage-2", "stage-3"):
        parse(document({key: [game(1, [seat("T01", role="maniac", maniac_kills=2), seat("T02")], outcome="maniac")]}))


def test_cb_9_kills_without_a_maniac_are_refused():
    facts = parse(document({"stage-2": [game(1, [seat("T01"), seat("T02", role="don")], outcome="mafia")]}))
    stage = facts.stage("stage-2")
    bad_seat: Seat = dataclasses.replace(stage.games[0].seats[0], maniac_kills=2)
    bad_game = dataclasses.replace(stage.games[0], seats=(bad_seat, stage.games[0].seats[1]))
    facts = dataclasses.replace(facts, stages=(dataclasses.replace(stage, games=(bad_game,)),))
    assert [str(p) for p in cb.validate(facts)] == [
        "stages[0].games[0].seats[0].maniac_kills: T01-p1 has kills but is not the maniac (CB-9)"]


def test_days_played_greater_than_game_days_is_refused():
    facts = parse(document({"stage-1": [game(1, [seat("T01", days_played=3)], game_days=3)]}))
    stage = facts.stage("stage-1")
    bad = dataclasses.replace(stage.games[0], game_days=2)
    facts = dataclasses.replace(facts, stages=(dataclasses.replace(stage, games=(bad,)),))
    assert [p.path for p in cb.validate(facts)] == ["stages[0].games[0].seats[0].days_played"]


# --------------------------------------------------------------------------- CB-15, CB-16


def _decision(kind: str, game_number: int, **extra) -> dict:
    return {"stage": "stage-1", "game": game_number, "kind": kind, "decided_at": "2015-03-05T20:00:00+03:00",
            "published_at": "2015-03-05T21:00:00+03:00", "by": "judge", **extra}


def test_cb_15_a_technical_result_scores_the_awarded_outcome():
    games = [game(1, [seat("T01", role="don"), seat("T02")], outcome="civilians")]
    doc = document({"stage-1": games}, decisions=[_decision("technical_result", 1, code="FP-4", outcome="mafia")])
    table = rows(export(doc))
    assert table["T01"]["points"] == 4.0 and table["T01"]["tiebreaks"]["mafia_wins"] == 1.0
    assert table["T02"]["points"] == 0.0
    assert cb.seat_points(parse(doc), "stage-1")[(1, "T01-p1")] == (Fraction(4), "mafia win")


def test_cb_15_a_technical_result_needs_fp_4_or_technical_grounds():
    doc = document({"stage-1": [game(1, [seat("T01")])]},
                   decisions=[_decision("technical_result", 1, code="FP-9", outcome="mafia")])
    assert _problems(doc) == ["decisions[0].code: a technical_result is not ordered on FP-9; "
                              "grounds: FP-4, technical (CB-15)"]


def test_cb_15_no_technical_maniac_win_in_stage_1():
    doc = document({"stage-1": [game(1, [seat("T01")])]},
                   decisions=[_decision("technical_result", 1, code="technical", outcome="maniac")])
    assert _problems(doc) == ["decisions[0].outcome: stage-1 has no maniac (CB-9)"]


def test_cb_16_a_replayed_game_scores_nothing_and_its_replay_counts():
    games = [game(1, [seat("T01", role="don"), seat("T02")], outcome="mafia"),
             game(2, [seat("T01", role="don"), seat("T02")], outcome="civilians")]
    doc = document({"stage-1": games}, decisions=[_decision("replay", 1, code="FP-3")])
    table = rows(export(doc))
    assert table["T01"]["points"] == 0.0 and table["T02"]["points"] == 1.5
    assert cb.seat_points(parse(doc), "stage-1")[(1, "T01-p1")][0] == 0


def test_cb_16_a_replay_needs_fp_1_to_3_or_technical_grounds():
    doc = document({"stage-1": [game(1, [seat("T01")])]}, decisions=[_decision("replay", 1, code="FP-4")])
    assert _problems(doc) == ["decisions[0].code: a replay is not ordered on FP-4; "
                              "grounds: FP-1, FP-2, FP-3, technical (CB-16)"]


def test_cb_15_cb_16_a_decision_without_a_code_is_refused_naming_the_decision():
    games = [game(1, [seat("T01")]), game(2, [seat("T02")])]
    decisions = [_decision("replay", 1, code="FP-1"), _decision("technical_result", 2, outcome="mafia"),
                 _decision("replay", 2), {"stage": "stage-1", "kind": "disqualification", "team": "T03"}]
    assert _problems(document({"stage-1": games}, decisions=decisions)) == [
        "decisions[1].code: a technical_result cites the rule it rests on, one of FP-1..FP-12, technical, "
        "CB-15 or CB-16 (CB-15)",
        "decisions[2].code: a replay cites the rule it rests on, one of FP-1..FP-12, technical, CB-15 or CB-16 "
        "(CB-16)",
        "decisions[3].code: a disqualification cites the rule it rests on, one of FP-1..FP-12, technical, "
        "CB-15 or CB-16 (CB-15..CB-17)"]


def test_cb_15_cb_17_a_decision_citing_an_unknown_code_is_refused():
    games = [game(1, [seat("T01")])]
    decisions = [_decision("technical_result", 1, code="FP-99", outcome="mafia"),
                 {"stage": "stage-1", "kind": "disqualification", "team": "T03", "code": "FL-15"}]
    assert _problems(document({"stage-1": games}, decisions=decisions)) == [
        "decisions[0].code: unknown code 'FP-99'; a decision cites one of FP-1..FP-12, technical, CB-15 or CB-16 "
        "(CB-15)",
        "decisions[1].code: unknown code 'FL-15'; a decision cites one of FP-1..FP-12, technical, CB-15 or CB-16 "
        "(CB-15..CB-17)"]
    facts = parse(document({"stage-1": games}))
    coded = dataclasses.replace(facts, decisions=(Decision(index=1, kind="replay", stage="stage-1", game=1),))
    assert [(p.path, "CB-16" in p.message) for p in cb.validate(coded)] == [("decisions[0].code", True)]


def test_cb_15_cb_16_a_decision_may_cite_its_rule_and_a_tie_break_needs_no_code():
    games = [game(1, [seat("T01", role="don"), seat("T02")], outcome="civilians"), game(2, [seat("T03")])]
    decisions = [_decision("technical_result", 1, code="CB-15", outcome="mafia"), _decision("replay", 2, code="CB-16"),
                 {"stage": "stage-1", "kind": "tie_break", "order": ["T02", "T01"]}]
    assert rows(export(document({"stage-1": games}, decisions=decisions)))["T01"]["points"] == 4.0
    crossed = [_decision("technical_result", 1, code="CB-16", outcome="mafia")]
    assert _problems(document({"stage-1": games}, decisions=crossed)) == [
        "decisions[0].code: a technical_result is not ordered on CB-16; grounds: FP-4, technical (CB-15)"]


def test_cb_16_stage_complete_once_the_replay_is_played():
    doc, _, _ = full_tournament()
    s1 = doc["stages"][0]["games"]
    doc["decisions"] = [_decision("replay", 2, code="technical")]
    assert all(row["status"] == "active" for row in export(doc, "stage-1")["teams"])
    assert "T14" in {s["team"] for s in s1[1]["seats"]}
    s1.append(game(49, [dict(s) for s in s1[1]["seats"]]))
    assert export(doc, "stage-1")["teams"][-1]["team"] == "T14"
    assert export(doc, "stage-1")["teams"][-1]["status"] == "eliminated"


# --------------------------------------------------------------------------- CB-17 and final


def _appeal(filed_at: str, verdict: str | None = "rejected") -> dict:
    appeal = {"stage": "stage-1", "decision": 1, "appellant": "T02", "kind": "decision", "filed_at": filed_at}
    if verdict is not None:
        appeal["verdict"] = verdict
    return appeal


def test_cb_17_deadline_is_48_hours_after_publication():
    doc = document({"stage-1": [game(1, [seat("T01")])]}, decisions=[_decision("replay", 1, code="FP-1")],
                   appeals=[_appeal("2015-03-07T21:00:00+03:00")])
    facts = parse(doc)
    expected = dt.datetime(2015, 3, 7, 21, 0, tzinfo=MSK)
    assert cb.decision_deadline(facts, facts.decisions[0]) == expected
    assert cb.appeal_deadline(facts, facts.appeals[0]) == expected
    assert cb.verdict_due(facts, facts.appeals[0]) is None


def test_cb_17_a_late_appeal_is_refused():
    doc = document({"stage-1": [game(1, [seat("T01")])]}, decisions=[_decision("replay", 1, code="FP-1")],
                   appeals=[_appeal("2015-03-07T21:00:01+03:00")])
    problems = _problems(doc)
    assert len(problems) == 1 and problems[0].startswith("appeals[0].filed_at") and "(CB-17)" in problems[0]


def test_cb_17_an_accepted_appeal_annuls_the_decision():
    games = [game(1, [seat("T01", role="don"), seat("T02")], outcome="mafia")]
    doc = document({"stage-1": games}, decisions=[_decision("replay", 1, code="FP-1")],
                   appeals=[_appeal("2015-03-06T10:00:00+03:00", "accepted")])
    assert rows(export(doc))["T01"]["points"] == 4.0


def test_final_only_when_all_stages_are_complete():
    doc, _, _ = full_tournament()
    assert export(doc)["final"] is True
    assert export(doc, "stage-2")["final"] is False
    del doc["stages"][2]
    assert export(doc)["final"] is False
    assert all(row["status"] != "winner" for row in export(doc)["teams"])


def test_final_waits_for_open_appeal_windows_and_pending_appeals():
    doc, _, _ = full_tournament()
    doc["decisions"] = [{**_decision("technical_result", 3, code="technical", outcome="civilians"),
                         "stage": "stage-3"}]
    published = dt.datetime(2015, 3, 5, 21, 0, tzinfo=MSK)
    assert export(doc, now=published + dt.timedelta(hours=47))["final"] is False
    assert export(doc, now=published + dt.timedelta(hours=49))["final"] is True
    doc["appeals"] = [_appeal("2015-03-06T10:00:00+03:00", None)]
    assert export(doc, now=published + dt.timedelta(hours=49))["final"] is False


def test_unknown_stage_key_is_refused():
    with pytest.raises(RulesetError):
        cb.compute(parse(document({})), "final", dt.datetime(2030, 1, 1, tzinfo=dt.UTC))


def test_a_stage_not_in_the_document_gives_the_table_before_it():
    out = export(document({"stage-1": [game(1, [seat("T01")])]}), "stage-2")
    assert out["stage"] == "stage-2" and rows(out)["T01"]["points"] == 1.5
