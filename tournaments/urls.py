"""Public pages (included at "" by config.urls)."""

from django.urls import path

from tournaments import views, views_chgk, views_entry, views_gp, views_history, views_schedule

urlpatterns = [
    path("", views.home_view, name="home"),
    path("players/<int:pk>/", views.player_view, name="player"),
    path("t/<slug:slug>/", views.tournament_view, name="tournament"),
    path("t/<slug:slug>/schedule/", views.schedule_view, name="schedule"),
    path("t/<slug:slug>/history/", views_history.history_view, name="history"),
    path("t/<slug:slug>/stages/<slug:stage_key>/schedule/", views_schedule.stage_schedule_view,
         name="stage-schedule"),
    path("t/<slug:slug>/tours/<int:number>/", views.tour_view, name="tour"),
    path("t/<slug:slug>/teams/<int:pk>/", views.team_view, name="team"),
    path("t/<slug:slug>/<slug:stage_key>/games/<int:number>/", views.game_view, name="game"),
    path("t/<slug:slug>/gp/finalists/", views_gp.finalists_view, name="gp-finalists"),
    path("t/<slug:slug>/gp/<slug:stage_key>/registration/", views_gp.registration_view, name="gp-registration"),
    path("t/<slug:slug>/gp/<slug:stage_key>/draw/", views_gp.draw_view, name="gp-draw"),
    path("t/<slug:slug>/prizes/", views_gp.prizes_view, name="prizes"),
    path("t/<slug:slug>/tours/<int:number>/enter/", views_entry.tour_entry_view, name="tour-entry"),
    path("t/<slug:slug>/<slug:stage_key>/games/<int:number>/enter/", views_entry.game_entry_view, name="game-entry"),
    path("t/<slug:slug>/<slug:stage_key>/games/new/", views_entry.game_entry_view, name="game-new"),
    path("t/<slug:slug>/chgk/applications/", views_chgk.applications_view, name="chgk-applications"),
    path("t/<slug:slug>/chgk/hosting/", views_chgk.hosting_view, name="chgk-hosting"),
    path("t/<slug:slug>/chgk/tours/<int:number>/questions/", views_chgk.questions_view, name="chgk-questions"),
    path("t/<slug:slug>/chgk/checklists/", views_chgk.checklists_view, name="chgk-checklists"),
]
