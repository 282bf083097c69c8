"""The family league's examples in the REST API's documentation (``FormatHome.examples``).

The shared API modules ask the registry for them (``formats.registry.example``), so that no shared module names
a format.
"""

from __future__ import annotations

from typing import Any

TOURNAMENT: dict[str, Any] = {
    "slug": "mt-autumn-2014", "name": "Турнирные Мастера, осень 2014", "ruleset": "family_league",
    "ruleset_version": 1, "settings": {"shared_prize": True}, "timezone": "Europe/Moscow",
    "starts_on": "2014-09-01", "ends_on": None, "registration_deadline": None, "room": "", "status": "running",
    "facts_version": 42, "stages": ["qualifying", "final"],
}

CREATE: dict[str, Any] = {
    "name": "Family league, spring 2025", "slug": "fl-spring-2025", "ruleset": "family_league",
    "timezone": "Europe/Moscow", "starts_on": "2025-03-01", "ends_on": "2025-05-31",
    "registration_deadline": "2025-02-25T23:59:00+03:00", "room": "Mafia room 3",
    "settings": {"groups": 3, "prizes": [5000, 3000, 1000]},
}

STANDINGS: dict[str, Any] = {
    "format": "tournament-portal/standings/1", "tournament": "mt-autumn-2014", "ruleset": "family_league",
    "stage": "final", "final": True,
    "teams": [{"rank": 1, "team": "Eternity", "points": 12.5, "status": "winner",
               "tiebreaks": {"mafia_points": 8.0}}],
    "awards": [{"place": 1, "team": "Eternity", "player": None, "prize": 6000, "currency": "mf",
                "items": ["gold cup"]}],
    "seed": None,
}

CAREER_TOURNAMENT: dict[str, Any] = {
    "slug": "mt-autumn-2014", "name": "Турнирные Мастера, осень 2014", "ruleset": "family_league",
    "starts_on": "2014-09-01", "teams": [{"id": 4, "name": "Eternity", "stage": None, "captain": True}],
    "results": [{"stage": "final", "rank": None, "points": 5.5, "games": 3, "status": None}],
    "awards": [{"stage": "final", "place": 1, "team": "Eternity", "team_award": True, "items": ["gold cup"],
                "prize": 6000, "currency": "mf"}],
    "season": [],
}

EXAMPLES: dict[str, Any] = {"tournament": TOURNAMENT, "create": CREATE, "standings": STANDINGS,
                            "career_tournament": CAREER_TOURNAMENT,
                            "tiebreaks": "family_league `mafia_points`"}
