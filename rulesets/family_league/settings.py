"""Settings of the ``family_league`` ruleset (``spec/family_league.md``): defaults and validation.

Every setting the spec names has a default here; the tournament's own facts
of FL-0 (organizers, curator, judges, room, dates) may be recorded as
settings too, since the interchange ``tournament`` object has no place for
them.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from rulesets.base import Problem, to_fraction
from rulesets.messages import text as _

FINE_COUNTERS = ("team", "tournament")
SHARED_PRIZE_MODES = ("average_places", "each_full", "split_one")
DEFAULT_ROOM_COMMENT = "МТ, группа {group}, тур {day}, партия {n}"

DEFAULT_POINTS_TABLE: dict[str, dict[str, Any]] = {
    "civilians": {"win": 1.5, "draw": 0.5},
    "mafia": {"win": 4, "draw": 3},
    "maniac": {"win": 2, "draw": 1.5, "kills": [0.5, 0.4, 0.3]},
}

DEFAULT_SETTINGS: dict[str, Any] = {
    "min_teams": 9,
    "groups_from_teams": 16,
    "groups": 2,
    "advance_per_group": 5,
    "max_games_per_player": 15,
    "qualifying_games": 20,
    "final_games": 20,
    "final_games_without_qualifying": 30,
    "points_table": DEFAULT_POINTS_TABLE,
    "fine_counter": "team",
    "shared_prize": "average_places",
    "prizes": [6000, 4500, 3500, 2000, 1000],
    "room_comment": DEFAULT_ROOM_COMMENT,
    "game_times": ["19:00", "22:00"],
    "stagger_minutes": 5,
    "room": None,
    "organizers": None,
    "curator": None,
    "judges": {},
    "ends_on": None,
    "registration_deadline": None,
}

# setting -> (smallest allowed value, rule code)
_WHOLE_NUMBERS: dict[str, tuple[int, str]] = {
    "min_teams": (1, "FL-2"),
    "groups_from_teams": (1, "FL-7"),
    "groups": (1, "FL-8"),
    "advance_per_group": (1, "FL-11"),
    "max_games_per_player": (1, "FL-5"),
    "qualifying_games": (1, "FL-8"),
    "final_games": (1, "FL-7"),
    "final_games_without_qualifying": (1, "FL-7"),
    "stagger_minutes": (0, "FL-9"),
}
_SIDE_KEYS = {"civilians": ("win", "draw"), "mafia": ("win", "draw"), "maniac": ("win", "draw", "kills")}


def validate_settings(settings: dict) -> list[Problem]:
    """Refuse unknown settings and values of the wrong type (paths relative to ``tournament.settings``)."""
    problems: list[Problem] = []
    for key in sorted(set(settings) - set(DEFAULT_SETTINGS)):
        problems.append(Problem(key, _("unknown setting of family_league")))
    for key, (minimum, rule) in _WHOLE_NUMBERS.items():
        if key in settings:
            value = settings[key]
            if isinstance(value, bool) or not isinstance(value, int):
                problems.append(Problem(key, _("must be a whole number (%(rule)s)", rule=rule)))
            elif value < minimum:
                problems.append(Problem(key, _("%(value)s is below %(minimum)s (%(rule)s)", value=value, minimum=minimum,
                                               rule=rule)))
    if "advance_per_group" in settings and isinstance(settings["advance_per_group"], int):
        if settings["advance_per_group"] > 21:
            problems.append(Problem("advance_per_group", _("a group has at most 21 teams (FL-8)")))
    for key, options, rule in (("fine_counter", FINE_COUNTERS, "FL-17"),
                               ("shared_prize", SHARED_PRIZE_MODES, "FL-21")):
        if key in settings and settings[key] not in options:
            problems.append(Problem(key, _("%(value)s is not one of %(options)s (%(rule)s)", value=repr(settings[key]),
                                           options=", ".join(options), rule=rule)))
    if "prizes" in settings:
        problems += _prize_problems(settings["prizes"])
    if "points_table" in settings:
        problems += _points_table_problems(settings["points_table"])
    if "room_comment" in settings:
        problems += _room_comment_problems(settings["room_comment"])
    if "game_times" in settings:
        problems += _game_times_problems(settings["game_times"])
    problems += _fl0_problems(settings)
    return problems


def _prize_problems(prizes: Any) -> list[Problem]:
    if not isinstance(prizes, list) or not all(
        isinstance(p, int) and not isinstance(p, bool) and p >= 0 for p in prizes
    ):
        return [Problem("prizes", _("must be a list of whole, non-negative amounts of mf (FL-20)"))]
    return []


def _amount_problem(value: Any, path: str) -> Problem | None:
    """A points value: a non-negative number or a string holding one (FL-13)."""
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return Problem(path, _("must be a number (FL-13)"))
    try:
        number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    except InvalidOperation:
        return Problem(path, _("%(value)s is not a number (FL-13)", value=repr(value)))
    if not number.is_finite() or number < 0:
        return Problem(path, _("%(value)s must be a finite number, at least 0 (FL-13)", value=repr(value)))
    return None


def _points_table_problems(table: Any) -> list[Problem]:
    if not isinstance(table, dict):
        return [Problem("points_table", _("must be an object of sides (FL-13)"))]
    problems: list[Problem] = []
    for side in sorted(set(table) - set(_SIDE_KEYS)):
        problems.append(Problem(f"points_table.{side}", _("unknown side (civilians, mafia, maniac) (FL-13)")))
    for side, keys in _SIDE_KEYS.items():
        if side not in table:
            continue
        entry = table[side]
        path = f"points_table.{side}"
        if not isinstance(entry, dict):
            problems.append(Problem(path, _("must be an object (FL-13)")))
            continue
        for key in sorted(set(entry) - set(keys)):
            problems.append(Problem(f"{path}.{key}", _("unknown key; %(side)s takes %(keys)s (FL-13)", side=side,
                                                       keys=", ".join(keys))))
        for key in keys:
            if key not in entry:
                continue
            if key == "kills":
                kills = entry[key]
                if not isinstance(kills, list) or not kills:
                    problems.append(Problem(f"{path}.kills", _("must be a non-empty list of points per kill (FL-13)")))
                    continue
                for index, value in enumerate(kills):
                    problem = _amount_problem(value, f"{path}.kills[{index}]")
                    if problem:
                        problems.append(problem)
            else:
                problem = _amount_problem(entry[key], f"{path}.{key}")
                if problem:
                    problems.append(problem)
    return problems


def _room_comment_problems(comment: Any) -> list[Problem]:
    if not isinstance(comment, str) or not comment.strip():
        return [Problem("room_comment", _("must be a non-empty text (FL-9)"))]
    try:
        comment.format(group="1", day=1, n=1)
    except (KeyError, IndexError, ValueError) as error:
        return [Problem("room_comment", _("may use only {group}, {day} and {n}: %(error)s (FL-9)", error=str(error)))]
    return []


def parse_time_of_day(text: str) -> dt.time:
    """``"19:00"`` as a time of day (FL-9)."""
    hours, minutes = text.split(":")
    if len(hours) != 2 or len(minutes) != 2:
        raise ValueError(text)
    return dt.time(int(hours), int(minutes))


def _game_times_problems(times: Any) -> list[Problem]:
    if not isinstance(times, list) or not times or not all(isinstance(t, str) for t in times):
        return [Problem("game_times", _("must be a non-empty list of times HH:MM (FL-9)"))]
    try:
        parsed = [parse_time_of_day(t) for t in times]
    except ValueError:
        return [Problem("game_times", _("%(times)s holds a time that is not HH:MM (FL-9)", times=repr(times)))]
    if any(a >= b for a, b in zip(parsed, parsed[1:])):
        return [Problem("game_times", _("times must be in increasing order (FL-9)"))]
    return []


def _fl0_problems(settings: dict) -> list[Problem]:
    """The tournament's own facts (FL-0): texts, nicks and dates."""
    problems: list[Problem] = []
    for key in ("room", "curator"):
        value = settings.get(key)
        if value is not None and not isinstance(value, str):
            problems.append(Problem(key, _("must be a text (FL-0)")))
    organizers = settings.get("organizers")
    if organizers is not None and not isinstance(organizers, str) and not (
        isinstance(organizers, list) and all(isinstance(o, str) for o in organizers)
    ):
        problems.append(Problem("organizers", _("must be a text or a list of texts (FL-0)")))
    judges = settings.get("judges")
    if judges is not None and not (
        isinstance(judges, dict)
        and all(isinstance(v, list) and all(isinstance(n, str) for n in v) for v in judges.values())
    ):
        problems.append(Problem("judges", _("must be an object of stage key: list of nicks (FL-0)")))
    elif isinstance(judges, dict):
        for key in sorted(set(judges) - {"qualifying", "final"}):
            problems.append(Problem(f"judges.{key}", _("unknown stage (qualifying, final) (FL-0)")))
    for key in ("ends_on", "registration_deadline"):
        value = settings.get(key)
        if value is None:
            continue
        try:
            if not isinstance(value, str) or len(value) != 10:
                raise ValueError
            dt.date.fromisoformat(value)
        except ValueError:
            problems.append(Problem(key, _("%(value)s is not a date YYYY-MM-DD (FL-0)", value=repr(value))))
    return problems


class PointsTable:
    """The FL-13 points table read from the settings (missing entries take the defaults)."""

    def __init__(self, settings: dict[str, Any]):
        given = settings.get("points_table") or {}
        merged = {side: {**entries, **(given.get(side) or {})} for side, entries in DEFAULT_POINTS_TABLE.items()}
        self.civilians_win = to_fraction(merged["civilians"]["win"])
        self.civilians_draw = to_fraction(merged["civilians"]["draw"])
        self.mafia_win = to_fraction(merged["mafia"]["win"])
        self.mafia_draw = to_fraction(merged["mafia"]["draw"])
        self.maniac_win = to_fraction(merged["maniac"]["win"])
        self.maniac_draw = to_fraction(merged["maniac"]["draw"])
        self.kills = tuple(to_fraction(v) for v in merged["maniac"]["kills"])

    def values(self) -> tuple[Fraction, ...]:
        """Every amount of the table (FL-13)."""
        return (self.civilians_win, self.civilians_draw, self.mafia_win, self.mafia_draw, self.maniac_win,
                self.maniac_draw, *self.kills)

    def kill_points(self, kills: int) -> Fraction:
        """Per kill 0.5, 0.4, then 0.3 for each further kill by default: the last entry repeats (FL-13)."""
        total = Fraction(0)
        for index in range(kills):
            total += self.kills[min(index, len(self.kills) - 1)]
        return total


def setting(settings: dict[str, Any], key: str) -> Any:
    """A setting's value, its default when absent."""
    return settings.get(key, DEFAULT_SETTINGS[key])
