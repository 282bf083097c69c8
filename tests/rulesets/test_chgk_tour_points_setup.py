"""Ruleset chgk_tour_points: season setup as pure checks (CHGK-1..CHGK-5, CHGK-7, CHGK-9, CHGK-11)."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from rulesets import chgk_tour_points as chgk
from rulesets.chgk_tour_points import Application, HostingWish

MSK = zoneinfo.ZoneInfo("Europe/Moscow")
DEADLINE = dt.datetime(2013, 2, 1, 23, 59, 59, tzinfo=MSK)
TEAMS = ["Signum", "Felidae", "Rotor", "Delirium", "Mechanism", "Quark", "Vega", "Lynx"]


def application(team: str = "Signum", players: int = 5, **extra) -> Application:
    names = tuple(f"{team} player {i}" for i in range(1, players + 1))
    values = {"team": team, "filed_at": DEADLINE - dt.timedelta(days=1), "captain": names[0] if names else None,
              "players": names, **extra}
    return Application(**values)


def messages(problems) -> str:
    return " | ".join(str(p) for p in problems)


# ---------------------------------------------------------------- CHGK-1, CHGK-2 applications

def test_chgk_1_a_complete_application_is_accepted():
    assert chgk.check_application(application(league="first", played_tournaments=("Cup 2012",))) == []


def test_chgk_1_the_captain_is_one_of_the_players_and_at_most_ten_play():
    assert "captain" in messages(chgk.check_application(application(captain="Somebody else")))
    assert "at most 10 (CHGK-1)" in messages(chgk.check_application(application(players=11)))
    assert "CHGK-1" in messages(chgk.check_application(application(league="premier")))


def test_chgk_2_the_first_application_lists_at_least_four_players():
    assert "at least 4 are needed (CHGK-2)" in messages(chgk.check_application(application(players=3)))
    assert chgk.check_application(application(players=4)) == []


def test_chgk_2_at_most_six_additions_and_ten_players():
    roster = [f"P{i}" for i in range(4)]
    assert chgk.check_roster_change(roster, added=["N1", "N2"], additions_used=4) == []
    assert "at most 6 additions (CHGK-2)" in messages(
        chgk.check_roster_change(roster, added=["N1", "N2", "N3"], additions_used=4))
    big = [f"P{i}" for i in range(8)]
    assert "at most 10 (CHGK-2)" in messages(chgk.check_roster_change(big, added=["N1", "N2", "N3"]))
    assert "already on the roster" in messages(chgk.check_roster_change(roster, added=["P1"]))


# ---------------------------------------------------------------- CHGK-3 replacements

def test_chgk_3_only_a_player_who_has_not_played_may_be_replaced():
    roster = [f"P{i}" for i in range(10)]
    assert chgk.check_roster_change(roster, replaced={"P3": "New"}, played=["P1"], additions_used=6) == []
    assert "has already played a tour and cannot be replaced (CHGK-3)" in messages(
        chgk.check_roster_change(roster, replaced={"P1": "New"}, played=["P1"]))
    assert "not on the roster (CHGK-3)" in messages(chgk.check_roster_change(roster, replaced={"Nobody": "New"}))


def test_chgk_3_playing_any_part_of_a_tour_counts_as_played():
    segments = [{"A", "B", "C", "D", "E", "F"}, {"A", "B", "C", "D", "E", "G"}]
    played = chgk.line_up_players(segments)
    roster = ["A", "B", "C", "D", "E", "F", "G", "H"]
    assert "G" in played
    assert chgk.check_roster_change(roster, replaced={"G": "Z"}, played=played)
    assert chgk.check_roster_change(roster, replaced={"H": "Z"}, played=played) == []


# ---------------------------------------------------------------- CHGK-4 line-ups

def test_chgk_4_at_most_six_at_the_table_at_once_but_more_in_the_whole_line_up():
    roster = ["A", "B", "C", "D", "E", "F", "G", "H"]
    assert chgk.check_line_up(roster, [{"A", "B", "C", "D", "E", "F"}, {"B", "C", "D", "E", "F", "G", "H"}]) != []
    assert chgk.check_line_up(roster, [{"A", "B", "C", "D", "E", "F"}, {"B", "C", "D", "E", "F", "G"}]) == []
    problems = chgk.check_line_up(roster, [{"A", "B", "C", "D", "E", "F", "G"}])
    assert problems[0].path == "segments[0]" and "CHGK-4" in problems[0].message


def test_chgk_4_every_player_in_the_line_up_is_on_the_roster():
    assert "Stranger is not on the team's roster (CHGK-4)" in messages(
        chgk.check_line_up(["A", "B"], [["A", "Stranger"]]))


# ---------------------------------------------------------------- CHGK-5 admission queue

def test_chgk_5_host_university_teams_on_time_come_first_then_all_others_by_time():
    day = dt.timedelta(days=1)
    applications = [
        application("Early guest", filed_at=DEADLINE - 5 * day),
        application("Home late", filed_at=DEADLINE + day, home_university=True),
        application("Home on time", filed_at=DEADLINE - day, home_university=True),
        application("Home first", filed_at=DEADLINE - 3 * day, home_university=True),
        application("Guest", filed_at=DEADLINE - 2 * day),
    ]
    queue = chgk.admission_queue(applications, DEADLINE, limit=3)
    assert [e.team for e in queue] == ["Home first", "Home on time", "Early guest", "Guest", "Home late"]
    assert [e.admitted for e in queue] == [True, True, True, False, False]
    assert [e.position for e in queue] == [1, 2, 3, 4, 5]
    assert all(e.admitted for e in chgk.admission_queue(applications, DEADLINE))


def test_chgk_5_an_application_at_the_deadline_keeps_its_priority():
    queue = chgk.admission_queue([application("Guest", filed_at=DEADLINE - dt.timedelta(days=9)),
                                  application("Home", filed_at=DEADLINE, home_university=True)], DEADLINE, 1)
    assert [(e.team, e.admitted) for e in queue] == [("Home", True), ("Guest", False)]


# ---------------------------------------------------------------- CHGK-7 hosting draw

def test_chgk_7_the_draw_is_reproducible_from_its_seed():
    first = chgk.draw_hosting_order(TEAMS, "spring-2013")
    assert sorted(first) == sorted(TEAMS)
    assert chgk.draw_hosting_order(list(reversed(TEAMS)), "spring-2013") == first
    others = {tuple(chgk.draw_hosting_order(TEAMS, seed)) for seed in range(20)}
    assert len(others) > 10


def test_chgk_7_wishes_are_respected_where_possible():
    wishes = {team: HostingWish(prefers=frozenset({index + 1})) for index, team in enumerate(reversed(TEAMS))}
    for seed in range(5):
        assert chgk.draw_hosting_order(TEAMS, seed, wishes) == list(reversed(TEAMS))
    cannot = {"Signum": {"cannot": [1, 2, 3, 4, 5, 6, 7]}, "Vega": {"cannot": [8], "prefers": [1]}}
    for seed in range(10):
        order = chgk.draw_hosting_order(TEAMS, seed, cannot)
        assert order[7] == "Signum" and order[0] == "Vega"


def test_chgk_7_impossible_wishes_still_give_a_full_order():
    wishes = {team: {"prefers": [1]} for team in TEAMS}
    order = chgk.draw_hosting_order(TEAMS, 7, wishes)
    assert sorted(order) == sorted(TEAMS)
    wishes = {"Signum": {"cannot": [1]}, "Rotor": {"cannot": [1]}}
    assert chgk.draw_hosting_order(["Signum", "Rotor"], 1, wishes) in (["Signum", "Rotor"], ["Rotor", "Signum"])


def test_chgk_7_wishes_by_date_and_orders_fixed_by_hand():
    dates = [dt.date(2013, 2, 14) + dt.timedelta(days=7 * k) for k in range(len(TEAMS))]
    wishes = {"Rotor": HostingWish(prefers=frozenset({dates[2]}))}
    for seed in range(5):
        order = chgk.draw_hosting_order(TEAMS, seed, wishes, dates=dates, fixed={"Lynx": 1})
        assert order[0] == "Lynx" and order[2] == "Rotor"


# ---------------------------------------------------------------- CHGK-9 packs

def test_chgk_9_host_written_count_depends_on_the_league():
    for league, (low, high) in {"none": (2, 4), "second": (3, 5), "first": (4, 6), "higher": (5, 7)}.items():
        assert chgk.check_pack(league, low) == [] and chgk.check_pack(league, high) == []
        assert "(CHGK-9)" in messages(chgk.check_pack(league, low - 1))
        assert "(CHGK-9)" in messages(chgk.check_pack(league, high + 1))


def test_chgk_9_no_co_author_from_another_team_or_the_appeal_jury():
    problems = chgk.check_pack("none", 3, co_authors=["Outsider", "Rival", "Judge"],
                               other_teams_players={"Rival"}, jury_members={"Judge"})
    assert [p.path for p in problems] == ["co_authors[1]", "co_authors[2]"]
    assert "another team" in problems[0].message and "appeal jury" in problems[1].message


def test_chgk_9_every_question_names_authors_and_sources():
    assert chgk.check_question(3, ["A. Author"], ["https://example.org"]) == []
    assert [p.path for p in chgk.check_question(3, [], [" "])] == ["questions[2].authors", "questions[2].sources"]


# ---------------------------------------------------------------- CHGK-11 checklists and jury

def test_chgk_11_checklist_due_dates_follow_the_tour_date():
    items = {item.key: item for item in chgk.checklist(dt.date(2013, 3, 1))}
    assert items["committee_questions"].due == dt.datetime(2013, 2, 15, 23, 59, 59, tzinfo=MSK)
    assert items["pack_to_tester"].due == dt.datetime(2013, 2, 22, 23, 59, 59, tzinfo=MSK)
    assert items["answer_sheets"].due.date() == dt.date(2013, 3, 1)
    assert items["final_pack"].due == dt.datetime(2013, 3, 2, 23, 59, 59, tzinfo=MSK)
    assert items["questions_published"].due == dt.datetime(2013, 3, 2, 23, 59, 59, tzinfo=MSK)
    assert items["verdicts"].due == dt.datetime(2013, 3, 10, 23, 59, 59, tzinfo=MSK)
    assert {item.owner for item in items.values()} == {"committee", "host", "appeal jury"}


def test_chgk_11_timed_items_and_overdue_flags():
    last_answer = dt.datetime(2013, 3, 1, 21, 0, tzinfo=MSK)
    items = chgk.checklist(dt.date(2013, 3, 1), last_answer_at=last_answer, ends_at=last_answer)
    by_key = {item.key: item for item in items}
    assert by_key["preliminary_results"].due == last_answer + dt.timedelta(minutes=10)
    assert by_key["final_pack"].due == last_answer + dt.timedelta(hours=24)
    now = dt.datetime(2013, 2, 23, 12, 0, tzinfo=MSK)
    assert [i.key for i in chgk.overdue_items(items, done={"committee_questions"}, now=now)] == ["pack_to_tester"]


def test_chgk_11_appeal_jury_members_are_no_players_of_participating_teams():
    problems = chgk.check_appeal_jury(["Judge", "Signum player 1"], {"Signum player 1"})
    assert [p.path for p in problems] == ["members[1]"] and "CHGK-11" in problems[0].message


# ---------------------------------------------------------------- CHGK-20 who files an appeal

def test_chgk_20_only_the_captain_or_a_delegate_files_an_appeal():
    assert chgk.check_appeal_filer("Signum", "Cap", "Cap") == []
    assert chgk.check_appeal_filer("Signum", "Cap", "Player 2", delegates={"Player 2"}) == []
    problems = chgk.check_appeal_filer("Signum", "Cap", "Player 3", delegates={"Player 2"})
    assert problems[0].path == "filed_by" and "CHGK-20" in problems[0].message
