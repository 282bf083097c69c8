"""elimination_gp: finalists (GP-16..GP-19) and the final's places and prizes (GP-20..GP-22a)."""

from __future__ import annotations

from fractions import Fraction

from rulesets import elimination_gp as gp
from rulesets.elimination_gp.standings import _Series
from rulesets.interchange import parse_document
from tests.rulesets.test_elimination_gp_helpers import (
    LATER,
    StagePlan,
    document,
    export,
    player_row,
    problems_of,
    standings,
    team_row,
)


def qualified(result) -> list[str]:
    return sorted(p.player for p in result.players if p.status == "qualified")


def reasons(result) -> dict[str, str]:
    return {f["player"]: f["reason"] for f in result.details["finalists"]}


def single_winner_plan() -> StagePlan:
    """A wins alone: A1 is mafia in a draw (3 points), then G, H, I are knocked out in 6 tours."""
    return StagePlan().tour("draw", {"A1": "mafia"}).knock_out()


def test_gp_16_the_six_players_of_the_winning_team_qualify():
    result = standings(document(single_winner_plan().stage(), settings={"extra_indicator": "mafia_points"}))
    assert [r.team for r in result.teams if r.status == "winner"] == ["A"]
    winners = [f["player"] for f in result.details["finalists"] if f["rule"] == "GP-16"]
    assert sorted(winners) == ["A1", "A2", "A3", "A4", "A5", "A6"]
    assert all(player_row(result, p).status == "qualified" for p in winners)
    assert set(reasons(result).values()) <= {"winning team", "extra indicator"}


def test_gp_16_several_winning_teams_send_their_6_best_players_by_points():
    plan = StagePlan()
    for n in (1, 2, 3):
        plan.tour("draw", {f"A{n}": "mafia", f"B{n}": "mafia"})
    result = standings(document(plan.knock_out().stage(), settings={"extra_indicator": "mafia_points"}))
    assert [(r.team, r.rank, r.status) for r in result.teams[:2]] == [("A", 1, "winner"), ("B", 1, "winner")]
    winners = sorted(f["player"] for f in result.details["finalists"] if f["rule"] == "GP-16")
    assert winners == ["A1", "A2", "A3", "B1", "B2", "B3"]
    assert player_row(result, "A4").status == "active"


def test_gp_16_a_tie_across_the_cut_is_left_to_the_committee():
    plan = StagePlan().tour("draw", {"A1": "mafia", "B1": "mafia"}).knock_out()
    doc = document(plan.stage(), settings={"extra_indicator": "mafia_points"})
    result = standings(doc)
    assert [f["player"] for f in result.details["finalists"] if f["rule"] == "GP-16"] == ["A1", "B1"]
    tie = result.details["vacancies"][0]
    assert tie["rule"] == "GP-16" and tie["places"] == 4
    assert tie["tied"] == ["A2", "A3", "A4", "A5", "A6", "B2", "B3", "B4", "B5", "B6"]
    assert player_row(result, "A2").status == "active"
    decision = {"stage": "qualifying-1", "kind": "qualify", "player": "A2", "reason": "GP-16 tie",
                "decided_at": "2013-06-01T12:00:00+04:00"}
    result = standings(document(plan.stage(), settings={"extra_indicator": "mafia_points"}, decisions=[decision]))
    assert player_row(result, "A2").status == "qualified"
    assert reasons(result)["A2"] == "committee"


def extra_plan() -> StagePlan:
    """A wins alone; B1..F1 collect mafia points in draws before G, H, I are knocked out."""
    plan = StagePlan()
    plan.tour("draw", {"A1": "mafia", "B1": "mafia", "C1": "mafia", "D1": "mafia", "E1": "mafia", "F1": "mafia"})
    plan.tour("draw", {"A2": "mafia", "B1": "mafia", "C1": "mafia"})
    plan.tour("draw", {"A3": "mafia", "B1": "mafia"})
    plan.tour("draw", {"A4": "mafia"})
    return plan.knock_out()


def test_gp_17_the_4_best_by_the_extra_indicator_qualify_ties_broken_by_points():
    # mafia points: B1 9, C1 6, D1 = E1 = F1 3 (D1, E1, F1: 3 + 3 x 0.5 civilian draws + 1.5 = 6 points).
    result = standings(document(extra_plan().stage(), settings={"extra_indicator": "mafia_points"}))
    picks = [f["player"] for f in result.details["finalists"] if f["rule"] == "GP-17"]
    assert picks[:2] == ["B1", "C1"]
    assert result.details["vacancies"] == [{"rule": "GP-17", "places": 2, "tied": ["D1", "E1", "F1"]}]
    assert result.details["open_places"] == 2
    assert player_row(result, "D1").details["extra_indicator"] == 3.0


def test_gp_17_an_extra_indicator_tie_at_the_cut_leaves_a_vacancy():
    plan = StagePlan()
    plan.tour("draw", {"A1": "mafia", "B1": "mafia", "C1": "mafia", "D1": "mafia", "E1": "mafia", "F1": "mafia"})
    plan.tour("draw", {"A2": "mafia", "B1": "mafia", "C1": "mafia"})
    plan.tour("draw", {"A3": "mafia", "B1": "mafia"})
    plan.tour("draw", {"A4": "mafia", "E2": "civilian", "F2": "civilian"})  # D1 gets 0.5 more than E1 and F1
    result = standings(document(plan.knock_out().stage(), settings={"extra_indicator": "mafia_points"}))
    assert [f["player"] for f in result.details["finalists"] if f["rule"] == "GP-17"] == ["B1", "C1", "D1"]
    assert result.details["vacancies"] == [{"rule": "GP-17", "places": 1, "tied": ["E1", "F1"]}]
    assert player_row(result, "E1").points == player_row(result, "F1").points
    assert [player_row(result, p).status for p in ("E1", "F1")] == ["active", "active"]
    assert len(qualified(result)) == 9


def test_gp_17_indicator_figures():
    plan = StagePlan()
    plan.tour("draw", {"A1": "mafia", "B1": "commissar", "C1": "don"})
    plan.knock_out(roles={"B2": "commissar", "C2": "commissar"})
    stage_doc = plan.stage()
    figures = {}
    for indicator in ("commissar_wins", "commissar_points", "mafia_wins", "mafia_points", "civilian_points",
                      "points"):
        result = standings(document(stage_doc, settings={"extra_indicator": indicator}))
        figures[indicator] = {p: player_row(result, p).details["extra_indicator"] for p in ("B1", "B2", "C1", "G1")}
    assert figures["commissar_wins"] == {"B1": 0, "B2": 1, "C1": 0, "G1": 0}
    assert figures["commissar_points"] == {"B1": 0.5, "B2": 1.5, "C1": 0.0, "G1": 0.0}
    assert figures["mafia_wins"] == {"B1": 0, "B2": 0, "C1": 0, "G1": 0}
    assert figures["mafia_points"] == {"B1": 0.0, "B2": 0.0, "C1": 3.0, "G1": 0.0}
    assert figures["civilian_points"] == {"B1": 2.0, "B2": 1.5, "C1": 1.5, "G1": 0.5}
    assert figures["points"] == {"B1": 2.0, "B2": 1.5, "C1": 4.5, "G1": 0.5}


def test_gp_17_mafia_wins_count_clean_mafia_wins_only():
    plan = StagePlan()
    plan.tour("mafia", {"G1": "mafia", "H1": "don"})
    plan.tour("draw", {"H1": "mafia"})
    plan.tour("mafia", {"G1": "mafia"}, omon=True)
    result = standings(document(plan.stage(), settings={"extra_indicator": "mafia_wins"}))
    assert player_row(result, "G1").points == Fraction(17, 2)  # 4 + 0.5 (a civilian in the draw) + 4 (OMON)
    assert player_row(result, "G1").details["extra_indicator"] == 1
    assert player_row(result, "H1").details["extra_indicator"] == 1


def test_gp_17_custom_indicator_is_the_commissions_own_ranking():
    order = ["A1", "C4", "D2", "E3", "F1", "B2"]
    decision = {"stage": "qualifying-1", "kind": "tie_break", "order": order,
                "decided_at": "2013-06-01T12:00:00+04:00"}
    doc = document(single_winner_plan().stage(), settings={"extra_indicator": "custom"}, decisions=[decision])
    result = standings(doc)
    assert [f["player"] for f in result.details["finalists"] if f["rule"] == "GP-17"] == ["C4", "D2", "E3", "F1"]
    result = standings(document(single_winner_plan().stage(), settings={"extra_indicator": "custom"}))
    assert result.details["vacancies"] == [{"rule": "GP-17", "places": 4, "tied": []}]


def test_gp_17_nobody_qualifies_before_the_stage_is_over():
    plan = StagePlan().tour("draw", {"A1": "mafia"})
    result = standings(document(plan.stage()))
    assert qualified(result) == []
    assert result.details["finalists"] == []


def test_gp_18_a_stage_sends_up_to_10_and_committee_decisions_fill_vacancies():
    doc = document(extra_plan().stage(), settings={"extra_indicator": "mafia_points"})
    assert len(qualified(standings(doc))) == 8
    doc["decisions"] = [{"stage": "qualifying-1", "kind": "qualify", "player": "E1", "reason": "vacancy",
                         "decided_at": "2013-06-01T12:00:00+04:00"}]
    result = standings(doc)
    assert len(qualified(result)) == 9
    assert result.details["open_places"] == 1
    assert {"player": "E1", "reason": "committee", "rule": "GP-18", "stage": "qualifying-1",
            "note": "vacancy"} in result.details["finalists"]


def test_gp_18_an_annulled_qualify_decision_does_not_count():
    doc = document(extra_plan().stage(), settings={"extra_indicator": "mafia_points"},
                   decisions=[{"stage": "qualifying-1", "kind": "qualify", "player": "E1",
                               "decided_at": "2013-06-01T12:00:00+04:00"}],
                   appeals=[{"stage": "qualifying-1", "decision": 1, "kind": "decision",
                             "filed_at": "2013-06-02T12:00:00+04:00", "verdict": "accepted"}])
    assert player_row(standings(doc), "E1").status == "active"


def test_gp_19_committee_suggestions_are_the_best_by_points_not_yet_qualified():
    facts = parse_document(document(extra_plan().stage(), settings={"extra_indicator": "mafia_points"}))
    picks = gp.suggest_committee_picks(facts, 2)
    finalists = {p.player for p in gp.compute(facts, None, LATER).players if p.status == "qualified"}
    assert [p["player"] for p in picks] == ["D1", "E1", "F1"]
    assert not finalists & {p["player"] for p in picks}
    assert picks[0]["points"] == 6.0


def test_gp_19_series_wide_committee_picks_are_listed_with_the_stage_finalists():
    stage1 = single_winner_plan().stage()
    decision = {"kind": "qualify", "player": "B3", "reason": "committee pick",
                "decided_at": "2013-06-01T12:00:00+04:00"}
    result = standings(document(stage1, settings={"extra_indicator": "mafia_points"}, decisions=[decision]))
    assert player_row(result, "B3").status == "qualified"
    series = {f["player"]: f for f in result.details["series_finalists"]}
    assert series["B3"]["rule"] == "GP-19"
    assert series["A1"]["rule"] == "GP-16"


def test_gp_19_suggestions_cover_every_qualifying_stage_of_the_document():
    stage1 = single_winner_plan().stage()
    stage2 = StagePlan("qualifying-2", teams={t: [f"{t}{i}x" for i in range(1, 7)] for t in "ABCDEFGHI"})
    stage2.tour("draw", {"C1x": "mafia", "A1x": "mafia"}).tour("draw", {"A2x": "mafia"}).knock_out()
    facts = parse_document(document(stage1, stage2.stage(), settings={"extra_indicator": "points"}))
    picks = gp.suggest_committee_picks(facts)
    assert all(p["player"] not in {"A1", "A1x", "C1x"} for p in picks)
    assert len(picks) >= 4


def final_plan(teams=None) -> StagePlan:
    return StagePlan("final", teams=teams)


def test_gp_20_the_final_is_played_by_the_same_rules():
    result = standings(document(final_plan().tour("draw", {"A1": "mafia"}).knock_out().stage()))
    assert result.stage == "final"
    assert result.details["over_after_tour"] == 7
    assert team_row(result, "A").status == "winner"
    assert [t for t, tour in result.details["teams_out"].items()] == ["G", "H", "I"]


def test_gp_21_places_by_points_then_mafia_wins_counting_draws_as_mafia_wins():
    teams = {t: [f"{t}{i}" for i in range(1, 4)] for t in "ABCDE"}
    plan = final_plan(teams)
    plan.tour("draw", {"A1": "mafia", "D1": "mafia"})
    plan.tour("civilians", {"A2": "civilian", "B1": "mafia", "D1": "mafia", "E1": "mafia"})
    plan.tour("civilians", {"A2": "civilian", "B2": "mafia", "D2": "mafia", "E2": "mafia"})
    plan.tour("civilians", {"A3": "commissar", "B3": "mafia", "D3": "mafia", "E3": "mafia"})
    result = standings(document(plan.stage()))
    places = result.details["places"]
    assert [(p["place"], p["player"]) for p in places] == [(1, "A1"), (2, "A2"), (3, "A3")]
    assert player_row(result, "A1").points == player_row(result, "A2").points == 3
    assert player_row(result, "A1").details["mafia_wins"] == 1
    assert [p.status for p in result.players if p.player in ("A1", "A2", "A3")] == ["winner"] * 3


def commissar_final() -> StagePlan:
    teams = {t: [f"{t}{i}" for i in range(1, 4)] for t in "ABCDE"}
    plan = final_plan(teams)
    plan.tour("civilians", {"A1": "commissar", "B1": "mafia", "D1": "mafia", "E1": "mafia"})
    plan.tour("civilians", {"A2": "civilian", "B2": "mafia", "D2": "mafia", "E2": "mafia"})
    plan.tour("civilians", {"A3": "civilian", "B3": "mafia", "D3": "mafia", "E3": "mafia"})
    return plan


def test_gp_21_then_wins_as_commissar_then_a_shared_place():
    result = standings(document(commissar_final().stage()))
    assert [(p["place"], p["player"]) for p in result.details["places"]] == [(1, "A1"), (2, "A2"), (2, "A3")]
    awards = [(a.place, a.player, a.prize, a.items) for a in result.awards]
    assert awards == [(1, "A1", 300, ["Grand Prix medal"]), (2, "A2", 150, ["Grand Prix medal"]),
                      (2, "A3", 150, ["Grand Prix medal"])]


def test_gp_21_then_a_committee_tie_break_decision():
    decision = {"stage": "final", "kind": "tie_break", "order": ["A3", "A2"],
                "decided_at": "2013-09-01T12:00:00+04:00"}
    result = standings(document(commissar_final().stage(), decisions=[decision]))
    assert [(p["place"], p["player"]) for p in result.details["places"]] == [(1, "A1"), (2, "A3"), (3, "A2")]
    assert [(a.place, a.player, a.prize) for a in result.awards] == [(1, "A1", 300), (2, "A3", 200), (3, "A2", 100)]


def test_gp_21_then_the_average_of_the_qualifying_stage_the_player_qualified_from():
    qualifying = StagePlan().tour("draw", {"A3": "mafia"}).knock_out().stage()
    doc = document(qualifying, commissar_final().stage(), settings={"extra_indicator": "mafia_points"})
    result = standings(doc)
    assert player_row(result, "A3").details["qualifying_average"] == 2.25
    assert player_row(result, "A2").details["qualifying_average"] == 1.5
    assert [(p["place"], p["player"]) for p in result.details["places"]] == [(1, "A1"), (2, "A3"), (3, "A2")]


def test_gp_21_committee_picks_use_the_average_over_all_their_qualifying_games():
    stage1 = single_winner_plan().stage()
    stage2 = StagePlan("qualifying-2").tour("draw", {"A1": "mafia"}).tour("draw", {"A2": "mafia", "C2": "mafia"})
    decision = {"kind": "qualify", "player": "C2", "reason": "GP-19", "decided_at": "2013-06-01T12:00:00+04:00"}
    doc = document(stage1, stage2.knock_out().stage(), settings={"extra_indicator": "custom"}, decisions=[decision])
    series = _Series(parse_document(doc))
    assert series.qualified_from().get("C2") is None
    # C2: 1.5 in 1 game of qualifying-1, 3 + 1.5 in 2 games of qualifying-2.
    assert series.qualifying_average("C2") == 2
    assert series.qualifying_average("A1") == Fraction(3 + Fraction(3, 2), 2)


def test_gp_22_prizes_medals_and_awards_for_places_1_to_6():
    plan = final_plan().tour("draw", {"A1": "mafia"}).knock_out()
    decision = {"stage": "final", "kind": "tie_break", "order": ["A6", "A5", "A4", "A3", "A2"],
                "decided_at": "2013-09-01T12:00:00+04:00"}
    result = standings(document(plan.stage(), decisions=[decision]))
    assert [(a.place, a.player, a.prize, a.items) for a in result.awards] == [
        (1, "A1", 300, ["Grand Prix medal"]), (2, "A6", 200, ["Grand Prix medal"]),
        (3, "A5", 100, ["Grand Prix medal"]), (4, "A4", 50, []), (5, "A3", 30, []), (6, "A2", 20, [])]
    exported = export(document(plan.stage(), decisions=[decision]))
    assert exported["awards"][0] == {"place": 1, "team": "A", "player": "A1", "prize": 300, "currency": "mf",
                                     "items": ["Grand Prix medal"]}
    assert [p["status"] for p in exported["players"] if p["team"] == "A"] == ["winner"] * 6


def test_gp_22_players_sharing_a_place_split_the_prizes_of_the_places_they_cover():
    result = standings(document(final_plan().tour("draw", {"A1": "mafia"}).knock_out().stage()))
    assert [(a.place, a.prize) for a in result.awards] == [(1, 300)] + [(2, 80)] * 5


def test_gp_22_no_places_before_the_final_is_over_and_prizes_are_a_setting():
    unfinished = standings(document(final_plan().tour("draw", {"A1": "mafia"}).stage()))
    assert unfinished.awards == []
    assert all(p.status != "winner" for p in unfinished.players)
    result = standings(document(final_plan().tour("draw", {"A1": "mafia"}).knock_out().stage(),
                                settings={"final_prizes": [1000, 500]}))
    assert [(a.place, a.prize) for a in result.awards] == [(1, 1000)] + [(2, 100)] * 5


def test_gp_22a_stage_prizes_of_a_qualifying_stage():
    doc = document(single_winner_plan().stage(),
                   settings={"stage_prizes": {"qualifying-1": [{"place": 1, "amount": 100}, {"place": 2, "amount": 50}]}})
    result = standings(doc)
    second = sorted(p.player for p in result.players if p.rank == 2)
    assert second == ["B1", "C1", "D1", "E1", "F1"]
    assert [(a.place, a.player, a.prize) for a in result.awards] == [(1, "A1", 100)] + [(2, p, 10) for p in second]
    assert "awards" not in export(document(single_winner_plan().stage()))


def test_gp_22a_stage_prize_settings_are_validated():
    bad = document(single_winner_plan().stage(), settings={"stage_prizes": {"final": [{"place": 1, "amount": 5}]}})
    assert any("stage_prizes.final" in p for p in problems_of(bad))
    bad = document(single_winner_plan().stage(), settings={"stage_prizes": {"qualifying-1": [{"place": 0}]}})
    assert any("stage_prizes.qualifying-1[0]" in p for p in problems_of(bad))


def test_disqualified_players_do_not_qualify_and_disqualified_teams_rank_last():
    decisions = [{"kind": "disqualification", "player": "A2", "decided_at": "2013-06-01T12:00:00+04:00"},
                 {"stage": "qualifying-1", "kind": "disqualification", "team": "B",
                  "decided_at": "2013-06-01T12:00:00+04:00"}]
    doc = document(single_winner_plan().stage(), settings={"extra_indicator": "mafia_points"}, decisions=decisions)
    result = standings(doc)
    assert player_row(result, "A2").status == "active"
    assert {"rule": "GP-16", "places": 1, "tied": []} in result.details["vacancies"]
    assert result.teams[-1].team == "B" and result.teams[-1].status == "disqualified"


def test_gp_17_a_per_stage_indicator_is_the_one_the_stage_uses():
    import datetime as dt
    import json
    from pathlib import Path

    from rulesets import elimination_gp
    from rulesets.interchange import parse_document

    document = json.loads((Path(__file__).parents[1] / "data" / "examples" / "elimination_gp.json").read_text())
    stage = document["stages"][0]["key"]
    document["tournament"].setdefault("settings", {})["extra_indicator"] = {stage: "mafia_wins"}
    facts = parse_document(document)
    standings = elimination_gp.compute(facts, stage, dt.datetime(2030, 1, 1, tzinfo=dt.UTC))
    assert standings.details["extra_indicator"] == "mafia_wins"
