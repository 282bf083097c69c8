"""Design rules that hold the architecture together (design.md principles 1 and 4)."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

import rulesets

RULESETS = Path(rulesets.__file__).parent


def imported_modules(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
    return names


@pytest.mark.parametrize("path", sorted(RULESETS.rglob("*.py")), ids=lambda p: str(p.relative_to(RULESETS)))
def test_rulesets_are_pure_no_django_no_clock(path):
    """No module under rulesets/ imports Django (no ORM) or reads the clock (time is an argument)."""
    modules = imported_modules(path)
    assert not {m for m in modules if m == "django" or m.startswith("django.")}, path.name
    source = path.read_text(encoding="utf-8")
    for clock in ("datetime.now(", "dt.datetime.now(", "date.today(", "time.time(", "timezone.now("):
        assert clock not in source, f"{path.name} reads the clock: {clock}"


@pytest.mark.parametrize("key", rulesets.KEYS)
def test_every_ruleset_follows_the_protocol(key):
    module = importlib.import_module(f"rulesets.{key}")
    assert module.KEY == key
    assert isinstance(module.VERSION, int)
    assert module.STAGE_KEYS
    assert module.validate_settings(dict(module.DEFAULT_SETTINGS)) == []
    assert module.validate_settings({"no_such_setting": 1}), "unknown settings are refused"
    for name in ("validate", "compute", "appeal_deadline", "decision_deadline", "verdict_due"):
        assert callable(getattr(module, name)), name


def test_unknown_ruleset_is_refused():
    with pytest.raises(rulesets.UnknownRuleset):
        rulesets.get("poker")
