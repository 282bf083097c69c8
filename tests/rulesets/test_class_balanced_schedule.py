"""Schedule generators of the ``class_balanced`` ruleset: CB-2, CB-4, CB-5, CB-6 (pure functions, no database)."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from dataclasses import replace
from itertools import combinations
from pathlib import Path

import pytest

from rulesets.class_balanced import schedule as cbs
from rulesets.class_balanced.schedule import stage1_library as cbs_library
from rulesets.class_balanced.schedule import stage1_search as cbs_search
from rulesets.class_balanced.schedule import stage2 as cbs2

SEEDS = range(50)
STAGE1_TEAMS = [f"Team {letter}" for letter in "ABCDEFGHIJKLMN"]
STAGE2_TEAMS = STAGE1_TEAMS[:13]
STAGE3_TEAMS = STAGE1_TEAMS[:10]
PROJECT_ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def stage1_schedules() -> list[cbs.Stage1Schedule]:
    return [cbs.generate_stage1(STAGE1_TEAMS, seed) for seed in SEEDS]


@pytest.fixture(scope="module")
def stage2_schedules() -> list[cbs.Stage2Schedule]:
    return [cbs.generate_stage2(STAGE2_TEAMS, seed) for seed in SEEDS]


def _meetings(schedule: cbs.Stage1Schedule) -> Counter[tuple[str, str]]:
    return Counter(pair for _, teams in schedule.games for pair in combinations(sorted(teams), 2))


# --- CB-5: stage 1 -----------------------------------------------------------


def test_cb_5_stage1_has_48_games_of_7_distinct_teams(stage1_schedules):
    for schedule in stage1_schedules:
        assert len(schedule.games) == 48
        for _, teams in schedule.games:
            assert len(teams) == 7
            assert len(set(teams)) == 7
            assert set(teams) <= set(STAGE1_TEAMS)
            assert list(teams) == [team for team in STAGE1_TEAMS if team in teams]


def test_cb_5_each_team_plays_24_games(stage1_schedules):
    for schedule in stage1_schedules:
        played = Counter(team for _, teams in schedule.games for team in teams)
        assert played == dict.fromkeys(STAGE1_TEAMS, 24)


def test_cb_5_every_pair_meets_11_or_12_times(stage1_schedules):
    for schedule in stage1_schedules:
        meetings = _meetings(schedule)
        assert len(meetings) == 91
        assert set(meetings.values()) <= {11, 12}
        assert sum(meetings.values()) == 48 * 21


def test_cb_5_the_pairs_meeting_12_times_pair_off_every_team(stage1_schedules):
    for schedule in stage1_schedules:
        twelves = [pair for pair, count in _meetings(schedule).items() if count == 12]
        assert len(twelves) == 7
        assert sorted(team for pair in twelves for team in pair) == sorted(STAGE1_TEAMS)


def test_cb_5_games_spread_7_7_7_7_7_7_6_over_the_week(stage1_schedules):
    for schedule in stage1_schedules:
        days = [day for day, _ in schedule.games]
        assert days == sorted(days)
        assert [days.count(day) for day in range(7)] == [7, 7, 7, 7, 7, 7, 6]


def test_cb_5_each_team_plays_3_or_4_games_every_day(stage1_schedules):
    for schedule in stage1_schedules:
        for team in STAGE1_TEAMS:
            per_day = [sum(1 for d, teams in schedule.games if d == day and team in teams) for day in range(7)]
            assert set(per_day) <= {3, 4}, (schedule.seed, team, per_day)
            assert sorted(per_day) == [3, 3, 3, 3, 4, 4, 4]
            assert per_day[6] == 3


def test_cb_5_check_stage1_finds_nothing_for_50_seeds(stage1_schedules):
    for schedule in stage1_schedules:
        assert cbs.check_stage1(schedule) == []


def test_cb_5_same_seed_same_schedule():
    for seed in (0, 7, "spring cup 2024"):
        assert cbs.generate_stage1(STAGE1_TEAMS, seed) == cbs.generate_stage1(STAGE1_TEAMS, seed)


def test_cb_5_different_seeds_different_schedules(stage1_schedules):
    tables = {tuple(schedule.games) for schedule in stage1_schedules}
    assert len(tables) == len(stage1_schedules)
    assert cbs.generate_stage1(STAGE1_TEAMS, "a").games != cbs.generate_stage1(STAGE1_TEAMS, "b").games


def test_cb_5_seeds_draw_structurally_different_tables(stage1_schedules):
    """Seeds give different tables (library choice, walk), not only renamed copies of one table."""
    shapes = {tuple(sorted(Counter(_meetings(s).values()).items())) for s in stage1_schedules}
    assert shapes == {((11, 84), (12, 7))}
    intersections = {
        tuple(sorted(Counter(len(set(a) & set(b)) for (_, a), (_, b) in combinations(s.games, 2)).items()))
        for s in stage1_schedules
    }
    assert len(intersections) > 5


def test_cb_5_every_library_table_and_its_complement_is_valid():
    everyone = set(range(14))
    assert len(cbs_library._STAGE1_TABLES) == len(cbs.STAGE1_TABLE_SEEDS)
    for text in cbs_library._STAGE1_TABLES:
        table, day_of = cbs_library._decode_table(text)
        assert [day_of.count(day) for day in range(7)] == cbs.day_sizes(48, 7)
        for games in (table, [everyone - game for game in table]):
            assert cbs_search._pair_misses(games, 14) == 0
            assert cbs_search._spread_misses(games, day_of, 14, 7) == 0


def test_cb_5_a_library_table_is_what_the_search_finds():
    seed = cbs.STAGE1_TABLE_SEEDS[1]
    table, day_of = cbs.search_stage1_table(14, 48, 7, 7, seed, rounds=1, iterations=300_000)
    assert cbs_library._encode_table(table, day_of, 7) == cbs_library._STAGE1_TABLES[1]


def test_cb_5_search_balances_pairs_for_other_parameters():
    teams = [f"T{i}" for i in range(10)]
    schedule = cbs.generate_stage1(teams, 3, games=30, teams_per_game=5)
    problems = cbs.check_stage1(schedule, games=30, teams_per_game=5)
    assert not [problem for problem in problems if "even spread" not in problem]
    meetings = Counter(pair for _, t in schedule.games for pair in combinations(sorted(t), 2))
    assert set(meetings.values()) <= {6, 7}
    assert [day for day, _ in schedule.games].count(0) == 5


def test_cb_5_check_stage1_names_what_is_broken():
    schedule = cbs.generate_stage1(STAGE1_TEAMS, 1)
    day, teams = schedule.games[0]
    absent = next(team for team in STAGE1_TEAMS if team not in teams)
    swapped = tuple(sorted((*teams[1:], absent), key=STAGE1_TEAMS.index))
    broken = replace(schedule, games=[(day, swapped), *schedule.games[1:]])
    problems = cbs.check_stage1(broken)
    assert any(p.startswith("CB-5:") and "plays 25 games" in p for p in problems)
    assert any(p.startswith("CB-5:") and "plays 23 games" in p for p in problems)
    assert any("meet" in p for p in problems)
    short = replace(schedule, games=schedule.games[:-1])
    assert any("48 games" in p for p in cbs.check_stage1(short))
    moved = replace(schedule, games=[(6, teams), *schedule.games[1:]])
    assert any("not listed day by day" in p or "spread" in p for p in cbs.check_stage1(moved))
    assert any(p.startswith("CB-4:") for p in cbs.check_stage1(replace(schedule, day_turn_minutes=3)))


def test_cb_5_refuses_a_bad_roster_or_seed():
    with pytest.raises(ValueError, match="CB-5"):
        cbs.generate_stage1([*STAGE1_TEAMS[:13], STAGE1_TEAMS[0]], 1)
    with pytest.raises(TypeError):
        cbs.generate_stage1(STAGE1_TEAMS, 1.5)  # type: ignore[arg-type]


def test_cb_5_reports_progress():
    calls: list[tuple[int, int]] = []
    cbs.generate_stage1(STAGE1_TEAMS, 5, progress=lambda done, total: calls.append((done, total)))
    assert calls[0][0] == 0
    assert calls[-1][0] == calls[-1][1]
    assert [done for done, _ in calls] == sorted(done for done, _ in calls)


def test_cb_5_slots_give_number_day_and_order():
    schedule = cbs.generate_stage1(STAGE1_TEAMS, 2)
    slots = schedule.slots()
    assert [slot.number for slot in slots] == list(range(1, 49))
    assert [slot.day for slot in slots] == [day for day, _ in schedule.games]
    assert [slot.order for slot in slots[:8]] == [0, 1, 2, 3, 4, 5, 6, 0]
    assert slots[-1] == cbs.GameSlot(48, 6, 5)
    assert schedule.day_turn_minutes == 2


# --- CB-6 and CB-4: stage 2 --------------------------------------------------


def test_cb_6_every_game_seats_all_13_teams(stage2_schedules):
    for schedule in stage2_schedules:
        assert len(schedule.games) == 26
        for _, classes in schedule.games:
            assert list(classes) == STAGE2_TEAMS


def test_cb_6_every_game_has_4_c_5_b_4_a(stage2_schedules):
    for schedule in stage2_schedules:
        for _, classes in schedule.games:
            assert Counter(classes.values()) == {"C": 4, "B": 5, "A": 4}


def test_cb_6_each_team_plays_8_a_10_b_8_c(stage2_schedules):
    for schedule in stage2_schedules:
        for team in STAGE2_TEAMS:
            assert Counter(schedule.classes_of(team)) == {"A": 8, "B": 10, "C": 8}


def test_cb_6_no_team_keeps_a_class_more_than_2_games_running(stage2_schedules):
    for schedule in stage2_schedules:
        for team in STAGE2_TEAMS:
            sequence = schedule.classes_of(team)
            assert all(not (a == b == c) for a, b, c in zip(sequence, sequence[1:], sequence[2:])), sequence


def test_cb_6_26_games_over_the_7_days(stage2_schedules):
    for schedule in stage2_schedules:
        days = [day for day, _ in schedule.games]
        assert days == sorted(days)
        assert [days.count(day) for day in range(7)] == [4, 4, 4, 4, 4, 3, 3]


def test_cb_4_stage2_day_turn_lasts_3_minutes(stage2_schedules):
    assert {schedule.day_turn_minutes for schedule in stage2_schedules} == {3}


def test_cb_6_check_stage2_finds_nothing_for_50_seeds(stage2_schedules):
    for schedule in stage2_schedules:
        assert cbs.check_stage2(schedule) == []


def test_cb_6_same_seed_same_schedule():
    for seed in (0, 11, "spring cup 2024"):
        assert cbs.generate_stage2(STAGE2_TEAMS, seed) == cbs.generate_stage2(STAGE2_TEAMS, seed)


def test_cb_6_different_seeds_different_schedules(stage2_schedules):
    tables = {tuple(tuple(classes.items()) for _, classes in s.games) for s in stage2_schedules}
    assert len(tables) == len(stage2_schedules)


def test_cb_6_the_walk_leaves_the_cyclic_pattern(stage2_schedules):
    """Rotations alone would give every team the same sequence shifted; the walk breaks that."""

    def rotations(sequence: str) -> set[str]:
        return {sequence[i:] + sequence[:i] for i in range(len(sequence))}

    for schedule in stage2_schedules:
        first = rotations(schedule.classes_of(STAGE2_TEAMS[0]))
        assert any(schedule.classes_of(team) not in first for team in STAGE2_TEAMS[1:])


def test_cb_6_fallback_base_is_valid():
    assert cbs2._is_cyclic_base(cbs2._STAGE2_FALLBACK_BASE)
    assert not cbs2._is_cyclic_base("AAAB" + cbs2._STAGE2_FALLBACK_BASE[4:])


def test_cb_6_check_stage2_names_what_is_broken():
    schedule = cbs.generate_stage2(STAGE2_TEAMS, 4)
    day, classes = schedule.games[0]
    a_team = next(team for team, cls in classes.items() if cls == "A")
    broken = replace(schedule, games=[(day, {**classes, a_team: "B"}), *schedule.games[1:]])
    problems = cbs.check_stage2(broken)
    assert any(p.startswith("CB-6:") and "seats of class A" in p for p in problems)
    assert any(p.startswith("CB-6:") and f"{a_team} plays 7 games as A" in p for p in problems)
    runs = replace(schedule, games=[(day, dict(schedule.games[0][1])) for day, _ in schedule.games])
    assert any("games running" in p for p in cbs.check_stage2(runs))
    assert any(p.startswith("CB-4:") for p in cbs.check_stage2(replace(schedule, day_turn_minutes=2)))


def test_cb_6_refuses_a_roster_of_the_wrong_size():
    with pytest.raises(ValueError, match="CB-6"):
        cbs.generate_stage2(STAGE1_TEAMS, 1)


def test_cb_6_reports_progress():
    calls: list[tuple[int, int]] = []
    cbs.generate_stage2(STAGE2_TEAMS, 5, progress=lambda done, total: calls.append((done, total)))
    assert calls[0] == (0, calls[0][1])
    assert calls[-1][0] == calls[-1][1]
    assert len(calls) > 2


# --- CB-2: stage 3 -----------------------------------------------------------


def test_cb_2_stage3_calendar_has_every_team_in_every_one_of_24_games():
    calendar = cbs.generate_stage3_calendar(STAGE3_TEAMS, 9)
    assert len(calendar.games) == 24
    assert all(teams == tuple(STAGE3_TEAMS) for _, teams in calendar.games)
    assert [day for day, _ in calendar.games].count(0) == 4
    assert [[day for day, _ in calendar.games].count(day) for day in range(7)] == [4, 4, 4, 3, 3, 3, 3]
    assert calendar.day_turn_minutes == 2
    assert cbs.check_stage3(calendar) == []
    with pytest.raises(ValueError, match="CB-2"):
        cbs.generate_stage3_calendar(STAGE2_TEAMS, 9)


# --- purity --------------------------------------------------------------------


def test_generators_never_import_django():
    code = (
        "import sys; import rulesets.class_balanced.schedule as m; "
        "m.generate_stage1([str(i) for i in range(14)], 1); m.generate_stage2([str(i) for i in range(13)], 1); "
        "assert not any(name == 'django' or name.startswith('django.') for name in sys.modules)"
    )
    subprocess.run([sys.executable, "-c", code], cwd=PROJECT_ROOT, check=True)
