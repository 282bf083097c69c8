"""Public pages (included at "" by config.urls)."""

from django.urls import path

from tournaments import views, views_history

urlpatterns = [
    path("", views.home_view, name="home"),
    path("players/<int:pk>/", views.player_view, name="player"),
    path("t/<slug:slug>/", views.tournament_view, name="tournament"),
    path("t/<slug:slug>/schedule/", views.schedule_view, name="schedule"),
    path("t/<slug:slug>/history/", views_history.history_view, name="history"),
    path("t/<slug:slug>/tours/<int:number>/", views.tour_view, name="tour"),
    path("t/<slug:slug>/teams/<int:pk>/", views.team_view, name="team"),
    path("t/<slug:slug>/<slug:stage_key>/games/<int:number>/", views.game_view, name="game"),
]
