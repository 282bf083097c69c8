"""Who may act on a tournament: the one place where roles are checked.

Roles are per tournament (``TournamentRole``); site staff may do everything.
Rules that limit who may act are here too: only a family head applies (FL-1),
only a team's captain files a ChGK appeal (CHGK-20), jury members may not
play in the tournament (CHGK-11). Who decides appeals and who files them is
the ruleset's ``appeal_policy`` (``rulesets.get(key)``).
"""

from __future__ import annotations

from django.contrib.auth.models import AnonymousUser
from django.db.models import Q, QuerySet
from django.utils import timezone
from django.utils.translation import gettext as _

import rulesets
from accounts.models import Family, Player, Role, TournamentRole

RESULT_WRITERS = (Role.ORGANIZER, Role.JUDGE, Role.CURATOR)  # a judge: of the stage only (can_enter_results)
DECISION_WRITERS = (Role.JUDGE, Role.CURATOR)  # not the organizer as such (spec/roles.md: FL-0, CB-15, CB-16)
SETUP_ROLES = (Role.ORGANIZER, Role.CURATOR)  # the organizing committee: GP-8's draw, ChGK's tours (CHGK-7..CHGK-11)
SCHEDULE_PUBLISHERS = (Role.ORGANIZER,)  # spec/roles.md: the organizer "publishes schedules" (CB-2)


def _grants(user, tournament) -> dict[str, list[str]]:
    """``{role: stage keys}`` of the user's roles in the tournament (one query per user and tournament)."""
    if user is None or isinstance(user, AnonymousUser) or not user.is_authenticated:
        return {}
    cache = getattr(user, "_tournament_roles", None)
    if cache is None:
        cache = user._tournament_roles = {}
    if tournament.pk not in cache:
        cache[tournament.pk] = {role: list(stages or []) for role, stages in TournamentRole.objects.filter(
            user=user, tournament=tournament).values_list("role", "stages")}
    return cache[tournament.pk]


def roles_of(user, tournament) -> set[str]:
    return set(_grants(user, tournament))


def has_role(user, tournament, *roles: str) -> bool:
    if user is not None and getattr(user, "is_staff", False) and user.is_active:
        return True
    return bool(roles_of(user, tournament) & set(roles))


def _is_staff(user) -> bool:
    return user is not None and getattr(user, "is_staff", False) and user.is_active


def _judges_stage(grants: dict[str, list[str]], stage_key: str | None) -> bool:
    """A judge acts on "the stages named in the role (one or more, or all)" (spec/roles.md): a role naming no stage
    judges every stage; an act on no stage (``None``) needs such a judge."""
    if Role.JUDGE not in grants:
        return False
    stages = grants[Role.JUDGE]
    return not stages or (stage_key is not None and stage_key in stages)


def can_enter_results(user, tournament, stage_key: str | None = None) -> bool:
    """Game results and tour answers of a stage: the organizer (spec/roles.md), the curator, and that stage's
    judges. A judge whose role names stages enters the results of those only; an act on no stage (a
    whole tournament's import) needs the organizer, the curator or a judge of every stage."""
    if _is_staff(user):
        return True
    grants = _grants(user, tournament)
    if Role.ORGANIZER in grants or Role.CURATOR in grants:
        return True
    return _judges_stage(grants, stage_key)


def result_entry_refusal(stage_key: str | None = None) -> str:
    """Why ``can_enter_results`` refused (the rule: spec/roles.md)."""
    if stage_key is None:
        return _("Only the tournament's organizers, judges and curator may enter its results.")
    return _("Only the tournament's organizers, its curator and the judges of the stage %(stage)s may enter that "
             "stage's results.") % {"stage": stage_key}


def result_stages(user, tournament, stages):
    """The stages (rows with a ``key``) whose results ``user`` may enter (``can_enter_results``), in their order."""
    return [stage for stage in stages if can_enter_results(user, tournament, stage.key)]


def enters_some_results(user, tournament) -> bool:
    """Whether ``user`` may enter the results of some stage (a page that then asks which: an import's form)."""
    return can_enter_results(user, tournament) or Role.JUDGE in _grants(user, tournament)


def can_record_decisions(user, tournament, stage_key: str | None = None) -> bool:
    """Only the stage's judges (its commission) or the curator rule: penalties, fines, technical results,
    replays, disqualifications (FL-0, GP-23, CB-15, CB-16); never the organizer as such. A judge whose role names
    stages judges only those; one that names none judges every stage. An act on no stage needs a judge of every
    stage, or the curator."""
    if _is_staff(user):
        return True
    grants = _grants(user, tournament)
    if Role.CURATOR in grants:
        return True
    return _judges_stage(grants, stage_key)


def can_set_up(user, tournament) -> bool:
    """The organizing committee's acts that are not results: the GP draw ("the curator (committee) or the
    organizer", GP-8), a ChGK season's hosting draw, tour packs and checklists (CHGK-7..CHGK-11: the organizer and
    the committee, which is the curator). Never a judge as such."""
    return has_role(user, tournament, *SETUP_ROLES)


def can_publish_schedules(user, tournament) -> bool:
    """spec/roles.md: the organizer "publishes schedules" (CB-2); not the judges, not the curator."""
    return has_role(user, tournament, *SCHEDULE_PUBLISHERS)


def appeal_deciders(ruleset_key: str) -> tuple[str, ...]:
    """The roles that decide appeals under a ruleset (GP-23, CHGK-18, FL-19, CB-17); ``UnknownRuleset`` otherwise."""
    return rulesets.get(ruleset_key).appeal_policy.deciders


def appeal_stage_key(appeal) -> str | None:
    """The stage an appeal is about: its own, else that of its decision, penalty, game or tour (None: none)."""
    for owner in (appeal, appeal.decision, appeal.penalty, appeal.game, appeal.tour):
        if owner is not None and owner.stage_id is not None:
            return owner.stage.key
    return None


def can_decide_appeal(user, appeal) -> bool:
    """The deciders of this appeal (spec/roles.md): a ChGK appeal the jury (CHGK-18); FL the curator (FL-19); CB
    the judge of the appeal's stage or the curator (CB-17); GP the curator, which is the committee (GP-23)."""
    if _is_staff(user):
        return True
    tournament = appeal.tournament
    deciders = appeal_deciders(tournament.ruleset)
    grants = _grants(user, tournament)
    if any(role in grants for role in deciders if role != Role.JUDGE):
        return True
    return Role.JUDGE in deciders and _judges_stage(grants, appeal_stage_key(appeal))


def appeal_refusal(tournament) -> str:
    """Why a user who is not among the deciders may not decide (the rule named)."""
    deciders = set(appeal_deciders(tournament.ruleset))
    rule = rulesets.get(tournament.ruleset).appeal_policy.rule
    if deciders == {Role.JURY}:
        return _("Only the tournament's appeal jury decides this appeal (%(rule)s).") % {"rule": rule}
    if Role.JUDGE in deciders:
        return _("Only the judge of the appeal's stage or the curator decides this appeal (%(rule)s).") % {
            "rule": rule}
    return _("Only the tournament's curator decides this appeal (%(rule)s).") % {"rule": rule}


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


def refuse_to_file(user, tournament, team, now=None) -> str | None:
    """Why ``user`` may not file an appeal for ``team`` (None: allowed).

    ChGK: only the team's captain, or a player delegated by the captain or
    the organizer for a period that includes ``now`` (CHGK-20). Mafia: any
    participant of the tournament, for their own team (GP-23, FL-19, CB-17).
    """
    player = player_of(user)
    if player is None or not player.claim_confirmed:
        return _("Only a player linked to your account may file an appeal.")
    policy = rulesets.get(tournament.ruleset).appeal_policy
    if policy.captain_files:
        if team is None:
            return _("Only the team's captain files a ChGK appeal (CHGK-20).")
        moment = now or timezone.now()
        delegates = [nick for nick in team.delegations.filter(starts_at__lte=moment, ends_at__gt=moment).values_list(
            "player__nick", flat=True)]
        captain = team.captain.nick if team.captain_id else None
        refused = (policy.filer_check(team.name, captain, player.nick, delegates) if policy.filer_check
                   else player.nick != captain)
        if refused:
            return _("Only the team's captain, or a player the captain or the organizer delegated for this period, "
                     "files a ChGK appeal (CHGK-20).")
        return None
    if team is None or not team.roster.filter(player=player).exists():
        return _("Only a participant of the team may appeal on its behalf.")
    return None


def refuse_application(user, family) -> str | None:
    """Only the family's head submits its application (FL-1)."""
    player = player_of(user)
    if player is None or not player.claim_confirmed or family.head_id != player.pk:
        return _("Only the head of %(family)s may apply for it (FL-1).") % {"family": family.name}
    return None

CLAIM_CONFIRMERS = (Role.ORGANIZER,)
DASHBOARD_ROLES = (Role.ORGANIZER, Role.CURATOR, Role.JUDGE)
TEAM_MANAGERS = (Role.ORGANIZER,)


def _active(user) -> bool:
    return user is not None and user.is_authenticated and user.is_active


def _staff(user) -> bool:
    return _active(user) and user.is_staff


def confirmed_player_of(user) -> Player | None:
    """The player ``user`` acts as, once an organizer or the family head confirmed the claim."""
    player = player_of(user)
    return player if player is not None and player.claim_confirmed else None


def is_head_of(user, family: Family) -> bool:
    """Only the family's head (a confirmed claim of ``Family.head``) decides its join requests (FL-1)."""
    player = confirmed_player_of(user)
    return player is not None and family.head_id == player.pk


def is_captain_of(user, team) -> bool:
    player = confirmed_player_of(user)
    return player is not None and team.captain_id == player.pk


def can_manage_team(user, team) -> bool:
    """The captain manages the team's roster and captaincy (CHGK-2..CHGK-4); so may the tournament's organizer."""
    return is_captain_of(user, team) or (_active(user) and has_role(user, team.tournament, *TEAM_MANAGERS))


def can_see_dashboard(user, tournament) -> bool:
    return _active(user) and has_role(user, tournament, *DASHBOARD_ROLES)


def can_see_history(user, tournament) -> bool:
    """A tournament's history (its audit trail) is its organizers', curators' and judges'."""
    return _active(user) and has_role(user, tournament, *DASHBOARD_ROLES)


def can_merge_players(user) -> bool:
    """Merging two players rewrites every tournament they played in: site staff only."""
    return _staff(user)


def _organizer_tournaments(user) -> list[int]:
    return list(TournamentRole.objects.filter(user=user, role__in=CLAIM_CONFIRMERS).values_list(
        "tournament_id", flat=True))


def _claim_scope(user) -> Q | None:
    """The players whose claims ``user`` may decide (``None``: nobody); staff: everybody."""
    if not _active(user):
        return None
    if user.is_staff:
        return Q()
    scope = Q(pk__in=[])
    tournaments = _organizer_tournaments(user)
    if tournaments:
        scope |= Q(participations__tournament__in=tournaments) | Q(roster_entries__team__tournament__in=tournaments)
    head = confirmed_player_of(user)
    if head is not None:
        scope |= Q(memberships__family__head=head, memberships__joined_on__isnull=False,
                   memberships__left_on__isnull=True)
    return scope


def claims_decidable_by(user) -> QuerySet[Player]:
    """Pending claims an organizer of a tournament the player played in, or the player's family head, decides.

    Nobody decides their own claim.
    """
    scope = _claim_scope(user)
    if scope is None:
        return Player.objects.none()
    ids = Player.objects.filter(scope, user__isnull=False, claim_confirmed=False).exclude(
        user=user).values("pk")
    return Player.objects.filter(pk__in=ids)


def can_decide_claim(user, player: Player) -> bool:
    if player.user_id is None or player.claim_confirmed or not _active(user) or player.user_id == user.pk:
        return False
    return claims_decidable_by(user).filter(pk=player.pk).exists()
