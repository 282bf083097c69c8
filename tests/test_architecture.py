"""Design rules that hold the architecture together (design.md principles 1 and 4)."""

from __future__ import annotations

import ast
import importlib
import re
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


@pytest.mark.parametrize("key", rulesets.keys())
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


# --------------------------------------------------------------------------- one home per format

ROOT = RULESETS.parent
PACKAGES = ("config", "portal", "formats", "appeals", "scoring", "tournaments", "accounts", "rulesets")


def project_modules() -> dict[str, Path]:
    """Every module of the project's packages (migrations left out), by dotted name."""
    modules: dict[str, Path] = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            if "migrations" in path.parts or "tests" in path.parts:
                continue
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


MODULES = project_modules()


def _compares_a_ruleset_key(node: ast.Compare) -> bool:
    operands = [node.left, *node.comparators]
    if any(isinstance(o, ast.Constant) and o.value in rulesets.keys() for o in operands):
        return True
    for o in operands:
        if isinstance(o, (ast.Tuple, ast.List, ast.Set)) and any(
                isinstance(e, ast.Constant) and e.value in rulesets.keys() for e in o.elts):
            return True
    return any((isinstance(o, ast.Attribute) and o.attr == "ruleset") or (isinstance(o, ast.Name) and o.id == "ruleset")
               for o in operands)


def test_no_code_outside_rulesets_and_the_format_homes_compares_a_ruleset_key():
    """Kinds are looked up (rulesets.get, formats.registry), not branched on (design.md)."""
    offenders = []
    sources = [p for name, p in MODULES.items() if not name.startswith(("rulesets", "formats."))]
    sources += sorted((ROOT / "benchmarks").glob("*.py"))
    for path in sources:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Compare) and _compares_a_ruleset_key(node):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    templates = [p for p in ROOT.rglob("*.html") if ".venv" not in p.parts and "formats" not in p.parts]
    for path in templates:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\bruleset\s*(==|!=|\bin\b)", line):
                offenders.append(f"{path.relative_to(ROOT)}:{number}")
    assert offenders == []


# Data of the built-in formats, not lists the portal reads (docs/architecture.md, "Adding a fifth format").
NAMES_FORMATS = {"config.settings", "tournaments.demo", "tournaments.synthetic"}
# The ChGK season's own REST endpoints (captains' applications, rating-site imports) use the portal's API layer,
# which a format home may not import; they call the home's services (docs/architecture.md says so).
FORMAT_ENDPOINTS = {"portal.api.applications", "portal.api.imports"}


def _is_shared(name: str) -> bool:
    """A module outside every ruleset package and format home."""
    parts = name.split(".")
    return not (parts[0] in ("rulesets", "formats") and len(parts) > 1 and parts[1] in rulesets.keys())


def test_no_shared_module_names_a_format_key_or_imports_a_format():
    """The registries are the only lists of formats: a shared module names no ruleset key in its code (its
    docstrings may) and imports no ruleset package or format home; the API's examples come from the homes."""
    keys = set(rulesets.keys())
    offenders = []
    for name, path in MODULES.items():
        if not _is_shared(name) or name in NAMES_FORMATS or name == "rulesets":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                      if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                      and node.body and isinstance(node.body[0], ast.Expr)
                      and isinstance(node.body[0].value, ast.Constant)}
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings:
                offenders += [f"{name}:{node.lineno} names {key}" for key in keys if key in node.value]
        for imported in _top_level_imports(path, name) | _inner_imports(tree):
            parts = imported.split(".")
            if parts[0] in ("rulesets", "formats") and len(parts) > 1 and parts[1] in keys \
                    and name not in FORMAT_ENDPOINTS:
                offenders.append(f"{name} imports {imported}")
    assert offenders == []


def _inner_imports(tree: ast.Module) -> set[str]:
    """Modules imported anywhere in a module (inside functions too), as dotted names."""
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return found


def _top_level_imports(path: Path, name: str) -> set[str]:
    """Project modules ``name`` imports at module level (``from a import b`` counts ``a.b`` when a module)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: set[str] = set()
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in tree.body:
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package.split(".")[: len(package.split(".")) - node.level + 1] + ([base] if base else []))
            for alias in node.names:  # ``from pkg import module`` imports the module, else a name of ``pkg``
                found.add(f"{base}.{alias.name}" if f"{base}.{alias.name}" in MODULES else base)
    return {m for m in found if m in MODULES and m != name}


def test_no_import_cycles():
    """No module reaches itself through module-level imports (Tarjan's strongly connected components)."""
    graph = {name: _top_level_imports(path, name) for name, path in MODULES.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for target in graph[node]:
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                cycles.append(sorted(component))

    for name in graph:
        if name not in index:
            visit(name)
    assert cycles == []


LAZY_IMPORTS = {"openpyxl", "openpyxl.utils", "icalendar", "zoneinfo"}  # heavy or optional, loaded when a file is built


def test_imports_sit_at_the_top_of_modules():
    """No import inside a function dodges a cycle; ``AppConfig.ready`` is Django's place for late imports."""
    offenders = []
    for name, path in MODULES.items():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)) or (
                    path.name == "apps.py" and func.name == "ready"):
                continue
            for node in ast.walk(func):
                if isinstance(node, (ast.Import, ast.ImportFrom)):
                    modules = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
                    if not set(modules) <= LAZY_IMPORTS:
                        offenders.append(f"{name}:{node.lineno}")
    assert offenders == []


def test_no_private_name_is_imported_across_packages():
    offenders = []
    for name, path in MODULES.items():
        top = name.split(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PACKAGES:
                if node.module.split(".")[0] == top and not node.module.startswith("formats."):
                    continue
                if node.module.startswith("formats.") and name.startswith(".".join(node.module.split(".")[:2])):
                    continue
                offenders += [f"{name}: {node.module}.{a.name}" for a in node.names
                              if a.name.startswith("_") and not a.name.startswith("__")]
    assert offenders == []


def test_every_format_has_one_home_registered():
    """Each ruleset has its home (formats/<key>/), registered once, whose URLs the site includes."""
    from formats import registry

    assert sorted(home.key for home in registry.homes()) == sorted(rulesets.keys())
    for key in rulesets.keys():
        home = registry.get(key)
        assert (ROOT / "formats" / key / "home.py").exists()
        assert home.urls is None or importlib.import_module(home.urls).urlpatterns
    assert registry.get("fifth").tournament_links(None, None) == [], "an unknown format adds nothing"


def test_import_linter_contracts_hold():
    """The layers and independence contracts of pyproject.toml (scripts/test runs lint-imports too)."""
    import subprocess
    import sys

    linter = Path(sys.executable).parent / "lint-imports"
    if not linter.exists():
        pytest.skip("import-linter is not installed in this environment")
    result = subprocess.run([str(linter)], cwd=ROOT, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout[-3000:]


@pytest.mark.parametrize("path", sorted((ROOT / "benchmarks").glob("*.py")), ids=lambda p: p.name)
def test_every_import_of_the_benchmarks_resolves(path):
    """The benchmarks import inside functions (after Django is set up); a moved name must not wait for CI to fail."""
    missing = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "benchmarks":
            scripts = node.module.split(".")[1:2] or [alias.name for alias in node.names]
            missing += [f"benchmarks.{name}" for name in scripts if not (ROOT / "benchmarks" / f"{name}.py").exists()]
            continue
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] in PACKAGES:
            module = importlib.import_module(node.module)
            for alias in node.names:
                if not hasattr(module, alias.name) and f"{node.module}.{alias.name}" not in MODULES:
                    missing.append(f"{node.module}.{alias.name}")
    assert missing == []


SIZED_PACKAGES = ("interchange", "class_balanced")  # split by concern, one module a stage
MAX_MODULE_LINES = 600
MAX_FUNCTION_LINES = 60


@pytest.mark.parametrize("path", sorted(p for package in SIZED_PACKAGES for p in (RULESETS / package).rglob("*.py")),
                         ids=lambda p: str(p.relative_to(RULESETS)))
def test_modules_and_functions_stay_small(path):
    """Every module of rulesets/interchange/ and rulesets/class_balanced/ holds at most 600 lines, and every
    function (method and nested function included) at most 60."""
    text = path.read_text(encoding="utf-8")
    lines = len(text.splitlines())
    assert lines <= MAX_MODULE_LINES, f"{lines} lines"
    long = [f"{node.name}:{node.lineno} ({node.end_lineno - node.lineno + 1} lines)"
            for node in ast.walk(ast.parse(text)) if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES]
    assert long == []


TRACKER_NUMBER = re.compile(r"\b[Ii]ssues? #?\d|\bdef test_issue")
CITING_FILES = ("*.py", "*.html", "*.md", "*.yml", "*.yaml", "*.toml", "*.txt", "*.js", "*.css", "Dockerfile")
NOT_OURS_PARTS = {".venv", ".git", "node_modules", "locale", "migrations", "staticfiles"}


def test_no_file_cites_a_tracker_issue_number():
    """Comments, docstrings, docs and test names speak of the features and the rule codes, not of our tracker's
    numbers: a newcomer has the regulations and the code, not the tracker. Applied migrations keep what they
    said."""
    citing = []
    for pattern in CITING_FILES:
        for path in ROOT.rglob(pattern):
            if NOT_OURS_PARTS.intersection(path.relative_to(ROOT).parts):
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(), 1):
                if TRACKER_NUMBER.search(line):
                    citing.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not citing, "\n".join(citing)
