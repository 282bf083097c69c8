"""Pluggable tournament rulesets: pure functions over plain data.

One package per ruleset (``rulesets/<key>/``) over a small shared core
(``base``, ``facts``, ``mafia``, ``interchange``). ``rulesets.get(key)``
returns the package's typed ``RULESET`` (``rulesets.protocol.Ruleset``).

The registry is the only list of formats: the four built-in rulesets are registered here, and a format that
lives elsewhere (a format home's own package) registers its ruleset with ``register`` when its app is ready.
Everything else asks ``keys()``, ``get(key)`` or ``all_rulesets()``: no other module lists the formats.
"""

from __future__ import annotations

from rulesets import chgk_tour_points, class_balanced, elimination_gp, family_league
from rulesets.protocol import AppealPolicy, Ruleset

__all__ = ["AppealPolicy", "Ruleset", "UnknownRuleset", "all_rulesets", "choices", "get", "keys", "register"]

_REGISTRY: dict[str, Ruleset] = {}


class UnknownRuleset(KeyError):
    """No ruleset is registered under this key."""


def register(ruleset: Ruleset) -> Ruleset:
    """Register ``ruleset`` under its key (registering the same object again is harmless; another one for a
    registered key is a mistake)."""
    if ruleset.key in _REGISTRY and _REGISTRY[ruleset.key] is not ruleset:
        raise ValueError(f"a ruleset {ruleset.key!r} is already registered")
    _REGISTRY[ruleset.key] = ruleset
    return ruleset


for _package in (elimination_gp, chgk_tour_points, family_league, class_balanced):
    register(_package.RULESET)


def get(key: str) -> Ruleset:
    """The ruleset registered under ``key``; ``UnknownRuleset`` for any other key."""
    try:
        return _REGISTRY[key]
    except (KeyError, TypeError):
        raise UnknownRuleset(key) from None


def keys() -> tuple[str, ...]:
    """The keys of every registered ruleset, in the order they were registered."""
    return tuple(_REGISTRY)


def all_rulesets() -> tuple[Ruleset, ...]:
    """Every registered ruleset, in the order of ``keys()``."""
    return tuple(_REGISTRY.values())


def choices() -> list[tuple[str, str]]:
    return [(key, key) for key in _REGISTRY]
