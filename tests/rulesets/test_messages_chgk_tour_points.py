"""The ChGK season's sentences (refusals, the table's notes) are messages with parameters
(``rulesets.messages.Text``): the English value is unchanged, the template is the catalogue's msgid and every
variable part is a named parameter, so that the portal renders them in the reader's language.

The Russian rendering needs the compiled catalogue: these tests check the templates and the parameters, which
are what the catalogue is looked up with."""

from __future__ import annotations

import datetime as dt

import pytest

from rulesets import chgk_tour_points as chgk
from rulesets.base import RulesetError
from rulesets.messages import Text, as_data, from_data
from tests.rulesets.test_chgk_tour_points import MSK, appeal_doc, load, season_doc, tour_doc
from tests.rulesets.test_chgk_tour_points import problems as refusals


def message(got, template: str, /, **params) -> Text:
    """``got`` is a ``Text`` made from ``template`` with exactly ``params``."""
    assert isinstance(got, Text), repr(got)
    assert got.template == template
    assert {k: str(v) for k, v in got.params.items()} == {k: str(v) for k, v in params.items()}
    return got


def refusal(doc, path: str) -> Text:
    """The message of the document's refusal at ``path``."""
    with pytest.raises(RulesetError) as error:
        load(doc)
    return next(p.message for p in error.value.problems if p.path == path)


def test_chgk_16_the_preliminary_notes_carry_remaining_tours_and_pending_appeals():
    doc = season_doc(2, [tour_doc(1, "Alpha", {"Bravo": "10?00000"}), tour_doc(2, "Bravo")],
                     appeals=[appeal_doc(1, 3, "Bravo", verdict=None)])
    now = dt.datetime(2013, 2, 15, 12, 0, tzinfo=MSK)  # the day after tour 1: its appeal window is open
    remaining, pending, window = chgk.compute(load(doc), None, now).notes
    message(remaining, "Preliminary: %(remaining)s of %(planned)s tours remain to be played (CHGK-16).",
            remaining=1, planned=2)
    assert remaining == "Preliminary: 1 of 2 tours remain to be played (CHGK-16)."
    message(pending, "Preliminary: %(pending)s appeal(s) await a verdict (CHGK-16).", pending=1)
    assert pending == "Preliminary: 1 appeal(s) await a verdict (CHGK-16)."
    message(window, "Preliminary: appeals may still be filed on a played tour (CHGK-18).")
    stored = from_data(as_data(remaining))  # a stored snapshot keeps the template and the parameters
    assert stored == remaining and stored.template == remaining.template


def test_chgk_7_a_second_hosted_tour_names_the_team_and_its_first_tour():
    doc = season_doc(8, [tour_doc(1, "Alpha"), tour_doc(2, "Alpha")])
    value = refusal(doc, "stages[0].tours[1].host")
    message(value, "%(team)s already hosts tour %(tour)s; each team hosts exactly one tour (CHGK-7)",
            team="Alpha", tour=1)
    assert value == "Alpha already hosts tour 1; each team hosts exactly one tour (CHGK-7)"


def test_chgk_18_a_late_appeal_names_its_tour_question_and_both_moments():
    doc = season_doc(8, [tour_doc(1, "Alpha", {"Bravo": "10000000", "Charlie": "11000000"})],
                     appeals=[appeal_doc(1, 8, "Bravo", "removal", filed_at="2013-02-18T00:00:00+04:00")])
    value = refusal(doc, "appeals[0].filed_at")
    message(value, "appeal on tour %(tour)s question %(question)s filed %(filed_at)s, after the deadline "
                   "%(deadline)s (23:59 of D+3, CHGK-18)",
            tour=1, question=8, filed_at="2013-02-18T00:00:00+04:00", deadline="2013-02-17T23:59:59+04:00")
    assert value == ("appeal on tour 1 question 8 filed 2013-02-18T00:00:00+04:00, after the deadline "
                     "2013-02-17T23:59:59+04:00 (23:59 of D+3, CHGK-18)")
    assert any(p.startswith("appeals[0].filed_at") and "CHGK-18" in p for p in refusals(doc))


def test_chgk_2_chgk_3_roster_changes_are_refused_with_their_numbers_and_players():
    found = {p.path: p.message for p in chgk.check_roster_change(
        ["A", "B", "C"], added=["D", "E", "F"], replaced={"A": "Z"}, additions_used=4, played={"A"})}
    message(found["added"], "%(used)s players already added this season and %(count)s more: at most "
                            "%(maximum)s additions (CHGK-2)", used=4, count=3, maximum=6)
    assert found["added"] == "4 players already added this season and 3 more: at most 6 additions (CHGK-2)"
    message(found["replaced.A"], "%(player)s has already played a tour and cannot be replaced (CHGK-3)", player="A")
    assert found["replaced.A"] == "A has already played a tour and cannot be replaced (CHGK-3)"


def test_chgk_9_the_host_written_count_outside_the_leagues_range():
    (problem,) = chgk.check_pack("second", 7)
    message(problem.message, "%(count)s host-written questions; a host of league %(league)s writes "
                             "%(low)s..%(high)s (CHGK-9)", count=7, league="second", low=3, high=5)
    assert problem.message == "7 host-written questions; a host of league second writes 3..5 (CHGK-9)"


def test_chgk_12_chgk_15_settings_and_the_season_stage_refusals_are_messages():
    (problem,) = chgk.validate_settings({"points_by_place": [{"min_teams": 0, "points": [3, 2]}]})
    message(problem.message, "%(value)s is not a positive whole number of teams (CHGK-12)", value="0")
    assert problem.message == "0 is not a positive whole number of teams (CHGK-12)"
    with pytest.raises(RulesetError) as error:
        chgk.compute(load(season_doc(8, [])), "final", dt.datetime(2030, 1, 1, tzinfo=dt.UTC))
    (problem,) = error.value.problems
    value = message(problem.message, "chgk_tour_points has only the stage '%(stage)s', not %(key)s",
                    stage="season", key="'final'")
    assert value.params["stage"] == "season"  # a stage key: the portal shows the stage's translated name
    assert value == "chgk_tour_points has only the stage 'season', not 'final'"
