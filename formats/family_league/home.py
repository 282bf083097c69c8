"""What the family league home adds to the shared pages (``formats.registry``)."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections import defaultdict
from typing import Any

from django.db.models import Min
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import Blacklist
from formats.family_league.rules import RULEBOOK
from formats.family_league.services import can_manage_calendar, families_headed_by
from formats.registry import DashboardItem as Item
from formats.registry import FormatHome, Link, admin_url, is_signed_in
from rulesets.facts import Player as FactPlayer
from rulesets.family_league import KEY
from rulesets.family_league.calendar import FINAL_GROUP, ROOM_OPEN_MINUTES, CalendarSlot, calendar_ics
from rulesets.family_league.entry import BlacklistEntry, eligibility_problems
from rulesets.family_league.settings import setting
from tournaments.labels import stage_label
from tournaments.models import Game, Participant, RosterEntry, Team, Tournament

LIMIT = 100


def tournament_links(tournament: Any, user: Any) -> list[Link]:
    """The head's application (FL-1); for signed-in readers the qualifying groups (FL-8) and calendars (FL-9)."""
    links = [Link(_("Player rankings"), reverse("family-players", args=[tournament.slug]))]
    if not is_signed_in(user):
        return links  # the others are for signed-in readers: an anonymous reload of the table reads no stage
    links.append(Link(_("Apply"), reverse("family-apply", args=[tournament.slug]), signed_in=True,
                      allowed=lambda reader: bool(families_headed_by(reader))))  # FL-1: heads only (issue 17)
    links.append(Link(_("Qualifying groups"), reverse("family-groups", args=[tournament.slug]), signed_in=True,
                      allowed=lambda reader: can_manage_calendar(reader, tournament)))
    for stage in tournament.stages.all():
        links.append(Link(_("Calendar: %(stage)s") % {"stage": stage_label(stage.key)},
                          reverse("family-calendar", args=[tournament.slug, stage.key]), signed_in=True,
                          allowed=lambda reader: can_manage_calendar(reader, tournament)))
    return links


ELIGIBILITY_TEXT = {
    "membership": gettext_lazy("%(player)s (%(team)s) is not a member of the team's family."),
    "banned": gettext_lazy("%(player)s (%(team)s) is banned from official tournaments."),
    "blacklist": gettext_lazy("%(player)s (%(team)s) and %(other)s are on a blacklist together."),
}


def _eligibility(tournament: Tournament) -> list[Item]:
    """FL-3 as the facts stand: every current roster player's family, ban and blacklists."""
    zone = zoneinfo.ZoneInfo(tournament.timezone)
    teams = {name: (pk, family) for pk, name, family in Team.objects.filter(
        tournament=tournament, stage__isnull=True).values_list("pk", "name", "family__name")}
    rosters: dict[str, list[str]] = {name: [] for name in teams}
    for team, nick in RosterEntry.objects.filter(team__tournament=tournament, team__stage__isnull=True,
                                                 left_at__isnull=True).order_by("order", "pk").values_list(
            "team__name", "player__nick"):
        rosters[team].append(nick)
    players = [FactPlayer(nick=nick, family=family, banned=banned) for nick, family, banned in
               Participant.objects.filter(tournament=tournament).values_list("player__nick", "family__name",
                                                                             "banned")]
    start = Game.objects.filter(stage__tournament=tournament).aggregate(m=Min("scheduled_at"))["m"]
    blacklist = [BlacklistEntry(owner, blocked, dt.datetime.combine(since, dt.time(0, 0), tzinfo=zone)
                                if since else None)
                 for owner, blocked, since in Blacklist.objects.filter(
                     owner__participations__tournament=tournament,
                     blocked__participations__tournament=tournament).values_list(
                     "owner__nick", "blocked__nick", "since")]
    families = {name: family or name for name, (_pk, family) in teams.items()}
    warnings = eligibility_problems(players, families, blacklist, start, rosters)
    return [Item("eligibility", f"eligibility:{w.team}:{w.player}:{w.reason}",
                 ELIGIBILITY_TEXT[w.reason] % {"player": w.player, "team": w.team, "other": w.other or ""},
                 admin_url("tournaments_team_change", teams[w.team][0]), rule="FL-3")
            for w in warnings[:LIMIT]]


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


HOME = FormatHome(key=KEY, urls="formats.family_league.urls", tournament_links=tournament_links,
                  dashboard_items=dashboard_items, prize_rule=prize_rule, schedule_ics=schedule_ics,
                  rulebook=RULEBOOK)
