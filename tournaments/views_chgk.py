"""ChGK season setup pages: applications and the admission queue (CHGK-1, CHGK-5), the hosting draw
(CHGK-7), a tour's questions (CHGK-8, CHGK-9) and the checklists (CHGK-11).

Everybody reads; only the tournament's organizers write
(``accounts.permissions.can_enter_results``). Every page runs a fixed number
of queries whatever the season's size (``tests/test_chgk_setup.py``).
"""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from accounts.permissions import can_enter_results
from rulesets.chgk_tour_points import season as rules
from rulesets.facts import LEAGUES
from tournaments import chgk_setup as services
from tournaments.models import Question, Tournament
from tournaments.views_common import zone_caption

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
    messages.error(request, _("Only the tournament's organizers change the season's setup."))
    return redirect(request.path)


def _limit(raw: str | None) -> int | None:
    raw = (raw or "").strip()
    return int(raw) if raw.isdigit() and int(raw) > 0 else None


# --------------------------------------------------------------------------- applications (CHGK-1, CHGK-5)


def applications_view(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = _tournament(slug)
    organizer = can_enter_results(request.user, tournament)
    if request.method == "POST":
        if not organizer:
            return _forbidden(request)
        post = request.POST
        try:
            if post.get("action") == "admit":
                limit = _limit(post.get("limit"))
                teams = services.admit(tournament, limit)
                messages.success(request, ngettext("%(count)s team admitted (CHGK-5).", "%(count)s teams admitted (CHGK-5).",
                                                   len(teams)) % {"count": len(teams)})
                return redirect(f"{request.path}?limit={limit or ''}")
            captain = post.get("captain", "").strip()
            players = services.split_names(post.get("players", ""))
            if captain and captain not in players:
                players.insert(0, captain)
            services.file_application(
                tournament, team_name=post.get("team_name", ""), captain=captain, players=players,
                home_university=bool(post.get("home_university")), league=post.get("league", "none"),
                played_tournaments=post.get("played_tournaments", ""))
            messages.success(request, _("The application is recorded (CHGK-1)."))
        except services.Refused as exc:
            _refused(request, exc)
            return render(request, "tournaments/chgk_applications.html",
                          _applications_context(request, tournament, organizer, form=post), status=400)
        return redirect(request.path)
    return render(request, "tournaments/chgk_applications.html",
                  _applications_context(request, tournament, organizer))


def _applications_context(request: HttpRequest, tournament: Tournament, organizer: bool, form=None) -> dict:
    limit = _limit(request.GET.get("limit"))
    rows = [(row, LEAGUE_LABELS.get(row.application.league, row.application.league))
            for row in services.queue(tournament, limit)]
    return {"tournament": tournament, "organizer": organizer, "rows": rows,
            "limit": limit, "deadline": tournament.registration_deadline, "form": form or {},
            "leagues": [(k, LEAGUE_LABELS[k]) for k in LEAGUES], "zone": zone_caption(tournament.timezone)}


# --------------------------------------------------------------------------- hosting draw (CHGK-7)


def hosting_view(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = _tournament(slug)
    organizer = can_enter_results(request.user, tournament)
    if request.method == "POST":
        if not organizer:
            return _forbidden(request)
        post = request.POST
        try:
            action = post.get("action")
            if action == "wish":
                team = next((t for t in services.season_teams(tournament) if str(t.pk) == post.get("team")), None)
                if team is None:
                    raise services.Refused([_("Choose a team of the season.")])
                services.save_wish(team, post.get("prefers", ""), post.get("cannot", ""))
                messages.success(request, _("The wish of %(team)s is saved (CHGK-7).") % {"team": team.name})
            elif action == "by_hand":
                services.schedule(tournament, services.parse_order(post.get("order", "")),
                                  services.parse_dates(post.get("dates", "")))
                messages.success(request, _("The hosting order fixed by hand is saved (CHGK-7)."))
            else:
                seed = post.get("seed", "").strip() or services.new_seed()
                services.draw(tournament, seed, services.parse_dates(post.get("dates", "")))
                messages.success(request, _("The hosting order is drawn with the seed %(seed)s (CHGK-7).")
                                 % {"seed": seed})
        except services.Refused as exc:
            _refused(request, exc)
        return redirect(request.path)
    stage = services.season_stage(tournament, create=False)
    teams = services.season_teams(tournament)
    tours = list(stage.tours.select_related("host").order_by("number")) if stage.pk else []
    return render(request, "tournaments/chgk_hosting.html", {
        "tournament": tournament, "organizer": organizer, "stage": stage, "teams": teams, "tours": tours,
        "wishes": [(t, getattr(t, "hosting_wish", None)) for t in teams],
        "order_text": "\n".join(t.host.name for t in tours if t.host),
        "dates_text": "\n".join(t.played_on.isoformat() for t in tours if t.played_on),
    })


# --------------------------------------------------------------------------- a tour's questions (CHGK-8, CHGK-9)


def _posted_questions(post, count: int) -> list[dict]:
    questions = []
    for number in range(1, count + 1):
        row = {name: post.get(f"q{number}-{name}", "").strip() for name in services.QUESTION_FIELDS}
        row["number"] = number
        row["by_host"] = post.get(f"q{number}-origin", "host") == "host"
        questions.append(row)
    return questions


def questions_view(request: HttpRequest, slug: str, number: int) -> HttpResponse:
    tournament = _tournament(slug)
    tour = services.tour_of(tournament, number)
    if tour is None:
        raise Http404("no such tour")
    organizer = can_enter_results(request.user, tournament)
    rows = None
    status = 200
    if request.method == "POST":
        if not organizer:
            return _forbidden(request)
        rows = _posted_questions(request.POST, tour.questions)
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
    return render(request, "tournaments/chgk_questions.html", {
        "tournament": tournament, "tour": tour, "organizer": organizer, "rows": rows,
        "public": organizer or services.questions_public(tournament, tour),
        "host_written": sum(1 for r in rows if r["by_host"]), "low": low, "high": high,
        "league": LEAGUE_LABELS.get(tour.host.league, "") if tour.host else "",
    }, status=status)


# --------------------------------------------------------------------------- checklists (CHGK-11)


def checklists_view(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = _tournament(slug)
    organizer = can_enter_results(request.user, tournament)
    if request.method == "POST":
        if not organizer:
            return _forbidden(request)
        tour = services.tour_of(tournament, _limit(request.POST.get("tour")) or 0)
        try:
            if tour is None:
                raise services.Refused([_("Choose a tour of the season.")])
            services.mark_done(tour, request.POST.get("key", ""), request.POST.get("done") == "1")
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
    return render(request, "tournaments/chgk_checklists.html", {
        "tournament": tournament, "organizer": organizer, "tours": tours, "now": now,
        "overdue_count": sum(1 for r in rows if r.overdue), "zone": zone_caption(tournament.timezone),
    })
