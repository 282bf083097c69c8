"""The recompute job's output in the admin: read-only, since the job derives it from the facts.

Snapshots and runs are never written by hand (design principle 2): the admin lists and shows them; it offers no
"add", no change and no delete (adding a snapshot by hand used to end in a server error).
"""

from django.contrib import admin

from scoring import models as m


class DerivedAdmin(admin.ModelAdmin):
    """A model the recompute job writes: viewable, never added, changed or deleted in the admin."""

    def get_readonly_fields(self, request, obj=None):
        return [f.name for f in self.model._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(m.StandingsSnapshot)
class StandingsSnapshotAdmin(DerivedAdmin):
    list_display = ("tournament", "stage_key", "facts_version", "computed_at", "stale")
    list_filter = ("stale", "tournament")


@admin.register(m.RecomputeRun)
class RecomputeRunAdmin(DerivedAdmin):
    list_display = ("tournament", "facts_version", "started_at", "finished_at", "ok")
    list_filter = ("ok",)
