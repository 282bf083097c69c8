"""The OpenAPI 3 schema of /api/v1/ (drf-spectacular): valid, documented, and true to the responses.

The schema is checked with drf-spectacular's own validator (the OpenAPI 3
JSON schema), every operation is checked for a summary, a description and an
example, and the read endpoints' real responses are validated against the
schema's response schemas with jsonschema. schemathesis runs every one of its
checks against the same schema in ``tests/test_api_schemathesis.py``.
"""

from __future__ import annotations

import json

import jsonschema
import pytest
from django.core.cache import cache
from drf_spectacular.generators import SchemaGenerator
from drf_spectacular.validation import validate_schema
from rest_framework.test import APIClient

from scoring.services import recompute
from tests.conftest import example
from tournaments.importer import import_document

pytestmark = pytest.mark.django_db

API = "/api/v1"
METHODS = ("get", "post", "put", "patch", "delete")
READ_ENDPOINTS = ("tournaments", "stages", "teams", "players", "families", "games", "tours", "penalties", "decisions",
                  "appeals")


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture(scope="module")
def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema: dict):
    for path, item in schema["paths"].items():
        for method in METHODS:
            if method in item:
                yield path, method, item[method]


def test_schema_is_valid_openapi_3(schema):
    validate_schema(schema)
    assert schema["openapi"].startswith("3.")
    assert any(path.startswith("/api/v1/") for path in schema["paths"])


def test_schema_generates_without_warnings_or_errors():
    """drf-spectacular could read every view: no guessed types, no enum name collisions."""
    from drf_spectacular.drainage import GENERATOR_STATS

    GENERATOR_STATS.reset()
    with GENERATOR_STATS.silence():
        SchemaGenerator().get_schema(request=None, public=True)
    assert dict(GENERATOR_STATS._warn_cache) == {} and dict(GENERATOR_STATS._error_cache) == {}


def test_schema_lists_every_endpoint_of_the_brief(schema):
    expected = {
        ("/api/v1/tournaments/import/", "post"), ("/api/v1/tournaments/{slug}/standings/", "get"),
        ("/api/v1/tournaments/{slug}/schedule/", "get"), ("/api/v1/tournaments/{slug}/schedule.ics", "get"),
        ("/api/v1/games/", "post"), ("/api/v1/games/{id}/", "put"), ("/api/v1/tours/{id}/masks/", "put"),
        ("/api/v1/penalties/", "post"), ("/api/v1/penalties/{id}/", "delete"),
    } | {(f"/api/v1/{name}/", "get") for name in READ_ENDPOINTS}
    present = {(path, method) for path, method, _op in operations(schema)}
    assert expected <= present, expected - present


def _has_example(operation: dict) -> bool:
    contents = list((operation.get("requestBody") or {}).get("content", {}).values())
    for response in operation.get("responses", {}).values():
        contents += list(response.get("content", {}).values())
    return any(content.get("examples") or content.get("example") for content in contents)


def test_every_operation_has_a_summary_a_description_and_an_example(schema):
    missing = [(path, method, what) for path, method, op in operations(schema)
               for what, ok in (("summary", op.get("summary")), ("description", op.get("description")),
                                ("example", _has_example(op))) if not ok]
    assert missing == []


def test_schema_endpoint_serves_the_schema_as_json():
    response = APIClient().get(f"{API}/schema/?format=json")
    assert response.status_code == 200
    body = json.loads(response.content)
    validate_schema(body)
    assert "/api/v1/tournaments/import/" in body["paths"]


@pytest.mark.parametrize("page, marker", [("docs", "swagger-ui"), ("redoc", "redoc")])
def test_documentation_pages_load_their_assets_from_the_portal(page, marker):
    """No CDN: Swagger UI and Redoc come from drf-spectacular-sidecar's static files."""
    response = APIClient().get(f"{API}/{page}/")
    assert response.status_code == 200
    html = response.content.decode()
    assert marker in html.lower()
    assert "drf_spectacular_sidecar" in html
    assert "cdn.jsdelivr" not in html and "unpkg.com" not in html


# --- the responses conform to the schema ---


def to_json_schema(node, components: dict):
    """OpenAPI 3.0 schema objects -> JSON Schema (``nullable`` becomes a null alternative, refs inlined)."""
    if isinstance(node, list):
        return [to_json_schema(item, components) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return to_json_schema(components[node["$ref"].rsplit("/", 1)[-1]], components)
    out = {}
    for key, value in node.items():
        if key in ("nullable", "readOnly", "writeOnly", "example", "examples", "format", "description", "title"):
            continue
        if key == "properties":
            out[key] = {name: to_json_schema(prop, components) for name, prop in value.items()}
        else:
            out[key] = to_json_schema(value, components)
    if node.get("nullable"):
        return {"anyOf": [out, {"type": "null"}]}
    return out


def response_schema(schema: dict, path: str, method: str = "get", code: str = "200") -> dict:
    operation = schema["paths"][path][method]
    content = operation["responses"][code]["content"]["application/json"]["schema"]
    return to_json_schema(content, schema["components"]["schemas"])


@pytest.fixture
def populated():
    documents = [example(key) for key in ("chgk_tour_points", "family_league", "class_balanced", "elimination_gp")]
    del documents[0]["appeals"][1]["verdict"]  # a pending ChGK appeal: its team is hidden
    for document in documents:
        tournament = import_document(document)
        recompute(tournament.pk, force=True)


@pytest.mark.parametrize("as_staff", [False, True])
def test_read_responses_conform_to_the_schema(schema, populated, as_staff, django_user_model):
    api = APIClient()
    if as_staff:
        api.force_login(django_user_model.objects.create_user("staff", password="pw-123456789", is_staff=True))
    checked = 0
    for name in READ_ENDPOINTS:
        listing = api.get(f"{API}/{name}/").json()
        jsonschema.validate(listing, response_schema(schema, f"/api/v1/{name}/"))
        detail_path = next(p for p in schema["paths"] if p.startswith(f"/api/v1/{name}/{{") and p.count("/") == 5)
        for row in listing["results"][:3]:
            key = row.get("slug") or row["id"]
            jsonschema.validate(api.get(f"{API}/{name}/{key}/").json(), response_schema(schema, detail_path))
            checked += 1
    schedule = api.get(f"{API}/tournaments/mt-example/schedule/").json()
    jsonschema.validate(schedule, response_schema(schema, "/api/v1/tournaments/{slug}/schedule/"))
    assert checked >= len(READ_ENDPOINTS)


def test_write_responses_conform_to_the_schema(schema, populated, django_user_model):
    api = APIClient()
    api.force_login(django_user_model.objects.create_user("staff", password="pw-123456789", is_staff=True))
    game = dict(example("family_league")["stages"][0]["games"][0], number=7, tournament="mt-example", stage="final")
    created = api.post(f"{API}/games/", game, format="json")
    assert created.status_code == 201
    jsonschema.validate(created.json(), response_schema(schema, "/api/v1/games/", "post", "201"))
    refused = api.post(f"{API}/games/", game, format="json")
    assert refused.status_code == 400
    jsonschema.validate(refused.json(), response_schema(schema, "/api/v1/games/", "post", "400"))
    stale = api.put(f"{API}/games/{created.json()['id']}/", {**game, "version": 0}, format="json")
    assert stale.status_code == 409
    jsonschema.validate(stale.json(), response_schema(schema, "/api/v1/games/{id}/", "put", "409"))
