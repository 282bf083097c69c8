"""Claims: a user says "I am this player"; an organizer or the family head confirms or refuses.

State lives on ``Player``: ``user`` set and ``claim_confirmed`` false is a
pending claim; confirmed sets ``claim_confirmed``; refused clears ``user``
(the nick is free again, and a player row the claim itself created, with no
facts behind it, is deleted). One user, one player. Every change is a save of
``Player``, which the audit trail records with the acting user.
"""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from accounts.models import Player
from accounts.permissions import can_decide_claim
from rulesets.errors import Conflict, Invalid, NotAllowed


class ClaimRefused(Invalid):
    """The claim or the decision on it was refused; the message says why."""


class ClaimNotAllowed(ClaimRefused, NotAllowed):
    """The acting user may not decide or change this claim."""


class ClaimConflict(ClaimRefused, Conflict):
    """The nick or the account is already claimed."""


def find_player(nick: str) -> Player | None:
    """The player with this nick, letter case aside (nicks come from outside the portal)."""
    nick = nick.strip()
    return Player.objects.filter(nick=nick).first() or Player.objects.filter(nick__iexact=nick).first()


@transaction.atomic
def claim(user, nick: str, full_name: str = "") -> Player:
    """Link ``user`` to the player ``nick`` (created if unknown), pending confirmation."""
    nick = nick.strip()
    current = Player.objects.select_for_update().filter(user=user).first()
    existing = find_player(nick)
    if current is not None and (existing is None or existing.pk != current.pk):
        raise ClaimConflict(_("Your account already claims %(nick)s: one user, one player.") % {"nick": current.nick})
    if existing is None:
        try:
            with transaction.atomic():
                return Player.objects.create(nick=nick, full_name=full_name.strip(), user=user)
        except IntegrityError as exc:
            raise ClaimConflict(_("The player %(nick)s is already claimed by another account.")
                                % {"nick": nick}) from exc
    player = Player.objects.select_for_update().get(pk=existing.pk)
    if player.user_id not in (None, user.pk):
        raise ClaimConflict(_("The player %(nick)s is already claimed by another account.") % {"nick": player.nick})
    if player.user_id == user.pk and player.claim_confirmed:
        if full_name.strip() and full_name.strip() != player.full_name:
            raise ClaimNotAllowed(_("Your claim is confirmed; ask an organizer to change the full name."))
        return player
    player.user = user
    player.claim_confirmed = False
    if full_name.strip():
        player.full_name = full_name.strip()
    player.save()
    return player


@transaction.atomic
def withdraw(user) -> None:
    """The user gives up a pending claim (a confirmed one is released by an organizer)."""
    player = Player.objects.select_for_update().filter(user=user).first()
    if player is None:
        return
    if player.claim_confirmed:
        raise ClaimNotAllowed(_("Your claim is confirmed; ask an organizer to release it."))
    _release(player)


@transaction.atomic
def confirm(actor, player: Player) -> Player:
    player = Player.objects.select_for_update().get(pk=player.pk)
    if not can_decide_claim(actor, player):
        raise ClaimNotAllowed(_("Only an organizer of a tournament %(nick)s played in, or the head of their family, "
                             "decides this claim.") % {"nick": player.nick})
    player.claim_confirmed = True
    player.save()
    return player


@transaction.atomic
def refuse(actor, player: Player) -> None:
    """Refuse the claim: the account lets go of the nick, which is free to claim again."""
    player = Player.objects.select_for_update().get(pk=player.pk)
    if not can_decide_claim(actor, player):
        raise ClaimNotAllowed(_("Only an organizer of a tournament %(nick)s played in, or the head of their family, "
                             "decides this claim.") % {"nick": player.nick})
    _release(player)


def _release(player: Player) -> None:
    player.user = None
    player.claim_confirmed = False
    player.save()
    if not has_facts(player):
        player.delete()


def has_facts(player: Player) -> bool:
    """Whether any row refers to the player (seats, rosters, memberships, ...): then the row stays."""
    for relation in Player._meta.related_objects:
        if relation.one_to_many or relation.one_to_one:
            if relation.related_model._default_manager.filter(**{relation.field.name: player}).exists():
                return True
        elif relation.many_to_many and getattr(player, relation.get_accessor_name()).exists():
            return True
    return False
