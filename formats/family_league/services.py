"""Entry to the family league: applications, eligibility warnings and removals, the calendar (FL-1..FL-3, FL-9).

Services, each in one transaction; who may act is checked in
``accounts.permissions``. The rules themselves are the pure functions of
``rulesets.family_league.entry`` and ``rulesets.family_league.calendar``;
this module only reads the database into their plain arguments and writes
their results back.

- ``apply``: the family's head enters the family (FL-1) before the
  registration deadline (FL-2); the team is named after the family and its
  roster is chosen from the family's current members.
- ``warnings_for``: the FL-3 problems of the rosters as they stand, shown to
  the head from registration on.
- ``judge_eligibility``: at the judging moment (24 hours before the first
  scheduled game) every failing player leaves the roster; done once per
  tournament, the marker being an ``AuditEntry`` (``action="fl3_judged"``).
- ``generate_stage_calendar``: the stage's scheduled games (FL-9).
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Max, Min
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Blacklist, Family, FamilyMembership, Player, Role
from accounts.permissions import confirmed_player_of, has_role, refuse_application
from accounts.zones import moment_text
from rulesets import facts as F
from rulesets.errors import Conflict, Invalid, NotAllowed
from rulesets.family_league.calendar import CalendarSlot, stage_calendar
from rulesets.family_league.entry import (
    BlacklistEntry,
    EligibilityWarning,
    draw_groups,
    eligibility_problems,
    judging_moment,
)
from rulesets.family_league.settings import parse_time_of_day, setting
from tournaments.audit import record
from tournaments.loader import load_facts
from tournaments.models import (
    AuditEntry,
    Game,
    GameStatus,
    Group,
    GroupTeam,
    Participant,
    RosterEntry,
    Stage,
    Team,
    Tournament,
    TournamentFamily,
    TournamentStatus,
)
from tournaments.rosters import roster_conflict, roster_conflict_message

RULESET = "family_league"
JUDGED_ACTION = "fl3_judged"
CALENDAR_MANAGERS = (Role.ORGANIZER, Role.CURATOR)


class EntryRefused(Invalid):
    """The application, the removal or the calendar was refused; the message says why."""


class EntryNotAllowed(EntryRefused, NotAllowed):
    """The acting user may not do this (FL-9: the organizer or the curator generates the calendar)."""


class EntryConflict(EntryRefused, Conflict):
    """Already done: the family has already applied."""


def zone_of(tournament: Tournament) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(tournament.timezone or "Europe/Moscow")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return zoneinfo.ZoneInfo("Europe/Moscow")


# ---------------------------------------------------------------- who applies, how many

def families_headed_by(user) -> list[Family]:
    """The families whose head is the user's confirmed player (FL-1)."""
    player = confirmed_player_of(user)
    if player is None:
        return []
    return list(Family.objects.filter(head=player).order_by("name"))


def refuse(user, tournament: Tournament, family: Family | None, now: dt.datetime | None = None) -> str | None:
    """Why ``user`` may not apply ``family`` for ``tournament`` (None: allowed)."""
    now = now or timezone.now()
    if tournament.ruleset != RULESET:
        return _("Applications by family are taken only for the family league.")
    if family is None:
        return _("Only the head of a family may apply for the family league (FL-1).")
    refusal = refuse_application(user, family)
    if refusal is not None:
        return refusal
    if confirmed_player_of(user) is None:
        return _("Only the head of %(family)s may apply for it (FL-1).") % {"family": family.name}
    if not family.official:
        return _("Only an official family may enter (FL-1).")
    if tournament.registration_deadline is not None and now > tournament.registration_deadline:
        return _("Registration closed on %(deadline)s (FL-2).") % {
            "deadline": moment_text(tournament.registration_deadline, tournament.timezone)}
    return None


def current_members(family: Family, on: dt.date | None = None) -> list[Player]:
    """Members of the family on the day ``on`` (today if not given); a pending request is not a member."""
    rows = _memberships(FamilyMembership.objects.filter(family=family), on)
    return [m.player for m in rows]


def _memberships(queryset, on: dt.date | None):
    queryset = queryset.filter(joined_on__isnull=False).select_related("player", "family")
    if on is None:
        return queryset.filter(left_on__isnull=True).order_by("player__nick")
    return queryset.filter(joined_on__lte=on).exclude(left_on__lte=on).order_by("player__nick")


def family_team(tournament: Tournament, family: Family) -> Team | None:
    return Team.objects.filter(tournament=tournament, family=family, stage__isnull=True).first()


@dataclass(frozen=True)
class Applications:
    count: int
    min_teams: int

    @property
    def enough(self) -> bool:
        return self.count >= self.min_teams


def applications(tournament: Tournament) -> Applications:
    """How many families have applied against the minimum the tournament needs (FL-2)."""
    count = Team.objects.filter(tournament=tournament, stage__isnull=True, family__isnull=False).count()
    return Applications(count, setting(tournament.settings or {}, "min_teams"))


@transaction.atomic
def apply(user, tournament: Tournament, family: Family, player_ids, now: dt.datetime | None = None) -> Team:
    """The head enters the family: the team (named after the family) and its roster, in one transaction."""
    now = now or timezone.now()
    tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
    refusal = refuse(user, tournament, family, now)
    if refusal is not None:
        raise EntryRefused(refusal)
    if family_team(tournament, family) is not None:
        raise EntryConflict(_("%(family)s has already applied.") % {"family": family.name})
    if Team.objects.filter(tournament=tournament, stage__isnull=True, name=family.name).exists():
        raise EntryRefused(_("A team named %(family)s already takes part.") % {"family": family.name})
    members = {p.pk: p for p in current_members(family)}
    wanted = {int(pk) for pk in player_ids}
    if not wanted:
        raise EntryRefused(_("Choose at least one player for the roster."))
    if not wanted <= set(members):
        raise EntryRefused(_("The roster may hold only current members of %(family)s.") % {"family": family.name})
    order = (Team.objects.filter(tournament=tournament, stage__isnull=True).aggregate(m=Max("order"))["m"] or 0) + 1
    team = Team.objects.create(tournament=tournament, name=family.name, family=family, order=order)
    for pk in sorted(wanted):
        other = roster_conflict(team, pk)
        if other is not None:
            raise EntryRefused(roster_conflict_message(members[pk].nick, other))
    for index, player in enumerate(sorted((members[pk] for pk in wanted), key=lambda p: p.nick), start=1):
        RosterEntry.objects.create(team=team, player=player, order=index, joined_at=now)
    family_order = (TournamentFamily.objects.filter(tournament=tournament).aggregate(m=Max("order"))["m"] or 0) + 1
    TournamentFamily.objects.get_or_create(tournament=tournament, family=family, defaults={"order": family_order})
    return team


# ---------------------------------------------------------------- eligibility (FL-3)

def official_start(tournament: Tournament) -> dt.datetime | None:
    """The first scheduled game; without games, the start date at the first game time of the day."""
    first = Game.objects.filter(stage__tournament=tournament, scheduled_at__isnull=False).aggregate(
        m=Min("scheduled_at"))["m"]
    if first is not None:
        return first
    if tournament.starts_on is None:
        return None
    time = parse_time_of_day(setting(tournament.settings or {}, "game_times")[0])
    return dt.datetime.combine(tournament.starts_on, time, tzinfo=zone_of(tournament))


def _active_entries(tournament: Tournament):
    return list(RosterEntry.objects.filter(team__tournament=tournament, team__stage__isnull=True, left_at__isnull=True)
                .select_related("team", "team__family", "player").order_by("team__order", "team__name", "order"))


def warnings_for(tournament: Tournament, extra: tuple[str, Family, list[Player]] | None = None,
                 on: dt.date | None = None, start: dt.datetime | None = None) -> list[EligibilityWarning]:
    """FL-3 problems of every active roster (plus an ``extra`` team not yet saved), as memberships stand ``on``:
    the portal's family memberships and bans, and the tournament's own record of each participant's family and
    ban (what an imported document states), so the application page and the dashboard say the same.

    A bounded number of queries whatever the tournament's size.
    """
    entries = _active_entries(tournament)
    rosters: dict[str, list[str]] = {}
    team_family: dict[str, str] = {}
    players: dict[str, Player] = {}
    for entry in entries:
        rosters.setdefault(entry.team.name, []).append(entry.player.nick)
        team_family[entry.team.name] = entry.team.family.name if entry.team.family else entry.team.name
        players[entry.player.nick] = entry.player
    if extra is not None:
        name, family, roster = extra
        rosters[name] = [p.nick for p in roster]
        team_family[name] = family.name
        players.update({p.nick: p for p in roster})
    ids = [p.pk for p in players.values()]
    families_of: dict[int, set[str]] = {}
    for membership in _memberships(FamilyMembership.objects.filter(player_id__in=ids), on):
        families_of.setdefault(membership.player_id, set()).add(membership.family.name)
    banned: set[int] = set()
    for player_id, family_name, is_banned in Participant.objects.filter(
            tournament=tournament, player_id__in=ids).values_list("player_id", "family__name", "banned"):
        if family_name:  # the tournament's own record (an imported document) names the player's family
            families_of.setdefault(player_id, set()).add(family_name)
        if is_banned:
            banned.add(player_id)
    wanted_family: dict[str, str] = {}
    for team, roster in rosters.items():
        for nick in roster:
            wanted_family.setdefault(nick, team_family[team])
    facts = []
    for nick, player in players.items():
        mine = families_of.get(player.pk, set())
        family = wanted_family[nick] if wanted_family[nick] in mine else (sorted(mine)[0] if mine else None)
        facts.append(F.Player(nick=nick, family=family, banned=player.banned or player.pk in banned))
    zone = zone_of(tournament)
    blacklist = [
        BlacklistEntry(owner, blocked, dt.datetime.combine(since, dt.time(), tzinfo=zone) if since else None)
        for owner, blocked, since in Blacklist.objects.filter(owner_id__in=ids, blocked_id__in=ids).values_list(
            "owner__nick", "blocked__nick", "since")
    ]
    if start is None:
        start = official_start(tournament)
    return eligibility_problems(facts, team_family, blacklist, start, rosters)


def warning_text(warning: EligibilityWarning, families: dict[str, str] | None = None) -> str:
    """The translated message of an FL-3 warning."""
    if warning.reason == "membership":
        family = (families or {}).get(warning.team, warning.team)
        return _("%(nick)s is not a member of the family %(family)s (FL-3).") % {
            "nick": warning.player, "family": family}
    if warning.reason == "banned":
        return _("%(nick)s is banned from official tournaments (FL-3).") % {"nick": warning.player}
    return _("%(nick)s and %(other)s are on a blacklist together (FL-3).") % {
        "nick": warning.player, "other": warning.other or ""}


def _judged(tournament: Tournament) -> bool:
    return AuditEntry.objects.filter(tournament=tournament, action=JUDGED_ACTION).exists()


def judge_eligibility(tournament: Tournament, now: dt.datetime | None = None) -> list[tuple[str, str]] | None:
    """At the judging moment, every player failing FL-3 leaves the roster (``left_at`` = the moment).

    Returns the removed (team, nick) pairs, or None when nothing was judged:
    not a family league, finished, the moment not reached, a game already
    held (the tournament is under way), or judged before. Idempotent.
    """
    now = now or timezone.now()
    with transaction.atomic():
        tournament = Tournament.objects.select_for_update().get(pk=tournament.pk)
        if tournament.ruleset != RULESET or tournament.status == TournamentStatus.FINISHED or _judged(tournament):
            return None
        start = official_start(tournament)
        if start is None or judging_moment(start) > now:
            return None
        if Game.objects.filter(stage__tournament=tournament).exclude(status=GameStatus.SCHEDULED).exists():
            return None
        moment = judging_moment(start)
        problems = warnings_for(tournament, on=moment.astimezone(zone_of(tournament)).date(), start=start)
        failing = sorted({(w.team, w.player) for w in problems})
        entries = {(e.team.name, e.player.nick): e for e in _active_entries(tournament)}
        removed = []
        for key in failing:
            entry = entries.get(key)
            if entry is None:
                continue
            entry.left_at = moment
            entry.save(update_fields=["left_at"])
            removed.append(key)
        record(JUDGED_ACTION, tournament, None, {
            "judged_at": moment.isoformat(), "start": start.isoformat(),
            "removed": [{"team": team, "player": nick,
                         "reasons": sorted(w.reason for w in problems if (w.team, w.player) == (team, nick))}
                        for team, nick in removed]})
        return removed


def judge_due(now: dt.datetime | None = None) -> dict[str, list[tuple[str, str]]]:
    """Judge every family league tournament whose moment has come; per slug, the players removed."""
    done = {}
    candidates = Tournament.objects.filter(ruleset=RULESET).exclude(status=TournamentStatus.FINISHED).exclude(
        audit_entries__action=JUDGED_ACTION)
    for tournament in candidates:
        removed = judge_eligibility(tournament, now)
        if removed is not None:
            done[tournament.slug] = removed
    return done


# ---------------------------------------------------------------- the calendar (FL-9)

def can_manage_calendar(user, tournament: Tournament) -> bool:
    return bool(user is not None and user.is_authenticated and user.is_active
                and has_role(user, tournament, *CALENDAR_MANAGERS))


def stage_has_results(stage: Stage) -> bool:
    return stage.games.exclude(status=GameStatus.SCHEDULED).exists()


def preview_calendar(tournament: Tournament, stage: Stage, starts_on: dt.date) -> list[CalendarSlot]:
    return stage_calendar(load_facts(tournament), stage.key, starts_on)


@transaction.atomic
def generate_stage_calendar(user, tournament: Tournament, stage: Stage, starts_on: dt.date) -> list[Game]:
    """Replace the stage's scheduled games by the generated calendar; refused once the stage has results."""
    if tournament.ruleset != RULESET:
        raise EntryRefused(_("The calendar is generated only for the family league."))
    if not can_manage_calendar(user, tournament):
        raise EntryNotAllowed(_("Only the tournament's organizer or curator generates its calendar (FL-9)."))
    stage = Stage.objects.select_for_update().get(pk=stage.pk)
    if stage_has_results(stage):
        raise EntryRefused(_("The stage already has games held; its calendar can no longer be generated (FL-9)."))
    slots = preview_calendar(tournament, stage, starts_on)
    groups = {g.name: g for g in stage.groups.all()}
    stage.games.all().delete()
    return [
        Game.objects.create(stage=stage, number=slot.number, group=groups.get(slot.group), group_label=slot.group,
                            round=slot.day, scheduled_at=slot.starts_at, status=GameStatus.SCHEDULED,
                            room_comment=slot.comment,
                            updated_by=user.get_username())
        for slot in slots
    ]


def draw_qualifying_groups(user, tournament: Tournament, seed: str) -> list[list[str]]:
    """FL-8: the seeded public draw of the teams into the qualifying groups (``draw_groups``).

    Teams come in seeding order (the order they entered); the groups are named
    1, 2, ...; the seed is stored on the stage so anyone can re-run the draw.
    """
    if not can_manage_calendar(user, tournament):
        raise EntryNotAllowed(_("Only the tournament's organizer or curator generates its calendar (FL-9)."))
    teams = list(Team.objects.filter(tournament=tournament, stage__isnull=True).order_by("order", "id"))
    count = int(setting(tournament.settings, "groups") or 2)
    drawn = draw_groups([t.name for t in teams], count, seed)
    by_name = {t.name: t for t in teams}
    with transaction.atomic():
        stage, _created = Stage.objects.get_or_create(tournament=tournament, key="qualifying",
                                                      defaults={"order": 0})
        if stage_has_results(stage):
            raise EntryRefused(_("The qualifying stage has games held; its groups can no longer be drawn (FL-8)."))
        stage.groups.all().delete()
        for index, names in enumerate(drawn):
            group = Group.objects.create(stage=stage, name=str(index + 1), order=index)
            GroupTeam.objects.bulk_create([GroupTeam(group=group, team=by_name[n], order=i)
                                           for i, n in enumerate(names)])
        stage.seed = seed
        stage.save(update_fields=["seed"])
        # the groups' teams are written in bulk: the history gets the draw as one entry
        record("draw", stage, None, {"seed": seed, "groups": {str(i + 1): list(names) for i, names in
                                                              enumerate(drawn)}}, user=user)
    return drawn
