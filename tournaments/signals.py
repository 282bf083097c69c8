"""Every change to a fact model marks its tournament changed (bump + recompute)."""

from __future__ import annotations

from django.apps import apps
from django.db.models.signals import m2m_changed, post_delete, post_save, pre_delete, pre_save

from tournaments.changes import mark_changed, tracking_suspended
from tournaments.models import Appeal, Game, NoShowElimination, Seat, Tour, Tournament

REF_ATTRIBUTE = "_tournament_ref"
# A fact row's relations that name its tournament, in the order they are tried: the relation, the lookup from the
# tournament to it, and the path from the related row to the tournament's id.
TOURNAMENT_PATHS = (("tournament", "pk", ()), ("stage", "stages", ("tournament_id",)),
                    ("game", "stages__games", ("stage", "tournament_id")),
                    ("tour", "stages__tours", ("stage", "tournament_id")), ("team", "teams", ("tournament_id",)),
                    ("group", "stages__groups", ("stage", "tournament_id")))


def tournament_ref(instance) -> tuple[int, str] | None:
    """(id, slug) of the tournament a fact row belongs to, in one query (None: it has none, or it is gone).

    The first relation that is set names it (``TOURNAMENT_PATHS``): one joined query, not a row per hop.
    """
    for relation, lookup, _path in TOURNAMENT_PATHS:
        key = getattr(instance, f"{relation}_id", None)
        if key is not None:
            row = next(iter(Tournament.objects.filter(**{lookup: key}).order_by().values_list("pk", "slug")[:1]),
                       None)
            if row is not None:
                return row
    return None


def _loaded_tournament_id(instance, relation: str, path: tuple[str, ...]) -> int | None:
    """The tournament's id through related rows already loaded with ``instance`` (None: one is not loaded)."""
    if not path:
        return getattr(instance, f"{relation}_id")
    obj = instance
    for part in (relation, *path[:-1]):
        if not obj._meta.get_field(part).is_cached(obj):
            return None
        obj = getattr(obj, part)
        if obj is None:
            return None
    return getattr(obj, path[-1], None)


def _first_relation(instance) -> tuple[str, int, tuple[str, ...]] | None:
    """(relation, its key, the path on to the tournament's id) of the first of ``TOURNAMENT_PATHS`` set on the row."""
    for relation, _lookup, path in TOURNAMENT_PATHS:
        key = getattr(instance, f"{relation}_id", None)
        if key is not None:
            return relation, key, path
    return None


def tournament_id_of(instance) -> int | None:
    """The id of the tournament a fact row belongs to: from the related rows loaded with it, else one query.

    ``tournaments.audit`` reads the tournament first for the same save and leaves it on the row
    (``REF_ATTRIBUTE``): then no query at all.
    """
    first = _first_relation(instance)
    if first is None:
        return None
    relation, key, path = first
    remembered = instance.__dict__.pop(REF_ATTRIBUTE, None)
    if remembered is not None and remembered[0] == (relation, key):
        return remembered[1][0] if remembered[1] else None
    loaded = _loaded_tournament_id(instance, relation, path)
    if loaded is not None:
        return loaded
    ref = tournament_ref(instance)
    return ref[0] if ref else None


def remember_tournament(instance, ref: tuple[int, str] | None) -> None:
    """Leave the tournament just read for a row on it, for this save's ``tournament_id_of`` (read once)."""
    first = _first_relation(instance)
    if first is not None:
        instance.__dict__[REF_ATTRIBUTE] = (first[:2], ref)


def _game_id(instance) -> int | None:
    """The game whose facts alone the change touched, or None (then every cached game is invalid)."""
    if isinstance(instance, Game):
        return instance.pk
    if isinstance(instance, (Seat, NoShowElimination)):
        return instance.game_id
    return None


def _on_change(sender, instance, raw=False, **kwargs) -> None:
    if raw or getattr(instance, "_skip_recompute", False) or tracking_suspended():
        return
    tournament_id = tournament_id_of(instance)
    if tournament_id is not None:
        mark_changed(tournament_id, game_id=_game_id(instance))


def connect() -> None:
    for label in ("tournaments.Stage", "tournaments.Team", "tournaments.RosterEntry", "tournaments.Participant",
                  "tournaments.Group", "tournaments.GroupTeam", "tournaments.Game", "tournaments.Seat",
                  "tournaments.NoShowElimination", "tournaments.Tour", "tournaments.Mask", "tournaments.Penalty",
                  "tournaments.Withdrawal", "tournaments.Decision", "tournaments.Appeal",
                  "tournaments.TournamentFamily"):
        model = apps.get_model(label)
        post_save.connect(_on_change, sender=model, dispatch_uid=f"recompute-save-{label}")
        post_delete.connect(_on_change, sender=model, dispatch_uid=f"recompute-delete-{label}")
    player = apps.get_model("accounts.Player")
    pre_save.connect(_remember_nick, sender=player, dispatch_uid="recompute-nick-before")
    post_save.connect(_on_nick_change, sender=player, dispatch_uid="recompute-nick-after")
    family = apps.get_model("accounts.Family")
    pre_save.connect(_remember_family, sender=family, dispatch_uid="recompute-family-before")
    post_save.connect(_on_family_change, sender=family, dispatch_uid="recompute-family-after")
    pre_delete.connect(_on_family_delete, sender=family, dispatch_uid="recompute-family-delete")
    for through in (Game.absent_teams.through, Tour.absent.through, Appeal.credited_teams.through):
        m2m_changed.connect(_on_m2m, sender=through, dispatch_uid=f"recompute-m2m-{through.__name__}")


def _remember_nick(sender, instance, raw=False, **kwargs) -> None:
    if raw or instance.pk is None:
        return
    instance._nick_before = sender.objects.filter(pk=instance.pk).values_list("nick", flat=True).first()


def _on_nick_change(sender, instance, raw=False, created=False, **kwargs) -> None:
    """A renamed player changes the facts of every tournament that names them (seats, rosters, penalties)."""
    before = getattr(instance, "_nick_before", None)
    if raw or created or before is None or before == instance.nick or tracking_suspended():
        return
    _mark_naming(instance, ("participants__player", "teams__roster__player", "stages__games__seats__player",
                            "stages__games__no_show_eliminations__player", "penalties__player", "decisions__player",
                            "families__family__head", "teams__captain", "appeals__violating_player"))


FAMILY_LOOKUPS = ("teams__family", "participants__family", "families__family")  # the facts that name a family


def _mark_naming(instance, lookups: tuple[str, ...]) -> None:
    """Mark changed every tournament whose facts name ``instance`` through one of ``lookups``."""
    named: set[int] = set()
    for lookup in lookups:
        named.update(Tournament.objects.filter(**{lookup: instance}).values_list("pk", flat=True))
    for tournament_id in sorted(named):
        mark_changed(tournament_id)


def _remember_family(sender, instance, raw=False, **kwargs) -> None:
    if raw or instance.pk is None:
        return
    instance._named_before = sender.objects.filter(pk=instance.pk).values_list("name", "head_id").first()


def _on_family_change(sender, instance, raw=False, created=False, **kwargs) -> None:
    """A renamed family, or one with another head, changes the facts of every tournament that names it (teams,
    participants, the tournament's families: FL-20, FL-21)."""
    before = getattr(instance, "_named_before", None)
    if raw or created or before is None or before == (instance.name, instance.head_id) or tracking_suspended():
        return
    _mark_naming(instance, FAMILY_LOOKUPS)


def _on_family_delete(sender, instance, **kwargs) -> None:
    """A family deleted leaves its teams and participants without one (SET_NULL, no signal of theirs)."""
    if not tracking_suspended():
        _mark_naming(instance, FAMILY_LOOKUPS)


def _on_m2m(sender, instance, action, **kwargs) -> None:
    if action in ("post_add", "post_remove", "post_clear"):
        _on_change(sender, instance)
