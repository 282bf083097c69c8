"""Pluggable tournament rulesets: pure functions over plain data.

``rulesets.get(key)`` returns the module of a ruleset (see ``rulesets.base``
for the protocol every module follows).
"""

from __future__ import annotations

import importlib
from types import ModuleType

KEYS: tuple[str, ...] = ("elimination_gp", "chgk_tour_points", "family_league", "class_balanced")


class UnknownRuleset(KeyError):
    pass


def get(key: str) -> ModuleType:
    """The ruleset module registered under ``key``."""
    if key not in KEYS:
        raise UnknownRuleset(key)
    return importlib.import_module(f"rulesets.{key}")


def choices() -> list[tuple[str, str]]:
    return [(key, key) for key in KEYS]
