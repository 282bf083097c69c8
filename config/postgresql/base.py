"""Django's PostgreSQL backend, reading ``timestamptz`` values with ``datetime.fromisoformat``.

Django reads every ``timestamptz`` through a subclass of psycopg's pure-Python loader (it relabels the value with
its own time zone), so psycopg's C loader never runs: 10 microseconds a value here, 0.2 s of reading a league's
10,000 games with their two times each. PostgreSQL writes the value in ISO form in the session's time zone, which
Django sets to its own; ``fromisoformat`` (C) reads it, and the value is given Django's time zone as Django's loader
gives it: 1.3 microseconds a value. Another date style, infinity or a year BC falls back to psycopg's parser.

The session also stores large values compressed with LZ4 where the server has it (``LZ4_SESSION``).
"""

from __future__ import annotations

import datetime as dt
import functools

from django.db.backends.postgresql import base
from django.db.backends.postgresql.psycopg_any import BaseTzLoader, is_psycopg3


class IsoTzLoader(BaseTzLoader):
    """A ``timestamptz`` in Django's ``timezone`` (None: naive, in the session's time zone), as Django's own loader."""

    def load(self, data) -> dt.datetime:
        try:
            value = dt.datetime.fromisoformat(bytes(data).decode())
        except ValueError:  # another DateStyle, infinity, a year BC: psycopg's parser and its errors
            return super().load(data)
        if value.tzinfo is None:  # not what PostgreSQL writes for a timestamptz: no guess at a local time
            return super().load(data)
        # the session's time zone is Django's: the same wall time, and the fold of a repeated hour kept
        return value.replace(tzinfo=None) if self.timezone is None else value.astimezone(self.timezone)


@functools.lru_cache
def iso_tz_loader(timezone: dt.tzinfo | None) -> type[IsoTzLoader]:
    """The loader class for one time zone (Django compares a connection's loader's ``timezone`` with its own)."""
    return type("IsoTzLoader", (IsoTzLoader,), {"timezone": timezone})


# The session compresses the large JSON values it stores (a league's 1.5 MB standings details, its 13 MB of seat
# figures) with LZ4 where the server has it: twice as fast as the default pglz, to write and to read.
# Only set where the server lists it: one round trip when the connection opens.
LZ4_SESSION = ("SELECT set_config('default_toast_compression', 'lz4', false) FROM pg_settings "
               "WHERE name = 'default_toast_compression' AND 'lz4' = ANY(enumvals)")


class DatabaseWrapper(base.DatabaseWrapper):
    def get_new_connection(self, conn_params):
        connection = super().get_new_connection(conn_params)
        if is_psycopg3:
            connection.adapters.register_loader("timestamptz", iso_tz_loader(self.timezone))
        with connection.cursor() as cursor:
            cursor.execute(LZ4_SESSION)
        if not connection.autocommit:
            connection.commit()  # Django sets the connection's autocommit next, which needs no open transaction
        return connection
