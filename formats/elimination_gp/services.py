"""Grand Prix registration, draw and prize payments: the database side of GP-3..GP-8, GP-16..GP-19, GP-22.

The rules themselves are the pure functions of ``rulesets.elimination_gp.*``;
this module turns rows into their inputs, applies their answers in one
transaction, and translates their reasons for the pages.
"""

from __future__ import annotations

import datetime as dt
import secrets
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import Player, Role
from accounts.permissions import has_role
from formats.elimination_gp.models import StageConditions, StageRegistration
from rulesets import elimination_gp as gp
from rulesets import errors
from rulesets.elimination_gp.draw import PLAYERS_PER_BASKET_PER_TEAM, BasketEntry, draw_teams, make_baskets
from rulesets.elimination_gp.finalists import DEFAULT_EXTRA_INDICATOR
from rulesets.elimination_gp.registration import (
    MAX_INVITATIONS,
    Registration,
    Roster,
    eligibility_problems,
    replace_withdrawal,
    stage_roster,
)
from rulesets.elimination_gp.standings import EXTRA_INDICATORS, QUALIFYING_KEYS
from rulesets.facts import Player as FactsPlayer
from scoring.models import StandingsSnapshot
from tournaments import audit
from tournaments.changes import mark_changed
from tournaments.models import Game, Participant, RosterEntry, Stage, Team, Tournament

HOW = {
    "left the waiting list": gettext_lazy("left the waiting list"),
    "withdrew after the draw: not replaced (GP-6)": gettext_lazy("withdrew after the draw: not replaced (GP-6)"),
    "new invitation (GP-6)": gettext_lazy("replaced by a new invitation (GP-6)"),
    "first of the waiting list (GP-6)": gettext_lazy("replaced by the first of the waiting list (GP-6)"),
    "waiting list empty: not replaced (GP-6)": gettext_lazy("waiting list empty: not replaced (GP-6)"),
}


class Refused(errors.Invalid):
    """An action the rules refuse; ``str(exc)`` is the translated reason with its rule code."""


class GpNotAllowed(Refused, errors.NotAllowed):
    """The acting user may not do this (e.g. only the committee corrects open conditions, GP-2)."""


class GpConflict(Refused, errors.Conflict):
    """Already done (e.g. the player is already registered)."""


def settings_of(tournament: Tournament) -> dict[str, Any]:
    return {**gp.DEFAULT_SETTINGS, **(tournament.settings or {})}


# --------------------------------------------------------------------------- snapshots (read only)


def snapshot_details(tournament: Tournament, stage_key: str = "") -> dict[str, Any]:
    """The ruleset's ``Standings.details`` stored with a snapshot (empty when none was computed)."""
    stored = StandingsSnapshot.objects.filter(tournament=tournament, stage_key=stage_key).values_list(
        "details", flat=True).first() or {}
    return stored.get("details", stored) if isinstance(stored, dict) else {}


def qualified_nicks(tournament: Tournament) -> set[str]:
    """GP-3: the players already qualified for this series' final, as the latest snapshot lists them."""
    return {f["player"] for f in snapshot_details(tournament).get("series_finalists", []) or []}


# --------------------------------------------------------------------------- registration (GP-3..GP-6)


def refusals(player: Player, *, disqualified: bool, qualified: bool) -> list[str]:
    """GP-3: the translated reasons why ``player`` may not register (empty: they may)."""
    facts_player = gp_player(player)
    problems = eligibility_problems(facts_player, disqualified=disqualified, qualified_for_final=qualified)
    out = []
    for problem in problems:
        if "level 0" in problem:
            out.append(_("%(nick)s is a level 0 player (GP-3).") % {"nick": player.nick})
        elif "disqualified" in problem:
            out.append(_("%(nick)s is disqualified (GP-3).") % {"nick": player.nick})
        else:
            out.append(_("%(nick)s has already qualified for this series' final (GP-3).") % {"nick": player.nick})
    return out


def gp_player(player: Player):
    return FactsPlayer(nick=player.nick, level=player.level, disqualified=player.disqualified)


def is_drawn(stage: Stage) -> bool:
    """GP-6: the stage starts with the draw of GP-8 (its teams exist)."""
    return Team.objects.filter(stage=stage).exists()


def _tournament_disqualified(tournament: Tournament, player: Player) -> bool:
    return Participant.objects.filter(tournament=tournament, player=player, disqualified=True).exists()


@transaction.atomic
def register(stage: Stage, player: Player, *, user, invited: bool = False, replaces: StageRegistration | None = None,
             check_deadline: bool = True) -> StageRegistration:
    """Register (or, with ``invited``, invite: GP-4) ``player`` for the stage; GP-3 refusals raise ``Refused``."""
    tournament = stage.tournament
    if is_drawn(stage):
        raise Refused(_("The draw has taken place: the stage's roster is closed (GP-6)."))
    conditions = StageConditions.objects.filter(stage=stage).first()
    if conditions is None or conditions.registration_opened_at is None:
        raise Refused(_("Registration is not open yet: the host family first publishes the stage's conditions "
                        "(GP-2)."))
    if check_deadline and registration_closed(stage, conditions):
        raise Refused(_("Registration is closed; so are invitations (GP-5)."))
    problems = refusals(player, disqualified=_tournament_disqualified(tournament, player),
                        qualified=player.nick in qualified_nicks(tournament))
    if problems:
        raise Refused(" ".join(problems))
    existing = StageRegistration.objects.filter(stage=stage, player=player).first()
    if existing is not None and existing.withdrawn_at is None and not (invited and not existing.invited):
        raise GpConflict(_("%(nick)s is already registered for this stage.") % {"nick": player.nick})
    if invited:
        used = StageRegistration.objects.filter(stage=stage, invited=True).count()
        if used >= MAX_INVITATIONS:
            raise Refused(_("The host family has used all its %(count)d invitations (GP-4).")
                          % {"count": MAX_INVITATIONS})
    now = timezone.now()
    if existing is None:
        registration = StageRegistration.objects.create(stage=stage, player=player, registered_at=now,
                                                        invited=invited, replaces=replaces, registered_by=user)
        action = "invite" if invited else "register"
    else:
        before = {"invited": existing.invited, "withdrawn_at": audit_value(existing.withdrawn_at)}
        if existing.withdrawn_at is not None:
            existing.registered_at = now
        existing.withdrawn_at = None
        existing.withdrawn_after_draw = False
        existing.invited = existing.invited or invited
        existing.replaces = replaces or existing.replaces
        existing.save()
        registration = existing
        action = "invite" if invited else "register"
        audit.record(action, registration, before, {"invited": registration.invited}, user=user)
        return registration
    audit.record(action, registration, None, {"stage": stage.key, "player": player.nick, "invited": invited},
                 user=user)
    return registration


def conditions_of(stage: Stage) -> StageConditions:
    return StageConditions.objects.get_or_create(stage=stage)[0]


def registration_open(stage: Stage) -> bool:
    """The stage takes registrations: opened (GP-2) and not closed, by the stage's own close or by the
    tournament's deadline (GP-5)."""
    conditions = StageConditions.objects.filter(stage=stage, registration_opened_at__isnull=False).first()
    return conditions is not None and not registration_closed(stage, conditions)


def registration_closed(stage: Stage, conditions: StageConditions, now: dt.datetime | None = None) -> bool:
    """GP-5: a stage's registration (and with it every invitation) is closed once the organizers closed that
    stage's registration, or once the tournament's registration deadline has passed."""
    if conditions.registration_closed_at is not None:
        return True
    deadline = stage.tournament.registration_deadline
    return deadline is not None and (now or timezone.now()) > deadline


def save_conditions(stage: Stage, *, user, commission: str, game_times: str, prize_fund: str,
                    extra_indicator: str = "") -> StageConditions:
    """GP-2: the host family sets the conditions; once registration is open only the committee corrects them.

    The stage's extra indicator (GP-17) also becomes the stage's entry of the tournament's ``extra_indicator``
    setting (one per stage), which the ruleset reads; the recompute follows from the settings' change.
    """
    with transaction.atomic():
        conditions = StageConditions.objects.select_for_update().get_or_create(stage=stage)[0]
        if conditions.registration_opened_at is not None and not is_committee(user, stage.tournament):
            raise GpNotAllowed(_("Registration is open: the stage's conditions are locked; only the committee "
                                 "may correct them (GP-2)."))
        before = {"commission": conditions.commission, "game_times": conditions.game_times,
                  "prize_fund": conditions.prize_fund, "extra_indicator": conditions.extra_indicator}
        if extra_indicator and extra_indicator not in EXTRA_INDICATORS:
            raise Refused(_("Unknown extra indicator %(value)s (GP-17).") % {"value": extra_indicator})
        conditions.commission, conditions.game_times, conditions.prize_fund = commission, game_times, prize_fund
        conditions.extra_indicator = extra_indicator
        if extra_indicator:
            _set_stage_indicator(stage, extra_indicator)
        conditions.updated_by = user.get_username()
        conditions.save()
        action = "correct" if conditions.registration_opened_at else "set"
        audit.record(action, conditions, before, {"commission": commission, "game_times": game_times,
                                                  "prize_fund": prize_fund, "extra_indicator": extra_indicator},
                     user=user)
    return conditions


def _set_stage_indicator(stage: Stage, indicator: str) -> None:
    """The tournament's ``extra_indicator`` setting as one indicator per qualifying stage, this one's changed."""
    tournament = Tournament.objects.select_for_update().get(pk=stage.tournament_id)
    current = tournament.settings.get("extra_indicator", DEFAULT_EXTRA_INDICATOR)
    per_stage = dict(current) if isinstance(current, dict) else {key: current for key in QUALIFYING_KEYS}
    if per_stage.get(stage.key) == indicator:
        return
    per_stage[stage.key] = indicator
    tournament.settings = {**tournament.settings, "extra_indicator": per_stage}
    tournament.save(update_fields=["settings"])


def open_registration(stage: Stage, *, user) -> StageConditions:
    """GP-2: registration opens only when every condition is published."""
    with transaction.atomic():
        conditions = StageConditions.objects.select_for_update().get_or_create(stage=stage)[0]
        missing = conditions.missing()
        if missing:
            raise Refused(_("Publish the stage's conditions before opening registration; missing: %(missing)s "
                            "(GP-2).") % {"missing": ", ".join(missing)})
        if conditions.registration_opened_at is None:
            conditions.registration_opened_at = timezone.now()
            conditions.save(update_fields=["registration_opened_at"])
            audit.record("open", conditions, None, {"registration_opened_at": audit_value(timezone.now())},
                         user=user)
        elif conditions.registration_closed_at is not None:
            if is_drawn(stage):
                raise Refused(_("The draw has taken place: the stage's roster is closed (GP-6)."))
            before = {"registration_closed_at": audit_value(conditions.registration_closed_at)}
            conditions.registration_closed_at = None
            conditions.save(update_fields=["registration_closed_at"])
            audit.record("reopen", conditions, before, {"registration_closed_at": None}, user=user)
    return conditions


def close_registration(stage: Stage, *, user) -> StageConditions:
    """GP-5: the organizers close one stage's registration before the tournament's deadline; its invitations
    close with it, for everyone. Closing a closed stage changes nothing."""
    with transaction.atomic():
        conditions = StageConditions.objects.select_for_update().get_or_create(stage=stage)[0]
        if conditions.registration_opened_at is None:
            raise Refused(_("The stage's registration is not open, so it cannot close (GP-2)."))
        if conditions.registration_closed_at is None:
            now = timezone.now()
            conditions.registration_closed_at = now
            conditions.save(update_fields=["registration_closed_at"])
            audit.record("close", conditions, {"registration_closed_at": None},
                         {"registration_closed_at": audit_value(now)}, user=user)
    return conditions


def is_committee(user, tournament: Tournament) -> bool:
    return has_role(user, tournament, Role.CURATOR)


def audit_value(value):
    return value.isoformat() if value is not None else None


@transaction.atomic
def withdraw(stage: Stage, player: Player, *, user, new_invitation: Player | None = None) -> StageRegistration:
    """GP-6: ``player`` withdraws; an invited player may be replaced by a new invitation before the draw."""
    registration = StageRegistration.objects.select_for_update().filter(
        stage=stage, player=player, withdrawn_at__isnull=True).first()
    if registration is None:
        raise Refused(_("%(nick)s is not registered for this stage.") % {"nick": player.nick})
    drawn = is_drawn(stage)
    registration.withdrawn_at = timezone.now()
    registration.withdrawn_after_draw = drawn
    registration.save()
    audit.record("withdraw", registration, None, {"stage": stage.key, "player": player.nick, "after_draw": drawn},
                 user=user)
    if new_invitation is not None:
        if drawn or not registration.invited:
            raise Refused(_("Only an invited player who withdraws before the draw is replaced by a new "
                            "invitation (GP-6)."))
        register(stage, new_invitation, user=user, invited=True, replaces=registration, check_deadline=False)
    return registration


@dataclass
class RosterView:
    """GP-5, GP-6 as the registration page shows them."""

    roster: Roster
    registrations: dict[str, StageRegistration]
    history: list[dict[str, Any]] = field(default_factory=list)
    problem: str = ""


def roster_of(registrations: list[StageRegistration], size: int) -> RosterView:
    """Replay GP-5 and GP-6 over the stage's registrations (withdrawn ones included, in order of withdrawal).

    The starting roster holds every registration and the original
    invitations; each withdrawal then applies ``replace_withdrawal``, with
    the new invitation that replaced it, if any.
    """
    by_nick = {r.player.nick: r for r in registrations}
    replacement_of = {r.replaces_id: r.player.nick for r in registrations if r.replaces_id is not None and r.invited}
    invitations = [r.player.nick for r in registrations if r.invited and r.replaces_id is None]
    queue = [Registration(r.player.nick, r.registered_at) for r in registrations
             if not (r.invited and r.replaces_id is not None)]
    problem = ""
    try:
        roster = stage_roster(queue, invitations, size)
    except ValueError as exc:
        problem = exc.args[0] if exc.args else str(exc)
        roster = stage_roster(queue, invitations[:MAX_INVITATIONS], size)
    withdrawals = sorted((r for r in registrations if r.withdrawn_at is not None), key=lambda r: (r.withdrawn_at, r.pk))
    history = []
    for registration in withdrawals:
        nick = registration.player.nick
        try:
            roster = replace_withdrawal(roster, nick, drawn=registration.withdrawn_after_draw,
                                        new_invitation=replacement_of.get(registration.pk))
        except ValueError as exc:
            problem = exc.args[0] if exc.args else str(exc)
            continue
        entry = roster.history[-1]
        history.append({"withdrawn": entry.withdrawn, "replacement": entry.replacement,
                        "how": HOW.get(entry.how, entry.how), "at": registration.withdrawn_at})
    return RosterView(roster=roster, registrations=by_nick, history=history, problem=problem)


def stage_registrations(stage: Stage) -> list[StageRegistration]:
    return list(StageRegistration.objects.filter(stage=stage).select_related("player").order_by("registered_at", "id"))


# --------------------------------------------------------------------------- baskets and draw (GP-7, GP-8)


def baskets_of(stage: Stage, view: RosterView, settings: dict[str, Any], drawn: bool) -> list[list[str]]:
    """GP-7: the stage's baskets: as stored at the draw, else from the roster (by level, or the manual baskets).

    Raises ``ValueError`` (with the rule) when the roster cannot be split.
    """
    registrations = view.registrations
    if drawn:
        out: list[list[str]] = [[] for _ in range(3)]
        for nick, registration in registrations.items():
            if registration.basket and 1 <= registration.basket <= len(out):
                out[registration.basket - 1].append(nick)
        return out
    players = [BasketEntry(n, registrations[n].player.level or 0, registrations[n].registered_at)
               for n in view.roster.players]
    manual = {n: registrations[n].basket for n in view.roster.players if registrations[n].basket}
    return make_baskets(players, settings["basket_order"], manual)


@transaction.atomic
def run_draw(stage: Stage, seed: str, *, user, by_hand: list[list[str]] | None = None) -> list[Team]:
    """GP-8: draw 9 teams of 6 (2 per basket) with ``seed``; store the seed, teams and rosters at once.

    ``by_hand``: the teams as the committee drew them outside the portal
    (checked: every roster player once, 2 from each basket per team); the
    stored seed is then empty. Refused once the stage has games; a stage
    drawn but not yet played is drawn again from scratch.
    """
    stage = Stage.objects.select_for_update().select_related("tournament").get(pk=stage.pk)
    if Game.objects.filter(stage=stage).exists():
        raise Refused(_("The stage has games: its draw can no longer be run (GP-8)."))
    settings = settings_of(stage.tournament)
    size = int(settings["players_per_stage"])
    view = roster_of(stage_registrations(stage), size)
    players = list(view.roster.players)
    if len(players) != size:
        raise Refused(_("The roster holds %(count)d players; the draw needs %(size)d (GP-5, GP-8).")
                      % {"count": len(players), "size": size})
    try:
        baskets = baskets_of(stage, view, settings, drawn=False)
        drawn = draw_teams(baskets, seed) if by_hand is None else check_hand_draw(by_hand, baskets)
    except ValueError as exc:
        raise Refused(exc.args[0] if exc.args else str(exc)) from exc
    if by_hand is not None:
        seed = ""
    Team.objects.filter(stage=stage).delete()
    StageRegistration.objects.filter(stage=stage).exclude(player__nick__in=players).update(basket=None)
    for number, basket in enumerate(baskets, start=1):
        StageRegistration.objects.filter(stage=stage, player__nick__in=basket).update(basket=number)
    stage.seed = seed
    stage.save(update_fields=["seed"])
    now = timezone.now()
    teams = []
    for index, nicks in enumerate(drawn, start=1):
        team = Team.objects.create(tournament=stage.tournament, stage=stage, name=team_name(index), order=index)
        for order, nick in enumerate(nicks, start=1):
            RosterEntry.objects.create(team=team, player=view.registrations[nick].player, order=order, joined_at=now)
        teams.append(team)
    _make_participants(stage.tournament, [view.registrations[nick].player for nicks in drawn for nick in nicks])
    audit.record("draw", stage, None, {"seed": seed, "teams": {t.name: n for t, n in zip(teams, drawn, strict=True)}},
                 user=user)
    return teams


def _make_participants(tournament: Tournament, players: list[Player]) -> None:
    """The drawn players become the tournament's players (their level as the site gives it, GP-3), so the games of
    the stage can seat them; one already a participant (of an earlier stage) stays as the tournament holds it."""
    known = set(Participant.objects.filter(tournament=tournament).values_list("player_id", flat=True))
    last = Participant.objects.filter(tournament=tournament).order_by("-order").values_list("order", flat=True).first()
    new = [player for player in players if player.pk not in known]
    Participant.objects.bulk_create([
        Participant(tournament=tournament, player=player, order=(last or 0) + index, level=player.level)
        for index, player in enumerate(new, start=1)])
    if new:
        mark_changed(tournament.pk)


def check_hand_draw(teams: list[list[str]], baskets: list[list[str]]) -> list[list[str]]:
    """GP-8 by hand: as many teams as the seeded draw makes, each with exactly 2 players of every basket."""
    basket_of = {nick: number for number, basket in enumerate(baskets, start=1) for nick in basket}
    expected = len(basket_of) // (len(baskets) * PLAYERS_PER_BASKET_PER_TEAM) if baskets else 0
    names = [nick for team in teams for nick in team]
    if len(teams) != expected or sorted(names) != sorted(basket_of):
        raise ValueError(_("The teams entered by hand must hold every player of the roster once, in %(count)d "
                           "teams (GP-8).") % {"count": expected})
    for team in teams:
        counts = [sum(1 for nick in team if basket_of[nick] == number) for number in range(1, len(baskets) + 1)]
        if any(count != PLAYERS_PER_BASKET_PER_TEAM for count in counts):
            raise ValueError(_("Every team takes exactly 2 players from each basket (GP-8): %(team)s.")
                             % {"team": ", ".join(team)})
    return teams


def team_name(index: int) -> str:
    return f"T{index:02d}"


def new_seed() -> str:
    """A fresh public seed for GP-8: random, then stored and shown."""
    return secrets.token_hex(8)
