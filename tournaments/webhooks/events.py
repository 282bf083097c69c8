"""``emit``: an event of a tournament becomes one delivery per active subscription to it, sent after the commit.

Called once at each place an event happens (``tournaments.commands``, ``tournaments.structure``,
``appeals.services``, ``scoring.services``, the tournament's own save). With no subscription to the event it costs
one query and writes nothing. Otherwise the deliveries are written in the caller's transaction (in a savepoint of
their own: a failed write leaves the save alone) and sent when it commits: the Celery job ``deliver`` for each;
with eager Celery (no broker) the first attempt runs in-process. A broker that refuses the job leaves the
delivery pending, due now, for beat's sweep (``tasks.send_due``); for ``BROKER_RETRY_SECONDS`` the process then
does not try the broker again. Nothing here raises into the save: a failure is logged.

The payloads are the Standard Webhooks shape ``{"type", "timestamp", "data"}``; ``data`` always names the
``tournament`` (its slug), and the builders below say what each event adds. Times are ISO 8601 in the
tournament's zone, as the API gives them.
"""

from __future__ import annotations

import datetime as dt
import logging
import secrets
import time
from collections.abc import Callable, Iterable
from typing import Any

from django.conf import settings
from django.db import transaction
from django.db.models.signals import post_save, pre_save
from django.utils import timezone

from accounts.zones import zone_of
from tournaments.models import (
    Appeal,
    AppealKind,
    Game,
    GameStatus,
    Stage,
    Tour,
    Tournament,
    TournamentStatus,
    WebhookDelivery,
    WebhookEvent,
    WebhookSubscription,
)
from tournaments.webhooks import tasks

log = logging.getLogger(__name__)
Data = dict[str, Any] | Callable[[], dict[str, Any]]
HIDDEN_APPELLANT_KINDS = (AppealKind.REMOVAL, AppealKind.ACCEPT_ANSWER)  # CHGK-20: hidden until the verdict


class BrokerState:
    """Until when (``time.monotonic()``) this process leaves the deliveries to the sweep."""

    down_until = 0.0


def new_msg_id() -> str:
    return f"msg_{secrets.token_urlsafe(18)}"


def moment(value: dt.datetime | None, tournament: Tournament) -> str | None:
    return value.astimezone(zone_of(tournament.timezone)).isoformat() if value is not None else None


def subscribed(tournament_id: int, event: str) -> list[int]:
    """The active subscriptions of the tournament to ``event`` (one query)."""
    return [pk for pk, events in WebhookSubscription.objects.filter(
        tournament_id=tournament_id, active=True).values_list("pk", "events") if event in (events or ())]


def emit(tournament: Tournament, event: str, data: Data) -> int:
    """Record the event for each subscription to it and send it after the commit; how many deliveries.
    ``data``: what the event carries, or a callable that gives it (called only when someone subscribes)."""
    try:
        targets = subscribed(tournament.pk, event)
        if not targets:
            return 0
        now = timezone.now()
        payload = {"type": str(event), "timestamp": now.astimezone(dt.UTC).isoformat().replace("+00:00", "Z"),
                   "data": {"tournament": tournament.slug, **(data() if callable(data) else data)}}
        rows = [WebhookDelivery(subscription_id=pk, event=event, msg_id=new_msg_id(), payload=payload,
                                next_attempt_at=now, retry_from=now) for pk in targets]
        with transaction.atomic():
            WebhookDelivery.objects.bulk_create(rows)
        ids = [row.pk for row in rows]
        transaction.on_commit(lambda: dispatch(ids))
        return len(ids)
    except Exception:  # noqa: BLE001 - a webhook never fails the save that caused it
        log.exception("webhook %s of tournament %s was not recorded", event, tournament.pk)
        return 0


def dispatch(ids: Iterable[int]) -> None:
    """Send each delivery's first attempt (after the commit); never raises."""
    for pk in ids:
        try:
            if settings.CELERY_TASK_ALWAYS_EAGER:
                tasks.deliver.apply(args=[pk])
            elif time.monotonic() >= BrokerState.down_until:
                tasks.deliver.apply_async(args=[pk], retry=False)
        except Exception as exc:  # noqa: BLE001 - kombu's OperationalError, a refused connection: the sweep sends it
            if not settings.CELERY_TASK_ALWAYS_EAGER:
                BrokerState.down_until = time.monotonic() + settings.BROKER_RETRY_SECONDS
            log.warning("webhook delivery %s was left to the sweep (%r)", pk, exc)


# --- the events, one call at each place they happen ---


def result_saved(tournament: Tournament, row: Game | Tour, *, had_result: bool) -> int:
    """A game's result or a tour's masks were written: ``result.saved`` where there was no result before
    (``had_result``), ``result.corrected`` where one was replaced. A game saved as scheduled has no result."""
    if isinstance(row, Game) and row.status == GameStatus.SCHEDULED:
        return 0
    event = WebhookEvent.RESULT_CORRECTED if had_result else WebhookEvent.RESULT_SAVED
    return emit(tournament, event, lambda: game_result(row) if isinstance(row, Game) else tour_result(row))


def schedule_changed(tournament: Tournament, stage: Stage, change: str, *, game: int | None = None,
                     tour: int | None = None) -> int:
    """``schedule.changed``: the stage's schedule was published, or a slot of a published one changed (a slot
    of a stage not yet published is no change of a schedule anyone was shown)."""
    if change != "published" and stage.published_at is None:
        return 0
    return emit(tournament, WebhookEvent.SCHEDULE_CHANGED,
                lambda: schedule_change(tournament, stage, change, game=game, tour=tour))


def appeal_event(tournament: Tournament, appeal: Appeal, event: str) -> int:
    """``appeal.filed`` or ``appeal.decided``."""
    return emit(tournament, event, lambda: appeal_data(appeal, tournament))


def _before_tournament_save(sender, instance: Tournament, raw=False, update_fields=None, **kwargs) -> None:
    """Whether this save takes the tournament out of its draft (read only for a save that may)."""
    instance._leaves_draft = bool(
        not raw and instance.pk is not None and instance.status != TournamentStatus.DRAFT
        and (update_fields is None or "status" in update_fields)
        and Tournament.objects.filter(pk=instance.pk).values_list("status", flat=True).first()
        == TournamentStatus.DRAFT)


def _after_tournament_save(sender, instance: Tournament, raw=False, **kwargs) -> None:
    if instance.__dict__.pop("_leaves_draft", False):
        emit(instance, WebhookEvent.TOURNAMENT_PUBLISHED, lambda: tournament_data(instance))


def connect() -> None:
    """``tournament.published`` by any path that saves the tournament (the structure page, the admin)."""
    pre_save.connect(_before_tournament_save, sender=Tournament, dispatch_uid="webhooks-tournament-before")
    post_save.connect(_after_tournament_save, sender=Tournament, dispatch_uid="webhooks-tournament-after")


# --- what each event carries besides the tournament ---


def game_result(game: Game) -> dict[str, Any]:
    """``result.saved`` / ``result.corrected`` of a Mafia game."""
    return {"stage": game.stage.key, "game": game.number, "tour": None, "status": game.status,
            "outcome": game.outcome, "version": game.version}


def tour_result(tour: Tour) -> dict[str, Any]:
    """``result.saved`` / ``result.corrected`` of a ChGK tour's masks."""
    return {"stage": tour.stage.key, "game": None, "tour": tour.number, "status": None, "outcome": None,
            "version": tour.version}


def schedule_change(tournament: Tournament, stage: Stage, change: str, *, game: int | None = None,
                    tour: int | None = None) -> dict[str, Any]:
    """``schedule.changed``: ``change`` is ``published``, or a slot (a ``game`` or a ``tour`` number)
    ``added``, ``changed`` or ``removed`` in a stage whose schedule is published."""
    return {"stage": stage.key, "change": change, "game": game, "tour": tour,
            "published_at": moment(stage.published_at, tournament)}


def appeal_data(appeal: Appeal, tournament: Tournament) -> dict[str, Any]:
    """``appeal.filed`` / ``appeal.decided``: the appeal and, once decided, its verdict. The appealing team of a
    ChGK appeal is hidden while the verdict is pending (CHGK-20), as the public API hides it."""
    hidden = appeal.kind in HIDDEN_APPELLANT_KINDS and appeal.verdict is None
    return {"appeal": appeal.pk, "kind": appeal.kind, "stage": appeal.stage.key if appeal.stage_id else None,
            "tour": appeal.tour.number if appeal.tour_id else None, "question": appeal.question,
            "game": appeal.game.number if appeal.game_id else None,
            "decision": appeal.decision.index if appeal.decision_id else None,
            "team": None if hidden or appeal.team_id is None else appeal.team.name, "team_hidden": hidden,
            "filed_at": moment(appeal.filed_at, tournament), "verdict": appeal.verdict,
            "verdict_at": moment(appeal.verdict_at, tournament)}


def tournament_data(tournament: Tournament) -> dict[str, Any]:
    """``tournament.published``: the tournament left its draft."""
    return {"name": tournament.name, "status": tournament.status, "path": tournament.get_absolute_url()}
