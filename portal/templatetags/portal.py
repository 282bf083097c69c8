"""Filters the public pages use: points, stage and ruleset names, labels of export keys."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django import template
from django.utils.formats import number_format

from accounts.permissions import can_see_history
from formats import registry
from portal import labels, table_status
from portal.rulebook import link_codes, rulebook_of
from portal.views.live import stamp
from rulesets.interchange import web_link as is_web_link
from tournaments.messages import render as render_message

register = template.Library()


@register.filter
def web_link(value) -> str:
    """The address when it is an http:// or https:// one, else ``""``: no other scheme (``javascript:``, ``data:``)
    is ever rendered as a link, whatever was stored before links were checked."""
    return value if is_web_link(value) else ""


@register.filter
def points(value) -> str:
    """A number rounded to 2 decimals, without trailing zeros, in the page's language ("8,4" in Russian)."""
    if value is None or value == "":
        return "—"
    try:
        number = Decimal(str(value)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    except (InvalidOperation, ValueError):
        return str(value)
    if number == number.to_integral_value():
        return number_format(int(number))
    text = format(number.normalize(), "f")
    return number_format(Decimal(text), decimal_pos=len(text.split(".")[1]))


@register.filter
def stage_label(key) -> str:
    return labels.stage_label(key)


@register.filter
def has_rulebook(tournament) -> bool:
    """Whether the tournament's format explains its rules on ``/t/SLUG/rules/`` (a format home may have none)."""
    return rulebook_of(tournament) is not None


@register.filter
def ruleset_label(key) -> str:
    return registry.label(key)


@register.filter
def criterion_label(key) -> str:
    return labels.criterion_label(key)


@register.filter
def status_label(key) -> str:
    return str(labels.label(labels.TEAM_STATUSES, key))


@register.filter
def round_label(raw) -> str:
    return labels.round_label(raw)


@register.filter
def reason(text) -> str:
    """A seat's reason (a message, or a ruleset's older plain text) in the reader's language."""
    return render_message(text)


@register.simple_tag
def page_url(request, number, param: str = "page", drop: str = "") -> str:
    """The current URL with ``param`` (``page``) set, other query parameters kept but ``drop`` (a nested list's
    page, which starts again)."""
    query = request.GET.copy()
    query.pop(drop, None)
    query[param or "page"] = number
    return f"?{query.urlencode()}"


@register.simple_tag
def format_links(tournament, user) -> list:
    """The links the tournament's format home adds to its header (``formats.registry``) that ``user`` may follow."""
    return [link for link in registry.for_tournament(tournament).tournament_links(tournament, user)
            if link.shown_to(user)]


@register.filter
def rule_links(text, tournament):
    """``text`` with every rule code (CB-7, FL-15.3, ...) linked to the tournament's rules page (escaped)."""
    return link_codes(text, tournament)


@register.filter
def ruleset_text(text) -> str:
    """A ruleset's message (note, violation) in the reader's language (``tournaments.messages``)."""
    return render_message(text)


@register.filter
def indicator_label(key) -> str:
    return str(labels.label(labels.INDICATORS, key))


@register.filter
def penalty_kind(key) -> str:
    """A penalty's or detected violation's kind in the reader's language ("two_players" -> "two players of one
    team", FL-15.3); an unknown kind stays as it is."""
    return str(labels.label(labels.PENALTY_KINDS, key))


@register.filter
def live_stamp(snapshot) -> str:
    """The stamp of a stored table the live standings compare (``portal.views.live.stamp``)."""
    return stamp(snapshot.facts_version, snapshot.computed_at) if snapshot is not None else ""


@register.simple_tag
def may_see_history(tournament, user) -> bool:
    """Whether the header links the tournament's history: only for those its page lets in."""
    return can_see_history(user, tournament)


@register.filter
def tournament_status(tournament) -> str:
    """The status a page shows, following the stored tables (``portal.table_status.shown_status``)."""
    return table_status.shown_status(tournament)


@register.filter
def tournament_status_label(tournament) -> str:
    return table_status.shown_status_label(tournament)
