"""Turning a generated class_balanced schedule into scheduled games (CB-2, CB-5, CB-6).

The pure generators live in ``rulesets.class_balanced.schedule``; this module
picks the teams of the stage, places each game in time (one stage a week,
CB-1), stores the games with the classes the table gives (stage 2) and the
public seed, and publishes the table when the organizer says so.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Callable

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from rulesets.class_balanced import schedule as gen
from rulesets.class_balanced.settings import config
from rulesets.errors import Conflict, Invalid
from scoring.models import StandingsSnapshot
from tournaments import audit
from tournaments.models import Game, GameStatus, Stage, Team

STAGE_INDEX = {"stage-1": 0, "stage-2": 1, "stage-3": 2}
FIRST_GAME = dt.time(10, 0)
GAME_SPACING = dt.timedelta(hours=2)


class ScheduleRefused(Invalid):
    """The schedule cannot be generated or published; the message says why."""


class ScheduleConflict(ScheduleRefused, Conflict):
    """The schedule is already published (CB-2)."""


def stage_teams(stage: Stage) -> list[str]:
    """Stage 1: every team; later stages: the teams still in after the previous stage (CB-12)."""
    teams = list(Team.objects.filter(tournament=stage.tournament, stage__isnull=True).order_by("order", "name")
                 .values_list("name", flat=True))
    if STAGE_INDEX[stage.key] == 0:
        return teams
    previous = Stage.objects.filter(tournament=stage.tournament, order__lt=stage.order).order_by("-order").first()
    snapshot = StandingsSnapshot.objects.filter(tournament=stage.tournament,
                                                stage_key=previous.key if previous else "").first()
    if snapshot is None:
        raise ScheduleRefused(_("The previous stage has no standings yet."))
    return [row["team"] for row in snapshot.export["teams"] if row["status"] in ("active", "advanced", "winner")]


def generate(stage: Stage, seed: str, progress: Callable[[int, int], None] | None = None) -> int:
    """Replace the stage's scheduled games by a newly generated table; returns the number of games."""
    if stage.tournament.ruleset != "class_balanced" or stage.key not in STAGE_INDEX:
        raise ScheduleRefused(_("Only class_balanced stages have generated schedules (CB-5, CB-6)."))
    if stage.published_at is not None:
        raise ScheduleConflict(_("The schedule of this stage is already published (CB-2)."))
    teams = stage_teams(stage)
    index = STAGE_INDEX[stage.key]
    if index == 0:
        schedule = gen.generate_stage1(teams, seed, progress=progress)
        rows = [(slot, teams_, {}) for slot, (_day, teams_) in zip(schedule.slots(), schedule.games)]
    elif index == 1:
        schedule = gen.generate_stage2(teams, seed, progress=progress)
        rows = [(slot, tuple(classes), dict(classes)) for slot, (_day, classes) in zip(schedule.slots(),
                                                                                       schedule.games)]
    else:
        schedule = gen.generate_stage3_calendar(teams, seed)
        rows = [(slot, teams_, {}) for slot, (_day, teams_) in zip(schedule.slots(), schedule.games)]
    zone = zoneinfo.ZoneInfo(stage.tournament.timezone)
    start = (stage.tournament.starts_on or timezone.localdate()) + dt.timedelta(weeks=index)
    with transaction.atomic():
        if stage.games.exclude(status=GameStatus.SCHEDULED).exists():
            raise ScheduleRefused(_("The stage already has results; its schedule can no longer be generated."))
        stage.games.all().delete()
        Game.objects.bulk_create([
            Game(stage=stage, number=slot.number, round=slot.day + 1, status=GameStatus.SCHEDULED,
                 scheduled_at=dt.datetime.combine(start + dt.timedelta(days=slot.day), FIRST_GAME, tzinfo=zone)
                 + slot.order * GAME_SPACING,
                 group_label="", scheduled_teams=list(teams_), scheduled_classes=classes)
            for slot, teams_, classes in rows
        ])
        stage.seed = str(seed)
        stage.save(update_fields=["seed"])
        # the games are written in bulk: the history gets the table as one entry
        audit.record("schedule", stage, None, {"seed": str(seed), "games": [
            f"{slot.number}: {', '.join(teams_)}" for slot, teams_, _classes in rows]})
    return len(rows)


def stage_starts_at(stage: Stage) -> dt.datetime | None:
    """When the stage starts: its first game's scheduled time (None before a schedule exists)."""
    return stage.games.exclude(scheduled_at__isnull=True).order_by("scheduled_at").values_list(
        "scheduled_at", flat=True).first()


def publication_due(stage: Stage, starts_at: dt.datetime | None = None) -> dt.datetime | None:
    """CB-2: the table is published at least ``schedule_published_days_before`` days before the stage starts."""
    starts_at = starts_at or stage_starts_at(stage)
    if starts_at is None:
        return None
    days = config(stage.tournament.settings).schedule_published_days_before
    return starts_at - dt.timedelta(days=days)


def day_turn_minutes(stage: Stage) -> int | None:
    """CB-4: how long a day turn lasts in this stage (3 minutes in stage 2, else 2, by the settings)."""
    return config(stage.tournament.settings).day_turn_minutes.get(stage.key)


def publish(stage: Stage, now: dt.datetime | None = None) -> None:
    """Publish the table; results are accepted from then on (CB-2)."""
    if not stage.games.exists():
        raise ScheduleRefused(_("Generate the schedule before publishing it."))
    stage.published_at = now or timezone.now()
    stage.save(update_fields=["published_at"])
