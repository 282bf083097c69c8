"""The interchange format's refusals (``rulesets.interchange``) are messages with parameters
(``rulesets.messages.Text``): the English value is unchanged, the template is the catalogue's msgid and every
variable part is a named parameter, so that the portal renders an import refusal in the reader's language.

A game's status and a decision's kind are said in the sentence itself; a stage key is a parameter named
``stage`` (shown by the stage's name), a penalty kind one named ``kind``; a value the document gave is shown by
its ``repr``, as a string parameter."""

from __future__ import annotations

import ast
import copy
from pathlib import Path

import pytest

import rulesets
from rulesets import interchange
from rulesets.base import RulesetError
from rulesets.interchange import parse_document, text_problems
from rulesets.messages import Text, as_data, from_data
from tests.conftest import example


def message(value, template: str, /, **params) -> Text:
    """``value`` is a ``Text`` made from ``template`` with exactly ``params`` (a nested message compared by its
    English value)."""
    assert isinstance(value, Text), repr(value)
    assert value.template == template
    assert {k: str(v) for k, v in value.params.items()} == {k: str(v) for k, v in params.items()}
    return value


def refusals(document: dict) -> dict[str, str]:
    """The problems of a refused document, by path."""
    with pytest.raises(RulesetError) as error:
        parse_document(document)
    return {p.path: p.message for p in error.value.problems}


def family_league() -> dict:
    return copy.deepcopy(example("family_league"))


def test_an_unknown_player_of_a_seat_is_named_by_its_repr_as_a_parameter():
    doc = family_league()
    doc["stages"][0]["games"][0]["seats"][0]["player"] = "O'Ghost"
    problem = refusals(doc)["stages[0].games[0].seats[0].player"]
    assert problem == "unknown player \"O'Ghost\""
    message(problem, "unknown player %(player)s", player="\"O'Ghost\"")


def test_a_refused_choice_and_a_too_long_list_keep_their_values_as_parameters():
    doc = family_league()
    doc["tournament"]["ruleset"] = "poker"
    problem = refusals(doc)["tournament.ruleset"]
    assert problem == "'poker' is not one of " + ", ".join(rulesets.keys())
    message(problem, "%(value)s is not one of %(options)s", value="'poker'", options=", ".join(rulesets.keys()))

    doc = family_league()
    doc["stages"] = doc["stages"] * 3
    problem = refusals(doc)["stages"]
    assert problem == "3 items; at most 2 are allowed"
    message(problem, "%(count)s items; at most %(limit)s are allowed", count=3, limit=2)


def test_glossary_a_game_status_and_a_decision_kind_are_said_in_the_sentence_itself():
    doc = family_league()
    game = doc["stages"][0]["games"][0]
    game["status"], game["outcome"] = "annulled", None
    doc["decisions"] = [{"kind": "replay", "stage": "final"}]
    by_path = refusals(doc)
    message(by_path["stages[0].games[0].seats"], "a annulled game has no seats")
    message(by_path["decisions[0].game"], "a replay decision names its game")


def test_stages_out_of_order_name_both_stages_by_their_keys():
    doc = family_league()
    final = doc["stages"][0]
    doc["stages"] = [final, {"key": "qualifying"}]
    problem = refusals(doc)["stages[1].key"]
    assert problem == "stage 'qualifying' comes before 'final' in order of play"
    message(problem, "stage '%(stage)s' comes before '%(previous)s' in order of play", stage="qualifying",
            previous="final")
    # the second stage is a stage key too: wrapped so that the pages show it by its name
    message(problem.params["previous"], "%(stage)s", stage="final")

    doc["stages"] = [final, final]
    problem = refusals(doc)["stages[1].key"]
    message(problem, "stage '%(stage)s' is listed twice", stage="final")


def test_a_detected_penalty_kind_is_a_kind_parameter_and_a_bad_mask_mark_is_its_repr():
    doc = family_league()
    doc["penalties"] = [{"stage": "final", "team": "Fam01", "kind": "no_show", "points": "0.5"}]
    problem = refusals(doc)["penalties[0].kind"]
    assert problem == "no_show is detected by the portal from the seats (FL-15); do not import it"
    message(problem, "%(kind)s is detected by the portal from the seats (FL-15); do not import it", kind="no_show")

    doc = copy.deepcopy(example("chgk_tour_points"))
    doc["stages"][0]["tours"][0]["masks"]["Signum"] = "11Z11010"
    problem = refusals(doc)["stages[0].tours[0].masks.Signum"]
    assert problem == "Signum: question 3 has 'Z'; a mask holds only 1, 0, X and ?"
    message(problem, "%(team)s: question %(question)s has %(mark)s; a mask holds only 1, 0, X and ?",
            team="Signum", question=3, mark="'Z'")


def test_a_huge_number_is_the_number_a_message_itself_and_a_bad_key_is_one_sentence():
    doc = family_league()
    doc["stages"][0]["games"][0]["round"] = 10**30
    problem = refusals(doc)["stages[0].games[0].round"]
    assert problem == f"the number is above the largest allowed value {interchange.MAX_GAMES}"
    message(problem, "%(value)s is above the largest allowed value %(maximum)s", value="the number",
            maximum=interchange.MAX_GAMES)
    message(problem.params["value"], "the number")
    assert from_data(as_data(problem)) == problem and from_data(as_data(problem)).params["value"].template == \
        "the number"

    [problem] = text_problems({"format": "tournament-portal/1", "bad\x00": 1})
    assert problem.path == "bad\\x00"
    message(problem.message, "the key holds a NUL character, which no text may hold")


def test_every_message_of_the_module_is_spelled_with_a_literal_template():
    """``makemessages`` collects only ``_("literal", ...)``: no f-string, variable or concatenation (in every
    module of the package)."""
    trees = [ast.parse(path.read_text(encoding="utf-8"))
             for path in sorted(Path(interchange.__file__).parent.glob("*.py"))]
    calls = [node for tree in trees for node in ast.walk(tree)
             if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "_"]
    assert len(calls) > 80
    for call in calls:
        assert len(call.args) == 1 and isinstance(call.args[0], ast.Constant), ast.unparse(call)
        template = call.args[0].value
        assert isinstance(template, str)
        names = {keyword.arg for keyword in call.keywords}
        template % {name: "x" for name in names}  # every placeholder has its parameter ...
        assert all(f"%({name})s" in template for name in names), template  # ... and every parameter its place
    sentences = [ast.unparse(node) for tree in trees for node in ast.walk(tree) if isinstance(node, ast.JoinedStr)
                 and any(isinstance(part, ast.Constant) and " " in part.value for part in node.values)]
    assert sentences == []  # f-strings are left for paths (``f"{path}.games[{i}]"``) only
