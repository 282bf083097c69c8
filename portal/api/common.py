"""Pieces shared by every viewset of the REST API: pagination, refusals, roles, times."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Iterable
from typing import Any

from django.utils.translation import gettext_lazy
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field, inline_serializer
from rest_framework import serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import SAFE_METHODS, BasePermission
from rest_framework.response import Response

from accounts.models import Role
from accounts.permissions import has_role
from rulesets.base import Problem


class ApiPagination(PageNumberPagination):
    """``?page=N`` (and ``?page_size=N``, at most 200); the answer carries ``count``."""

    page_size = 50
    page_size_query_param = "page_size"
    max_page_size = 200


def problems_response(problems: Iterable[Problem], code: int = status.HTTP_400_BAD_REQUEST,
                      **extra: Any) -> Response:
    """The one shape of every refusal: ``{"errors": [{"path": ..., "message": ...}]}``."""
    body: dict[str, Any] = {"errors": [{"path": p.path, "message": p.message} for p in problems]}
    body.update(extra)
    return Response(body, status=code)


def refusal(message: str, path: str = "", code: int = status.HTTP_400_BAD_REQUEST, **extra: Any) -> Response:
    return problems_response([Problem(path, str(message))], code, **extra)


ERRORS_SCHEMA = inline_serializer(
    name="Errors",
    fields={"errors": serializers.ListField(child=inline_serializer(
        name="Error", fields={"path": serializers.CharField(), "message": serializers.CharField()}))},
)
DETAIL_SCHEMA = inline_serializer(name="Detail", fields={"detail": serializers.CharField()})


def is_organizer(user, tournament) -> bool:
    """Staff, or a user holding the ``organizer`` role of this tournament."""
    return has_role(user, tournament, Role.ORGANIZER)


class OrganizerWritesOrReadOnly(BasePermission):
    """Anyone reads; writes need a login, and the object's tournament's organizer role (or staff)."""

    message = gettext_lazy("Only the tournament's organizers may change its results.")

    def has_permission(self, request, view) -> bool:
        if request.method in SAFE_METHODS:
            return True
        return bool(request.user and request.user.is_authenticated)

    def has_object_permission(self, request, view, obj) -> bool:
        if request.method in SAFE_METHODS:
            return True
        may_write = getattr(view, "may_write", is_organizer)
        return may_write(request.user, view.tournament_of(obj))


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


def local_text(value: dt.datetime | None, tournament) -> str:
    """A moment for people: ``2014-09-08 19:00 (Europe/Moscow)``."""
    if value is None:
        return "—"
    return f"{value.astimezone(zone_of(tournament)):%Y-%m-%d %H:%M} ({tournament.timezone})"


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
