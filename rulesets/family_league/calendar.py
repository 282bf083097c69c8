"""The family league's calendar (FL-9) and its iCalendar feed.

Games are on weekdays only, at 19:00 and 22:00 in the tournament's time zone;
Saturdays and Sundays are skipped. For each game a room is opened for 5
minutes with the comment "МТ, группа {group}, тур {day}, партия {n}" (day:
the playing day of the stage, n: the game of that day); the rooms of the
groups at the same slot are staggered by 5 minutes (group 1 at :00, group 2
at :05, ...). The final's group is "Ф".
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Sequence
from dataclasses import dataclass

import icalendar

from rulesets.facts import TournamentFacts
from rulesets.family_league.settings import DEFAULT_ROOM_COMMENT, parse_time_of_day, setting
from rulesets.family_league.standings import planned_games

FINAL_GROUP = "Ф"
GAME_TIMES = ("19:00", "22:00")
STAGGER_MINUTES = 5
ROOM_OPEN_MINUTES = 5


@dataclass(frozen=True)
class CalendarSlot:
    """One game of the calendar: when its room opens and with which comment (FL-9)."""

    number: int
    group: str
    day: int
    n: int
    game_in_group: int
    starts_at: dt.datetime
    ends_at: dt.datetime
    comment: str


def playing_days(starts_on: dt.date):
    """Weekdays from ``starts_on`` on (Saturdays and Sundays skipped, FL-9)."""
    day = starts_on
    while True:
        if day.weekday() < 5:
            yield day
        day += dt.timedelta(days=1)


def generate_calendar(
    starts_on: dt.date,
    groups: Sequence[str],
    games_per_group: int,
    timezone: str = "Europe/Moscow",
    room_comment: str = DEFAULT_ROOM_COMMENT,
    game_times: Sequence[str] = GAME_TIMES,
    stagger_minutes: int = STAGGER_MINUTES,
    room_minutes: int = ROOM_OPEN_MINUTES,
) -> list[CalendarSlot]:
    """Every game of a stage, in time order (group order within a slot), numbered 1.. in that order (FL-9)."""
    zone = zoneinfo.ZoneInfo(timezone)
    times = [parse_time_of_day(t) for t in game_times]
    slots: list[CalendarSlot] = []
    if games_per_group <= 0 or not groups:
        return slots
    played = 0
    for day_number, day in enumerate(playing_days(starts_on), start=1):
        for n, time in enumerate(times, start=1):
            if played == games_per_group:
                return slots
            played += 1
            for index, group in enumerate(groups):
                starts_at = dt.datetime.combine(day, time, tzinfo=zone) + dt.timedelta(minutes=stagger_minutes * index)
                slots.append(CalendarSlot(
                    number=len(slots) + 1, group=group, day=day_number, n=n, game_in_group=played,
                    starts_at=starts_at, ends_at=starts_at + dt.timedelta(minutes=room_minutes),
                    comment=room_comment.format(group=group, day=day_number, n=n),
                ))
        if played == games_per_group:
            return slots
    return slots


def stage_calendar(facts: TournamentFacts, stage_key: str, starts_on: dt.date) -> list[CalendarSlot]:
    """The calendar of a stage of the tournament: its groups ("Ф" for a final without groups), its game count."""
    stage = facts.stage(stage_key)
    groups = [g.name for g in stage.groups] if stage is not None and stage.groups else []
    if not groups:
        groups = [FINAL_GROUP] if stage_key == "final" else ["1"]
    return generate_calendar(
        starts_on, groups, planned_games(facts, stage_key), facts.timezone,
        room_comment=setting(facts.settings, "room_comment"),
        game_times=setting(facts.settings, "game_times"),
        stagger_minutes=setting(facts.settings, "stagger_minutes"),
    )


def calendar_ics(
    slots: Sequence[CalendarSlot],
    name: str = "Family league",
    location: str | None = None,
    uid_prefix: str = "family-league",
    stamp: dt.datetime | None = None,
) -> str:
    """The calendar as iCalendar text, one event per game room (FL-9).

    ``stamp`` (DTSTAMP) defaults to each game's own start so that the feed is
    the same every time it is generated.
    """
    calendar = icalendar.Calendar()
    calendar.add("prodid", "-//tournament-portal//family_league//RU")
    calendar.add("version", "2.0")
    calendar.add("x-wr-calname", name)
    for slot in slots:
        event = icalendar.Event()
        event.add("uid", f"{uid_prefix}-{slot.group}-{slot.game_in_group}@tournament-portal")
        event.add("dtstamp", (stamp or slot.starts_at).astimezone(dt.UTC))
        event.add("dtstart", slot.starts_at)
        event.add("dtend", slot.ends_at)
        event.add("summary", slot.comment)
        if location:
            event.add("location", location)
        calendar.add_component(event)
    calendar.add_missing_timezones()
    return calendar.to_ical().decode("utf-8")
