"""ChGK season pages: applications, the hosting draw, a tour's questions, checklists, the captain's team page."""

from django.urls import path

from formats.chgk_tour_points import grid, views

urlpatterns = [
    path("t/<slug:slug>/chgk/applications/", views.applications_view, name="chgk-applications"),
    path("t/<slug:slug>/chgk/grid/", grid.grid_view, name="chgk-grid"),
    path("t/<slug:slug>/chgk/hosting/", views.hosting_view, name="chgk-hosting"),
    path("t/<slug:slug>/chgk/tours/<int:number>/questions/", views.questions_view, name="chgk-questions"),
    path("t/<slug:slug>/chgk/checklists/", views.checklists_view, name="chgk-checklists"),
    path("accounts/teams/<int:pk>/manage/", views.team_manage_view, name="team-manage"),
]
