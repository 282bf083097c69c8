"""FL-3 eligibility warnings and the FL-8 seeded group draw."""

from __future__ import annotations

import datetime as dt

from rulesets.facts import Player
from rulesets.family_league.entry import (
    BlacklistEntry,
    draw_groups,
    eligibility_from_facts,
    eligibility_problems,
    judging_moment,
)
from rulesets.interchange import parse_document
from tests.rulesets.test_family_league_builder import document, names

START = dt.datetime(2014, 9, 1, 19, 0, tzinfo=dt.timezone(dt.timedelta(hours=4)))
ROSTERS = {"Eternity": ["Majesty", "Tiberi", "Ghost"], "Wind": ["Breeze", "Gale"]}
PLAYERS = [
    Player("Majesty", family="Eternity"),
    Player("Tiberi", family="Eternity", banned=True),
    Player("Ghost", family="Wind"),
    Player("Breeze", family="Wind"),
    Player("Gale", family="Wind"),
    Player("Outsider", family="Rain"),
]


def reasons(warnings) -> list[tuple[str, str, str, str | None]]:
    return [(w.team, w.player, w.reason, w.other) for w in warnings]


def test_fl_3_membership_and_ban_are_flagged():
    assert reasons(eligibility_problems(PLAYERS, {}, [], START, ROSTERS)) == [
        ("Eternity", "Ghost", "membership", None), ("Eternity", "Tiberi", "banned", None)]


def test_fl_3_a_blacklist_in_either_direction_flags_both_players():
    warnings = eligibility_problems(PLAYERS, {}, [("Gale", "Majesty"), ("Outsider", "Breeze")], START, ROSTERS)
    assert ("Eternity", "Majesty", "blacklist", "Gale") in reasons(warnings)
    assert ("Wind", "Gale", "blacklist", "Majesty") in reasons(warnings)
    assert not any(w.player == "Breeze" for w in warnings)
    assert all("FL-3" in w.message for w in warnings)


def test_fl_3_is_judged_24_hours_before_the_start():
    assert judging_moment(START) == START - dt.timedelta(hours=24)
    late = BlacklistEntry("Gale", "Majesty", since=START - dt.timedelta(hours=2))
    early = BlacklistEntry("Breeze", "Majesty", since=START - dt.timedelta(hours=25))
    warnings = reasons(eligibility_problems(PLAYERS, {}, [late, early], START, ROSTERS))
    assert ("Wind", "Breeze", "blacklist", "Majesty") in warnings
    assert not any(w[1] == "Gale" for w in warnings)


def test_fl_3_from_the_facts_of_a_tournament():
    doc = document(names(9), [])
    doc["players"] = [{"nick": "Fam01-p2", "family": "Fam02"}, {"nick": "Fam03-p1", "banned": True, "family": "Fam03"}]
    warnings = reasons(eligibility_from_facts(parse_document(doc), [("Fam05-p1", "Fam06-p2")], START))
    assert warnings == [("Fam01", "Fam01-p2", "membership", None), ("Fam03", "Fam03-p1", "banned", None),
                        ("Fam05", "Fam05-p1", "blacklist", "Fam06-p2"), ("Fam06", "Fam06-p2", "blacklist", "Fam05-p1")]


def test_fl_8_the_seeded_draw_is_reproducible_and_balanced():
    teams = names(17)
    drawn = draw_groups(teams, 2, "2014-autumn")
    assert drawn == draw_groups(teams, 2, "2014-autumn")
    assert sorted(t for group in drawn for t in group) == teams
    assert sorted(len(g) for g in drawn) == [8, 9]
    for pot in range(8):
        assert {drawn[0][pot], drawn[1][pot]} == set(teams[2 * pot:2 * pot + 2])
    assert any(draw_groups(teams, 2, str(seed)) != drawn for seed in range(5))
