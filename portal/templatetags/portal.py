"""Filters the public pages use: points, stage and ruleset names, labels of export keys."""

from __future__ import annotations

from decimal import ROUND_HALF_UP, Decimal, InvalidOperation

from django import template
from django.utils.formats import number_format

from formats import registry
from portal import labels

register = template.Library()


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
def ruleset_label(key) -> str:
    return str(labels.label(labels.RULESETS, key))


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
    return labels.reason_text(text)


@register.simple_tag
def page_url(request, number) -> str:
    """The current URL with ``page`` set (other query parameters kept)."""
    query = request.GET.copy()
    query["page"] = number
    return f"?{query.urlencode()}"


@register.simple_tag
def format_links(tournament, user) -> list:
    """The links the tournament's format home adds to its header (``formats.registry``)."""
    return registry.for_tournament(tournament).tournament_links(tournament, user)
