import datetime as dt

from django.contrib import admin
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from tournaments import models as m

VERDICT_DAYS = 9  # CHGK-18: verdicts by 23:59 of D+9


class VerdictDueFilter(admin.SimpleListFilter):
    """Pending appeals by their verdict deadline (CHGK-18: D+9; Mafia appeals have none)."""

    title = _("verdict deadline")
    parameter_name = "due"

    def lookups(self, request, model_admin):
        return [("overdue", _("overdue")), ("soon", _("due within 2 days")), ("pending", _("pending"))]

    def queryset(self, request, queryset):
        today = timezone.localdate()
        pending = queryset.filter(verdict__isnull=True)
        if self.value() == "overdue":
            return pending.filter(tour__played_on__lt=today - dt.timedelta(days=VERDICT_DAYS))
        if self.value() == "soon":
            return pending.filter(tour__played_on__gte=today - dt.timedelta(days=VERDICT_DAYS),
                                  tour__played_on__lte=today - dt.timedelta(days=VERDICT_DAYS - 2))
        if self.value() == "pending":
            return pending
        return queryset


@admin.register(m.Decision)
class DecisionAdmin(admin.ModelAdmin):
    list_display = ("tournament", "index", "kind", "stage", "game", "code", "decided_at", "published_at")
    list_filter = ("tournament", "kind")
    search_fields = ("text", "code", "by")


@admin.register(m.Appeal)
class AppealAdmin(admin.ModelAdmin):
    list_display = ("tournament", "kind", "team", "tour", "question", "filed_at", "verdict")
    list_filter = (VerdictDueFilter, "tournament", "kind", "verdict", "filed_at")
    date_hierarchy = "filed_at"
    search_fields = ("team__name", "answer", "appellant")
    filter_horizontal = ("credited_teams",)
