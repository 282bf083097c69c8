"""Small helpers shared by the page views."""

from __future__ import annotations

from django.core.paginator import Page, Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.utils.translation import gettext as _

from portal.pagination import LAST_PAGE, counts_in_one_query, last_page, page_of
from tournaments.models import Team, Tournament

PAGE_SIZE = 100


class TeamIndex:
    """Team name -> primary key, per stage where teams are drawn per stage (elimination_gp)."""

    def __init__(self, tournament: Tournament):
        self.by_stage: dict[str | None, dict[str, int]] = {}
        for pk, name, stage_key in Team.objects.filter(tournament=tournament).values_list("pk", "name", "stage__key"):
            self.by_stage.setdefault(stage_key, {})[name] = pk

    def pk(self, name: str | None, stage_key: str | None = None) -> int | None:
        if name is None:
            return None
        if stage_key and name in self.by_stage.get(stage_key, {}):
            return self.by_stage[stage_key][name]
        if name in self.by_stage.get(None, {}):
            return self.by_stage[None][name]
        for names in self.by_stage.values():
            if name in names:
                return names[name]
        return None

    def for_stage(self, stage_key: str | None) -> dict[str, int]:
        """Every team name the stage can mention, the stage's own teams winning over the others."""
        out: dict[str, int] = {}
        for key, names in self.by_stage.items():
            if key is not None and key != stage_key:
                out.update({n: pk for n, pk in names.items() if n not in out})
        out.update(self.by_stage.get(None, {}))
        out.update(self.by_stage.get(stage_key, {}))
        return out


def paginate(request: HttpRequest, queryset: QuerySet, per_page: int = PAGE_SIZE, param: str = "page") -> Page:
    """One page of an ordered queryset (the number read from ``?<param>=``) and the number of its rows, in one
    query (``portal.pagination``; two for a page past the end).

    The page is the one ``Paginator.get_page`` gives: a number that is not a whole number gives the first page,
    one below 1 or past the end the last. A list ``page_of`` cannot read takes ``Paginator.get_page``'s two
    queries.
    """
    raw = request.GET.get(param)
    if not counts_in_one_query(queryset):
        return Paginator(queryset, per_page).get_page(raw)
    try:
        number = int(raw) if raw is not None else 1
    except ValueError:
        number = 1
    if not 1 <= number <= LAST_PAGE:  # below 1 too: get_page's last page
        return last_page(queryset, per_page)
    return page_of(queryset, per_page, number)


def nul_refusal(request: HttpRequest) -> HttpResponse | None:
    """400 naming the parameter when a query parameter holds a NUL character (no database stores one), else None."""
    bad = sorted({name for name, values in request.GET.lists()
                  if "\x00" in name or any("\x00" in value for value in values)})
    if not bad:
        return None
    names = ", ".join(name.replace("\x00", "\\x00") for name in bad)
    return HttpResponseBadRequest(_("The parameter %(names)s holds a NUL character.") % {"names": names},
                                  content_type="text/plain; charset=utf-8")
