"""The site-wide ranking by role, included at "" by ``portal.urls``."""

from django.urls import path

from portal.views.careers import role_rankings_view

urlpatterns = [
    path("players/rankings/", role_rankings_view, name="role-rankings"),
]
