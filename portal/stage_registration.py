"""Formats whose registration opens and closes per stage, as the structure page and its API act on them.

The Grand Prix opens a stage's registration once its conditions are published (GP-2) and closes it on its own,
before the tournament's deadline, invitations with it (GP-5): ``formats.elimination_gp.services``. A format not
listed here registers per tournament (``tournaments.structure``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from formats.elimination_gp import services as gp_services
from rulesets import elimination_gp
from tournaments.models import Stage


@dataclass(frozen=True)
class StageRegistration:
    """How a format opens and closes one stage's registration, whether it is open, its page (``url_name``)."""

    open: Callable[..., Any]
    close: Callable[..., Any]
    is_open: Callable[[Stage], bool]
    url_name: str
    rule: str


STAGE_REGISTRATION: dict[str, StageRegistration] = {
    elimination_gp.KEY: StageRegistration(open=gp_services.open_registration, close=gp_services.close_registration,
                                          is_open=gp_services.registration_open, url_name="gp-registration",
                                          rule="GP-2, GP-5"),
}


def per_stage(ruleset: str) -> StageRegistration | None:
    """The ruleset's per-stage registration, or None when it registers per tournament."""
    return STAGE_REGISTRATION.get(ruleset)
