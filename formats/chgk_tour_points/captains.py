"""A captain manages the team: roster changes within CHGK-2..CHGK-4, the captaincy hand-over.

The rules are the pure checks of ``rulesets.chgk_tour_points.season``; this module only
reads the roster from the database and writes the accepted change.

How the roster records the season (no extra model):

- the application's players have ``RosterEntry.joined_at`` empty;
- an *addition* (CHGK-2) is an entry with ``joined_at`` set;
- a *replacement* (CHGK-3) closes the old entry and opens the new one at the
  same instant (``old.left_at == new.joined_at``), so it is told from an
  addition and does not use one of the 6.

Who has "played a tour" (CHGK-3): everyone in a line-up the captain stored
(``tournaments.LineUp``, CHGK-4) has played. For a tour the team played (a
mask of the team in a tour with a date) without a stored line-up, the portal
infers it: a player counts as having played once the team played such a tour
on or after the day they joined. The inference never lets a player who played
be replaced; it may refuse one who sat every tour out (the organizer can
still change the roster in the admin). A team that stores a line-up for every
tour is judged by the line-ups alone.

The line-up of the team's next tour (the first tour of the season without
results that the team does not host) is checked by the pure
``chgk_season.check_line_up`` and stored; the captain may replace it until the
tour has results.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass

from django.db import transaction
from django.db.models import Exists, Max, OuterRef
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.claims import find_player
from accounts.models import Player
from accounts.permissions import can_manage_team
from formats.chgk_tour_points.models import LineUp
from rulesets.chgk_tour_points import season as chgk_season
from rulesets.errors import Conflict, Invalid, NotAllowed
from tournaments.grants import juror_conflict
from tournaments.models import FilingDelegation, Mask, Participant, RosterEntry, Team, Tour
from tournaments.rosters import roster_conflict, roster_conflict_message

CHGK = "chgk_tour_points"


class RosterRefused(Invalid):
    """The change was refused; ``problems`` name the thing and the rule.

    Here ``problems`` are the plain messages the team page lists (``located()`` gives them as ``Problem``).
    """

    def __init__(self, problems: list[str]):
        super().__init__(list(problems))
        self.problems = list(problems)


class RosterNotAllowed(RosterRefused, NotAllowed):
    """Only the captain manages the team (CHGK-4)."""


class RosterConflict(RosterRefused, Conflict):
    """Already done: the player is already the captain."""


@dataclass
class RosterState:
    entries: list[RosterEntry]
    current: list[RosterEntry]
    additions_used: int
    played: set[str]

    @property
    def names(self) -> list[str]:
        return [e.player.nick for e in self.current]

    @property
    def additions_left(self) -> int:
        return max(0, chgk_season.MAX_ADDITIONS - self.additions_used)


def roster_state(team: Team) -> RosterState:
    """The roster with the season's additions and who has played, in three queries."""
    entries = list(team.roster.select_related("player").order_by("order", "pk"))
    left_moments = {e.left_at for e in entries if e.left_at is not None}
    additions = sum(1 for e in entries if e.joined_at is not None and e.joined_at not in left_moments)
    stored = list(LineUp.objects.filter(team=team).values_list("tour_id", "players"))
    line_up_tours = {tour_id for tour_id, _player in stored}
    in_line_ups = {player_id for _tour, player_id in stored if player_id is not None}
    zone = zoneinfo.ZoneInfo(team.tournament.timezone)
    tour_days = sorted({day for tour_id, day in Mask.objects.filter(
        team=team, tour__played_on__isnull=False).values_list("tour_id", "tour__played_on")
        if tour_id not in line_up_tours})
    played = set()
    for entry in entries:
        joined = entry.joined_at.astimezone(zone).date() if entry.joined_at else dt.date.min
        left = entry.left_at.astimezone(zone).date() if entry.left_at else dt.date.max
        if entry.player_id in in_line_ups or any(joined <= day <= left for day in tour_days):
            played.add(entry.player.nick)
    current = [e for e in entries if e.left_at is None]
    return RosterState(entries=entries, current=current, additions_used=additions, played=played)


def _check_allowed(user, team: Team, *, roster_change: bool) -> None:
    if not can_manage_team(user, team):
        raise RosterNotAllowed([_("Only the captain of %(team)s manages it (CHGK-4).") % {"team": team.name}])
    if roster_change and team.tournament.ruleset != CHGK:
        raise RosterRefused([_("Roster changes on this page follow the ChGK season rules (CHGK-2, CHGK-3); for "
                               "this tournament the organizer changes rosters.")])


def _lock(team: Team) -> Team:
    return Team.objects.select_for_update().select_related("tournament").get(pk=team.pk)


def _names(raw: list[str]) -> list[str]:
    return [name.strip() for name in raw if name.strip()]


def _open_entry(team: Team, name: str, moment: dt.datetime, order: int) -> RosterEntry:
    player = find_player(name) or Player.objects.create(nick=name)
    if RosterEntry.objects.filter(team=team, player=player).exists():
        raise RosterRefused([_("%(name)s was on this roster before; ask the organizer to bring them back.")
                             % {"name": player.nick}])
    other = roster_conflict(team, player.pk)
    if other is not None:
        raise RosterRefused([roster_conflict_message(player.nick, other)])
    juror = juror_conflict(team.tournament, player)
    if juror is not None:
        raise RosterRefused([juror])
    entry = RosterEntry.objects.create(team=team, player=player, order=order, joined_at=moment)
    if not Participant.objects.filter(tournament=team.tournament, player=player).exists():
        last = Participant.objects.filter(tournament=team.tournament).aggregate(m=Max("order"))["m"]
        Participant.objects.create(tournament=team.tournament, player=player, order=(last or 0) + 1)
    return entry


def _next_order(team: Team) -> int:
    return (team.roster.aggregate(m=Max("order"))["m"] or 0) + 1


@transaction.atomic
def add_players(user, team: Team, names: list[str], *, now: dt.datetime | None = None) -> list[RosterEntry]:
    """Add players during the season: at most 6 additions, at most 10 on the roster (CHGK-2)."""
    team = _lock(team)
    _check_allowed(user, team, roster_change=True)
    names = _names(names)
    if not names:
        raise RosterRefused([_("Name at least one player to add.")])
    state = roster_state(team)
    problems = chgk_season.check_roster_change(state.names, added=names, additions_used=state.additions_used,
                                               played=state.played)
    if problems:
        raise RosterRefused([p.message for p in problems])
    moment = now or timezone.now()
    order = _next_order(team)
    return [_open_entry(team, name, moment, order + i) for i, name in enumerate(names)]


@transaction.atomic
def replace_player(user, team: Team, old_entry_id: int, new_name: str, *,
                   now: dt.datetime | None = None) -> RosterEntry:
    """Replace a player who has not played any tour; not an addition (CHGK-3)."""
    team = _lock(team)
    _check_allowed(user, team, roster_change=True)
    state = roster_state(team)
    old = next((e for e in state.current if e.pk == old_entry_id), None)
    new_name = new_name.strip()
    if old is None or not new_name:
        raise RosterRefused([_("Choose a player of the roster and name the replacement.")])
    if old.player_id == team.captain_id:
        raise RosterRefused([_("%(name)s is the captain: hand the captaincy over first (CHGK-4).")
                             % {"name": old.player.nick}])
    problems = chgk_season.check_roster_change(state.names, replaced={old.player.nick: new_name},
                                               additions_used=state.additions_used, played=state.played)
    if problems:
        raise RosterRefused([p.message for p in problems])
    moment = now or timezone.now()
    old.left_at = moment
    old.save()
    return _open_entry(team, new_name, moment, old.order)


@transaction.atomic
def hand_over_captaincy(user, team: Team, player_id: int) -> Team:
    """The captain names another player of the current roster captain (CHGK-4: a team may change captain)."""
    team = _lock(team)
    _check_allowed(user, team, roster_change=False)
    entry = team.roster.select_related("player").filter(player_id=player_id, left_at__isnull=True).first()
    if entry is None:
        raise RosterRefused([_("The new captain must be a player of the team's roster (CHGK-1).")])
    if team.captain_id == entry.player_id:
        raise RosterConflict([_("%(name)s is already the captain.") % {"name": entry.player.nick}])
    team.captain = entry.player
    team.save()
    return team


def parse_line_up(text: str) -> list[list[str]]:
    """One player per line; an empty line is a host's break where substitutions happen (CHGK-4)."""
    segments: list[list[str]] = [[]]
    for line in text.splitlines():
        if line.strip():
            segments[-1].append(line.strip())
        elif segments[-1]:
            segments.append([])
    return [s for s in segments if s]


def check_line_up(team: Team, text: str) -> list[str]:
    """CHGK-4: at most 6 at the table at once, everyone on the roster (the pure check, nothing stored)."""
    segments = parse_line_up(text)
    if not segments:
        return [_("Name the players at the table, one per line.")]
    state = roster_state(team)
    return [p.message for p in chgk_season.check_line_up(state.names, segments)]


def _without_results():
    return ~Exists(Mask.objects.filter(tour=OuterRef("pk")))


def next_tour(team: Team) -> Tour | None:
    """The team's next tour: the first of the season without results that the team does not host (CHGK-7)."""
    return (Tour.objects.filter(stage__tournament_id=team.tournament_id).filter(_without_results())
            .exclude(host=team).select_related("stage").order_by("stage__order", "number", "pk").first())


def stored_line_ups(team: Team) -> list[LineUp]:
    """The team's stored line-ups, tour by tour (one query)."""
    return list(LineUp.objects.filter(team=team).select_related("tour", "tour__stage").order_by(
        "tour__stage__order", "tour__number"))


@transaction.atomic
def store_line_up(user, team: Team, text: str, *, now: dt.datetime | None = None) -> LineUp:
    """Check the line-up of the team's next tour (CHGK-4) and store it, replacing the stored one.

    Refused when it breaks CHGK-4 (the pure check's problems), when the team
    has no tour to come, or once the tour has results.
    """
    team = _lock(team)
    _check_allowed(user, team, roster_change=False)
    if team.tournament.ruleset != CHGK:
        raise RosterRefused([_("Line-ups are stored for ChGK seasons only (CHGK-4).")])
    tour = next_tour(team)
    if tour is None:
        raise RosterRefused([_("The team has no tour to come: there is no line-up to store (CHGK-4).")])
    tour = Tour.objects.select_for_update().get(pk=tour.pk)
    if Mask.objects.filter(tour=tour).exists():
        raise RosterRefused([_("Tour %(number)s has results: its line-up can no longer be changed (CHGK-4).")
                             % {"number": tour.number}])
    segments = parse_line_up(text)
    if not segments:
        raise RosterRefused([_("Name the players at the table, one per line.")])
    state = roster_state(team)
    problems = chgk_season.check_line_up(state.names, segments)
    if problems:
        raise RosterRefused([p.message for p in problems])
    names = chgk_season.line_up_players(segments)
    line_up, _created = LineUp.objects.update_or_create(
        tour=tour, team=team,
        defaults={"segments": segments, "submitted_at": now or timezone.now(),
                  "submitted_by": user if getattr(user, "is_authenticated", False) else None})
    line_up.players.set([e.player for e in state.current if e.player.nick in names])
    return line_up


def delegate_filing(user, team: Team, player_id: int, starts_at: dt.datetime, ends_at: dt.datetime, *,
                    now: dt.datetime | None = None) -> FilingDelegation:
    """CHGK-20: the captain (or the organizer) lets a player of the team file its appeals for a stated period."""
    if not can_manage_team(user, team):
        raise RosterNotAllowed([_("Only the captain of %(team)s or the organizer delegates the filing of appeals "
                               "(CHGK-20).") % {"team": team.name}])
    if ends_at <= starts_at:
        raise RosterRefused([_("The delegation must end after it starts (CHGK-20).")])
    entry = team.roster.select_related("player").filter(player_id=player_id, left_at__isnull=True).first()
    if entry is None:
        raise RosterRefused([_("Only a player of the team's current roster can be delegated (CHGK-20).")])
    if entry.player_id == team.captain_id:
        raise RosterRefused([_("The captain files the team's appeals anyway (CHGK-20).")])
    return FilingDelegation.objects.create(team=team, player=entry.player, starts_at=starts_at, ends_at=ends_at,
                                           granted_by=user, granted_at=now or timezone.now())


def delegations_of(team: Team) -> list[FilingDelegation]:
    """The team's filing delegations, latest first, with who gave them (CHGK-20)."""
    return list(team.delegations.select_related("player", "granted_by").order_by("-starts_at", "-pk"))
