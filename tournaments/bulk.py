"""Write many rows of one model fast: ``COPY ... FROM STDIN`` on PostgreSQL, one ``executemany`` on SQLite.

One job: ``insert(model, fields, rows)`` stores ``rows`` (tuples of the values of ``fields``, attribute names such
as ``game_id``, in that order) as new rows of ``model``, in the caller's transaction, and gives their primary keys
when asked. Every other concrete field gets what ``bulk_create`` would give it: its default, or the current time for
``auto_now``/``auto_now_add``. Like ``bulk_create`` it sends no signals and calls no ``save()``.

- PostgreSQL: the keys are taken from the table's sequence first (one ``SELECT nextval(...) FROM
  generate_series(1, n)``), then every row goes through psycopg 3's ``cursor.copy()`` in text format: one
  round trip of data however many rows. A refused row (a unique constraint, a value too long) raises Django's
  ``IntegrityError``/``DataError`` and the caller's transaction rolls back; the sequence only skips the keys
  it gave (sequences are never rolled back), so the next insert is unaffected.
- Foreign keys on PostgreSQL: the database checks each row's references with a trigger per row and
  reference (about 5 microseconds each, at commit: 2 s for 150,000 seats with 3 references). Inside a
  transaction, when the session may do so (a superuser, as the server reports), the references are checked
  set-wise instead: one ``SELECT ... WHERE pk = ANY(...) FOR KEY SHARE`` per foreign key column over its
  distinct values (the same row lock the trigger takes, so a referenced row cannot be deleted before the
  commit; a missing one raises ``IntegrityError`` before anything is written), and the COPY runs with
  ``session_replication_role = replica`` for that one statement (``SET LOCAL``: it ends with the
  transaction, and a rollback undoes it). The referenced rows must exist when ``insert`` is called (the
  deferred trigger would also accept a row inserted later in the transaction). Otherwise, and for fewer than
  ``SET_CHECK_MIN_ROWS`` rows, the triggers check.
- SQLite: one ``executemany`` of an ``INSERT`` with the values prepared by each field (``get_db_prep_save``);
  the keys are read back after it (``ids``: inside a transaction, which holds SQLite's write lock).
- any other database: ``bulk_create``.

The values are Python values the field stores as they are (ints, bools, strings, aware datetimes, dates,
decimals; any JSON value for a ``JSONField``): the caller has parsed and bounded them.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from django.db import IntegrityError, connection, models

SET_CHECK_MIN_ROWS = 1000  # below, the per-row triggers cost less than the set-wise check's extra statements
_PLAIN = frozenset({
    "AutoField", "BigAutoField", "SmallAutoField", "IntegerField", "BigIntegerField", "SmallIntegerField",
    "PositiveIntegerField", "PositiveBigIntegerField", "PositiveSmallIntegerField", "BooleanField", "CharField",
    "TextField", "SlugField", "DateField", "DecimalField", "ForeignKey", "OneToOneField",
})


def insert(model: type[models.Model], fields: Sequence[str], rows: Sequence[Sequence[Any]], *,
           ids: bool = False) -> list[int]:
    """Insert ``rows`` of ``model`` (values of ``fields`` in order); the new primary keys in row order when
    ``ids``, else ``[]``."""
    if not rows:
        return []
    given = [model._meta.get_field(name) for name in fields]
    if any(f.attname != name for f, name in zip(given, fields)):
        raise ValueError(f"{model.__name__}: give fields by attribute name ({', '.join(fields)})")
    if any(f.primary_key for f in given):
        raise ValueError(f"{model.__name__}: the primary key comes from the table's sequence")
    pk = model._meta.pk
    others = [f for f in model._meta.concrete_fields if f not in given and not f.primary_key]
    blank = model()
    defaults = [f.pre_save(blank, add=True) for f in others]  # defaults, auto_now(_add) -> now, as bulk_create
    if connection.vendor == "postgresql":
        return _copy(model, pk, given, others, defaults, rows, ids)
    if connection.vendor == "sqlite":
        return _executemany(model, pk, given, others, defaults, rows, ids)
    objs = [model(**dict(zip(fields, row)), **{f.attname: v for f, v in zip(others, defaults)}) for row in rows]
    model._base_manager.bulk_create(objs)
    return [obj.pk for obj in objs] if ids else []


def _copy(model, pk, given, others, defaults, rows, ids: bool) -> list[int]:
    q = connection.ops.quote_name
    table = model._meta.db_table
    keys: list[int] = []
    with connection.cursor() as cursor:
        if ids:
            cursor.execute("SELECT nextval(pg_get_serial_sequence(%s, %s)) FROM generate_series(1, %s)",
                           [q(table), pk.column, len(rows)])
            keys = sorted(row[0] for row in cursor.fetchall())
        columns = ([pk] if ids else []) + list(given) + others
        sql = f"COPY {q(table)} ({', '.join(q(f.column) for f in columns)}) FROM STDIN"
        fast = len(rows) >= SET_CHECK_MIN_ROWS and connection.in_atomic_block and _may_skip_triggers()
        if fast:
            _check_references(cursor, given, rows)
            cursor.execute("SELECT current_setting('session_replication_role'), "
                           "set_config('session_replication_role', 'replica', true)")
            role = cursor.fetchone()[0]
        convert = [(i, c) for i, f in enumerate(given) if (c := _converter(f)) is not None]
        tail = tuple(c(v) if (c := _converter(f)) is not None else v for f, v in zip(others, defaults))
        started = time.perf_counter()
        with connection.wrap_database_errors, cursor.cursor.copy(sql) as copy:
            write = copy.write_row
            for n, row in enumerate(rows):
                if convert:
                    row = list(row)
                    for i, c in convert:
                        row[i] = c(row[i])
                if ids:
                    write((keys[n], *row, *tail))
                elif tail:
                    write((*row, *tail))
                else:
                    write(row)
        _log(f"{sql} -- {len(rows)} rows", time.perf_counter() - started)
        if fast:  # not in a finally: after an error the transaction is aborted, and its rollback restores it
            cursor.execute("SELECT set_config('session_replication_role', %s, true)", [role])
    return keys


def _may_skip_triggers() -> bool:
    """Whether this session may set ``session_replication_role`` (a superuser; the server reports it)."""
    connection.ensure_connection()
    return connection.connection.info.parameter_status("is_superuser") == "on"


def _check_references(cursor, given: list[models.Field], rows: Sequence[Sequence[Any]]) -> None:
    """Every foreign key value of ``rows`` exists (and stays until the commit: ``FOR KEY SHARE``), or
    ``IntegrityError`` as the database's own check would raise it."""
    q = connection.ops.quote_name
    for i, field in enumerate(given):
        if not field.concrete or field.related_model is None or not getattr(field, "db_constraint", False):
            continue
        wanted = {row[i] for row in rows} - {None}
        if not wanted:
            continue
        target = field.target_field
        table = field.related_model._meta.db_table
        cursor.execute(f"SELECT {q(target.column)} FROM {q(table)} WHERE {q(target.column)} = ANY(%s) "
                       f"FOR KEY SHARE", [sorted(wanted)])
        found = {row[0] for row in cursor.fetchall()}
        if len(found) != len(wanted):
            missing = min(wanted - found)
            raise IntegrityError(
                f'insert into "{field.model._meta.db_table}" violates the foreign key {field.column}: '
                f'key ({target.column})=({missing}) is not present in table "{table}"')


def _converter(field: models.Field) -> Callable[[Any], Any] | None:
    """How a value of ``field`` goes into a text COPY: None when psycopg writes the Python value as it is."""
    kind = field.get_internal_type()
    if isinstance(field, models.JSONField):
        encoder = field.encoder
        return lambda value: None if value is None else json.dumps(value, cls=encoder)
    if kind == "DateTimeField":
        return lambda value: (value if value is None or value.utcoffset() is not None
                              else field.get_db_prep_save(value, connection))
    if kind in _PLAIN:
        return None
    return lambda value: field.get_db_prep_save(value, connection)


def _executemany(model, pk, given, others, defaults, rows, ids: bool) -> list[int]:
    q = connection.ops.quote_name
    table = model._meta.db_table
    columns = list(given) + others
    tail = [f.get_db_prep_save(v, connection) for f, v in zip(others, defaults)]
    prepared = [[f.get_db_prep_save(v, connection) for f, v in zip(given, row)] + tail for row in rows]
    sql = (f"INSERT INTO {q(table)} ({', '.join(q(f.column) for f in columns)}) "
           f"VALUES ({', '.join(['%s'] * len(columns))})")
    if ids and not connection.in_atomic_block:
        raise RuntimeError("bulk.insert(ids=True) on SQLite needs a transaction (transaction.atomic)")
    with connection.cursor() as cursor:
        cursor.executemany(sql, prepared)
        if not ids:
            return []
        # our rows are the last ones: the transaction holds SQLite's write lock since the insert
        cursor.execute(f"SELECT {q(pk.column)} FROM {q(table)} ORDER BY {q(pk.column)} DESC LIMIT %s", [len(rows)])
        return sorted(row[0] for row in cursor.fetchall())


def _log(sql: str, seconds: float) -> None:
    """Count the COPY among the connection's queries (``django_assert_num_queries``, the debug toolbar)."""
    if connection.queries_logged:
        connection.queries_log.append({"sql": sql, "time": f"{seconds:.3f}"})
