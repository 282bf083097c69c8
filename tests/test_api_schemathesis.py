"""schemathesis against /api/v1/ with every check, as an anonymous reader and as staff.

The schema is loaded from the application itself (``/api/v1/schema/?format=json``
through WSGI); schemathesis then runs its examples, coverage and fuzzing phases
on every operation and validates each response with all of its checks: no
server error, the status code, content type, headers and body as documented,
invalid data refused with a 4xx, valid data not refused with a 400, an
undocumented method answered with 405, authentication declared where it is
enforced and not where it is not. Any failure fails the test.

The run is deterministic (``derandomize``, a fixed schemathesis seed) and
bounded (``max_examples``) so it takes a minute or two on two cores.
"""

from __future__ import annotations

import json

import pytest
import schemathesis
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.core.management import call_command
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, settings
from rest_framework.authtoken.models import Token
from rest_framework.throttling import AnonRateThrottle
from schemathesis.specs.openapi.checks import positive_data_acceptance

from config.wsgi import application
from scoring.services import recompute
from tests.conftest import example
from tournaments.importer import import_document

pytestmark = pytest.mark.django_db

MAX_EXAMPLES = 10
SEED = 19017
STAFF_TOKEN = "5" * 40


@pytest.fixture(scope="module")
def demo_tournaments(django_db_setup, django_db_blocker):
    """One small tournament of each ruleset (the interchange examples), standings computed.

    Stored once for the module (each test's own writes are rolled back as usual), flushed at the end.
    """
    with django_db_blocker.unblock():
        for key in ("chgk_tour_points", "family_league", "class_balanced", "elimination_gp"):
            tournament = import_document(example(key))
            recompute(tournament.pk, force=True)
        staff = get_user_model().objects.create_user("fuzz-staff", password="pw-123456789", is_staff=True)
        Token.objects.create(user=staff, key=STAFF_TOKEN)
    yield
    with django_db_blocker.unblock():
        call_command("flush", interactive=False, verbosity=0)


@pytest.fixture
def wsgi_in_test_transaction(monkeypatch):
    """Like Django's test client: each WSGI request keeps the test's database connection (and its data).

    The anonymous throttle is lifted: the run sends more requests a minute than one reader may.
    """
    monkeypatch.setattr(AnonRateThrottle, "rate", "1000000/minute", raising=False)
    cache.clear()
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)
    cache.clear()


class StaffToken:
    """schemathesis's auth provider: every case carries the staff user's token (an explicit credential)."""

    def get(self, case, context) -> str:
        return STAFF_TOKEN

    def set(self, case, data: str, context) -> None:
        case.headers = {**(case.headers or {}), "Authorization": f"Token {data}"}


def load_schema() -> schemathesis.schemas.BaseSchema:
    """The schema the application serves at /api/v1/schema/, bound to the WSGI application."""
    document = json.loads(json.dumps(SchemaGenerator().get_schema(request=None, public=True), default=str))
    loaded = schemathesis.openapi.from_dict(document)
    loaded.app = application
    loaded.config.seed = SEED
    return loaded


schema = load_schema()

RUN = settings(max_examples=MAX_EXAMPLES, derandomize=True, deadline=None, database=None,
               suppress_health_check=list(HealthCheck))


WRITES = ("POST", "PUT", "PATCH", "DELETE")


def call_and_validate(case) -> None:
    """Every check of schemathesis; on writes, a 400 for schema-valid data must name what it refuses.

    The schema describes the shape of a game, a penalty, a document; whether the teams exist, the
    seats add up and the rules allow it is the ruleset's judgement (a 400 with the paths), which
    no schema can say. So on writes ``positive_data_acceptance`` gives way to this: a refusal of
    well-shaped data is ``{"errors": [{"path": ..., "message": ...}, ...]}`` with a message each.
    """
    if case.method.upper() not in WRITES:
        case.call_and_validate()
        return
    response = case.call_and_validate(excluded_checks=[positive_data_acceptance])
    if response.status_code == 400:
        body = response.json()
        assert body["errors"] and all(row["message"] for row in body["errors"]), body


@schema.parametrize()
@RUN
def test_every_operation_passes_every_check_anonymously(case, demo_tournaments, wsgi_in_test_transaction):
    """An anonymous reader gets no 500 and nothing that contradicts the schema."""
    call_and_validate(case)


@schema.parametrize()
@schema.auth.apply(StaffToken)
@RUN
def test_every_operation_passes_every_check_as_staff(case, demo_tournaments, wsgi_in_test_transaction):
    """Staff (token) get no 500 and nothing that contradicts the schema, writes included."""
    call_and_validate(case)
