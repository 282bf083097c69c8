"""The elimination Grand Prix's sentences are messages with parameters (``rulesets.messages.Text``): the English
value is unchanged, the template is the catalogue's msgid and every variable part is a named parameter, so that
the portal renders them in the reader's language without a regular expression.

The Russian rendering needs the compiled catalogue: these tests check the templates and the parameters, which
are what the catalogue is looked up with."""

from __future__ import annotations

import datetime as dt

import pytest

from rulesets import elimination_gp as gp
from rulesets.base import RulesetError
from rulesets.elimination_gp.draw import BasketEntry
from rulesets.elimination_gp.process import LOST_CLEAN_WIN, SEAT_REASONS
from rulesets.elimination_gp.registration import NEW_INVITATION, Registration, eligibility_problems, replace_withdrawal
from rulesets.facts import Player
from rulesets.interchange import parse_document
from rulesets.messages import Text, as_data, from_data
from tests.rulesets.test_elimination_gp_helpers import StagePlan, document, game, stage, standings

T0 = dt.datetime(2013, 5, 1, 12, 0, tzinfo=dt.UTC)


def message(value, template: str, /, **params) -> Text:
    """``value`` is a ``Text`` made from ``template`` with exactly ``params`` (compared by their English values)."""
    assert isinstance(value, Text), repr(value)
    assert value.template == template
    assert {k: str(v) for k, v in value.params.items()} == {k: str(v) for k, v in params.items()}
    return value


def small(*games, **kwargs):
    return document(stage("qualifying-1", 4, 2, list(games)), **kwargs)


def refusals(doc) -> dict[str, str]:
    with pytest.raises(RulesetError) as error:
        parse_document(doc)
    return {p.path: p.message for p in error.value.problems}


# --- GP-9, GP-10: refusals of a tour, with the player, the team, the game and the tour as parameters ---------


def test_gp_9_a_second_player_of_a_team_and_an_eliminated_player_are_refused_with_parameters():
    seats = {"A1": "mafia", "B1": "civilian", "C1": "civilian", "D1": "commissar"}
    doc = small(game(1, "civilians", seats), game(2, "civilians", {**seats, "A2": "civilian"}))
    by_path = refusals(doc)
    eliminated = by_path["stages[0].games[1].seats[0].player"]
    assert eliminated == "A1 was eliminated in tour 1 (game 1, GP-11) and may not play a later game (GP-9)"
    message(eliminated, "%(player)s was eliminated in tour %(tour)s (game %(game)s, %(rule)s) and may not play a "
            "later game (GP-9)", player="A1", tour=1, game=1, rule="GP-11")
    second = by_path["stages[0].games[1].seats[4].team"]
    assert second == "a second player of team A in game 2: a team sends one player a tour (GP-9)"
    message(second, "a second player of team %(team)s in game %(number)s: a team sends one player a tour (GP-9)",
            team="A", number=2)


def test_gp_10_an_elimination_reason_of_an_absent_team_names_the_team_and_the_seed():
    recorded = standings(small(game(1, "maniac", {"B1": "civilian", "C1": "mafia", "D1": "maniac"}, absent=["A"],
                                    no_show={"A": "A2"})))
    [out] = recorded.details["eliminations"]
    assert out["reason"] == "team A absent"
    message(out["reason"], "team %(team)s absent", team="A")
    drawn = standings(small(game(1, "maniac", {"B1": "civilian", "C1": "mafia", "D1": "maniac"}, absent=["A"])))
    [out] = drawn.details["eliminations"]
    assert out["reason"] == "team A absent: drawn with seed gp-test/qualifying-1"
    message(out["reason"], "team %(team)s absent: drawn with seed %(seed)s", team="A", seed="gp-test/qualifying-1")


# --- GP-11, GP-12, GP-14: why a player is out, why a seat earns its points ------------------------------------


def test_gp_11_gp_14_the_losers_of_a_clean_win_and_the_seat_reasons_are_one_message_each():
    doc = small(game(1, "mafia", {"A1": "don", "B1": "civilian", "C1": "commissar", "D1": "civilian"}))
    reasons = {e["player"]: e["reason"] for e in standings(doc).details["eliminations"]}
    assert set(reasons) == {"B1", "C1", "D1"}
    assert all(reason is LOST_CLEAN_WIN["mafia"] for reason in reasons.values())
    message(reasons["B1"], "lost a clean mafia win")
    points = gp.seat_points(parse_document(doc), "qualifying-1")
    assert points[(1, "A1")][1] is SEAT_REASONS[("win", "mafia")]
    message(points[(1, "B1")][1], "civilians loss")


def test_gp_12_an_omon_seat_reason_wraps_the_outcome_message_and_keeps_it_when_stored():
    doc = small(game(21, "mafia", {"A1": "don", "B1": "civilian", "C1": "commissar", "D1": "civilian"}, omon=True))
    reason = gp.seat_points(parse_document(doc), "qualifying-1")[(21, "B1")][1]
    assert reason == "civilians loss (OMON)"
    message(reason, "%(reason)s (OMON)", reason="civilians loss")
    assert reason.params["reason"] is SEAT_REASONS[("loss", "civilians")]
    out = standings(doc).details["eliminations"]
    message(out[0]["reason"], "civilians of an OMON game in tour %(tour)s", tour=21)
    stored = from_data(as_data(reason))
    assert stored == reason and stored.params["reason"].template == "civilians loss"


# --- GP-16..GP-18: the note of places left to the committee --------------------------------------------------


def test_gp_18_a_vacancy_note_carries_the_rule_the_places_and_the_tied_players():
    plan = StagePlan().tour("draw", {"A1": "mafia", "B1": "mafia"}).knock_out()
    result = standings(document(plan.stage(), settings={"extra_indicator": "mafia_points"}))
    note = next(n for n in result.notes if n.startswith("GP-16"))
    tied = "A2, A3, A4, A5, A6, B2, B3, B4, B5, B6"
    assert note == f"GP-16: 4 place(s) left to the committee: {tied} tied across the cut (GP-18)"
    message(note, "%(rule)s: %(places)s place(s) left to the committee: %(players)s tied across the cut (GP-18)",
            rule="GP-16", places=4, players=tied)


# --- GP-3..GP-8, GP-17: registration, draw and settings refusals ------------------------------------------------


def test_gp_3_gp_6_registration_refusals_and_the_roster_history_are_messages():
    [problem] = eligibility_problems(Player("Newbie", level=0))
    assert problem == "Newbie is a level 0 player (GP-3)"
    message(problem, "%(player)s is a level 0 player (GP-3)", player="Newbie")
    roster = gp.stage_roster([Registration(f"P{i}", T0 + dt.timedelta(minutes=i)) for i in range(4)], ["Inv"], 3)
    replaced = replace_withdrawal(roster, "Inv", drawn=False, new_invitation="New")
    assert replaced.history[-1].how is NEW_INVITATION
    with pytest.raises(ValueError) as error:
        replace_withdrawal(roster, "Nobody", drawn=False)
    message(error.value.args[0], "GP-6: %(player)s is not on the stage's roster", player="Nobody")
    assert str(error.value) == "GP-6: Nobody is not on the stage's roster"


def test_gp_7_gp_17_basket_and_settings_refusals_keep_their_values_as_parameters():
    with pytest.raises(ValueError) as error:
        gp.make_baskets([BasketEntry(f"P{i}", 1, T0) for i in range(4)])
    assert str(error.value) == "GP-7: 4 players cannot be split into 3 equal baskets"
    message(error.value.args[0], "GP-7: %(count)s players cannot be split into %(baskets)s equal baskets",
            count=4, baskets=3)
    [problem] = gp.validate_settings({"extra_indicator": "best_don"})
    assert problem.message == ("'best_don' is not one of commissar_wins, commissar_points, mafia_wins, mafia_points, "
                               "civilian_points, points, custom (GP-17)")
    message(problem.message, "%(value)s is not one of %(options)s (GP-17)", value="'best_don'",
            options="commissar_wins, commissar_points, mafia_wins, mafia_points, civilian_points, points, custom")
