"""Words the pages show for keys that come from rulesets and exports (rulesets speak English keys).

Every label goes through the translation catalogue; a key the portal does
not know yet is shown as it is rather than hidden.
"""

from __future__ import annotations

import re
from typing import Any

from django.utils.translation import gettext, ngettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from scoring.exports import Words
from tournaments.labels import STAGES, stage_label

RULESETS = {
    "chgk_tour_points": _("ChGK: points for places in tours"),
    "family_league": _("Family league (Mafia)"),
    "class_balanced": _("Class-balanced tournament (Mafia)"),
    "elimination_gp": _("Elimination Grand Prix (Mafia)"),
}


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

SIDES = {
    "civilians": _("civilians"),
    "mafia": pgettext_lazy("side", "mafia"),
    "maniac": pgettext_lazy("side", "maniac"),
}

TOUR_ROLES = {
    "host": pgettext_lazy("tour role", "hosted"),
    "played": pgettext_lazy("tour role", "played"),
    "absent": pgettext_lazy("tour role", "absent"),
    "out": pgettext_lazy("tour role", "not in the table"),
}

ITEMS = {
    "gold cup": _("gold cup"),
    "silver cup": _("silver cup"),
    "bronze cup": _("bronze cup"),
    "gold medal": _("gold medal"),
    "silver medal": _("silver medal"),
    "bronze medal": _("bronze medal"),
    "cup": _("cup"),
    "medal": _("medal"),
    "title": _("title"),
}

PENALTY_KINDS = {
    "fair_play": _("fair play"),
    "no_show": _("no-show"),
    "ineligible_player": _("ineligible player"),
    "two_players": _("two players of one team"),
    "foreign_player": _("player of a team not in the game"),
    "timeout": _("timeout"),
    "late": _("late"),
}

# Pieces of the reasons rulesets give for a seat's points ("mafia win; timeout: 3/5 days").
REASON_PHRASES = {
    "civilians win": _("civilians win"),
    "mafia win": _("mafia win"),
    "maniac win": _("maniac win"),
    "draw": _("draw"),
    "loss": _("loss"),
    "win": _("win"),
    "mafia draw": _("mafia draw"),
    "civilians draw": _("civilians draw"),
    "maniac draw": _("maniac draw"),
    "maniac loss": _("maniac loss"),
    "OMON": _("OMON"),
    "mafia loss": _("mafia loss"),
    "civilians loss": _("civilians loss"),
    "draw as civilians": _("draw as civilians"),
    "draw as mafia": _("draw as mafia"),
    "draw as maniac": _("draw as maniac"),
    "no civilian in the last day/night": _("no civilian in the last day/night"),
    "technical result": _("technical result"),
    "game annulled": _("game annulled"),
    "replayed": _("replayed"),
    "not counted": _("not counted"),
    "eliminated": _("eliminated"),
    "no-show": _("no-show"),
    "timeout: scores nothing": _("timeout: scores nothing"),
}

_DAYS = re.compile(r"^timeout: (\d+)/(\d+) days?$")
_KILLS = re.compile(r"^(\d+) kills?$")
_SUFFIX = re.compile(r"^(.+?) \(([^()]+)\)$")
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


def reason_text(reason: str | None) -> str:
    """Translate the known pieces of a ruleset's English reason; unknown pieces stay as they are."""
    if not reason:
        return ""
    sentence = ruleset_text(reason)
    if sentence != reason:  # a sentence, not a list of pieces: "two_players (FL-15.3): ..."
        return sentence
    parts = []
    for part in reason.split("; "):
        pieces = []
        for piece in part.split(", "):
            pieces.append(_reason_piece(piece))
        parts.append(", ".join(pieces))
    return "; ".join(parts)


def _reason_piece(piece: str) -> str:
    suffix = _SUFFIX.match(piece)
    if suffix:
        return f"{_reason_piece(suffix.group(1))} ({_reason_piece(suffix.group(2))})"
    if piece in REASON_PHRASES:
        return str(REASON_PHRASES[piece])
    days = _DAYS.match(piece)
    if days:
        played, total = int(days.group(1)), int(days.group(2))
        return ngettext("timeout: %(played)s of %(total)s day", "timeout: %(played)s of %(total)s days",
                        total) % {"played": played, "total": total}
    kills = _KILLS.match(piece)
    if kills:
        count = int(kills.group(1))
        return ngettext("%(count)s kill", "%(count)s kills", count) % {"count": count}
    if piece.startswith("keeps "):
        return gettext("keeps %(what)s") % {"what": _reason_piece(piece[6:])}
    return piece


GAME_FIELDS = {
    "player": _("player"), "team": _("team"), "role": _("role"), "stats": _("stats"),
    "days_played": _("days played"), "game_days": _("game days"), "timed_out": _("timed out"),
    "maniac_kills": _("maniac kills"), "in_final_phase": _("in the last day/night"),
    "fake_passport": _("fake passport"), "outcome": _("outcome"), "status": _("status"), "omon": _("OMON"),
    "number": _("game number"), "round": _("round"), "group": _("group"), "link": _("link"),
    "absent_teams": _("absent teams"), "no_show_eliminated": _("eliminated for a no-show"),
    "scheduled_at": _("scheduled at"), "seats": _("seats"), "version": _("version"),
}
_FIELD_WORD = re.compile(r"\b(" + "|".join(k for k in GAME_FIELDS if "_" in k) + r")\b")


def field_label(key: str) -> str:
    """A game's or seat's field as the entry form names it (issue 17: problems in words, not field ids)."""
    return str(GAME_FIELDS.get(key, key.replace("_", " ")))


def in_words(message: str) -> str:
    """A refusal's text with the field ids it mentions (``game_days``) in the form's words."""
    return _FIELD_WORD.sub(lambda match: field_label(match.group(1)), message)


# --- the sentences rulesets write (notes of a table, why a seat scores nothing) in the reader's language ---

INDICATORS = {
    "points": _("points"), "commissar_wins": _("commissar wins"), "commissar_points": _("commissar points"),
    "mafia_wins": _("mafia wins"), "mafia_points": _("mafia points"), "civilian_points": _("civilian points"),
    "custom": _("the commission's own ranking"),
}
FINALIST_REASONS = {
    "winning team": _("winning team"), "extra indicator": _("extra indicator"), "committee": _("committee"),
}
_N = r"(?P<%s>\d+)"
_SENTENCES: tuple[tuple[re.Pattern[str], Any], ...] = tuple((re.compile(pattern), text) for pattern, text in (
    (r"^(?P<kind>foreign_player|ineligible_player|two_players|no_show) \((?P<code>FL-15\.\d)\): (?P<rest>.+)$",
     None),
    (r"^(?P<team>.+) does not take part in game " + _N % "number" + "$",
     _("%(team)s does not take part in game %(number)s")),
    (r"^(?P<player>.+) is not on (?P<team>.+)'s roster$", _("%(player)s is not on the roster of %(team)s")),
    (r"^(?P<player>.+) left (?P<team>.+)'s roster at (?P<at>\S+) \(FL-3, FL-4\)$",
     _("%(player)s left the roster of %(team)s at %(at)s (FL-3, FL-4)")),
    (r"^(?P<player>.+) is disqualified$", _("%(player)s is disqualified")),
    (r"^(?P<player>.+) used a fake passport \(FL-6\)$", _("%(player)s used a fake passport (FL-6)")),
    (r"^(?P<player>.+) already played " + _N % "games" + r" games, the limit is " + _N % "limit" + r" \(FL-5\)$",
     _("%(player)s already played %(games)s games; the limit is %(limit)s (FL-5)")),
    (r"^(?P<team>.+) already has a player in game " + _N % "number" + "$",
     _("%(team)s already has a player in game %(number)s")),
    (r"^(?P<team>.+) has no player in game " + _N % "number" + "$", _("%(team)s has no player in game %(number)s")),
    (r"^(?P<team>.+) did not come to game " + _N % "number" + "$", _("%(team)s did not come to game %(number)s")),
    (r"^(?P<team>.+) can no longer balance its classes in (?P<stage>\S+) \(CB-7\)$",
     _("%(team)s can no longer balance its classes in %(stage)s (CB-7)")),
    (r"^group (?P<group>.+?): (?P<teams>.+) are tied at the cut; the curator decides \(FL-11\)$",
     _("group %(group)s: %(teams)s are tied at the cut; the curator decides (FL-11)")),
    (_N % "teams" + r" teams: the tournament runs only with at least " + _N % "minimum" + r" \(FL-2\)$",
     _("%(teams)s teams: the tournament runs only with at least %(minimum)s (FL-2)")),
    (r"^a qualifying stage with fewer than groups_from_teams teams \(FL-7\)$",
     _("a qualifying stage with fewer teams than the groups_from_teams setting (FL-7)")),
    (r"^Preliminary: " + _N % "remaining" + " of " + _N % "planned" + r" tours remain to be played \(CHGK-16\)\.$",
     _("Preliminary: %(remaining)s of %(planned)s tours remain to be played (CHGK-16).")),
    (r"^Preliminary: " + _N % "pending" + r" appeal\(s\) await a verdict \(CHGK-16\)\.$",
     _("Preliminary: appeals awaiting a verdict: %(pending)s (CHGK-16).")),
    (r"^Preliminary: appeals may still be filed on a played tour \(CHGK-18\)\.$",
     _("Preliminary: appeals may still be filed on a played tour (CHGK-18).")),
    (r"^(?P<rule>GP-1[67]): " + _N % "places" + r" place\(s\) left to the committee: (?P<tied>.+) tied across the "
     r"cut \(GP-18\)$", _("%(rule)s: places left to the committee: %(places)s; tied across the cut: %(tied)s "
                          "(GP-18)")),
    (r"^(?P<rule>GP-1[67]): " + _N % "places" + r" place\(s\) left to the committee \(GP-18\)$",
     _("%(rule)s: places left to the committee: %(places)s (GP-18)")),
))


def ruleset_text(text: str | None) -> str:
    """A sentence a ruleset wrote (a table's note, why a seat scores nothing, a violation) in the reader's language;
    a sentence the portal does not know stays as the ruleset wrote it."""
    if not text:
        return ""
    for pattern, template in _SENTENCES:
        match = pattern.match(text)
        if match is None:
            continue
        values = match.groupdict()
        if template is None:  # "two_players (FL-15.3): <why>"
            return f"{label(PENALTY_KINDS, values['kind'])} ({values['code']}): {ruleset_text(values['rest'])}"
        if "stage" in values:
            values["stage"] = stage_label(values["stage"])
        return str(template) % values
    return text


def sheet_words() -> Words:
    """The CSV and XLSX exports' words for tie-break keys, statuses and award items, in the active language."""
    return Words(criterion=criterion_label, status=lambda key: str(label(TEAM_STATUSES, key)),
                 item=lambda key: str(label(ITEMS, key)))
