"""The organizer's page for a class_balanced stage's schedule: generate (as a job), review, publish (CB-2)."""

from __future__ import annotations

import secrets

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.forms import errors_as_messages
from accounts.permissions import can_publish_schedules
from formats.class_balanced.forms import ScheduleForm
from formats.class_balanced.services import (
    ScheduleRefused,
    day_turn_minutes,
    publication_due,
    publish,
    stage_starts_at,
)
from formats.class_balanced.tasks import generate_class_schedule, progress_of
from tournaments.messages import refusal_text
from tournaments.models import Stage


@login_required
def stage_schedule_view(request: HttpRequest, slug: str, stage_key: str) -> HttpResponse:
    stage = get_object_or_404(Stage.objects.select_related("tournament"), tournament__slug=slug, key=stage_key)
    if not can_publish_schedules(request.user, stage.tournament):  # roles.md: the organizer publishes schedules
        raise PermissionDenied(_("Only the organizers of %(tournament)s set up and publish its stage schedules "
                                 "(CB-2).") % {"tournament": stage.tournament.name})
    if request.method == "POST":
        form = ScheduleForm(request.POST)
        if not form.is_valid():
            errors_as_messages(request, form)
        elif form.cleaned_data["publish"]:
            try:
                publish(stage)
            except ScheduleRefused as exc:
                messages.error(request, refusal_text(exc))
            else:
                messages.success(request, _("The schedule is published; results are accepted from now on (CB-2)."))
        else:
            generate_class_schedule.delay(stage.pk, form.cleaned_data["seed"])
        return redirect("stage-schedule", slug=slug, stage_key=stage_key)
    progress = progress_of(stage.pk)
    starts_at = stage_starts_at(stage)
    due = publication_due(stage, starts_at)
    games = list(stage.games.order_by("number").values("number", "round", "scheduled_at", "scheduled_teams",
                                                        "scheduled_classes", "status"))
    return render(request, "class_balanced/stage_schedule.html", {
        "tournament": stage.tournament, "stage": stage, "games": games, "progress": progress,
        "running": bool(progress and progress.get("state") == "running"),
        "suggested_seed": secrets.token_hex(4),
        "starts_at": starts_at, "publication_due": due, "day_turn_minutes": day_turn_minutes(stage),
        "published_late": bool(due and stage.published_at and stage.published_at > due),
        "publication_overdue": bool(due and stage.published_at is None and timezone.now() > due),
    })
