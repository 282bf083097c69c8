"""``__any_of``: the rows of ``__in``, as one array parameter on PostgreSQL (``tournaments/lookups.py``)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.conftest import example
from tournaments.importer import import_document
from tournaments.models import Game, NoShowElimination, Seat, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def games() -> list[Game]:
    tournament = import_document(example("elimination_gp"))
    return list(Game.objects.filter(stage__tournament=tournament).order_by("pk"))


def rows(**lookup) -> list[tuple]:
    return list(Seat.objects.filter(**lookup).order_by("pk").values_list("pk", "game_id", "player_id"))


def test_any_of_gives_the_rows_of_in_for_a_foreign_key_and_a_column(games):
    ids = [g.pk for g in games[1::2]]
    assert rows(game_id__any_of=ids) == rows(game_id__in=ids) != []
    assert rows(game__any_of=set(ids)) == rows(game__in=set(ids))
    assert rows(game_id__any_of=ids[:1]) == rows(game_id__in=ids[:1])
    seats = [s.pk for s in Seat.objects.filter(game__in=games[::2])]
    assert len(seats) > 50  # past psycopg's cached parsing
    assert rows(pk__any_of=seats) == rows(pk__in=seats) != []
    assert rows(pk__any_of=tuple(seats)) == rows(pk__in=seats)


def test_any_of_takes_what_in_takes(games):
    assert rows(game__any_of=games[:2]) == rows(game__in=games[:2]) != []  # instances
    assert rows(game_id__any_of=[str(games[0].pk), None]) == rows(game_id__in=[str(games[0].pk), None]) != []
    assert rows(game_id__any_of=[]) == [] == rows(game_id__in=[])
    assert list(Game.objects.filter(no_show_eliminations__any_of=NoShowElimination.objects.values("pk"))) == list(
        Game.objects.filter(no_show_eliminations__in=NoShowElimination.objects.values("pk")))


def test_on_postgresql_the_integers_go_as_one_array(games):
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only (DATABASE_URL)")
    ids = [g.pk for g in games]
    with CaptureQueriesContext(connection) as queries:
        rows(game_id__any_of=ids)
        rows(game_id__any_of=[*ids, None])
    fast, fallback = (q["sql"] for q in queries.captured_queries)
    assert "= ANY('{" in fast and "IN (" not in fast
    assert "IN (" in fallback and "ANY" not in fallback


def test_the_tournament_filter_still_joins(games):
    tournament = Tournament.objects.get()
    assert rows(game__stage__tournament_id__any_of=[tournament.pk]) == rows(game__stage__tournament=tournament)
