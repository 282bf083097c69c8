"""A refusal's place in words: ``stages[2].games[0].seats[8].team`` -> "stage 3, game 25, seat 9 (CB10-3): team".

Paths are what the API reports (a JSON path into the document); a page names the things they point at, read
from the facts the path was found in (refusals speak of things, not JSON paths).
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext as _

from portal.labels import field_label
from rulesets.facts import TournamentFacts
from tournaments.labels import stage_label

_SEGMENT = re.compile(r"^([A-Za-z_]+)(?:\[(\d+)\])?$")
_LISTS = {
    "penalties": "penalty", "decisions": "decision", "appeals": "appeal", "teams": "team", "families": "family",
    "withdrawals": "withdrawal",
}


def _words_of(kind: str, index: int, item: Any) -> str:
    labels = {
        "penalty": _("penalty %(number)s"), "decision": _("decision %(number)s"), "appeal": _("appeal %(number)s"),
        "team": _("team %(number)s"), "family": _("family %(number)s"), "withdrawal": _("withdrawal %(number)s"),
    }
    name = getattr(item, "name", None)
    return name if kind in ("team", "family") and name else labels[kind] % {"number": index + 1}


def path_words(path: str, facts: TournamentFacts | None) -> str:
    """``path`` (a JSON path of the interchange document) as the things it names, in the active language; the
    last field by its label. A part the facts do not hold is left out rather than guessed."""
    if not path:
        return ""
    parts: list[str] = []
    field = ""
    stage = game = None
    for segment in path.split("."):
        match = _SEGMENT.match(segment)
        if match is None:
            field = segment
            continue
        name, raw = match.group(1), match.group(2)
        index = int(raw) if raw is not None else None
        if name == "stages" and index is not None and facts is not None and index < len(facts.stages):
            stage = facts.stages[index]
            parts.append(stage_label(stage.key))
        elif name == "games" and index is not None and stage is not None and index < len(stage.games):
            game = stage.games[index]
            parts.append(_("game %(number)s") % {"number": game.number})
        elif name == "tours" and index is not None and stage is not None and index < len(stage.tours):
            parts.append(_("tour %(number)s") % {"number": stage.tours[index].number})
        elif name == "seats" and index is not None and game is not None and index < len(game.seats):
            parts.append(_("seat %(number)s (%(player)s)") % {"number": index + 1, "player": game.seats[index].player})
        elif name in _LISTS and index is not None and facts is not None:
            items = getattr(facts, name, ())
            parts.append(_words_of(_LISTS[name], index, items[index] if index < len(items) else None))
        elif index is None:
            field = name
    words = ", ".join(parts)
    if field:
        return f"{words}: {field_label(field)}" if words else field_label(field)
    return words
