"""Merge a duplicate player into another: every fact moves, nothing is lost.

Nicks come from outside the portal, so one person can end up as two players
("Vasya" in one import, "vasya_" in another). An organizer (staff) merges the
duplicate into the player that stays: seats, roster entries, tournament
participations, no-show eliminations, penalties, decisions (and the nicks in
a decision's tie order), family memberships, blacklist entries, captaincies,
headships and the account claim move; the duplicate is then deleted. Awards
are not stored: they are recomputed from the moved facts, so the standings of
every tournament concerned are recomputed after the merge.

Conflicts: both players on the same roster or in the same tournament keep
one row (dates and flags combined); two seats in the same game mean two
different people, and the merge is refused. All in one transaction, recorded
in the audit trail as one ``merge`` entry.
"""

from __future__ import annotations

from collections import Counter

from django.db import IntegrityError, transaction
from django.utils.translation import gettext as _

from accounts.claims import has_facts
from accounts.models import Blacklist, Family, FamilyMembership, Player
from rulesets.errors import Invalid
from tournaments.audit import record, snapshot
from tournaments.changes import bulk_change, mark_changed
from tournaments.models import Decision, NoShowElimination, Participant, Penalty, RosterEntry, Seat, Team, Tournament


class MergeRefused(Invalid):
    """The merge was refused; the message names the conflict."""


HANDLED = {
    (Seat, "player"), (RosterEntry, "player"), (Participant, "player"), (NoShowElimination, "player"),
    (Penalty, "player"), (Decision, "player"), (FamilyMembership, "player"), (Blacklist, "owner"),
    (Blacklist, "blocked"), (Team, "captain"), (Family, "head"),
}


def merge_players(duplicate: Player, target: Player, *, user=None) -> dict:
    """Move everything of ``duplicate`` to ``target`` and delete ``duplicate``; returns what moved."""
    if duplicate.pk == target.pk:
        raise MergeRefused(_("A player cannot be merged into themselves."))
    try:
        with transaction.atomic():
            return _merge(duplicate, target, user)
    except IntegrityError as exc:
        raise MergeRefused(_("The merge would break a rule of the database (%(error)s); nothing was changed.")
                           % {"error": exc}) from exc


def _merge(duplicate: Player, target: Player, user) -> dict:
    locked = {p.pk: p for p in Player.objects.select_for_update().filter(pk__in=[duplicate.pk, target.pk])
              .order_by("pk")}
    duplicate, target = locked[duplicate.pk], locked[target.pk]
    clash = (Seat.objects.filter(player=duplicate, game__seats__player=target)
             .select_related("game__stage__tournament").first())
    if clash is not None:
        game = clash.game
        raise MergeRefused(_("%(a)s and %(b)s both sat in game %(game)s of %(tournament)s: they are two people.")
                           % {"a": duplicate.nick, "b": target.nick, "game": game.number,
                              "tournament": game.stage.tournament.name})
    before = {"duplicate": snapshot(duplicate), "target": snapshot(target)}
    tournaments = _tournaments_of(duplicate)
    moved: Counter[str] = Counter()
    with bulk_change():
        moved["seats"] = Seat.objects.filter(player=duplicate).update(player=target)
        moved["roster_entries"] = _merge_roster(duplicate, target)
        moved["participations"] = _merge_participations(duplicate, target)
        moved["no_show_eliminations"] = NoShowElimination.objects.filter(player=duplicate).update(player=target)
        moved["penalties"] = Penalty.objects.filter(player=duplicate).update(player=target)
        moved["decisions"] = Decision.objects.filter(player=duplicate).update(player=target)
        moved["decision_orders"] = _rename_in_orders(duplicate.nick, target.nick, [pk for pk, _s in tournaments])
        moved["family_memberships"] = _merge_memberships(duplicate, target)
        moved["blacklist_entries"] = _merge_blacklist(duplicate, target)
        moved["captaincies"] = Team.objects.filter(captain=duplicate).update(captain=target)
        moved["headships"] = Family.objects.filter(head=duplicate).update(head=target)
        moved.update(_move_other_relations(duplicate, target))
        account = _merge_player_fields(duplicate, target)
        duplicate_nick = duplicate.nick
        if has_facts(duplicate):
            raise MergeRefused(_("The merge would break a rule of the database (%(error)s); nothing was changed.")
                               % {"error": f"{duplicate_nick}: rows left behind"})
        duplicate.delete()
        target.save()
    after = {"merged": duplicate_nick, "moved": {k: v for k, v in moved.items() if v},
             "account": account, "tournaments": sorted(slug for _pk, slug in tournaments)}
    record("merge", target, before, after, user=user)
    for pk, _slug in tournaments:
        mark_changed(pk)
    return after


def _tournaments_of(player: Player) -> list[tuple[int, str]]:
    """Every tournament whose facts name the player (one query per kind of fact, none per row)."""
    ids = set(Participant.objects.filter(player=player).values_list("tournament_id", flat=True))
    ids |= set(RosterEntry.objects.filter(player=player).values_list("team__tournament_id", flat=True))
    ids |= set(Seat.objects.filter(player=player).values_list("game__stage__tournament_id", flat=True).distinct())
    ids |= set(NoShowElimination.objects.filter(player=player).values_list("game__stage__tournament_id", flat=True))
    ids |= set(Penalty.objects.filter(player=player).values_list("tournament_id", flat=True))
    ids |= set(Decision.objects.filter(player=player).values_list("tournament_id", flat=True))
    ids |= set(Team.objects.filter(captain=player).values_list("tournament_id", flat=True))
    return list(Tournament.objects.filter(pk__in=ids).values_list("pk", "slug"))


def _merge_roster(duplicate: Player, target: Player) -> int:
    """Both on one roster: keep the remaining player's entry, joined at the earlier, left at the later date."""
    kept = {e.team_id: e for e in RosterEntry.objects.filter(player=target)}
    count = 0
    for entry in RosterEntry.objects.filter(player=duplicate):
        other = kept.get(entry.team_id)
        if other is None:
            continue
        joined, left = (other.joined_at, entry.joined_at), (other.left_at, entry.left_at)
        other.joined_at = None if None in joined else min(joined)
        other.left_at = None if None in left else max(left)
        other.order = min(other.order, entry.order)
        other.save(update_fields=["joined_at", "left_at", "order"])
        entry.delete()
        count += 1
    return count + RosterEntry.objects.filter(player=duplicate).update(player=target)


def _merge_participations(duplicate: Player, target: Player) -> int:
    kept = {p.tournament_id: p for p in Participant.objects.filter(player=target)}
    count = 0
    for row in Participant.objects.filter(player=duplicate):
        other = kept.get(row.tournament_id)
        if other is None:
            continue
        other.level = other.level if other.level is not None else row.level
        other.disqualified = other.disqualified or row.disqualified
        other.banned = other.banned or row.banned
        other.family_id = other.family_id or row.family_id
        other.order = min(other.order, row.order)
        other.save()
        row.delete()
        count += 1
    return count + Participant.objects.filter(player=duplicate).update(player=target)


def _rename_in_orders(old: str, new: str, tournaments: list[int]) -> int:
    """A committee's tie order names players by nick: the duplicate's nick becomes the remaining one."""
    count = 0
    for decision in Decision.objects.filter(tournament_id__in=tournaments).exclude(order=[]):
        if old not in decision.order:
            continue
        order = []
        for name in decision.order:
            name = new if name == old else name
            if name not in order:
                order.append(name)
        decision.order = order
        decision.save(update_fields=["order"])
        count += 1
    return count


def _merge_memberships(duplicate: Player, target: Player) -> int:
    kept = {(m.family_id, m.joined_on, m.left_on) for m in FamilyMembership.objects.filter(player=target)}
    same = [m.pk for m in FamilyMembership.objects.filter(player=duplicate)
            if (m.family_id, m.joined_on, m.left_on) in kept]
    FamilyMembership.objects.filter(pk__in=same).delete()
    return len(same) + FamilyMembership.objects.filter(player=duplicate).update(player=target)


def _merge_blacklist(duplicate: Player, target: Player) -> int:
    """Entries between the two vanish (nobody blacklists themselves); an entry both had is kept once."""
    Blacklist.objects.filter(owner=duplicate, blocked=target).delete()
    Blacklist.objects.filter(owner=target, blocked=duplicate).delete()
    blocked = set(Blacklist.objects.filter(owner=target).values_list("blocked_id", flat=True))
    owners = set(Blacklist.objects.filter(blocked=target).values_list("owner_id", flat=True))
    dropped = Blacklist.objects.filter(owner=duplicate, blocked_id__in=blocked).delete()[0]
    dropped += Blacklist.objects.filter(blocked=duplicate, owner_id__in=owners).delete()[0]
    return (dropped + Blacklist.objects.filter(owner=duplicate).update(owner=target)
            + Blacklist.objects.filter(blocked=duplicate).update(blocked=target))


def _move_other_relations(duplicate: Player, target: Player) -> dict[str, int]:
    """Rows of models this module does not know yet (added later) move too, so nothing is lost."""
    moved = {}
    for relation in Player._meta.related_objects:
        if relation.many_to_many or relation.one_to_one:
            continue
        key = (relation.related_model, relation.field.name)
        if key in HANDLED:
            continue
        count = relation.related_model._default_manager.filter(**{relation.field.name: duplicate}).update(
            **{relation.field.name: target})
        moved[f"{relation.related_model._meta.label}.{relation.field.name}"] = count
    return moved


def _merge_player_fields(duplicate: Player, target: Player) -> str:
    """Fill what the remaining player lacks; the account claim moves unless the remaining player has one."""
    target.full_name = target.full_name or duplicate.full_name
    target.level = target.level if target.level is not None else duplicate.level
    target.disqualified = target.disqualified or duplicate.disqualified
    target.banned = target.banned or duplicate.banned
    if duplicate.user_id is None:
        return "kept"
    if target.user_id is None:
        target.user_id, target.claim_confirmed = duplicate.user_id, duplicate.claim_confirmed
        duplicate.user = None
        duplicate.save(update_fields=["user"])
        return "moved"
    return "released"
