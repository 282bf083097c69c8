"""The seeded generators of ``tournaments.synthetic``: every document parses and imports, the same seed gives the same
document, and each respects the structure its ruleset demands (CB-5..CB-7, GP-8..GP-13)."""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter

import pytest

import rulesets
from rulesets.class_balanced.points import class_of
from rulesets.interchange import export_standings, parse_document
from scoring.models import StandingsSnapshot
from tournaments.importer import import_document
from tournaments.models import Game, Seat, Tour
from tournaments.synthetic import (
    RULESET_SIZES,
    chgk_season,
    class_balanced_tournament,
    elimination_gp_series,
    elimination_gp_stage,
    generate,
    mafia_league,
)

LATER = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)
SMALL = {"family_league": 12, "chgk_tour_points": 8, "class_balanced": 3, "elimination_gp": 2}


def canonical(document: dict) -> str:
    return json.dumps(document, sort_keys=True, ensure_ascii=False)


def latest_export(document: dict) -> dict:
    facts = parse_document(document)
    return export_standings(facts, rulesets.get(facts.ruleset).compute(facts, None, LATER))


@pytest.mark.parametrize("ruleset", sorted(RULESET_SIZES))
@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_generator_writes_a_document_the_parser_accepts(ruleset, seed):
    facts = parse_document(generate(ruleset, SMALL[ruleset], seed=seed))
    assert facts.ruleset == ruleset


@pytest.mark.parametrize("ruleset", sorted(RULESET_SIZES))
def test_the_same_seed_gives_the_same_document(ruleset):
    assert canonical(generate(ruleset, SMALL[ruleset], seed=5)) == canonical(generate(ruleset, SMALL[ruleset], seed=5))
    assert canonical(generate(ruleset, SMALL[ruleset], seed=5)) != canonical(generate(ruleset, SMALL[ruleset], seed=6))


@pytest.mark.django_db(transaction=True)  # the import's recompute runs on commit
@pytest.mark.parametrize("ruleset", sorted(RULESET_SIZES))
def test_every_generated_document_imports_with_its_standings(ruleset):
    document = generate(ruleset, SMALL[ruleset], seed=4)
    tournament = import_document(document)
    games = sum(len(s.get("games", [])) for s in document["stages"])
    seats = sum(len(g["seats"]) for s in document["stages"] for g in s.get("games", []))
    tours = sum(len(s.get("tours", [])) for s in document["stages"])
    assert Game.objects.filter(stage__tournament=tournament).count() == games
    assert Seat.objects.filter(game__stage__tournament=tournament).count() == seats
    assert Tour.objects.filter(stage__tournament=tournament).count() == tours
    snap = StandingsSnapshot.objects.get(tournament=tournament, stage_key="")
    assert [row["team"] for row in snap.export["teams"]] == [row["team"] for row in latest_export(document)["teams"]]


def test_mafia_league_keeps_its_signature_and_size():
    document = mafia_league(games=40, teams=9, seed=3, players_per_team=6, slug="sig")
    games = document["stages"][0]["games"]
    assert document["tournament"]["slug"] == "sig" and len(games) == 40
    assert all(len(g["seats"]) == 9 for g in games)


def test_chgk_season_60_teams_has_60_tours_of_59_masks():
    document = chgk_season(teams=60, seed=1)
    tours = document["stages"][0]["tours"]
    assert len(tours) == 60 and all(len(t["masks"]) == 59 for t in tours)
    assert sorted(t["host"] for t in tours) == sorted(t["name"] for t in document["teams"])
    parse_document(document)


def _classes(games: list[dict]) -> dict[str, Counter]:
    out: dict[str, Counter] = {}
    for game in games:
        for seat in game["seats"]:
            out.setdefault(seat["team"], Counter())[class_of(seat["stats"])] += 1
    return out


def test_class_balanced_stage_1_is_48_games_of_7_with_8_games_a_class_per_team():
    games = class_balanced_tournament(seed=2, stages=1)["stages"][0]["games"]
    assert len(games) == 48 and all(len(g["seats"]) == 7 for g in games)
    assert all(len({s["team"] for s in g["seats"]}) == 7 for g in games)
    classes = _classes(games)
    assert len(classes) == 14
    assert all(c == Counter({"A": 8, "B": 8, "C": 8}) for c in classes.values())
    assert not any(s["role"] == "maniac" for g in games for s in g["seats"])


@pytest.mark.parametrize("seed", [1, 6])
def test_class_balanced_stage_1_pairs_meet_11_or_12_times_and_games_spread_over_the_week(seed):
    games = class_balanced_tournament(seed=seed, stages=1)["stages"][0]["games"]
    meetings: Counter = Counter()
    per_day: Counter = Counter()
    for game in games:
        teams = sorted(s["team"] for s in game["seats"])
        meetings.update((a, b) for i, a in enumerate(teams) for b in teams[i + 1:])
        per_day.update((team, dt.datetime.fromisoformat(game["scheduled_at"]).date()) for team in teams)
    assert len(meetings) == 91 and set(meetings.values()) <= {11, 12}  # CB-5
    assert len({day for _team, day in per_day}) == 7
    assert set(per_day.values()) <= {2, 3, 4, 5}
    assert sum(1 for n in per_day.values() if n in (3, 4)) >= 90


def test_class_balanced_stage_2_follows_the_class_table_of_cb_6():
    games = class_balanced_tournament(seed=3, stages=2)["stages"][1]["games"]
    assert len(games) == 26 and all(len(g["seats"]) == 13 for g in games)
    for game in games:
        assert Counter(class_of(s["stats"]) for s in game["seats"]) == Counter({"A": 4, "B": 5, "C": 4})
    assert all(c == Counter({"A": 8, "B": 10, "C": 8}) for c in _classes(games).values())


def test_class_balanced_later_stages_hold_exactly_the_teams_the_cut_keeps():
    document = class_balanced_tournament(seed=4, stages=3)
    stage_2, stage_3 = ({s["team"] for g in st["games"] for s in g["seats"]} for st in document["stages"][1:])
    assert len(stage_2) == 13 and len(stage_3) == 10 and stage_3 < stage_2
    export = latest_export(document)
    out = {row["team"] for row in export["teams"] if row["status"] == "eliminated"}
    assert out == {t["name"] for t in document["teams"]} - stage_3
    assert not any(row["status"] == "disqualified" for row in export["teams"])
    assert all(c == Counter({"A": 8, "B": 8, "C": 8}) for c in _classes(document["stages"][2]["games"]).values())


def test_elimination_gp_stage_draws_9_teams_of_6_two_from_each_basket():
    document = elimination_gp_stage(seed=5)
    stage = document["stages"][0]
    levels = {p["nick"]: p["level"] for p in document["players"]}
    ranked = sorted(levels, key=lambda n: (-levels[n], n))
    baskets = [set(ranked[0:18]), set(ranked[18:36]), set(ranked[36:54])]
    assert len(stage["teams"]) == 9 and len(levels) == 54
    for team in stage["teams"]:
        assert len(team["players"]) == 6
        assert [len(basket & set(team["players"])) for basket in baskets] == [2, 2, 2]


def test_elimination_gp_stage_plays_until_three_teams_are_out_and_no_eliminated_player_plays_again():
    for seed in range(1, 9):
        document = elimination_gp_stage(seed=seed)
        facts = parse_document(document)  # refuses a seat of an eliminated player (GP-9)
        export = latest_export(document)
        assert sum(1 for row in export["teams"] if row["tiebreaks"]["remaining_players"] == 0) >= 3
        assert any(row["status"] == "winner" for row in export["teams"])
        tours = [g["round"] for g in document["stages"][0]["games"]]
        assert tours == list(range(1, len(tours) + 1)) and len(facts.stages[0].games) == len(tours)


def test_elimination_gp_series_holds_one_to_five_stages_of_their_own_players():
    document = elimination_gp_series(stages=5, seed=2)
    assert [s["key"] for s in document["stages"]] == [f"qualifying-{n}" for n in range(1, 6)]
    assert len({p["nick"] for p in document["players"]}) == 5 * 54
    parse_document(document)
    with pytest.raises(ValueError):
        elimination_gp_series(stages=6)


def test_generate_refuses_an_unknown_ruleset():
    with pytest.raises(ValueError, match="unknown ruleset"):
        generate("poker", 3)
