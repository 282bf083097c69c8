"""Who may act on a tournament: the one place where roles are checked (issue 6).

Roles are per tournament (``TournamentRole``); site staff may do everything.
Rules that limit who may act are here too: only a family head applies (FL-1),
only a team's captain files a ChGK appeal (CHGK-20), jury members may not
play in the tournament (CHGK-11).
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser

from accounts.models import Role, TournamentRole

APPEAL_DECIDERS = {
    "chgk_tour_points": (Role.JURY,),
    "elimination_gp": (Role.CURATOR, Role.JURY),
    "family_league": (Role.CURATOR, Role.JURY),
    "class_balanced": (Role.JUDGE, Role.CURATOR, Role.JURY),
}
RESULT_WRITERS = (Role.ORGANIZER, Role.JUDGE, Role.CURATOR)
DECISION_WRITERS = (Role.JUDGE, Role.CURATOR, Role.ORGANIZER)


def roles_of(user, tournament) -> set[str]:
    if user is None or isinstance(user, AnonymousUser) or not user.is_authenticated:
        return set()
    cache = getattr(user, "_tournament_roles", None)
    if cache is None:
        cache = user._tournament_roles = {}
    if tournament.pk not in cache:
        cache[tournament.pk] = set(
            TournamentRole.objects.filter(user=user, tournament=tournament).values_list("role", flat=True))
    return cache[tournament.pk]


def has_role(user, tournament, *roles: str) -> bool:
    if user is not None and getattr(user, "is_staff", False) and user.is_active:
        return True
    return bool(roles_of(user, tournament) & set(roles))


def can_enter_results(user, tournament) -> bool:
    return has_role(user, tournament, *RESULT_WRITERS)


def can_record_decisions(user, tournament) -> bool:
    """Only a stage's judges, the commission or the curator rule (FL-0, GP-23, CB-15, CB-16)."""
    return has_role(user, tournament, *DECISION_WRITERS)


def can_decide_appeals(user, tournament) -> bool:
    return has_role(user, tournament, *APPEAL_DECIDERS[tournament.ruleset])


def can_see_hidden_appellant(user, tournament) -> bool:
    """The appealing team is shown to the committee, hidden from the jury (CHGK-20)."""
    if user is not None and getattr(user, "is_staff", False):
        return True
    roles = roles_of(user, tournament)
    return bool(roles & {Role.ORGANIZER, Role.CURATOR}) and Role.JURY not in roles


def player_of(user):
    if user is None or not user.is_authenticated:
        return None
    return getattr(user, "player", None)


def refuse_to_file(user, tournament, team) -> str | None:
    """Why ``user`` may not file an appeal for ``team`` (None: allowed).

    ChGK: only the team's captain (CHGK-20). Mafia: any participant of the
    tournament, for their own team (GP-23, FL-19, CB-17).
    """
    from django.utils.translation import gettext as _

    player = player_of(user)
    if player is None:
        return _("Only a player linked to your account may file an appeal.")
    if tournament.ruleset == "chgk_tour_points":
        if team is None or team.captain_id != player.pk:
            return _("Only the team's captain files a ChGK appeal (CHGK-20).")
        return None
    if team is None or not team.roster.filter(player=player).exists():
        return _("Only a participant of the team may appeal on its behalf.")
    return None


def refuse_jury_member(tournament, player) -> str | None:
    """Appeal jury members may not be players of any participating team (CHGK-11)."""
    from django.utils.translation import gettext as _

    from tournaments.models import RosterEntry

    if player is not None and RosterEntry.objects.filter(team__tournament=tournament, player=player).exists():
        return _("%(nick)s plays in this tournament and cannot sit on its appeal jury (CHGK-11).") % {
            "nick": player.nick}
    return None


def refuse_application(user, family) -> str | None:
    """Only the family's head submits its application (FL-1)."""
    from django.utils.translation import gettext as _

    player = player_of(user)
    if player is None or family.head_id != player.pk:
        return _("Only the head of %(family)s may apply for it (FL-1).") % {"family": family.name}
    return None
