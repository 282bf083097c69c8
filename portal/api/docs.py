"""The API's documentation pages, served from the portal alone.

Swagger UI and Redoc come from drf-spectacular-sidecar's static files
(``SWAGGER_UI_DIST`` / ``REDOC_DIST = "SIDECAR"``); Redoc's page is
``templates/api/redoc.html``, drf-spectacular's without its Google fonts.
Each page also carries a Content-Security-Policy that lets it load nothing
from another host: Redoc's bundle draws the Redocly logo from cdn.redoc.ly,
and Swagger UI would ask validator.swagger.io for a badge (switched off by
``SWAGGER_UI_SETTINGS["validatorUrl"] = None`` as well).
"""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularRedocView, SpectacularSwaggerView

SELF_ONLY = "; ".join((
    "default-src 'self'",
    "script-src 'self' 'unsafe-inline' blob:",  # the pages' inline start-up scripts; Redoc's search worker
    "worker-src 'self' blob:",
    "style-src 'self' 'unsafe-inline'",  # both render with inline styles
    "img-src 'self' data:",
    "font-src 'self' data:",
    "connect-src 'self'",
    "frame-ancestors 'none'",
))


class SelfOnly:
    """A documentation page (GET only, not in the schema) that may load only what the portal serves."""

    http_method_names = ["get", "head"]

    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        response = super().get(request, *args, **kwargs)
        response["Content-Security-Policy"] = SELF_ONLY
        return response


class SwaggerView(SelfOnly, SpectacularSwaggerView):
    pass


class RedocView(SelfOnly, SpectacularRedocView):
    template_name = "api/redoc.html"
