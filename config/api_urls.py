"""``/api/v1/``: one router joining every app's viewsets, the standings and schedule views, the schema.

- the root (``/api/v1/`` itself) lists the endpoints and links the documentation (``portal.api.root``);
- ``schema/`` OpenAPI 3 (drf-spectacular), ``docs/`` Swagger UI, ``redoc/`` Redoc (assets from the sidecar);
- ``tournaments/import/`` (POST), ``tournaments/SLUG/standings/``, ``tournaments/SLUG/schedule/``,
  ``tournaments/SLUG/schedule.ics``;
- ``tournaments``, ``stages``, ``teams``, ``players``, ``families``, ``games``, ``tours`` (``ID/masks/``),
  ``penalties``, ``decisions``, ``appeals``.
"""

from django.urls import include, path, re_path
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from drf_spectacular.views import SpectacularAPIView
from rest_framework.routers import DefaultRouter

from portal.api.appeals import AppealViewSet, DecisionViewSet
from portal.api.common import WellFormedInput
from portal.api.docs import RedocView, SwaggerView
from portal.api.root import ApiRootView
from portal.api.standings import StandingsView
from portal.api.views import (
    SLUG_PATTERN,
    FamilyViewSet,
    GameViewSet,
    PenaltyViewSet,
    PlayerViewSet,
    ScheduleCalendarView,
    StageViewSet,
    TeamViewSet,
    TournamentViewSet,
    TourViewSet,
)
from rulesets.errors import Invalid, Problem

LANGUAGES = ("ru", "en")


class SchemaView(WellFormedInput, SpectacularAPIView):
    @extend_schema(
        operation_id="schema_retrieve",
        summary="This API's OpenAPI 3 schema",
        description="The OpenAPI 3 description of every endpoint under /api/v1/, as YAML (default) or JSON "
                    "(`?format=json` or `Accept: application/vnd.oai.openapi+json`); `?lang=en` or `?lang=ru` "
                    "picks the language of the translated field titles. Swagger UI reads it at /api/v1/docs/, "
                    "Redoc at /api/v1/redoc/.",
        parameters=[OpenApiParameter("format", str, enum=["json", "yaml"]),
                    OpenApiParameter("lang", str, enum=list(LANGUAGES))],
        responses={(200, "application/vnd.oai.openapi"): OpenApiResponse(OpenApiTypes.OBJECT),
                   (200, "application/vnd.oai.openapi+json"): OpenApiResponse(OpenApiTypes.OBJECT)},
        examples=[OpenApiExample("The schema", response_only=True, media_type="application/vnd.oai.openapi+json",
                                 value={"openapi": "3.0.3", "info": {"title": "Tournament portal API",
                                                                     "version": "1"}, "paths": {}})],
    )
    def get(self, request, *args, **kwargs):
        lang = request.query_params.get("lang")
        if lang is not None and lang not in LANGUAGES:
            raise Invalid([Problem("lang", _("one of: %(languages)s") % {"languages": ", ".join(LANGUAGES)})])
        return super().get(request, *args, **kwargs)


router = DefaultRouter()
router.include_root_view = False
router.register("tournaments", TournamentViewSet, basename="api-tournament")
router.register("stages", StageViewSet, basename="api-stage")
router.register("teams", TeamViewSet, basename="api-team")
router.register("players", PlayerViewSet, basename="api-player")
router.register("families", FamilyViewSet, basename="api-family")
router.register("games", GameViewSet, basename="api-game")
router.register("tours", TourViewSet, basename="api-tour")
router.register("penalties", PenaltyViewSet, basename="api-penalty")
router.register("decisions", DecisionViewSet, basename="api-decision")
router.register("appeals", AppealViewSet, basename="api-appeal")

urlpatterns = [
    path("", ApiRootView.as_view(), name="api-root"),
    path("schema/", SchemaView.as_view(), name="api-schema"),
    path("docs/", SwaggerView.as_view(url_name="api-schema"), name="api-docs"),
    path("redoc/", RedocView.as_view(url_name="api-schema"), name="api-redoc"),
    # slugs may hold any letters (the interchange format allows them), as in the router's lookups
    re_path(rf"^tournaments/(?P<slug>{SLUG_PATTERN})/standings/$", StandingsView.as_view(), name="api-standings"),
    re_path(rf"^tournaments/(?P<slug>{SLUG_PATTERN})/schedule\.ics$", ScheduleCalendarView.as_view(),
            name="api-schedule-ics"),
    path("", include("portal.api.imports")),  # imports: a game log, a rating-site response
    path("", include("portal.api.season_imports")),  # season imports: rosters, a batch of game logs, penalties
    path("", include("portal.api.applications")),  # a ChGK captain applies, the organizers decide
    path("", include("portal.api.setup")),  # POST tournaments/new/ creates a tournament
    path("", include("portal.api.roles")),  # a tournament's roles, granted and revoked
    path("", include("portal.api.webhooks")),  # a tournament's webhooks and their delivery log
    path("", include("portal.api.careers")),  # careers: players/ID/career/, players/rankings/ (before the router)
    path("", include(router.urls)),
]
