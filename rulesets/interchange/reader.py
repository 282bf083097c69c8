"""The typed reader: ``Reader`` reads each value at its JSON path and collects a ``Problem`` for each one the
format refuses; and the small text helpers every part of the parser shares (paths, shown values, storable text,
web links)."""

from __future__ import annotations

import datetime as dt
import re
from decimal import Decimal, InvalidOperation
from typing import Any

from rulesets.base import Problem
from rulesets.interchange.limits import (
    MAX_DECIMAL_LENGTH,
    MAX_INT,
    MAX_LINK,
    MAX_MOMENT_LENGTH,
    MAX_NAME,
    MAX_TEAMS,
    MAX_YEAR,
    MIN_YEAR,
    PENALTY_BELOW,
    PENALTY_PLACES,
)
from rulesets.messages import Text
from rulesets.messages import text as _


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
