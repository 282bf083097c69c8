"""The audit trail: every change to a fact, with user, time, before and after.

Model signals record saves and deletions of fact rows; the importer records
one entry per imported document. The write commands that replace a game's
seats or a tour's masks in bulk mute the row signals (``muted``) and record one
entry with the whole readable state before and after (``game_state``,
``tour_state``): the seats and masks are in it, not lost in bulk writes. The
acting user comes from the request (``accounts.middleware``) or is passed
explicitly by services.
"""

from __future__ import annotations

import contextlib
import contextvars
import datetime as dt
from collections.abc import Iterator, Sequence
from typing import Any

from django.apps import apps
from django.db.models.signals import post_delete, post_save, pre_save
from django.forms.models import model_to_dict

from accounts.middleware import current_user
from tournaments.changes import tracking_suspended
from tournaments.fact_fields import SEAT
from tournaments.models import AuditEntry, Tournament
from tournaments.serialize import jsonable
from tournaments.signals import remember_tournament, tournament_ref

AUDITED = ("tournaments.Tournament", "tournaments.Stage", "tournaments.Team", "tournaments.RosterEntry",
           "tournaments.Participant", "tournaments.Group", "tournaments.GroupTeam", "tournaments.Game",
           "tournaments.Seat", "tournaments.NoShowElimination", "tournaments.Tour", "tournaments.Mask",
           "tournaments.Penalty", "tournaments.Withdrawal", "tournaments.Decision", "tournaments.Appeal",
           "accounts.Player", "accounts.Family", "accounts.FamilyMembership", "accounts.TournamentRole")
SKIP_FIELDS = {"updated_at", "facts_version"}


def _comparable(value: Any) -> Any:
    """A related row by its key; an aware moment in UTC (the same moment typed in another offset is no change)."""
    if hasattr(value, "pk"):
        return value.pk
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return value.astimezone(dt.UTC)
    return value


def snapshot(instance) -> dict[str, Any]:
    data = model_to_dict(instance)
    return {k: jsonable(_comparable(v)) for k, v in data.items() if k not in SKIP_FIELDS and not isinstance(v, list)}


def _tournament_of(instance) -> tuple[int, str] | None:
    """(id, slug) of the tournament of ``instance`` as the database has it now (None: none, or it is gone).

    For a fact row, the one query is left on the row for the recompute signal of the same save
    (``tournaments.signals.remember_tournament``)."""
    if isinstance(instance, Tournament):
        return next(iter(Tournament.objects.filter(pk=instance.pk).values_list("pk", "slug")), None)
    ref = tournament_ref(instance)
    remember_tournament(instance, ref)
    return ref


def record(action: str, instance, before: dict | None, after: dict | None, user=None) -> None:
    user = user or current_user.get()
    if user is not None and not getattr(user, "is_authenticated", False):
        user = None
    tournament_id, slug = _tournament_of(instance) or (None, "")
    AuditEntry.objects.create(
        tournament_id=tournament_id, tournament_slug=slug, user=user, username=getattr(user, "username", "") or "",
        action=action, model=instance._meta.label, object_id=str(instance.pk or ""), object_repr=str(instance)[:200],
        before=before, after=after,
    )


def record_created(tournament: Tournament, instances: Sequence[Any], user=None) -> None:
    """One ``create`` entry per new row of ``tournament`` (each with its ``snapshot``), written at once: a file
    of thousands of rows (a season's penalties) is one insert, not a query and an insert per row."""
    user = user or current_user.get()
    if user is not None and not getattr(user, "is_authenticated", False):
        user = None
    username = getattr(user, "username", "") or ""
    AuditEntry.objects.bulk_create([AuditEntry(
        tournament_id=tournament.pk, tournament_slug=tournament.slug, user=user, username=username, action="create",
        model=instance._meta.label, object_id=str(instance.pk or ""), object_repr=str(instance)[:200], before=None,
        after=snapshot(instance)) for instance in instances], batch_size=1000)


_muted: contextvars.ContextVar[bool] = contextvars.ContextVar("audit_muted", default=False)


@contextlib.contextmanager
def muted() -> Iterator[None]:
    """Within the block the row signals record nothing (the recompute still follows): the caller records the
    change as one entry (``record_change``)."""
    token = _muted.set(True)
    try:
        yield
    finally:
        _muted.reset(token)


def _silent() -> bool:
    return _muted.get() or tracking_suspended()


def record_change(action: str, instance, before: dict[str, Any] | None, after: dict[str, Any], user=None) -> None:
    """One entry with only what changed between the two readable states (nothing when nothing did)."""
    if before is not None:
        changed = [key for key in after.keys() | before.keys() if before.get(key) != after.get(key)]
        if not changed:
            return
        before = {key: before.get(key) for key in sorted(changed)}
        after = {key: after.get(key) for key in sorted(changed)}
    record(action, instance, before, after, user=user)


SEAT_FIELDS = SEAT.history  # the role, the numbers, the flags (tournaments.fact_fields)


def seat_record(seat) -> dict[str, Any]:
    """A seat as the history keeps it: who, for which team, and each of its facts (the page words them)."""
    return {"player": seat.player.nick, "team": seat.team.name,
            **{name: getattr(seat, name) for name in SEAT_FIELDS}}


def game_state(game) -> dict[str, Any]:
    """Everything a result entry can change of a game, readable: its fields, seats, absences and no-shows."""
    if game.pk is None:
        return {}
    state = {k: v for k, v in snapshot(game).items() if k not in ("version", "stage", "updated_by")}
    state["group"] = game.group.name if game.group_id else None
    state["seats"] = [seat_record(s) for s in game.seats.select_related("player", "team").order_by("order", "pk")]
    state["absent_teams"] = sorted(game.absent_teams.values_list("name", flat=True))
    state["no_show_eliminated"] = [f"{n.player.nick} ({n.team.name})" for n in
                                   game.no_show_eliminations.select_related("player", "team").order_by("pk")]
    return state


def tour_state(tour) -> dict[str, Any]:
    """A tour's masks, team by team, readable."""
    return {"masks": {m.team.name: m.mask for m in tour.masks.select_related("team").order_by("order", "pk")}}


def _pre_save(sender, instance, raw=False, **kwargs) -> None:
    if raw or instance.pk is None or _silent():
        instance._audit_before = None
        return
    old = sender.objects.filter(pk=instance.pk).first()
    instance._audit_before = snapshot(old) if old is not None else None


def _post_save(sender, instance, created, raw=False, **kwargs) -> None:
    if raw or _silent():
        return
    before = getattr(instance, "_audit_before", None)
    after = snapshot(instance)
    if before is not None:
        changed = {k for k in after if before.get(k) != after.get(k)}
        if not changed:
            return
        before = {k: before.get(k) for k in changed}
        after = {k: after[k] for k in changed}
    record("create" if created else "update", instance, before, after)


def _post_delete(sender, instance, **kwargs) -> None:
    if _silent():
        return
    record("delete", instance, snapshot(instance), None)


def connect(labels: tuple[str, ...] = AUDITED) -> None:
    """Audit every save and deletion of the models ``labels`` names (a format home adds its own)."""
    for label in labels:
        model = apps.get_model(label)
        pre_save.connect(_pre_save, sender=model, dispatch_uid=f"audit-pre-{label}")
        post_save.connect(_post_save, sender=model, dispatch_uid=f"audit-post-{label}")
        post_delete.connect(_post_delete, sender=model, dispatch_uid=f"audit-del-{label}")
