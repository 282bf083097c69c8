"""FL-9: the generated calendar of a family league and its iCalendar feed."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import icalendar

from rulesets.family_league.calendar import calendar_ics, generate_calendar, stage_calendar
from rulesets.interchange import parse_document
from tests.rulesets.test_family_league_builder import document, final_stage, names

MSK = zoneinfo.ZoneInfo("Europe/Moscow")
FRIDAY = dt.date(2014, 9, 5)


def test_fl_9_a_calendar_starting_on_a_friday_skips_the_weekend_and_staggers_groups():
    slots = generate_calendar(FRIDAY, ["1", "2"], 20)
    assert len(slots) == 40
    first = [(s.number, s.group, s.day, s.n, s.starts_at.strftime("%a %d %H:%M"), s.comment) for s in slots[:6]]
    assert first == [
        (1, "1", 1, 1, "Fri 05 19:00", "МТ, группа 1, тур 1, партия 1"),
        (2, "2", 1, 1, "Fri 05 19:05", "МТ, группа 2, тур 1, партия 1"),
        (3, "1", 1, 2, "Fri 05 22:00", "МТ, группа 1, тур 1, партия 2"),
        (4, "2", 1, 2, "Fri 05 22:05", "МТ, группа 2, тур 1, партия 2"),
        (5, "1", 2, 1, "Mon 08 19:00", "МТ, группа 1, тур 2, партия 1"),
        (6, "2", 2, 1, "Mon 08 19:05", "МТ, группа 2, тур 2, партия 1"),
    ]
    assert all(s.starts_at.weekday() < 5 for s in slots)
    assert all(s.ends_at - s.starts_at == dt.timedelta(minutes=5) for s in slots)
    assert slots[-1].starts_at == dt.datetime(2014, 9, 18, 22, 5, tzinfo=MSK)
    assert [s.game_in_group for s in slots if s.group == "2"] == list(range(1, 21))


def test_fl_9_a_start_on_saturday_begins_on_monday_and_the_final_group_is_f():
    slots = generate_calendar(dt.date(2014, 9, 6), ["Ф"], 30)
    assert len(slots) == 30
    assert slots[0].starts_at == dt.datetime(2014, 9, 8, 19, 0, tzinfo=MSK)
    assert slots[-1].comment == "МТ, группа Ф, тур 15, партия 2"
    assert slots[-1].starts_at.date() == dt.date(2014, 9, 26)


def test_fl_9_an_odd_game_count_ends_with_the_first_game_of_a_day():
    slots = generate_calendar(FRIDAY, ["1"], 3)
    assert [(s.day, s.n) for s in slots] == [(1, 1), (1, 2), (2, 1)]
    assert generate_calendar(FRIDAY, [], 3) == [] and generate_calendar(FRIDAY, ["1"], 0) == []


def test_fl_9_room_comment_and_times_from_the_settings():
    doc = document(names(9), [final_stage(names(9), [])],
                   settings={"room_comment": "Лига {group}/{day}/{n}", "game_times": ["20:00"],
                             "stagger_minutes": 10})
    slots = stage_calendar(parse_document(doc), "final", dt.date(2014, 9, 1))
    assert len(slots) == 30
    assert (slots[0].comment, slots[0].starts_at.hour) == ("Лига Ф/1/1", 20)
    assert slots[29].starts_at.date() == dt.date(2014, 10, 10)


def test_fl_9_the_icalendar_feed_parses():
    slots = generate_calendar(FRIDAY, ["1", "2"], 4)
    text = calendar_ics(slots, name="МТ осень 2014", location="улица Ожидания")
    parsed = icalendar.Calendar.from_ical(text)
    events = list(parsed.walk("VEVENT"))
    assert len(events) == 8
    assert str(events[1]["SUMMARY"]) == "МТ, группа 2, тур 1, партия 1"
    assert events[1].decoded("DTSTART") == dt.datetime(2014, 9, 5, 19, 5, tzinfo=MSK)
    assert str(events[1]["LOCATION"]) == "улица Ожидания"
    assert len({str(e["UID"]) for e in events}) == 8
    assert calendar_ics(slots) == calendar_ics(slots)
