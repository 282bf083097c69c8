"""Validate a Compose file against the Compose Specification's JSON schema (.ci/compose-spec.json).

Usage: python .ci/validate_compose.py [docker-compose.yml ...]; exits 1 naming each error's path.
The YAML is read as Compose reads it before interpolation (anchors and ``<<`` merges resolved); the
``${VAR}`` references stay strings, which is what the schema describes.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import jsonschema
import yaml

ROOT = Path(__file__).resolve().parent.parent
SCHEMA = Path(__file__).resolve().parent / "compose-spec.json"


def errors_of(path: Path) -> list[str]:
    """The schema's complaints about one Compose file, each as ``path.to.field: message``."""
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    document = yaml.safe_load(path.read_text(encoding="utf-8"))
    # The schema names draft 2019-09 as "http://json-schema.org/draft/2019-09/schema#", a spelling jsonschema
    # does not map to its draft; say it outright.
    jsonschema.Draft201909Validator.check_schema(schema)
    validator = jsonschema.Draft201909Validator(schema)
    return [f"{'.'.join(str(p) for p in error.absolute_path) or '(top)'}: {error.message}"
            for error in sorted(validator.iter_errors(document), key=lambda e: list(map(str, e.absolute_path)))]


def main(argv: list[str]) -> int:
    paths = [Path(a) for a in argv] or [ROOT / "docker-compose.yml"]
    status = 0
    for path in paths:
        errors = errors_of(path)
        for error in errors:
            print(f"{path}: {error}")
        if errors:
            status = 1
        else:
            print(f"{path}: valid against the Compose Specification schema")
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
