"""Family membership by self-service: join requests the head decides, leaving a family (FL-1, FL-3, FL-4).

Convention for ``FamilyMembership`` rows (no extra model is needed):

- ``joined_on`` set, ``left_on`` empty: a current member;
- ``joined_on`` set, ``left_on`` set: a former member (left on that day);
- ``joined_on`` empty, ``left_on`` empty: a *pending join request*;
- ``joined_on`` empty, ``left_on`` set: a *refused* request (refused on that day), kept for the record.

Code that reads memberships as facts should therefore count only rows with
``joined_on`` set. Dates are the acting user's local day (``User.timezone``).
Leaving applies FL-4 at once: the player leaves the family's teams in running
tournaments (``RosterEntry.left_at``), keeping any prize already earned.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Family, FamilyMembership, Player
from accounts.permissions import confirmed_player_of, is_head_of
from rulesets.errors import Conflict, Invalid, NotAllowed
from tournaments.models import RosterEntry, TournamentStatus


class FamilyRefused(Invalid):
    """The request or decision was refused; the message says why."""


class FamilyNotAllowed(FamilyRefused, NotAllowed):
    """The acting user may not do this (FL-1: only the head decides join requests)."""


class FamilyConflict(FamilyRefused, Conflict):
    """Already done: already a member, already requested, no longer pending."""


def local_today(user) -> dt.date:
    try:
        zone = zoneinfo.ZoneInfo(getattr(user, "timezone", "") or "Europe/Moscow")
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        zone = zoneinfo.ZoneInfo("Europe/Moscow")
    return timezone.now().astimezone(zone).date()


def current_membership(player: Player) -> FamilyMembership | None:
    return (FamilyMembership.objects.filter(player=player, joined_on__isnull=False, left_on__isnull=True)
            .select_related("family").first())


def pending_request(player: Player, family: Family) -> FamilyMembership | None:
    return FamilyMembership.objects.filter(player=player, family=family, joined_on__isnull=True,
                                           left_on__isnull=True).first()


def _acting_player(user) -> Player:
    player = confirmed_player_of(user)
    if player is None:
        raise FamilyNotAllowed(_("Only a player whose claim is confirmed may do this."))
    return player


@transaction.atomic
def request_to_join(user, family: Family) -> FamilyMembership:
    player = _acting_player(user)
    Player.objects.select_for_update().filter(pk=player.pk).first()
    membership = current_membership(player)
    if membership is not None:
        if membership.family_id == family.pk:
            raise FamilyConflict(_("You are already a member of %(family)s.") % {"family": family.name})
        raise FamilyRefused(_("You are a member of %(family)s: leave it before joining another family.")
                            % {"family": membership.family.name})
    if pending_request(player, family) is not None:
        raise FamilyConflict(_("Your request to join %(family)s is already waiting for the head.")
                             % {"family": family.name})
    return FamilyMembership.objects.create(family=family, player=player)


@transaction.atomic
def withdraw_request(user, family: Family) -> None:
    player = _acting_player(user)
    request = pending_request(player, family)
    if request is not None:
        request.delete()


def _locked_request(family: Family, membership_id: int) -> FamilyMembership:
    request = (FamilyMembership.objects.select_for_update().select_related("player")
               .filter(pk=membership_id, family=family).first())
    if request is None or request.joined_on is not None or request.left_on is not None:
        raise FamilyConflict(_("This join request is no longer pending."))
    return request


@transaction.atomic
def accept_request(user, family: Family, membership_id: int) -> FamilyMembership:
    """Only the head accepts (FL-1); the player becomes a member from today."""
    if not is_head_of(user, family):
        raise FamilyNotAllowed(_("Only the head of %(family)s decides its join requests (FL-1).")
                               % {"family": family.name})
    request = _locked_request(family, membership_id)
    elsewhere = current_membership(request.player)
    if elsewhere is not None:
        raise FamilyRefused(_("%(nick)s is still a member of %(family)s.")
                            % {"nick": request.player.nick, "family": elsewhere.family.name})
    request.joined_on = local_today(user)
    request.save()
    return request


@transaction.atomic
def refuse_request(user, family: Family, membership_id: int) -> FamilyMembership:
    if not is_head_of(user, family):
        raise FamilyNotAllowed(_("Only the head of %(family)s decides its join requests (FL-1).")
                               % {"family": family.name})
    request = _locked_request(family, membership_id)
    request.left_on = local_today(user)
    request.save()
    return request


@transaction.atomic
def leave(user, family: Family) -> list[RosterEntry]:
    """The player leaves the family today; FL-4: off the family's teams in running tournaments at once."""
    player = _acting_player(user)
    if family.head_id == player.pk:
        raise FamilyRefused(_("The head cannot leave %(family)s; an organizer first names a new head.")
                            % {"family": family.name})
    membership = (FamilyMembership.objects.select_for_update()
                  .filter(player=player, family=family, joined_on__isnull=False, left_on__isnull=True).first())
    if membership is None:
        raise FamilyRefused(_("You are not a member of %(family)s.") % {"family": family.name})
    membership.left_on = max(local_today(user), membership.joined_on)
    membership.save()
    now = timezone.now()
    removed = list(RosterEntry.objects.select_related("team__tournament").filter(
        player=player, left_at__isnull=True, team__family=family, team__tournament__ruleset="family_league",
        team__tournament__status__in=[TournamentStatus.REGISTRATION, TournamentStatus.RUNNING]))
    for entry in removed:
        entry.left_at = now
        entry.save()
    return removed
