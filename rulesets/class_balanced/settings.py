"""Settings of the ``class_balanced`` ruleset (spec ``class_balanced.md``): defaults, validation, typed view.

Every figure the spec gives per stage is a setting keyed by stage key, with the
spec's value as default: the points tables (CB-8..CB-10), the stage sizes
(CB-1), the day turn (CB-4), the class tables (CB-6, CB-7), the best player's
minimums (CB-14) and the appeal window (CB-17). The class ranges of CB-3 are
rules, not settings.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from rulesets.base import Problem, to_fraction
from rulesets.messages import Text
from rulesets.messages import text as _

STAGE_KEYS: tuple[str, ...] = ("stage-1", "stage-2", "stage-3")
CLASSES: tuple[str, ...] = ("A", "B", "C")
POINT_KEYS: tuple[str, ...] = (
    "civilians_win", "mafia_win", "civilians_draw", "mafia_draw", "maniac_win", "maniac_draw",
)

DEFAULT_SETTINGS: dict[str, Any] = {
    "players_per_game": {"stage-1": 7, "stage-2": 13, "stage-3": 10},
    "teams": {"stage-1": 14, "stage-2": 13, "stage-3": 10},
    "games": {"stage-1": 48, "stage-2": 26, "stage-3": 24},
    "games_per_team": {"stage-1": 24, "stage-2": 26, "stage-3": 24},
    "eliminated_after": {"stage-1": 1, "stage-2": 3},
    "day_turn_minutes": {"stage-1": 2, "stage-2": 3, "stage-3": 2},
    "schedule_published_days_before": 1,
    "points_table": {
        "stage-1": {"civilians_win": "1.5", "mafia_win": "4", "civilians_draw": "0.5", "mafia_draw": "3"},
        "stage-2": {"civilians_win": "1.5", "mafia_win": "4.5", "civilians_draw": "0.5", "mafia_draw": "3.5",
                    "maniac_win": "2", "maniac_draw": "1.5"},
        "stage-3": {"civilians_win": "1.5", "mafia_win": "4", "civilians_draw": "0.5", "mafia_draw": "3",
                    "maniac_win": "2", "maniac_draw": "1.5"},
    },
    "maniac_stages": ["stage-2", "stage-3"],
    "maniac_kill_points": ["0.5", "0.4", "0.3"],
    "civilians_draw_needs_final_phase": {"stage-1": False, "stage-2": True, "stage-3": True},
    "balanced_stages": ["stage-1", "stage-3"],
    "class_table_stage": "stage-2",
    "class_table_per_game": {"A": 4, "B": 5, "C": 4},
    "class_table_per_team": {"A": 8, "B": 10, "C": 8},
    "best_player_min_games": {"stage-1": 4, "stage-2": 5, "stage-3": 4},
    "appeal_hours": 48,
}

PER_STAGE_INT_KEYS = ("players_per_game", "teams", "games", "games_per_team", "day_turn_minutes")


@dataclass(frozen=True)
class Config:
    """The merged settings of one tournament, typed (points as Fractions)."""

    players_per_game: dict[str, int]
    teams: dict[str, int]
    games: dict[str, int]
    games_per_team: dict[str, int]
    eliminated_after: dict[str, int]
    day_turn_minutes: dict[str, int]
    points: dict[str, dict[str, Fraction]]
    maniac_stages: tuple[str, ...]
    kill_points: tuple[Fraction, ...]
    draw_needs_final_phase: dict[str, bool]
    balanced_stages: tuple[str, ...]
    class_table_stage: str | None
    class_table_per_game: dict[str, int]
    class_table_per_team: dict[str, int]
    best_player_min_games: dict[str, int]
    appeal_hours: int
    schedule_published_days_before: int

    def kill_points_for(self, kills: int) -> Fraction:
        """Maniac kill points: the listed values in turn, the last one for every further kill (CB-9)."""
        total = Fraction(0)
        for index in range(kills):
            total += self.kill_points[min(index, len(self.kill_points) - 1)]
        return total

    def is_13_player_stage(self, stage_key: str) -> bool:
        """Whether the stage's games are "games on 13" (CB-11): its game size is 13."""
        return self.players_per_game.get(stage_key) == 13


def _day_turn_as_map(value: Any) -> Any:
    """``day_turn_minutes`` may also be given as a list in order of play ([2, 3, 2])."""
    if isinstance(value, list) and len(value) == len(STAGE_KEYS):
        return dict(zip(STAGE_KEYS, value))
    return value


def merged_settings(settings: dict[str, Any] | None) -> dict[str, Any]:
    """Defaults with the given settings on top, nested maps merged key by key."""
    out: dict[str, Any] = {}
    given = dict(settings or {})
    if "day_turn_minutes" in given:
        given["day_turn_minutes"] = _day_turn_as_map(given["day_turn_minutes"])
    for key, default in DEFAULT_SETTINGS.items():
        value = given.get(key, default)
        if isinstance(default, dict) and isinstance(value, dict):
            merged = dict(default)
            for inner, inner_value in value.items():
                if isinstance(merged.get(inner), dict) and isinstance(inner_value, dict):
                    merged[inner] = {**merged[inner], **inner_value}
                else:
                    merged[inner] = inner_value
            value = merged
        out[key] = value
    return out


def config(settings: dict[str, Any] | None) -> Config:
    """The typed view of a tournament's settings (validated ones)."""
    s = merged_settings(settings)
    return Config(
        players_per_game=dict(s["players_per_game"]),
        teams=dict(s["teams"]),
        games=dict(s["games"]),
        games_per_team=dict(s["games_per_team"]),
        eliminated_after=dict(s["eliminated_after"]),
        day_turn_minutes=dict(s["day_turn_minutes"]),
        points={stage: {k: to_fraction(v) for k, v in table.items()} for stage, table in s["points_table"].items()},
        maniac_stages=tuple(s["maniac_stages"]),
        kill_points=tuple(to_fraction(v) for v in s["maniac_kill_points"]),
        draw_needs_final_phase=dict(s["civilians_draw_needs_final_phase"]),
        balanced_stages=tuple(s["balanced_stages"]),
        class_table_stage=s["class_table_stage"],
        class_table_per_game=dict(s["class_table_per_game"]),
        class_table_per_team=dict(s["class_table_per_team"]),
        best_player_min_games=dict(s["best_player_min_games"]),
        appeal_hours=s["appeal_hours"],
        schedule_published_days_before=s["schedule_published_days_before"],
    )


def _is_int(value: Any, minimum: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= minimum


def _is_amount(value: Any) -> bool:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        return False
    try:
        number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
    except InvalidOperation:
        return False
    return number.is_finite() and number >= 0


def _not_positive_integer(value: Any) -> Text:
    return _("%(value)s is not a positive integer", value=repr(value))


def _not_non_negative_integer(value: Any) -> Text:
    return _("%(value)s is not a non-negative integer", value=repr(value))


def _not_non_negative_amount(value: Any) -> Text:
    return _("%(value)s is not a non-negative amount", value=repr(value))


def _not_true_or_false(value: Any) -> Text:
    return _("%(value)s is not true or false", value=repr(value))


def _check_map(path: str, value: Any, keys: tuple[str, ...], ok: Callable[[Any], bool],
               refusal: Callable[[Any], Text]) -> list[Problem]:
    """A map from some of ``keys`` to values accepted by ``ok``; ``refusal`` says why a value is not."""
    if not isinstance(value, dict):
        return [Problem(path, _("must be an object keyed by %(keys)s", keys=", ".join(keys)))]
    problems = []
    for key, item in value.items():
        if key not in keys:
            problems.append(Problem(f"{path}.{key}", _("unknown key; expected one of %(keys)s", keys=", ".join(keys))))
        elif not ok(item):
            problems.append(Problem(f"{path}.{key}", refusal(item)))
    return problems


def _check_stage_list(path: str, value: Any) -> list[Problem]:
    if not isinstance(value, list) or any(item not in STAGE_KEYS for item in value):
        return [Problem(path, _("must be a list of stage keys (%(keys)s)", keys=", ".join(STAGE_KEYS)))]
    return []


def _check_points_table(value: Any) -> list[Problem]:
    if not isinstance(value, dict):
        return [Problem("points_table", _("must be an object keyed by stage"))]
    problems = []
    for stage, table in value.items():
        if stage not in STAGE_KEYS:
            problems.append(Problem(f"points_table.{stage}", _("unknown stage; expected one of %(keys)s",
                                                               keys=", ".join(STAGE_KEYS))))
            continue
        problems += _check_map(f"points_table.{stage}", table, POINT_KEYS, _is_amount, _not_non_negative_amount)
    return problems


def _check_class_counts(path: str, value: Any) -> list[Problem]:
    return _check_map(path, value, CLASSES, lambda v: _is_int(v, 0), _not_non_negative_integer)


def validate_settings(settings: dict[str, Any]) -> list[Problem]:
    """Unknown keys and bad values refused; paths relative to ``tournament.settings``."""
    problems: list[Problem] = []
    for key in sorted(set(settings) - set(DEFAULT_SETTINGS)):
        problems.append(Problem(key, _("unknown setting of class_balanced")))
    for key in PER_STAGE_INT_KEYS:
        if key in settings:
            value = _day_turn_as_map(settings[key]) if key == "day_turn_minutes" else settings[key]
            problems += _check_map(key, value, STAGE_KEYS, lambda v: _is_int(v, 1), _not_positive_integer)
    if "eliminated_after" in settings:
        problems += _check_map("eliminated_after", settings["eliminated_after"], STAGE_KEYS[:2],
                               lambda v: _is_int(v, 0), _not_non_negative_integer)
    for key in ("schedule_published_days_before", "appeal_hours"):
        if key in settings and not _is_int(settings[key], 0):
            problems.append(Problem(key, _not_non_negative_integer(settings[key])))
    if "points_table" in settings:
        problems += _check_points_table(settings["points_table"])
    for key in ("maniac_stages", "balanced_stages"):
        if key in settings:
            problems += _check_stage_list(key, settings[key])
    if "maniac_kill_points" in settings:
        value = settings["maniac_kill_points"]
        if not isinstance(value, list) or not value or not all(_is_amount(v) for v in value):
            problems.append(Problem("maniac_kill_points", _("must be a non-empty list of non-negative amounts")))
    if "civilians_draw_needs_final_phase" in settings:
        problems += _check_map("civilians_draw_needs_final_phase", settings["civilians_draw_needs_final_phase"],
                               STAGE_KEYS, lambda v: isinstance(v, bool), _not_true_or_false)
    if "class_table_stage" in settings and settings["class_table_stage"] not in (*STAGE_KEYS, None):
        problems.append(Problem("class_table_stage", _("%(value)s is not a stage key or null",
                                                       value=repr(settings["class_table_stage"]))))
    for key in ("class_table_per_game", "class_table_per_team"):
        if key in settings:
            problems += _check_class_counts(key, settings[key])
    if "best_player_min_games" in settings:
        problems += _check_map("best_player_min_games", settings["best_player_min_games"], STAGE_KEYS,
                               lambda v: _is_int(v, 0), _not_non_negative_integer)
    if not problems:
        problems += _check_consistency(merged_settings(settings))
    return problems


def _check_consistency(s: dict[str, Any]) -> list[Problem]:
    """Settings that only make sense together (CB-6, CB-7, CB-9)."""
    problems = []
    for stage in s["maniac_stages"]:
        missing = [k for k in ("maniac_win", "maniac_draw") if k not in s["points_table"][stage]]
        if len(missing) == 2:
            problems.append(Problem(f"points_table.{stage}", _("a stage with a maniac needs %(first)s and "
                                                               "%(second)s (CB-9)", first=missing[0],
                                                               second=missing[1])))
        elif missing:
            problems.append(Problem(f"points_table.{stage}", _("a stage with a maniac needs %(key)s (CB-9)",
                                                               key=missing[0])))
    for stage in s["balanced_stages"]:
        if s["games_per_team"][stage] % len(CLASSES):
            problems.append(Problem(f"games_per_team.{stage}",
                                    _("%(games)s games cannot be split equally over 3 classes (CB-7)",
                                      games=s["games_per_team"][stage])))
    table_stage = s["class_table_stage"]
    if table_stage is not None:
        if sum(s["class_table_per_game"].values()) != s["players_per_game"][table_stage]:
            problems.append(Problem("class_table_per_game", _("the classes do not add up to %(players)s players (CB-6)",
                                                              players=s["players_per_game"][table_stage])))
        if sum(s["class_table_per_team"].values()) != s["games_per_team"][table_stage]:
            problems.append(Problem("class_table_per_team", _("the classes do not add up to %(games)s games (CB-6)",
                                                              games=s["games_per_team"][table_stage])))
    return problems
