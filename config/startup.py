"""``manage.py``: a database that does not answer is one line and a non-zero exit, not a traceback.

``runserver`` asks the database before it starts serving (once, in the process that starts the autoreloader):
``runserver: the database did not answer: PostgreSQL 'portal' at db:5432 as 'portal': connection failed: ...``
and exit status 1. Every other command (``migrate`` first of all, which ``scripts/run`` runs) that fails
because the database does not answer says the same in one line. Any other error is raised as before.
"""

from __future__ import annotations

import os
import sys

import django
from django.core.management import execute_from_command_line
from django.db import DEFAULT_DB_ALIAS, connections

from tournaments.faults import database_named, database_unavailable, reason_of

ASK_FIRST = {"runserver"}  # the commands that serve: they ask the database before they start


def unanswered(exc: BaseException) -> str:
    return f"the database did not answer: {database_named()}: {reason_of(exc)}"


def database_problem() -> str | None:
    """``None`` when the default database answers; the line that says which did not, else."""
    try:
        connections[DEFAULT_DB_ALIAS].ensure_connection()
    except Exception as exc:
        if not database_unavailable(exc):
            raise
        return unanswered(exc)
    return None


def main(argv: list[str]) -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    command = argv[1] if len(argv) > 1 else ""
    try:
        if (command in ASK_FIRST and os.environ.get("RUN_MAIN") != "true"
                and not {"-h", "--help", "--version"} & set(argv)):
            django.setup()
            problem = database_problem()
            if problem is not None:
                sys.stderr.write(f"{command}: {problem}\n")
                raise SystemExit(1)
        execute_from_command_line(argv)
    except Exception as exc:
        if not database_unavailable(exc):
            raise
        sys.stderr.write(f"{command or 'manage.py'}: {unanswered(exc)}\n")
        raise SystemExit(1) from None
