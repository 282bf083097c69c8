"""Rule codes on the pages link to the tournament's rulebook (``/t/SLUG/rules/#CODE``).

The rulebook's texts come from the tournament's format home (``FormatHome.rulebook``); a code the rulebook
does not explain stays plain text, a part of a rule it explains links to that rule (GP-15.3 -> GP-15).
"""

from __future__ import annotations

from typing import Any

from django.urls import reverse
from django.utils.html import conditional_escape, format_html
from django.utils.safestring import SafeString, mark_safe

from formats import registry
from formats.rulebook import CODE, Rulebook


def rulebook_of(tournament: Any) -> Rulebook | None:
    return registry.for_tournament(tournament).rulebook


def rule_url(tournament: Any, code: str) -> str | None:
    """The rulebook's anchor of ``code`` for ``tournament``, None where its rulebook does not explain it."""
    book = rulebook_of(tournament)
    anchor = book.anchor(code) if book is not None else None
    if anchor is None:
        return None
    return f"{reverse('tournament-rulebook', args=[tournament.slug])}#{anchor}"


def link_codes(text: Any, tournament: Any) -> SafeString:
    """``text`` escaped, with every rule code the tournament's rulebook explains made a link to it."""
    escaped = str(conditional_escape("" if text is None else text))
    book = rulebook_of(tournament) if tournament is not None else None
    if book is None or not escaped:
        return mark_safe(escaped)  # noqa: S308 - escaped above
    base = reverse("tournament-rulebook", args=[tournament.slug])

    def link(match) -> str:
        code = match.group(0)
        anchor = book.anchor(code)
        if anchor is None:
            return code
        return str(format_html('<a class="rule-link" href="{}#{}">{}</a>', base, anchor, code))

    return mark_safe(CODE.sub(link, escaped))  # noqa: S308 - the text was escaped, the links are built escaped
