"""The format hooks the portal passes into the write commands of ``tournaments.commands``.

``tournaments/`` sits below ``formats/`` and cannot ask ``formats.registry``;
the pages and the API can, and hand the commands these callables.
"""

from __future__ import annotations

from collections.abc import Sequence

from formats import registry
from rulesets import facts as F
from rulesets.base import Problem
from tournaments.models import Game, Stage


def game_problems(stage: Stage, game: F.Game, row: Game) -> Sequence[Problem]:
    """What the stage's format refuses in a game being recorded (e.g. CB-2, CB-5, CB-6 of class_balanced)."""
    return registry.for_tournament(stage.tournament).game_problems(stage, game, row)
