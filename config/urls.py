"""The root URLs: the admin, the API, accounts, appeals, the site-wide pages and every format home's pages."""

from django.contrib import admin
from django.urls import include, path

from formats import registry
from portal.views.favicon import favicon

urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/v1/", include("config.api_urls")),
    path("accounts/", include("accounts.urls")),
    path("appeals/", include("appeals.urls")),
    *[path("", include(home.urls)) for home in registry.homes() if home.urls],
    path("", include("portal.urls")),
]

handler404 = "portal.api.errors.not_found"  # JSON under /api/, the site's page elsewhere
handler500 = "portal.api.errors.server_error"  # 503 while the database does not answer; JSON under /api/
