"""The site-wide Mafia ranking by role (``/players/rankings/``): a GET form (role, period, minimum of games), one
query for the figures, the order of ``portal.careers.ranked`` (the formula is in its docstring and on the page)."""

from __future__ import annotations

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from portal import careers
from portal.views.common import nul_refusal

RANKING_PAGE = 50  # players a page (``?page=``)


def role_rankings_view(request: HttpRequest) -> HttpResponse:
    """The ranking of the chosen role and period, a page at a time; a refused choice is answered 400 with the
    form and each parameter's problem, and no ranking. One query."""
    refused = nul_refusal(request)
    if refused is not None:
        return refused
    form = careers.RankingForm(request.GET)
    valid = form.is_valid()
    period = form.period if valid else careers.Period()
    rows = careers.ranking(period) if valid else []
    page = Paginator(rows, RANKING_PAGE).get_page(request.GET.get("page"))
    return render(request, "tournaments/role_rankings.html", {
        "form": form, "period": period, "page": page, "rows": page.object_list, "valid": valid,
        "role_label": careers.RoleFigures(period.role, 0, 0).role_label, "rules": careers.ranking_rules(),
    }, status=200 if valid else 400)
