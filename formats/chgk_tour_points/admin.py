"""Admin of the ChGK season's own rows: line-ups (CHGK-4)."""

from django.contrib import admin

from formats.chgk_tour_points.models import LineUp
from tournaments.admin import TournamentScopedAdmin


@admin.register(LineUp)
class LineUpAdmin(TournamentScopedAdmin):
    """CHGK-4: who was at the table in a tour, between the host's breaks."""

    tournament_path = "tour__stage__tournament"
    list_display = ("tour", "team", "submitted_at", "submitted_by")
    list_filter = ("tour__stage__tournament",)
