"""Names of the stages, sides, award items and penalty kinds as the pages say them (the rulesets' stage keys are codes: ``stage-2``, ``qualifying-1``).

Below the format homes and the portal, so that both name stages alike (issue 17: no stage key on a page).
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

STAGES = {
    "": pgettext_lazy("stage", "latest"),
    "season": pgettext_lazy("stage", "season"),
    "qualifying": pgettext_lazy("stage", "qualifying stage"),
    "final": pgettext_lazy("stage", "final"),
    "stage-1": pgettext_lazy("stage", "stage 1"),
    "stage-2": pgettext_lazy("stage", "stage 2"),
    "stage-3": pgettext_lazy("stage", "stage 3"),
    "qualifying-1": pgettext_lazy("stage", "qualifying stage 1"),
    "qualifying-2": pgettext_lazy("stage", "qualifying stage 2"),
    "qualifying-3": pgettext_lazy("stage", "qualifying stage 3"),
    "qualifying-4": pgettext_lazy("stage", "qualifying stage 4"),
    "qualifying-5": pgettext_lazy("stage", "qualifying stage 5"),
}


def stage_label(key: str | None) -> str:
    """The stage's name in the active language; a key the portal does not know is shown as it is."""
    key = key or ""
    return str(STAGES.get(key, key))


SIDES = {
    "civilians": _("civilians"),
    "mafia": pgettext_lazy("side", "mafia"),
    "maniac": pgettext_lazy("side", "maniac"),
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
