"""Grand Prix pages: stage registration (GP-3..GP-6), baskets and draw (GP-7, GP-8),
the series' finalists (GP-16..GP-19) and the prizes with their payment status (GP-22, GP-22a).

Standings, finalists and awards are read from the stored snapshots; rosters
and the draw come from the pure rules in ``rulesets.elimination_gp.*``.
Every page runs a fixed number of queries (``tests/test_gp_portal.py``).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from accounts.forms import ActionForm, errors_as_messages
from accounts.models import Player
from accounts.permissions import can_enter_results, can_record_decisions, can_set_up, confirmed_player_of
from accounts.zones import zone_caption
from formats.elimination_gp import services
from formats.elimination_gp.forms import DrawForm, GameDecisionForm, QualifyForm, RegistrationForm, TieBreakForm
from formats.elimination_gp.models import StageRegistration
from rulesets.elimination_gp.draw import default_seed, draw_teams
from rulesets.elimination_gp.finalists import extra_indicator_of
from rulesets.elimination_gp.standings import EXTRA_INDICATORS
from rulesets.errors import Refused
from scoring.models import StandingsSnapshot
from tournaments.commands import record_decision
from tournaments.messages import refusal_text
from tournaments.models import Decision, Game, RosterEntry, Seat, Stage, Tournament

RULESET = "elimination_gp"


def _tournament(slug: str) -> Tournament:
    tournament = get_object_or_404(Tournament, slug=slug)
    if tournament.ruleset != RULESET:
        raise Http404("not a Grand Prix")
    return tournament


def _stage(tournament: Tournament, stage_key: str) -> Stage:
    stage = Stage.objects.filter(tournament=tournament, key=stage_key).first()
    if stage is None:
        raise Http404("no such stage")
    stage.tournament = tournament
    return stage


def _forbidden(request: HttpRequest, tournament: Tournament, text: str) -> HttpResponse:
    """The site's refusal page, naming the rule (spec/roles.md)."""
    return render(request, "accounts/forbidden.html", {"text": text, "tournament": tournament}, status=403)


def _player_by_nick(nick: str) -> Player:
    player = Player.objects.filter(nick=nick.strip()).first()
    if player is None:
        raise services.Refused(_("No player with the nick %(nick)s.") % {"nick": nick.strip()})
    return player


# --------------------------------------------------------------------------- registration


def registration_view(request: HttpRequest, slug: str, stage_key: str) -> HttpResponse:
    tournament = _tournament(slug)
    stage = _stage(tournament, stage_key)
    organizer = can_enter_results(request.user, tournament, stage.key)
    me = confirmed_player_of(request.user)
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        form = RegistrationForm(request.POST)
        if form.is_valid():
            _registration_action(request, stage, organizer, me, form.cleaned_data)
        else:
            errors_as_messages(request, form)
        return redirect(request.path)
    settings = services.settings_of(tournament)
    registrations = services.stage_registrations(stage)
    view = services.roster_of(registrations, int(settings["players_per_stage"]))
    mine = view.registrations.get(me.nick) if me is not None else None
    conditions = services.conditions_of(stage)
    played = list(Seat.objects.filter(game__stage=stage).order_by("player__nick")
                  .values_list("player__nick", flat=True).distinct())
    return render(request, "elimination_gp/registration.html", {
        "state": _registration_state(stage, conditions, played), "played": played,
        "tournament": tournament, "stage": stage, "roster": view.roster, "history": view.history,
        "problem": view.problem, "organizer": organizer, "me": me,
        "my_registration": mine if mine is not None and mine.withdrawn_at is None else None,
        "queue_rows": [(n, view.registrations[n].registered_at) for n in view.roster.by_queue],
        "waiting_rows": [(n, view.registrations[n].registered_at) for n in view.roster.waiting],
        "invitations_left": max(0, services.MAX_INVITATIONS - view.roster.invitations_used),
        "size": int(settings["players_per_stage"]), "zone": zone_caption(tournament.timezone),
        "conditions": conditions, "extra_indicator": extra_indicator_of(settings, stage.key),
        "committee": services.is_committee(request.user, tournament), "extra_indicators": EXTRA_INDICATORS,
    })


def _registration_state(stage: Stage, conditions, played: list[str]) -> str:
    """Where the stage's registration stands, one word the page and its buttons agree on (GP-2, GP-5, GP-6):
    ``played`` (its games are in), ``drawn`` (its teams exist), ``closed`` (past the deadline), ``open``,
    or ``not_open`` (the conditions are not published yet)."""
    if played:
        return "played"
    if services.is_drawn(stage):
        return "drawn"
    if conditions.registration_opened_at is None:
        return "not_open"
    return "closed" if services.registration_closed(stage, conditions) else "open"


def _conditions_action(request: HttpRequest, stage: Stage, organizer: bool, data: dict) -> None:
    """GP-2: the host family (organizers) sets the conditions and opens registration; the committee corrects."""
    if not (organizer or services.is_committee(request.user, stage.tournament)):
        messages.error(request, _("Only the stage's organizers run the draw."))
        return
    try:
        if data["action"] == "open":
            services.open_registration(stage, user=request.user)
            messages.success(request, _("Registration is open (GP-2)."))
        elif data["action"] == "close":
            services.close_registration(stage, user=request.user)
            messages.success(request, _("The stage's registration is closed; so are its invitations (GP-5)."))
        else:
            services.save_conditions(stage, user=request.user, commission=data["commission"],
                                     game_times=data["game_times"], prize_fund=data["prize_fund"],
                                     extra_indicator=data.get("extra_indicator") or "")
            messages.success(request, _("The stage's conditions are saved (GP-2)."))
    except services.Refused as exc:
        messages.error(request, refusal_text(exc))


def _registration_action(request: HttpRequest, stage: Stage, organizer: bool, me: Player | None,
                         data: dict) -> None:
    action, nick = data["action"], data["nick"]
    if action in ("conditions", "open", "close"):
        _conditions_action(request, stage, organizer, data)
        return
    try:
        if nick and nick != getattr(me, "nick", None) or action == "invite":
            if not organizer:
                raise services.Refused(_("Only the stage's organizers register, invite or withdraw other players."))
            player = _player_by_nick(nick)
        elif me is None:
            raise services.Refused(_("Link your account to your player (and have the claim confirmed) to register."))
        else:
            player = me
        if action in ("register", "invite"):
            services.register(stage, player, user=request.user, invited=action == "invite",
                              check_deadline=not organizer or action == "invite")  # GP-5: invitations close for all
            messages.success(request, _("%(nick)s is registered.") % {"nick": player.nick})
        elif action == "withdraw":
            replacement = data["new_invitation"]
            new_invitation = _player_by_nick(replacement) if replacement and organizer else None
            services.withdraw(stage, player, user=request.user, new_invitation=new_invitation)
            messages.success(request, _("%(nick)s has withdrawn.") % {"nick": player.nick})
        else:
            raise services.Refused(_("Unknown action."))
    except services.Refused as exc:
        messages.error(request, refusal_text(exc))


# --------------------------------------------------------------------------- baskets and draw


def draw_view(request: HttpRequest, slug: str, stage_key: str) -> HttpResponse:
    tournament = _tournament(slug)
    stage = _stage(tournament, stage_key)
    organizer = can_set_up(request.user, tournament)  # GP-8: the curator (committee) or the organizer
    if request.method == "POST":
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not organizer:
            return _forbidden(request, tournament, _("Only the committee (the curator) or the organizer runs the "
                                                     "draw (GP-8)."))
        form = DrawForm(request.POST)
        if not form.is_valid():
            errors_as_messages(request, form)
            return redirect(request.path)
        data = form.cleaned_data
        try:
            if data["action"] == "baskets":
                _set_baskets(stage, data["baskets"])
                messages.success(request, _("The baskets are saved (GP-7)."))
            elif data["action"] == "by_hand":
                services.run_draw(stage, "", user=request.user, by_hand=data["teams"])
                messages.success(request, _("The teams entered by hand are saved (GP-8)."))
            else:
                seed = data["seed"] or services.new_seed()
                services.run_draw(stage, seed, user=request.user)
                messages.success(request, _("The teams are drawn with the seed %(seed)s (GP-8).") % {"seed": seed})
        except services.Refused as exc:
            messages.error(request, refusal_text(exc))
        return redirect(request.path)
    settings = services.settings_of(tournament)
    view = services.roster_of(services.stage_registrations(stage), int(settings["players_per_stage"]))
    entries = list(RosterEntry.objects.filter(team__stage=stage).select_related("team", "player").order_by(
        "team__order", "team__name", "order"))
    drawn = bool(entries)
    baskets: list[list[str]] = []
    problem = view.problem
    try:
        baskets = services.baskets_of(stage, view, settings, drawn)
    except ValueError as exc:
        problem = refusal_text(exc)
    basket_of = {nick: number for number, basket in enumerate(baskets, start=1) for nick in basket}
    teams: list[dict] = []
    for entry in entries:
        if not teams or teams[-1]["team"].pk != entry.team_id:
            teams.append({"team": entry.team, "players": []})
        teams[-1]["players"].append({"nick": entry.player.nick, "basket": basket_of.get(entry.player.nick)})
    seed = stage.seed or default_seed(tournament.slug, stage.key)
    reproduced = None
    if drawn and stage.seed and baskets and all(baskets):
        try:
            reproduced = [sorted(t) for t in draw_teams(baskets, stage.seed)] == [
                sorted(p["nick"] for p in t["players"]) for t in teams]
        except ValueError:
            reproduced = False
    return render(request, "elimination_gp/draw.html", {
        "tournament": tournament, "stage": stage, "organizer": organizer, "baskets": baskets, "teams": teams,
        "drawn": drawn, "seed": seed, "seed_stored": bool(stage.seed), "problem": problem,
        "by_hand": drawn and not stage.seed,
        "reproduced": reproduced, "has_games": Game.objects.filter(stage=stage).exists(),
        "basket_order": settings["basket_order"],
        "example_nick": baskets[0][0] if baskets and baskets[0] else "NICK",
    })


def _set_baskets(stage: Stage, text: str) -> None:
    """GP-7 ``manual``: one ``nick: basket`` per line."""
    if services.is_drawn(stage):
        raise services.Refused(_("The draw has taken place: the baskets are fixed (GP-7)."))
    wanted: dict[str, int] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        nick, sep, number = line.rpartition(":")
        if not sep or not number.strip().isdigit() or not 1 <= int(number) <= 3:
            raise services.Refused(_("Write one “nick: basket” per line, the basket 1, 2 or 3 (GP-7)."))
        wanted[nick.strip()] = int(number)
    registrations = {r.player.nick: r for r in StageRegistration.objects.filter(stage=stage, withdrawn_at__isnull=True)
                     .select_related("player")}
    unknown = sorted(set(wanted) - set(registrations))
    if unknown:
        raise services.Refused(_("Not registered for this stage: %(nicks)s.") % {"nicks": ", ".join(unknown)})
    for nick, number in wanted.items():
        StageRegistration.objects.filter(pk=registrations[nick].pk).update(basket=number)


# --------------------------------------------------------------------------- finalists


def finalists_view(request: HttpRequest, slug: str) -> HttpResponse:
    """GP-16..GP-19: every finalist and why, the stages' vacancies and the committee's suggestions."""
    tournament = _tournament(slug)
    prefix = "details__details__"
    rows = list(StandingsSnapshot.objects.filter(tournament=tournament).values_list(
        "stage_key", f"{prefix}series_finalists", f"{prefix}committee_suggestions", f"{prefix}vacancies",
        f"{prefix}open_places", "computed_at"))
    latest = next((row for row in rows if row[0] == ""), None)
    finalists = (latest[1] if latest else None) or []
    suggestions = (latest[2] if latest else None) or []
    stages = sorted(((key, vacancies or [], open_places or 0) for key, _f, _s, vacancies, open_places, _c in rows
                     if key and key != "final"), key=lambda item: item[0])
    nicks = {f["player"] for f in finalists} | {s["player"] for s in suggestions}
    nicks |= {nick for _k, vacancies, _o in stages for v in vacancies for nick in v.get("tied", [])}
    pks = dict(Player.objects.filter(nick__in=nicks).values_list("nick", "pk")) if nicks else {}
    reasons = {"winning team": _("on the stage's winning team (GP-16)"),
               "extra indicator": _("best by the stage's extra indicator (GP-17)"),
               "committee": _("chosen by the committee (GP-18, GP-19)")}
    return render(request, "elimination_gp/finalists.html", {
        "tournament": tournament,
        "finalists": [{**f, "pk": pks.get(f["player"]), "why": reasons.get(f["reason"], f["reason"])}
                      for f in finalists],
        "suggestions": [{**s, "pk": pks.get(s["player"])} for s in suggestions],
        "stages": [{"key": key, "vacancies": vacancies, "open_places": open_places}
                   for key, vacancies, open_places in stages],
        "computed": latest is not None, "computed_at": latest[5] if latest else None,
        "zone": zone_caption(tournament.timezone),
    })


# --------------------------------------------------------------------------- committee decisions


def _stage_people(stage: Stage) -> tuple[list[str], list[int]]:
    """The stage's players (its teams' rosters and its seats) and its game numbers: all a committee form offers."""
    players = set(RosterEntry.objects.filter(team__stage=stage).values_list("player__nick", flat=True))
    players |= set(Seat.objects.filter(game__stage=stage).values_list("player__nick", flat=True))
    if not players:  # a stage drawn into the tournament's own teams
        players = set(StageRegistration.objects.filter(stage=stage, withdrawn_at__isnull=True).values_list(
            "player__nick", flat=True))
    games = list(Game.objects.filter(stage=stage).order_by("number").values_list("number", flat=True))
    return sorted(players, key=str.casefold), games


def committee_view(request: HttpRequest, slug: str, stage_key: str) -> HttpResponse:
    """The committee's decisions of one stage (GP-16..GP-19, GP-21): fill a vacancy or pick a finalist, order
    tied players, a technical result or a replay; every field offers only the stage's players and games, and every
    decision is written through ``tournaments.commands.record_decision`` as an interchange decision object."""
    tournament = _tournament(slug)
    stage = _stage(tournament, stage_key)
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    if not can_record_decisions(request.user, tournament, stage.key):  # GP-23's commission, GP-18's committee
        return _forbidden(request, tournament, _("Only the stage's judges (its commission) or the committee (the "
                                                 "curator) record this stage's decisions (GP-18, GP-23)."))
    players, games = _stage_people(stage)
    details = (StandingsSnapshot.objects.filter(tournament=tournament, stage_key=stage.key).values_list(
        "details__details", flat=True).first() or {})
    vacancies = [v for v in details.get("vacancies") or [] if isinstance(v, dict)]
    tied = next((list(v.get("tied") or []) for v in vacancies if v.get("tied")), [])
    tied = [p for p in tied if p in players]
    chosen = ActionForm(request.POST, actions=("qualify", "tie_break", "game"))
    action = chosen.cleaned_data["action"] if request.method == "POST" and chosen.is_valid() else None
    qualify = QualifyForm(request.POST if action == "qualify" else None, players=players)
    tie = TieBreakForm(request.POST if action == "tie_break" else None, players=players, tied=tied)
    game_form = GameDecisionForm(request.POST if action == "game" else None, games=games)
    form = {"qualify": qualify, "tie_break": tie, "game": game_form}.get(action or "")
    if form is not None and form.is_valid():
        data = form.cleaned_data
        if action == "qualify":
            rule = "GP-18" if data["scope"] == "vacancy" else "GP-19"
            document = {"kind": "qualify", "player": data["player"], "reason": f"{data['reason']} ({rule})"}
            if data["scope"] == "vacancy":
                document["stage"] = stage.key
        elif action == "tie_break":
            document = {"kind": "tie_break", "stage": stage.key, "order": tie.order()}
            if data.get("reason"):
                document["reason"] = data["reason"]
        else:
            document = {"kind": data["kind"], "stage": stage.key, "game": int(data["game"])}
            document.update({key: data[key] for key in ("outcome", "code", "text") if data.get(key)})
        try:
            decision = record_decision(request.user, {"tournament": tournament.slug, **document})
        except Refused as exc:
            for problem in exc.problems:
                messages.error(request, problem.message)
        else:
            messages.success(request, _("Decision #%(number)s recorded; the standings are being recomputed.")
                             % {"number": decision.index})
            return redirect("gp-committee", slug=tournament.slug, stage_key=stage.key)
    elif form is not None:
        errors_as_messages(request, form)
    decisions = list(Decision.objects.filter(tournament=tournament, stage=stage, replacement_for=None).select_related(
        "player", "game").order_by("-index")[:50])
    return render(request, "elimination_gp/committee.html", {
        "tournament": tournament, "stage": stage, "qualify": qualify, "tie": tie, "game_form": game_form,
        "vacancies": vacancies, "open_places": details.get("open_places") or 0, "decisions": decisions,
        "players": players, "games": games,
    })
