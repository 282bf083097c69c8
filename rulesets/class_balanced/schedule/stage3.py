"""Stage 3 of ``class_balanced`` (CB-2, CB-4): the calendar, generated and checked.

Stage 3 is 24 games of all 10 teams, 4/4/4/3/3/3/3 games a day (CB-2);
each team picks its class game by game (CB-7), so there is nothing to draw;
a day turn lasts 2 minutes (CB-4). ``check_stage3`` names every way a
calendar breaks that format.
"""

from __future__ import annotations

from rulesets.class_balanced.schedule.common import (
    DAY_TURN_MINUTES,
    DAYS,
    STAGE3_GAMES,
    STAGE3_TEAMS,
    Seed,
    Stage3Calendar,
    _check_roster,
    _check_seed,
    _day_of_games,
)
from rulesets.messages import text as _


def generate_stage3_calendar(teams: list[str], seed: Seed, days: int = DAYS) -> Stage3Calendar:
    """The stage-3 calendar (CB-2): 24 games, every one of the 10 teams in every game.

    There is nothing to draw (each team picks its class game by game, CB-7),
    so the calendar is the same for every seed; the seed is kept so that the
    three stages publish alike. Days carry 4/4/4/3/3/3/3 games.
    """
    roster = _check_roster(teams, STAGE3_TEAMS, "CB-2")
    _check_seed(seed)
    day_of = _day_of_games(STAGE3_GAMES, days)
    return Stage3Calendar(seed=seed, teams=roster, games=[(day, roster) for day in day_of], days=days)


def check_stage3(calendar: Stage3Calendar) -> list[str]:
    """Every way the calendar breaks the stage-3 format (CB-2, CB-4), as sentences."""
    problems: list[str] = []
    roster = tuple(calendar.teams)
    if len(roster) != STAGE3_TEAMS or len(set(roster)) != len(roster):
        problems.append(_("CB-2: stage 3 has %(expected)s distinct teams, the calendar has %(teams)s",
                          expected=STAGE3_TEAMS, teams=str(list(roster))))
    if calendar.day_turn_minutes != DAY_TURN_MINUTES[3]:
        problems.append(_("CB-4: a stage-3 day turn lasts %(minutes)s minutes", minutes=DAY_TURN_MINUTES[3]))
    if len(calendar.games) != STAGE3_GAMES:
        problems.append(_("CB-2: stage 3 has %(expected)s games, the calendar has %(games)s", expected=STAGE3_GAMES,
                          games=len(calendar.games)))
    for number, (day, teams) in enumerate(calendar.games, start=1):
        if sorted(teams) != sorted(roster):
            problems.append(_("CB-2: every team plays every stage-3 game; game %(number)s has %(teams)s",
                              number=number, teams=str(list(teams))))
        if not 0 <= day < calendar.days:
            problems.append(_("CB-2: game %(number)s is on day %(day)s, outside 0..%(last)s", number=number,
                              day=day, last=calendar.days - 1))
    day_list = [day for day, _teams in calendar.games]
    if day_list != sorted(day_list):
        problems.append(_("CB-2: the games are not listed day by day"))
    return problems
