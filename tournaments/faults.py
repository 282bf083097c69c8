"""What went wrong with the database, in words.

- ``database_unavailable(exc)``: the database did not answer (refused or lost connection, a server shutting down
  or starting up, no connection slot left, an SQLite file that cannot be opened or stays locked). The pages and
  the API answer 503 with ``Retry-After`` for it, the log gets one line (``config.logs``), the commands one
  line and a non-zero exit (``config.startup``). Any other database error is a bug, answered 500 as before.
- ``database_named()``: which database that is, for the people who run the portal (never its password).
- ``once_more_after_race(call)``: a write the database refused because a concurrent write got there first (a
  unique slug, a result saved twice: an ``IntegrityError``, or a refusal made of one) is tried once more, when
  the race is over: it then answers what the same write answers without the race (409 "a tournament 'x'
  exists", "stage S already has game N" ...), since the commands check those things before they write.
  The refused attempt was rolled back whole (each command is one transaction); a call inside a transaction the
  error broke is not retried.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TypeVar

from django.db import DEFAULT_DB_ALIAS, IntegrityError, connections, transaction
from django.db.utils import InterfaceError, OperationalError

log = logging.getLogger(__name__)

T = TypeVar("T")

# SQLSTATEs of a server that cannot take the connection or the query now (PostgreSQL's classes 08 and 57P,
# "too many connections"); a client-side failure (refused, timed out, lost) has no SQLSTATE at all.
UNAVAILABLE_STATES = ("08", "57P01", "57P02", "57P03", "53300")
SQLITE_UNAVAILABLE = ("unable to open database file", "database is locked", "disk I/O error")


def _chain(exc: BaseException | None):
    seen = set()
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        yield exc
        exc = exc.__cause__ or exc.__context__


def database_unavailable(exc: BaseException | None) -> bool:
    """Whether ``exc`` (or what caused it) says the database did not answer (see the module's docstring)."""
    for error in _chain(exc):
        if isinstance(error, InterfaceError):
            return True
        if isinstance(error, OperationalError):
            return _driver_says_unavailable(error)
    return False


def _driver_says_unavailable(error: OperationalError) -> bool:
    cause = error.__cause__
    state = getattr(cause, "sqlstate", None)
    module = type(cause).__module__ if cause is not None else ""
    if module.startswith("psycopg"):
        return state is None or state.startswith(UNAVAILABLE_STATES)
    if module.startswith("sqlite3"):
        return any(text in str(cause) for text in SQLITE_UNAVAILABLE)
    return state is None or str(state).startswith(UNAVAILABLE_STATES)


def reason_of(exc: BaseException) -> str:
    """The first line of what the driver said (``connection refused ...``), for a log line."""
    for error in _chain(exc):
        if isinstance(error, (InterfaceError, OperationalError)) and error.__cause__ is not None:
            exc = error.__cause__
            break
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def database_named(alias: str = DEFAULT_DB_ALIAS) -> str:
    """``PostgreSQL 'portal' at db:5432 as 'portal'``, ``SQLite /srv/db.sqlite3``: which database, no password."""
    wrapper = connections[alias]
    settings = wrapper.settings_dict
    vendor = {"postgresql": "PostgreSQL", "sqlite": "SQLite", "mysql": "MySQL"}.get(wrapper.vendor, wrapper.vendor)
    if wrapper.vendor == "sqlite":
        return f"{vendor} {settings.get('NAME')}"
    host = settings.get("HOST") or "localhost"
    port = settings.get("PORT")
    where = f"{host}:{port}" if port else host
    user = f" as {settings['USER']!r}" if settings.get("USER") else ""
    return f"{vendor} {settings.get('NAME')!r} at {where}{user}"


def lost_a_race(exc: BaseException) -> bool:
    """An ``IntegrityError`` (or a refusal made of one) in a transaction that is over: worth one more try."""
    if not any(isinstance(error, IntegrityError) for error in _chain(exc)):
        return False
    connection = transaction.get_connection()
    return not connection.needs_rollback


def once_more_after_race(call: Callable[[], T], what: str = "a write") -> T:
    """``call()``; after a race lost to a concurrent write (``lost_a_race``), ``call()`` once more."""
    try:
        return call()
    except Exception as exc:
        if not lost_a_race(exc):
            raise
        log.info("%s lost a race to a concurrent write (%s): trying it once more", what, reason_of(exc))
    return call()


