"""What the class_balanced home adds to the shared pages (``formats.registry``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import Min
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from accounts.permissions import can_publish_schedules
from formats.class_balanced.rules import RULEBOOK
from formats.class_balanced.services import publication_due
from formats.registry import DashboardItem as Item
from formats.registry import FormatHome, Link, is_signed_in
from rulesets import facts as F
from rulesets.base import Problem, strip_prefix
from rulesets.class_balanced import KEY, scheduled_class_problems
from tournaments.labels import stage_label
from tournaments.models import Game, GameStatus, Stage, Tournament


def tournament_links(tournament: Any, user: Any) -> list[Link]:
    """The player rankings (CB-14); each stage's schedule (CB-2), for signed-in readers."""
    links = [Link(_("Player rankings"), reverse("cb-players", args=[tournament.slug]))]
    if not is_signed_in(user):
        return links  # the schedules are for signed-in readers: an anonymous reload of the table reads no stage
    return links + [Link(_("Stage schedule: %(stage)s") % {"stage": stage_label(stage.key)},
                         reverse("stage-schedule", args=[tournament.slug, stage.key]), signed_in=True,
                         allowed=lambda reader: can_publish_schedules(reader, tournament))  # its view's check
                    for stage in tournament.stages.all()]


def _schedules(tournament: Tournament, now: dt.datetime) -> list[Item]:
    """Stages with games to play whose table is not published, due CB-2's days before the stage starts."""
    stages = Stage.objects.filter(tournament=tournament, published_at__isnull=True,
                                  games__status=GameStatus.SCHEDULED).annotate(
        starts_at=Min("games__scheduled_at")).distinct().order_by("order")
    items = []
    for stage in stages:
        stage.tournament = tournament
        due = publication_due(stage, stage.starts_at)
        items.append(Item("schedules", f"schedule:{stage.key}",
                          _("The schedule of %(stage)s is not published; results cannot be entered until it is.")
                          % {"stage": stage_label(stage.key)}, reverse("stage-schedule", args=[tournament.slug, stage.key]), rule="CB-2",
                          due=due, overdue=due is not None and now > due))
    return items


def dashboard_items(tournament: Any, now: dt.datetime, pending: list) -> list[Item]:
    return _schedules(tournament, now)


def game_problems(stage: Stage, fgame: F.Game, row: Game) -> list[Problem]:
    """No results before the table is published (CB-2); only the teams the table gives the game (CB-5); seats in
    the scheduled class (CB-6)."""
    if fgame.status not in F.SCORING_STATUSES:
        return []
    if stage.published_at is None:
        return [Problem("status", _("the table of %(stage)s is not published yet: results are refused (CB-2)")
                        % {"stage": stage_label(stage.key)})]
    scheduled = list(row.scheduled_teams or [])
    if not scheduled:
        if stage.games.exclude(scheduled_teams=[]).exists():
            return [Problem("number", _("game %(number)s is not in the published table of %(stage)s (CB-2)")
                            % {"number": fgame.number, "stage": stage_label(stage.key)})]
        return []
    problems = [Problem(f"seats[{index}].team", _("%(team)s does not play game %(number)s; the table gives it "
                                                  "%(teams)s (CB-5)") % {"team": seat.team, "number": row.number,
                                                                         "teams": ", ".join(scheduled)})
                for index, seat in enumerate(fgame.seats) if seat.team not in scheduled]
    if row.scheduled_classes:
        problems += strip_prefix(scheduled_class_problems(fgame, "game", row.scheduled_classes,
                                                                 stage.tournament.rules), "game")
    return problems


STAGE_NAMES = {
    "stage-1": pgettext_lazy("stage", "stage 1"),
    "stage-2": pgettext_lazy("stage", "stage 2"),
    "stage-3": pgettext_lazy("stage", "stage 3"),
}

HOME = FormatHome(key=KEY, urls="formats.class_balanced.urls", tournament_links=tournament_links,
                  label=gettext_lazy("Class-balanced tournament (Mafia)"), stage_names=STAGE_NAMES,
                  examples={"tiebreaks": "class_balanced `mafia_wins`, `mafia_draws`, `mafia_wins_13`, "
                                         "`mafia_draws_13`, `maniac_wins`, `points_13`"},
                  dashboard_items=dashboard_items, game_problems=game_problems, rulebook=RULEBOOK)
