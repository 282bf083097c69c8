"""Grand Prix pages: stage registration, the draw, the series' finalists (GP-3..GP-8, GP-16..GP-19)."""

from django.urls import path

from formats.elimination_gp import views

urlpatterns = [
    path("t/<slug:slug>/gp/finalists/", views.finalists_view, name="gp-finalists"),
    path("t/<slug:slug>/gp/<slug:stage_key>/registration/", views.registration_view, name="gp-registration"),
    path("t/<slug:slug>/gp/<slug:stage_key>/draw/", views.draw_view, name="gp-draw"),
    path("t/<slug:slug>/gp/<slug:stage_key>/committee/", views.committee_view, name="gp-committee"),
]
