"""class_balanced pages: a stage's schedule, generated, reviewed and published (CB-2, CB-5, CB-6)."""

from django.urls import path

from formats.class_balanced import players, views

urlpatterns = [
    path("t/<slug:slug>/cb/players/", players.players_view, name="cb-players"),
    path("t/<slug:slug>/stages/<slug:stage_key>/schedule/", views.stage_schedule_view, name="stage-schedule"),
]
