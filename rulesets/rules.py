"""Rule constants frozen with a tournament (design principle 8).

A ruleset's rules hold numbers that are not settings an organizer chooses:
FL-15's 0.1 point a violation, FL-17's fine of 25 mf plus 25 mf a time,
GP-23's and FL-19's 72 hours, CHGK-18's D+3 and D+9, CB-3's class ranges.
A tournament stores them, in this module's JSON form, when it is created
(``Tournament.rules``), beside its settings and ``ruleset_version``; the
ruleset reads them from ``TournamentFacts.rules``. Changing one in code
therefore never changes an existing tournament's table: only an organizer's
explicit "adopt the current rules" does (``tournaments.commands.adopt_current_rules``),
and it is logged.

A key a tournament did not freeze (one added to the code after it was
created) takes the code's value: there was no earlier value to keep.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any


def to_json(value: Any) -> Any:
    """The stored form of a constant: a ``Fraction`` as ``"p/q"``, tuples as lists, the rest as it is."""
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}"
    if isinstance(value, tuple | list):
        return [to_json(v) for v in value]
    if isinstance(value, Mapping):
        return {str(k): to_json(v) for k, v in value.items()}
    return value


def frozen(constants: Mapping[str, Any]) -> dict[str, Any]:
    """What a new tournament stores: every constant of the ruleset's code today."""
    return {key: to_json(value) for key, value in constants.items()}


def resolved(stored: Mapping[str, Any] | None, current: Mapping[str, Any]) -> dict[str, Any]:
    """The constants a tournament is computed under: what it froze, and the code's value for a key it did not."""
    values = frozen(current)
    for key, value in (stored or {}).items():
        if key in values:
            values[key] = value
    return values


def differences(stored: Mapping[str, Any] | None, current: Mapping[str, Any]) -> dict[str, tuple[Any, Any]]:
    """``{key: (frozen value, code's value)}`` where the tournament's rules differ from the code's today."""
    now = frozen(current)
    kept = resolved(stored, current)
    return {key: (kept[key], now[key]) for key in now if kept[key] != now[key]}
