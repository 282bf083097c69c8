"""``{% can_enter_results tournament stage.key as can_enter %}``: may the reader enter the stage's results?"""

from __future__ import annotations

from django import template

from accounts.permissions import can_enter_results as _can_enter_results

register = template.Library()


@register.simple_tag(takes_context=True)
def can_enter_results(context, tournament, stage_key=None) -> bool:
    """The organizers, the curator and the stage's judges (``accounts.permissions.can_enter_results``); without a
    stage, those who enter every stage's results."""
    request = context.get("request")
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated or tournament is None:
        return False
    return _can_enter_results(user, tournament, stage_key)
