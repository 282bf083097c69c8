"""A ChGK rating-site response read into teams, masks and controversials (issue 18).

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
"""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

from django.utils.translation import gettext as _

from rulesets.errors import Problem

MASK_CHARS = set("10X?")
VERDICT_OF_STATUS = {"A": "accepted", "D": "rejected"}
V1_KEYS = {"mask", "idteam"}
V1_NAME_KEYS = ("current_name", "base_name")


def decode(raw: bytes | str) -> tuple[Any, list[Problem]]:
    """The JSON of a response; a problem when it is not UTF-8 JSON."""
    try:
        text = raw.decode("utf-8-sig") if isinstance(raw, bytes) else raw
        return json.loads(text), []
    except UnicodeDecodeError:
        return None, [Problem("", _("the file is not UTF-8 text"))]
    except (ValueError, RecursionError) as exc:
        return None, [Problem("", _("the file is not JSON: %(error)s") % {"error": exc})]


def _number(value: Any) -> Fraction | None:
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, (int, float)):
        return Fraction(value).limit_denominator(1000)
    if isinstance(value, str):
        try:
            return Fraction(value.strip().replace(",", ".")).limit_denominator(1000)
        except (ValueError, ZeroDivisionError):
            return None
    return None


def _site_id(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and value.strip().isdigit():
        return int(value.strip())
    return None


def _rows(data: Any) -> tuple[str, list[tuple[str, dict]]] | None:
    """The response's shape and its team rows, each with the path of the row; None for another shape."""
    if isinstance(data, dict) and isinstance(data.get("hydra:member"), list):
        data = data["hydra:member"]
    if isinstance(data, list):
        if data and all(isinstance(r, dict) and isinstance(r.get("team"), dict) for r in data):
            return "v2", [(f"[{i}]", r) for i, r in enumerate(data)]
        if data and all(isinstance(r, dict) and "mask" in r and ("idteam" in r or "current_name" in r)
                        for r in data):
            return "v1", [(f"[{i}]", r) for i, r in enumerate(data)]
        return None
    if isinstance(data, dict) and V1_KEYS <= set(data) and all(isinstance(data[k], dict) for k in V1_KEYS):
        keys = list(data["mask"])
        rows = [(f"mask.{key}", {column: values.get(key) for column, values in data.items()
                                 if isinstance(values, dict)}) for key in keys]
        return ("v1-columns", rows) if rows else None
    return None


def parse_rating_results(data: Any) -> tuple[dict[str, Any] | None, list[Problem]]:
    """Teams, masks, positions and controversials of a rating-site response (see the module's docstring).

    ``{"shape": "v1" | "v1-columns" | "v2", "questions": n, "teams": [{"site_id", "name", "names",
    "mask", "site_mask", "site_position"}], "controversials": [{"id", "question", "answer",
    "filed_at", "verdict", "site_ids"}]}``; None with the problems when it is not such a response.
    """
    found = _rows(data)
    if found is None:
        return None, [Problem("", _("this is not a rating-site results response: expected the v1 \"list\" "
                                    "(rows or column-oriented) or the v2 \"results\" with masks"))]
    shape, rows = found
    problems: list[Problem] = []
    teams: list[dict[str, Any]] = []
    controversials: dict[Any, dict[str, Any]] = {}
    for path, row in rows:
        if shape == "v2":
            team = row["team"]
            current = row.get("current") if isinstance(row.get("current"), dict) else {}
            names = [n for n in (current.get("name"), team.get("name")) if isinstance(n, str) and n.strip()]
            site_id = _site_id(team.get("id"))
        else:
            names = [row.get(k) for k in V1_NAME_KEYS if isinstance(row.get(k), str) and row.get(k).strip()]
            site_id = _site_id(row.get("idteam"))
        names = list(dict.fromkeys(n.strip() for n in names))
        if not names:
            problems.append(Problem(f"{path}.name", _("the team has no name")))
            continue
        mask = row.get("mask")
        if not isinstance(mask, str) or not mask.strip():
            problems.append(Problem(f"{path}.mask", _("%(team)s: the site gives no mask") % {"team": names[0]}))
            continue
        mask = mask.strip().replace("x", "X")
        bad = next((i for i, c in enumerate(mask) if c not in MASK_CHARS), None)
        if bad is not None:
            problems.append(Problem(f"{path}.mask", _("%(team)s: question %(q)d has %(c)r; a mask holds only 1, 0, "
                                                      "X and ?") % {"team": names[0], "q": bad + 1, "c": mask[bad]}))
            continue
        entry = {"site_id": site_id, "name": names[0], "names": names, "mask": mask, "site_mask": mask,
                 "site_position": _number(row.get("position"))}
        marks = list(mask)
        listed = row.get("controversials") if shape == "v2" else None
        for ci, c in enumerate(listed if isinstance(listed, list) else []):
            cpath = f"{path}.controversials[{ci}]"
            question = c.get("questionNumber") if isinstance(c, dict) else None
            if isinstance(question, bool) or not isinstance(question, int) or not 1 <= question <= len(mask):
                problems.append(Problem(f"{cpath}.questionNumber", _("not a question of the masks")))
                continue
            verdict = VERDICT_OF_STATUS.get(c.get("status"))
            marks[question - 1] = "0" if verdict else "?"  # the jury's mark the appeal was against
            key = c.get("id") if c.get("id") is not None else (question, c.get("answer"))
            entry_c = controversials.setdefault(key, {
                "id": c.get("id"), "question": question, "answer": c.get("answer") or "",
                "filed_at": c.get("issuedAt"), "verdict": verdict, "site_ids": [], "teams": []})
            entry_c["site_ids"].append(site_id)
            entry_c["teams"].append(len(teams))
        entry["mask"] = "".join(marks)
        teams.append(entry)
    if not teams:
        problems.append(Problem("", _("the response has no team with a mask")))
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
