"""The history page's words for audit entries: who, when, what, and a readable before and after
per field in the reader's language: field names from the models' verbose names, references by name instead of
ids, seats and masks line by line.

Names of referenced rows are read for a whole page at once: one query per kind of row referenced, whatever the
number of entries.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from django.apps import apps
from django.core.exceptions import FieldDoesNotExist, ValidationError
from django.db import models
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from rulesets.messages import DATA_KEY
from tournaments.fact_fields import SEAT
from tournaments.labels import stage_label
from tournaments.messages import render
from tournaments.models import AuditEntry, RoleChoice

ACTIONS = {
    "create": gettext_lazy("created"), "update": gettext_lazy("changed"), "delete": gettext_lazy("deleted"),
    "import": gettext_lazy("imported"), "rules": gettext_lazy("rules adopted"), "draw": gettext_lazy("drawn"),
    "open": gettext_lazy("registration opened"), "withdraw": gettext_lazy("withdrawn"),
    "invite": gettext_lazy("invited"), "register": gettext_lazy("registered"), "paid": gettext_lazy("paid"),
    "correct": gettext_lazy("corrected"), "set": gettext_lazy("set"), "replace": gettext_lazy("re-imported"),
    "merge": gettext_lazy("merged"), "schedule": gettext_lazy("schedule generated"), "fl3_judged": gettext_lazy("judged (FL-3)"),
    "accept_conflicts": gettext_lazy("saved, putting later games in conflict"),
    "conflicts_resolved": gettext_lazy("conflicts with later games resolved"),
    "grant_role": gettext_lazy("role granted"), "revoke_role": gettext_lazy("role revoked"),  # tournaments.grants
    "set_captain": gettext_lazy("captain named"), "set_head": gettext_lazy("family head named"),
    "chgk_apply": gettext_lazy("applied (CHGK-1)"), "chgk_admit": gettext_lazy("admitted (CHGK-5)"),
    "chgk_refuse": gettext_lazy("refused (CHGK-5)"),
    "webhook_subscribe": gettext_lazy("webhook subscribed"), "webhook_change": gettext_lazy("webhook changed"),
    "webhook_unsubscribe": gettext_lazy("webhook unsubscribed"),  # tournaments.webhooks.subscriptions
}
KEYS = {
    "seats": gettext_lazy("seats"), "absent_teams": gettext_lazy("absent teams"),
    "no_show_eliminated": gettext_lazy("eliminated for a no-show"), "masks": gettext_lazy("answer masks"),
    "group": gettext_lazy("group"), "rules": gettext_lazy("rule constants"), "games": gettext_lazy("games"),
    "groups": gettext_lazy("groups"), "seed": gettext_lazy("public draw seed"),
    "conflicts": gettext_lazy("later games in conflict"), "head": gettext_lazy("head"),
}


STAGE_KEYS = ("stage", "stages", "stage_key")  # fields that hold stage keys: shown by the stage's name


def _model(label: str) -> type[models.Model] | None:
    try:
        return apps.get_model(label)
    except (LookupError, ValueError):
        return None


def _field(model: type[models.Model] | None, key: str) -> models.Field | None:
    if model is None:
        return None
    try:
        field = model._meta.get_field(key)
    except FieldDoesNotExist:
        return None
    return field if getattr(field, "concrete", False) else None


def _is_key(model: type[models.Model], value: Any) -> bool:
    """A stored reference that is a row id (a game's state keeps its group by name: that is shown as written)."""
    if value in (None, "") or isinstance(value, bool | dict | list):
        return False
    try:
        model._meta.pk.to_python(value)
    except ValidationError:
        return False
    return True


def _names(entries: Iterable[AuditEntry]) -> dict[type[models.Model], dict[Any, str]]:
    """``{related model: {pk: str(row)}}`` of every reference the entries hold, one query per model."""
    wanted: dict[type[models.Model], set[Any]] = defaultdict(set)
    for entry in entries:
        model = _model(entry.model)
        for side in (entry.before or {}, entry.after or {}):
            for key, value in side.items():
                field = _field(model, key)
                if field is not None and field.many_to_one and _is_key(field.related_model, value):
                    wanted[field.related_model].add(value)
    return {related: {row.pk: str(row) for row in related._default_manager.filter(pk__in=pks)}
            for related, pks in wanted.items()}


def _current(entries: Iterable[AuditEntry]) -> dict[tuple[str, str], str]:
    """``{(model label, object id): str(row)}`` of the entries' objects that still exist, in the reader's language
    (a stored ``object_repr`` is in the language of whoever acted), one query per model."""
    wanted: dict[str, set[str]] = defaultdict(set)
    for entry in entries:
        if entry.object_id:
            wanted[entry.model].add(entry.object_id)
    out: dict[tuple[str, str], str] = {}
    for label, ids in wanted.items():
        model = _model(label)
        if model is None:
            continue
        try:
            rows = model._default_manager.filter(pk__in=ids)
            out.update({(label, str(row.pk)): str(row) for row in rows})
        except (ValueError, TypeError):  # an id that is not this model's kind of key
            continue
    return out


def _yes_no(value: bool) -> str:
    return _("yes") if value else _("no")


def _seat_text(seat: dict[str, Any]) -> str:
    parts = [str(RoleChoice(seat["role"]).label) if seat.get("role") in RoleChoice.values else str(seat.get("role"))]
    for name in SEAT.history[1:]:  # after the role (SEAT.history: the role, the numbers, the flags)
        value = seat.get(name)
        label = SEAT.by_name[name].label
        if isinstance(value, bool):
            if value:
                parts.append(str(label))
        elif value not in (None, 0):
            parts.append(f"{label} {value}")
    return f"{seat.get('player')} ({seat.get('team')}): {', '.join(parts)}"


def _text(field: models.Field | None, key: str, value: Any, names: dict[type[models.Model], dict[Any, str]]) -> str:
    if value is None or value == "" or value == []:
        return "—"
    if field is not None and field.many_to_one:
        if not _is_key(field.related_model, value):
            return str(value)
        return names.get(field.related_model, {}).get(value, f"#{value}")
    if field is not None and field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(value, bool):
        return _yes_no(value)
    if isinstance(value, dict) and DATA_KEY in value:  # a message kept with its code: in the reader's language
        return render(value)
    if key in STAGE_KEYS and isinstance(value, str):
        return stage_label(value)
    if key == "seats" and isinstance(value, list):
        return "\n".join(_seat_text(s) if isinstance(s, dict) else str(s) for s in value)
    if isinstance(value, dict):
        return "\n".join(f"{k}: {_text(None, k, v, names)}" for k, v in value.items())
    if isinstance(value, list):
        return "\n".join(_text(None, key, v, names) for v in value)
    return str(value)


def _label(model: type[models.Model] | None, key: str) -> str:
    field = _field(model, key)
    if field is not None and hasattr(field, "verbose_name"):
        return str(field.verbose_name)
    return str(KEYS.get(key, key.replace("_", " ")))


def readable(entries: Iterable[AuditEntry]) -> list[dict[str, Any]]:
    """Each entry with its action and object in words and its changes as ``[{label, before, after}]``."""
    entries = list(entries)
    names = _names(entries)
    current = _current(entries)
    out = []
    for entry in entries:
        model = _model(entry.model)
        before, after = entry.before or {}, entry.after or {}
        changes = [{"label": _label(model, key),
                    "before": _text(_field(model, key), key, before.get(key), names) if entry.before is not None
                    else "", "after": _text(_field(model, key), key, after.get(key), names)
                    if entry.after is not None else ""}
                   for key in list(dict.fromkeys([*before, *after]))]
        out.append({
            "entry": entry, "action": str(ACTIONS.get(entry.action, entry.action)),
            "kind": str(model._meta.verbose_name) if model is not None else entry.model,
            "object": current.get((entry.model, entry.object_id), entry.object_repr), "changes": changes,
        })
    return out
