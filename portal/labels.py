"""Words the pages show for keys that come from rulesets and exports (rulesets speak English keys).

Every label goes through the translation catalogue; a key the portal does
not know yet is shown as it is rather than hidden.
"""

from __future__ import annotations

import re

from django.utils.translation import gettext, pgettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from scoring.exports import Words
from tournaments.fact_fields import SEAT
from tournaments.labels import ITEMS, STAGES
from tournaments.labels import PENALTY_KINDS as PENALTY_KINDS  # re-exported: the pages import their labels here
from tournaments.labels import SIDES as SIDES
from tournaments.labels import stage_label as stage_label

CRITERIA = {
    "points": _("points"),
    "correct_answers": _("correct answers"),
    "rating_sum": _("rating sum"),
    "mafia_points": _("points won on the mafia side"),
    "mafia_wins": _("mafia wins"),
    "mafia_draws": _("mafia draws"),
    "mafia_wins_13": _("mafia wins in 13-player games"),
    "mafia_draws_13": _("mafia draws in 13-player games"),
    "maniac_wins": _("maniac wins"),
    "points_13": _("points in 13-player games"),
    "remaining_players": _("players still in the game"),
    "extra_indicator": _("extra indicator"),
    "tie_break": _("committee decision"),
    "committee": _("committee decision"),
    "draw": _("public draw"),
    "seed": _("public draw"),
    "disqualified": _("disqualification"),
    "eliminated": _("elimination"),
    "withdrawn": _("withdrawal"),
    "advanced": _("advanced to the next stage"),
    "next_stage": _("result recorded in a later stage"),
    "commissar_wins": _("wins as commissar"),
    "qualifying_average": _("average in the qualifying stages"),
}

# Short column headings for the tie-break figures of the export.
CRITERIA_SHORT = {
    "correct_answers": _("Correct"),
    "rating_sum": _("Rating"),
    "mafia_points": _("Mafia pts"),
    "mafia_wins": _("Mafia wins"),
    "mafia_draws": _("Mafia draws"),
    "mafia_wins_13": _("Mafia wins (13)"),
    "mafia_draws_13": _("Mafia draws (13)"),
    "maniac_wins": _("Maniac wins"),
    "points_13": _("Points (13)"),
    "remaining_players": _("Players left"),
}

TEAM_STATUSES = {
    "active": pgettext_lazy("team status", "in play"),
    "advanced": pgettext_lazy("team status", "advanced"),
    "eliminated": pgettext_lazy("team status", "eliminated"),
    "withdrawn": pgettext_lazy("team status", "withdrawn"),
    "disqualified": pgettext_lazy("team status", "disqualified"),
    "winner": pgettext_lazy("team status", "winner"),
    "qualified": pgettext_lazy("player status", "qualified for the final"),
}

TOUR_ROLES = {
    "host": pgettext_lazy("tour role", "hosted"),
    "played": pgettext_lazy("tour role", "played"),
    "absent": pgettext_lazy("tour role", "absent"),
    "out": pgettext_lazy("tour role", "not in the table"),
}

_TOUR = re.compile(r"^(?:Tour|tour) (\d+)$")
_WORST = re.compile(r"^worst_player_(\d+)$")


def label(mapping: dict, key, default=None):
    """The translated label of ``key`` in ``mapping``, else the key itself (or ``default``)."""
    if key is None:
        return default if default is not None else ""
    return mapping.get(key, key if default is None else default)


def criterion_label(key: str | None) -> str:
    """What separated two rows: "rating_sum" -> "rating sum"; "worst_player_2" -> the 2nd weakest player's points."""
    if not key:
        return ""
    match = _WORST.match(key)
    if match:
        return gettext("points of the team's weakest player no. %(number)s") % {"number": match.group(1)}
    return str(label(CRITERIA, key))


def round_label(raw) -> str:
    """A round of a chart: "Tour 3" -> "Тур 3", a stage key -> its name, a number stays a number."""
    text = str(raw)
    match = _TOUR.match(text)
    if match:
        return gettext("Tour %(number)s") % {"number": match.group(1)}
    if text in STAGES:
        return str(STAGES[text])
    return text


GAME_FIELDS = {
    **SEAT.labels(),  # a seat's fields: their models' verbose names (tournaments.fact_fields)
    "game_days": _("game days"), "outcome": _("outcome"), "status": _("status"), "omon": _("OMON"),
    "number": _("game number"), "round": _("round"), "group": _("group"), "link": _("link"),
    "absent_teams": _("absent teams"), "no_show_eliminated": _("eliminated for a no-show"),
    "scheduled_at": _("scheduled at"), "seats": _("seats"), "version": _("version"),
}
_FIELD_WORD = re.compile(r"\b(" + "|".join(k for k in GAME_FIELDS if "_" in k) + r")\b")


def field_label(key: str) -> str:
    """A game's or seat's field as the entry form names it (problems in words, not field ids)."""
    return str(GAME_FIELDS.get(key, key.replace("_", " ")))


def in_words(message: str) -> str:
    """A refusal's text with the field ids it mentions (``game_days``) in the form's words."""
    return _FIELD_WORD.sub(lambda match: field_label(match.group(1)), message)


# --- keys the pages show beside the rulesets' messages (tournaments.messages renders the messages) ---

INDICATORS = {
    "points": _("points"), "commissar_wins": _("commissar wins"), "commissar_points": _("commissar points"),
    "mafia_wins": _("mafia wins"), "mafia_points": _("mafia points"), "civilian_points": _("civilian points"),
    "custom": _("the commission's own ranking"),
}


def status_label(key: str | None, final: bool = False) -> str:
    """A row's status in words. In a final table a row still ``active`` has finished the tournament: the export
    keeps the spec's code (``active``), every page and sheet says "finished" (one word everywhere)."""
    if final and key == "active":
        return pgettext("team status", "finished")
    return str(label(TEAM_STATUSES, key))


def sheet_words(final: bool = False) -> Words:
    """The CSV and XLSX exports' words for tie-break keys, statuses and award items, in the active language."""
    return Words(criterion=criterion_label, status=lambda key: status_label(key, final),
                 item=lambda key: str(label(ITEMS, key)))
