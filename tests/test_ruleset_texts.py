"""Issue 17, item 9: the sentences rulesets write (a table's notes, why a seat scores nothing, a violation) are
shown in the reader's language; a sentence the portal does not know stays as written."""

from __future__ import annotations

import pytest
from django.utils import translation

from portal.labels import reason_text, ruleset_text
from rulesets import family_league
from rulesets.interchange import parse_document
from tests.rulesets.test_appeal_windows_and_verdicts import RECORDED, league

SENTENCES = [
    ("two_players (FL-15.3): Fam01 already has a player in game 30",
     "two players of one team (FL-15.3): Fam01 already has a player in game 30",
     "два игрока одной команды (FL-15.3): у команды Fam01 уже есть игрок в игре 30"),
    ("Preliminary: 3 of 12 tours remain to be played (CHGK-16).",
     "Preliminary: 3 of 12 tours remain to be played (CHGK-16).",
     "Предварительно: осталось сыграть туров — 3 из 12 (CHGK-16)."),
    ("Team X can no longer balance its classes in stage-2 (CB-7)",
     "Team X can no longer balance its classes in stage 2 (CB-7)",
     None),
]


@pytest.mark.parametrize(("text", "english", "russian"), SENTENCES)
def test_issue_17_ruleset_sentences_in_the_readers_language(text, english, russian):
    with translation.override("en"):
        assert ruleset_text(text) == english
    with translation.override("ru"):
        shown = ruleset_text(text)
        assert shown != text and "two_players" not in shown and "stage-2" not in shown
        if russian is not None:
            assert shown == russian


def test_issue_17_an_unknown_sentence_stays_as_written():
    with translation.override("ru"):
        assert ruleset_text("something new (FL-99)") == "something new (FL-99)"


def test_issue_17_fl_15_every_detected_violation_of_a_real_computation_is_translated():
    """The reasons the family league ruleset actually writes are all known to the portal (no English on ru)."""
    facts = parse_document(league(recorded_at=RECORDED))
    points = family_league.seat_points(facts, "final")
    reasons = {reason for _points, reason in points.values() if "(FL-15" in reason}
    assert reasons
    with translation.override("ru"):
        for reason in reasons:
            shown = reason_text(reason)
            assert shown != reason and "FL-15.3" in shown
