"""Pure: FL-19's detected-violation windows, CHGK-18's one comparison and "given late", FL-19's
``partly`` verdict with the changed decision, in the parser and the rulesets."""

from __future__ import annotations

import datetime as dt
import json
import zoneinfo
from pathlib import Path

import pytest

import rulesets
from rulesets import chgk_tour_points, family_league, mafia
from rulesets.base import RulesetError
from rulesets.facts import Appeal
from rulesets.interchange import export_standings, parse_document
from tests.rulesets.test_family_league_builder import document, filler_games, final_stage, full_game, names, seat

EXAMPLES = Path(__file__).parent.parent / "data" / "examples"
MSK = zoneinfo.ZoneInfo("Europe/Moscow")
NINE = names(9)
RECORDED = dt.datetime(2014, 9, 10, 20, 0, tzinfo=MSK)


def example(key: str) -> dict:
    return json.loads((EXAMPLES / f"{key}.json").read_text(encoding="utf-8"))


# --- FL-19: the window of a detected violation runs from its game's result_recorded_at -----------------------


def league(recorded_at: dt.datetime | None = RECORDED, violation: bool = True) -> dict:
    """A final of 30 played games; game 30 (recorded at ``recorded_at``) has two seats of Fam01 (FL-15.3)."""
    games = filler_games(1, 29, NINE)
    last = full_game(30, NINE, "mafia")
    if violation:
        last["seats"].append(seat("Fam01-p2"))
    if recorded_at is not None:
        last["result_recorded_at"] = recorded_at.isoformat()
    return document(NINE, [final_stage(NINE, games + [last])])


def test_fl_19_result_recorded_at_is_read_from_the_document():
    facts = parse_document(league())
    assert facts.stages[0].game(30).result_recorded_at == RECORDED
    assert facts.stages[0].game(1).result_recorded_at is None


def test_fl_19_a_scheduled_game_has_no_result_recorded_at():
    doc = league()
    doc["stages"][0]["games"].append({"number": 31, "status": "scheduled",
                                      "result_recorded_at": RECORDED.isoformat()})
    with pytest.raises(RulesetError) as error:
        parse_document(doc)
    assert [p.path for p in error.value.problems] == ["stages[0].games[30].result_recorded_at"]


def test_fl_19_the_final_is_not_final_while_a_detected_violations_window_is_open():
    facts = parse_document(league())
    closes = RECORDED + dt.timedelta(hours=72)
    assert family_league.compute(facts, None, closes - dt.timedelta(microseconds=1)).final is False
    assert family_league.compute(facts, None, closes).final is True
    assert family_league.violation_windows(facts, RECORDED) == [closes]
    assert family_league.violation_windows(facts, closes) == []
    assert rulesets.get("family_league").appeal_policy.violation_windows is family_league.violation_windows


def test_fl_19_a_recent_game_without_a_detected_violation_opens_no_window():
    facts = parse_document(league(violation=False))
    assert family_league.violation_windows(facts, RECORDED) == []
    assert family_league.compute(facts, None, RECORDED).final is True


def test_fl_19_a_game_without_result_recorded_at_opens_no_window():
    facts = parse_document(league(recorded_at=None))
    assert family_league.compute(facts, None, RECORDED).final is True


def test_fl_19_the_detected_violation_deadline_is_72_hours_after_the_first_recording():
    facts = parse_document(league())
    game = facts.stages[0].game(30)
    assert family_league.detected_violation_deadline(facts, game) == RECORDED + dt.timedelta(hours=72)
    policy = rulesets.get("family_league").appeal_policy
    assert policy.detected_violation_closes({}, RECORDED) == RECORDED + dt.timedelta(hours=72)


# --- CHGK-18: one comparison for filing; a verdict after D+9 is given late ----------------------------------


def chgk_appeal(filed_at: dt.datetime, **extra) -> Appeal:
    return Appeal(kind="removal", filed_at=filed_at, stage="season", tour=2, question=8, team="Lynx", **extra)


def test_chgk_18_an_appeal_is_in_time_at_any_instant_before_midnight_of_d_plus_4():
    facts = parse_document(example("chgk_tour_points"))  # tour 2 on 2013-02-21
    midnight = dt.datetime(2013, 2, 25, 0, 0, tzinfo=MSK)
    in_time = rulesets.get("chgk_tour_points").appeal_policy.appeal_in_time
    assert in_time is chgk_tour_points.appeal_in_time
    assert in_time(facts, chgk_appeal(midnight - dt.timedelta(milliseconds=500))) is True
    assert in_time(facts, chgk_appeal(midnight - dt.timedelta(microseconds=1))) is True
    assert in_time(facts, chgk_appeal(midnight)) is False


def test_chgk_18_the_import_uses_the_same_comparison():
    doc = example("chgk_tour_points")
    doc["appeals"][1]["filed_at"] = "2013-02-24T23:59:59.500000+04:00"
    parse_document(doc)
    doc["appeals"][1]["filed_at"] = "2013-02-25T00:00:00+04:00"
    with pytest.raises(RulesetError, match="CHGK-18"):
        parse_document(doc)


def test_chgk_18_a_verdict_at_or_after_midnight_of_d_plus_10_is_given_late():
    facts = parse_document(example("chgk_tour_points"))
    midnight = dt.datetime(2013, 3, 3, 0, 0, tzinfo=MSK)  # D+10 of tour 2
    late = rulesets.get("chgk_tour_points").appeal_policy.verdict_late
    filed = dt.datetime(2013, 2, 22, 12, 0, tzinfo=MSK)
    assert late(facts, chgk_appeal(filed, verdict="rejected", decided_at=midnight)) is True
    assert late(facts, chgk_appeal(filed, verdict="rejected",
                                   decided_at=midnight - dt.timedelta(milliseconds=1))) is False
    assert late(facts, chgk_appeal(filed)) is False, "a pending appeal is overdue, not given late"


def test_chgk_18_the_import_reads_a_verdicts_decided_at_and_refuses_it_on_a_pending_appeal():
    doc = example("chgk_tour_points")
    doc["appeals"][1]["decided_at"] = "2013-03-03T00:00:00+04:00"
    facts = parse_document(doc)
    assert chgk_tour_points.verdict_late(facts, facts.appeals[1]) is True
    del doc["appeals"][1]["verdict"]
    with pytest.raises(RulesetError) as error:
        parse_document(doc)
    assert [p.path for p in error.value.problems] == ["appeals[1].decided_at"]


def test_chgk_18_partly_is_no_chgk_verdict():
    doc = example("chgk_tour_points")
    doc["appeals"][1]["verdict"] = "partly"
    with pytest.raises(RulesetError) as error:
        parse_document(doc)
    assert [p.path for p in error.value.problems] == ["appeals[1].verdict"]


# --- FL-19: partly replaces the appealed decision with the changed one, in every Mafia ruleset ------------------

MAFIA = ("family_league", "elimination_gp", "class_balanced")


def with_decision(key: str, outcome: str, appeal: dict | None = None) -> tuple[dict, int]:
    """The example with a technical result (FP-4) of its last played game (no later game depends on its
    outcome, GP-9), appealed as ``appeal`` says."""
    if key == "family_league":
        doc = document(NINE, [final_stage(NINE, [full_game(1, NINE, "civilians", roles={"Fam03": "don"})]
                                          + filler_games(2, 29, NINE))])
    else:
        doc = example(key)
    stage = doc["stages"][0]
    game = [g for g in stage["games"] if g.get("status", "played") == "played"][-1]
    doc["decisions"] = [{"stage": stage["key"], "game": game["number"], "kind": "technical_result",
                         "code": "FP-4", "outcome": outcome, "decided_at": "2014-09-09T12:00:00+04:00"}]
    if appeal is not None:
        doc["appeals"] = [{"stage": stage["key"], "decision": 1, "appellant": "someone", "kind": "decision",
                           "filed_at": "2014-09-09T18:00:00+04:00", **appeal}]
    return doc, game["number"]


def other_outcomes(key: str) -> tuple[str, str, str]:
    """The game's recorded outcome, the appealed decision's and the changed one's: three different."""
    doc, number = with_decision(key, "civilians")
    recorded = next(g for g in doc["stages"][0]["games"] if g["number"] == number)["outcome"]
    appealed, changed = [o for o in ("civilians", "mafia", "draw") if o != recorded][:2]
    return recorded, appealed, changed


def teams_of(doc: dict, key: str) -> list[tuple]:
    facts = parse_document(doc)
    out = export_standings(facts, rulesets.get(key).compute(facts, None, dt.datetime(2030, 1, 1, tzinfo=dt.UTC)))
    return [(r["team"], r["rank"], r["points"], r["status"]) for r in out["teams"]]


@pytest.mark.parametrize("key", MAFIA)
def test_fl_19_partly_puts_the_changed_decision_in_place_of_the_appealed_one(key):
    """FL-19 (and the interchange's ``replacement`` for every Mafia ruleset): the standings are those of the
    changed decision, never those of the decision annulled outright."""
    _recorded, appealed, changed = other_outcomes(key)
    doc, number = with_decision(key, appealed, {"verdict": "partly"})
    doc["appeals"][0]["replacement"] = {"stage": doc["stages"][0]["key"], "game": number, "kind": "technical_result",
                                        "code": "FP-4", "outcome": changed, "decided_at": "2014-09-10T12:00:00+04:00"}
    facts = parse_document(doc)
    stage = facts.stages[0]
    active = mafia.active_decisions(facts)
    assert [(d.index, d.outcome) for d in active] == [(1, changed)]
    effective = {g.number: g for g in mafia.effective_games(facts, stage)}[number]
    assert (effective.status, effective.outcome) == ("technical", changed)
    assert teams_of(doc, key) == teams_of(with_decision(key, changed)[0], key)


def test_fl_19_partly_needs_the_changed_decision_and_a_replacement_needs_partly():
    doc, _number = with_decision("family_league", "mafia", {"verdict": "partly"})
    with pytest.raises(RulesetError) as error:
        parse_document(doc)
    assert [p.path for p in error.value.problems] == ["appeals[0].replacement"]
    doc, number = with_decision("family_league", "mafia", {"verdict": "rejected", "replacement": {
        "stage": "final", "game": 1, "kind": "technical_result", "outcome": "draw"}})
    with pytest.raises(RulesetError) as error:
        parse_document(doc)
    assert [p.path for p in error.value.problems] == ["appeals[0].replacement"]


def test_cb_15_a_changed_decision_is_judged_as_the_decision_it_replaces():
    """The replacement cites a rule like any class_balanced decision (CB-15): refused at its own path."""
    doc, number = with_decision("class_balanced", "mafia", {"verdict": "partly", "replacement": {
        "stage": "stage-1", "game": 1, "kind": "technical_result", "code": "FP-9", "outcome": "draw"}})
    with pytest.raises(RulesetError) as error:
        parse_document(doc)
    assert [p.path for p in error.value.problems] == ["appeals[0].replacement.code"]
    assert "CB-15" in error.value.problems[0].message
    doc["appeals"][0]["replacement"]["game"] = 999
    with pytest.raises(RulesetError) as error:
        parse_document(doc)
    assert "appeals[0].replacement.game" in {p.path for p in error.value.problems}
