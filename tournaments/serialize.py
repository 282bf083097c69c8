"""Plain JSON values of the figures and facts that are stored as JSON (snapshots, audit rows)."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from fractions import Fraction
from typing import Any

from rulesets.base import round2
from rulesets.messages import Text

_PLAIN = {str, int, float, type(None)}  # scalars that pass as they are (exact types)
_FLAT = _PLAIN | {bool}  # a dict of these under string keys is copied as it is


def jsonable(value: Any) -> Any:
    """Fractions and Decimals become rounded floats (floats are already rounded); tuples lists; dates ISO; a
    ruleset's message keeps its code and parameters (``rulesets.messages.as_data``: rendered when shown)."""
    if isinstance(value, Text):
        return value.as_data()
    if isinstance(value, bool) or value is None or isinstance(value, (int, str, float)):
        return value
    if isinstance(value, (Fraction, Decimal)):
        return round2(Fraction(value))
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, dict):
        return _flat_copy(value) or {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        if isinstance(value, (list, tuple)):
            kinds = set(map(type, value))
            if kinds <= _PLAIN:  # a league's 10^4 round labels
                return list(value)
            if kinds == {dict}:  # a league's 14,000 players: each a flat dict, copied without a call a value
                return [_flat_copy(v) or jsonable(v) for v in value]
        return [jsonable(v) for v in value]
    return str(value)


def _flat_copy(value: dict) -> dict | None:
    """A copy of a non-empty dict of plain scalars under string keys; None for any other (an empty dict too)."""
    if value and set(map(type, value.values())) <= _FLAT and set(map(type, value)) <= {str}:
        return dict(value)
    return None
