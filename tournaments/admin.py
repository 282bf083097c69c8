"""Django admin for the facts organizers enter: inlines, search, filters, "recompute now"."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

import rulesets
from accounts.models import TournamentRole
from accounts.permissions import RESULT_WRITERS
from rulesets.errors import NotAllowed
from rulesets.interchange import web_link
from tournaments import changes, commands, rosters
from tournaments import models as m
from tournaments.fact_fields import SEAT


class TournamentScopedAdmin(admin.ModelAdmin):
    """An organizer sees and changes only the tournaments where they hold a role; superusers see all."""

    tournament_path = "tournament"
    object_history_template = "admin/tournaments/audit_history.html"

    def history_view(self, request, object_id, extra_context=None):
        """Django's history plus the audit trail of the object (who, when, before and after)."""
        entries = m.AuditEntry.objects.filter(model=self.model._meta.label, object_id=str(object_id))[:200]
        return super().history_view(request, object_id, {**(extra_context or {}), "audit_entries": entries})

    def _tournament_ids(self, request) -> set[int]:
        cache = getattr(request, "_scoped_tournament_ids", None)
        if cache is None:
            cache = request._scoped_tournament_ids = set(TournamentRole.objects.filter(
                user=request.user, role__in=RESULT_WRITERS).values_list("tournament_id", flat=True))
        return cache

    def get_queryset(self, request):
        qs = super().get_queryset(request)
        if request.user.is_superuser:
            return qs
        return qs.filter(**{f"{self.tournament_path}__in": self._tournament_ids(request)})

    def _tournament_id_of(self, obj) -> int | None:
        value = obj
        for part in self.tournament_path.split("__"):
            value = getattr(value, part, None)
        return value.pk if value is not None else None

    def has_module_permission(self, request) -> bool:
        return request.user.is_active and request.user.is_staff

    def has_view_permission(self, request, obj=None) -> bool:
        return self.has_change_permission(request, obj)

    def has_add_permission(self, request) -> bool:
        return request.user.is_superuser or bool(self._tournament_ids(request))

    def has_change_permission(self, request, obj=None) -> bool:
        if request.user.is_superuser:
            return True
        if not request.user.is_staff:
            return False
        if obj is None:
            return bool(self._tournament_ids(request))
        return self._tournament_id_of(obj) in self._tournament_ids(request)

    def has_delete_permission(self, request, obj=None) -> bool:
        return self.has_change_permission(request, obj)


class VersionedForm(forms.ModelForm):
    """Refuses a save based on an outdated read: "changed by X at T, reload"."""

    seen_version = forms.IntegerField(widget=forms.HiddenInput, required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if self.instance.pk:
            self.fields["seen_version"].initial = self.instance.version

    def clean(self):
        """Lock the row for the rest of the admin's transaction, then compare versions.

        The admin's change view runs in one transaction, so a second organizer
        saving at the same moment waits here and then sees the bumped version.
        """
        cleaned = super().clean()
        seen = cleaned.get("seen_version")
        if self.instance.pk and seen is not None:
            rows = type(self.instance).objects.filter(pk=self.instance.pk)
            if transaction.get_connection().in_atomic_block:
                rows = rows.select_for_update()
            current = rows.values("version", "updated_by", "updated_at").first()
            if current and current["version"] != seen:
                raise ValidationError(version_conflict_message(current["updated_by"], current["updated_at"]))
        return cleaned


def version_conflict_message(user: str, at) -> str:
    return gettext("Changed by %(user)s at %(time)s, reload the page.") % {
        "user": user or gettext("someone"), "time": timezone.localtime(at).strftime("%Y-%m-%d %H:%M:%S")}


class VersionedAdmin(TournamentScopedAdmin):
    """Result entry: the row is locked and its version checked and bumped in the admin's transaction."""

    form = VersionedForm

    def save_model(self, request, obj, form, change) -> None:
        if change:
            obj.version = type(obj).objects.values_list("version", flat=True).get(pk=obj.pk) + 1
        obj.updated_by = request.user.get_username()
        super().save_model(request, obj, form, change)


@admin.action(description=_("Recompute the standings now"))
def recompute_now(modeladmin, request, queryset) -> None:
    count = 0
    for tournament in queryset:
        changes.recompute_now(tournament.pk, force=True)
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


class TournamentForm(forms.ModelForm):
    """Settings are completed with the ruleset's defaults and judged by it (design.md principle 8)."""

    class Meta:
        model = m.Tournament
        fields = ["slug", "name", "ruleset", "settings", "timezone", "starts_on", "ends_on", "registration_deadline",
                  "room", "status"]

    def clean(self):
        cleaned = super().clean()
        key = cleaned.get("ruleset")
        if key:
            ruleset = rulesets.get(key)
            settings = {**ruleset.default_settings, **(cleaned.get("settings") or {})}
            problems = ruleset.validate_settings(settings)
            if problems:
                self.add_error("settings", [str(p) for p in problems])
            cleaned["settings"] = settings
        return cleaned


@admin.register(m.Tournament)
class TournamentAdmin(TournamentScopedAdmin):
    form = TournamentForm
    tournament_path = "id"

    list_display = ("name", "slug", "ruleset", "status", "starts_on", "facts_version")
    list_filter = ("ruleset", "status")
    search_fields = ("name", "slug")
    prepopulated_fields = {"slug": ("name",)}
    readonly_fields = ("facts_version", "ruleset_version", "rules", "created_at")
    inlines = [StageInline]
    actions = [recompute_now, "adopt_current_rules"]

    def _tournament_id_of(self, obj) -> int | None:
        return obj.pk

    def delete_model(self, request, obj) -> None:
        commands.delete_tournaments(request.user, [obj])

    def delete_queryset(self, request, queryset) -> None:
        commands.delete_tournaments(request.user, list(queryset))

    def get_deleted_objects(self, objs, request):
        """The confirmation names each tournament and counts what goes with it, instead of listing every row (a
        league holds 150,000 seats); nothing protects a tournament's own rows from its deletion
        (``commands.delete_tournaments``)."""
        ids = [t.pk for t in objs]
        counts = {m.Stage: m.Stage.objects.filter(tournament_id__in=ids), m.Team: m.Team.objects.filter(
            tournament_id__in=ids), m.Game: m.Game.objects.filter(stage__tournament_id__in=ids),
            m.Seat: m.Seat.objects.filter(game__stage__tournament_id__in=ids),
            m.Tour: m.Tour.objects.filter(stage__tournament_id__in=ids)}
        model_count = {model._meta.verbose_name_plural: n for model, rows in counts.items() if (n := rows.count())}
        return [str(t) for t in objs], model_count, set(), []

    @admin.action(description=_("Recompute under the current rules (logged)"))
    def adopt_current_rules(self, request, queryset) -> None:
        """Design principle 8: the organizer's explicit action; each tournament's change is in its history."""
        adopted = 0
        for tournament in queryset:
            try:
                if commands.adopt_current_rules(request.user, tournament):
                    adopted += 1
            except NotAllowed as refusal:
                self.message_user(request, f"{tournament}: {refusal}", messages.ERROR)
        self.message_user(request, ngettext(
            "%(count)d tournament now follows the current rules.",
            "%(count)d tournaments now follow the current rules.", adopted) % {"count": adopted}, messages.SUCCESS)


class RosterFormSet(forms.BaseInlineFormSet):
    """A player is on one team's roster of a tournament (``tournaments.rosters``)."""

    def clean(self) -> None:
        super().clean()
        for form in self.forms:
            data = getattr(form, "cleaned_data", None) or {}
            player = data.get("player")
            if player is None or data.get("DELETE"):
                continue
            other = rosters.roster_conflict(self.instance, player.pk)
            if other is not None:
                form.add_error("player", rosters.roster_conflict_message(player.nick, other))


class RosterInline(admin.TabularInline):
    model = m.RosterEntry
    formset = RosterFormSet
    extra = 0
    autocomplete_fields = ("player",)


@admin.register(m.Team)
class TeamAdmin(TournamentScopedAdmin):
    list_display = ("name", "tournament", "stage", "captain", "family")
    list_filter = ("tournament",)
    search_fields = ("name", "tournament__name")
    autocomplete_fields = ("captain", "family")
    inlines = [RosterInline]


class SeatInline(admin.TabularInline):
    model = m.Seat
    extra = 0
    autocomplete_fields = ("player",)
    fields = ("order", *SEAT.names)


class NoShowInline(admin.TabularInline):
    model = m.NoShowElimination
    extra = 0


class GameForm(VersionedForm):
    """A game in the admin: its log link, as everywhere, only an http:// or https:// address."""

    def clean_link(self) -> str:
        link = (self.cleaned_data.get("link") or "").strip()
        if link and not web_link(link):
            raise ValidationError(gettext("a link is an http:// or https:// address, not %(value)s") % {
                "value": repr(link[:80])})
        return link


@admin.register(m.Game)
class GameAdmin(VersionedAdmin):
    form = GameForm
    tournament_path = "stage__tournament"
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
class TourAdmin(VersionedAdmin):
    tournament_path = "stage__tournament"
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
class GroupAdmin(TournamentScopedAdmin):
    tournament_path = "stage__tournament"
    list_display = ("name", "stage")
    list_filter = ("stage__tournament",)
    inlines = [GroupTeamInline]


@admin.register(m.Penalty)
class PenaltyAdmin(TournamentScopedAdmin):
    list_display = ("tournament", "stage", "team", "player", "kind", "code", "points", "decided_at")
    list_filter = ("tournament", "kind")
    search_fields = ("team__name", "player__nick", "code")


@admin.register(m.Withdrawal)
class WithdrawalAdmin(TournamentScopedAdmin):
    list_display = ("tournament", "team", "at")
    list_filter = ("tournament",)


@admin.register(m.Participant)
class ParticipantAdmin(TournamentScopedAdmin):
    list_display = ("player", "tournament", "level", "disqualified", "family")
    list_filter = ("tournament", "disqualified")
    search_fields = ("player__nick",)


@admin.register(m.Stage)
class StageAdmin(TournamentScopedAdmin):
    list_display = ("__str__", "key", "seed", "published_at")
    list_filter = ("tournament",)


@admin.register(m.AuditEntry)
class AuditEntryAdmin(TournamentScopedAdmin):
    list_display = ("at", "username", "action", "model", "object_repr", "tournament_slug")
    list_filter = ("action", "model", "tournament")
    search_fields = ("object_repr", "username", "object_id")
    readonly_fields = [f.name for f in m.AuditEntry._meta.fields]

    def has_add_permission(self, request) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False

    def has_view_permission(self, request, obj=None) -> bool:
        return super().has_change_permission(request, obj) if obj is None else (
            request.user.is_superuser or self._tournament_id_of(obj) in self._tournament_ids(request))

    def has_delete_permission(self, request, obj=None) -> bool:
        return False


@admin.register(m.PrizePayment)
class PrizePaymentAdmin(admin.ModelAdmin):
    list_display = ("tournament", "stage_key", "place", "player_nick", "team_name", "amount_mf", "paid_at", "paid_by")
    list_select_related = ("tournament", "paid_by")
    search_fields = ("player_nick", "team_name", "tournament__slug")
    raw_id_fields = ("tournament", "paid_by")
