"""Mutated import documents never crash the import and never half write (spec/interchange.md).

The four spec examples (tests/data/examples, copies of spec/examples) are mutated with a fixed seed: a value
replaced by a hostile one (huge and negative integers, 2^31, lone surrogates, NUL, 200-character names,
formula text, moments past year 9999, deep lists ...), a key dropped or added, an element duplicated, a name
moved to another place. Each document goes through one of the three ways in (``import_document``, the import
command, ``POST /api/v1/tournaments/import/``, in turn) and must either be imported or be refused with every
problem naming a non-empty path; a refused one leaves every table as it was. No 500, no traceback. The mutator
and ``table_counts`` are ``tests/fuzzing.py``'s, shared with the fuzzing of every import
(``tests/test_input_fuzz.py``).
"""

from __future__ import annotations

import io
import json
import random
import time

import pytest
from django.core.management import CommandError, call_command
from django.db import transaction
from rest_framework.test import APIClient

from scoring.services import recompute
from tests.conftest import RULESET_KEYS, example
from tests.fuzzing import mutate, table_counts
from tournaments.importer import ImportRefused, import_document

pytestmark = pytest.mark.django_db

SEED = 1919
DOCUMENTS = 200
BUDGET_SECONDS = 90  # about 45-55 s on the shared 2-core machine


def documents() -> list[dict]:
    rng = random.Random(SEED)
    bases = [example(key) for key in RULESET_KEYS]
    return [mutate(bases[i % len(bases)], rng) for i in range(DOCUMENTS)]


def through_importer(document: dict) -> str:
    try:
        tournament = import_document(document)
    except ImportRefused as refused:
        problems = refused.located()
        assert problems and all(p.path and p.message for p in problems), problems
        return "refused"
    recompute(tournament.pk, force=True)  # an accepted document is also computed without a crash
    return "imported"


def through_api(api: APIClient, document: dict) -> str:
    response = api.post("/api/v1/tournaments/import/", data=json.dumps(document), content_type="application/json")
    if response.status_code == 201:
        return "imported"
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:300])
    errors = response.json()["errors"]
    assert errors and all(e["path"] and e["message"] for e in errors), errors
    return "refused"


def through_command(tmp_path, document: dict) -> str:
    path = tmp_path / "mutated.json"
    path.write_text(json.dumps(document), encoding="utf-8")
    err = io.StringIO()
    try:
        call_command("import_tournament", str(path), stdout=io.StringIO(), stderr=err)
    except CommandError as refused:
        assert "nothing was changed" in str(refused) and err.getvalue().strip()
        err.getvalue().encode("utf-8")  # printable: no lone surrogate reaches the terminal
        return "refused"
    return "imported"


def test_two_hundred_mutated_documents_import_or_are_refused_with_a_path_and_write_nothing(tmp_path,
                                                                                         django_user_model):
    """Seeded fuzzing of the import: no crash, no empty path, no partial write, within the budget."""
    staff = django_user_model.objects.create_user("fuzz-staff", password="pw-fuzz-123456", is_staff=True)
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    api.force_login(staff)
    started = time.monotonic()
    outcomes: dict[str, int] = {"imported": 0, "refused": 0}
    for index, document in enumerate(documents()):
        before = table_counts()
        with transaction.atomic():
            channel = index % 3
            try:
                if channel == 0:
                    outcome = through_importer(document)
                elif channel == 1:
                    outcome = through_api(api, document)
                else:
                    outcome = through_command(tmp_path, document)
            except AssertionError as failure:
                raise AssertionError(f"document {index}: {failure}\n{json.dumps(document)[:2000]}") from failure
            if outcome == "refused":
                assert table_counts() == before, f"document {index} was refused but wrote"
            transaction.set_rollback(True)  # the next document starts from the same database
        outcomes[outcome] += 1
        assert time.monotonic() - started < BUDGET_SECONDS, f"over the budget after {index + 1} documents"
    print(f"fuzz outcomes: {outcomes} in {time.monotonic() - started:.1f} s")
    assert sum(outcomes.values()) == DOCUMENTS
    assert outcomes["refused"] > DOCUMENTS // 2 and outcomes["imported"] > 0, outcomes
