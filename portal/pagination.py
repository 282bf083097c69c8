"""One page of an ordered list and the number of its rows, in one query.

Each row carries the count and its place in the order (``COUNT(*) OVER ()``, ``ROW_NUMBER() OVER (ORDER BY
...)``, computed over the rows the sort reads anyway) and the query keeps the rows of the page asked for: a
list costs one query, not a count and a slice (issue 20, item 3). The pages (``portal.views.common.paginate``)
and the API (``portal.api.common.ApiPagination``) read their lists through it.
"""

from __future__ import annotations

from django.core.paginator import Page, Paginator
from django.db import connections
from django.db.models import Count, F, QuerySet, Value, Window
from django.db.models.functions import Least, RowNumber
from django.db.models.query import ModelIterable, ValuesIterable, ValuesListIterable

LAST_PAGE = 10 ** 9  # a larger number asks for the last page all the same (and stays a number every database takes)
_TOTAL, _ROW = "page_rows_total", "page_row_number"
_ROW_TOTAL = {  # the page's objects without the two numbers, the count, the first row's place
    ModelIterable: lambda rows: (rows, getattr(rows[0], _TOTAL), getattr(rows[0], _ROW)),
    ValuesListIterable: lambda rows: ([row[:-2] for row in rows], rows[0][-2], rows[0][-1]),
    ValuesIterable: lambda rows: ([{k: v for k, v in row.items() if k not in (_TOTAL, _ROW)} for row in rows],
                                  rows[0][_TOTAL], rows[0][_ROW]),
}


def counts_in_one_query(queryset: QuerySet) -> bool:
    """Whether ``page_of`` can read a page of ``queryset``: ordered, not DISTINCT (the window would count the
    rows before DISTINCT), rows that are models, tuples or dicts, on a database with window functions."""
    return (not queryset.query.distinct and queryset._iterable_class in _ROW_TOTAL and queryset.ordered
            and connections[queryset.db].features.supports_over_clause)


def page_of(queryset: QuerySet, per_page: int, number: int, *, last_if_past: bool) -> Page | None:
    """Page ``number`` (from 1) of ``queryset`` (``counts_in_one_query``), its paginator's count set, in one query.

    Past the last page: the last page when ``last_if_past`` (as ``Paginator.get_page``), else None. An empty list
    gives an empty first page either way.
    """
    order = [*queryset.query.order_by, *queryset.query.extra_order_by] or list(queryset.model._meta.ordering)
    start: object = (number - 1) * per_page
    if last_if_past:  # no further than the rows before the last page (integer division)
        start = Least(Value(start), (F(_TOTAL) - 1) / per_page * per_page)
    rows = list(queryset.annotate(**{_TOTAL: Window(Count("*")), _ROW: Window(RowNumber(), order_by=order)}).filter(
        **{f"{_ROW}__gt": start, f"{_ROW}__lte": start + per_page}))
    paginator = Paginator(queryset, per_page)
    if not rows:
        if number > 1 and not last_if_past:
            return None  # past the end, or an empty list: the caller's own paginator tells which
        paginator.count = 0  # Paginator.count is a cached property: the query above counted
        return Page([], 1, paginator)
    objects, total, first = _ROW_TOTAL[queryset._iterable_class](rows)
    paginator.count = total
    return Page(objects, (first - 1) // per_page + 1, paginator)
