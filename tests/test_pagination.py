"""A paginated list of the pages reads its page and its count in one query
(``portal.views.common.paginate``), and pages exactly as Django's ``Paginator.get_page``."""

from __future__ import annotations

import pytest
from django.core.paginator import Paginator
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext

from accounts.models import Player
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


@pytest.mark.parametrize("query, number, rows, queries", [
    ("", 1, 5, 1), ("?page=2", 2, 5, 1), ("?page=5", 5, 3, 1), ("?page=0", 5, 3, 1), ("?page=x", 1, 5, 1),
    ("?page=6", 5, 3, 2)])
def test_a_page_takes_one_query_and_one_past_the_end_two(players, query, number, rows, queries):
    """The page asked for in one query at any size of the list (below 1: the last page, numbered in one query);
    past the end, the empty answer carries no count, and the last page is read in a second query."""
    with CaptureQueriesContext(connection) as captured:
        page = page_of(players.values_list("nick", flat=False), query)
        assert (page.number, page.paginator.count, page.paginator.num_pages, len(list(page))) == (
            number, ROWS, 5, rows)
    assert len(captured) == queries, [q["sql"] for q in captured]
    assert all("OVER ()" in q["sql"] for q in captured)


@pytest.mark.parametrize("query, queries", [("", 1), ("?page=3", 2)])
def test_an_empty_list_is_one_empty_first_page(db, query, queries):
    with CaptureQueriesContext(connection) as captured:
        page = page_of(Player.objects.filter(nick="nobody").order_by("pk"), query)
        assert page.number == 1 and page.paginator.count == 0 and list(page) == []
        assert page.paginator.num_pages == 1 and not page.has_other_pages()
    assert len(captured) == queries


def test_a_page_is_read_with_limit_not_by_numbering_every_row(players):
    """The database sorts only what the page needs: LIMIT/OFFSET, no ROW_NUMBER() over the whole list."""
    with CaptureQueriesContext(connection) as captured:
        page_of(players, "?page=2")
    assert "ROW_NUMBER" not in captured[0]["sql"] and "LIMIT 5 OFFSET 5" in captured[0]["sql"]
