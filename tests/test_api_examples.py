"""Every example of the REST schema is the request or response it documents.

The schema drf-spectacular generates for /api/v1/ is walked for every example
(request bodies and responses, ``example`` and ``examples``) and each one is
validated with ``jsonschema`` against the schema of its media type, turned from
OpenAPI 3.0 into JSON Schema: ``nullable`` becomes a null alternative, ``$ref``
to ``#/components/schemas`` is resolved, and an object that lists its
properties has no others (as Redocly's ``no-invalid-media-type-examples``
judges examples). A wrong example, a property the schema does not have, a
required one missing or a list without its pagination envelope fails here
without node; ``scripts/lint_schema`` runs Redocly over the same schema.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import jsonschema
import pytest
from drf_spectacular.generators import SchemaGenerator

METHODS = ("get", "post", "put", "patch", "delete")
DROPPED = ("nullable", "readOnly", "writeOnly", "example", "examples", "description", "title", "discriminator",
           "externalDocs", "xml", "deprecated")


def to_json_schema(node: Any, components: dict[str, Any]) -> Any:
    """An OpenAPI 3.0 schema object as a JSON Schema (draft 2020-12): refs inlined, nullable, closed objects."""
    if isinstance(node, list):
        return [to_json_schema(item, components) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        return to_json_schema(components[node["$ref"].removeprefix("#/components/schemas/")], components)
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in DROPPED:
            continue
        if key == "properties":
            out[key] = {name: to_json_schema(prop, components) for name, prop in value.items()}
        else:
            out[key] = to_json_schema(value, components)
    if "properties" in node and "additionalProperties" not in node and not {"allOf", "oneOf", "anyOf"} & set(node):
        out["additionalProperties"] = False
    if node.get("nullable"):
        if "enum" in out and None not in out["enum"]:
            out["enum"] = [*out["enum"], None]
        return {"anyOf": [out, {"type": "null"}]}
    return out


def media_examples(schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any], Any]]:
    """(where, the media type's schema, the example's value) for every example of every operation."""
    for path, item in schema["paths"].items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            bodies = [("request", (operation.get("requestBody") or {}).get("content", {}))]
            bodies += [(code, answer.get("content", {})) for code, answer in operation.get("responses", {}).items()]
            for where, content in bodies:
                for media, body in content.items():
                    if "schema" not in body or not media.endswith("json"):
                        continue
                    if "example" in body:
                        yield f"{method.upper()} {path} {where} {media}", body["schema"], body["example"]
                    for name, named in body.get("examples", {}).items():
                        yield f"{method.upper()} {path} {where} {media} {name}", body["schema"], named["value"]


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    return SchemaGenerator().get_schema(request=None, public=True)


def problems_of(schema: dict[str, Any]) -> list[str]:
    components = schema.get("components", {}).get("schemas", {})
    problems = []
    for where, media_schema, value in media_examples(schema):
        validator = jsonschema.Draft202012Validator(to_json_schema(media_schema, components),
                                                    format_checker=jsonschema.FormatChecker())
        problems += [f"{where}: {'/'.join(map(str, error.absolute_path))}: {error.message}"
                     for error in validator.iter_errors(value)]
    return problems


def test_schema_has_examples_of_requests_and_of_responses(schema):
    wheres = [where for where, _schema, _value in media_examples(schema)]
    assert len(wheres) > 50
    assert any(" request " in where for where in wheres) and any(" 200 " in where for where in wheres)


@pytest.mark.django_db
def test_every_example_matches_the_schema_it_documents(schema):
    problems = problems_of(schema)
    assert problems == [], "\n".join(problems)


def nodes(node: Any) -> Iterator[dict[str, Any]]:
    if isinstance(node, dict):
        yield node
        node = list(node.values())
    if isinstance(node, list):
        for item in node:
            yield from nodes(item)


def test_schema_has_what_the_recommended_lint_rules_ask(schema):
    """Redocly's recommended rules, those a missing setting or a drf-spectacular habit broke, checked without node."""
    assert schema["servers"] and all(server["url"] for server in schema["servers"])
    assert schema["info"]["license"]["name"] == "MIT"
    typeless = [node for node in nodes({"components": schema["components"], "paths": schema["paths"]})
                if node.get("nullable") is True and "type" not in node]
    assert typeless == []
    named = {name for _path, item in schema["paths"].items() for method in METHODS if method in item
             for requirement in item[method].get("security", []) for name in requirement}
    assert set(schema["components"]["securitySchemes"]) == named
    games = schema["paths"]["/api/v1/games/"]["post"]["requestBody"]["content"]
    assert list(games) == ["application/json"], "one JSON body, not a form and a multipart copy of it"


def test_the_check_refuses_a_list_without_its_envelope_and_unknown_or_missing_properties():
    schema = {
        "paths": {"/things/": {"get": {"responses": {"200": {"content": {"application/json": {
            "schema": {"$ref": "#/components/schemas/PaginatedThingList"},
            "examples": {"Bare": {"value": [{"id": 1}]}, "Unknown": {"value": {"count": 1, "results": [
                {"id": 1, "name": None, "colour": "red"}]}}, "Missing": {"value": {"count": 1, "results": [{}]}},
                "Good": {"value": {"count": 1, "next": None, "previous": None, "results": [
                    {"id": 1, "name": None}]}}}}}}}}}},
        "components": {"schemas": {
            "Thing": {"type": "object", "properties": {"id": {"type": "integer"},
                                                      "name": {"type": "string", "nullable": True}},
                      "required": ["id"]},
            "PaginatedThingList": {"type": "object", "required": ["count", "results"], "properties": {
                "count": {"type": "integer"}, "next": {"type": "string", "nullable": True},
                "previous": {"type": "string", "nullable": True},
                "results": {"type": "array", "items": {"$ref": "#/components/schemas/Thing"}}}}}},
    }
    problems = problems_of(schema)
    assert len([p for p in problems if " Bare: " in p]) == 1
    assert any(" Unknown: " in p and "colour" in p for p in problems)
    assert any(" Missing: " in p and "'id' is a required property" in p for p in problems)
    assert not any(" Good: " in p for p in problems)
