"""The ChGK season's examples in the REST API's documentation (``FormatHome.examples``; see
``formats.family_league.examples``)."""

from __future__ import annotations

from typing import Any

IMPORT: dict[str, Any] = {
    "format": "tournament-portal/1",
    "tournament": {"slug": "mubk-spring", "name": "Гран-при МУБК, весна", "ruleset": "chgk_tour_points",
                   "timezone": "Europe/Moscow", "starts_on": "2013-02-07"},
    "teams": [{"name": "Signum", "captain": "Anna", "players": ["Anna", "Boris"]},
              {"name": "Rotor", "captain": "Vera", "players": ["Vera", "Gleb"]}],
    "stages": [{"key": "season", "tours": [
        {"number": 1, "host": "Signum", "played_on": "2013-02-07", "questions": 8,
         "masks": {"Rotor": "10110000"}}]}],
}

CAREER_SEASON: dict[str, Any] = {
    "slug": "chgk-spring", "name": "Гран-при МУБК", "ruleset": "chgk_tour_points", "starts_on": "2014-02-01",
    "teams": [{"id": 31, "name": "Знатоки", "stage": None, "captain": False}], "results": [], "awards": [],
    "season": [{"team": "Знатоки", "rank": 2, "points": 27.0, "status": "active", "hosted_tour": 2,
                "tours": [{"tour": 1, "role": "played", "place": "1-2", "points": 9.0, "correct": 5},
                          {"tour": 2, "role": "host", "place": None, "points": 0.0, "correct": None}]}],
}

EXAMPLES: dict[str, Any] = {"import": IMPORT, "career_season": CAREER_SEASON,
                            "tiebreaks": "chgk_tour_points `correct_answers`, `rating_sum`"}
