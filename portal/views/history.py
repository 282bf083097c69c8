"""A tournament's history for its organizers: every change to its facts, readable."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from accounts.models import Role
from accounts.permissions import can_see_history
from portal.history import readable
from tournaments.models import AuditEntry, Tournament

HISTORY_ROLES = (Role.ORGANIZER, Role.CURATOR, Role.JUDGE)


@login_required
def history_view(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not can_see_history(request.user, tournament):
        raise PermissionDenied(_("Only the organizers, curators and judges of %(tournament)s see its history.")
                               % {"tournament": tournament.name})
    entries = AuditEntry.objects.filter(tournament=tournament).order_by("-at", "-id")
    page = Paginator(entries, 100).get_page(request.GET.get("page"))
    return render(request, "tournaments/history.html", {"tournament": tournament, "page": page,
                                                         "rows": readable(page.object_list)})
