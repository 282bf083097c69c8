"""What drf-spectacular cannot see by itself: the error answers and who needs to log in.

``document_errors`` is a postprocessing hook (``SPECTACULAR_SETTINGS["POSTPROCESSING_HOOKS"]``).
For every operation of the schema it

- declares authentication optional on reads: anyone reads (``security`` lists
  the session cookie, the token and ``{}``, no credentials); writes keep the
  cookie or the token;
- documents the error answers the portal gives, with the shared bodies of
  ``portal.api.errors``: ``{"errors": [{"path", "message"}]}`` for 400 (a bad
  parameter, malformed JSON, a refused document) and 409, ``{"detail": ...}``
  for 401 (no credentials, or a token unknown, revoked or expired, with
  ``WWW-Authenticate: Token``), 403 (not allowed), 404 (no such object, page or path),
  415 (a body that is not JSON), 429 (the anonymous throttle, with
  ``Retry-After``) and 503 (the database does not answer, with ``Retry-After``);
- says in every operation that takes a body what a JSON body may be
  (``JSON_BODY``: UTF-8, nested at most ``MAX_DEPTH`` levels, no NUL character,
  finite numbers; else 400, each problem at its path).

A response an operation documents itself is left as it is. A text parameter in
the query or the path is declared without NUL characters (``pattern``): the API
refuses them (``portal.api.common.WellFormedInput``), since no database stores one.

What the schema's linters and client generators need (``scripts/lint_schema``,
``tests/test_api_examples.py``, ``tests/test_generated_client.py``):

- a nullable choice (drf-spectacular's ``nullable`` beside ``oneOf:
  [<Choices>Enum, NullEnum]``, with no ``type``) is given the type of its
  choices: OpenAPI 3.0 allows ``nullable`` only beside a ``type``;
- a request body drf-spectacular lists once per parser (``application/json``
  and a form and a multipart copy of the same schema) is documented as JSON
  only, what the API's bodies are (a game's nested seats do not go as a form);
  a multipart body an operation declares with its own schema (a file) stays;
- a parameter's schema keeps no ``title`` (django-filter's label, in the
  language of the generation, which a client generator makes a class name of;
  the ``description`` says the same);
- a security scheme no operation names is left out (knox's ``knoxApiToken``:
  the same ``Authorization: Token`` header as ``tokenAuth``).
"""

from __future__ import annotations

from typing import Any

from tournaments.sources.json_input import MAX_DEPTH

ERRORS_REF = {"$ref": "#/components/schemas/Errors"}
DETAIL_REF = {"$ref": "#/components/schemas/Detail"}
READS = ("get", "head")
WRITES = ("post", "put", "patch", "delete")
NO_NUL = "^[^\\x00]*$"
OPTIONAL_AUTH = [{"cookieAuth": []}, {"tokenAuth": []}, {}]
REQUIRED_AUTH = [{"cookieAuth": []}, {"tokenAuth": []}]

ERROR_COMPONENTS: dict[str, dict[str, Any]] = {
    "Error": {"type": "object", "properties": {"path": {"type": "string"}, "message": {"type": "string"}},
              "required": ["path", "message"]},
    "Errors": {"type": "object", "properties": {"errors": {"type": "array", "items": {
        "$ref": "#/components/schemas/Error"}}}, "required": ["errors"]},
    "Detail": {"type": "object", "properties": {"detail": {"type": "string"}}, "required": ["detail"]},
}

DESCRIPTIONS = {
    "400": "refused input: every problem with its path (a parameter, a JSON path)",
    "401": "not logged in: no credentials, or a token that is unknown, revoked or expired; send "
           "`Authorization: Token <token>` (create one on /accounts/profile/tokens/)",
    "403": "not allowed to do this (the detail names the rule)",
    "404": "no such object, page or path",
    "409": "changed meanwhile (the current version, who and when) or already there",
    "415": "the body is not JSON",
    "429": "too many requests; retry after Retry-After seconds",
    "503": "the database does not answer just now (nothing was changed); retry after Retry-After seconds",
}
JSON_BODY = (f"\n\nA JSON body is UTF-8 and nests at most {MAX_DEPTH} objects and lists; it holds no NUL character "
             "(\\u0000) and no number that is not finite (NaN, Infinity, 1e400). Anything else is refused with 400 "
             "and every problem at its path (`{\"errors\": [{\"path\": \"seats[2].player\", \"message\": ...}]}`), "
             "never with a 500.")


def _answer(code: str, ref: dict[str, str]) -> dict[str, Any]:
    answer: dict[str, Any] = {"description": DESCRIPTIONS[code], "content": {"application/json": {"schema": ref}}}
    if code == "401":
        answer["headers"] = {"WWW-Authenticate": {"schema": {"type": "string"}, "description": "`Token`"}}
    if code in ("429", "503"):
        answer["headers"] = {"Retry-After": {"schema": {"type": "integer"}, "description": "seconds"}}
    return answer


def errors_of(method: str, operation: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The error answers an operation can give (before its own documented ones are kept)."""
    parameters = operation.get("parameters", [])
    answers = {"404": _answer("404", DETAIL_REF), "429": _answer("429", DETAIL_REF),
               "503": _answer("503", DETAIL_REF)}
    if any(p.get("in") == "query" for p in parameters) or "requestBody" in operation or method in WRITES:
        answers["400"] = _answer("400", ERRORS_REF)
    if method in WRITES:
        answers["401"] = _answer("401", DETAIL_REF)
        answers["403"] = _answer("403", DETAIL_REF)
    if "requestBody" in operation:
        answers["415"] = _answer("415", DETAIL_REF)
    return answers


def _choice_type(node: dict[str, Any], schemas: dict[str, Any]) -> str | None:
    """The one type of the choices a typeless schema combines (``oneOf``/``anyOf``/``allOf`` of refs), else None."""
    types = set()
    for part in node.get("oneOf", []) + node.get("anyOf", []) + node.get("allOf", []):
        target = schemas.get(part.get("$ref", "").removeprefix("#/components/schemas/"), part)
        if target.get("enum") == [None]:
            continue
        if "type" not in target and target.get("enum") and all(isinstance(v, str) for v in target["enum"]):
            types.add("string")  # BlankEnum: [""]
        else:
            types.add(target.get("type"))
    return types.pop() if len(types) == 1 and None not in types else None


def type_nullable_choices(node: Any, schemas: dict[str, Any]) -> None:
    """Give every ``nullable`` schema without a ``type`` the type of its choices, in place (see the docstring)."""
    if isinstance(node, list):
        for item in node:
            type_nullable_choices(item, schemas)
        return
    if not isinstance(node, dict):
        return
    if node.get("nullable") and "type" not in node and "$ref" not in node:
        kind = _choice_type(node, schemas)
        if kind is not None:
            node["type"] = kind
    for value in node.values():
        type_nullable_choices(value, schemas)


def document_errors(result: dict[str, Any], generator, request, public) -> dict[str, Any]:
    """The postprocessing hook (see the module's docstring)."""
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, component in ERROR_COMPONENTS.items():
        schemas.setdefault(name, component)
    type_nullable_choices(schemas, schemas)
    type_nullable_choices(result.get("paths", {}), schemas)
    for item in result.get("paths", {}).values():
        for method, operation in item.items():
            if method not in READS + WRITES:
                continue
            operation["security"] = OPTIONAL_AUTH if method in READS else REQUIRED_AUTH
            for parameter in operation.get("parameters", []):
                schema = parameter.get("schema", {})
                schema.pop("title", None)
                if parameter.get("in") in ("query", "path") and schema.get("type") == "string" and not (
                        {"enum", "format", "pattern"} & set(schema)):
                    schema["pattern"] = NO_NUL
            content = operation.get("requestBody", {}).get("content", {})
            for media in [media for media in content if media != "application/json" and "application/json" in content
                          and content[media].get("schema") == content["application/json"].get("schema")]:
                del content[media]
            if "requestBody" in operation and JSON_BODY not in operation.get("description", ""):
                operation["description"] = operation.get("description", "") + JSON_BODY
            responses = operation.setdefault("responses", {})
            for code, answer in errors_of(method, operation).items():
                responses.setdefault(code, answer)
            if "403" in responses:
                responses.setdefault("401", _answer("401", DETAIL_REF))
    named = {name for requirement in OPTIONAL_AUTH + REQUIRED_AUTH for name in requirement}
    schemes = result["components"].get("securitySchemes", {})
    for name in set(schemes) - named:
        del schemes[name]
    return result
