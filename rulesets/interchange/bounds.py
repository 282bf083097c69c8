"""Bounds checked before a document is read: storable text (no NUL, no lone surrogate), the nesting of a
document the JSON decoder gave up on, and the size of ``tournament.settings``."""

from __future__ import annotations

import json
import math
import re
from typing import Any

from rulesets.base import Problem
from rulesets.interchange.limits import (
    MAX_DOCUMENT_DEPTH,
    MAX_SETTINGS_DEPTH,
    MAX_SETTINGS_NUMBER,
    MAX_SETTINGS_TEXT,
    MAX_SETTINGS_VALUES,
    MAX_TEXT_PROBLEMS,
    SETTING_LIMITS,
)
from rulesets.interchange.reader import _bad_text, _join, _shown, safe_text
from rulesets.messages import text as _


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
