"""Small helpers shared by the page views."""

from __future__ import annotations

from django.core.paginator import Page, Paginator
from django.db import connections
from django.db.models import Count, F, QuerySet, Value, Window
from django.db.models.functions import Least, RowNumber
from django.db.models.query import ModelIterable, ValuesIterable, ValuesListIterable
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.utils.translation import gettext as _

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
    query, whichever page is asked for.

    Each row carries the count and its place in the order (``COUNT(*) OVER ()``, ``ROW_NUMBER() OVER (ORDER
    BY ...)``, computed over the rows the sort reads anyway) and the query keeps the rows of the page asked for,
    or of the last page when that one is past the end; so a list costs one query, not a count and a slice
    (issue 20, item 3). The page is the one ``Paginator.get_page`` gives: a number that is not a whole number
    gives the first page, one below 1 or past the end the last. A DISTINCT query or one whose rows are neither models,
    tuples nor dicts takes ``Paginator.get_page``'s two queries.
    """
    raw = request.GET.get(param)
    if (queryset.query.distinct or queryset._iterable_class not in _ROW_TOTAL or not queryset.ordered
            or not connections[queryset.db].features.supports_over_clause):
        return Paginator(queryset, per_page).get_page(raw)
    try:
        number = int(raw) if raw is not None else 1
        number = number if 1 <= number <= _LAST_PAGE else _LAST_PAGE  # below 1 too: get_page's last page
    except ValueError:
        number = 1
    order = [*queryset.query.order_by, *queryset.query.extra_order_by] or list(queryset.model._meta.ordering)
    last_start = (F(_TOTAL) - 1) / per_page * per_page  # rows before the last page (integer division)
    start = Least(Value((number - 1) * per_page), last_start)
    rows = list(queryset.annotate(**{_TOTAL: Window(Count("*")), _ROW: Window(RowNumber(), order_by=order)}).filter(
        **{f"{_ROW}__gt": start, f"{_ROW}__lte": start + per_page}))
    paginator = Paginator(queryset, per_page)
    if not rows:
        paginator.count = 0  # Paginator.count is a cached property: the query above counted
        return Page([], 1, paginator)
    objects, total, first = _ROW_TOTAL[queryset._iterable_class](rows)
    paginator.count = total
    return Page(objects, (first - 1) // per_page + 1, paginator)


_TOTAL, _ROW = "page_rows_total", "page_row_number"
_LAST_PAGE = 10 ** 9  # a larger number asks for the last page all the same (and stays a number every database takes)
_ROW_TOTAL = {  # the page's objects without the two numbers, the count, the first row's place
    ModelIterable: lambda rows: (rows, getattr(rows[0], _TOTAL), getattr(rows[0], _ROW)),
    ValuesListIterable: lambda rows: ([row[:-2] for row in rows], rows[0][-2], rows[0][-1]),
    ValuesIterable: lambda rows: ([{k: v for k, v in row.items() if k not in (_TOTAL, _ROW)} for row in rows],
                                  rows[0][_TOTAL], rows[0][_ROW]),
}


def nul_refusal(request: HttpRequest) -> HttpResponse | None:
    """400 naming the parameter when a query parameter holds a NUL character (no database stores one), else None."""
    bad = sorted({name for name, values in request.GET.lists()
                  if "\x00" in name or any("\x00" in value for value in values)})
    if not bad:
        return None
    names = ", ".join(name.replace("\x00", "\\x00") for name in bad)
    return HttpResponseBadRequest(_("The parameter %(names)s holds a NUL character.") % {"names": names},
                                  content_type="text/plain; charset=utf-8")
