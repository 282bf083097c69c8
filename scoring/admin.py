from django.contrib import admin

from scoring import models as m


@admin.register(m.StandingsSnapshot)
class StandingsSnapshotAdmin(admin.ModelAdmin):
    list_display = ("tournament", "stage_key", "facts_version", "computed_at", "stale")
    list_filter = ("stale", "tournament")
    readonly_fields = [f.name for f in m.StandingsSnapshot._meta.fields]


@admin.register(m.RecomputeRun)
class RecomputeRunAdmin(admin.ModelAdmin):
    list_display = ("tournament", "facts_version", "started_at", "finished_at", "ok")
    list_filter = ("ok",)
