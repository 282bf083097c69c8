"""Property tests of the family league ranking (FL-11, FL-12)."""

from __future__ import annotations

import copy
import random
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from rulesets.base import TeamRow
from rulesets.family_league import rank_table
from tests.rulesets.test_family_league_builder import document, export, final_stage, game, names, seat, standings

TEAMS = names(9)
ROLES = ("civilian", "commissar", "doctor", "mafia", "don", "maniac")
OUTCOMES = ("civilians", "mafia", "maniac", "draw")

seat_strategy = st.tuples(
    st.sampled_from(TEAMS), st.integers(1, 4), st.sampled_from(ROLES), st.booleans(), st.integers(0, 3),
)
game_strategy = st.tuples(st.sampled_from(OUTCOMES), st.integers(0, 4), st.lists(seat_strategy, max_size=12))


def _document(games_spec) -> dict:
    games = []
    for number, (outcome, game_days, seats_spec) in enumerate(games_spec, start=1):
        seats, seen = [], set()
        for team, player, role, timed_out, kills in seats_spec:
            nick = f"{team}-p{player}"
            if nick in seen:
                continue
            seen.add(nick)
            extra = {"timed_out": timed_out, "days_played": min(kills, game_days)}
            if role == "maniac":
                extra["maniac_kills"] = kills
            seats.append(seat(nick, role, **extra))
        games.append(game(number, seats, outcome, game_days=game_days))
    return document(TEAMS, [final_stage(TEAMS, games)])


@settings(max_examples=60, deadline=None)
@given(st.lists(game_strategy, max_size=6), st.randoms(use_true_random=False))
def test_listing_order_of_teams_never_changes_the_table(games_spec, rng: random.Random):
    doc = _document(games_spec)
    shuffled = copy.deepcopy(doc)
    rng.shuffle(shuffled["teams"])
    rng.shuffle(shuffled["stages"][0]["groups"][0]["teams"])
    rng.shuffle(shuffled["stages"][0]["games"])
    first, second = export(doc), export(shuffled)
    assert first["teams"] == second["teams"]
    assert first["awards"] == second["awards"]


@settings(max_examples=60, deadline=None)
@given(st.lists(game_strategy, max_size=6))
def test_ranks_are_competition_ranks_and_prizes_never_exceed_the_fund(games_spec):
    """Ranks come from the exact points (spec README: rank on exact values, round for export only)."""
    exported = export(_document(games_spec))
    rows = standings(_document(games_spec)).teams
    for row in rows:
        better = [r for r in rows if (r.points, r.tiebreaks["mafia_points"]) >
                  (row.points, row.tiebreaks["mafia_points"])]
        assert row.rank == len(better) + 1
    assert [(r["rank"], r["team"]) for r in exported["teams"]] == [(r.rank, r.team) for r in rows]
    assert [(r.rank, r.team) for r in rows] == sorted((r.rank, r.team) for r in rows)
    assert sum(a["prize"] for a in exported["awards"]) <= 17000


points = st.lists(st.tuples(st.integers(-20, 80), st.integers(0, 40)), min_size=1, max_size=12)


def _rows(values) -> list[TeamRow]:
    return [TeamRow(team=f"T{i:02d}", points=Fraction(p, 10), tiebreaks={"mafia_points": Fraction(m, 10)})
            for i, (p, m) in enumerate(values)]


@settings(max_examples=100, deadline=None)
@given(points, st.data())
def test_adding_a_point_never_lowers_a_team(values, data):
    index = data.draw(st.integers(0, len(values) - 1))
    before = {r.team: r.rank for r in rank_table(_rows(values), set())}
    raised = list(values)
    raised[index] = (values[index][0] + data.draw(st.integers(1, 30)), values[index][1])
    after = {r.team: r.rank for r in rank_table(_rows(raised), set())}
    team = f"T{index:02d}"
    assert after[team] <= before[team]


@settings(max_examples=100, deadline=None)
@given(points, st.randoms(use_true_random=False))
def test_permuting_rows_never_changes_the_ranking(values, rng: random.Random):
    rows = _rows(values)
    shuffled = _rows(values)
    rng.shuffle(shuffled)
    first = [(r.team, r.rank, r.separated_by) for r in rank_table(rows, {"T00"}, [("T03", "T01")])]
    second = [(r.team, r.rank, r.separated_by) for r in rank_table(shuffled, {"T00"}, [("T03", "T01")])]
    assert first == second


decimals = st.integers(0, 300).map(lambda n: f"{n / 100:.2f}")
table_strategy = st.fixed_dictionaries({
    "civilians": st.fixed_dictionaries({"win": decimals, "draw": decimals}),
    "mafia": st.fixed_dictionaries({"win": decimals, "draw": decimals}),
    "maniac": st.fixed_dictionaries({"win": decimals, "draw": decimals,
                                     "kills": st.lists(decimals, min_size=1, max_size=3)}),
})
days_game_strategy = st.tuples(st.sampled_from(OUTCOMES), st.integers(1, 9), st.lists(seat_strategy, max_size=12))


@settings(max_examples=60, deadline=None)
@given(st.lists(days_game_strategy, max_size=6), table_strategy)
def test_fl13_fl14_team_points_are_the_exact_sum_of_their_seats(games_spec, table):
    """Seats add up in integer units of a common denominator: the totals equal a plain Fraction sum."""
    from rulesets import interchange
    from rulesets.family_league.games import PointsTable, seat_value
    from rulesets.family_league.ledger import analyse

    doc = _document(games_spec)
    doc["tournament"]["settings"] = {"points_table": table}
    facts = interchange.parse_document(doc)
    analysis = analyse(facts)
    expected: dict[str, Fraction] = {t: Fraction(0) for t in TEAMS}
    mafia: dict[str, Fraction] = {t: Fraction(0) for t in TEAMS}
    games = {g.number: g for g in facts.stages[0].games}
    for judged in analysis.seats["final"]:
        if judged.verdict != "scores":
            continue
        game_facts = games[judged.game]
        value, _reason = seat_value(game_facts.seats[judged.index], game_facts, PointsTable(facts.settings))
        assert judged.points == value == Fraction(judged.units, analysis.denominator)
        expected[judged.team] += value
        if judged.side == "mafia":
            mafia[judged.team] += value
    penalties = {t: sum((v.points for v in analysis.violations if v.team == t), Fraction(0)) for t in TEAMS}
    rows = {r.team: r for r in standings(doc).teams}
    for name in TEAMS:
        assert rows[name].points == expected[name] - penalties[name]
        assert rows[name].tiebreaks["mafia_points"] == mafia[name]
