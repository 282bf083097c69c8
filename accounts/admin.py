from django.contrib import admin
from django.contrib.auth.admin import UserAdmin as BaseUserAdmin

from accounts import models as m


@admin.register(m.User)
class UserAdmin(BaseUserAdmin):
    fieldsets = (*BaseUserAdmin.fieldsets, (None, {"fields": ("timezone",)}))


class MembershipInline(admin.TabularInline):
    model = m.FamilyMembership
    extra = 0
    autocomplete_fields = ("player",)


@admin.register(m.Family)
class FamilyAdmin(admin.ModelAdmin):
    list_display = ("name", "head", "official")
    search_fields = ("name",)
    autocomplete_fields = ("head",)
    inlines = [MembershipInline]


@admin.register(m.Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ("nick", "full_name", "level", "disqualified", "banned", "user", "claim_confirmed")
    list_filter = ("disqualified", "banned", "claim_confirmed")
    search_fields = ("nick", "full_name")


@admin.register(m.Blacklist)
class BlacklistAdmin(admin.ModelAdmin):
    list_display = ("owner", "blocked", "since")
    autocomplete_fields = ("owner", "blocked")


@admin.register(m.TournamentRole)
class TournamentRoleAdmin(admin.ModelAdmin):
    list_display = ("user", "tournament", "role", "granted_at")
    list_filter = ("role", "tournament")
    search_fields = ("user__username",)
