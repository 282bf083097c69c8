"""The audit trail: every change to a fact, with user, time, before and after (issue 6).

Model signals record saves and deletions of fact rows; the importer records
one entry per imported document. The acting user comes from the request
(``accounts.middleware``) or is passed explicitly by services.
"""

from __future__ import annotations

from typing import Any

from django.apps import apps
from django.db.models.signals import post_delete, post_save, pre_save
from django.forms.models import model_to_dict

from accounts.middleware import current_user
from tournaments.changes import tracking_suspended
from tournaments.models import AuditEntry, Tournament
from tournaments.serialize import jsonable
from tournaments.signals import tournament_id_of

AUDITED = ("tournaments.Tournament", "tournaments.Stage", "tournaments.Team", "tournaments.RosterEntry",
           "tournaments.Participant", "tournaments.Group", "tournaments.GroupTeam", "tournaments.Game",
           "tournaments.Seat", "tournaments.NoShowElimination", "tournaments.Tour", "tournaments.Mask",
           "tournaments.Penalty", "tournaments.Withdrawal", "tournaments.Decision", "tournaments.Appeal",
           "accounts.Player", "accounts.Family", "accounts.FamilyMembership", "accounts.TournamentRole")
SKIP_FIELDS = {"updated_at", "facts_version"}


def snapshot(instance) -> dict[str, Any]:
    data = model_to_dict(instance)
    return {k: jsonable(v if not hasattr(v, "pk") else v.pk) for k, v in data.items()
            if k not in SKIP_FIELDS and not isinstance(v, list)}


def _tournament_of(instance):
    if isinstance(instance, Tournament):
        return instance.pk
    return tournament_id_of(instance)


def record(action: str, instance, before: dict | None, after: dict | None, user=None) -> None:
    user = user or current_user.get()
    if user is not None and not getattr(user, "is_authenticated", False):
        user = None
    tournament_id = _tournament_of(instance)
    slug = ""
    if tournament_id is not None:
        slug = Tournament.objects.filter(pk=tournament_id).values_list("slug", flat=True).first() or ""
        if not slug:
            tournament_id = None
    AuditEntry.objects.create(
        tournament_id=tournament_id, tournament_slug=slug, user=user, username=getattr(user, "username", "") or "",
        action=action, model=instance._meta.label, object_id=str(instance.pk or ""), object_repr=str(instance)[:200],
        before=before, after=after,
    )


def _pre_save(sender, instance, raw=False, **kwargs) -> None:
    if raw or instance.pk is None or tracking_suspended():
        instance._audit_before = None
        return
    old = sender.objects.filter(pk=instance.pk).first()
    instance._audit_before = snapshot(old) if old is not None else None


def _post_save(sender, instance, created, raw=False, **kwargs) -> None:
    if raw or tracking_suspended():
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
    if tracking_suspended():
        return
    record("delete", instance, snapshot(instance), None)


def connect(labels: tuple[str, ...] = AUDITED) -> None:
    """Audit every save and deletion of the models ``labels`` names (a format home adds its own)."""
    for label in labels:
        model = apps.get_model(label)
        pre_save.connect(_pre_save, sender=model, dispatch_uid=f"audit-pre-{label}")
        post_save.connect(_post_save, sender=model, dispatch_uid=f"audit-post-{label}")
        post_delete.connect(_post_delete, sender=model, dispatch_uid=f"audit-del-{label}")
