"""``class_balanced`` standings: tie-breaks, eliminations, class balance, best player (CB-7, CB-11..CB-14)."""

from __future__ import annotations

import hashlib
from fractions import Fraction

import pytest

from rulesets import class_balanced as cb
from rulesets.class_balanced.points import Tally
from rulesets.facts import TournamentFacts
from tests.rulesets.test_class_balanced_builder import (
    TEAMS,
    document,
    export,
    full_tournament,
    game,
    games_of,
    lose,
    parse,
    rows,
    seat,
    seat_of,
    set_class,
    stage_1_games,
    stage_2_games,
    standings,
)


def _draw_order(seed: str, teams) -> list[str]:
    return sorted(teams, key=lambda t: hashlib.sha256(f"{seed}:{t}".encode()).hexdigest())


def _table(doc: dict, stage: str | None = None) -> list[tuple[int, str, str]]:
    return [(row["rank"], row["team"], row["status"]) for row in export(doc, stage)["teams"]]


# --------------------------------------------------------------------------- CB-11


def test_cb_11_stage_1_chain_points_then_mafia_wins_then_mafia_draws():
    games = [
        game(1, [seat("T01", role="don"), seat("T09")], outcome="mafia"),
        game(2, [seat("T02", role="don"), seat("T09", in_final_phase=True)], outcome="draw"),
        game(3, [seat("T05"), seat("T09", role="mafia")], outcome="civilians"),
        game(4, [seat("T05"), seat("T06")], outcome="civilians"),
        game(5, [seat("T06"), seat("T10")], outcome="civilians"),
        game(6, [seat("T06", in_final_phase=True), seat("T10", role="mafia")], outcome="draw"),
        game(7, [seat("T06", in_final_phase=True), seat("T11", role="mafia")], outcome="draw"),
    ]
    result = standings(document({"stage-1": games}))
    by_team = {row.team: row for row in result.teams}
    assert result.details["chain"] == ["points", "mafia_wins", "mafia_draws"]
    assert by_team["T01"].points == 4 and by_team["T06"].points == 4
    assert by_team["T01"].rank < by_team["T06"].rank and by_team["T06"].separated_by == "mafia_wins"
    assert by_team["T02"].points == 3 and by_team["T05"].points == 3
    assert by_team["T02"].rank < by_team["T05"].rank and by_team["T05"].separated_by == "mafia_draws"


def test_cb_11_export_always_has_all_six_tiebreaks_as_numbers():
    out = export(document({"stage-1": [game(1, [seat("T01")])]}))
    for row in out["teams"]:
        assert list(row["tiebreaks"]) == ["mafia_wins", "mafia_draws", "mafia_wins_13", "mafia_draws_13",
                                          "maniac_wins", "points_13"]
        assert all(isinstance(v, float) for v in row["tiebreaks"].values())


def test_cb_11_long_chain_from_the_first_counted_game_of_stage_2():
    s1 = stage_1_games()
    scheduled = [game(1, [], outcome=None, status="scheduled")]
    assert standings(document({"stage-1": s1, "stage-2": scheduled})).details["chain"] == list(cb.SHORT_CHAIN)
    lose(s1, "T14")
    played = stage_2_games(TEAMS[:13])[:1]
    assert standings(document({"stage-1": s1, "stage-2": played})).details["chain"] == list(cb.LONG_CHAIN)
    assert list(cb.LONG_CHAIN) == ["points", "mafia_wins", "mafia_wins_13", "mafia_draws", "mafia_draws_13",
                                   "maniac_wins", "points_13"]


def _facts() -> TournamentFacts:
    return parse(document({}))


@pytest.mark.parametrize("key", cb.LONG_CHAIN)
def test_cb_11_each_link_of_the_long_chain_decides_when_all_before_it_are_equal(key):
    chain = cb.LONG_CHAIN
    position = chain.index(key)
    upper = Tally(points=Fraction(10), mafia_wins=2, mafia_wins_13=1, mafia_draws=2, mafia_draws_13=1,
                  maniac_wins=1, points_13=Fraction(5))
    lower = Tally(**{name: getattr(upper, name) for name in upper.__dataclass_fields__})
    setattr(lower, key, getattr(upper, key) - 1)
    for later in chain[position + 1:]:
        setattr(lower, later, getattr(upper, later) + 3)
    order = cb.order_teams(_facts(), ["A", "B"], {"A": lower, "B": upper}, chain, "stage-2",
                           cb.Draws({"stage-2": "s"}))
    assert [p.team for p in order] == ["B", "A"]
    assert order[1].separated_by == key


def test_cb_11_two_teams_tied_after_stage_2_separated_only_by_points_in_13_player_games():
    s1 = stage_1_games()
    lose(s1, "T14", count=2)
    for team in TEAMS[:13]:
        if team != "T02":
            lose(s1, team)
    s2 = stage_2_games(TEAMS[:13])
    for team in TEAMS[1:13]:
        lose(s2, team)
    result = standings(document({"stage-1": s1, "stage-2": s2}), "stage-2")
    first, second = result.teams[0], result.teams[1]
    assert (first.team, second.team) == ("T01", "T02")
    assert first.points == second.points == Fraction(147, 2)
    assert {k: v for k, v in first.tiebreaks.items() if k != "points_13"} == \
        {k: v for k, v in second.tiebreaks.items() if k != "points_13"}
    assert first.tiebreaks["points_13"] == 39 and second.tiebreaks["points_13"] == Fraction(75, 2)
    assert second.separated_by == "points_13"
    assert (first.rank, second.rank) == (1, 2)


def test_cb_11_teams_equal_on_everything_are_ordered_by_the_seeded_draw():
    out = export(document({"stage-1": []}))
    assert out["seed"] == "cb-test:stage-1"
    assert [row["team"] for row in out["teams"]] == _draw_order("cb-test:stage-1", TEAMS)
    assert [row["rank"] for row in out["teams"]] == list(range(1, 15))


def test_cb_11_the_stage_seed_of_the_document_is_used():
    doc = document({"stage-1": []})
    doc["stages"][0]["seed"] = "public-42"
    out = export(doc)
    assert out["seed"] == "public-42"
    assert [row["team"] for row in out["teams"]] == _draw_order("public-42", TEAMS)


def test_cb_11_no_draw_no_seed():
    games = [game(1, [seat("T01")]), game(2, [seat("T02", role="don")], outcome="mafia")]
    doc = document({"stage-1": games}, teams=("T01", "T02"))
    assert export(doc)["seed"] is None


def test_cb_11_a_committee_tie_break_orders_tied_rows_without_a_draw():
    games = [game(1, [seat("T03")])]
    decision = {"stage": "stage-1", "kind": "tie_break", "order": ["T02", "T01"],
                "decided_at": "2015-03-10T12:00:00+03:00"}
    doc = document({"stage-1": games}, teams=("T01", "T02", "T03"), decisions=[decision])
    out = export(doc)
    assert _table(doc) == [(1, "T03", "active"), (2, "T02", "active"), (3, "T01", "active")]
    assert out["seed"] is None
    assert standings(doc).teams[2].separated_by == "tie_break"


# --------------------------------------------------------------------------- CB-12


def test_cb_12_the_last_team_is_out_once_stage_1_is_complete():
    s1 = stage_1_games()
    lose(s1, "T14")
    table = _table(document({"stage-1": s1}))
    assert table[-1] == (14, "T14", "eliminated")
    assert all(status == "active" for _, _, status in table[:-1])
    incomplete = _table(document({"stage-1": s1[:-1]}))
    assert all(status == "active" for _, _, status in incomplete)


def test_cb_12_a_scheduled_game_keeps_the_stage_open():
    s1 = stage_1_games()
    lose(s1, "T14")
    s1.append(game(49, [], outcome=None, status="scheduled"))
    assert all(status == "active" for _, _, status in _table(document({"stage-1": s1})))


def test_cb_12_rows_after_stage_2_and_in_the_final():
    doc, second, third = full_tournament()
    after_2 = _table(doc, "stage-2")
    assert [status for _, _, status in after_2] == ["active"] * 10 + ["eliminated"] * 4
    assert {team for _, team, _ in after_2[10:13]} == {"T11", "T12", "T13"}
    assert after_2[13][1:] == ("T14", "eliminated")
    assert [rank for rank, _, _ in after_2] == list(range(1, 15))
    final = export(doc)
    assert final["final"] is True and final["stage"] == "stage-3"
    assert [row["status"] for row in final["teams"]] == ["winner"] + ["active"] * 9 + ["eliminated"] * 4
    assert {row["team"] for row in final["teams"][:10]} == set(third)


def test_cb_12_teams_out_after_stage_2_are_ranked_among_themselves_by_the_stage_2_chain():
    doc, _, _ = full_tournament()
    s2 = doc["stages"][1]["games"]
    lose(s2, "T12", count=1, skip=5)
    lose(s2, "T13", count=2, skip=5)
    assert _table(doc)[10:] == [(11, "T11", "eliminated"), (12, "T12", "eliminated"),
                                (13, "T13", "eliminated"), (14, "T14", "eliminated")]


def test_cb_12_a_tie_at_the_cut_is_drawn_with_the_stage_seed():
    s1 = stage_1_games()
    lose(s1, "T13")
    lose(s1, "T14")
    out = export(document({"stage-1": s1}))
    drawn_out = _draw_order("cb-test:stage-1", ["T13", "T14"])[-1]
    assert out["teams"][-1]["team"] == drawn_out and out["teams"][-1]["status"] == "eliminated"
    assert out["seed"] == "cb-test:stage-1"


def test_cb_12_a_tie_at_the_cut_follows_the_draw_the_document_records():
    s1 = stage_1_games()
    lose(s1, "T13")
    lose(s1, "T14")
    going_on = "T13" if _draw_order("cb-test:stage-1", ["T13", "T14"])[-1] == "T13" else "T14"
    staying_out = "T14" if going_on == "T13" else "T13"
    s2 = stage_2_games(tuple(t for t in TEAMS if t != staying_out))
    result = standings(document({"stage-1": s1, "stage-2": s2}), "stage-1")
    assert (result.teams[-1].team, result.teams[-1].status) == (staying_out, "eliminated")
    assert result.teams[-2].team == going_on


def test_cb_12_a_team_out_may_not_play_the_next_stage():
    s1 = stage_1_games()
    lose(s1, "T14")
    s2 = stage_2_games(TEAMS[1:14])
    with pytest.raises(Exception) as error:
        parse(document({"stage-1": s1, "stage-2": s2}))
    assert "T14 is not in stage-2: eliminated after stage-1 (CB-12)" in str(error.value)


# --------------------------------------------------------------------------- CB-7, CB-13


def test_cb_7_class_balance_table_shows_what_each_team_still_owes():
    s1 = stage_1_games()[:6]
    for number in games_of(s1, "T01"):
        set_class(s1, number, "T01", "A")
    facts = parse(document({"stage-1": s1}))
    table = cb.class_balance(facts, "stage-1")
    assert table["T01"]["A"] == 3 and table["T01"]["owed"] == {"A": 5, "B": 8, "C": 8}
    assert table["T01"]["remaining"] == 21 and table["T01"]["can_still_balance"] is True
    assert table["T08"]["owed"] == {"A": 7, "B": 7, "C": 7}
    assert set(table) == set(TEAMS)


def test_cb_7_warns_as_soon_as_a_team_can_no_longer_balance():
    s1 = stage_1_games()[:20]
    for number in games_of(s1, "T02")[:9]:
        set_class(s1, number, "T02", "C")
    result = standings(document({"stage-1": s1}))
    assert result.details["class_warnings"] == ["T02"]
    assert result.details["class_balance"]["T02"]["can_still_balance"] is False
    assert any("T02" in note and "(CB-7)" in note for note in result.notes)
    assert all(row.status == "active" for row in result.teams)


def test_cb_7_a_team_ending_stage_1_with_9_8_7_is_disqualified_in_place_of_the_last_team():
    s1 = stage_1_games()
    lose(s1, "T14")
    c_game = next(n for n in games_of(s1, "T03") if seat_of(s1, n, "T03")["stats"] == 200)
    set_class(s1, c_game, "T03", "A")
    facts = parse(document({"stage-1": s1}))
    balance = cb.class_balance(facts, "stage-1")["T03"]
    assert (balance["A"], balance["B"], balance["C"]) == (9, 8, 7)
    table = _table(document({"stage-1": s1}))
    assert table[-1] == (14, "T03", "disqualified")
    assert (13, "T14", "active") in table
    assert sum(1 for _, _, status in table if status == "active") == 13
    s2 = stage_2_games(tuple(t for t in TEAMS if t != "T03"))
    parse(document({"stage-1": s1, "stage-2": s2}))
    with pytest.raises(Exception, match="T03 is not in stage-2"):
        parse(document({"stage-1": s1, "stage-2": stage_2_games(TEAMS[:13])}))


def test_cb_7_a_team_ending_stage_3_unbalanced_is_disqualified_and_ranked_after_all():
    doc, second, third = full_tournament()
    s3 = doc["stages"][2]["games"]
    c_game = next(n for n in games_of(s3, "T05") if seat_of(s3, n, "T05")["stats"] == 200)
    set_class(s3, c_game, "T05", "B")
    out = export(doc)
    assert (out["teams"][-1]["rank"], out["teams"][-1]["team"], out["teams"][-1]["status"]) == \
        (14, "T05", "disqualified")
    assert [row["status"] for row in out["teams"][:9]] == ["winner"] + ["active"] * 8
    assert [row["status"] for row in out["teams"][9:13]] == ["eliminated"] * 4
    assert out["teams"][9]["rank"] == 10
    assert all(row["status"] == "active" for row in export(doc, "stage-2")["teams"][:10])


def test_cb_7_a_timed_out_seat_counts_for_the_class_balance():
    s1 = stage_1_games()[:2]
    seat_of(s1, 1, "T01")["timed_out"] = True
    assert cb.class_balance(parse(document({"stage-1": s1})), "stage-1")["T01"]["A"] == 1


def test_cb_13_disqualified_teams_rank_after_all_among_themselves_by_the_chain():
    s1 = stage_1_games()
    lose(s1, "T14")
    lose(s1, "T03", count=2)
    for team in ("T03", "T05"):
        c_game = next(n for n in games_of(s1, team) if seat_of(s1, n, team)["stats"] == 200)
        set_class(s1, c_game, team, "A")
    table = _table(document({"stage-1": s1}))
    assert table[-2:] == [(13, "T05", "disqualified"), (14, "T03", "disqualified")]
    assert (12, "T14", "active") in table


def test_cb_13_a_team_disqualified_by_decision_in_stage_2_takes_one_of_the_three_places():
    s1 = stage_1_games()
    lose(s1, "T14")
    s2 = stage_2_games(TEAMS[:13])
    lose(s2, "T11")
    lose(s2, "T12", count=2)
    lose(s2, "T13", count=3)
    decision = {"stage": "stage-2", "kind": "disqualification", "team": "T01", "code": "FP-1",
                "decided_at": "2015-03-12T12:00:00+03:00"}
    table = _table(document({"stage-1": s1, "stage-2": s2}, decisions=[decision]))
    assert table[-4:] == [(11, "T12", "eliminated"), (12, "T13", "eliminated"), (13, "T14", "eliminated"),
                          (14, "T01", "disqualified")]
    assert (10, "T11", "active") in table


def test_cb_13_a_disqualification_decided_in_stage_1_keeps_the_last_team_in():
    s1 = stage_1_games()
    lose(s1, "T14")
    decision = {"stage": "stage-1", "kind": "disqualification", "team": "T01", "code": "FP-12",
                "decided_at": "2015-03-05T12:00:00+03:00"}
    table = _table(document({"stage-1": s1}, decisions=[decision]))
    assert table[-1] == (14, "T01", "disqualified") and (13, "T14", "active") in table


def test_cb_13_a_decision_of_a_later_stage_is_not_shown_in_an_earlier_view():
    doc, _, _ = full_tournament()
    doc["decisions"] = [{"stage": "stage-3", "kind": "disqualification", "team": "T01", "code": "FP-12",
                         "decided_at": "2015-03-20T12:00:00+03:00"}]
    assert rows(export(doc, "stage-2"))["T01"]["status"] == "active"
    assert rows(export(doc))["T01"]["status"] == "disqualified"


# --------------------------------------------------------------------------- CB-14


def _best_player_doc(stage_games: dict[str, int], extra: dict | None = None) -> dict:
    """Three teams; T01-p1 and T03-p1 win as civilians, T02-p1 loses as mafia, ``n`` games a stage."""
    stages = {}
    for key, count in stage_games.items():
        stages[key] = [game(n, [seat("T01"), seat("T02", role="mafia"), seat("T03")]) for n in range(1, count + 1)]
    for key, number, team, changes in (extra or {}).get("changes", []):
        seat_of(stages[key], number, team).update(changes)
    return document(stages, teams=("T01", "T02", "T03"))


def test_cb_14_best_players_share_the_title_on_equal_averages():
    doc = _best_player_doc({"stage-1": 4, "stage-2": 5, "stage-3": 4})
    assert export(doc)["best_player"] == ["T01-p1", "T03-p1"]


def test_cb_14_minimum_games_of_each_size():
    assert export(_best_player_doc({"stage-1": 4, "stage-2": 4, "stage-3": 4}))["best_player"] == []
    assert export(_best_player_doc({"stage-1": 3, "stage-2": 5, "stage-3": 4}))["best_player"] == []
    assert export(_best_player_doc({"stage-1": 4, "stage-2": 5, "stage-3": 3}))["best_player"] == []
    assert export(_best_player_doc({"stage-1": 4, "stage-2": 5, "stage-3": 4}), "stage-2")["best_player"] == []


def test_cb_14_a_timed_out_game_counts_as_a_game_played():
    doc = _best_player_doc({"stage-1": 4, "stage-2": 5, "stage-3": 4},
                           {"changes": [("stage-2", 1, "T01", {"timed_out": True})]})
    assert export(doc)["best_player"] == ["T03-p1"]


def test_cb_14_highest_average_not_highest_total():
    doc = _best_player_doc({"stage-1": 4, "stage-2": 6, "stage-3": 4},
                           {"changes": [("stage-2", 6, "T03", {"timed_out": True})]})
    doc["stages"][1]["games"][5]["seats"] = [s for s in doc["stages"][1]["games"][5]["seats"] if s["team"] != "T01"]
    assert export(doc)["best_player"] == ["T01-p1"]
