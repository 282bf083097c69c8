"""ChGK season setup pages: applications and the admission queue (CHGK-1, CHGK-5), the hosting draw
(CHGK-7), a tour's questions (CHGK-8, CHGK-9) and the checklists (CHGK-11).

Everybody reads; only the tournament's organizers and its committee (the curator) write
(``accounts.permissions.can_set_up``; a ChGK season has no judges), except that a signed-in player
applies for a team as its captain, and the organizing committee
(``services.may_decide``) admits or refuses applications. Every page runs a fixed number
of queries whatever the season's size (``tests/test_chgk_setup.py``).
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.views import redirect_to_login
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy
from django.views.decorators.http import require_http_methods

from accounts.forms import ActionForm, errors_as_messages
from accounts.permissions import can_manage_team, can_set_up, confirmed_player_of
from accounts.zones import zone_caption
from formats.chgk_tour_points import captains, services
from formats.chgk_tour_points.forms import (
    AddPlayersForm,
    AdmitForm,
    ApplicationForm,
    CaptainApplicationForm,
    CaptainForm,
    ChecklistForm,
    DecisionForm,
    DelegationForm,
    HostingForm,
    LineUpForm,
    PackForm,
    ReplaceForm,
)
from formats.chgk_tour_points.models import ApplicationStatus
from rulesets.chgk_tour_points import season as rules
from rulesets.errors import NotFound
from rulesets.facts import LEAGUES
from tournaments.models import Question, Team, Tournament, TournamentStatus

RULESET = "chgk_tour_points"
LEAGUE_LABELS = {"none": pgettext_lazy("league", "none"), "second": pgettext_lazy("league", "second"),
                 "first": pgettext_lazy("league", "first"), "higher": pgettext_lazy("league", "higher")}
CHECKLIST_LABELS = {
    "committee_questions": gettext_lazy("The committee's set of questions to the host"),
    "pack_to_tester": gettext_lazy("The pack with authors and sources to a tester"),
    "answer_sheets": gettext_lazy("Answer sheets and the tour table for all teams"),
    "preliminary_results": gettext_lazy("Preliminary results announced"),
    "answers_to_jury": gettext_lazy("The teams' answers to the appeal jury's secretary"),
    "final_pack": gettext_lazy("The final electronic pack (answers, comments, authors, sources)"),
    "questions_published": gettext_lazy("The tour's questions published"),
    "verdicts": gettext_lazy("Verdicts on the tour's appeals"),
}
OWNER_LABELS = {"committee": gettext_lazy("committee"), "host": gettext_lazy("host"),
                "appeal jury": gettext_lazy("appeal jury")}


def _tournament(slug: str) -> Tournament:
    tournament = get_object_or_404(Tournament, slug=slug)
    if tournament.ruleset != RULESET:
        raise Http404("not a ChGK season")
    return tournament


def _refused(request: HttpRequest, exc: services.Refused) -> None:
    for problem in exc.problems:
        messages.error(request, _("Refused: %(problem)s") % {"problem": problem})


def _forbidden(request: HttpRequest) -> HttpResponse:
    """A refused write: the login page for an anonymous visitor, else the site's refusal page naming the rule."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    return _not_captain(request, _("Only the tournament's organizers and its committee (the curator) change the "
                                   "season's setup (CHGK-5, CHGK-7..CHGK-11)."))


def _limit(raw: str | None) -> int | None:
    raw = (raw or "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else None


# --------------------------------------------------------------------------- applications (CHGK-1, CHGK-5)


APPLICATION_ACTIONS = ("apply", "admit", "captain_apply", "admit_one", "refuse")
APPLICATIONS_TEMPLATE = "chgk_tour_points/applications.html"


def applications_view(request: HttpRequest, slug: str) -> HttpResponse:
    """The queue (CHGK-5) for everybody; a captain's application and its state (CHGK-1); the
    organizers record paper applications, admit the queue or one application, refuse one with a reason."""
    tournament = _tournament(slug)
    organizer = can_set_up(request.user, tournament)
    if request.method == "POST":
        chosen = ActionForm(request.POST, actions=APPLICATION_ACTIONS, default="apply")
        action = chosen.cleaned_data["action"] if chosen.is_valid() else ""
        if action == "captain_apply":
            return _captain_apply(request, tournament, organizer)
        if action in ("admit_one", "refuse", "admit") and not services.may_decide(request.user, tournament):
            return _not_captain(request, services.decide_refusal(tournament).message)
        if action in ("admit_one", "refuse"):
            return _decide(request, tournament, organizer, action)
        if not organizer:
            return _forbidden(request)
        if not action:
            errors_as_messages(request, chosen)
            return redirect(request.path)
        admit = action == "admit"
        form = AdmitForm(request.POST) if admit else ApplicationForm(request.POST)
        if not form.is_valid():
            if admit:
                errors_as_messages(request, form)
                return redirect(request.path)
            return render(request, APPLICATIONS_TEMPLATE,
                          _applications_context(request, tournament, organizer, form=form), status=400)
        data = form.cleaned_data
        try:
            if admit:
                teams = services.admit(tournament, data["limit"], user=request.user)
                messages.success(request, ngettext("%(count)s team admitted (CHGK-5).", "%(count)s teams admitted (CHGK-5).",
                                                   len(teams)) % {"count": len(teams)})
                return redirect(f"{request.path}?limit={data['limit'] or ''}")
            captain, players = data["captain"], data["players"]
            if captain and captain not in players:
                players.insert(0, captain)
            services.file_application(
                tournament, team_name=data["team_name"], captain=captain, players=players,
                home_university=data["home_university"], league=data["league"],
                played_tournaments=data["played_tournaments"], user=request.user)
            messages.success(request, _("The application is recorded (CHGK-1)."))
        except services.Refused as exc:
            _refused(request, exc)
            return render(request, APPLICATIONS_TEMPLATE,
                          _applications_context(request, tournament, organizer, form=None if admit else form),
                          status=400)
        return redirect(request.path)
    return render(request, APPLICATIONS_TEMPLATE, _applications_context(request, tournament, organizer))


def _captain_apply(request: HttpRequest, tournament: Tournament, organizer: bool) -> HttpResponse:
    """CHGK-1: the signed-in player applies for a team and is its captain."""
    if not request.user.is_authenticated:
        return redirect_to_login(request.get_full_path())
    form = CaptainApplicationForm(request.POST)
    if not form.is_valid():
        return render(request, APPLICATIONS_TEMPLATE,
                      _applications_context(request, tournament, organizer, captain_form=form), status=400)
    data = form.cleaned_data
    try:
        application = services.apply_as_captain(
            request.user, tournament, team_name=data["team_name"], players=data["players"],
            home_university=data["home_university"], league=data["league"],
            played_tournaments=data["played_tournaments"])
    except services.ApplicationNotAllowed as exc:
        return _not_captain(request, exc.message)
    except services.Refused as exc:
        _refused(request, exc)
        return render(request, APPLICATIONS_TEMPLATE,
                      _applications_context(request, tournament, organizer, captain_form=form), status=400)
    messages.success(request, _("The application of %(team)s is filed; you are its captain. The organizers "
                                "admit or refuse it (CHGK-1, CHGK-5).") % {"team": application.team_name})
    return redirect(f"{request.path}#mine")


def _decide(request: HttpRequest, tournament: Tournament, organizer: bool, action: str) -> HttpResponse:
    """CHGK-5: the organizers admit one application or refuse it with a reason."""
    form = DecisionForm(request.POST)
    if not form.is_valid():
        errors_as_messages(request, form)
        return redirect(request.path)
    data = form.cleaned_data
    try:
        if action == "admit_one":
            team = services.admit_application(request.user, tournament, data["application"], data["limit"])
            messages.success(request, _("%(team)s is admitted (CHGK-5).") % {"team": team.name})
        else:
            refused = services.refuse_application(request.user, tournament, data["application"], data["reason"])
            messages.success(request, _("The application of %(team)s is refused.") % {"team": refused.team_name})
    except services.ApplicationNotAllowed as exc:
        return _not_captain(request, exc.message)
    except NotFound as exc:
        raise Http404(exc.message) from exc
    except services.Refused as exc:
        _refused(request, exc)
        return render(request, APPLICATIONS_TEMPLATE,
                      _applications_context(request, tournament, organizer, limit=data["limit"]),
                      status=409 if isinstance(exc, services.ApplicationDecided) else 400)
    return redirect(f"{request.path}?limit={data['limit'] or ''}")


def _applications_context(request: HttpRequest, tournament: Tournament, organizer: bool, form=None,
                          captain_form=None, limit: int | None = None) -> dict:
    limit = limit or _limit(request.GET.get("limit"))
    applications = services.season_applications(tournament)
    rows = [(row, LEAGUE_LABELS.get(row.application.league, row.application.league))
            for row in services.queue(tournament, limit, applications)]
    deciding = services.may_decide(request.user, tournament)
    return {"tournament": tournament, "organizer": organizer, "deciding": deciding, "rows": rows,
            "limit": limit, "deadline": tournament.registration_deadline, "form": form or ApplicationForm(),
            "leagues": [(k, LEAGUE_LABELS[k]) for k in LEAGUES], "zone": zone_caption(tournament.timezone),
            "player": confirmed_player_of(request.user), "captain_form": captain_form or CaptainApplicationForm(),
            "applications_open": services.applications_open(tournament),
            "registration": tournament.status == TournamentStatus.REGISTRATION,
            "mine": services.applications_of(request.user, tournament, applications),
            "refused": [a for a in applications if a.status == ApplicationStatus.REFUSED] if deciding else []}


# --------------------------------------------------------------------------- hosting draw (CHGK-7)


def hosting_view(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = _tournament(slug)
    organizer = can_set_up(request.user, tournament)
    if request.method == "POST":
        if not organizer:
            return _forbidden(request)
        form = HostingForm(request.POST)
        if not form.is_valid():
            errors_as_messages(request, form)
            return redirect(request.path)
        data = form.cleaned_data
        try:
            action = data["action"]
            if action == "wish":
                team = next((t for t in services.season_teams(tournament) if t.pk == data["team"]), None)
                if team is None:
                    raise services.Refused([_("Choose a team of the season.")])
                services.save_wish(team, data["prefers"], data["cannot"])
                messages.success(request, _("The wish of %(team)s is saved (CHGK-7).") % {"team": team.name})
            elif action == "by_hand":
                services.schedule(tournament, services.parse_order(data["order"]), services.parse_dates(data["dates"]))
                messages.success(request, _("The hosting order fixed by hand is saved (CHGK-7)."))
            else:
                seed = data["seed"] or services.new_seed()
                services.draw(tournament, seed, services.parse_dates(data["dates"]))
                messages.success(request, _("The hosting order is drawn with the seed %(seed)s (CHGK-7).")
                                 % {"seed": seed})
        except services.Refused as exc:
            _refused(request, exc)
        return redirect(request.path)
    stage = services.season_stage(tournament, create=False)
    teams = services.season_teams(tournament)
    tours = list(stage.tours.select_related("host").order_by("number")) if stage.pk else []
    return render(request, "chgk_tour_points/hosting.html", {
        "tournament": tournament, "organizer": organizer, "stage": stage, "teams": teams, "tours": tours,
        "wishes": [(t, getattr(t, "hosting_wish", None)) for t in teams],
        "order_text": "\n".join(t.host.name for t in tours if t.host),
        "dates_text": "\n".join(t.played_on.isoformat() for t in tours if t.played_on),
    })


# --------------------------------------------------------------------------- a tour's questions (CHGK-8, CHGK-9)


def questions_view(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    tournament = _tournament(slug)
    tour = services.tour_of(tournament, number)
    if tour is None:
        raise Http404("no such tour")
    organizer = can_set_up(request.user, tournament)
    rows = None
    status = 200
    if request.method == "POST":
        if not organizer:
            return _forbidden(request)
        form = PackForm(request.POST, count=tour.questions)
        rows = form.rows()
        if not form.is_valid():
            messages.error(request, _("Correct the questions marked below."))
            status = 400
        else:
            try:
                services.save_pack(tournament, tour, rows)
                messages.success(request, _("The pack of tour %(number)s is saved (CHGK-8, CHGK-9).")
                                 % {"number": tour.number})
                return redirect(request.path)
            except services.Refused as exc:
                _refused(request, exc)
                status = 400
    if rows is None:
        stored = {q.number: q for q in Question.objects.filter(tour=tour)}
        rows = []
        for n in range(1, tour.questions + 1):
            q = stored.get(n)
            row = {name: getattr(q, name, "") for name in services.QUESTION_FIELDS}
            row.update(number=n, by_host=q.by_host if q else True, stored=q is not None)
            rows.append(row)
    low, high = rules.host_written_range(tour.host.league) if tour.host else (None, None)
    return render(request, "chgk_tour_points/questions.html", {
        "tournament": tournament, "tour": tour, "organizer": organizer, "rows": rows,
        "public": organizer or services.questions_public(tournament, tour),
        "host_written": sum(1 for r in rows if r["by_host"]), "low": low, "high": high,
        "league": LEAGUE_LABELS.get(tour.host.league, "") if tour.host else "",
    }, status=status)


# --------------------------------------------------------------------------- checklists (CHGK-11)


def checklists_view(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = _tournament(slug)
    organizer = can_set_up(request.user, tournament)
    if request.method == "POST":
        if not organizer:
            return _forbidden(request)
        form = ChecklistForm(request.POST)
        if not form.is_valid():
            errors_as_messages(request, form)
            return redirect(request.path)
        tour = services.tour_of(tournament, form.cleaned_data["tour"])
        try:
            if tour is None:
                raise services.Refused([_("Choose a tour of the season.")])
            services.mark_done(tour, form.cleaned_data["key"], form.cleaned_data["done"])
        except services.Refused as exc:
            _refused(request, exc)
        return redirect(request.path)
    now = timezone.now()
    rows = services.checklists(tournament, now)
    tours: list[dict] = []
    for row in rows:
        if not tours or tours[-1]["tour"].pk != row.tour.pk:
            tours.append({"tour": row.tour, "items": []})
        tours[-1]["items"].append({"row": row, "label": CHECKLIST_LABELS.get(row.item.key, row.item.text),
                                   "owner": OWNER_LABELS.get(row.item.owner, row.item.owner)})
    return render(request, "chgk_tour_points/checklists.html", {
        "tournament": tournament, "organizer": organizer, "tours": tours, "now": now,
        "overdue_count": sum(1 for r in rows if r.overdue), "zone": zone_caption(tournament.timezone),
    })


# ---------------------------------------------------------------- teams

@login_required
@require_http_methods(["GET", "POST"])
def team_manage_view(request: HttpRequest, pk: int) -> HttpResponse:
    team = get_object_or_404(Team.objects.select_related("tournament", "captain", "stage"), pk=pk)
    if not can_manage_team(request.user, team):
        return _not_captain(request, _("Only the captain of %(team)s manages it.") % {"team": team.name})
    chosen = ActionForm(request.POST, actions=("add", "replace", "captain", "line_up", "delegate"))
    action = chosen.cleaned_data["action"] if request.method == "POST" and chosen.is_valid() else ""
    if request.method == "POST" and not action:
        errors_as_messages(request, chosen)
    state = captains.roster_state(team)
    add_form = AddPlayersForm(request.POST if action == "add" else None, prefix="add")
    replace_form = ReplaceForm(request.POST if action == "replace" else None, prefix="replace",
                               entries=state.current)
    captain_form = CaptainForm(request.POST if action == "captain" else None, prefix="captain",
                               entries=state.current, captain_id=team.captain_id)
    is_chgk = team.tournament.ruleset == captains.CHGK
    delegate_form = DelegationForm(request.POST if action == "delegate" else None, prefix="delegate",
                                   entries=state.current, captain_id=team.captain_id)
    tour = captains.next_tour(team) if is_chgk else None
    line_ups = captains.stored_line_ups(team) if is_chgk else []
    current_line_up = next((lu for lu in line_ups if tour is not None and lu.tour_id == tour.pk), None)
    line_up_form = LineUpForm(request.POST if action == "line_up" else None, prefix="line_up", initial={
        "line_up": "\n\n".join("\n".join(seg) for seg in current_line_up.segments) if current_line_up else ""})
    problems: list[str] = []
    line_up_checked = False
    try:
        if action == "add" and add_form.is_valid():
            added = captains.add_players(request.user, team, add_form.cleaned_data["names"])
            messages.success(request, _("Added: %(names)s.") % {"names": ", ".join(e.player.nick for e in added)})
            return redirect("team-manage", pk=team.pk)
        if action == "replace" and replace_form.is_valid():
            entry = captains.replace_player(request.user, team, replace_form.cleaned_data["old"],
                                            replace_form.cleaned_data["new"])
            messages.success(request, _("%(name)s joins the roster as a replacement.") % {"name": entry.player.nick})
            return redirect("team-manage", pk=team.pk)
        if action == "captain" and captain_form.is_valid():
            team = captains.hand_over_captaincy(request.user, team, captain_form.cleaned_data["player"])
            messages.success(request, _("%(name)s is the captain now.") % {"name": team.captain.nick})
            if not can_manage_team(request.user, team):
                return redirect("team", slug=team.tournament.slug, pk=team.pk)
            return redirect("team-manage", pk=team.pk)
        if action == "delegate" and is_chgk and delegate_form.is_valid():
            data = delegate_form.cleaned_data
            delegation = captains.delegate_filing(request.user, team, data["player"], data["starts_at"],
                                                  data["ends_at"])
            messages.success(request, _("%(name)s may file the team's appeals in that period (CHGK-20).")
                             % {"name": delegation.player.nick})
            return redirect("team-manage", pk=team.pk)
        if action == "delegate" and delegate_form.errors:
            problems = [str(e) for errors in delegate_form.errors.values() for e in errors]
        if action == "line_up" and line_up_form.is_valid() and tour is None:
            problems = captains.check_line_up(team, line_up_form.cleaned_data["line_up"])
            line_up_checked = True
        elif action == "line_up" and line_up_form.is_valid():
            stored = captains.store_line_up(request.user, team, line_up_form.cleaned_data["line_up"])
            messages.success(request, _("The line-up for tour %(number)s is stored (CHGK-4).") % {
                "number": stored.tour.number})
            return redirect("team-manage", pk=team.pk)
    except captains.RosterRefused as exc:
        problems = exc.problems
    return render(request, "chgk_tour_points/team_manage.html", {
        "team": team, "tournament": team.tournament, "state": state,
        "is_chgk": is_chgk, "next_tour": tour, "line_ups": line_ups, "current_line_up": current_line_up,
        "line_up_refused": bool(problems) and action == "line_up" and not line_up_checked,
        "add_form": add_form, "replace_form": replace_form, "captain_form": captain_form,
        "line_up_form": line_up_form, "problems": problems, "line_up_checked": line_up_checked,
        "delegate_form": delegate_form, "delegations": captains.delegations_of(team) if is_chgk else [],
        "left": [e for e in state.entries if e.left_at is not None],
    }, status=400 if problems and not line_up_checked or request.method == "POST" and not action else 200)


def _not_captain(request: HttpRequest, text: str) -> HttpResponse:
    return render(request, "accounts/forbidden.html", {"text": text}, status=403)
