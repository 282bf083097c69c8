"""The organizer's dashboard of one tournament (issue 10): what needs attention now, and where to fix it."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import TournamentRole
from accounts.permissions import DASHBOARD_ROLES, can_see_dashboard
from portal.dashboard import attention_items, sections
from tournaments.models import Tournament


@login_required
def dashboard_view(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not can_see_dashboard(request.user, tournament):
        return render(request, "accounts/forbidden.html", {
            "text": _("Only the organizers, curators and judges of %(tournament)s see its dashboard.")
            % {"tournament": tournament.name}}, status=403)
    now = timezone.now()
    items = attention_items(tournament, now)
    return render(request, "accounts/dashboard.html", {
        "tournament": tournament, "sections": sections(items), "total": len(items), "now": now,
        "tournament_zone": tournament.timezone,
    })


@login_required
def dashboards_view(request: HttpRequest) -> HttpResponse:
    """The tournaments whose dashboard the user may open."""
    if request.user.is_staff:
        tournaments = list(Tournament.objects.order_by("-starts_on", "name")[:200])
    else:
        ids = TournamentRole.objects.filter(user=request.user, role__in=DASHBOARD_ROLES).values("tournament_id")
        tournaments = list(Tournament.objects.filter(pk__in=ids).order_by("-starts_on", "name")[:200])
    return render(request, "accounts/dashboards.html", {"tournaments": tournaments})
