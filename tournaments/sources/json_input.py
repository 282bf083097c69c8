"""JSON as every importer and every JSON endpoint of the API reads it.

``read_json(raw)`` decodes a request body, an uploaded file or a file named to a command, and refuses
(``rulesets.errors.Invalid``, one ``Problem`` with its JSON path each) what no reader of the portal takes:

- text that is not UTF-8, or not JSON (the decoder's own words: line and column);
- nesting deeper than ``MAX_DEPTH`` objects and lists (``rulesets.interchange.MAX_DOCUMENT_DEPTH``: the
  interchange format needs about 12), with the path where it goes too deep (``rulesets.interchange.nesting_path``
  when the decoder itself gave up), never a ``RecursionError``;
- a number that is not finite (``NaN``, ``Infinity``, ``1e400``), a NUL character or a lone surrogate in a
  string or a key: no column stores them.

What a value must be where it is (a string, a whole number in a range ...) is the typed reader's
(``rulesets.interchange.Reader``) to say, at the same paths. The messages are ``rulesets.messages.Text``: the
pages and the API show them in the reader's language.

The walk that measures the depth looks at objects and lists only (a league's 33 MB document: a third of the
decoding's time); strings and numbers are looked at only when the text holds an escaped NUL or surrogate or
the decoder met a number that is not finite.
"""

from __future__ import annotations

import json
import math
from typing import Any

from rulesets.errors import Invalid, Problem
from rulesets.interchange import MAX_DOCUMENT_DEPTH, MAX_TEXT_PROBLEMS, nesting_path, safe_text
from rulesets.messages import text as _
from tournaments.collector import gc_paused

MAX_DEPTH = MAX_DOCUMENT_DEPTH


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def too_deep_message() -> str:
    return _("nested too deeply: JSON nests at most %(limit)s objects and lists", limit=MAX_DEPTH)


def read_json(raw: bytes | str, *, root: str = "") -> Any:
    """The decoded value of ``raw`` (see the module's docstring); ``Invalid`` naming each problem's path.

    ``root``: the path of the value in what was sent, put before every path (``"results"``)."""
    if isinstance(raw, (bytes, bytearray, memoryview)):
        try:
            text = bytes(raw).decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise Invalid(Problem(root, _("not UTF-8 text: %(error)s", error=str(exc)))) from exc
    else:
        text = raw
    nonfinite: list[str] = []

    def constant(name: str) -> float:
        nonfinite.append(name)
        return float(name)

    def number(literal: str) -> float:
        value = float(literal)
        if not math.isfinite(value):
            nonfinite.append(literal)
        return value

    try:
        with gc_paused():
            value = json.loads(text, parse_constant=constant, parse_float=number)
    except RecursionError as exc:
        where = nesting_path(text, MAX_DEPTH) or ""
        raise Invalid(Problem(_join(root, where) if where else root, too_deep_message())) from exc
    except ValueError as exc:  # JSONDecodeError, an integer of more than 4,300 digits
        raise Invalid(Problem(root, _("the text is not JSON: %(error)s", error=safe_text(str(exc))))) from exc
    problems = value_problems(value, root, look_at_scalars=bool(nonfinite) or _suspect_text(text))
    if problems:
        raise Invalid(problems)
    return value


def _suspect_text(text: str) -> bool:
    """Whether the text escapes a NUL or a surrogate (a raw one is not valid JSON text): only then are the
    strings of the decoded value looked at."""
    return "\\u0000" in text or "\\ud" in text or "\\uD" in text


def value_problems(value: Any, root: str = "", *, look_at_scalars: bool = True) -> list[Problem]:
    """What ``read_json`` refuses in a decoded value: nesting deeper than ``MAX_DEPTH``, numbers that are not
    finite, NUL characters and lone surrogates (at most ``MAX_TEXT_PROBLEMS``), each at its path."""
    where = _too_deep(value)
    if where is not None:
        return [Problem(_join(root, where) if where else root, too_deep_message())]
    if not look_at_scalars:
        return []
    problems: list[Problem] = []
    stack: list[tuple[Any, str]] = [(value, root)]
    while stack and len(problems) < MAX_TEXT_PROBLEMS:
        item, path = stack.pop()
        kind = type(item)
        if kind is str:
            message = _bad_text(item, path)
            if message is not None:
                problems.append(Problem(path, message))
        elif kind is float:
            if not math.isfinite(item):
                problems.append(Problem(path, _("%(value)s is not a finite number", value=repr(item))))
        elif kind is dict:
            for key, inner in reversed(list(item.items())):
                inner_path = _join(path, safe_text(key))
                message = _bad_text(key, inner_path)
                if message is not None:
                    problems.append(Problem(inner_path, message))
                stack.append((inner, inner_path))
        elif kind is list:
            stack.extend((inner, f"{path}[{i}]") for i, inner in reversed(list(enumerate(item))))
    return problems


def _bad_text(text: str, path: str) -> str | None:
    if "\x00" in text:
        return _("%(path)s contains a NUL character", path=path or "the body")
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _("holds a lone surrogate (\\ud800..\\udfff), which is not valid Unicode text")
    return None


def _too_deep(value: Any) -> str | None:
    """The path of the first object or list nested deeper than ``MAX_DEPTH``, or None (objects and lists only)."""
    if type(value) is not dict and type(value) is not list:
        return None
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        inner = item.values() if type(item) is dict else item
        for child in inner:
            if type(child) is dict or type(child) is list:
                if depth >= MAX_DEPTH:
                    return _path_to(value, child)
                stack.append((child, depth + 1))
    return None


def _path_to(value: Any, target: Any) -> str:
    """The path of ``target`` (an object or a list inside ``value``), found again by identity."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, path = stack.pop()
        pairs = ((safe_text(k), v) for k, v in item.items()) if type(item) is dict else (
            (f"[{i}]", v) for i, v in enumerate(item))
        for key, child in pairs:
            if type(child) is not dict and type(child) is not list:
                continue
            child_path = f"{path}{key}" if key.startswith("[") and type(item) is list else _join(path, key)
            if child is target:
                return child_path
            stack.append((child, child_path))
    return ""
