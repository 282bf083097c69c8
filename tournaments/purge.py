"""Delete the games and tours of whole tournaments set-wise, with what hangs from them.

One job: ``delete_games_and_tours(tournament_ids)``. The ORM's delete builds every row it deletes to send its
``post_delete`` signal: 10,000 games and 150,000 seats for one family league, several seconds, while the
receivers do nothing inside ``tournaments.changes.bulk_change`` (they neither audit nor recompute there). So,
inside ``bulk_change``, the rows that point at the games and tours are handled as the ORM would by their
``on_delete`` (a replace is an import):

- ``CASCADE`` from a table nothing points at (seats, masks, the absences, no-shows): one ``DELETE`` each;
- ``SET_NULL``: one ``UPDATE`` each;
- ``CASCADE`` from a table other rows point at (appeals, a format's questions): the ORM's delete of those
  rows, which follows their own relations;

then the games and tours themselves go in one ``DELETE`` each. A model with any other ``on_delete``
(``PROTECT``, ``RESTRICT``, ...) pointing at it is deleted through the ORM as a whole, so its refusals stay.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection, models

from tournaments.changes import tracking_suspended
from tournaments.models import Game, Stage, Tour

_SET_WISE = (models.CASCADE, models.SET_NULL)


def delete_games_and_tours(tournament_ids: Sequence[int]) -> None:
    """Delete every game and tour of the tournaments ``tournament_ids``, in the caller's transaction; only
    inside ``bulk_change`` (no row's signal is sent for what is deleted by SQL)."""
    if not tracking_suspended():
        raise RuntimeError("delete_games_and_tours runs inside tournaments.changes.bulk_change()")
    ids = list(tournament_ids)
    if not ids:
        return
    q = connection.ops.quote_name
    marks = ", ".join(["%s"] * len(ids))
    stages = f"SELECT {q('id')} FROM {q(Stage._meta.db_table)} WHERE {q('tournament_id')} IN ({marks})"
    with connection.cursor() as cursor:
        for model in (Game, Tour):
            parents = model._base_manager.filter(stage__tournament_id__in=ids)
            incoming = _incoming(model)
            if any(rel.on_delete not in _SET_WISE for rel in incoming):
                parents.delete()
                continue
            table = q(model._meta.db_table)
            of_parents = f"SELECT {q('id')} FROM {table} WHERE {q('stage_id')} IN ({stages})"
            for rel in incoming:
                child, column = q(rel.related_model._meta.db_table), q(rel.field.column)
                if rel.on_delete is models.SET_NULL:
                    cursor.execute(f"UPDATE {child} SET {column} = NULL WHERE {column} IN ({of_parents})", ids)
                elif _incoming(rel.related_model):
                    rel.related_model._base_manager.filter(**{f"{rel.field.name}__in": parents}).delete()
                else:
                    cursor.execute(f"DELETE FROM {child} WHERE {column} IN ({of_parents})", ids)
            cursor.execute(f"DELETE FROM {table} WHERE {q('stage_id')} IN ({stages})", ids)


def _incoming(model: type[models.Model]) -> list:
    """The relations whose rows point at ``model`` (foreign keys, one-to-ones, many-to-many tables)."""
    return [rel for rel in model._meta.get_fields(include_hidden=True)
            if rel.auto_created and not rel.concrete and (rel.one_to_many or rel.one_to_one)]
