"""The family league's sentences (and the Mafia appeal refusal of
``rulesets.mafia``) are messages with parameters (``rulesets.messages.Text``): the English value is unchanged,
the template is the catalogue's msgid and every variable part is a named parameter, so that the portal renders
them in the reader's language without a regular expression.

The Russian rendering needs the compiled catalogue: these tests check the templates and the parameters, which
are what the catalogue is looked up with."""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

import pytest

from rulesets import family_league
from rulesets.base import RulesetError
from rulesets.facts import Player
from rulesets.family_league import ledger
from rulesets.family_league.entry import eligibility_problems
from rulesets.family_league.games import CIVILIANS_WIN, LOSS, MAFIA_WIN
from rulesets.interchange import parse_document
from rulesets.messages import Text, as_data, from_data
from tests.rulesets.test_family_league import load
from tests.rulesets.test_family_league_builder import (
    NOW,
    document,
    final_stage,
    full_game,
    game,
    names,
    qualifying_stage,
    seat,
    standings,
)

NINE = names(9)


def message(value, template: str, /, **params) -> Text:
    """``value`` is a ``Text`` made from ``template`` with exactly ``params`` (a nested message compared by its
    English value; check it on its own)."""
    assert isinstance(value, Text), repr(value)
    assert value.template == template
    assert {k: str(v) for k, v in value.params.items()} == {k: str(v) for k, v in params.items()}
    return value


def example_points():
    return family_league.seat_points(parse_document(load("family_league.json")), "final")


# --- FL-13, FL-14: why a seat earns its points ---------------------------------------------------------------


def test_fl_13_a_plain_seat_reason_is_the_outcome_message_itself_one_object_for_every_seat():
    points = example_points()
    reasons = [reason for value, reason in points.values() if reason == "mafia win"]
    assert reasons and all(reason is MAFIA_WIN for reason in reasons)
    message(MAFIA_WIN, "mafia win")
    message(CIVILIANS_WIN, "civilians win")


def test_fl_13_fl_14_kills_and_a_timeout_are_parts_of_the_reason_with_their_numbers():
    points = example_points()
    kills = points[(4, "Fam02-p2")][1]
    assert kills == "loss, 3 kills"  # the English value as before
    assert isinstance(kills, Text) and kills.params["p0"] is LOSS
    message(kills.params["p1"], "%(kills)s kills", kills=3)
    timeout = points[(2, "Fam03-p3")][1]
    assert timeout == "civilians win; timeout: 0 of 3 days"
    assert timeout.params["p0"] is CIVILIANS_WIN
    message(timeout.params["p1"], "timeout: %(days)s of %(game_days)s days", days=0, game_days=3)


def test_fl_13_a_single_kill_is_its_own_message_without_a_plural():
    seats = [seat("Fam01-p1", role="maniac", maniac_kills=1)] + [seat(f"{t}-p1") for t in NINE[1:]]
    reason = family_league.seat_points(parse_document(document(NINE, [final_stage(NINE, [game(1, seats)])])),
                                       "final")[(1, "Fam01-p1")][1]
    assert reason == "loss, 1 kill"
    message(reason.params["p1"], "1 kill")


# --- FL-15: why a seat scores nothing, the detected violations ----------------------------------------------


def test_fl_15_3_a_second_seat_of_a_team_names_the_kind_its_code_and_the_problem():
    reason = example_points()[(4, "Fam03-p4")][1]
    assert reason.startswith("two_players (FL-15.3): ")
    message(reason, "%(kind)s (%(code)s): %(problem)s", kind="two_players", code="FL-15.3",
            problem=reason.params["problem"])
    message(reason.params["problem"], "%(team)s already has a player in game %(number)s", team="Fam03", number=4)


def test_fl_5_fl_15_2_the_game_limit_reason_carries_the_player_the_count_and_the_limit():
    games = [full_game(1, NINE), game(2, [seat("Fam01-p1")] + [seat(f"{t}-p2") for t in NINE[1:]]),
             full_game(3, NINE)]
    doc = document(NINE, [final_stage(NINE, games)], settings={"max_games_per_player": 2})
    reason = family_league.seat_points(parse_document(doc), "final")[(3, "Fam01-p1")][1]
    assert reason == "ineligible_player (FL-15.2): Fam01-p1 already played 2 games, the limit is 2 (FL-5)"
    assert reason.params["kind"] == "ineligible_player"
    message(reason.params["problem"], "%(player)s already played %(games)s games, the limit is %(limit)s (FL-5)",
            player="Fam01-p1", games=2, limit=2)


def test_fl_15_1_fl_15_4_violation_texts_of_a_foreign_player_and_a_no_show_are_messages():
    sixteen = names(16)
    g1, g2 = sixteen[:8], sixteen[8:]
    seats = [seat(f"{t}-p1") for t in g1[:-1]] + [seat("Fam09-p1")]
    computed = standings(document(sixteen, [qualifying_stage({"1": g1, "2": g2}, [game(1, seats, group="1")])]))
    foreign, no_show = computed.details["violations"]
    assert foreign["text"] == "foreign_player (FL-15.4): Fam09 does not take part in game 1"
    message(foreign["text"].params["problem"], "%(team)s does not take part in game %(number)s", team="Fam09",
            number=1)
    message(no_show["text"], "%(team)s has no player in game %(number)s", team="Fam08", number=1)


def test_fl_10_a_team_absent_from_a_not_held_game_is_a_message():
    absent = game(1, [], None, status="not_held")
    absent["absent_teams"] = ["Fam02"]
    computed = standings(document(NINE, [final_stage(NINE, [absent])]))
    [violation] = computed.details["violations"]
    message(violation["text"], "%(team)s did not come to game %(number)s", team="Fam02", number=1)


def test_a_recompute_from_scratch_gives_the_same_reason_objects_again():
    """Memoized: a forced recompute does not make a new message per seat."""
    facts = parse_document(load("family_league.json"))
    first = ledger.analyse_from_scratch(facts).seats["final"]
    second = ledger.analyse_from_scratch(parse_document(load("family_league.json"))).seats["final"]
    assert [s.reason for s in first] == [s.reason for s in second]
    assert all(a.reason is b.reason for a, b in zip(first, second))


# --- notes of a table, refusals ------------------------------------------------------------------------------


def test_fl_2_the_too_few_teams_note_is_a_message_with_the_count_and_the_minimum():
    computed = standings(document(names(8), [final_stage(names(8), [])]))
    [note] = computed.notes
    assert note == "8 teams: the tournament runs only with at least 9 (FL-2)"
    message(note, "%(teams)s teams: the tournament runs only with at least %(minimum)s (FL-2)", teams=8, minimum=9)


def test_fl_11_the_cut_tie_note_names_the_group_and_the_teams():
    teams = names(16)
    games = [full_game(1, teams[:8], group="1"), full_game(2, teams[8:], group="2")]
    computed = standings(document(teams, [qualifying_stage({"1": teams[:8], "2": teams[8:]}, games)],
                                  settings={"qualifying_games": 1}))
    note = next(n for n in computed.notes if "FL-11" in n)
    message(note, "group %(group)s: %(teams)s are tied at the cut; the curator decides (FL-11)", group="1",
            teams=", ".join(teams[:8]))
    assert note.params["teams"] == ", ".join(teams[:8])


def test_fl_8_a_refused_group_and_a_game_without_its_group_are_messages():
    sixteen = names(16)
    stage = qualifying_stage({"1": sixteen[:8], "2": sixteen[7:]}, [full_game(1, sixteen[:8])])
    with pytest.raises(RulesetError) as error:
        parse_document(document(sixteen, [stage]))
    by_path = {p.path: p.message for p in error.value.problems}
    message(by_path["stages[0].games[0].group"], "a game of a stage with several groups names its group (FL-8)")
    message(by_path["stages[0].groups[1].teams[0]"], "%(team)s is already in group %(group)s (FL-8)",
            team="Fam08", group="1")


def test_glossary_a_game_status_is_said_in_the_sentence_itself():
    scheduled = game(1, [], "civilians", status="scheduled")
    with pytest.raises(RulesetError) as error:
        parse_document(document(NINE, [final_stage(NINE, [scheduled])]))
    problem = next(p for p in error.value.problems if p.path.endswith(".outcome"))
    message(problem.message, "a scheduled game has no outcome")


def test_fl_unknown_stage_refusals_keep_the_key_as_a_parameter():
    facts = parse_document(document(NINE, [final_stage(NINE, [])]))
    with pytest.raises(RulesetError) as error:
        family_league.compute(facts, "semi", NOW)
    message(error.value.problems[0].message, "unknown stage %(key)s; family_league has %(keys)s", key="'semi'",
            keys="qualifying, final")
    with pytest.raises(RulesetError) as error:
        family_league.compute(facts, "qualifying", NOW)
    assert error.value.problems[0].message == "the tournament has no stage 'qualifying' yet"
    message(error.value.problems[0].message, "the tournament has no stage '%(stage)s' yet", stage="qualifying")


def test_fl_5_fl_17_settings_refusals_are_messages_with_the_rule_and_the_value():
    by_path = {p.path: p.message for p in family_league.validate_settings(
        {"min_teams": "nine", "max_games_per_player": 0, "fine_counter": "game", "colour": "red",
         "points_table": {"maniac": {"win": 2, "bonus": 1}}})}
    message(by_path["min_teams"], "must be a whole number (%(rule)s)", rule="FL-2")
    message(by_path["max_games_per_player"], "%(value)s is below %(minimum)s (%(rule)s)", value=0, minimum=1,
            rule="FL-5")
    assert by_path["fine_counter"] == "'game' is not one of team, tournament (FL-17)"
    message(by_path["fine_counter"], "%(value)s is not one of %(options)s (%(rule)s)", value="'game'",
            options="team, tournament", rule="FL-17")
    message(by_path["colour"], "unknown setting of family_league")
    message(by_path["points_table.maniac.bonus"], "unknown key; %(side)s takes %(keys)s (FL-13)", side="maniac",
            keys="win, draw, kills")


def test_fl_3_eligibility_warnings_are_messages():
    warnings = eligibility_problems([Player(nick="A", family="Other"), Player(nick="B", family="Fam", banned=True)],
                                    {"Team": "Fam"}, [("A", "B")], None, {"Team": ["A", "B"]})
    by_reason = {(w.player, w.reason): w.message for w in warnings}
    message(by_reason[("A", "membership")], "%(player)s is not a member of the family %(family)s (FL-3)",
            player="A", family="Fam")
    message(by_reason[("B", "banned")], "%(player)s is banned from official tournaments (FL-3)", player="B")
    message(by_reason[("A", "blacklist")], "%(player)s and %(other)s are on a blacklist together (FL-3)",
            player="A", other="B")


def test_fl_19_a_late_appeal_refusal_carries_both_moments_and_the_rule():
    msk = dt.timezone(dt.timedelta(hours=3))
    doc = document(NINE, [final_stage(NINE, [full_game(1, NINE)])])
    doc["decisions"] = [{"kind": "technical_result", "stage": "final", "game": 1, "outcome": "mafia",
                         "decided_at": "2014-09-10T20:00:00+03:00", "published_at": "2014-09-10T20:00:00+03:00"}]
    doc["appeals"] = [{"kind": "decision", "decision": 1, "filed_at": "2014-09-14T20:00:00+03:00"}]
    with pytest.raises(RulesetError) as error:
        parse_document(doc)
    problem = next(p for p in error.value.problems if p.path.endswith("filed_at"))
    deadline = dt.datetime(2014, 9, 13, 20, 0, tzinfo=msk).isoformat()
    message(problem.message, "filed %(filed)s after the deadline %(deadline)s (%(rule)s)",
            filed="2014-09-14T20:00:00+03:00", deadline=deadline, rule="FL-19")


def test_a_reason_keeps_its_template_and_parameters_when_stored():
    reason = example_points()[(4, "Fam03-p4")][1]
    stored = from_data(as_data(reason))
    assert stored == reason and stored.template == reason.template
    assert stored.params["problem"].template == "%(team)s already has a player in game %(number)s"
    assert example_points()[(4, "Fam02-p2")][0] == Fraction(6, 5)
