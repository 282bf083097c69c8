"""Pieces shared by every viewset of the REST API: pagination, refusals, roles, times, well-formed input."""

from __future__ import annotations

import datetime as dt
import logging
import zoneinfo
from collections.abc import Iterable
from typing import Any

from django.conf import settings
from django.utils.translation import gettext, gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import APIException, NotFound, ParseError
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import FormParser, JSONParser, MultiPartParser
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.response import Response

from accounts.models import Role
from accounts.permissions import has_role
from rulesets.base import Problem
from rulesets.errors import Invalid
from tournaments.faults import lost_a_race, reason_of
from tournaments.messages import problem_row
from tournaments.sources.files import too_large
from tournaments.sources.json_input import read_json

log = logging.getLogger(__name__)

MAX_ID = 2**63 - 1  # the largest primary key any database of the portal stores


class ApiPagination(PageNumberPagination):
    """``?page=N`` (and ``?page_size=N``, at most 200); the answer carries ``count``.

    A ``page_size`` that is not a whole number of at least 1 is refused (400), as the schema says.
    """

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200

    def get_page_size(self, request) -> int:
        raw = request.query_params.get(self.page_size_query_param)
        if raw is not None:
            if not raw.isascii() or not raw.isdigit() or int(raw) < 1:
                raise Invalid([Problem(self.page_size_query_param, gettext(
                    "must be a whole number of at least 1"))])
            return min(int(raw), self.max_page_size)
        return self.page_size

    def get_page_number(self, request, paginator):
        if request.query_params.get(self.page_query_param) == "":
            raise Invalid([Problem(self.page_query_param, gettext("must be a whole number of at least 1"))])
        return super().get_page_number(request, paginator)

    def get_schema_operation_parameters(self, view) -> list[dict[str, Any]]:
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            parameter["schema"]["minimum"] = 1
        return parameters

    def get_paginated_response_schema(self, schema: dict[str, Any]) -> dict[str, Any]:
        """The envelope, its examples those of a list's only page: an example of a list is that one page."""
        envelope = super().get_paginated_response_schema(schema)
        for name, value in (("count", 1), ("next", None), ("previous", None)):
            envelope["properties"][name]["example"] = value
        return envelope


def refuse_nul_characters(request) -> None:
    """No query parameter may hold a NUL character (no database stores one): 400 naming the parameter."""
    bad = sorted({name for name, values in request.query_params.lists()
                  if "\x00" in name or any("\x00" in value for value in values)})
    if bad:
        raise Invalid([Problem(name.replace("\x00", "\\x00"), gettext("contains a NUL character"))
                       for name in bad])


def nul_path(value: Any, path: str = "") -> str | None:
    """The path of the first string (or key) holding a NUL character in parsed JSON or form data, else None."""
    if isinstance(value, str):
        return path if "\x00" in value else None
    if isinstance(value, dict) or hasattr(value, "lists"):
        items = value.lists() if hasattr(value, "lists") else value.items()
        for key, item in items:
            where = f"{path}.{key}" if path else str(key)
            if "\x00" in str(key):
                return where.replace("\x00", "\\x00")
            found = nul_path(item, where)
            if found is not None:
                return found
    if isinstance(value, list):
        for index, item in enumerate(value):
            found = nul_path(item, f"{path}[{index}]")
            if found is not None:
                return found
    return None


class NulFreeParsing:
    """A parser mixin: a body holding a NUL character anywhere is malformed (400 naming where)."""

    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        where = nul_path(getattr(data, "data", data))
        if where is not None:
            raise ParseError(gettext("%(path)s contains a NUL character") % {"path": where or "the body"})
        return data


class PayloadTooLarge(APIException):
    """413 in the documented errors shape."""

    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_code = "payload_too_large"


def body_too_large_message() -> str:
    return gettext("the body is larger than %(limit)d bytes (IMPORT_MAX_BYTES)") % {
        "limit": settings.DATA_UPLOAD_MAX_MEMORY_SIZE}


class JSONBodyParser(JSONParser):
    """Every JSON body of the API, read by the one JSON reader of the portal (``tournaments.sources.json_input``):
    at most ``MAX_DEPTH`` nested objects and lists, no NUL character, finite numbers; else 400 with every problem
    at its path (``{"errors": [...]}``), never a ``RecursionError``. More than ``IMPORT_MAX_BYTES`` is a 413."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
        raw = stream.read(limit + 1) if limit is not None else stream.read()
        if limit is not None and len(raw) > limit:
            raise PayloadTooLarge({"errors": [{"path": "", "message": body_too_large_message()}]})
        encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
        if encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
            try:
                raw = raw.decode(encoding)
            except (LookupError, UnicodeDecodeError) as exc:
                raise Invalid(Problem("", gettext("the body is not %(encoding)s text") % {
                    "encoding": encoding})) from exc
        return read_json(raw)


NulFreeJSONParser = JSONBodyParser  # the NUL check is the reader's (the name the views knew)


class NulFreeFormParser(NulFreeParsing, FormParser):
    pass


class NulFreeMultiPartParser(NulFreeParsing, MultiPartParser):
    pass


class WellFormedInput:
    """A mixin of every API view: no NUL character in the query or the body, numeric ids that are numbers.

    ``/api/v1/games/true/`` or ``/api/v1/tours/null,null/masks/`` is a 404 naming the id, before any
    command or query sees it; ``?stage=%00`` a 400 naming the parameter (PostgreSQL stores no NUL).
    A JSON body is read by ``JSONBodyParser`` (depth, NUL, finite numbers, each problem at its path),
    and a write that lost a race to a concurrent one is answered as without the race (``handle_exception``).
    """

    numeric_lookup = True
    parser_classes = [JSONBodyParser, NulFreeFormParser, NulFreeMultiPartParser]

    def initial(self, request, *args, **kwargs):
        refuse_nul_characters(request)
        lookup = kwargs.get("pk")
        if self.numeric_lookup and lookup is not None and not is_id(lookup):
            raise NotFound(gettext("%(id)r is not an id: ids are whole numbers.") % {"id": lookup})
        super().initial(request, *args, **kwargs)

    def handle_exception(self, exc):
        """A write that lost a race to a concurrent one (``tournaments.faults.lost_a_race``: the database found the
        unique slug, the result saved twice) is run once more, and answers what it answers without the race."""
        request = getattr(self, "request", None)
        if (request is not None and request.method not in SAFE_METHODS and not getattr(self, "_raced", False)
                and lost_a_race(exc)):
            self._raced = True
            log.info("%s %r lost a race to a concurrent write (%s): answering it once more", request.method,
                     request.path, reason_of(exc))
            handler = getattr(self, request.method.lower(), self.http_method_not_allowed)
            try:
                return handler(request, *self.args, **self.kwargs)
            except Exception as again:  # noqa: BLE001 - answered as any exception of the view is
                return super().handle_exception(again)
        return super().handle_exception(exc)


def is_id(value: object) -> bool:
    """A primary key as a URL holds it: ASCII digits, no larger than the database stores."""
    text = str(value)
    return text.isascii() and text.isdigit() and int(text) <= MAX_ID


def problems_response(problems: Iterable[Problem], code: int = status.HTTP_400_BAD_REQUEST,
                      **extra: Any) -> Response:
    """The one shape of every refusal: ``{"errors": [{"path": ..., "message": ...}]}``."""
    body: dict[str, Any] = {"errors": [problem_row(p) for p in problems]}
    body.update(extra)
    return Response(body, status=code)


def refusal(message: str, path: str = "", code: int = status.HTTP_400_BAD_REQUEST, **extra: Any) -> Response:
    return problems_response([Problem(path, str(message))], code, **extra)


class ErrorSerializer(serializers.Serializer):
    path = serializers.CharField(help_text="where in what was sent (a JSON path, a parameter name; \"\" for all)")
    message = serializers.CharField(help_text="why, in the language of the request (Accept-Language)")
    code = serializers.CharField(required=False, help_text="the message's code: its English template with "
                                 "%(name)s placeholders, the same in every language")
    params = serializers.DictField(required=False, help_text="the values the code's placeholders take")


class ErrorsSerializer(serializers.Serializer):
    """400, 409 and 413: every problem with its path; a conflict adds the current ``version``, who, when."""

    errors = ErrorSerializer(many=True)


class ConflictSerializer(ErrorsSerializer):
    """409 of a write with an older ``version``: the problem, and the current version, who and when."""

    version = serializers.IntegerField(help_text="the current version (send it to write again)")
    updated_by = serializers.CharField(allow_null=True, help_text="who made the current version")
    updated_at = serializers.DateTimeField(allow_null=True, help_text="when (ISO 8601, the tournament's time zone)")


class DetailSerializer(serializers.Serializer):
    """403, 404, 405, 406, 415, 429, 503: one message."""

    detail = serializers.CharField()


ERRORS_SCHEMA = ErrorsSerializer
CONFLICT_SCHEMA = ConflictSerializer
DETAIL_SCHEMA = DetailSerializer


def is_organizer(user, tournament) -> bool:
    """Staff, or a user holding the ``organizer`` role of this tournament."""
    return has_role(user, tournament, Role.ORGANIZER)


class OrganizerWritesOrReadOnly(BasePermission):
    """Anyone reads; writes need a login, and the role the view names for the object: the view's
    ``may_write_object(user, obj)`` when it has one (a check that reads the object's stage), else its
    ``may_write(user, tournament)`` on the object's tournament (default: the organizer role, or staff). A refusal
    says the view's ``write_refusal`` (a text, or a function of the object) when it has one."""

    message = gettext_lazy("Only the tournament's organizers may change its results.")

    def has_permission(self, request, view) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_authenticated)

    def has_object_permission(self, request, view, obj) -> bool:
        if request.method in SAFE_METHODS:
            return True
        may_write_object = getattr(view, "may_write_object", None)
        if may_write_object is not None:
            allowed = may_write_object(request.user, obj)
        else:
            may_write = getattr(view, "may_write", is_organizer)
            allowed = may_write(request.user, view.tournament_of(obj))
        refusal = getattr(view, "write_refusal", None)
        if not allowed and refusal is not None:
            self.message = refusal(obj) if callable(refusal) else refusal
        return allowed


def zone_of(tournament) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(tournament.timezone or "Europe/Moscow")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("Europe/Moscow")


def local_iso(value: dt.datetime | None, tournament) -> str | None:
    """An aware moment as ISO 8601 in the tournament's zone (the offset says which)."""
    if value is None:
        return None
    return value.astimezone(zone_of(tournament)).isoformat()


@extend_schema_field(OpenApiTypes.DATETIME)
class ZonedDateTimeField(serializers.Field):
    """A read-only date and time shown in the zone of the tournament found at ``tournament_path``.

    ``"self"`` when the instance is the tournament itself.
    """

    def __init__(self, tournament_path: str, **kwargs: Any):
        self.tournament_path = tournament_path
        kwargs["read_only"] = True
        kwargs.setdefault("allow_null", True)
        super().__init__(**kwargs)

    def get_attribute(self, instance):
        value = super().get_attribute(instance)
        tournament = instance
        if self.tournament_path != "self":
            for part in self.tournament_path.split("."):
                tournament = getattr(tournament, part)
        return local_iso(value, tournament)

    def to_representation(self, value):
        return value


TRUE = ("1", "true", "yes", "on")  # what a boolean query parameter says for yes


def dry_run(request) -> bool:
    """``?dry_run=true``: answer what would be saved, write nothing."""
    return request.query_params.get("dry_run", "").strip().lower() in TRUE


def oversized(request) -> Response | None:
    """413 before the body is read, from its announced length."""
    try:
        length = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        length = 0
    problem = too_large(length)
    return refusal(problem.message, code=status.HTTP_413_REQUEST_ENTITY_TOO_LARGE) if problem else None
