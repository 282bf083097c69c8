"""Issue 20, item 3: the portal's PostgreSQL sessions run without the JIT, unless ``DATABASE_JIT=on``."""

from __future__ import annotations

import pytest
from django.db import connection

from config.settings import database_from_url

URL = "postgres://portal@db:5432/portal"


def test_a_postgresql_url_turns_the_jit_off(monkeypatch):
    monkeypatch.delenv("DATABASE_JIT", raising=False)
    assert database_from_url(URL)["OPTIONS"] == {"options": "-c jit=off"}


@pytest.mark.parametrize("value, expected", [("on", "-c jit=on"), ("off", "-c jit=off"), ("yes -c work_mem=1TB",
                                                                                            "-c jit=off")])
def test_database_jit_on_is_the_only_value_that_keeps_it(monkeypatch, value, expected):
    monkeypatch.setenv("DATABASE_JIT", value)
    assert database_from_url(URL)["OPTIONS"] == {"options": expected}


@pytest.mark.django_db
def test_the_portals_own_postgresql_session_has_the_jit_off():
    if connection.vendor != "postgresql":
        pytest.skip("PostgreSQL only (DATABASE_URL)")
    with connection.cursor() as cursor:
        cursor.execute("SHOW jit")
        assert cursor.fetchone()[0] == "off"
