"""The interchange format ``tournament-portal/1``: document -> facts, facts -> export.

Pure: parses a decoded JSON document into ``TournamentFacts`` and refuses
anything the format (``spec/interchange.md``) does not allow, naming the JSON
path of each problem; and turns a ruleset's ``Standings`` into the export
document ``tournament-portal/standings/1``.

One module a concern, this package re-exporting what the other modules use:

- ``limits``: the format identifiers, stage keys, allowed keys and the limits of a document
  (docs/interchange-limits.md);
- ``reader``: the typed ``Reader`` and the text helpers (``safe_text``, ``web_link``);
- ``bounds``: what is checked before a document is read (``text_problems``, ``nesting_path``,
  ``settings_problems``);
- ``document``: ``parse_document``, the top level and the tournament object;
- ``teams``: players, families and rosters;
- ``games``: stages, groups, Mafia games and seats, ChGK tours (``parse_game``, ``parse_tour``);
- ``items``: penalties, decisions, appeals and withdrawals (``parse_penalty``, ``parse_decision``);
- ``references``: ``check_references`` and ``replacement_problems``;
- ``export``: ``export_standings``.
"""

from __future__ import annotations

from rulesets.base import RulesetError
from rulesets.interchange.bounds import nesting_path, settings_problems, text_problems
from rulesets.interchange.document import parse_document
from rulesets.interchange.export import export_standings
from rulesets.interchange.games import parse_game, parse_tour
from rulesets.interchange.items import parse_decision, parse_penalty
from rulesets.interchange.limits import (
    APPEAL_KEYS,
    DECISION_KEYS,
    DECISION_KINDS,
    EXPORT_FORMAT,
    FAMILY_KEYS,
    FORMAT,
    GAME_KEYS,
    GROUP_KEYS,
    MAX_DECIMAL_LENGTH,
    MAX_DECISION_CODE,
    MAX_DOCUMENT_DEPTH,
    MAX_FAMILIES,
    MAX_GAME_DAYS,
    MAX_GAMES,
    MAX_GROUP_NAME,
    MAX_GROUP_TEAMS,
    MAX_GROUPS,
    MAX_INT,
    MAX_ITEMS,
    MAX_LINK,
    MAX_MOMENT_LENGTH,
    MAX_NAME,
    MAX_ORDER,
    MAX_PENALTY_CODE,
    MAX_PENALTY_KIND,
    MAX_PLAYERS,
    MAX_QUESTIONS,
    MAX_ROSTER,
    MAX_SEATS,
    MAX_SEED,
    MAX_SETTINGS_DEPTH,
    MAX_SETTINGS_NUMBER,
    MAX_SETTINGS_TEXT,
    MAX_SETTINGS_VALUES,
    MAX_SIGNATURE,
    MAX_TEAMS,
    MAX_TEXT,
    MAX_TEXT_PROBLEMS,
    MAX_TIMEZONE,
    MAX_TOURNAMENT_NAME,
    MAX_TOURS,
    MAX_YEAR,
    MIN_YEAR,
    PENALTY_BELOW,
    PENALTY_KEYS,
    PENALTY_PLACES,
    PLAYER_KEYS,
    SEAT_KEYS,
    SETTING_LIMITS,
    STAGE_KEYS_ALLOWED,
    TEAM_KEYS,
    TOP_KEYS,
    TOUR_KEYS,
    TOURNAMENT_KEYS,
    VERDICTS,
    WITHDRAWAL_KEYS,
)
from rulesets.interchange.reader import Reader, safe_text, web_link
from rulesets.interchange.references import check_references, replacement_problems

__all__ = [
    "APPEAL_KEYS",
    "DECISION_KEYS",
    "DECISION_KINDS",
    "EXPORT_FORMAT",
    "FAMILY_KEYS",
    "FORMAT",
    "GAME_KEYS",
    "GROUP_KEYS",
    "MAX_DECIMAL_LENGTH",
    "MAX_DECISION_CODE",
    "MAX_DOCUMENT_DEPTH",
    "MAX_FAMILIES",
    "MAX_GAMES",
    "MAX_GAME_DAYS",
    "MAX_GROUPS",
    "MAX_GROUP_NAME",
    "MAX_GROUP_TEAMS",
    "MAX_INT",
    "MAX_ITEMS",
    "MAX_LINK",
    "MAX_MOMENT_LENGTH",
    "MAX_NAME",
    "MAX_ORDER",
    "MAX_PENALTY_CODE",
    "MAX_PENALTY_KIND",
    "MAX_PLAYERS",
    "MAX_QUESTIONS",
    "MAX_ROSTER",
    "MAX_SEATS",
    "MAX_SEED",
    "MAX_SETTINGS_DEPTH",
    "MAX_SETTINGS_NUMBER",
    "MAX_SETTINGS_TEXT",
    "MAX_SETTINGS_VALUES",
    "MAX_SIGNATURE",
    "MAX_TEAMS",
    "MAX_TEXT",
    "MAX_TEXT_PROBLEMS",
    "MAX_TIMEZONE",
    "MAX_TOURNAMENT_NAME",
    "MAX_TOURS",
    "MAX_YEAR",
    "MIN_YEAR",
    "PENALTY_BELOW",
    "PENALTY_KEYS",
    "PENALTY_PLACES",
    "PLAYER_KEYS",
    "Reader",
    "RulesetError",
    "SEAT_KEYS",
    "SETTING_LIMITS",
    "STAGE_KEYS_ALLOWED",
    "TEAM_KEYS",
    "TOP_KEYS",
    "TOURNAMENT_KEYS",
    "TOUR_KEYS",
    "VERDICTS",
    "WITHDRAWAL_KEYS",
    "check_references",
    "export_standings",
    "nesting_path",
    "parse_decision",
    "parse_document",
    "parse_game",
    "parse_penalty",
    "parse_tour",
    "replacement_problems",
    "safe_text",
    "settings_problems",
    "text_problems",
    "web_link",
]
