"""What the family league home adds to the shared pages (``formats.registry``)."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections import defaultdict
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from formats.family_league.examples import EXAMPLES
from formats.family_league.rules import RULEBOOK
from formats.family_league.services import (
    can_manage_calendar,
    families_headed_by,
    warning_text,
    warnings_for,
)
from formats.registry import DashboardItem as Item
from formats.registry import FormatHome, Link, is_signed_in
from rulesets.family_league import KEY
from rulesets.family_league.calendar import FINAL_GROUP, ROOM_OPEN_MINUTES, CalendarSlot, calendar_ics
from rulesets.family_league.settings import setting
from tournaments.labels import stage_label
from tournaments.models import Game, Team, Tournament

LIMIT = 100


def tournament_links(tournament: Any, user: Any) -> list[Link]:
    """The head's application (FL-1); for signed-in readers the qualifying groups (FL-8) and calendars (FL-9)."""
    links = [Link(_("Player rankings"), reverse("family-players", args=[tournament.slug]))]
    if not is_signed_in(user):
        return links  # the others are for signed-in readers: an anonymous reload of the table reads no stage
    links.append(Link(_("Apply"), reverse("family-apply", args=[tournament.slug]), signed_in=True,
                      allowed=lambda reader: bool(families_headed_by(reader))))  # FL-1: heads only
    links.append(Link(_("Qualifying groups"), reverse("family-groups", args=[tournament.slug]), signed_in=True,
                      allowed=lambda reader: can_manage_calendar(reader, tournament)))
    for stage in tournament.stages.all():
        links.append(Link(_("Calendar: %(stage)s") % {"stage": stage_label(stage.key)},
                          reverse("family-calendar", args=[tournament.slug, stage.key]), signed_in=True,
                          allowed=lambda reader: can_manage_calendar(reader, tournament)))
    return links


def _eligibility(tournament: Tournament) -> list[Item]:
    """FL-3 as the application page judges it (``services.warnings_for``): the dashboard and the page agree."""
    warnings = warnings_for(tournament)
    teams = dict(Team.objects.filter(tournament=tournament, stage__isnull=True).values_list("name", "pk"))
    families = dict(Team.objects.filter(tournament=tournament, stage__isnull=True, family__isnull=False)
                    .values_list("name", "family__name"))
    return [Item("eligibility", f"eligibility:{w.team}:{w.player}:{w.reason}", warning_text(w, families),
                 reverse("team", args=[tournament.slug, teams[w.team]]), rule="FL-3")
            for w in warnings[:LIMIT] if w.team in teams]


def dashboard_items(tournament: Any, now: dt.datetime, pending: list) -> list[Item]:
    return _eligibility(tournament)


def prize_rule(stage_key: str) -> str:
    return "FL-20"


def schedule_ics(tournament: Tournament, stage_key: str | None) -> bytes:
    """FL-9: one event per game room, named by its comment, from the opening to 5 minutes later; groups staggered.

    A game generated from the league's calendar keeps its comment; an imported game gets the comment of its
    group, playing day and game of that day, as the calendar would have named it.
    """
    games = Game.objects.filter(stage__tournament=tournament, scheduled_at__isnull=False).select_related(
        "stage").order_by("stage__order", "scheduled_at", "number")
    if stage_key:
        games = games.filter(stage__key=stage_key)
    template = setting(tournament.settings, "room_comment")
    zone = zoneinfo.ZoneInfo(tournament.timezone)
    seen: dict[tuple, int] = defaultdict(int)
    slots = []
    for game in games:
        group = game.group_label or (FINAL_GROUP if game.stage.key == "final" else "1")
        day = game.round or 1
        starts_at = game.scheduled_at.astimezone(zone)  # events in the tournament's zone, with its VTIMEZONE
        local_day = starts_at.date()
        seen[(game.stage_id, group, local_day)] += 1
        n = seen[(game.stage_id, group, local_day)]
        comment = game.room_comment or template.format(group=group, day=day, n=n)
        slots.append(CalendarSlot(number=game.number, group=group, day=day, n=n, game_in_group=game.number,
                                  starts_at=starts_at, ends_at=starts_at + dt.timedelta(minutes=ROOM_OPEN_MINUTES),
                                  comment=comment))
    return calendar_ics(slots, name=tournament.name, uid_prefix=f"{tournament.slug}-{stage_key or 'all'}").encode()


def next_steps(tournament: Any, now: dt.datetime) -> list[Item]:
    """FL-7, FL-8: a qualifying stage with no group yet: draw its groups."""
    stage = tournament.stages.filter(key="qualifying", groups__isnull=True).first()
    if stage is None:
        return []
    return [Item("next", "groups", _("Draw the qualifying groups"), reverse("family-groups", args=[tournament.slug]),
                 rule="FL-8")]


STAGE_NAMES = {
    "qualifying": pgettext_lazy("stage", "qualifying stage"),
    "final": pgettext_lazy("stage", "final"),
}

HOME = FormatHome(key=KEY, urls="formats.family_league.urls", tournament_links=tournament_links,
                  label=gettext_lazy("Family league (Mafia)"), stage_names=STAGE_NAMES, examples=EXAMPLES,
                  dashboard_items=dashboard_items, prize_rule=prize_rule, schedule_ics=schedule_ics,
                  rulebook=RULEBOOK, next_steps=next_steps)
