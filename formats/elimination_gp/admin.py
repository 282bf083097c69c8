"""Admin for the Grand Prix registrations (read mostly; pages are the way to change them)."""

from django.contrib import admin

from formats.elimination_gp.models import StageRegistration


@admin.register(StageRegistration)
class StageRegistrationAdmin(admin.ModelAdmin):
    list_display = ("stage", "player", "registered_at", "invited", "basket", "withdrawn_at")
    list_filter = ("invited",)
    list_select_related = ("stage__tournament", "player")
    search_fields = ("player__nick", "stage__tournament__slug")
    raw_id_fields = ("stage", "player", "replaces", "registered_by")
