"""What the ChGK season home adds to the shared pages (``formats.registry``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import Count, Q
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from accounts.permissions import confirmed_player_of
from accounts.zones import zone_of
from formats.chgk_tour_points.examples import EXAMPLES
from formats.chgk_tour_points.rules import RULEBOOK
from formats.chgk_tour_points.services import applications_open, close_played_checklists
from formats.registry import DashboardItem as Item
from formats.registry import FormatHome, Link, is_signed_in
from rulesets.chgk_tour_points import KEY
from rulesets.chgk_tour_points import season as chgk_season
from tournaments.models import Appeal, Question, Tour, Tournament, TournamentStatus

LIMIT = 50


def _may_apply(reader: Any) -> bool:
    """An anonymous reader is asked to sign in on the page; a signed-in one applies with a confirmed player."""
    return not is_signed_in(reader) or confirmed_player_of(reader) is not None


def tournament_links(tournament: Any, user: Any) -> list[Link]:
    """Applications (CHGK-1, CHGK-5), the hosting order (CHGK-7) and the checklists (CHGK-11); while
    applications are open, a captain's way to apply for a team."""
    applications = reverse("chgk-applications", args=[tournament.slug])
    links = [Link(_("Season grid"), reverse("chgk-grid", args=[tournament.slug])),  # CHGK-16
             Link(_("Applications"), applications)]
    if applications_open(tournament):
        links.append(Link(_("Apply for a team"), f"{applications}#apply", allowed=_may_apply))
    return [*links, Link(_("Hosting order"), reverse("chgk-hosting", args=[tournament.slug])),
            Link(_("Checklists"), reverse("chgk-checklists", args=[tournament.slug]))]


CHECKLIST_TEXT = {
    "committee_questions": gettext_lazy("the committee's set of questions to the host"),
    "pack_to_tester": gettext_lazy("the pack with authors and sources to a tester"),
    "answer_sheets": gettext_lazy("answer sheets and the tour table for all teams"),
    "preliminary_results": gettext_lazy("preliminary results announced"),
    "answers_to_jury": gettext_lazy("the teams' answers to the appeal jury's secretary"),
    "final_pack": gettext_lazy("the final electronic pack (answers, comments, authors, sources)"),
    "questions_published": gettext_lazy("the tour's questions published"),
    "verdicts": gettext_lazy("verdicts on the tour's appeals"),
}
# What in the facts shows a checklist item done: "results" (masks or absences entered), "questions" (any
# question of the tour stored), "pack" (every question stored with text, answer, authors and sources),
# "verdicts" (no appeal on the tour pending).
CHECKLIST_EVIDENCE = {
    "committee_questions": ("results", "questions"), "pack_to_tester": ("results", "questions"),
    "answer_sheets": ("results",), "preliminary_results": ("results",), "answers_to_jury": ("results",),
    "final_pack": ("pack",), "questions_published": ("pack",), "verdicts": ("verdicts",),
}



def _checklists(tournament: Tournament, pending: list[Appeal], now: dt.datetime) -> list[Item]:
    tours = list(Tour.objects.filter(stage__tournament=tournament, played_on__isnull=False).annotate(
        mask_count=Count("masks", distinct=True), absent_count=Count("absent", distinct=True)).order_by(
        "number"))
    questions = {row["tour"]: row for row in Question.objects.filter(tour__stage__tournament=tournament).values(
        "tour").annotate(stored=Count("id"), complete=Count("id", filter=~Q(text="") & ~Q(answer="") & ~Q(
            authors="") & ~Q(sources="")))}
    open_tours = {a.tour_id for a in pending if a.tour_id}
    out = []
    for tour in tours:
        stored = questions.get(tour.pk, {"stored": 0, "complete": 0})
        shown = {
            "results": bool(tour.mask_count or tour.absent_count),
            "questions": stored["stored"] > 0,
            "pack": stored["complete"] >= tour.questions,
            "verdicts": tour.pk not in open_tours,
        }
        done = {key for key, evidence in CHECKLIST_EVIDENCE.items() if any(shown[e] for e in evidence)}
        for item in chgk_season.overdue_items(chgk_season.checklist(tour.played_on, tournament.timezone), done,
                                              now):
            out.append(Item("checklists", f"checklist:{tour.number}:{item.key}",
                            _("Tour %(number)s: %(item)s.") % {"number": tour.number,
                                                                "item": CHECKLIST_TEXT.get(item.key, item.text)},
                            reverse("chgk-checklists", args=[tournament.slug]), rule=item.rule, due=item.due,
                            overdue=True))
    return out


def dashboard_items(tournament: Any, now: dt.datetime, pending: list) -> list[Item]:
    if tournament.status == TournamentStatus.FINISHED:
        return []
    return _checklists(tournament, pending, now)


def _tours(entries, now, viewer_zone) -> list[dict]:
    chgk = [e for e in entries if e.left_at is None and e.team.tournament.ruleset == KEY]
    if not chgk:
        return []
    today = now.astimezone(zone_of(viewer_zone)).date()
    hosts = {e.team_id for e in chgk}
    tours = Tour.objects.filter(stage__tournament__in={e.team.tournament_id for e in chgk},
                                played_on__gte=today).select_related("host", "stage__tournament").order_by(
        "played_on", "number")[:LIMIT]
    return [{"tour": t, "tournament": t.stage.tournament, "hosting": t.host_id in hosts} for t in tours]


def player_items(player: Any, entries: list, now: dt.datetime, viewer_zone: str) -> dict[str, Any]:
    return {"tours": _tours(entries, now, viewer_zone)}


def archive(tournament: Any) -> None:
    """CHGK-11: a season entered after it was played has done its tours' checklists."""
    close_played_checklists(tournament)


HOME = FormatHome(key=KEY, urls="formats.chgk_tour_points.urls", tournament_links=tournament_links,
                  label=gettext_lazy("ChGK: points for places in tours"), examples=EXAMPLES,
                  stage_names={"season": pgettext_lazy("stage", "season")},
                  dashboard_items=dashboard_items, player_items=player_items, rulebook=RULEBOOK, archive=archive)
