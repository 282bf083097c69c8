"""A ChGK rating-site response read into teams, masks and controversials.

Pure: ``parse_rating_results(data)`` takes the decoded JSON of one of the
official site's responses (``tests/data/real/chgk/SOURCE.md``):

- v1 ``GET /api/tournaments/<id>/list``: a list of rows (``idteam``,
  ``current_name``, ``base_name``, ``position``, ``questions_total``, ``mask``,
  every value a string), or the same column-oriented as pandas writes it
  (``{"mask": {"0": ..., "1": ...}, "idteam": {...}, ...}``);
- v2 ``GET /tournaments/<id>/results?includeMasksAndControversials=1``: a list of
  ``{"team": {"id", "name"}, "current": {"name"}, "mask", "position",
  "controversials": [{"id", "questionNumber", "answer", "issuedAt", "status"}]}``
  (or the same list under ``hydra:member``);

and returns one entry per team (the site's team id, its names, the mask as the
game jury marked it before the appeals, the site's mask and ``position``) and the
controversials, plus the problems with their paths in the document.

Masks: one character per question, ``1`` answered, ``0`` not, ``X`` removed (kept:
the interchange's removed question, the same position in every mask), ``?``
disputed. A v2 controversial is an appeal against the jury's mark: ``A``
(accepted) answers show ``1`` in the site's mask and ``D`` (rejected) ``0``; the
jury's mask before the appeal has ``0`` there (``?`` while the site gives no
verdict), and the portal credits the accepted ones on top (CHGK-22), which gives
the site's mask back.

The response is decoded by the portal's one JSON reader (``decode``: ``tournaments.sources.json_input``)
and every value is read by the typed reader of the interchange (``rulesets.interchange.Reader``): a ``status`` or
an ``id`` that is a list, a ``position`` of ``1e400``, a NUL in a name is a problem at its path
(``results[3].controversials[0].status``), never a ``TypeError``.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext as _

from rulesets.errors import Invalid, Problem
from rulesets.interchange import MAX_TEXT, Reader, safe_text
from tournaments.sources.json_input import read_json, value_problems

MASK_CHARS = set("10X?")
VERDICT_OF_STATUS = {"A": "accepted", "D": "rejected"}
V1_KEYS = {"mask", "idteam"}
V1_NAME_KEYS = ("current_name", "base_name")
MAX_POSITION = 100_000  # a team's place among every team of a tournament (synchrons: a few thousand)


def decode(raw: bytes | str, root: str = "") -> tuple[Any, list[Problem]]:
    """The JSON of a response, read by the portal's one JSON reader (``tournaments.sources.json_input``); the
    problems (not UTF-8, not JSON, nested too deeply, a NUL, a number that is not finite) when it cannot be."""
    try:
        return read_json(raw, root=root), []
    except Invalid as refused:
        return None, refused.located()


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


def _position(r: Reader, value: Any, path: str) -> Fraction | None:
    """The site's ``position``: a finite number (``2.5``) or its text (``"2,5"``); None when not given."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str):
        value = value.strip().replace(",", ".")
    number = r.decimal(value, path, places=3, below=MAX_POSITION)
    return None if number is None else Fraction(number)


def _site_id(r: Reader, value: Any, path: str) -> int | None:
    """A site's id (a team's, a controversial's): a whole number or its digits; None when not given."""
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        value = int(value.strip())
    if isinstance(value, bool) or not isinstance(value, int):
        r.fail(path, _("must be a whole number (the site's id)"))
        return None
    return r.integer(value, path, minimum=0)


def _name(r: Reader, value: Any, path: str) -> str | None:
    name = r.string(value, path, required=False, allow_empty=True)
    return name.strip() if name is not None and name.strip() else None


Where = Callable[[str], str]


def _rows(data: Any, root: str) -> tuple[str, list[tuple[Where, Any]]] | None:
    """The response's shape and its team rows, each with where its values are (``at("mask")`` is the row's mask's
    path); None for another shape."""
    base = root
    if isinstance(data, dict) and isinstance(data.get("hydra:member"), list):
        data, base = data["hydra:member"], _join(root, "hydra:member")
    if isinstance(data, list):
        def at_row(i: int) -> Where:
            return lambda key: _join(f"{base}[{i}]", key)

        rows = [(at_row(i), row) for i, row in enumerate(data)]
        if any(isinstance(row, dict) and "team" in row and "mask" in row for row in data) and any(
                isinstance(row, dict) and isinstance(row.get("team"), dict) for row in data):
            return "v2", rows
        if data and all(isinstance(row, dict) and "mask" in row and ("idteam" in row or "current_name" in row)
                        for row in data):
            return "v1", rows
        return None
    if isinstance(data, dict) and V1_KEYS <= set(data) and all(isinstance(data[k], dict) for k in V1_KEYS):
        def at_key(key: str) -> Where:
            return lambda column: _join(_join(root, column), safe_text(str(key)))

        rows = [(at_key(key), {column: values.get(key) for column, values in data.items()
                               if isinstance(values, dict)}) for key in data["mask"]]
        return ("v1-columns", rows) if rows else None
    return None


def parse_rating_results(data: Any, root: str = "") -> tuple[dict[str, Any] | None, list[Problem]]:
    """Teams, masks, positions and controversials of a rating-site response (see the module's docstring).

    ``{"shape": "v1" | "v1-columns" | "v2", "questions": n, "teams": [{"site_id", "name", "names",
    "mask", "site_mask", "site_position"}], "controversials": [{"id", "question", "answer",
    "filed_at", "verdict", "site_ids"}]}``; None with the problems when it is not such a response.

    Every value is read as the typed reader (``rulesets.interchange.Reader``) reads a document's: a value of
    another type, a number that is not finite or out of range, a NUL is a problem at its path, ``root`` before
    it (``results[3].controversials[0].status``).
    """
    problems = value_problems(data, root)
    if problems:
        return None, problems
    found = _rows(data, root)
    if found is None:
        return None, [Problem(root, _("this is not a rating-site results response: expected the v1 \"list\" "
                                      "(rows or column-oriented) or the v2 \"results\" with masks"))]
    shape, rows = found
    r = Reader()
    problems = r.problems
    teams: list[dict[str, Any]] = []
    controversials: dict[Any, dict[str, Any]] = {}
    for at, row in rows:
        if not isinstance(row, dict):
            r.fail(at("").rstrip("."), _("must be an object"))
            continue
        read = len(problems)
        if shape == "v2":
            team = row.get("team")
            if not isinstance(team, dict):
                r.fail(at("team"), _("must be an object"))
                continue
            current = row.get("current")
            if current is not None and not isinstance(current, dict):
                r.fail(at("current"), _("must be an object"))
                current = None
            names = [_name(r, (current or {}).get("name"), at("current.name")), _name(r, team.get("name"),
                                                                                      at("team.name"))]
            site_id = _site_id(r, team.get("id"), at("team.id"))
        else:
            names = [_name(r, row.get(k), at(k)) for k in V1_NAME_KEYS]
            site_id = _site_id(r, row.get("idteam"), at("idteam"))
        names = list(dict.fromkeys(n for n in names if n))
        position = _position(r, row.get("position"), at("position"))
        if len(problems) > read:
            continue
        if not names:
            problems.append(Problem(at("name"), _("the team has no name")))
            continue
        mask = row.get("mask")
        if mask is not None and not isinstance(mask, str):
            r.fail(at("mask"), _("must be a non-empty string"))
            continue
        if not mask or not mask.strip():
            problems.append(Problem(at("mask"), _("%(team)s: the site gives no mask") % {"team": names[0]}))
            continue
        mask = mask.strip().replace("x", "X")
        bad = next((i for i, c in enumerate(mask) if c not in MASK_CHARS), None)
        if bad is not None:
            problems.append(Problem(at("mask"), _("%(team)s: question %(q)d has %(c)r; a mask holds only 1, 0, "
                                                  "X and ?") % {"team": names[0], "q": bad + 1, "c": mask[bad]}))
            continue
        entry = {"site_id": site_id, "name": names[0], "names": names, "mask": mask, "site_mask": mask,
                 "site_position": position}
        marks = list(mask)
        listed = row.get("controversials") if shape == "v2" else None
        if listed is not None and not isinstance(listed, list):
            r.fail(at("controversials"), _("must be a list"))
            listed = None
        for ci, c in enumerate(listed or []):
            cpath = f"{at('controversials')}[{ci}]"
            if not isinstance(c, dict):
                r.fail(cpath, _("must be an object"))
                continue
            read = len(problems)
            question = r.integer(c.get("questionNumber"), f"{cpath}.questionNumber", required=True, minimum=1)
            status = r.string(c.get("status"), f"{cpath}.status", required=False, allow_empty=True, limit=20)
            cid = _site_id(r, c.get("id"), f"{cpath}.id")
            answer = r.string(c.get("answer"), f"{cpath}.answer", required=False, allow_empty=True,
                              limit=MAX_TEXT)
            filed_at = c.get("issuedAt")
            if filed_at is not None:
                r.datetime(filed_at, f"{cpath}.issuedAt")
            if len(problems) > read or question is None:
                continue
            if question > len(mask):
                problems.append(Problem(f"{cpath}.questionNumber", _("not a question of the masks")))
                continue
            verdict = VERDICT_OF_STATUS.get(status or "")
            marks[question - 1] = "0" if verdict else "?"  # the jury's mark the appeal was against
            key = cid if cid is not None else (question, answer or "")
            entry_c = controversials.setdefault(key, {
                "id": cid, "question": question, "answer": answer or "",
                "filed_at": filed_at, "verdict": verdict, "site_ids": [], "teams": []})
            entry_c["site_ids"].append(site_id)
            entry_c["teams"].append(len(teams))
        entry["mask"] = "".join(marks)
        teams.append(entry)
    if not teams:
        problems.append(Problem(root, _("the response has no team with a mask")))
        return None, problems
    questions = len(teams[0]["mask"])
    for team in teams:
        if len(team["mask"]) != questions:
            problems.append(Problem(f"masks.{team['name']}", _("%(team)s: the mask has %(n)d marks, the first team's "
                                                               "%(q)d") % {"team": team["name"],
                                                                           "n": len(team["mask"]), "q": questions}))
    for q in range(questions):
        removed = [t["mask"][q] == "X" for t in teams if len(t["mask"]) == questions]
        if any(removed) and not all(removed):
            problems.append(Problem("masks", _("question %(q)d is X in some masks only; a removed question is X in "
                                               "every mask") % {"q": q + 1}))
    return {"shape": shape, "questions": questions, "teams": teams,
            "controversials": list(controversials.values())}, problems
