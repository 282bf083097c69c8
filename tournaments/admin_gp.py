"""Admin for the Grand Prix registrations and prize payments (read mostly; pages are the way to change them)."""

from django.contrib import admin

from tournaments.gp_models import PrizePayment, StageRegistration


@admin.register(StageRegistration)
class StageRegistrationAdmin(admin.ModelAdmin):
    list_display = ("stage", "player", "registered_at", "invited", "basket", "withdrawn_at")
    list_filter = ("invited",)
    list_select_related = ("stage__tournament", "player")
    search_fields = ("player__nick", "stage__tournament__slug")
    raw_id_fields = ("stage", "player", "replaces", "registered_by")


@admin.register(PrizePayment)
class PrizePaymentAdmin(admin.ModelAdmin):
    list_display = ("tournament", "stage_key", "place", "player_nick", "team_name", "amount_mf", "paid_at", "paid_by")
    list_select_related = ("tournament", "paid_by")
    search_fields = ("player_nick", "team_name", "tournament__slug")
    raw_id_fields = ("tournament", "paid_by")
