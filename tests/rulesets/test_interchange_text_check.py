"""The check for text that cannot be stored (a NUL, a lone surrogate) runs on the document
without its seats and on each seat as the parser reads it; the answer is the whole-document check's, always.
"""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rulesets import interchange
from rulesets.interchange import RulesetError, parse_document, text_problems
from tests.conftest import RULESET_KEYS, example
from tournaments.synthetic import mafia_league

BAD = ("\x00", "\ud800", "\udfff")


def _places(value: Any, path: tuple = ()) -> list[tuple]:
    """Every place of a string in the document: (path, "key" or "value")."""
    out: list[tuple] = []
    if isinstance(value, dict):
        for key, item in value.items():
            out.append((path + (key,), "key"))
            out += _places(item, path + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            out += _places(item, path + (index,))
    elif isinstance(value, str):
        out.append((path, "value"))
    return out


def _spoil(document: dict, place: tuple, bad: str) -> dict:
    spoilt = copy.deepcopy(document)
    path, kind = place
    parent = spoilt
    for step in path[:-1]:
        parent = parent[step]
    last = path[-1]
    if kind == "key":
        parent[last + bad] = parent.pop(last)
    else:
        parent[last] = parent[last] + bad
    return spoilt


def _refusal(document: dict) -> list | None:
    try:
        parse_document(document)
    except RulesetError as error:
        return error.problems
    return None


@pytest.mark.parametrize("key", RULESET_KEYS)
@settings(max_examples=30, deadline=None)
@given(st.randoms(use_true_random=False))
def test_a_bad_string_anywhere_is_refused_as_the_whole_document_check_refuses_it(key: str, rng: random.Random):
    """A NUL or a lone surrogate in any key or value, seats included: the refusal lists exactly the problems of
    ``text_problems`` (and nothing else)."""
    document = example(key)
    spoilt = _spoil(document, rng.choice(_places(document)), rng.choice(BAD))
    expected = text_problems(spoilt)
    assert expected and _refusal(spoilt) == expected


def test_a_bad_seat_and_a_broken_top_level_report_the_text_first():
    """The top-level problem would stop the parser before the seats: the text problems come first, as before."""
    document = example("family_league")
    document["stages"][0]["games"][0]["seats"][0]["player"] += "\x00"
    del document["format"]
    assert _refusal(document) == text_problems(document)


def test_a_league_of_clean_seats_is_checked_without_the_whole_document_walk(monkeypatch):
    """Cyrillic and Latin nicks alike: every seat is read whole, so the whole-document check never runs."""
    text = json.dumps(mafia_league(40, seed=2), ensure_ascii=False)
    document = json.loads(text.replace('"Fam01-p', '"Игрок-').replace('"Fam02-p', '"Семья 2, игрок '))
    assert any(s["player"].startswith("Игрок") for g in document["stages"][0]["games"] for s in g["seats"])

    def whole(_document):
        raise AssertionError("the whole-document check ran")

    monkeypatch.setattr(interchange.document, "text_problems", whole)
    facts = parse_document(document)
    assert sum(len(g.seats) for s in facts.stages for g in s.games) == sum(
        len(g["seats"]) for s in document["stages"] for g in s["games"])


def test_a_seat_read_value_by_value_makes_the_whole_check_run(monkeypatch):
    """A seat the plain reading does not take (here: an unknown key) is read value by value; the whole check
    then runs before the answer."""
    document = example("family_league")
    document["stages"][0]["games"][0]["seats"][0]["note"] = "x"
    ran = []
    monkeypatch.setattr(interchange.document, "text_problems", lambda d: ran.append(d) or [])
    with pytest.raises(RulesetError):
        parse_document(document)
    assert ran


@pytest.mark.parametrize("escape", ["\\u0000", "\\ud800"])
def test_a_nick_with_a_bad_character_everywhere_it_appears_is_refused(escape: str):
    """The nick is spoilt consistently (players, rosters, seats), so nothing but its text is wrong: refused with
    every place the whole-document check names, the seats' included."""
    text = json.dumps(mafia_league(20, seed=3), ensure_ascii=False)
    document = json.loads(text.replace('"Fam01-p1"', f'"Fam01-p1{escape}"'))
    expected = text_problems(document)
    assert expected and any(".seats[" in p.path for p in expected)
    assert _refusal(document) == expected
