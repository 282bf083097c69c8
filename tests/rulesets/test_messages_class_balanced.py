"""The class_balanced ruleset's sentences are messages with parameters (``rulesets.messages.Text``): the English
value is unchanged, the template is the catalogue's msgid and every variable part is a named parameter (a stage
key in ``stage``), so that the portal renders them in the reader's language.

The Russian rendering needs the compiled catalogue: these tests check the templates and the parameters, which
are what the catalogue is looked up with."""

from __future__ import annotations

import pytest

from rulesets import class_balanced as cb
from rulesets.base import RulesetError
from rulesets.class_balanced import schedule
from rulesets.messages import Text, as_data, from_data
from tests.rulesets.test_class_balanced_builder import (
    LATE,
    TEAMS,
    document,
    game,
    games_of,
    lose,
    parse,
    seat,
    seat_of,
    set_class,
    stage_1_games,
    stage_2_games,
    standings,
)


def message(value, template: str, /, **params) -> Text:
    """``value`` is a ``Text`` made from ``template`` with exactly ``params`` (a nested message compared by its
    English value; check it on its own)."""
    assert isinstance(value, Text), repr(value)
    assert value.template == template
    assert {k: str(v) for k, v in value.params.items()} == {k: str(v) for k, v in params.items()}
    return value


def test_cb_7_the_warning_note_names_the_team_and_the_stage_key():
    s1 = stage_1_games()[:20]
    for number in games_of(s1, "T02")[:9]:
        set_class(s1, number, "T02", "C")
    [note] = standings(document({"stage-1": s1})).notes
    assert note == "T02 can no longer balance its classes in stage-1 (CB-7)"
    message(note, "%(team)s can no longer balance its classes in %(stage)s (CB-7)", team="T02", stage="stage-1")


def test_cb_7_cb_12_a_disqualification_is_a_note_and_a_refusal_that_nest_its_reason():
    s1 = stage_1_games()
    lose(s1, "T14")
    c_game = next(n for n in games_of(s1, "T03") if seat_of(s1, n, "T03")["stats"] == 200)
    set_class(s1, c_game, "T03", "A")
    note = standings(document({"stage-1": s1})).notes[-1]
    assert note == "T03: disqualified: unequal classes at the end of stage-1 (CB-7)"
    message(note, "%(team)s: %(reason)s", team="T03", reason=note.params["reason"])
    reason = message(note.params["reason"], "disqualified: unequal classes at the end of %(stage)s (CB-7)",
                     stage="stage-1")
    with pytest.raises(RulesetError) as error:
        parse(document({"stage-1": s1, "stage-2": stage_2_games(TEAMS[:13])}))
    refusal = error.value.problems[0].message
    assert refusal == "team T03 is not in stage-2: disqualified: unequal classes at the end of stage-1 (CB-7)"
    message(refusal, "team %(team)s is not in %(stage)s: %(reason)s", team="T03", stage="stage-2", reason=reason)
    stored = from_data(as_data(refusal))
    assert stored == refusal and stored.params["reason"].template == reason.template


def test_cb_9_a_maniac_seat_reason_carries_its_kills_as_a_message():
    seats = [seat("T01", role="maniac", maniac_kills=3), seat("T02", role="maniac", maniac_kills=1), seat("T03")]
    points = cb.seat_points(parse(document({"stage-2": [game(1, seats[:1] + seats[2:], outcome="maniac"),
                                                        game(2, seats[1:], outcome="civilians")]})), "stage-2")
    win = points[(1, "T01-p1")][1]
    assert win == "maniac win, 3 kills (CB-9)"
    message(win, "maniac win, %(kills)s (CB-9)", kills="3 kills")
    message(win.params["kills"], "%(kills)s kills", kills=3)
    loss = points[(2, "T02-p1")][1]
    assert loss == "maniac loss, keeps 1 kill (CB-9)"
    message(loss.params["kills"], "1 kill")
    message(points[(2, "T03-p1")][1], "civilians win")


def test_cb_15_a_decision_on_wrong_grounds_names_the_kind_the_code_the_grounds_and_the_rule():
    decision = {"stage": "stage-1", "game": 1, "kind": "technical_result", "code": "FP-9", "outcome": "mafia",
                "decided_at": "2015-03-05T20:00:00+03:00", "published_at": "2015-03-05T21:00:00+03:00",
                "by": "judge"}
    with pytest.raises(RulesetError) as error:
        parse(document({"stage-1": [game(1, [seat("T01")])]}, decisions=[decision]))
    [problem] = error.value.problems
    assert problem.message == "a technical_result is not ordered on FP-9; grounds: FP-4, technical (CB-15)"
    message(problem.message, "a %(decision)s is not ordered on %(code)s; grounds: %(grounds)s (%(rule)s)",
            decision="technical_result", code="FP-9", grounds="FP-4, technical", rule="CB-15")


def test_cb_6_settings_refusals_and_the_class_table_check_are_messages():
    by_path = {p.path: p.message for p in cb.validate_settings({"class_table_per_game": {"A": 1}})}
    message(by_path["class_table_per_game"], "the classes do not add up to %(players)s players (CB-6)", players=13)
    by_path = {p.path: p.message for p in cb.validate_settings({"teams": {"stage-1": 0}, "colour": "red"})}
    assert by_path["teams.stage-1"] == "0 is not a positive integer"
    message(by_path["teams.stage-1"], "%(value)s is not a positive integer", value="0")
    message(by_path["colour"], "unknown setting of class_balanced")
    table = schedule.generate_stage2(list(TEAMS[:13]), 3)
    broken = schedule.Stage2Schedule(seed=3, teams=table.teams, games=[(d, {t: "A" for t in c}) for d, c in table.games])
    problem = next(p for p in schedule.check_stage2(broken) if "plays" in p)
    assert problem == "CB-6: T01 plays 26 games as A, not 8"
    message(problem, "CB-6: %(team)s plays %(games)s games as %(cls)s, not %(expected)s", team="T01", games=26,
            cls="A", expected=8)


def test_cb_6_a_roster_refusal_of_the_generator_and_an_unknown_stage_are_messages():
    with pytest.raises(ValueError) as error:
        schedule.generate_stage2([f"T{i}" for i in range(12)], 1)
    assert str(error.value) == "CB-6: the stage needs 13 teams, got 12"
    message(error.value.args[0], "%(rule)s: the stage needs %(expected)s teams, got %(teams)s", rule="CB-6",
            expected=13, teams=12)
    with pytest.raises(RulesetError) as error:
        cb.compute(parse(document({"stage-1": stage_1_games()[:2]})), "stage-9", LATE)
    message(error.value.problems[0].message, "unknown stage %(key)s; class_balanced has %(keys)s", key="'stage-9'",
            keys="stage-1, stage-2, stage-3")
