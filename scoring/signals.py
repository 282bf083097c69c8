"""Every change to a fact model marks its tournament changed (bump + recompute)."""

from __future__ import annotations

from django.db.models.signals import m2m_changed, post_delete, post_save

from scoring.changes import mark_changed, tracking_suspended


def _tournament_id(instance) -> int | None:
    for path in ("tournament_id", "stage.tournament_id", "game.stage.tournament_id", "tour.stage.tournament_id",
                 "team.tournament_id", "group.stage.tournament_id"):
        obj = instance
        try:
            for part in path.split("."):
                obj = getattr(obj, part)
        except Exception:  # noqa: BLE001 - a related row already deleted
            continue
        if obj is not None:
            return obj
    return None


def _on_change(sender, instance, raw=False, **kwargs) -> None:
    if raw or getattr(instance, "_skip_recompute", False) or tracking_suspended():
        return
    tournament_id = _tournament_id(instance)
    if tournament_id is not None:
        mark_changed(tournament_id)


def connect() -> None:
    from django.apps import apps

    from appeals.models import Appeal
    from tournaments.models import Game, Tour

    for label in ("tournaments.Stage", "tournaments.Team", "tournaments.RosterEntry", "tournaments.Participant",
                  "tournaments.Group", "tournaments.GroupTeam", "tournaments.Game", "tournaments.Seat",
                  "tournaments.NoShowElimination", "tournaments.Tour", "tournaments.Mask", "tournaments.Penalty",
                  "tournaments.Withdrawal", "appeals.Decision", "appeals.Appeal"):
        model = apps.get_model(label)
        post_save.connect(_on_change, sender=model, dispatch_uid=f"recompute-save-{label}")
        post_delete.connect(_on_change, sender=model, dispatch_uid=f"recompute-delete-{label}")
    for through in (Game.absent_teams.through, Tour.absent.through, Appeal.credited_teams.through):
        m2m_changed.connect(_on_m2m, sender=through, dispatch_uid=f"recompute-m2m-{through.__name__}")


def _on_m2m(sender, instance, action, **kwargs) -> None:
    if action in ("post_add", "post_remove", "post_clear"):
        _on_change(sender, instance)
