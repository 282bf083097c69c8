"""The messages rulesets write (a table's notes, why a seat scores what it
scores, a violation, a refusal) are codes with parameters, rendered in the reader's language where they are shown;
no regular expression translates them, and a plain text (a judge's own words) is shown as written."""

from __future__ import annotations

import inspect
import json

import pytest
from django.utils import translation

import portal.labels
from rulesets import chgk_tour_points as chgk
from rulesets import family_league
from rulesets.interchange import parse_document
from rulesets.messages import Text, as_data, text
from tests.rulesets.test_appeal_windows_and_verdicts import RECORDED, league
from tests.rulesets.test_chgk_tour_points import DATA, LATE
from tournaments.messages import render

EXAMPLES = DATA / "examples"
RENDERED = [
    (text("%(kind)s (%(code)s): %(problem)s", kind="two_players", code="FL-15.3",
          problem=text("%(team)s already has a player in game %(number)s", team="Fam01", number=30)),
     "two players of one team (FL-15.3): Fam01 already has a player in game 30",
     "два игрока одной команды (FL-15.3): "),
    (text("%(team)s can no longer balance its classes in %(stage)s (CB-7)", team="Team X", stage="stage-2"),
     "Team X can no longer balance its classes in stage 2 (CB-7)", "этап 2"),
]


@pytest.mark.parametrize(("message", "english", "russian"), RENDERED)
def test_a_message_is_rendered_with_its_keyed_parameters_in_the_readers_language(message, english, russian):
    with translation.override("en"):
        assert render(message) == english
    with translation.override("ru"):
        shown = render(message)
        assert russian in shown and "two_players" not in shown and "stage-2" not in shown
        assert render(as_data(message)) == shown, "the stored form renders alike"


def test_chgk_16_the_preliminary_note_a_ruleset_writes_is_shown_in_russian():
    """The example season has six tours left: the real ruleset's note is a message, shown in Russian."""
    facts = parse_document(json.loads((EXAMPLES / "chgk_tour_points.json").read_text()))
    notes = [note for note in chgk.compute(facts, None, LATE).notes if "CHGK-16" in note]
    assert notes and all(isinstance(note, Text) for note in notes)
    with translation.override("ru"):
        assert all(render(note).startswith("Предварительно:") for note in notes)


def test_a_plain_text_stays_as_written():
    with translation.override("ru"):
        assert render("Оскорбление игрока в общем чате") == "Оскорбление игрока в общем чате"
        assert render(None) == ""


def test_fl_15_every_detected_violation_of_a_real_computation_is_shown_in_russian():
    """The reasons the family league ruleset actually writes are all in the catalogue (no English on ru)."""
    facts = parse_document(league(recorded_at=RECORDED))
    points = family_league.seat_points(facts, "final")
    reasons = {reason for _points, reason in points.values() if "(FL-15" in reason}
    assert reasons
    with translation.override("ru"):
        for reason in reasons:
            shown = render(reason)
            assert shown != str(reason) and "FL-15.3" in shown and "already has" not in shown


def test_no_regular_expression_translates_a_message():
    source = inspect.getsource(portal.labels)
    assert "_SENTENCES" not in source and "REASON_PHRASES" not in source
    assert not hasattr(portal.labels, "ruleset_text") and not hasattr(portal.labels, "reason_text")
