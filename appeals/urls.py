from django.urls import path

from appeals import views

urlpatterns = [
    path("queue/", views.queue_view, name="appeal-queue"),
    path("<int:pk>/", views.detail_view, name="appeal-detail"),
    path("<int:pk>/verdict/", views.verdict_view, name="appeal-verdict"),
    path("t/<slug:slug>/file/", views.file_view, name="appeal-file"),
]
