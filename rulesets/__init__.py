"""Pluggable tournament rulesets: pure functions over plain data.

One package per ruleset (``rulesets/<key>/``) over a small shared core
(``base``, ``facts``, ``mafia``, ``interchange``). ``rulesets.get(key)``
returns the package's typed ``RULESET`` (``rulesets.protocol.Ruleset``).
"""

from __future__ import annotations

from rulesets import chgk_tour_points, class_balanced, elimination_gp, family_league
from rulesets.protocol import AppealPolicy, Ruleset

__all__ = ["KEYS", "AppealPolicy", "Ruleset", "UnknownRuleset", "all_rulesets", "choices", "get"]

_REGISTRY: dict[str, Ruleset] = {
    package.RULESET.key: package.RULESET
    for package in (elimination_gp, chgk_tour_points, family_league, class_balanced)
}
KEYS: tuple[str, ...] = tuple(_REGISTRY)


class UnknownRuleset(KeyError):
    """No ruleset is registered under this key."""


def get(key: str) -> Ruleset:
    """The ruleset registered under ``key``; ``UnknownRuleset`` for any other key."""
    try:
        return _REGISTRY[key]
    except (KeyError, TypeError):
        raise UnknownRuleset(key) from None


def all_rulesets() -> tuple[Ruleset, ...]:
    """Every registered ruleset, in the order of ``KEYS``."""
    return tuple(_REGISTRY[key] for key in KEYS)


def choices() -> list[tuple[str, str]]:
    return [(key, key) for key in KEYS]
