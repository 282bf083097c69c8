"""A tournament's history for its organizers: every change to its facts (issue 6)."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from accounts.models import Role
from accounts.permissions import has_role
from tournaments.models import AuditEntry, Tournament

HISTORY_ROLES = (Role.ORGANIZER, Role.CURATOR, Role.JUDGE)


@login_required
def history_view(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not has_role(request.user, tournament, *HISTORY_ROLES):
        raise PermissionDenied
    entries = AuditEntry.objects.filter(tournament=tournament).order_by("-at", "-id")
    page = Paginator(entries, 100).get_page(request.GET.get("page"))
    return render(request, "tournaments/history.html", {"tournament": tournament, "page": page})
