"""elimination_gp: series and settings (GP-1, GP-2), registration (GP-3..GP-6), baskets and draw (GP-7, GP-8)."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest

from rulesets import elimination_gp as gp
from rulesets.elimination_gp.draw import BasketEntry, draw_order
from rulesets.elimination_gp.registration import (
    Registration,
    eligibility_problems,
    eligible,
    replace_withdrawal,
    stage_roster,
)
from rulesets.facts import Player
from tests.rulesets.test_elimination_gp_helpers import document, problems_of, stage

T0 = dt.datetime(2013, 5, 1, 12, 0, tzinfo=dt.UTC)


def at(minutes: int) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


def test_gp_1_the_series_has_5_qualifying_stages_and_a_final():
    assert gp.STAGE_KEYS[:5] == tuple(f"qualifying-{n}" for n in range(1, 6)) and gp.STAGE_KEYS[5] == "final"
    assert gp.DEFAULT_SETTINGS["qualifying_stages"] == 5 and gp.DEFAULT_SETTINGS["players_per_stage"] == 54
    doc = document(stage("qualifying-4"), settings={"qualifying_stages": 3})
    assert any("stages[0].key" in p and "GP-1" in p for p in problems_of(doc))
    assert problems_of(document(stage("qualifying-3"), stage("final"), settings={"qualifying_stages": 3})) == []
    assert gp.validate_settings({"qualifying_stages": 6})


def test_gp_2_stage_conditions_are_settings_and_bad_ones_are_refused():
    assert [p.path for p in gp.validate_settings({"extra_indicatr": "points"})] == ["extra_indicatr"]
    assert [p.path for p in gp.validate_settings({"extra_indicator": "best_don"})] == ["extra_indicator"]
    assert [p.path for p in gp.validate_settings({"basket_order": "random"})] == ["basket_order"]
    assert [p.path for p in gp.validate_settings({"teams_out_to_finish": 0})] == ["teams_out_to_finish"]
    assert [p.path for p in gp.validate_settings({"omon_elimination_from_tour": "21"})] == ["omon_elimination_from_tour"]
    assert [p.path for p in gp.validate_settings({"final_prizes": [300, -1]})] == ["final_prizes"]
    assert [p.path for p in gp.validate_settings({"points_table": {"mafia": {"win": 4}}})] == ["points_table.mafia.win"]
    assert [p.path for p in gp.validate_settings({"points_table": {"town": {}}})] == ["points_table.town"]
    assert [p.path for p in gp.validate_settings({"points_table": {"mafia": {"mafia": "x"}}})] == [
        "points_table.mafia.mafia"]
    assert gp.validate_settings({"points_table": {"mafia": {"mafia": "4.5", "draw": 2}}}) == []
    doc = document(stage(), settings={"extra_indicator": "best_don"})
    assert any(p.startswith("tournament.settings.extra_indicator") for p in problems_of(doc))


def test_gp_3_level_0_disqualified_and_already_qualified_players_may_not_register():
    assert eligible(Player("Majesty", level=5))
    assert eligibility_problems(Player("Newbie", level=0)) == ["Newbie is a level 0 player (GP-3)"]
    assert not eligible(Player("Cheat", level=5, disqualified=True))
    assert not eligible(Player("Cheat", level=5), disqualified=True)
    assert not eligible(Player("Star", level=9), qualified_for_final=True)


def test_gp_3_a_level_0_player_on_a_qualifying_stage_is_refused():
    doc = document(stage(), players=[{"nick": "A1", "level": 0}])
    assert any("stages[0].teams[0].players[0]" in p and "GP-3" in p for p in problems_of(doc))


def test_gp_4_at_most_10_invitations():
    with pytest.raises(ValueError, match="GP-4"):
        stage_roster([], [f"inv{i}" for i in range(11)])


def test_gp_5_roster_is_the_invited_plus_the_queue_and_the_rest_wait():
    registrations = [Registration(f"p{i:02d}", at(i)) for i in range(60)]
    registrations.reverse()
    roster = stage_roster(registrations, ["p59", "p58", "x"], size=54)
    assert roster.invited == ("p59", "p58", "x")
    assert roster.by_queue == tuple(f"p{i:02d}" for i in range(51))
    assert roster.waiting == tuple(f"p{i:02d}" for i in range(51, 58))
    assert len(roster.players) == 54


def roster_for_withdrawals(invited: int = 9):
    registrations = [Registration(f"p{i:02d}", at(i)) for i in range(50)]
    return stage_roster(registrations, [f"inv{i}" for i in range(invited)], size=40)


def test_gp_6_a_queue_player_who_withdraws_before_the_draw_is_replaced_from_the_waiting_list():
    roster = roster_for_withdrawals()
    first_waiting = roster.waiting[0]
    after = replace_withdrawal(roster, "p03", drawn=False)
    assert "p03" not in after.players and first_waiting in after.by_queue
    assert after.waiting == roster.waiting[1:]
    assert after.history[-1].replacement == first_waiting


def test_gp_6_an_invited_player_is_replaced_by_a_new_invitation_while_fewer_than_10_were_used():
    roster = roster_for_withdrawals(invited=9)
    after = replace_withdrawal(roster, "inv0", drawn=False, new_invitation="star")
    assert "star" in after.invited and after.invitations_used == 10
    again = replace_withdrawal(after, "inv1", drawn=False, new_invitation="other")
    assert "other" not in again.players
    assert again.by_queue[-1] == after.waiting[0]
    assert [h.how for h in again.history] == ["new invitation (GP-6)", "first of the waiting list (GP-6)"]


def test_gp_6_after_the_draw_nobody_is_replaced():
    roster = roster_for_withdrawals()
    after = replace_withdrawal(roster, "p05", drawn=True)
    assert "p05" not in after.players and after.waiting == roster.waiting
    assert after.history[-1].replacement is None


def test_gp_7_baskets_by_level_highest_first_ties_by_registration_time():
    players = [BasketEntry(f"p{i}", level=i % 5, registered_at=at(-i)) for i in range(9)]
    baskets = gp.make_baskets(players, "level")
    assert baskets == [["p4", "p8", "p3"], ["p7", "p2", "p6"], ["p1", "p5", "p0"]]


def test_gp_7_manual_baskets_must_be_equal():
    players = [BasketEntry(f"p{i}", level=1, registered_at=at(i)) for i in range(6)]
    manual = {"p0": 3, "p1": 3, "p2": 1, "p3": 1, "p4": 2, "p5": 2}
    assert gp.make_baskets(players, "manual", manual) == [["p2", "p3"], ["p4", "p5"], ["p0", "p1"]]
    with pytest.raises(ValueError, match="GP-7"):
        gp.make_baskets(players, "manual", dict(manual, p5=1))
    with pytest.raises(ValueError, match="GP-7"):
        gp.make_baskets(players[:5], "level")


def baskets_54() -> list[list[str]]:
    return [[f"b{b}p{i:02d}" for i in range(18)] for b in (1, 2, 3)]


def test_gp_8_draw_makes_9_teams_of_6_with_2_players_from_each_basket():
    baskets = baskets_54()
    teams = gp.draw_teams(baskets, "seed-2013")
    assert len(teams) == 9 and all(len(team) == 6 for team in teams)
    for team in teams:
        assert [name[:2] for name in team] == ["b1", "b1", "b2", "b2", "b3", "b3"]
    assert sorted(name for team in teams for name in team) == sorted(name for basket in baskets for name in basket)


def test_gp_8_draw_is_reproducible_and_depends_on_the_seed():
    baskets = baskets_54()
    assert gp.draw_teams(baskets, "seed-2013") == gp.draw_teams(baskets, "seed-2013")
    assert gp.draw_teams(baskets, "seed-2013") != gp.draw_teams(baskets, "seed-2014")
    shuffled = [list(reversed(basket)) for basket in baskets]
    assert gp.draw_teams(shuffled, "seed-2013") == gp.draw_teams(baskets, "seed-2013")


def test_gp_8_draw_can_be_rerun_by_hand_with_sha256():
    baskets = baskets_54()
    by_hand = sorted(baskets[0], key=lambda n: hashlib.sha256(f"s|basket 1|{n}".encode()).hexdigest())
    assert gp.draw_teams(baskets, "s")[0][:2] == by_hand[:2]
    assert gp.draw_teams(baskets, "s")[8][:2] == by_hand[16:18]
    assert draw_order(baskets[0], "s|basket 1") == by_hand


def test_gp_8_uneven_baskets_are_refused():
    with pytest.raises(ValueError, match="GP-8"):
        gp.draw_teams([["a", "b"], ["c"]], "s")
    with pytest.raises(ValueError, match="GP-8"):
        gp.draw_teams([["a", "b"], ["a", "c"]], "s")


def test_gp_8_a_player_on_two_teams_of_a_stage_is_refused():
    doc = document(stage())
    doc["stages"][0]["teams"][1]["players"][0] = "A1"
    doc["stages"][0]["teams"][1]["captain"] = "A1"
    assert any("stages[0].teams[1].players[0]" in p and "already on team A" in p for p in problems_of(doc))
