"""Django admin for the facts organizers enter: inlines, search, filters, "recompute now"."""

from __future__ import annotations

from django.contrib import admin, messages
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext

from scoring.services import recompute
from tournaments import models as m


@admin.action(description=_("Recompute the standings now"))
def recompute_now(modeladmin, request, queryset) -> None:
    count = 0
    for tournament in queryset:
        recompute(tournament.pk, force=True)
        count += 1
    modeladmin.message_user(
        request,
        ngettext("Standings of %(count)d tournament recomputed.", "Standings of %(count)d tournaments recomputed.",
                 count) % {"count": count},
        messages.SUCCESS,
    )


class StageInline(admin.TabularInline):
    model = m.Stage
    extra = 0
    fields = ("key", "order", "seed", "published_at")


@admin.register(m.Tournament)
class TournamentAdmin(admin.ModelAdmin):
    list_display = ("name", "slug", "ruleset", "status", "starts_on", "facts_version")
    list_filter = ("ruleset", "status")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("facts_version", "ruleset_version", "created_at")
    inlines = [StageInline]
    actions = [recompute_now]

    def save_model(self, request, obj, form, change) -> None:
        import rulesets

        module = rulesets.get(obj.ruleset)
        obj.settings = {**module.DEFAULT_SETTINGS, **(obj.settings or {})}
        problems = module.validate_settings(obj.settings)
        if problems:
            from django.core.exceptions import ValidationError

            raise ValidationError([str(p) for p in problems])
        if not change:
            obj.ruleset_version = module.VERSION
        super().save_model(request, obj, form, change)


class RosterInline(admin.TabularInline):
    model = m.RosterEntry
    extra = 0
    autocomplete_fields = ("player",)


@admin.register(m.Team)
class TeamAdmin(admin.ModelAdmin):
    list_display = ("name", "tournament", "stage", "captain", "family")
    list_filter = ("tournament",)
    search_fields = ("name", "tournament__name")
    autocomplete_fields = ("captain", "family")
    inlines = [RosterInline]


class SeatInline(admin.TabularInline):
    model = m.Seat
    extra = 0
    autocomplete_fields = ("player",)
    fields = ("order", "player", "team", "role", "stats", "timed_out", "days_played", "maniac_kills",
              "in_final_phase", "fake_passport")


class NoShowInline(admin.TabularInline):
    model = m.NoShowElimination
    extra = 0


@admin.register(m.Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("__str__", "round", "group", "scheduled_at", "status", "outcome", "omon")
    list_filter = ("stage__tournament", "status", "outcome")
    search_fields = ("stage__tournament__name", "seats__player__nick")
    filter_horizontal = ("absent_teams",)
    readonly_fields = ("version", "updated_at", "updated_by")
    inlines = [SeatInline, NoShowInline]


class MaskInline(admin.TabularInline):
    model = m.Mask
    extra = 0


class QuestionInline(admin.StackedInline):
    model = m.Question
    extra = 0


@admin.register(m.Tour)
class TourAdmin(admin.ModelAdmin):
    list_display = ("__str__", "host", "played_on", "questions")
    list_filter = ("stage__tournament",)
    search_fields = ("stage__tournament__name", "host__name")
    filter_horizontal = ("absent",)
    readonly_fields = ("version", "updated_at", "updated_by")
    inlines = [MaskInline, QuestionInline]


class GroupTeamInline(admin.TabularInline):
    model = m.GroupTeam
    extra = 0


@admin.register(m.Group)
class GroupAdmin(admin.ModelAdmin):
    list_display = ("name", "stage")
    list_filter = ("stage__tournament",)
    inlines = [GroupTeamInline]


@admin.register(m.Penalty)
class PenaltyAdmin(admin.ModelAdmin):
    list_display = ("tournament", "stage", "team", "player", "kind", "code", "points", "decided_at")
    list_filter = ("tournament", "kind")
    search_fields = ("team__name", "player__nick", "code")


@admin.register(m.Withdrawal)
class WithdrawalAdmin(admin.ModelAdmin):
    list_display = ("tournament", "team", "at")
    list_filter = ("tournament",)


@admin.register(m.Participant)
class ParticipantAdmin(admin.ModelAdmin):
    list_display = ("player", "tournament", "level", "disqualified", "family")
    list_filter = ("tournament", "disqualified")
    search_fields = ("player__nick",)


@admin.register(m.Stage)
class StageAdmin(admin.ModelAdmin):
    list_display = ("__str__", "key", "seed", "published_at")
    list_filter = ("tournament",)
