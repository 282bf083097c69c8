"""Registration for an elimination Grand Prix stage (GP-3..GP-6): pure functions."""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from rulesets.facts import Player
from rulesets.messages import Text
from rulesets.messages import text as _

MAX_INVITATIONS = 10
PLAYERS_PER_STAGE = 54

# How a withdrawal changed the roster (GP-6), one message each, made once.
LEFT_WAITING_LIST = _("left the waiting list")
NOT_REPLACED_AFTER_DRAW = _("withdrew after the draw: not replaced (GP-6)")
NEW_INVITATION = _("new invitation (GP-6)")
FIRST_OF_WAITING_LIST = _("first of the waiting list (GP-6)")
WAITING_LIST_EMPTY = _("waiting list empty: not replaced (GP-6)")


def eligibility_problems(player: Player, *, disqualified: bool = False,
                         qualified_for_final: bool = False) -> list[Text]:
    """GP-3: why ``player`` may not register for a stage (empty when they may)."""
    problems: list[Text] = []
    if player.level == 0:
        problems.append(_("%(player)s is a level 0 player (GP-3)", player=player.nick))
    if disqualified or player.disqualified:
        problems.append(_("%(player)s is disqualified (GP-3)", player=player.nick))
    if qualified_for_final:
        problems.append(_("%(player)s has already qualified for this series' final (GP-3)", player=player.nick))
    return problems


def eligible(player: Player, *, disqualified: bool = False, qualified_for_final: bool = False) -> bool:
    """GP-3: whether ``player`` may register for a stage."""
    return not eligibility_problems(player, disqualified=disqualified, qualified_for_final=qualified_for_final)


@dataclass(frozen=True)
class Registration:
    nick: str
    registered_at: dt.datetime


@dataclass(frozen=True)
class Replacement:
    """One line of the roster's replacement history (GP-6)."""

    withdrawn: str
    replacement: str | None
    how: str


@dataclass(frozen=True)
class Roster:
    """GP-5: who plays the stage and who waits, each list in its order."""

    invited: tuple[str, ...]
    by_queue: tuple[str, ...]
    waiting: tuple[str, ...]
    invitations_used: int
    history: tuple[Replacement, ...] = ()

    @property
    def players(self) -> tuple[str, ...]:
        return self.invited + self.by_queue


def stage_roster(
    registrations: Sequence[Registration],
    invitations: Sequence[str],
    size: int = PLAYERS_PER_STAGE,
) -> Roster:
    """GP-4, GP-5: the invited players plus the first (size - invited) of the queue.

    The queue is the registrations in order of registration time (equal times
    keep the given order), without the invited players; everyone after the
    roster is the waiting list, in the same order.
    """
    if len(invitations) > MAX_INVITATIONS:
        raise ValueError(_("GP-4: %(count)s invitations, at most %(limit)s", count=len(invitations),
                            limit=MAX_INVITATIONS))
    if len(set(invitations)) != len(invitations):
        raise ValueError(_("GP-4: a player is invited twice"))
    invited = tuple(invitations)
    queue: list[str] = []
    for registration in sorted(registrations, key=lambda r: r.registered_at):
        if registration.nick not in invited and registration.nick not in queue:
            queue.append(registration.nick)
    free = max(0, size - len(invited))
    return Roster(invited=invited, by_queue=tuple(queue[:free]), waiting=tuple(queue[free:]),
                  invitations_used=len(invited))


def replace_withdrawal(roster: Roster, player: str, *, drawn: bool, new_invitation: str | None = None) -> Roster:
    """GP-6: the roster after ``player`` withdraws.

    Before the draw (``drawn`` false) an invited player is replaced by
    ``new_invitation`` while the family has used fewer than 10 invitations,
    otherwise (and for anyone else) by the first player of the waiting list.
    After the draw nobody is replaced. A player on the waiting list simply
    leaves it. The history records every change.
    """
    waiting = list(roster.waiting)
    if player in waiting:
        waiting.remove(player)
        entry = Replacement(player, None, LEFT_WAITING_LIST)
        return dataclasses.replace(roster, waiting=tuple(waiting), history=roster.history + (entry,))
    if player not in roster.players:
        raise ValueError(_("GP-6: %(player)s is not on the stage's roster", player=player))
    invited = [p for p in roster.invited if p != player]
    by_queue = [p for p in roster.by_queue if p != player]
    used = roster.invitations_used
    if drawn:
        entry = Replacement(player, None, NOT_REPLACED_AFTER_DRAW)
    elif player in roster.invited and new_invitation is not None and used < MAX_INVITATIONS:
        if new_invitation in invited or new_invitation in by_queue:
            raise ValueError(_("GP-6: %(player)s is already on the roster", player=new_invitation))
        if new_invitation in waiting:
            waiting.remove(new_invitation)
        invited.append(new_invitation)
        used += 1
        entry = Replacement(player, new_invitation, NEW_INVITATION)
    elif waiting:
        replacement = waiting.pop(0)
        by_queue.append(replacement)
        entry = Replacement(player, replacement, FIRST_OF_WAITING_LIST)
    else:
        entry = Replacement(player, None, WAITING_LIST_EMPTY)
    return Roster(invited=tuple(invited), by_queue=tuple(by_queue), waiting=tuple(waiting),
                  invitations_used=used, history=roster.history + (entry,))
