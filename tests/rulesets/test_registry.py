"""The ruleset registry: one typed ``Ruleset`` per package, and a pure core (design.md principles 1 and 4)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import rulesets
from rulesets.protocol import AppealPolicy, Ruleset

RULESETS = Path(rulesets.__file__).parent
FORBIDDEN = ("django", "accounts", "tournaments", "scoring", "appeals")


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module)
    return names


@pytest.mark.parametrize("key", rulesets.keys())
def test_every_registered_ruleset_is_a_ruleset_under_its_own_key(key):
    ruleset = rulesets.get(key)
    assert isinstance(ruleset, Ruleset)
    assert isinstance(ruleset.appeal_policy, AppealPolicy)
    assert ruleset.key == key
    assert ruleset is getattr(rulesets, key).RULESET


def test_all_rulesets_and_choices_follow_the_keys():
    assert [r.key for r in rulesets.all_rulesets()] == list(rulesets.keys())
    assert rulesets.choices() == [(key, key) for key in rulesets.keys()]


def test_an_unknown_key_is_refused():
    with pytest.raises(rulesets.UnknownRuleset):
        rulesets.get("fifth")
    assert issubclass(rulesets.UnknownRuleset, KeyError)


def test_appeal_deciders_are_tournament_roles():
    from accounts.models import Role

    for ruleset in rulesets.all_rulesets():
        assert ruleset.appeal_policy.deciders, ruleset.key
        assert set(ruleset.appeal_policy.deciders) <= set(Role.values), ruleset.key


@pytest.mark.parametrize("path", sorted(RULESETS.rglob("*.py")), ids=lambda p: str(p.relative_to(RULESETS)))
def test_no_module_under_rulesets_imports_the_django_side(path):
    bad = {m for m in imported_modules(path) if m.split(".")[0] in FORBIDDEN}
    assert not bad, f"{path.relative_to(RULESETS)} imports {sorted(bad)}"
