"""Write many rows of one model fast: ``COPY ... FROM STDIN`` on PostgreSQL, one ``executemany`` on SQLite.

One job: ``insert(model, fields, rows)`` stores ``rows`` (tuples of the values of ``fields``, attribute names such
as ``game_id``, in that order) as new rows of ``model``, in the caller's transaction, and gives their primary keys
when asked. Every other concrete field gets what ``bulk_create`` would give it: its default, or the current time for
``auto_now``/``auto_now_add``. Like ``bulk_create`` it sends no signals and calls no ``save()``.

The values are written exactly as Django would write them (``Field.get_db_prep_save``), but a column at a time
The rows are turned into columns, and each column's converter is chosen once from its field's type
and the Python types the column holds (``_converter``). A column of the type its field stores goes to the driver
as it is (ints and foreign keys as ints, strings, booleans, decimals, floats; dates on PostgreSQL); one that the
database wants in another form is converted by one plain function a value (an aware datetime: UTC text on
SQLite, the value itself on PostgreSQL; a date: ISO text on SQLite; JSON: ``json.dumps`` with the field's
encoder, None as SQL NULL, a ``JsonText`` as it is); any other column (another type, a naive datetime, a value of
the wrong type) goes through the field machinery value by value, as before. ``tests/test_bulk_fast_path.py``
compares the rows with the ORM's.

- PostgreSQL: the keys are taken from the table's sequence first (one ``SELECT nextval(...) FROM
  generate_series(1, n)``), then every row goes through psycopg 3's ``cursor.copy()``: one round trip of data
  however many rows. In binary format, the columns' types given (``_binary_types``), where every column holds
  plain values of its type: psycopg formats each row in C, and the server parses no text (a 200,000-seat table
  in two thirds of the time, half of the client's). In text format, each value adapted by psycopg, where a
  column went through its field, or an integer is beyond its column's type (binary would wrap it around; the
  server refuses it in text, as it refuses it from the ORM). A refused row (a unique constraint, a value too
  long) raises Django's ``IntegrityError``/``DataError`` and the caller's transaction rolls back; the sequence
  only skips the keys it gave (sequences are never rolled back), so the next insert is unaffected.
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
- SQLite: one ``executemany`` of an ``INSERT``, fed the converted rows as it goes (no second list of rows);
  the keys are read back after it (``ids``: inside a transaction, which holds SQLite's write lock).
- any other database: ``bulk_create``.
"""

from __future__ import annotations

import datetime as dt
import decimal
import functools
import json
import re
import time
from collections.abc import Callable, Iterable, Sequence
from itertools import repeat
from operator import itemgetter
from typing import Any

from django.conf import settings
from django.db import IntegrityError, connection, models
from psycopg import adapt, pq

SET_CHECK_MIN_ROWS = 1000  # below, the per-row triggers cost less than the set-wise check's extra statements
INTEGERS = frozenset({
    "AutoField", "BigAutoField", "SmallAutoField", "IntegerField", "BigIntegerField", "SmallIntegerField",
    "PositiveIntegerField", "PositiveBigIntegerField", "PositiveSmallIntegerField",
})
TEXTS = frozenset({"CharField", "TextField", "SlugField"})
_NONE = type(None)
Convert = Callable[[Any], Any]
_PARAMETERS = re.compile(r"\(.*\)")  # varchar(12), numeric(10, 2): the type's name without them


class JsonText(str):
    """The value of a ``JSONField`` already encoded, as the field encodes it (``json.dumps(value,
    cls=field.encoder)``): written as it is, so that a caller that needed the text anyway (a digest) does not
    encode the value twice."""

    __slots__ = ()


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
    if any(len(row) != len(given) for row in rows):
        raise ValueError(f"{model.__name__}: every row holds one value of each of {', '.join(fields)}")
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


def prepared(given: Sequence[models.Field], rows: Sequence[Sequence[Any]], others: Sequence[models.Field] = (),
             defaults: Sequence[Any] = (), keys: Sequence[int] | None = None) -> Iterable[Sequence[Any]]:
    """The rows as the connection's driver takes them: ``keys`` first (when given), the values of ``given``, then
    ``defaults`` of ``others``, each column converted once (``_converter``), the rows built as they are read."""
    columns = _Columns(given, rows, others, defaults, keys)
    return zip(*columns.values) if columns.changed else rows


class _Columns:
    """``prepared``'s columns, each read from the rows as it is consumed (no copy of the table): ``values``;
    ``changed``: whether any differs from the rows' own (a converted column, a key, a default); ``plain``: whether
    none went through its field value by value (so every value is a plain Python value of its column's type, not
    an adapter object: ``_binary_types``)."""

    def __init__(self, given: Sequence[models.Field], rows: Sequence[Sequence[Any]], others: Sequence[models.Field],
                 defaults: Sequence[Any], keys: Sequence[int] | None) -> None:
        self.values: list[Iterable[Any]] = [keys] if keys is not None else []
        self.changed = bool(others) or keys is not None
        self.plain = True
        for i, field in enumerate(given):
            column: Iterable[Any] = map(itemgetter(i), rows)
            convert = self._chosen(field, map(itemgetter(i), rows))
            if convert is not None:
                column = map(convert, column)
                self.changed = True
            self.values.append(column)
        for field, value in zip(others, defaults):  # defaults: as the field writes them (JSON as its text)
            convert = self._chosen(field, (value,))
            self.values.append(repeat(value if convert is None else convert(value), len(rows)))

    def _chosen(self, field: models.Field, values: Iterable[Any]) -> Convert | None:
        convert = _converter(field, values)
        if getattr(convert, "through_field", False):
            self.plain = False
        return convert


def _converter(field: models.Field, values: Iterable[Any]) -> Convert | None:
    """How each value of a column of ``field`` becomes what ``field.get_db_prep_save`` makes of it for this
    connection: None when the driver takes the values as they are. Chosen once a column, from the field's type and
    the Python types the column holds."""
    types = set(map(type, values)) - {_NONE}
    kind = field.get_internal_type()
    if isinstance(field, models.ForeignKey):
        kind = field.target_field.get_internal_type()
    if isinstance(field, models.JSONField):
        dumps, encoder = json.dumps, field.encoder

        def encode(value: Any) -> str | None:  # None: SQL NULL, as Django writes it
            if value is None:
                return None
            return str(value) if type(value) is JsonText else dumps(value, cls=encoder)

        return encode
    if kind in INTEGERS:
        plain = types <= {int}
    elif kind in TEXTS:
        plain = types <= {str}
    elif kind == "BooleanField":
        plain = types <= {bool}
    elif kind == "DecimalField":
        plain = types <= {decimal.Decimal}
    elif kind == "FloatField":
        plain = types <= {float}
    elif kind == "DateField" and types <= {dt.date}:
        if connection.vendor == "postgresql":
            return None
        return lambda value: None if value is None else value.isoformat()  # adapt_datefield_value: str(date)
    elif kind == "DateTimeField" and types <= {dt.datetime} and settings.USE_TZ:
        return _aware_datetimes(field)
    else:
        plain = False
    if plain:
        return None
    return _through_field(field)


def _through_field(field: models.Field) -> Convert:
    """The field's own conversion, value by value (``get_db_prep_save``): for the columns no plain rule covers."""
    def convert(value: Any) -> Any:
        return field.get_db_prep_save(value, connection)

    convert.through_field = True  # type: ignore[attr-defined]  # the tests ask which columns took this way
    return convert


def _aware_datetimes(field: models.Field) -> Convert:
    """An aware datetime as the backend takes it: the value itself on PostgreSQL; on SQLite the naive text of the
    moment in the connection's time zone (``adapt_datetimefield_value``). A naive one goes through the field (which
    warns and takes it in the default time zone)."""
    slow = field.get_db_prep_save
    if connection.vendor == "postgresql":
        return lambda value: value if value is None or value.utcoffset() is not None else slow(value, connection)
    zone = connection.timezone

    def convert(value: dt.datetime | None) -> str | None:
        if value is None:
            return None
        if value.utcoffset() is None:
            return slow(value, connection)
        return str(value.astimezone(zone).replace(tzinfo=None))

    return convert


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
        values = _Columns(given, rows, others, defaults, keys if ids else None)
        types = _binary_types(columns, given, 1 if ids else 0, rows, values)
        started = time.perf_counter()
        if types is not None:
            sql += " (FORMAT BINARY)"
            cursor.cursor.adapters.register_dumper(None, _jsonb_text())  # this cursor's, by oid only (set_types)
        with connection.wrap_database_errors, cursor.cursor.copy(sql) as copy:
            if types is not None:
                copy.set_types(types)
            write = copy.write_row
            for row in zip(*values.values):
                write(row)
        _log(f"{sql} -- {len(rows)} rows", time.perf_counter() - started)
        if fast:  # not in a finally: after an error the transaction is aborted, and its rollback restores it
            cursor.execute("SELECT set_config('session_replication_role', %s, true)", [role])
    return keys


_INTEGER_BOUNDS = {"smallint": 2 ** 15, "integer": 2 ** 31, "bigint": 2 ** 63}


def _binary_types(columns: Sequence[models.Field], given: Sequence[models.Field], offset: int,
                  rows: Sequence[Sequence[Any]], values: _Columns) -> list[int] | None:
    """The type of each of the COPY's ``columns`` (``given`` from ``offset`` on) for a binary ``COPY``, or None
    when the rows go in text: a column went through its field (a value may be a driver's adapter object), a type
    the driver does not know by name, or an integer beyond its column's type (the driver would wrap it around in
    binary; in text the server refuses it, as it refuses it from the ORM)."""
    if not values.plain:
        return None
    known = connection.connection.adapters.types
    names = [_PARAMETERS.sub("", field.db_type(connection)).strip() for field in columns]
    infos = [known.get(name) for name in names]
    if None in infos:
        return None
    for i in range(len(given)):
        bound = _INTEGER_BOUNDS.get(names[offset + i])
        if bound is None:
            continue
        low, high = _extremes(map(itemgetter(i), rows))
        if low < -bound or high >= bound:
            return None
    return [info.oid for info in infos]


def _extremes(column: Iterable[int | None]) -> tuple[int, int]:
    """The least and greatest integer of a column, nulls left out (0 and 0 for none; a null in a column that may
    not hold one is the database's to refuse)."""
    present = [v for v in column if v is not None]
    return min(present, default=0), max(present, default=0)


@functools.cache
def _jsonb_text() -> type:
    """A dumper of a JSON text (``_converter``'s for a ``JSONField``) as a binary ``jsonb``: its version byte, then
    the text (psycopg's own would encode the text as a JSON string)."""

    class JsonbText(adapt.Dumper):
        format = pq.Format.BINARY
        oid = connection.connection.adapters.types["jsonb"].oid

        def dump(self, obj: str) -> bytes:
            return b"\x01" + obj.encode()

    return JsonbText


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


def _executemany(model, pk, given, others, defaults, rows, ids: bool) -> list[int]:
    q = connection.ops.quote_name
    table = model._meta.db_table
    columns = list(given) + others
    sql = (f"INSERT INTO {q(table)} ({', '.join(q(f.column) for f in columns)}) "
           f"VALUES ({', '.join(['%s'] * len(columns))})")
    if ids and not connection.in_atomic_block:
        raise RuntimeError("bulk.insert(ids=True) on SQLite needs a transaction (transaction.atomic)")
    with connection.cursor() as cursor:
        cursor.executemany(sql, prepared(given, rows, others, defaults))
        if not ids:
            return []
        # our rows are the last ones: the transaction holds SQLite's write lock since the insert
        cursor.execute(f"SELECT {q(pk.column)} FROM {q(table)} ORDER BY {q(pk.column)} DESC LIMIT %s", [len(rows)])
        return sorted(row[0] for row in cursor.fetchall())


def _log(sql: str, seconds: float) -> None:
    """Count the COPY among the connection's queries (``django_assert_num_queries``, the debug toolbar)."""
    if connection.queries_logged:
        connection.queries_log.append({"sql": sql, "time": f"{seconds:.3f}"})
