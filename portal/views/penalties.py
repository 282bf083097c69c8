"""Penalty markers of the standings rows: each deduction a row's points include, linked to where it happened.

The penalties come from the stored snapshot (a row's summary ``details["penalties"]``, as the ruleset stored
them: family_league's detected and ruled violations, FL-15..FL-18; class_balanced's penalties): a marker links
to the game's page when the penalty names a game, else to its rule in the tournament's rulebook.
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _

from portal.rulebook import rule_url
from portal.templatetags.portal import points as points_text


def penalty_marks(tournament: Any, details: dict[str, Any]) -> list[dict[str, Any]]:
    """One marker per stored penalty of a row: points deducted, rule code, link and a readable title."""
    out = []
    for penalty in details.get("penalties") or []:
        if not isinstance(penalty, dict):
            continue
        code = penalty.get("code") or ""
        game, stage = penalty.get("game"), penalty.get("stage")
        if game is not None and stage:
            url = reverse("game", args=[tournament.slug, stage, game])
            where = _("game %(number)s") % {"number": game}
        else:
            url = (rule_url(tournament, code) if code else None) or ""
            where = ""
        points = penalty.get("points")
        title = _("Penalty: %(points)s points deducted") % {"points": points_text(points)}
        if code:
            title += f" ({code})"
        if where:
            title += f", {where}"
        if penalty.get("player"):
            title += f" — {penalty['player']}"
        out.append({"points": points, "code": code, "url": url, "title": title})
    return out
