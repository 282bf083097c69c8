"""Names of the stages, sides, award items and penalty kinds as the pages say them (the rulesets' stage keys are codes: ``stage-2``, ``qualifying-1``).

Below the format homes and the portal, so that both name stages alike (no stage key on a page).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

# The stage names come from the format homes (``FormatHome.stage_names``, registered with the home); a stage key
# names one stage in every format that has it (the family league's and the Grand Prix's ``final``).
STAGES: dict[str, Any] = {"": pgettext_lazy("stage", "latest")}


def name_stages(names: Mapping[str, Any]) -> None:
    """Add a format's stage names (``formats.registry.register`` does, for each home); a key already named
    keeps its first name."""
    for key, name in names.items():
        STAGES.setdefault(key, name)


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
