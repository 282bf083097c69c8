from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("i18n/", include("django.conf.urls.i18n")),
    path("api/v1/", include("config.api_urls")),
    path("accounts/", include("accounts.urls")),
    path("appeals/", include("appeals.urls")),
    path("", include("tournaments.urls")),
]
