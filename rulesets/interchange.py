"""The interchange format ``tournament-portal/1``: document -> facts, facts -> export.

Pure: parses a decoded JSON document into ``TournamentFacts`` and refuses
anything the format (``spec/interchange.md``) does not allow, naming the JSON
path of each problem; and turns a ruleset's ``Standings`` into the export
document ``tournament-portal/standings/1``.
"""

from __future__ import annotations

import datetime as dt
import json
import math
import re
import zoneinfo
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from typing import Any

import rulesets
from rulesets import appeal_edges
from rulesets.base import Problem, RulesetError, Standings, round2
from rulesets.facts import (
    GAME_STATUSES,
    LEAGUES,
    MASK_CHARS,
    OUTCOMES,
    ROLES,
    Appeal,
    Decision,
    Family,
    Game,
    Group,
    Penalty,
    Player,
    Seat,
    Stage,
    Team,
    Tour,
    TournamentFacts,
    Withdrawal,
    make_seat,
)
from rulesets.messages import Text
from rulesets.messages import text as _
from rulesets.rules import frozen

FORMAT = "tournament-portal/1"
EXPORT_FORMAT = "tournament-portal/standings/1"

STAGE_KEYS: dict[str, tuple[str, ...]] = {
    "chgk_tour_points": ("season",),
    "family_league": ("qualifying", "final"),
    "class_balanced": ("stage-1", "stage-2", "stage-3"),
    "elimination_gp": ("qualifying-1", "qualifying-2", "qualifying-3", "qualifying-4", "qualifying-5", "final"),
}
MAFIA_RULESETS = ("family_league", "class_balanced", "elimination_gp")

TOP_KEYS = {"format", "tournament", "players", "families", "teams", "stages", "penalties", "decisions", "appeals", "withdrawals"}
TOURNAMENT_KEYS = {"slug", "name", "ruleset", "timezone", "starts_on", "settings"}
PLAYER_KEYS = {"nick", "level", "disqualified", "family", "banned"}
FAMILY_KEYS = {"name", "head"}
TEAM_KEYS = {"name", "captain", "players", "league", "home_university", "family", "left_at"}
STAGE_KEYS_ALLOWED = {"key", "teams", "groups", "games", "tours", "seed"}
GROUP_KEYS = {"name", "teams"}
GAME_KEYS = {"number", "group", "round", "scheduled_at", "status", "outcome", "omon", "game_days", "link",
             "absent_teams", "no_show_eliminated", "seats", "result_recorded_at"}
SEAT_KEYS = {"player", "team", "role", "stats", "timed_out", "days_played", "maniac_kills", "in_final_phase",
             "fake_passport"}
TOUR_KEYS = {"number", "host", "played_on", "questions", "masks", "absent"}
PENALTY_KEYS = {"stage", "game", "team", "player", "kind", "code", "points", "decided_at", "published_at", "text"}
DECISION_KEYS = {"stage", "game", "kind", "code", "outcome", "decided_at", "published_at", "by", "text", "team",
                 "player", "order", "reason"}
DECISION_KINDS = ("technical_result", "replay", "disqualification", "tie_break", "qualify")
APPEAL_KEYS = {"stage", "tour", "question", "team", "kind", "answer", "filed_at", "verdict", "credited_teams",
               "decision", "penalty", "appellant", "claim", "text", "replacement", "decided_at"}
VERDICTS = ("accepted", "rejected", "partly")
WITHDRAWAL_KEYS = {"team", "at"}


# Limits of a document (documented in docs/interchange-limits.md). Where the spec gives a number it is cited;
# a length is what the database column holds; elsewhere the limit is generous and only stops a document that
# would tie the portal up (a count past any real tournament).
MAX_INT = 2**31 - 1  # PostgreSQL integer: every whole number the portal stores
MAX_NAME = 100  # nick, team, family, host, names in lists (accounts.Player.nick, tournaments.Team.name)
MAX_TOURNAMENT_NAME = 200  # tournaments.Tournament.name
MAX_TIMEZONE = 64  # tournaments.Tournament.timezone
MAX_GROUP_NAME = 20  # tournaments.Group.name
MAX_LINK = 500  # tournaments.Game.link
MAX_PENALTY_KIND = 30  # tournaments.Penalty.kind
MAX_PENALTY_CODE = 20  # tournaments.Penalty.code
MAX_DECISION_CODE = 30  # tournaments.Decision.code
MAX_SIGNATURE = 150  # Decision.by, Appeal.appellant
MAX_SEED = 100  # tournaments.Stage.seed
MAX_TEXT = 10_000  # free texts: penalty and decision texts, reasons, a team's answer
MAX_PLAYERS = 10_000  # the document's ``players`` list
MAX_FAMILIES = 1_000  # the document's ``families`` list
MAX_TEAMS = 200  # teams of a tournament or of a stage (CB-1: 14, GP-8: 9, FL-8: 21 a group)
MAX_ROSTER = 100  # players of one team (CHGK-1: 10, GP-8: 6; a family league family rarely 30)
MAX_GROUPS = 20  # groups of a stage (FL-8: setting ``groups``, default 2)
MAX_GROUP_TEAMS = 21  # FL-8: a group has at most 21 teams because a game holds at most 21 players
MAX_GAMES = 20_000  # games of a stage (CB-1: 48; FL-7: 30; synthetic benchmark leagues: 10,000)
MAX_SEATS = 21  # seats of a Mafia game (FL-8, FL-9: a game room holds 21 players; CB: 13; GP-9: 9)
MAX_GAME_DAYS = 100  # days of a Mafia game (a day jails a player: 21 players, far fewer days)
MAX_TOURS = MAX_TEAMS  # CHGK-7: every team hosts exactly one tour
MAX_QUESTIONS = 100  # questions of a tour (CHGK-8: 8; a mask holds one mark a question, tournaments.Mask.mask)
MAX_ITEMS = 10_000  # penalties, decisions, appeals of a document
MAX_ORDER = 1_000  # names in a tie_break decision's order
MIN_YEAR, MAX_YEAR = 1900, 2999  # dates and times (a deadline a few days on must not leave the calendar)
MAX_MOMENT_LENGTH = 40  # characters of an ISO 8601 date and time
MAX_DECIMAL_LENGTH = 40  # characters of a decimal amount
PENALTY_PLACES, PENALTY_BELOW = 3, 10**5  # tournaments.Penalty.points: 8 digits, 3 of them decimals
MAX_SETTINGS_DEPTH = 8  # nesting of tournament.settings (the deepest default table is 3 levels)
MAX_SETTINGS_VALUES = 10_000  # values in tournament.settings
MAX_SETTINGS_TEXT = 1_000  # characters of a string in tournament.settings
MAX_SETTINGS_NUMBER = 10**9  # magnitude of a number in tournament.settings (counts, points, prizes in mf)
SETTING_LIMITS = {"questions_per_tour": (MAX_QUESTIONS, "CHGK-8"), "groups": (MAX_GROUPS, "FL-8")}
MAX_TEXT_PROBLEMS = 50  # bad strings reported before the parser stops
MAX_DOCUMENT_DEPTH = 64  # nesting of a whole document the decoder gives up on (the format needs about 12)

# A game's status and a decision's kind are said in the sentence itself (one message each: a translation words
# them as its language needs).
_NEEDS_OUTCOME = {"played": _("a played game needs an outcome"),
                  "technical": _("a technical game needs an outcome")}
_NO_OUTCOME = {"scheduled": _("a scheduled game has no outcome"),
               "not_held": _("a not_held game has no outcome"),
               "annulled": _("a annulled game has no outcome")}
_NO_SEATS = {"scheduled": _("a scheduled game has no seats"),
             "not_held": _("a not_held game has no seats"),
             "annulled": _("a annulled game has no seats")}
_NAMES_ITS_GAME = {"technical_result": _("a technical_result decision names its game"),
                   "replay": _("a replay decision names its game")}


class Reader:
    """Collects problems while reading typed values at JSON paths."""

    def __init__(self) -> None:
        self.problems: list[Problem] = []
        self.clean_seats = 0  # seats read whole by ``_plain_seat``: their text is storable
        self.plain_names: set[str] = set()  # the seats' names ``_plain_seat`` has found storable

    def fail(self, path: str, message: str) -> None:
        self.problems.append(Problem(path, message))

    def obj(self, value: Any, path: str, allowed: set[str], required: set[str] = frozenset()) -> dict | None:
        if not isinstance(value, dict):
            self.fail(path, _("must be an object"))
            return None
        for key in sorted(set(value) - allowed):
            self.fail(_join(path, safe_text(key)), _("unknown key"))
        for key in sorted(required - set(value)):
            self.fail(_join(path, key), _("is required"))
        return value

    def lst(self, value: Any, path: str, limit: int | None = None) -> list:
        """A list, or ``[]`` (refused) when it is not one or holds more than ``limit`` items."""
        if value is None:
            return []
        if not isinstance(value, list):
            self.fail(path, _("must be a list"))
            return []
        if limit is not None and len(value) > limit:
            self.fail(path, _("%(count)s items; at most %(limit)s are allowed", count=len(value), limit=limit))
            return []
        return value

    def mapping(self, value: Any, path: str, what: str, limit: int) -> dict:
        """An object of ``what`` (``team: mask`` ..., a message), or ``{}`` (refused) when too large or not an
        object."""
        if value is None:
            return {}
        if not isinstance(value, dict):
            self.fail(path, _("must be an object of %(what)s", what=what))
            return {}
        if len(value) > limit:
            self.fail(path, _("%(count)s entries; at most %(limit)s are allowed", count=len(value), limit=limit))
            return {}
        return value

    def string(self, value: Any, path: str, *, required: bool = True, allow_empty: bool = False,
               limit: int = MAX_NAME) -> str | None:
        if value is None:
            if required:
                self.fail(path, _("is required"))
            return None
        if not isinstance(value, str) or (not allow_empty and not value.strip()):
            self.fail(path, _("must be a non-empty string"))
            return None
        if len(value) > limit:
            self.fail(path, _("%(count)s characters; at most %(limit)s are allowed", count=len(value), limit=limit))
            return None
        return value

    def integer(self, value: Any, path: str, *, required: bool = False, minimum: int | None = None,
                maximum: int = MAX_INT) -> int | None:
        if value is None:
            if required:
                self.fail(path, _("is required"))
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(path, _("must be an integer"))
            return None
        if minimum is not None and value < minimum:
            self.fail(path, _("must be at least %(minimum)s", minimum=minimum))
            return None
        if value > maximum:
            shown = value if value.bit_length() <= 64 else _("the number")
            self.fail(path, _("%(value)s is above the largest allowed value %(maximum)s", value=shown,
                              maximum=maximum))
            return None
        if value < -MAX_INT - 1:
            self.fail(path, _("is below the smallest allowed value %(minimum)s", minimum=-MAX_INT - 1))
            return None
        return value

    def boolean(self, value: Any, path: str, default: bool = False) -> bool:
        if value is None:
            return default
        if not isinstance(value, bool):
            self.fail(path, _("must be true or false"))
            return default
        return value

    def choice(self, value: Any, path: str, options: tuple[str, ...], *, required: bool = True) -> str | None:
        if value is None:
            if required:
                self.fail(path, _("is required"))
            return None
        if not isinstance(value, str) or value not in options:
            self.fail(path, _("%(value)s is not one of %(options)s", value=_shown(value), options=", ".join(options)))
            return None
        return value

    def date(self, value: Any, path: str, *, required: bool = False) -> dt.date | None:
        if value is None:
            if required:
                self.fail(path, _("is required"))
            return None
        try:
            if not isinstance(value, str) or len(value) != 10:
                raise ValueError
            parsed = dt.date.fromisoformat(value)
        except ValueError:
            self.fail(path, _("%(value)s is not a date YYYY-MM-DD", value=_shown(value)))
            return None
        if not MIN_YEAR <= parsed.year <= MAX_YEAR:
            self.fail(path, _("%(value)s is outside the years %(first)s..%(last)s", value=repr(value), first=MIN_YEAR,
                              last=MAX_YEAR))
            return None
        return parsed

    def datetime(self, value: Any, path: str, *, required: bool = False) -> dt.datetime | None:
        """An aware moment that stays within the years ``MIN_YEAR..MAX_YEAR`` in UTC as written (stored as UTC)."""
        if value is None:
            if required:
                self.fail(path, _("is required"))
            return None
        try:
            if not isinstance(value, str) or len(value) > MAX_MOMENT_LENGTH:
                raise ValueError
            parsed = dt.datetime.fromisoformat(value)
        except ValueError:
            self.fail(path, _("%(value)s is not an ISO 8601 date and time", value=_shown(value)))
            return None
        if parsed.tzinfo is None or parsed.utcoffset() is None:
            self.fail(path, _("%(value)s has no UTC offset", value=repr(value)))
            return None
        try:
            in_utc = parsed.astimezone(dt.UTC)
        except OverflowError:
            in_utc = None
        if in_utc is None or not all(MIN_YEAR <= year <= MAX_YEAR for year in (parsed.year, in_utc.year)):
            self.fail(path, _("%(value)s is outside the years %(first)s..%(last)s (in UTC too)", value=repr(value),
                              first=MIN_YEAR, last=MAX_YEAR))
            return None
        return parsed

    def decimal(self, value: Any, path: str, *, required: bool = False, places: int = PENALTY_PLACES,
                below: int = PENALTY_BELOW) -> Decimal | None:
        """A finite decimal with at most ``places`` decimals and a magnitude below ``below``."""
        if value is None:
            if required:
                self.fail(path, _("is required"))
            return None
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            self.fail(path, _("must be a decimal number or a string holding one"))
            return None
        if isinstance(value, str) and len(value) > MAX_DECIMAL_LENGTH:
            self.fail(path, _("%(count)s characters; at most %(limit)s are allowed", count=len(value),
                              limit=MAX_DECIMAL_LENGTH))
            return None
        if isinstance(value, int) and abs(value) >= below:
            self.fail(path, _("must be below %(limit)s", limit=below))
            return None
        try:
            number = Decimal(repr(value)) if isinstance(value, float) else Decimal(value)
        except InvalidOperation:
            self.fail(path, _("%(value)s is not a decimal number", value=repr(value)))
            return None
        if not number.is_finite():
            self.fail(path, _("%(value)s is not a finite number", value=repr(value)))
            return None
        if abs(number) >= below:
            self.fail(path, _("%(value)s must be below %(limit)s", value=repr(value), limit=below))
            return None
        exponent = number.normalize().as_tuple().exponent
        if isinstance(exponent, int) and exponent < -places:
            self.fail(path, _("%(value)s has more than %(places)s decimal places", value=repr(value), places=places))
            return None
        return number

    def link(self, value: Any, path: str, *, limit: int = MAX_LINK) -> str | None:
        """An http:// or https:// address (``web_link``), the only links stored: ``javascript:``, ``data:`` ...
        are refused."""
        link = self.string(value, path, required=False, limit=limit)
        if link is not None and not web_link(link):
            self.fail(path, _("a link is an http:// or https:// address, not %(value)s", value=_shown(link)))
            return None
        return link

    def names(self, value: Any, path: str, limit: int = MAX_TEAMS) -> tuple[str, ...]:
        out: list[str] = []
        for index, item in enumerate(self.lst(value, path, limit)):
            name = self.string(item, f"{path}[{index}]")
            if name is not None:
                out.append(name)
        return tuple(out)


_WEB_LINK = re.compile(r"https?://[^\s/?#@]+(?:[/?#]|$)", re.IGNORECASE)


def web_link(value: Any) -> bool:
    """An http or https address with a host (``https://mafiaonline.ru/log/3624027``): the only kind of link the
    portal stores and shows as a link (a game's log)."""
    return isinstance(value, str) and _WEB_LINK.match(value) is not None


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _stage_name(key: str) -> Text:
    """A stage key as a message of its own, for a second stage in one message: a parameter named ``stage`` is
    shown by the stage's name, so this wraps the key in one (its English value is the key; it is not a sentence
    of the catalogue, and is not spelled ``_`` so that it is not collected as one)."""
    return Text("%(stage)s", {"stage": key})


def _shown(value: Any) -> str:
    """A value for a message: its repr, shortened (a refused value may be a megabyte long); a huge integer is
    "the number" (a message itself, so it is translated where it is shown)."""
    if isinstance(value, int) and not isinstance(value, bool) and value.bit_length() > 64:
        return _("the number")
    text = repr(value)
    return text if len(text) <= 80 else text[:77] + "..."


def safe_text(text: str) -> str:
    """``text`` with lone surrogates and NUL characters written as escapes, so it can be printed and encoded."""
    if "\x00" in text:
        text = text.replace("\x00", "\\x00")
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _bad_text(text: str, *, key: bool = False) -> str | None:
    """Why ``text`` is not storable (``key``: said of a key of an object), or None."""
    if "\x00" in text:
        if key:
            return _("the key holds a NUL character, which no text may hold")
        return _("holds a NUL character, which no text may hold")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        if key:
            return _("the key holds a lone surrogate (\\ud800..\\udfff), which is not valid Unicode text")
        return _("holds a lone surrogate (\\ud800..\\udfff), which is not valid Unicode text")
    return None


def text_problems(document: Any) -> list[Problem]:
    """Every string of the document, keys included, that is not storable text: a NUL or a lone surrogate.

    A quick whole-document check first (one encoding in C); only a document that fails it is walked for the
    paths. At most ``MAX_TEXT_PROBLEMS`` are reported.
    """
    try:
        text = json.dumps(document, ensure_ascii=False, check_circular=False)
        text.encode("utf-8")
        if "\\u0000" not in text:
            return []
    except (UnicodeEncodeError, RecursionError, TypeError, ValueError):
        pass
    problems: list[Problem] = []
    stack: list[tuple[Any, str]] = [(document, "")]
    while stack and len(problems) < MAX_TEXT_PROBLEMS:
        value, path = stack.pop()
        if isinstance(value, str):
            message = _bad_text(value)
            if message is not None:
                problems.append(Problem(path, message))
        elif isinstance(value, dict):
            for key, item in reversed(list(value.items())):
                key_text = key if isinstance(key, str) else str(key)
                item_path = _join(path, safe_text(key_text))
                message = _bad_text(key_text, key=True)
                if message is not None:
                    problems.append(Problem(item_path, message))
                stack.append((item, item_path))
        elif isinstance(value, list):
            stack.extend((item, f"{path}[{i}]") for i, item in reversed(list(enumerate(value))))
    return problems


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{},:]')


def nesting_path(text: str, limit: int = MAX_DOCUMENT_DEPTH) -> str | None:
    """The JSON path where ``text`` nests deeper than ``limit`` objects and lists, or None.

    For a document the JSON decoder gave up on (too deep for it): a scan of the structural tokens only.
    """
    stack: list[list[Any]] = []  # [kind, key or index] of each open object or list
    last = '""'
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token[0] == '"':
            last = token
        elif token == ":" and stack and stack[-1][0] == "{":
            try:
                stack[-1][1] = str(json.loads(last))
            except ValueError:
                stack[-1][1] = "?"
        elif token == "," and stack and stack[-1][0] == "[":
            stack[-1][1] += 1
        elif token in "[{":
            if len(stack) >= limit:
                path = ""
                for kind, where in stack:
                    path = _join(path, safe_text(where or "?")) if kind == "{" else f"{path}[{where}]"
                return path
            stack.append([token, 0 if token == "[" else None])
        elif token in "]}" and stack:
            stack.pop()
    return None


def settings_problems(value: Any, path: str = "tournament.settings") -> list[Problem]:
    """Bounds of a settings object before its ruleset reads it: depth, size, text lengths, finite numbers."""
    problems: list[Problem] = []
    count = 0
    stack: list[tuple[Any, str, int]] = [(value, path, 0)]
    while stack:
        item, where, depth = stack.pop()
        count += 1
        if count > MAX_SETTINGS_VALUES:
            return [Problem(path, _("more than %(limit)s values; at most %(limit)s are allowed",
                                    limit=MAX_SETTINGS_VALUES))]
        if isinstance(item, (dict, list)):
            if depth >= MAX_SETTINGS_DEPTH:
                problems.append(Problem(where, _("nested too deeply: settings nest at most %(limit)s levels",
                                                 limit=MAX_SETTINGS_DEPTH)))
                continue
            pairs = item.items() if isinstance(item, dict) else ((f"[{i}]", v) for i, v in enumerate(item))
            for key, inner in pairs:
                inner_path = f"{where}{key}" if isinstance(item, list) else _join(where, str(key))
                stack.append((inner, inner_path, depth + 1))
        elif isinstance(item, str) and len(item) > MAX_SETTINGS_TEXT:
            problems.append(Problem(where, _("%(count)s characters; at most %(limit)s are allowed", count=len(item),
                                             limit=MAX_SETTINGS_TEXT)))
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, float) and not math.isfinite(item):
            problems.append(Problem(where, _("%(value)s is not a finite number", value=repr(item))))
        elif isinstance(item, (int, float)) and abs(item) > MAX_SETTINGS_NUMBER:
            problems.append(Problem(where, _("%(value)s is above the largest allowed magnitude %(limit)s",
                                             value=_shown(item), limit=MAX_SETTINGS_NUMBER)))
    if isinstance(value, dict):
        for key, (limit, rule) in SETTING_LIMITS.items():
            number = value.get(key)
            if isinstance(number, int) and not isinstance(number, bool) and number > limit:
                problems.append(Problem(_join(path, key), _("%(value)s is above %(limit)s (%(rule)s)",
                                                            value=_shown(number), limit=limit, rule=rule)))
    return problems


def parse_document(document: Any) -> TournamentFacts:
    """Parse and validate a whole interchange document, or raise ``RulesetError``.

    Text that cannot be stored (``text_problems``) is refused before anything else. The whole-document check
    costs a quarter of a second at 150,000 seats, so a document whose games hold lists of seats is checked
    without them (``_clean_but_seats``) and each seat as it is read (``_plain_seat`` takes only storable
    text). Unless every seat was read that way and the document is accepted, the whole check runs before the
    answer, which is therefore the same (issue 20, item 1).
    """
    seats = _clean_but_seats(document)
    if seats is None:
        _refuse_unstorable_text(document)
    r = Reader()
    try:
        facts = _parse_document(r, document)
    except RulesetError:
        if seats is not None:
            _refuse_unstorable_text(document)
        raise
    if seats is not None and r.clean_seats != seats:
        _refuse_unstorable_text(document)
    return facts


def _refuse_unstorable_text(document: Any) -> None:
    """Raise ``RulesetError`` with the ``text_problems`` of the document, if it has any."""
    text = text_problems(document)
    if text:
        raise RulesetError(text) from None


def _clean_but_seats(document: Any) -> int | None:
    """The number of seats of the document when every game of every stage holds a list of them and the document
    without those lists has no text ``text_problems`` would refuse (one encoding in C); None when the whole
    check must run first."""
    if not isinstance(document, dict) or not isinstance(document.get("stages"), list):
        return None
    stages, seats = [], 0
    for stage in document["stages"]:
        if not isinstance(stage, dict) or not isinstance(stage.get("games", []), list):
            return None
        games = []
        for game in stage.get("games", []):
            if not isinstance(game, dict) or not isinstance(game.get("seats", []), list):
                return None
            seats += len(game.get("seats", []))
            games.append({**game, "seats": []})
        stages.append({**stage, "games": games})
    try:
        text = json.dumps({**document, "stages": stages}, ensure_ascii=False, check_circular=False)
        text.encode("utf-8")
    except (UnicodeEncodeError, RecursionError, TypeError, ValueError):
        return None
    return seats if "\\u0000" not in text else None


def _parse_document(r: Reader, document: Any) -> TournamentFacts:
    doc = r.obj(document, "", TOP_KEYS, {"format", "tournament"})
    if doc is None:
        raise RulesetError(r.problems)
    if doc.get("format") != FORMAT:
        r.fail("format", _("must be %(expected)s", expected=repr(FORMAT)))
    tour_doc = r.obj(doc.get("tournament"), "tournament", TOURNAMENT_KEYS, {"slug", "name", "ruleset"})
    if tour_doc is None:
        raise RulesetError(r.problems)
    slug = r.string(tour_doc.get("slug"), "tournament.slug")
    if slug is not None and (len(slug) > 100 or not all(c.isalnum() or c in "-_" for c in slug)):
        r.fail("tournament.slug", _("may hold only letters, digits, '-' and '_' (at most 100)"))
    name = r.string(tour_doc.get("name"), "tournament.name", limit=MAX_TOURNAMENT_NAME)
    key = r.choice(tour_doc.get("ruleset"), "tournament.ruleset", rulesets.KEYS)
    timezone = r.string(tour_doc.get("timezone"), "tournament.timezone", required=False,
                        limit=MAX_TIMEZONE) or "Europe/Moscow"
    try:
        zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        r.fail("tournament.timezone", _("%(value)s is not a known time zone", value=repr(timezone)))
    starts_on = r.date(tour_doc.get("starts_on"), "tournament.starts_on")
    raw_settings = tour_doc.get("settings") or {}
    if not isinstance(raw_settings, dict):
        r.fail("tournament.settings", _("must be an object"))
        raw_settings = {}
    bounds = settings_problems(raw_settings)
    if bounds:
        r.problems += bounds
        raw_settings = {}
    if key is None:
        raise RulesetError(r.problems)
    ruleset = rulesets.get(key)
    for problem in ruleset.validate_settings(raw_settings):
        r.fail(_join("tournament.settings", problem.path), problem.message)
    settings = {**ruleset.default_settings, **raw_settings}

    players = _parse_players(r, doc.get("players"))
    families = _parse_families(r, doc.get("families"))
    teams: list[Team] = []
    if key == "elimination_gp":
        if doc.get("teams"):
            r.fail("teams", _("elimination_gp teams are drawn per stage: list them in each stage's teams"))
    else:
        teams = _parse_teams(r, doc.get("teams"), "teams", key)
    raw_stages = r.lst(doc.get("stages"), "stages", len(STAGE_KEYS[key]))
    stages = [_parse_stage(r, s, f"stages[{i}]", key) for i, s in enumerate(raw_stages)]
    stages = [s for s in stages if s is not None]
    _check_stage_order(r, stages, key)

    penalties = [parse_penalty(r, p, f"penalties[{i}]")
                 for i, p in enumerate(r.lst(doc.get("penalties"), "penalties", MAX_ITEMS))]
    decisions = [parse_decision(r, d, f"decisions[{i}]", i + 1)
                 for i, d in enumerate(r.lst(doc.get("decisions"), "decisions", MAX_ITEMS))]
    appeals = [_parse_appeal(r, a, f"appeals[{i}]", key)
               for i, a in enumerate(r.lst(doc.get("appeals"), "appeals", MAX_ITEMS))]
    withdrawals = [_parse_withdrawal(r, w, f"withdrawals[{i}]")
                   for i, w in enumerate(r.lst(doc.get("withdrawals"), "withdrawals", MAX_TEAMS))]

    all_teams = list(teams) + [t for s in stages for t in s.teams]
    players = _complete_players(r, players, all_teams)
    families = _complete_families(families, players, teams)
    if r.problems:
        raise RulesetError(r.problems)
    facts = TournamentFacts(
        slug=slug or "",
        name=name or "",
        ruleset=key,
        timezone=timezone,
        starts_on=starts_on,
        settings=settings,
        rules=frozen(ruleset.rule_constants),  # a document is read, and imported, under the current rules
        players=tuple(players),
        families=tuple(families),
        teams=tuple(teams),
        stages=tuple(stages),
        penalties=tuple(p for p in penalties if p is not None),
        decisions=tuple(d for d in decisions if d is not None),
        appeals=tuple(a for a in appeals if a is not None),
        withdrawals=tuple(w for w in withdrawals if w is not None),
    )
    problems = check_references(facts) + list(ruleset.validate(facts))
    problems += replacement_problems(facts)
    problems += appeal_edges.document_problems(facts, ruleset.appeal_policy)  # roles.md, as the portal files
    if problems:
        raise RulesetError(problems)
    return facts


def replacement_problems(facts: TournamentFacts, only: int | None = None) -> list[Problem]:
    """A ``partly`` verdict's changed decision is judged as the decision it replaces would be, in its place.

    The references and the ruleset's refusals of ``decisions[i]`` with the replacement there (a known code,
    CB-15; the stage's judges, FL-0; ...) are reported at ``appeals[j].replacement``. ``only``: just the
    appeal at that position.
    """
    problems: list[Problem] = []
    ruleset = rulesets.get(facts.ruleset)
    for j, appeal in enumerate(facts.appeals):
        if appeal.replacement is None or (only is not None and j != only):
            continue
        if isinstance(appeal.replacement, Penalty):
            problems += _penalty_replacement_problems(facts, j)
            continue
        if appeal.decision is None:
            continue
        position = appeal.decision - 1
        if not 0 <= position < len(facts.decisions):
            continue  # check_references reports the missing decision
        decisions = list(facts.decisions)
        decisions[position] = replace(appeal.replacement, index=appeal.decision)
        others = tuple(replace(a, verdict="rejected", replacement=None) if i == j else a
                       for i, a in enumerate(facts.appeals))
        placed = replace(facts, decisions=tuple(decisions), appeals=others)
        prefix = f"decisions[{position}]"
        for problem in check_references(placed) + list(ruleset.validate(placed)):
            if problem.path == prefix or problem.path.startswith(prefix + ".") or problem.path.startswith(prefix + "["):
                problems.append(Problem(f"appeals[{j}].replacement{problem.path[len(prefix):]}", problem.message))
    return problems


def _penalty_replacement_problems(facts: TournamentFacts, j: int) -> list[Problem]:
    """A ``partly`` verdict's changed penalty (FL-19) is judged as the penalty it replaces would be, in its place;
    its refusals are reported at ``appeals[j].replacement``."""
    appeal = facts.appeals[j]
    position = (appeal.penalty or 0) - 1
    if not 0 <= position < len(facts.penalties) or not isinstance(appeal.replacement, Penalty):
        return []  # check_references reports the missing penalty
    penalties = list(facts.penalties)
    penalties[position] = appeal.replacement
    others = tuple(replace(a, verdict="rejected", replacement=None) if i == j else a
                   for i, a in enumerate(facts.appeals))
    placed = replace(facts, penalties=tuple(penalties), appeals=others)
    prefix = f"penalties[{position}]"
    problems = []
    for problem in check_references(placed) + list(rulesets.get(facts.ruleset).validate(placed)):
        if problem.path == prefix or problem.path.startswith(prefix + ".") or problem.path.startswith(prefix + "["):
            problems.append(Problem(f"appeals[{j}].replacement{problem.path[len(prefix):]}", problem.message))
    return problems


def _parse_players(r: Reader, value: Any) -> list[Player]:
    out: list[Player] = []
    seen: set[str] = set()
    for i, raw in enumerate(r.lst(value, "players", MAX_PLAYERS)):
        path = f"players[{i}]"
        p = r.obj(raw, path, PLAYER_KEYS, {"nick"})
        if p is None:
            continue
        nick = r.string(p.get("nick"), f"{path}.nick")
        if nick is None:
            continue
        if nick in seen:
            r.fail(f"{path}.nick", _("player %(player)s is listed twice", player=repr(nick)))
            continue
        seen.add(nick)
        out.append(Player(
            nick=nick,
            level=r.integer(p.get("level"), f"{path}.level", minimum=0),
            disqualified=r.boolean(p.get("disqualified"), f"{path}.disqualified"),
            family=r.string(p.get("family"), f"{path}.family", required=False),
            banned=r.boolean(p.get("banned"), f"{path}.banned"),
        ))
    return out


def _parse_families(r: Reader, value: Any) -> list[Family]:
    out: list[Family] = []
    seen: set[str] = set()
    for i, raw in enumerate(r.lst(value, "families", MAX_FAMILIES)):
        path = f"families[{i}]"
        f = r.obj(raw, path, FAMILY_KEYS, {"name"})
        if f is None:
            continue
        name = r.string(f.get("name"), f"{path}.name")
        if name is None:
            continue
        if name in seen:
            r.fail(f"{path}.name", _("family %(family)s is listed twice", family=repr(name)))
            continue
        seen.add(name)
        out.append(Family(name=name, head=r.string(f.get("head"), f"{path}.head", required=False)))
    return out


def _parse_teams(r: Reader, value: Any, path: str, key: str) -> list[Team]:
    out: list[Team] = []
    seen: set[str] = set()
    team_of: dict[str, str] = {}
    for i, raw in enumerate(r.lst(value, path, MAX_TEAMS)):
        tpath = f"{path}[{i}]"
        t = r.obj(raw, tpath, TEAM_KEYS, {"name", "players"})
        if t is None:
            continue
        name = r.string(t.get("name"), f"{tpath}.name")
        members = r.names(t.get("players"), f"{tpath}.players", MAX_ROSTER)
        if len(set(members)) != len(members):
            r.fail(f"{tpath}.players", _("a player is listed twice"))
        captain = r.string(t.get("captain"), f"{tpath}.captain", required=False)
        if captain is not None and captain not in members:
            r.fail(f"{tpath}.captain", _("captain %(player)s is not one of the team's players", player=repr(captain)))
        if name is None:
            continue
        if name in seen:
            r.fail(f"{tpath}.name", _("team %(team)s is listed twice", team=repr(name)))
            continue
        seen.add(name)
        if key != "elimination_gp":
            _check_one_roster(r, tpath, name, members, team_of)
        league = r.choice(t.get("league"), f"{tpath}.league", LEAGUES, required=False) or "none"
        family = r.string(t.get("family"), f"{tpath}.family", required=False)
        if family is None and key == "family_league":
            family = name
        out.append(Team(name=name, captain=captain, players=members, league=league,
                        home_university=r.boolean(t.get("home_university"), f"{tpath}.home_university"),
                        family=family, left_at=_parse_left_at(r, t.get("left_at"), f"{tpath}.left_at", members)))
    return out


def _parse_left_at(r: Reader, value: Any, path: str, members: tuple[str, ...]) -> tuple[tuple[str, dt.datetime], ...]:
    """``{"nick": moment}``: when players of the team left its roster (FL-3, FL-4); kept in roster order."""
    if value is None:
        return ()
    if not isinstance(value, dict):
        r.fail(path, _("must be an object of player: moment"))
        return ()
    if len(value) > len(members):
        r.fail(path, _("%(count)s entries for %(players)s players of the team", count=len(value), players=len(members)))
        return ()
    moments: dict[str, dt.datetime] = {}
    for nick, raw in value.items():
        if nick not in members:
            r.fail(f"{path}.{nick}", _("%(player)s is not one of the team's players", player=repr(nick)))
            continue
        moment = r.datetime(raw, f"{path}.{nick}", required=True)
        if moment is not None:
            moments[nick] = moment
    return tuple((nick, moments[nick]) for nick in members if nick in moments)


def _parse_stage(r: Reader, raw: Any, path: str, key: str) -> Stage | None:
    s = r.obj(raw, path, STAGE_KEYS_ALLOWED, {"key"})
    if s is None:
        return None
    stage_key = r.choice(s.get("key"), f"{path}.key", STAGE_KEYS[key])
    if stage_key is None:
        return None
    teams: list[Team] = []
    if key == "elimination_gp":
        teams = _parse_teams(r, s.get("teams"), f"{path}.teams", key)
    elif s.get("teams") is not None:
        r.fail(f"{path}.teams", _("%(ruleset)s lists its teams at the top level", ruleset=key))
    groups: list[Group] = []
    for i, g in enumerate(r.lst(s.get("groups"), f"{path}.groups", MAX_GROUPS)):
        gpath = f"{path}.groups[{i}]"
        gd = r.obj(g, gpath, GROUP_KEYS, {"name", "teams"})
        if gd is None:
            continue
        gname = gd.get("name")
        if isinstance(gname, int) and not isinstance(gname, bool):
            gname = str(gname)
        gname = r.string(gname, f"{gpath}.name", limit=MAX_GROUP_NAME)
        gteams = r.names(gd.get("teams"), f"{gpath}.teams", MAX_GROUP_TEAMS)  # FL-8
        if gname is not None:
            groups.append(Group(name=gname, teams=gteams))
    games: list[Game] = []
    tours: list[Tour] = []
    if key in MAFIA_RULESETS:
        if s.get("tours") is not None:
            r.fail(f"{path}.tours", _("a Mafia stage has games, not tours"))
        numbers: set[int] = set()
        for i, g in enumerate(r.lst(s.get("games"), f"{path}.games", MAX_GAMES)):
            game = parse_game(r, g, f"{path}.games[{i}]")
            if game is None:
                continue
            if game.number in numbers:
                r.fail(f"{path}.games[{i}].number", _("game number %(number)s is used twice in this stage",
                                                      number=game.number))
                continue
            numbers.add(game.number)
            games.append(game)
    else:
        if s.get("games") is not None:
            r.fail(f"{path}.games", _("a ChGK stage has tours, not games"))
        numbers = set()
        for i, t in enumerate(r.lst(s.get("tours"), f"{path}.tours", MAX_TOURS)):
            tour = parse_tour(r, t, f"{path}.tours[{i}]")
            if tour is None:
                continue
            if tour.number in numbers:
                r.fail(f"{path}.tours[{i}].number", _("tour number %(number)s is used twice", number=tour.number))
                continue
            numbers.add(tour.number)
            tours.append(tour)
    seed = s.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, (str, int))):
        r.fail(f"{path}.seed", _("must be a string or an integer"))
        seed = None
    elif isinstance(seed, int) and seed.bit_length() > 256:
        r.fail(f"{path}.seed", _("the number is too long for a seed"))
        seed = None
    elif isinstance(seed, str):
        seed = r.string(seed, f"{path}.seed", allow_empty=True, limit=MAX_SEED)
    return Stage(key=stage_key, teams=tuple(teams), groups=tuple(groups), games=tuple(games),
                 tours=tuple(tours), seed=None if seed is None else str(seed))


def _check_stage_order(r: Reader, stages: list[Stage], key: str) -> None:
    order = STAGE_KEYS[key]
    seen: list[str] = []
    for i, stage in enumerate(stages):
        if stage.key in seen:
            r.fail(f"stages[{i}].key", _("stage '%(stage)s' is listed twice", stage=stage.key))
        elif seen and order.index(stage.key) < order.index(seen[-1]):
            r.fail(f"stages[{i}].key", _("stage '%(stage)s' comes before '%(previous)s' in order of play",
                                         stage=stage.key, previous=_stage_name(seen[-1])))
        seen.append(stage.key)


def parse_game(r: Reader, raw: Any, path: str) -> Game | None:
    g = r.obj(raw, path, GAME_KEYS, {"number"})
    if g is None:
        return None
    number = r.integer(g.get("number"), f"{path}.number", required=True, minimum=1)
    status = r.choice(g.get("status", "played"), f"{path}.status", GAME_STATUSES) or "played"
    outcome = r.choice(g.get("outcome"), f"{path}.outcome", OUTCOMES, required=False)
    if status in ("played", "technical") and outcome is None and g.get("outcome") is None:
        r.fail(f"{path}.outcome", _NEEDS_OUTCOME[status])
    if status not in ("played", "technical") and outcome is not None:
        r.fail(f"{path}.outcome", _NO_OUTCOME[status])
    group = g.get("group")
    if isinstance(group, int) and not isinstance(group, bool):
        group = str(group)
    group = r.string(group, f"{path}.group", required=False, limit=MAX_GROUP_NAME)
    seats: list[Seat] = []
    seen_players: set[str] = set()
    raw_seats = r.lst(g.get("seats"), f"{path}.seats", MAX_SEATS)  # FL-8, FL-9: 21 players a game
    if raw_seats and status not in ("played", "technical"):
        r.fail(f"{path}.seats", _NO_SEATS[status])
    game_days = r.integer(g.get("game_days"), f"{path}.game_days", minimum=0, maximum=MAX_GAME_DAYS)
    for i, s in enumerate(raw_seats):
        seat = _plain_seat(s, game_days, r.plain_names)
        if seat is not None and seat.player not in seen_players:
            seen_players.add(seat.player)
            seats.append(seat)
            r.clean_seats += 1
            continue
        spath = f"{path}.seats[{i}]"
        sd = r.obj(s, spath, SEAT_KEYS, {"player", "team", "role"})
        if sd is None:
            continue
        player = r.string(sd.get("player"), f"{spath}.player")
        team = r.string(sd.get("team"), f"{spath}.team")
        role = r.choice(sd.get("role"), f"{spath}.role", ROLES)
        stats = r.integer(sd.get("stats"), f"{spath}.stats", minimum=0)
        days_played = r.integer(sd.get("days_played"), f"{spath}.days_played", minimum=0, maximum=MAX_GAME_DAYS)
        kills = r.integer(sd.get("maniac_kills"), f"{spath}.maniac_kills", minimum=0, maximum=MAX_SEATS - 1) or 0
        if player is None or team is None or role is None:
            continue
        if player in seen_players:
            r.fail(f"{spath}.player", _("%(player)s already has a seat in this game", player=player))
            continue
        seen_players.add(player)
        if kills and role != "maniac":
            r.fail(f"{spath}.maniac_kills", _("%(player)s has kills but is not the maniac", player=player))
        if days_played is not None and game_days is not None and days_played > game_days:
            r.fail(f"{spath}.days_played", _("%(value)s is greater than the game's game_days %(game_days)s",
                                               value=days_played, game_days=game_days))
        seats.append(Seat(
            player=player, team=team, role=role, stats=stats,
            timed_out=r.boolean(sd.get("timed_out"), f"{spath}.timed_out"),
            days_played=days_played, maniac_kills=kills,
            in_final_phase=r.boolean(sd.get("in_final_phase"), f"{spath}.in_final_phase"),
            fake_passport=r.boolean(sd.get("fake_passport"), f"{spath}.fake_passport"),
        ))
    no_show: list[tuple[str, str]] = []
    raw_ns = r.mapping(g.get("no_show_eliminated"), f"{path}.no_show_eliminated", _("team: player"), MAX_TEAMS)
    for team, player in raw_ns.items():
        p = r.string(player, f"{path}.no_show_eliminated.{team}")
        if p is not None:
            no_show.append((team, p))
    recorded_at = r.datetime(g.get("result_recorded_at"), f"{path}.result_recorded_at")
    if recorded_at is not None and status == "scheduled":
        r.fail(f"{path}.result_recorded_at", _("a scheduled game has no result yet"))
    if number is None:
        return None
    return Game(
        result_recorded_at=recorded_at,
        number=number, status=status, outcome=outcome, group=group,
        round=r.integer(g.get("round"), f"{path}.round", minimum=1, maximum=MAX_GAMES),
        scheduled_at=r.datetime(g.get("scheduled_at"), f"{path}.scheduled_at"),
        omon=r.boolean(g.get("omon"), f"{path}.omon"),
        game_days=game_days,
        link=r.link(g.get("link"), f"{path}.link"),
        absent_teams=r.names(g.get("absent_teams"), f"{path}.absent_teams"),
        no_show_eliminated=tuple(no_show),
        seats=tuple(seats),
    )


_ROLE_SET = frozenset(ROLES)


def _plain_seat(s: Any, game_days: int | None, names: set[str]) -> Seat | None:
    """The seat, when it is plainly valid: known keys only, each value of its type and within its bounds, kills only
    for the maniac, days within the game's, names of storable text (``text_problems``). Else None, and
    ``parse_game`` reads it value by value, naming each problem. Only a speed-up: it accepts nothing the full
    reading would refuse (a 10,000-game league has 150,000 seats, and a few hundred names: ``names`` holds those
    already found storable, so each is checked once)."""
    if type(s) is not dict or not s.keys() <= SEAT_KEYS:
        return None
    get = s.get
    player, team, role = get("player"), get("team"), get("role")
    if (type(player) is not str or type(team) is not str or type(role) is not str or role not in _ROLE_SET
            or (player not in names and not _storable_name(player, names))
            or (team not in names and not _storable_name(team, names))):
        return None
    stats, days, kills = get("stats"), get("days_played"), get("maniac_kills")
    if not (stats is None or (type(stats) is int and 0 <= stats <= MAX_INT)):
        return None
    if days is not None and (type(days) is not int or not 0 <= days <= MAX_GAME_DAYS
                             or (game_days is not None and days > game_days)):
        return None
    if kills is None:
        kills = 0
    elif type(kills) is not int or not 0 <= kills <= MAX_SEATS - 1 or (kills and role != "maniac"):
        return None
    timed_out, final, fake = get("timed_out"), get("in_final_phase"), get("fake_passport")
    if not (_flag(timed_out) and _flag(final) and _flag(fake)):
        return None
    return make_seat(player, team, role, stats, timed_out is True, days, kills, final is True, fake is True)


def _storable_name(name: str, names: set[str]) -> bool:
    """Whether a seat's player or team name is plainly valid (not blank, within its length, storable text); a valid
    one joins ``names``."""
    if (len(name) > MAX_NAME or not name.strip() or "\x00" in name
            or (not name.isascii() and _bad_text(name))):
        return False
    names.add(name)
    return True


def _flag(value: Any) -> bool:
    """None, true or false, by identity (``0 == False``, and 0 is not a boolean)."""
    return value is None or value is True or value is False


def parse_tour(r: Reader, raw: Any, path: str) -> Tour | None:
    t = r.obj(raw, path, TOUR_KEYS, {"number"})
    if t is None:
        return None
    number = r.integer(t.get("number"), f"{path}.number", required=True, minimum=1)
    questions = r.integer(t.get("questions"), f"{path}.questions", minimum=1, maximum=MAX_QUESTIONS)  # CHGK-8
    if t.get("questions") is not None and questions is None:
        return None
    masks_raw = r.mapping(t.get("masks") or None, f"{path}.masks", _("team: mask"), MAX_TEAMS)
    masks: list[tuple[str, str]] = []
    for team, mask in masks_raw.items():
        mpath = f"{path}.masks.{team}"
        if not isinstance(mask, str):
            r.fail(mpath, _("must be a string of 1, 0, X and ?"))
            continue
        if len(mask) > MAX_QUESTIONS:
            r.fail(mpath, _("%(count)s marks; a tour has at most %(limit)s questions", count=len(mask),
                              limit=MAX_QUESTIONS))
            continue
        bad = next((i for i, c in enumerate(mask) if c not in MASK_CHARS), None)
        if bad is not None:
            r.fail(mpath, _("%(team)s: question %(question)s has %(mark)s; a mask holds only 1, 0, X and ?", team=team,
                              question=bad + 1, mark=repr(mask[bad])))
            continue
        masks.append((team, mask))
    if questions is None:
        questions = len(masks[0][1]) if masks else None
    if questions is None:
        r.fail(f"{path}.questions", _("is required when no mask gives the count"))
        return None
    for team, mask in masks:
        if len(mask) != questions:
            r.fail(f"{path}.masks.{team}", _("%(team)s: the mask has %(count)s marks for %(questions)s questions",
                                               team=team, count=len(mask), questions=questions))
    for q in range(questions):
        removed = [mask[q] == "X" for _team, mask in masks if len(mask) == questions]
        if any(removed) and not all(removed):
            r.fail(f"{path}.masks", _("question %(question)s is X in some masks only; a removed question is X in "
                                      "every mask", question=q + 1))
    if number is None:
        return None
    return Tour(number=number, host=r.string(t.get("host"), f"{path}.host", required=False),
                questions=questions, played_on=r.date(t.get("played_on"), f"{path}.played_on"),
                masks=tuple(masks), absent=r.names(t.get("absent"), f"{path}.absent"))


def parse_penalty(r: Reader, raw: Any, path: str) -> Penalty | None:
    p = r.obj(raw, path, PENALTY_KEYS, {"kind", "points"})
    if p is None:
        return None
    points = r.decimal(p.get("points"), f"{path}.points", required=True)
    if points is not None and points <= 0:
        r.fail(f"{path}.points", _("penalty points are positive (they are deducted)"))
    kind = r.string(p.get("kind"), f"{path}.kind", limit=MAX_PENALTY_KIND)
    if kind in ("no_show", "ineligible_player", "two_players", "foreign_player"):
        r.fail(f"{path}.kind", _("%(kind)s is detected by the portal from the seats (FL-15); do not import it",
                                   kind=kind))
    if points is None or kind is None:
        return None
    return Penalty(stage=r.string(p.get("stage"), f"{path}.stage", required=False),
                   team=r.string(p.get("team"), f"{path}.team", required=False),
                   kind=kind, points=points,
                   game=r.integer(p.get("game"), f"{path}.game", minimum=1),
                   player=r.string(p.get("player"), f"{path}.player", required=False),
                   code=r.string(p.get("code"), f"{path}.code", required=False, limit=MAX_PENALTY_CODE),
                   decided_at=r.datetime(p.get("decided_at"), f"{path}.decided_at"),
                   text=r.string(p.get("text"), f"{path}.text", required=False, allow_empty=True,
                                 limit=MAX_TEXT) or "",
                   published_at=r.datetime(p.get("published_at"), f"{path}.published_at"))


def parse_decision(r: Reader, raw: Any, path: str, index: int) -> Decision | None:
    d = r.obj(raw, path, DECISION_KEYS, {"kind"})
    if d is None:
        return None
    kind = r.choice(d.get("kind"), f"{path}.kind", DECISION_KINDS)
    outcome = r.choice(d.get("outcome"), f"{path}.outcome", OUTCOMES, required=kind == "technical_result")
    if kind in ("technical_result", "replay") and d.get("game") is None:
        r.fail(f"{path}.game", _NAMES_ITS_GAME[kind])
    if kind == "disqualification" and d.get("team") is None and d.get("player") is None:
        r.fail(path, _("a disqualification names a team or a player"))
    if kind == "tie_break" and not d.get("order"):
        r.fail(f"{path}.order", _("a tie_break decision gives the order of the tied rows"))
    if kind == "qualify" and d.get("player") is None:
        r.fail(f"{path}.player", _("a qualify decision names the player"))
    decided_at = r.datetime(d.get("decided_at"), f"{path}.decided_at")
    published_at = r.datetime(d.get("published_at"), f"{path}.published_at") or decided_at
    if kind is None:
        return None
    return Decision(index=index, kind=kind,
                    stage=r.string(d.get("stage"), f"{path}.stage", required=False),
                    game=r.integer(d.get("game"), f"{path}.game", minimum=1),
                    code=r.string(d.get("code"), f"{path}.code", required=False, limit=MAX_DECISION_CODE),
                    outcome=outcome,
                    team=r.string(d.get("team"), f"{path}.team", required=False),
                    player=r.string(d.get("player"), f"{path}.player", required=False),
                    order=r.names(d.get("order"), f"{path}.order", MAX_ORDER),
                    reason=r.string(d.get("reason"), f"{path}.reason", required=False, allow_empty=True,
                                    limit=MAX_TEXT),
                    decided_at=decided_at, published_at=published_at,
                    by=r.string(d.get("by"), f"{path}.by", required=False, limit=MAX_SIGNATURE),
                    text=r.string(d.get("text"), f"{path}.text", required=False, allow_empty=True,
                                  limit=MAX_TEXT) or "")


def _parse_appeal(r: Reader, raw: Any, path: str, key: str) -> Appeal | None:
    a = r.obj(raw, path, APPEAL_KEYS, {"kind", "filed_at"})
    if a is None:
        return None
    if key == "chgk_tour_points":
        kinds: tuple[str, ...] = ("removal", "accept_answer")
    elif rulesets.get(key).appeal_policy.penalty_deadline is not None:
        kinds = ("decision", "penalty")  # FL-19: a judge's penalty is appealable like any decision (roles.md)
    else:
        kinds = ("decision",)
    kind = r.choice(a.get("kind"), f"{path}.kind", kinds)
    verdict = r.choice(a.get("verdict"), f"{path}.verdict", VERDICTS, required=False)
    filed_at = r.datetime(a.get("filed_at"), f"{path}.filed_at", required=True)
    credited = r.names(a.get("credited_teams"), f"{path}.credited_teams")
    if kind == "accept_answer" and verdict == "accepted" and not credited:
        r.fail(f"{path}.credited_teams", _("an accepted answer names the teams to credit (CHGK-22)"))
    if kind in ("removal", "accept_answer"):
        for needed in ("tour", "question", "team"):
            if a.get(needed) is None:
                r.fail(f"{path}.{needed}", _("is required for a ChGK appeal (CHGK-20)"))
    if kind == "decision" and a.get("decision") is None:
        r.fail(f"{path}.decision", _("a Mafia appeal names the decision it is against (its 1-based index)"))
    if kind == "penalty" and a.get("penalty") is None:
        r.fail(f"{path}.penalty", _("a penalty appeal names the penalty it is against (its 1-based index in "
                                    "penalties, FL-19)"))
    if kind is not None and kind != "penalty" and a.get("penalty") is not None:
        r.fail(f"{path}.penalty", _("only a penalty appeal (kind penalty) names a penalty (FL-19)"))
    if kind == "penalty" and a.get("decision") is not None:
        r.fail(f"{path}.decision", _("a penalty appeal names its penalty, not a decision (FL-19)"))
    decision = r.integer(a.get("decision"), f"{path}.decision", minimum=1, maximum=MAX_ITEMS)
    penalty = r.integer(a.get("penalty"), f"{path}.penalty", minimum=1, maximum=MAX_ITEMS)
    replacement: Decision | Penalty | None = None
    if verdict == "partly" and kind not in ("decision", "penalty"):
        r.fail(f"{path}.verdict", _("partly is a verdict on a Mafia decision only"))
    elif verdict == "partly" and a.get("replacement") is None and kind == "penalty":
        r.fail(f"{path}.replacement", _("a partly upheld appeal against a penalty records the changed penalty that "
                                        "replaces the appealed one (FL-19)"))
    elif verdict == "partly" and a.get("replacement") is None:
        r.fail(f"{path}.replacement", _("a partly upheld appeal records the changed decision that replaces the "
                                        "appealed one (FL-19)"))
    elif verdict == "partly" and kind == "penalty":
        replacement = parse_penalty(r, a.get("replacement"), f"{path}.replacement")
    elif verdict == "partly":
        replacement = parse_decision(r, a.get("replacement"), f"{path}.replacement", decision or 0)
    elif a.get("replacement") is not None:
        r.fail(f"{path}.replacement", _("only a partly upheld appeal carries a replacement"))
    decided_at = r.datetime(a.get("decided_at"), f"{path}.decided_at")
    if decided_at is not None and verdict is None:
        r.fail(f"{path}.decided_at", _("a pending appeal has no verdict time"))
    if kind is None or filed_at is None:
        return None
    return Appeal(kind=kind, filed_at=filed_at,
                  stage=r.string(a.get("stage"), f"{path}.stage", required=False),
                  tour=r.integer(a.get("tour"), f"{path}.tour", minimum=1),
                  question=r.integer(a.get("question"), f"{path}.question", minimum=1, maximum=MAX_QUESTIONS),
                  team=r.string(a.get("team"), f"{path}.team", required=False),
                  answer=r.string(a.get("answer"), f"{path}.answer", required=False, allow_empty=True,
                                  limit=MAX_TEXT),
                  verdict=verdict, credited_teams=credited, decision=decision,
                  appellant=r.string(a.get("appellant"), f"{path}.appellant", required=False, limit=MAX_SIGNATURE),
                  replacement=replacement, decided_at=decided_at, penalty=penalty)


def _parse_withdrawal(r: Reader, raw: Any, path: str) -> Withdrawal | None:
    w = r.obj(raw, path, WITHDRAWAL_KEYS, {"team", "at"})
    if w is None:
        return None
    team = r.string(w.get("team"), f"{path}.team")
    at = r.datetime(w.get("at"), f"{path}.at", required=True)
    if team is None or at is None:
        return None
    return Withdrawal(team=team, at=at)


def _check_one_roster(r: Reader, path: str, name: str, members: tuple[str, ...], team_of: dict[str, str]) -> None:
    """A player is on one team's roster of the tournament (interchange: top-level ``teams``).

    A ChGK legionnaire who helps another team in one tour is recorded in that tour's line-up (CHGK-4), not on a
    second roster; a family league player plays for their own family (FL-1, FL-3); a class_balanced player for
    one of the 14 teams (CB-1). elimination_gp draws new teams for every stage, where GP-8 (one team a stage) is
    the ruleset's own check.
    """
    for pi, nick in enumerate(members):
        other = team_of.setdefault(nick, name)
        if other != name:
            r.fail(f"{path}.players[{pi}]",
                   _("%(player)s is already on the roster of %(team)s; a player is on one team's roster of a "
                     "tournament (a ChGK legionnaire is recorded in a tour's line-up, CHGK-4)", player=nick,
                     team=other))


def _complete_players(r: Reader, players: list[Player], teams: list[Team]) -> list[Player]:
    known = {p.nick for p in players}
    out = list(players)
    for team in teams:
        for nick in team.players:
            if nick not in known:
                known.add(nick)
                out.append(Player(nick=nick, family=team.family))
    return out


def _complete_families(families: list[Family], players: list[Player], teams: list[Team]) -> list[Family]:
    known = {f.name for f in families}
    out = list(families)
    for name in [t.family for t in teams] + [p.family for p in players]:
        if name and name not in known:
            known.add(name)
            out.append(Family(name=name))
    return out


def _unknown_team(name: str) -> str:
    return _("unknown team %(team)s", team=repr(name))


def _unknown_player(name: str) -> str:
    return _("unknown player %(player)s", player=repr(name))


def check_references(facts: TournamentFacts) -> list[Problem]:
    """Every name a document uses must be defined (interchange: names are the keys)."""
    problems: list[Problem] = []
    players = {p.nick for p in facts.players}
    families = {f.name for f in facts.families}
    top_teams = {t.name for t in facts.teams}
    for i, f in enumerate(facts.families):
        if f.head is not None and f.head not in players:
            problems.append(Problem(f"families[{i}].head", _unknown_player(f.head)))
    stage_index = {s.key: i for i, s in enumerate(facts.stages)}
    for si, stage in enumerate(facts.stages):
        path = f"stages[{si}]"
        teams = top_teams | {t.name for t in stage.teams}
        group_names = {g.name for g in stage.groups}
        for gi, group in enumerate(stage.groups):
            for ti, team in enumerate(group.teams):
                if team not in teams:
                    problems.append(Problem(f"{path}.groups[{gi}].teams[{ti}]", _unknown_team(team)))
        for gi, game in enumerate(stage.games):
            gpath = f"{path}.games[{gi}]"
            if game.group is not None and stage.groups and game.group not in group_names:
                problems.append(Problem(f"{gpath}.group", _("unknown group %(group)s", group=repr(game.group))))
            for ti, team in enumerate(game.absent_teams):
                if team not in teams:
                    problems.append(Problem(f"{gpath}.absent_teams[{ti}]", _unknown_team(team)))
            for team, player in game.no_show_eliminated:
                if team not in teams:
                    problems.append(Problem(f"{gpath}.no_show_eliminated.{team}", _unknown_team(team)))
                elif player not in players:
                    problems.append(Problem(f"{gpath}.no_show_eliminated.{team}", _unknown_player(player)))
            for pi, seat in enumerate(game.seats):
                if seat.team not in teams:
                    problems.append(Problem(f"{gpath}.seats[{pi}].team", _unknown_team(seat.team)))
                if seat.player not in players:
                    problems.append(Problem(f"{gpath}.seats[{pi}].player", _unknown_player(seat.player)))
        for ti, tour in enumerate(stage.tours):
            tpath = f"{path}.tours[{ti}]"
            if tour.host is not None and tour.host not in teams:
                problems.append(Problem(f"{tpath}.host", _unknown_team(tour.host)))
            for team, _mask in tour.masks:
                if team not in teams:
                    problems.append(Problem(f"{tpath}.masks.{team}", _unknown_team(team)))
                elif team == tour.host:
                    problems.append(Problem(f"{tpath}.masks.{team}", _("the host has no mask (CHGK-7)")))
                elif team in tour.absent:
                    problems.append(Problem(f"{tpath}.masks.{team}", _("an absent team has no mask")))
            for ai, team in enumerate(tour.absent):
                if team not in teams:
                    problems.append(Problem(f"{tpath}.absent[{ai}]", _unknown_team(team)))
    all_teams = top_teams | {t.name for s in facts.stages for t in s.teams}
    for i, p in enumerate(facts.players):
        if p.family is not None and p.family not in families:
            problems.append(Problem(f"players[{i}].family", _("unknown family %(family)s", family=repr(p.family))))

    def check_stage_ref(path: str, key: str | None) -> Stage | None:
        if key is None:
            return None
        if key not in stage_index:
            problems.append(Problem(f"{path}.stage", _("unknown stage %(value)s", value=repr(key))))
            return None
        return facts.stages[stage_index[key]]

    for i, pen in enumerate(facts.penalties):
        path = f"penalties[{i}]"
        stage = check_stage_ref(path, pen.stage)
        if pen.team is not None and pen.team not in all_teams:
            problems.append(Problem(f"{path}.team", _unknown_team(pen.team)))
        if pen.player is not None and pen.player not in players:
            problems.append(Problem(f"{path}.player", _unknown_player(pen.player)))
        if stage is not None and pen.game is not None and stage.game(pen.game) is None:
            problems.append(Problem(f"{path}.game", _("stage %(stage)s has no game %(number)s", stage=stage.key,
                                                          number=pen.game)))
    for i, dec in enumerate(facts.decisions):
        path = f"decisions[{i}]"
        stage = check_stage_ref(path, dec.stage)
        if dec.game is not None and stage is None and dec.stage is None:
            problems.append(Problem(f"{path}.stage", _("a decision about a game names its stage")))
        if stage is not None and dec.game is not None and stage.game(dec.game) is None:
            problems.append(Problem(f"{path}.game", _("stage %(stage)s has no game %(number)s", stage=stage.key,
                                                          number=dec.game)))
        if dec.team is not None and dec.team not in all_teams:
            problems.append(Problem(f"{path}.team", _unknown_team(dec.team)))
        if dec.player is not None and dec.player not in players:
            problems.append(Problem(f"{path}.player", _unknown_player(dec.player)))
        for oi, name in enumerate(dec.order):
            if name not in all_teams and name not in players:
                problems.append(Problem(f"{path}.order[{oi}]", _("unknown team or player %(name)s", name=repr(name))))
    for i, ap in enumerate(facts.appeals):
        path = f"appeals[{i}]"
        stage = check_stage_ref(path, ap.stage)
        if ap.team is not None and ap.team not in all_teams:
            problems.append(Problem(f"{path}.team", _unknown_team(ap.team)))
        for ci, team in enumerate(ap.credited_teams):
            if team not in all_teams:
                problems.append(Problem(f"{path}.credited_teams[{ci}]", _unknown_team(team)))
        if ap.kind in ("removal", "accept_answer") and ap.tour is not None:
            stage = stage or (facts.stages[0] if facts.stages else None)
            tour = next((t for t in stage.tours if t.number == ap.tour), None) if stage else None
            if tour is None:
                problems.append(Problem(f"{path}.tour", _("unknown tour %(tour)s", tour=ap.tour)))
            elif ap.question is not None and ap.question > tour.questions:
                problems.append(Problem(f"{path}.question", _("tour %(tour)s has %(questions)s questions", tour=ap.tour,
                                                                  questions=tour.questions)))
        if ap.kind == "decision" and ap.decision is not None and ap.decision > len(facts.decisions):
            problems.append(Problem(f"{path}.decision", _("there is no decision %(number)s", number=ap.decision)))
        if ap.kind == "penalty" and ap.penalty is not None and ap.penalty > len(facts.penalties):
            problems.append(Problem(f"{path}.penalty", _("there is no penalty %(number)s", number=ap.penalty)))
    for i, w in enumerate(facts.withdrawals):
        if w.team not in all_teams:
            problems.append(Problem(f"withdrawals[{i}].team", _unknown_team(w.team)))
    return problems


def export_standings(facts: TournamentFacts, standings: Standings) -> dict[str, Any]:
    """The export document ``tournament-portal/standings/1`` for computed standings."""
    teams = []
    for row in standings.teams:
        item: dict[str, Any] = {"rank": row.rank, "team": row.team, "points": round2(row.points),
                                "status": row.status,
                                "tiebreaks": {k: _number(v) for k, v in row.tiebreaks.items()}}
        if row.group is not None:
            item["group"] = row.group
        teams.append(item)
    out: dict[str, Any] = {
        "format": EXPORT_FORMAT,
        "tournament": facts.slug,
        "ruleset": facts.ruleset,
        "stage": standings.stage,
        "final": standings.final,
        "teams": teams,
    }
    if standings.players is not None:
        out["players"] = [{"rank": p.rank, "player": p.player, "team": p.team, "points": round2(p.points),
                           "games": p.games, "status": p.status} for p in standings.players]
    if standings.awards is not None:
        out["awards"] = [{"place": a.place, "team": a.team, "player": a.player, "prize": a.prize,
                          "currency": a.currency, "items": list(a.items)} for a in standings.awards]
    out["seed"] = standings.seed
    if standings.best_player is not None:
        out["best_player"] = list(standings.best_player)
    return out


def _number(value: Any) -> int | float:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    return round2(value)
