from django.contrib import admin

from appeals import models as m


@admin.register(m.Decision)
class DecisionAdmin(admin.ModelAdmin):
    list_display = ("tournament", "index", "kind", "stage", "game", "code", "decided_at", "published_at")
    list_filter = ("tournament", "kind")
    search_fields = ("text", "code", "by")


@admin.register(m.Appeal)
class AppealAdmin(admin.ModelAdmin):
    list_display = ("tournament", "kind", "team", "tour", "question", "filed_at", "verdict")
    list_filter = ("tournament", "kind", "verdict", "filed_at")
    search_fields = ("team__name", "answer", "appellant")
    filter_horizontal = ("credited_teams",)
