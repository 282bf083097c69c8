"""Family league pages: the head's application, the qualifying groups, the calendars, a family's page (FL-1..FL-9)."""

from django.urls import path

from formats.family_league import players, views

urlpatterns = [
    path("t/<slug:slug>/family/apply/", views.apply_view, name="family-apply"),
    path("t/<slug:slug>/family/players/", players.players_view, name="family-players"),
    path("t/<slug:slug>/family/groups/", views.groups_view, name="family-groups"),
    path("t/<slug:slug>/family/calendar/<str:stage_key>/", views.calendar_view, name="family-calendar"),
    path("accounts/families/<int:pk>/", views.family_view, name="family"),
]
