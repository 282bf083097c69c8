"""Seeded fuzzing of the imports: mutators and the checks every way in shares.

The mutators take what the organizers really send (the spec examples, the rating site's JSON, the
mafiaonline.ru logs and the text files of ``tests/data/real``) and spoil it: for a JSON document a value of
another type, a key dropped or added, a huge or a non-finite number (``1e400``, ``NaN``, ``Infinity`` written
into the raw text, which ``json.dumps`` would not write), a NUL, 5,000 levels of nesting, a top level that is
not an object, another encoding or a cut; for a text file another encoding (cp1251, UTF-16, bytes that are not
UTF-8), a NUL, a cut, a line repeated 10,000 times, lines dropped, doubled or mangled. Every case is made by its
own ``random.Random`` seeded with the seed, the surface and the case's number, so one case is replayed alone.

``Runner`` sends a case through one surface and checks what the issue asks: no 500, no traceback, an API
refusal as ``{"errors": [...]}``, a page refusal as the site's styled page, a command refusal as
``CommandError``, and a refused input leaves every table as it was.
"""

from __future__ import annotations

import copy
import io
import json
import os
import random
import time
import traceback
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.apps import apps
from django.core.management import CommandError, call_command
from django.db import transaction

BOOKKEEPING = {"sessions.Session", "admin.LogEntry"}
ACCEPTED, REFUSED = "accepted", "refused"
DEFAULT_SEED = 4806
MARK = "\ue000fuzz\ue000"  # a string no input holds: replaced in the raw text by a literal json.dumps cannot write
MAX_FAILURES_SHOWN = 20

HOSTILE: list[Any] = [
    None, True, False, 0, -1, -(2**31) - 1, 2**31, 2**63, 18446744073709551617, 10**40, 5_000_000, 1.5, -0.0,
    "", " ", "x" * 101, "y" * 5_000, "L\ud800ynx", "\udfff", "a\x00b", "\x00", "=HYPERLINK(\"http://e.example\")",
    "+1", "@SUM(A1)", "9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59", "2014-09-01T19:00:00",
    "2014-13-45", "9999-12-31", "0001-01-01", "1e999999", "NaN", "-5", "0.0001", "123456.5", [], {}, [[[[[[]]]]]],
    {"nested": {"deeper": {"deepest": [1, [2, [3]]]}}}, ["a", "a"], [None], "mafia", "played", "draw", "X",
    "10?X", "1" * 101, "Europe/Nowhere", "../../etc/passwd", "Ωмега", "😀" * 30,
]
RAW_LITERALS = ["1e400", "-1e400", "NaN", "Infinity", "-Infinity", "9" * 5_000, "-" + "9" * 400, "1e-400",
                "123456789012345678901234567890", "0.1e99999"]
WORDS = ["", "x" * 101, "y" * 3_000, "=cmd|' /C calc'!A0", "Ωмега", "😀" * 30, "\u202eevil", "<script>x</script>",
         "NaN", "1e400", "-1", "0", "9" * 40, "2147483648", "\t", " ", ":", ",", ";", "\"", "'", "\\", "\ufeff"]
BAD_UTF8 = [b"\xff", b"\xc3\x28", b"\xa0\xa1", b"\xed\xa0\x80", b"\xf0\x28\x8c\x28", b"\xc0\xaf", b"\x80"]
REPEATED = 10_000
REPEAT_BUDGET = 2_000_000  # a line repeated 10,000 times stays well under the 5 MB upload limit


def table_counts() -> dict[str, int]:
    """The number of rows of every table but Django's bookkeeping: a refused input leaves them all as they were."""
    return {m._meta.label: m.objects.count() for m in apps.get_models()
            if m._meta.label not in BOOKKEEPING and not m._meta.app_label.startswith("axes")}


def slots(node: Any) -> list[tuple[Any, Any]]:
    """Every (container, key or index) of the document, the root's own keys included."""
    out: list[tuple[Any, Any]] = []
    stack = [node]
    while stack:
        item = stack.pop()
        pairs = item.items() if isinstance(item, dict) else enumerate(item) if isinstance(item, list) else ()
        for key, value in pairs:
            out.append((item, key))
            if isinstance(value, (dict, list)):
                stack.append(value)
    return out


def strings_of(node: Any) -> list[str]:
    return [c[k] for c, k in slots(node) if isinstance(c[k], str)]


def mutate(document: dict, rng: random.Random) -> dict:
    """One to three mutations of a copy of ``document`` (hostile values, keys, duplicates)."""
    doc = copy.deepcopy(document)
    for _ in range(rng.randint(1, 3)):
        places = slots(doc)
        container, key = rng.choice(places)
        kind = rng.random()
        if kind < 0.45:
            container[key] = copy.deepcopy(rng.choice(HOSTILE))
        elif kind < 0.55 and isinstance(container, dict):
            del container[key]
        elif kind < 0.62 and isinstance(container, dict):
            container[rng.choice(["colour", "seats", "head", "questions", "L\ud800"])] = rng.choice(HOSTILE[:12])
        elif kind < 0.72 and isinstance(container, list) and container:
            container.append(copy.deepcopy(rng.choice(container)))  # a duplicated element
        elif kind < 0.82:
            names = strings_of(doc)
            container[key] = rng.choice(names) if names else None  # a name moved to another place
        elif kind < 0.9 and isinstance(container[key], int) and not isinstance(container[key], bool):
            container[key] = rng.choice([container[key] * 10**9, -container[key], 2**31 + container[key]])
        else:
            team_lists = [c[k] for c, k in places if k == "players" and isinstance(c[k], list) and c[k]]
            if len(team_lists) > 1:  # one player on two rosters
                first, second = rng.sample(team_lists, 2)
                second.append(rng.choice(first))
            else:
                container[key] = copy.deepcopy(rng.choice(HOSTILE))
    return doc


# --- cases ------------------------------------------------------------------------------------------------


def seed() -> int:
    """The run's seed: ``FUZZ_SEED`` (``scripts/fuzz_imports --seed``), else the suite's fixed one."""
    return int(os.environ.get("FUZZ_SEED") or DEFAULT_SEED)


def case_rng(surface: str, number: int, run_seed: int | None = None) -> random.Random:
    """The random source of one case: the same seed, surface and number make the same case."""
    return random.Random(f"{seed() if run_seed is None else run_seed}/{surface}/{number}")


@dataclass(frozen=True)
class Case:
    """One mutated input: its number, what it was made from and how, and its bytes."""

    surface: str
    number: int
    source: str
    mutation: str
    raw: bytes

    def text(self) -> str:
        """The bytes as the text a form or a JSON field would carry them (bad UTF-8 replaced)."""
        return self.raw.decode("utf-8", errors="replace")

    def label(self) -> str:
        return f"{self.surface} case {self.number} ({self.source}: {self.mutation}; seed {seed()})"


def _dumps(value: Any, rng: random.Random) -> str:
    try:
        text = json.dumps(value, ensure_ascii=rng.random() < 0.5)
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:  # a lone surrogate: only its escape is JSON text
        return json.dumps(value, ensure_ascii=True)


def _with_literal(document: Any, literal: str, rng: random.Random) -> str:
    """The JSON text of ``document`` with one value (or the whole) replaced by ``literal`` as written."""
    places = slots(document)
    if not places:
        return literal
    container, key = rng.choice(places)
    container[key] = MARK
    return _dumps(document, rng).replace(json.dumps(MARK), literal, 1).replace(json.dumps(MARK, ensure_ascii=False),
                                                                               literal, 1)


def deep_text(rng: random.Random, levels: int = 5_000) -> str:
    if rng.random() < 0.5:
        return "[" * levels + "]" * levels
    return '{"a":' * levels + "1" + "}" * levels


def _splice(raw: bytes, rng: random.Random, piece: bytes) -> bytes:
    at = rng.randint(0, len(raw))
    return raw[:at] + piece + raw[at:]


def json_case(surface: str, number: int, source: str, document: Any, rng: random.Random) -> Case:
    """One mutation of the JSON ``document`` (a decoded copy is spoilt; the original is left alone)."""
    doc = copy.deepcopy(document)
    kind = rng.choice(["hostile", "hostile", "type", "type", "drop", "add", "huge", "nonfinite", "nul", "deep",
                       "top", "encoding", "bad-utf8", "truncated", "raw-nul"])
    places = slots(doc)
    if kind == "hostile" and isinstance(doc, dict):
        return Case(surface, number, source, "hostile values (mutate)", _dumps(mutate(doc, rng), rng)
                    .encode("utf-8"))
    if kind in ("hostile", "type") and places:
        container, key = rng.choice(places)
        value = container[key]
        others = [v for v in HOSTILE if type(v) is not type(value)]
        container[key] = copy.deepcopy(rng.choice(others))
        return Case(surface, number, source, f"type swapped at {key!r}: {type(value).__name__} -> "
                    f"{type(container[key]).__name__}", _dumps(doc, rng).encode("utf-8"))
    if kind == "drop":
        dicts = [(c, k) for c, k in places if isinstance(c, dict)] or [(doc, k) for k in (
            doc if isinstance(doc, dict) else {})]
        if dicts:
            container, key = rng.choice(dicts)
            del container[key]
            return Case(surface, number, source, f"key {key!r} dropped", _dumps(doc, rng).encode("utf-8"))
    if kind == "add":
        dicts = [c[k] for c, k in places if isinstance(c[k], dict)] + ([doc] if isinstance(doc, dict) else [])
        if dicts:
            name = rng.choice(["colour", "seats", "format", "", "L\ud800", "a\x00", "x" * 200, "__proto__"])
            rng.choice(dicts)[name] = copy.deepcopy(rng.choice(HOSTILE))
            return Case(surface, number, source, f"key {name[:20]!r} added", _dumps(doc, rng).encode("utf-8"))
    if kind in ("huge", "nonfinite", "deep"):
        literal = (rng.choice(RAW_LITERALS[6:] + ["1" + "0" * 30, "-" + "9" * 4_400, str(2**64)])
                   if kind == "huge" else rng.choice(RAW_LITERALS[:6]) if kind == "nonfinite" else deep_text(rng))
        return Case(surface, number, source, f"{kind} literal {literal[:24]}…", _with_literal(doc, literal, rng)
                    .encode("utf-8"))
    if kind == "nul":
        strings = [(c, k) for c, k in places if isinstance(c[k], str)]
        if strings:
            container, key = rng.choice(strings)
            container[key] = container[key][: len(container[key]) // 2] + "\x00" + container[key][
                len(container[key]) // 2:]
            return Case(surface, number, source, f"NUL in the string at {key!r}", _dumps(doc, rng).encode("utf-8"))
    if kind == "top":
        top = rng.choice([[document], "a string", 42, None, True, [], 1e300, ""])
        raw = b"" if top == "" else json.dumps(top, ensure_ascii=True).encode("utf-8")
        return Case(surface, number, source, f"top level {type(top).__name__}", raw)
    text = json.dumps(doc, ensure_ascii=False)
    if kind == "encoding":
        encoding = rng.choice(["cp1251", "utf-16", "utf-16-le", "utf-32", "latin-1"])
        return Case(surface, number, source, f"encoded as {encoding}", text.encode(encoding, errors="replace"))
    raw = text.encode("utf-8", errors="surrogatepass")
    if kind == "bad-utf8":
        piece = rng.choice(BAD_UTF8)
        return Case(surface, number, source, f"bytes {piece!r} that are not UTF-8", _splice(raw, rng, piece))
    if kind == "raw-nul":
        return Case(surface, number, source, "a raw NUL byte", _splice(raw, rng, b"\x00"))
    cut = rng.randint(0, max(0, len(raw) - 1))
    return Case(surface, number, source, f"truncated at byte {cut} of {len(raw)}", raw[:cut])


def _mangle_line(line: str, rng: random.Random) -> tuple[str, str]:
    choice = rng.random()
    if choice < 0.3 and any(ch.isdigit() for ch in line):
        digits = [i for i, ch in enumerate(line) if ch.isdigit()]
        at = rng.choice(digits)
        end = at
        while end < len(line) and line[end].isdigit():
            end += 1
        number = rng.choice(["9" * 40, "-1", "0", "1e400", "NaN", "2147483648", "0x10", "١٢٣", "1,5", "½", ""])
        return line[:at] + number + line[end:], f"a number became {number[:12]!r}"
    if choice < 0.55 and line:
        separators = [i for i, ch in enumerate(line) if ch in ":,;=<>\""]
        if separators:
            at = rng.choice(separators)
            other = rng.choice(["", ":", ",", ";", "::", ",,", "\t", " "])
            return line[:at] + other + line[at + 1:], f"separator {line[at]!r} became {other!r}"
    words = line.split()
    word = rng.choice(WORDS)
    if words:
        at = rng.randrange(len(words))
        words[at] = word
        return " ".join(words), f"a word became {word[:12]!r}"
    return word, f"an empty line became {word[:12]!r}"


def text_case(surface: str, number: int, source: str, text: str, rng: random.Random) -> Case:
    """One mutation of the text file ``text``: an encoding, a NUL, a cut, lines repeated, dropped or mangled."""
    kind = rng.choice(["cp1251", "utf16", "bad-utf8", "nul", "truncated", "repeat", "drop-line", "double-line",
                       "mangle", "mangle", "mangle", "span", "blank", "endings", "bom"])
    lines = text.splitlines(keepends=True) or [""]
    raw = text.encode("utf-8")
    if kind == "cp1251":
        return Case(surface, number, source, "encoded as cp1251", text.encode("cp1251", errors="replace"))
    if kind == "utf16":
        encoding = rng.choice(["utf-16", "utf-16-le", "utf-32"])
        return Case(surface, number, source, f"encoded as {encoding}", text.encode(encoding))
    if kind == "bad-utf8":
        piece = rng.choice(BAD_UTF8)
        return Case(surface, number, source, f"bytes {piece!r} that are not UTF-8", _splice(raw, rng, piece))
    if kind == "nul":
        return Case(surface, number, source, "a NUL byte", _splice(raw, rng, b"\x00"))
    if kind == "truncated":
        cut = rng.randint(0, max(0, len(raw) - 1))
        return Case(surface, number, source, f"truncated at byte {cut} of {len(raw)}", raw[:cut])
    at = rng.randrange(len(lines))
    if kind == "repeat":
        line = lines[at]
        if len(line.encode("utf-8")) * REPEATED > REPEAT_BUDGET:
            line = line[: REPEAT_BUDGET // REPEATED - 1].rstrip("\n") + "\n"
        if not line.endswith("\n"):
            line += "\n"
        body = "".join(lines[:at]) + line * REPEATED + "".join(lines[at + 1:])
        return Case(surface, number, source, f"line {at + 1} repeated {REPEATED} times", body.encode("utf-8"))
    if kind == "drop-line":
        return Case(surface, number, source, f"line {at + 1} dropped",
                    "".join(lines[:at] + lines[at + 1:]).encode("utf-8"))
    if kind == "double-line":
        return Case(surface, number, source, f"line {at + 1} doubled",
                    "".join(lines[: at + 1] + lines[at:]).encode("utf-8"))
    if kind == "mangle":
        ending = "\n" if lines[at].endswith("\n") else ""
        mangled, how = _mangle_line(lines[at].rstrip("\r\n"), rng)
        return Case(surface, number, source, f"line {at + 1}: {how}",
                    "".join(lines[:at] + [mangled + ending] + lines[at + 1:]).encode("utf-8", errors="replace"))
    if kind == "span":
        start = rng.randrange(max(1, len(text)))
        end = min(len(text), start + rng.randint(1, 2_000))
        if rng.random() < 0.5:
            return Case(surface, number, source, f"characters {start}..{end} cut out",
                        (text[:start] + text[end:]).encode("utf-8"))
        return Case(surface, number, source, f"characters {start}..{end} doubled",
                    (text[:end] + text[start:end] + text[end:]).encode("utf-8"))
    if kind == "blank":
        body = rng.choice(["", " ", "\n\n\n", "\t\r\n", "\ufeff"])
        return Case(surface, number, source, f"the file is only {body!r}", body.encode("utf-8"))
    if kind == "endings":
        ending = rng.choice(["\r\n", "\r", "\u2028", "\x0b"])
        return Case(surface, number, source, f"lines end with {ending!r}",
                    ending.join(text.splitlines()).encode("utf-8"))
    return Case(surface, number, source, "a byte order mark", b"\xef\xbb\xbf" + raw)


# --- the checks -------------------------------------------------------------------------------------------


def forget_caches() -> None:
    """The per-process caches (the loader's facts of a tournament, the rendered standings) forgotten: a case rolled
    back leaves them holding what the next case's database no longer has (``tests/conftest.py`` does it per
    test)."""
    from portal import page_cache
    from portal.api.standings import local_cache
    from tournaments import game_cache

    game_cache.forget()
    local_cache.clear()
    page_cache.clear()


@dataclass
class Runner:
    """Sends cases through one surface, counting outcomes and collecting failures (all of them, not the first)."""

    surface: str
    outcomes: Counter = field(default_factory=Counter)
    failures: list[str] = field(default_factory=list)
    seconds: float = 0.0
    slowest: tuple[float, str] = (0.0, "")

    def run(self, case: Case, send: Callable[[Case], str], *, writes: bool = True, database: bool = True) -> None:
        """``send`` answers ``ACCEPTED`` or ``REFUSED`` (raising ``AssertionError`` when a check fails); the
        tables are compared when it refused or when ``writes`` is false (a dry run, a preview), and everything
        is rolled back for the next case. ``database=False``: a pure reader, no tables to look at."""
        started = time.monotonic()
        try:
            if not database:
                outcome = send(case)
            else:
                forget_caches()  # what an earlier case's rolled-back writes left in them
                before = table_counts()
                with transaction.atomic():
                    outcome = send(case)
                    if outcome == REFUSED or not writes:
                        after = table_counts()
                        changed = {k: (before[k], after[k]) for k in before if before[k] != after[k]}
                        assert not changed, f"{outcome} but the tables changed: {changed}"
                    transaction.set_rollback(True)
        except AssertionError as failure:
            self.failures.append(f"{case.label()}: {failure}")
            outcome = "failed"
        except Exception:  # a crash: the traceback is the report
            self.failures.append(f"{case.label()}: crashed\n{traceback.format_exc(limit=-8)}")
            outcome = "crashed"
        self.outcomes[outcome] += 1
        took = time.monotonic() - started
        self.seconds += took
        self.slowest = max(self.slowest, (took, case.label()))

    def check(self) -> None:
        shown = "\n\n".join(self.failures[:MAX_FAILURES_SHOWN])
        assert not self.failures, f"{len(self.failures)} of {sum(self.outcomes.values())} {self.surface} cases " \
                                  f"failed:\n{shown}"

    def summary(self) -> str:
        return f"{self.surface}: {sum(self.outcomes.values())} cases in {self.seconds:.1f} s, " + ", ".join(
            f"{k} {v}" for k, v in sorted(self.outcomes.items())) + (
            f"; slowest {self.slowest[0]:.1f} s: {self.slowest[1]}" if self.slowest[0] >= 1 else "")


def api_outcome(response, *, dry_run: bool = False) -> str:
    """An API answer: never 5xx; a 4xx is ``{"errors": [{"path", "message"}, ...]}``, not empty."""
    assert response.status_code < 500, (response.status_code, response.content[:500])
    body = response.json()
    if response.status_code >= 400:
        errors = body.get("errors") if isinstance(body, dict) else None
        assert isinstance(errors, list) and errors, (response.status_code, body)
        assert all(isinstance(e.get("path"), str) and isinstance(e.get("message"), str) and e["message"]
                   for e in errors), errors
        return REFUSED
    return REFUSED if dry_run else ACCEPTED


def page_outcome(response) -> str:
    """A page's answer: never 5xx, and the site's own styled page (its stylesheet, its header)."""
    assert response.status_code < 500, (response.status_code, response.content[:500])
    text = response.content.decode("utf-8")
    assert "css/portal.css" in text and "site-header" in text, (response.status_code, text[:500])
    assert "Traceback" not in text, text[:2000]
    return REFUSED if response.status_code >= 400 else ACCEPTED


def command_outcome(*args: str) -> str:
    """A management command: ``CommandError`` (or argparse's exit) is its refusal; nothing prints a traceback."""
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command(*args, stdout=out, stderr=err)
        outcome = ACCEPTED
    except (CommandError, SystemExit) as refused:
        str(refused).encode("utf-8")
        outcome = REFUSED
    for stream in (out.getvalue(), err.getvalue()):
        assert "Traceback" not in stream, stream[-2000:]
        stream.encode("utf-8")  # printable: no lone surrogate reaches the terminal
    return outcome

