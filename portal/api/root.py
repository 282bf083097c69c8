"""``GET /api/v1/``: the API's root, listing its endpoints and linking its documentation.

The menu's "API" link lands here. A browser gets Django REST framework's
browsable page (every URL a link), a client the same as JSON.
"""

from __future__ import annotations

from django.urls import NoReverseMatch, reverse
from django.utils.translation import gettext_lazy as _
from drf_spectacular.utils import OpenApiExample, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from portal.api.common import WellFormedInput

# (name, URL name, what it is, in the request's language) of the endpoints the root lists; a URL name not routed is left out
ENDPOINTS = (
    ("tournaments", "api-tournament-list", _("tournaments; SLUG/standings/, SLUG/schedule/, SLUG/schedule.ics")),
    ("tournament_import", "api-tournament-import-document", _("POST an interchange document")),
    ("stages", "api-stage-list", _("stages with their groups")),
    ("teams", "api-team-list", _("teams with their rosters")),
    ("players", "api-player-list", _("players; ID/career/: a player's tournaments, awards and results by role")),
    ("player_rankings", "api-role-rankings", _("the site-wide Mafia ranking by role over a period")),
    ("families", "api-family-list", _("families")),
    ("games", "api-game-list", _("games with their seats; POST and PUT enter results")),
    ("tours", "api-tour-list", _("ChGK tours with their masks; ID/masks/ enters them")),
    ("penalties", "api-penalty-list", _("fair-play penalties")),
    ("decisions", "api-decision-list", _("decisions of judges and committees")),
    ("appeals", "api-appeal-list", _("appeals and their verdicts")),
)
DOCS = (
    ("schema", "api-schema", _("the OpenAPI 3 schema (?format=json)")),
    ("swagger_ui", "api-docs", _("Swagger UI")),
    ("redoc", "api-redoc", _("Redoc")),
)


def _links(request, rows) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    for name, url_name, what in rows:
        try:
            out[name] = {"url": request.build_absolute_uri(reverse(url_name)), "description": str(what)}
        except NoReverseMatch:
            continue
    return out


class ApiLinkSerializer(serializers.Serializer):
    url = serializers.URLField()
    description = serializers.CharField()


class ApiRootView(WellFormedInput, APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="api_root",
        summary="The API's endpoints and documentation",
        description="Every collection of /api/v1/ with its URL, and the links to the OpenAPI schema, Swagger UI "
                    "and Redoc. Open to everyone.",
        responses={200: inline_serializer("ApiRoot", {
            "version": serializers.CharField(),
            "endpoints": serializers.DictField(child=ApiLinkSerializer()),
            "documentation": serializers.DictField(child=ApiLinkSerializer())})},
        examples=[OpenApiExample("The root", response_only=True, value={
            "version": "1",
            "endpoints": {"tournaments": {"url": "https://portal.example/api/v1/tournaments/",
                                          "description": "tournaments"}},
            "documentation": {"redoc": {"url": "https://portal.example/api/v1/redoc/", "description": "Redoc"}}})],
    )
    def get(self, request):
        return Response({"version": "1", "endpoints": _links(request, ENDPOINTS),
                         "documentation": _links(request, DOCS)})
