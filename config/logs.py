"""The log: one line per event, as a JSON object.

``{"time": "2025-03-01T18:04:05.123Z", "level": "WARNING", "logger": "django.request", "message": "Forbidden:
/t/x/", "status": 403, "method": "POST", "path": "/t/x/"}``: the time in UTC, the level and the logger always;
the answer's status, method and path when the event is about a request. Whatever the message holds (a slug, a
nick, a path someone typed) is escaped by the JSON encoding, so no entered text can start a line of its own or
pass for another field; the project's own messages quote names with ``%r`` as well.

A traceback is part of the line (``"traceback"``) only where the code failed: an event of level ERROR or above
that is not about a 4xx answer. A refusal logged with its exception (Django's ``Forbidden (Permission denied)``
for a 403, a 400's ``SuspiciousOperation``) gets the exception's one line (``"error"``) instead, and so does a
database that did not answer (``tournaments.faults.database_unavailable``): one line per failed request, naming
the database, not a traceback per request.
"""

from __future__ import annotations

import datetime as dt
import json
import logging
from typing import Any

from tournaments.faults import database_named, database_unavailable, reason_of


def _one_line(exc: BaseException) -> str:
    lines = [line.strip() for line in str(exc).splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


class OneLineFormatter(logging.Formatter):
    """Each record as one line of JSON (see the module's docstring)."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": dt.datetime.fromtimestamp(record.created, dt.UTC).isoformat(timespec="milliseconds")
            .replace("+00:00", "Z"),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        status = getattr(record, "status_code", None)
        if isinstance(status, int):
            entry["status"] = status
        request = getattr(record, "request", None)
        for name in ("method", "path"):
            value = getattr(request, name, None)
            if isinstance(value, str):
                entry[name] = value
        exc = record.exc_info[1] if record.exc_info else None
        if exc is not None:
            if database_unavailable(exc):
                entry["error"] = f"the database did not answer: {reason_of(exc)} ({self._database()})"
            elif record.levelno >= logging.ERROR and not (isinstance(status, int) and status < 500):
                entry["traceback"] = self.formatException(record.exc_info)
            else:
                entry["error"] = _one_line(exc)
        elif record.exc_text and record.levelno >= logging.ERROR:
            entry["traceback"] = record.exc_text
        if record.stack_info:
            entry["stack"] = self.formatStack(record.stack_info)
        line = json.dumps(entry, ensure_ascii=False, default=str)
        return line.encode("utf-8", "backslashreplace").decode("utf-8")  # a lone surrogate as its escape

    @staticmethod
    def _database() -> str:
        try:
            return database_named()
        except Exception:  # noqa: BLE001 - settings not loaded: the line says what it can
            return "the default database"
