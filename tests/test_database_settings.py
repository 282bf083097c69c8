"""The portal's PostgreSQL sessions run without the JIT, unless ``DATABASE_JIT=on``, and read
``timestamptz`` values with ``datetime.fromisoformat`` (``config/postgresql``)."""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import psycopg
import pytest
from django.db import connection
from django.db.backends.postgresql.psycopg_any import BaseTzLoader

from config.postgresql.base import IsoTzLoader, iso_tz_loader
from config.settings import database_from_url
from tests.conftest import example
from tournaments.importer import import_document
from tournaments.loader import load_facts
from tournaments.models import Game

URL = "postgres://portal@db:5432/portal"


def test_a_postgresql_url_turns_the_jit_off(monkeypatch):
    monkeypatch.delenv("DATABASE_JIT", raising=False)
    assert database_from_url(URL)["OPTIONS"] == {"options": "-c jit=off"}


@pytest.mark.parametrize("value, expected", [("on", "-c jit=on"), ("off", "-c jit=off"), ("yes -c work_mem=1TB",
                                                                                            "-c jit=off")])
def test_database_jit_on_is_the_only_value_that_keeps_it(monkeypatch, value, expected):
    monkeypatch.setenv("DATABASE_JIT", value)
    assert database_from_url(URL)["OPTIONS"] == {"options": expected}


@pytest.fixture
def pg_cursor(db):
    """A cursor of the portal's own PostgreSQL session (the test is skipped on SQLite)."""
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only (DATABASE_URL)")
    with connection.cursor() as cursor:
        yield cursor


def test_the_portals_own_postgresql_session_has_the_jit_off(pg_cursor):
    pg_cursor.execute("SHOW jit")
    assert pg_cursor.fetchone()[0] == "off"


def test_the_portals_own_postgresql_session_compresses_large_values_with_lz4_where_the_server_has_it(pg_cursor):
    pg_cursor.execute("SELECT enumvals FROM pg_settings WHERE name = 'default_toast_compression'")
    available = pg_cursor.fetchone()[0]
    pg_cursor.execute("SHOW default_toast_compression")
    assert pg_cursor.fetchone()[0] == ("lz4" if "lz4" in available else "pglz")


def djangos_loader(timezone):
    return type("DjangosLoader", (BaseTzLoader,), {"timezone": timezone})(1184, None)


@pytest.mark.parametrize("text", [b"2026-12-03 07:59:09+00", b"2026-12-03 07:59:09.525187+00",
                                  b"2026-12-03 07:59:09.5+03", b"2014-09-01 19:00:00-05:30", b"0001-01-01 00:00:00+00"])
def test_the_iso_loader_gives_what_djangos_loader_gives(text):
    ours, djangos = iso_tz_loader(dt.UTC)(1184, None), djangos_loader(dt.UTC)
    assert ours.load(text) == djangos.load(text)
    assert ours.load(text).tzinfo is dt.UTC
    assert ours.load(memoryview(text)) == djangos.load(text)


def test_the_iso_loader_without_a_time_zone_gives_the_sessions_wall_time():
    assert iso_tz_loader(None)(1184, None).load(b"2026-12-03 07:59:09+03") == dt.datetime(2026, 12, 3, 7, 59, 9)


def test_the_iso_loader_keeps_the_fold_of_a_repeated_hour():
    loader = iso_tz_loader(ZoneInfo("America/New_York"))(1184, None)
    first, second = loader.load(b"2026-11-01 01:30:00-04"), loader.load(b"2026-11-01 01:30:00-05")
    assert (first.fold, second.fold) == (0, 1)
    assert second - first == dt.timedelta(0) and second.timestamp() - first.timestamp() == 3600


def test_the_iso_loader_leaves_what_is_not_iso_to_psycopg():
    with pytest.raises(psycopg.DataError, match="infinity"):
        iso_tz_loader(dt.UTC)(1184, None).load(b"infinity")


def test_the_loader_class_is_made_once_per_time_zone():
    assert iso_tz_loader(dt.UTC) is iso_tz_loader(dt.UTC)
    assert iso_tz_loader(dt.UTC).timezone is dt.UTC


def test_a_postgresql_url_names_the_portals_backend():
    assert database_from_url(URL)["ENGINE"] == "config.postgresql"


def test_the_portals_postgresql_session_reads_times_with_the_iso_loader(pg_cursor):
    pg_cursor.execute("SELECT '2026-12-03 07:59:09.5+03'::timestamptz")
    value = pg_cursor.fetchone()[0]
    assert isinstance(pg_cursor.cursor.adapters.get_loader(1184, psycopg.pq.Format.TEXT)(1184, None), IsoTzLoader)
    assert value == dt.datetime(2026, 12, 3, 4, 59, 9, 500000, tzinfo=dt.UTC)
    assert value.tzinfo is dt.UTC


@pytest.mark.django_db
def test_times_read_back_as_written():
    """On either database: a game's time read back by the ORM and by the loader is the time written."""
    tournament = import_document(example("family_league"))
    when = dt.datetime(2026, 3, 1, 19, 0, 0, 123456, tzinfo=ZoneInfo("Europe/Moscow"))
    game = Game.objects.filter(stage__tournament=tournament).order_by("number").first()
    Game.objects.filter(pk=game.pk).update(scheduled_at=when)
    assert Game.objects.values_list("scheduled_at", flat=True).get(pk=game.pk) == when
    read = {g.number: g.scheduled_at for stage in load_facts(tournament).stages for g in stage.games}
    assert read[game.number] == when and read[game.number].utcoffset() == dt.timedelta(0)


def test_the_iso_loader_refuses_a_time_without_an_offset_as_psycopg_does():
    with pytest.raises(psycopg.DataError, match="07:59:09"):
        iso_tz_loader(dt.UTC)(1184, None).load(b"2026-12-03 07:59:09")
