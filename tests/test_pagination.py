"""Issue 20, item 3: a paginated list of the pages reads its page and its count in one query
(``portal.views.common.paginate``), and pages exactly as Django's ``Paginator.get_page``; the API's lists
(``portal.api.common.ApiPagination``) the same, answering as DRF's own pagination."""

from __future__ import annotations

import pytest
from django.core.paginator import Paginator
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from rest_framework.exceptions import APIException
from rest_framework.pagination import PageNumberPagination
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from accounts.models import Player
from portal.api.common import ApiPagination
from portal.views.common import paginate

ROWS = 23
PER_PAGE = 5


@pytest.fixture
def players(db):
    Player.objects.bulk_create(Player(nick=f"pager-{n:02d}") for n in range(ROWS))
    return Player.objects.filter(nick__startswith="pager-").order_by("nick")


def page_of(queryset, query: str = ""):
    return paginate(RequestFactory().get("/" + query), queryset, PER_PAGE)


def as_django(queryset, query: str = ""):
    return Paginator(queryset, PER_PAGE).get_page(RequestFactory().get("/" + query).GET.get("page"))


@pytest.mark.parametrize("query", ["", "?page=1", "?page=3", "?page=5", "?page=6", "?page=99", "?page=0",
                                   "?page=-2", "?page=x", "?page=", "?page=1.0", "?page=99999999999999999999999"])
@pytest.mark.parametrize("shape", ["models", "values_list", "values"])
def test_the_page_its_number_and_the_count_are_djangos(players, query, shape):
    """Every page number, valid or not, gives the page Paginator.get_page gives: the same rows, number, count."""
    queryset = {"models": players, "values_list": players.values_list("nick", "level"),
                "values": players.values("nick", "level")}[shape]
    ours, theirs = page_of(queryset, query), as_django(queryset, query)
    assert (ours.number, ours.paginator.count, ours.paginator.num_pages) == (
        theirs.number, theirs.paginator.count, theirs.paginator.num_pages)
    assert list(ours) == list(theirs)
    assert (ours.has_next(), ours.has_previous(), ours.start_index()) == (
        theirs.has_next(), theirs.has_previous(), theirs.start_index())


@pytest.mark.parametrize("query, number, rows", [("", 1, 5), ("?page=2", 2, 5), ("?page=5", 5, 3), ("?page=6", 5, 3),
                                                  ("?page=0", 5, 3), ("?page=x", 1, 5)])
def test_any_page_takes_one_query(players, query, number, rows):
    """The page asked for, or the last one past the end: one query either way, at any size of the list."""
    with CaptureQueriesContext(connection) as captured:
        page = page_of(players.values_list("nick", flat=False), query)
        assert (page.number, page.paginator.count, page.paginator.num_pages, len(list(page))) == (
            number, ROWS, 5, rows)
    assert len(captured) == 1, [q["sql"] for q in captured]
    assert "OVER ()" in captured[0]["sql"]


@pytest.mark.parametrize("query", ["", "?page=3"])
def test_an_empty_list_is_one_empty_first_page(db, query):
    with CaptureQueriesContext(connection) as captured:
        page = page_of(Player.objects.filter(nick="nobody").order_by("pk"), query)
        assert page.number == 1 and page.paginator.count == 0 and list(page) == []
        assert page.paginator.num_pages == 1 and not page.has_other_pages()
    assert len(captured) == 1


class _DrfsOwn(ApiPagination):
    """The API's pagination as DRF pages: a count, then a slice."""

    def paginate_queryset(self, queryset, request, view=None):
        return PageNumberPagination.paginate_queryset(self, queryset, request, view)


def _api_page(pagination_class, queryset, query: str):
    """(status, the paginated answer or the error) of one page of the API."""
    request = Request(APIRequestFactory().get("/api/v1/players/" + query))
    pagination = pagination_class()
    try:
        rows = pagination.paginate_queryset(queryset, request)
    except APIException as exc:
        return exc.status_code, str(exc.detail)
    return 200, pagination.get_paginated_response(rows).data


@pytest.mark.parametrize("query", ["", "?page=1", "?page=3", "?page=5", "?page=6", "?page=99", "?page=0",
                                   "?page=-2", "?page=x", "?page=1.0", "?page=last", "?page=99999999999999999999999",
                                   "?page_size=7&page=4", "?page_size=500", "?page=2&page_size=1"])
@pytest.mark.parametrize("shape", ["models", "values"])
def test_the_apis_page_is_drfs_own_in_one_query(players, query, shape):
    """portal.api.common.ApiPagination: every page number gives DRF's answer (the rows, count, next and
    previous links; 404 past the end or for a number that is not one), a page of rows in one query."""
    queryset = {"models": players, "values": players.values("nick", "level")}[shape]
    with CaptureQueriesContext(connection) as captured:
        ours = _api_page(ApiPagination, queryset, query)
    assert ours == _api_page(_DrfsOwn, queryset, query)
    if ours[0] == 200 and "last" not in query:
        assert len(captured) == 1 and "OVER ()" in captured[0]["sql"]


def test_the_apis_empty_list_is_one_empty_first_page_and_its_second_page_404(db):
    empty = Player.objects.filter(nick="nobody").order_by("pk")
    assert _api_page(ApiPagination, empty, "") == _api_page(_DrfsOwn, empty, "") == (
        200, {"count": 0, "next": None, "previous": None, "results": []})
    ours = _api_page(ApiPagination, empty, "?page=2")
    assert ours == _api_page(_DrfsOwn, empty, "?page=2") and ours[0] == 404
