"""The organizer's dashboard of one tournament: what needs attention now, and where to fix it."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import Role, TournamentRole
from accounts.permissions import DASHBOARD_ROLES, can_see_dashboard, has_role
from portal.dashboard import attention_items, next_steps, sections
from portal.forms import AdoptRulesForm
from portal.views.season_imports import import_links
from rulesets.errors import NotAllowed
from tournaments.commands import adopt_current_rules, rules_outdated
from tournaments.models import AuditEntry, Tournament
from tournaments.setup import may_create_tournament


@login_required
def dashboard_view(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not can_see_dashboard(request.user, tournament):
        return render(request, "accounts/forbidden.html", {
            "text": _("Only the organizers, curators and judges of %(tournament)s see its dashboard.")
            % {"tournament": tournament.name}}, status=403)
    now = timezone.now()
    items = attention_items(tournament, now)
    organizer = has_role(request.user, tournament, Role.ORGANIZER)
    shown = sections(next_steps(tournament, now, organizer=organizer) + items)
    return render(request, "accounts/dashboard.html", {
        "tournament": tournament, "sections": shown, "quiet": [s for s in shown if not s["items"]],
        "total": len(items), "now": now,
        "tournament_zone": tournament.timezone, "imports": import_links(tournament, request.user),
        "setup_links": setup_links(tournament, organizer),
    })


SETUP_PAGES = ((gettext_lazy("Stages, groups, tours and games"), "tournament-structure"),
               (gettext_lazy("Roles"), "tournament-roles"),
               (gettext_lazy("Webhooks"), "tournament-webhooks"),
               (gettext_lazy("Rules the tables are computed under"), "tournament-rules"))


def setup_links(tournament: Tournament, organizer: bool) -> list[dict[str, str]]:
    """The organizer's pages of the tournament: its structure, its roles, its rules."""
    if not organizer:
        return []
    return [{"label": str(label), "url": reverse(name, args=[tournament.slug])} for label, name in SETUP_PAGES]


@login_required
def dashboards_view(request: HttpRequest) -> HttpResponse:
    """The tournaments whose dashboard the user may open."""
    if request.user.is_staff:
        tournaments = list(Tournament.objects.order_by("-starts_on", "name")[:200])
    else:
        ids = TournamentRole.objects.filter(user=request.user, role__in=DASHBOARD_ROLES).values("tournament_id")
        tournaments = list(Tournament.objects.filter(pk__in=ids).order_by("-starts_on", "name")[:200])
    return render(request, "accounts/dashboards.html", {
        "tournaments": tournaments, "may_create": may_create_tournament(request.user)})


@login_required
def rules_view(request: HttpRequest, slug: str) -> HttpResponse:
    """The rules a tournament is computed under beside the code's current ones, and the organizer's explicit,
    logged action of recomputing under the current rules (design principle 8)."""
    tournament = get_object_or_404(Tournament, slug=slug)
    if not has_role(request.user, tournament, Role.ORGANIZER):
        return render(request, "accounts/forbidden.html", {
            "text": _("Only the organizers of %(tournament)s choose the rules its tables are computed under.")
            % {"tournament": tournament.name}}, status=403)
    form = AdoptRulesForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            changed = adopt_current_rules(request.user, tournament)
        except NotAllowed as refusal:
            return render(request, "accounts/forbidden.html", {"text": str(refusal)}, status=403)
        if changed:
            messages.success(request, _("The tournament now follows the current rules; its tables are being "
                                        "recomputed."))
        else:
            messages.info(request, _("The tournament already follows the current rules."))
        return redirect("tournament-rules", slug=tournament.slug)
    adoptions = AuditEntry.objects.filter(tournament=tournament, action="rules").order_by("-at")[:20]
    changed = rules_outdated(tournament)
    rows = [{"name": name, "kept": kept, "current": changed.get(name, (kept, kept))[1], "changed": name in changed}
            for name, kept in tournament.rules.items()]
    rows += [{"name": name, "kept": None, "current": values[1], "changed": True}
             for name, values in changed.items() if name != "ruleset_version" and name not in tournament.rules]
    return render(request, "tournaments/rules_version.html", {
        "tournament": tournament, "form": form, "changed": changed, "rows": rows, "adoptions": adoptions,
        "version": changed.get("ruleset_version"),
    })
