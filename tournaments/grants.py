"""Who holds which role of a tournament: its organizers grant and revoke them (``spec/roles.md``).

The roles of ``spec/roles.md`` are kept in three places:

- the tournament's own roles, ``accounts.TournamentRole`` rows (``TOURNAMENT_ROLES``: organizer, judge, curator,
  jury, and any other ``Role`` that is not kept elsewhere); a judge's row names the keys of the stages it judges,
  none meaning every stage (FL-0, ``accounts.permissions.can_record_decisions``);
- a team's captain, ``Team.captain``: a player of the team's current roster (CHGK-1);
- a family's head, ``Family.head`` (FL-1, GP-4). A family is the site's, not one tournament's: its head is named
  by someone who organizes every tournament the family takes part in.

``grant_role``, ``revoke_role``, ``set_captain`` and ``set_family_head`` are the organizers' (and staff's) acts:
anyone else is refused with ``NotAllowed`` naming the rule, and nothing changes. Each is one transaction on the
locked tournament, recorded in its history as one entry (``grant_role``, ``revoke_role``, ``set_captain``,
``set_head``; the rows' own signals are muted), and answers whether anything changed. Nobody gives up the
tournament's last organizer role when it is their own.

CHGK-11: nobody who plays for a team of the tournament sits on its appeal jury. ``juror_conflict`` is the one
check of both sides: granting the jury role to a user whose player is on a current roster of the tournament, and
adding a juror's player to one of its rosters (``tournaments.commands.add_to_roster``, the ChGK captains' additions
in ``formats.chgk_tour_points.captains``).
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from accounts.claims import find_player
from accounts.models import Family, Player, Role, TournamentRole, User
from accounts.permissions import has_role
from rulesets.errors import Invalid, NotAllowed, NotFound, Problem
from rulesets.messages import Text
from tournaments import audit
from tournaments.models import RosterEntry, Stage, Team, Tournament, TournamentFamily

KEPT_ELSEWHERE = (Role.CAPTAIN, Role.FAMILY_HEAD, Role.PLAYER)  # Team.captain, Family.head, Player.user
TOURNAMENT_ROLES = tuple(role for role in Role if role not in KEPT_ELSEWHERE)
EVERY_STAGE = gettext_noop("every stage")  # a judge's role that names no stage, as the history words it


def rule_text(tournament: Tournament) -> str:
    return _("Only the organizers of %(tournament)s grant and revoke its roles, name the captains of its teams and "
             "the heads of its families (spec/roles.md).") % {"tournament": tournament.name}


def require_organizer(user, tournament: Tournament) -> None:
    """The tournament's organizers and staff grant roles; anyone else is refused with the rule."""
    if not has_role(user, tournament, Role.ORGANIZER):
        raise NotAllowed(rule_text(tournament))


def juror_conflict(tournament: Tournament, player: Player | None, *, joining_jury: bool = False) -> str | None:
    """Why CHGK-11 refuses the act (None: it does not). ``joining_jury``: the account of ``player`` is to get the
    tournament's jury role, refused while the player is on a current roster of one of its teams; otherwise
    ``player`` is to join a roster of the tournament, refused while their account holds its jury role."""
    if player is None:
        return None
    if joining_jury:
        team = Team.objects.filter(tournament_id=tournament.pk, roster__player=player,
                                   roster__left_at__isnull=True).order_by("order", "pk").first()
        if team is None:
            return None
        return _("%(nick)s plays for %(team)s in this tournament and cannot sit on its appeal jury (CHGK-11)") % {
            "nick": player.nick, "team": team.name}
    if player.user_id is None or not TournamentRole.objects.filter(
            user_id=player.user_id, tournament_id=tournament.pk, role=Role.JURY).exists():
        return None
    return _("%(nick)s sits on the appeal jury of this tournament and cannot play in it (CHGK-11)") % {
        "nick": player.nick}


# --- reading who holds what ---


@dataclass
class Holders:
    """Every role of the tournament and who holds it, read in a fixed number of queries."""

    roles: list[TournamentRole]
    stages: list[Stage]
    teams: list[Team]
    rosters: dict[int, list[Player]] = field(default_factory=dict)  # team id -> its current roster
    families: list[Family] = field(default_factory=list)


def _families(tournament: Tournament):
    """The families taking part: listed by the tournament, or a team's."""
    return Family.objects.filter(Q(tournamentfamily__tournament=tournament) | Q(teams__tournament=tournament))


def holders(tournament: Tournament) -> Holders:
    roles = list(TournamentRole.objects.filter(tournament=tournament, role__in=TOURNAMENT_ROLES).select_related(
        "user__player").order_by("role", "user__username"))
    order = {role: i for i, role in enumerate(TOURNAMENT_ROLES)}
    roles.sort(key=lambda row: order[row.role])
    teams = list(Team.objects.filter(tournament=tournament).select_related("captain", "stage").order_by(
        "stage__order", "order", "name"))
    rosters: dict[int, list[Player]] = defaultdict(list)
    for entry in RosterEntry.objects.filter(team__tournament=tournament, left_at__isnull=True).select_related(
            "player").order_by("order", "pk"):
        rosters[entry.team_id].append(entry.player)
    families = list(Family.objects.filter(pk__in=_families(tournament).values("pk")).select_related("head"))
    return Holders(roles=roles, stages=list(Stage.objects.filter(tournament=tournament).order_by("order", "pk")),
                   teams=teams, rosters=dict(rosters), families=families)


MAX_ID = 2**63 - 1  # the largest key a database of the portal stores


def _by_ref(rows, ref: Any, path: str, missing: str, unnamed: str) -> list:
    """The rows named ``ref``: by name, else by id (a whole number, or its digits); at most two."""
    if isinstance(ref, str) and ref.strip():
        ref = ref.strip()
        found = list(rows.filter(name=ref)[:2])
        if not found and ref.isascii() and ref.isdigit() and int(ref) <= MAX_ID:
            found = list(rows.filter(pk=int(ref))[:1])
    elif isinstance(ref, int) and not isinstance(ref, bool):
        found = list(rows.filter(pk=ref)[:1]) if 0 < ref <= MAX_ID else []
    else:
        raise Invalid(Problem(path, unnamed))
    if not found:
        raise Invalid(Problem(path, missing % {path: ref}))
    return found


def team_of(tournament: Tournament, ref: Any) -> Team:
    """A team of the tournament by its name or its id (a name teams of several stages share needs the id)."""
    found = _by_ref(Team.objects.filter(tournament=tournament).order_by("pk"), ref, "team",
                    _("%(team)s is not a team of this tournament"), _("name the team, or give its id"))
    if len(found) > 1:
        raise Invalid(Problem("team", _("several teams of this tournament are named %(team)s: give the team's id")
                              % {"team": ref}))
    return found[0]


def family_of(tournament: Tournament, ref: Any) -> Family:
    """A family taking part in the tournament, by its name or its id."""
    rows = Family.objects.filter(pk__in=_families(tournament).values("pk"))
    return _by_ref(rows, ref, "family", _("%(family)s takes no part in this tournament"),
                   _("name the family, or give its id"))[0]


# --- the tournament's own roles ---


def _role(role: Any) -> str:
    if role in TOURNAMENT_ROLES:
        return str(role)
    if role == Role.CAPTAIN:
        message = _("a captain is named for a team: send the team and the player")
    elif role == Role.FAMILY_HEAD:
        message = _("a family head is named for a family: send the family and the player")
    else:
        message = _("the role is one of: %(roles)s") % {"roles": ", ".join(
            [*TOURNAMENT_ROLES, Role.CAPTAIN, Role.FAMILY_HEAD])}
    raise Invalid(Problem("role", message))


def _user(username: Any) -> User:
    name = username.strip() if isinstance(username, str) else ""
    if not name:
        raise Invalid(Problem("user", _("name the user by their user name")))
    user = User.objects.filter(username=name).first()
    if user is None:
        raise Invalid(Problem("user", _("no user is named %(name)s") % {"name": name}))
    return user


def _stages(tournament: Tournament, role: str, stages: Any) -> list[str]:
    """The stage keys of a judge's role in the tournament's order; none for any other role."""
    if stages in (None, "", []):
        return []
    if role != Role.JUDGE:
        raise Invalid(Problem("stages", _("only a judge's role names stages")))
    if not isinstance(stages, list) or not all(isinstance(key, str) for key in stages):
        raise Invalid(Problem("stages", _("must be a list of stage keys")))
    known = list(Stage.objects.filter(tournament=tournament).order_by("order", "pk").values_list("key", flat=True))
    unknown = [key for key in stages if key not in known]
    if unknown:
        raise Invalid(Problem("stages", _("%(stages)s: no such stage in this tournament; its stages are "
                                          "%(known)s") % {"stages": ", ".join(unknown),
                                                           "known": ", ".join(known) or "—"}))
    return [key for key in known if key in stages]


def _grant_state(row: TournamentRole) -> dict[str, Any]:
    """A role as the history keeps it: whose, which, and a judge's stages (or every stage)."""
    state: dict[str, Any] = {"user": row.user_id, "role": row.role}
    if row.role == Role.JUDGE:
        state["stages"] = list(row.stages) or Text(EVERY_STAGE).as_data()
    return state


def _lock(tournament: Tournament) -> None:
    Tournament.objects.select_for_update().filter(pk=tournament.pk).first()


def grant_role(user, tournament: Tournament, username: Any, role: Any,
               stages: Any = None) -> tuple[TournamentRole, bool]:
    """``username`` gets the tournament's ``role``; a judge's ``stages`` (keys, none: every stage) replace the ones
    their role named. The role with whether anything changed (already held as it is: nothing)."""
    require_organizer(user, tournament)
    role = _role(role)
    target = _user(username)
    stages = _stages(tournament, role, stages)
    with transaction.atomic():
        _lock(tournament)
        if role == Role.JURY:
            conflict = juror_conflict(tournament, Player.objects.filter(user=target).first(), joining_jury=True)
            if conflict is not None:
                raise Invalid(Problem("user", conflict))
        row = TournamentRole.objects.filter(user=target, tournament=tournament, role=role).first()
        if row is not None:
            if list(row.stages or []) == stages:
                return row, False
            before = _grant_state(row)
            row.stages = stages
            with audit.muted():
                row.save(update_fields=["stages"])
            audit.record_change("grant_role", row, before, _grant_state(row), user=user)
            return row, True
        with audit.muted():
            row = TournamentRole.objects.create(user=target, tournament=tournament, role=role, stages=stages)
        audit.record("grant_role", row, None, _grant_state(row), user=user)
    return row, True


def revoke_role(user, tournament: Tournament, username: Any, role: Any) -> TournamentRole:
    """``username`` loses the tournament's ``role`` (the row removed is returned). Nobody revokes their own
    organizer role while nobody else organizes the tournament."""
    require_organizer(user, tournament)
    role = _role(role)
    target = _user(username)
    with transaction.atomic():
        _lock(tournament)
        row = TournamentRole.objects.filter(user=target, tournament=tournament, role=role).select_related(
            "user", "tournament").first()
        if row is None:
            raise NotFound(_("%(user)s holds no %(role)s role in %(tournament)s") % {
                "user": target.username, "role": Role(role).label, "tournament": tournament.name})
        if role == Role.ORGANIZER and target.pk == getattr(user, "pk", None) and not TournamentRole.objects.filter(
                tournament=tournament, role=Role.ORGANIZER).exclude(pk=row.pk).exists():
            raise Invalid(Problem("user", _("You are the last organizer of %(tournament)s: you cannot revoke your "
                                            "own organizer role; grant it to someone else first.")
                                  % {"tournament": tournament.name}))
        audit.record("revoke_role", row, _grant_state(row), None, user=user)
        with audit.muted():
            row.delete()
    return row


# --- captains and family heads ---


def set_captain(user, team: Team, nick: str | None) -> tuple[Team, bool]:
    """The player ``nick`` of the team's current roster becomes its captain (CHGK-1); no nick: the team has no
    captain. The team with whether anything changed."""
    require_organizer(user, team.tournament)
    nick = (nick or "").strip()
    with transaction.atomic():
        _lock(team.tournament)
        team = Team.objects.select_for_update(of=("self",)).select_related("tournament").get(pk=team.pk)
        player = None
        if nick:
            entry = RosterEntry.objects.filter(team=team, player__nick=nick, left_at__isnull=True).select_related(
                "player").first()
            if entry is None:
                raise Invalid(Problem("captain", _("%(nick)s is not on the roster of %(team)s") % {
                    "nick": nick, "team": team.name}))
            player = entry.player
        if team.captain_id == (player.pk if player else None):
            return team, False
        before = {"captain": team.captain_id}
        with audit.muted():
            team.captain = player
            team.save(update_fields=["captain"])
        audit.record("set_captain", team, before, {"captain": team.captain_id}, user=user)
    return team, True


def _not_organized_by(user, family: Family, tournament: Tournament) -> list[Tournament]:
    """The other tournaments the family takes part in (listed, a team's or a participant's family) that ``user``
    does not organize (none for staff)."""
    if getattr(user, "is_staff", False) and user.is_active:
        return []
    return list(Tournament.objects.filter(
        Q(families__family=family) | Q(teams__family=family) | Q(participants__family=family)).exclude(
        pk=tournament.pk).exclude(pk__in=TournamentRole.objects.filter(user=user, role=Role.ORGANIZER).values(
            "tournament_id")).distinct().order_by("name")[:5])


def set_family_head(user, tournament: Tournament, family: Family, nick: str | None) -> tuple[Family, bool]:
    """The player ``nick`` heads ``family`` (FL-1, GP-4); no nick: it has no head. The family is the site's: its
    head is named by someone who organizes every tournament it takes part in. In the history of this tournament,
    on the family's row of it (or its team). The family with whether anything changed."""
    require_organizer(user, tournament)
    others = _not_organized_by(user, family, tournament)
    if others:
        raise NotAllowed(_("%(family)s also takes part in %(tournaments)s: only someone who organizes each of them "
                           "names its head (FL-1).") % {"family": family.name,
                                                       "tournaments": ", ".join(t.name for t in others)})
    nick = (nick or "").strip()
    player = find_player(nick) if nick else None
    if nick and player is None:
        raise Invalid(Problem("player", _("no player is named %(nick)s") % {"nick": nick}))
    where = (TournamentFamily.objects.filter(tournament=tournament, family=family).first()
             or Team.objects.filter(tournament=tournament, family=family).order_by("order", "pk").first())
    if where is None:
        raise Invalid(Problem("family", _("%(family)s takes no part in this tournament") % {"family": family.name}))
    with transaction.atomic():
        _lock(tournament)
        family = Family.objects.select_for_update(of=("self",)).select_related("head").get(pk=family.pk)
        if family.head_id == (player.pk if player else None):
            return family, False
        before = {"head": family.head.nick if family.head_id else None}
        with audit.muted():
            family.head = player
            family.save(update_fields=["head"])
        audit.record("set_head", where, before, {"head": player.nick if player else None}, user=user)
    return family, True
