"""A fifth format touches only its own packages: ``tests/fifth_format`` holds a Swiss-system Mafia league (its
ruleset and its format home), installed by ``tests.fifth_format.settings`` alone, and its import, recompute,
pages and API run with no other file of the project naming it (docs/architecture.md, "Adding a format")."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
HOME = ROOT / "tests" / "fifth_format"


def test_the_fifth_format_imports_recomputes_and_serves_its_pages_and_api_from_its_own_package():
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "tests.fifth_format.settings"}
    env.pop("PYTEST_XDIST_WORKER", None)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist",
         "--ds", "tests.fifth_format.settings", "-o", "python_files=check_*.py", "-o", "addopts=",
         str(HOME / "check_fifth_format.py")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    assert " passed" in run.stdout and "failed" not in run.stdout


def test_no_file_outside_its_package_names_the_fifth_format():
    """The registries are the only lists of formats: nothing outside ``tests/fifth_format`` (and this test)
    knows the Swiss league exists."""
    names = ("swiss_mafia", "fifth_format", "Swiss Mafia")
    offenders = []
    for path in ROOT.rglob("*"):
        if not path.is_file() or path.suffix not in {".py", ".html", ".txt", ".json", ".toml", ".cfg", ".js"}:
            continue
        parts = path.relative_to(ROOT).parts
        if parts[0].startswith(".") or parts[:2] == ("tests", "fifth_format") or path == Path(__file__):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        offenders += [f"{path.relative_to(ROOT)}: {name}" for name in names if name in text]
    assert offenders == []
