"""The organizer's dashboard: what in one tournament needs a person now, each with where to fix it (issue 10).

Every item is read from stored facts and the stored standings snapshots
(never a recompute), with a fixed number of queries whatever the size of the
tournament:

- ``games``: games past their ``scheduled_at`` still ``scheduled`` (no result);
- ``appeals``: pending appeals, the earliest verdict due first (CHGK-18; the
  Mafia rulesets set no verdict date, those come last by filing time);
- ``checklists``: ChGK checklist items overdue (CHGK-11, CHGK-18) of a
  tournament not finished. The portal keeps no tick list, so an item counts
  as done when the facts show it (see ``CHECKLIST_EVIDENCE``);
- ``eligibility``: FL-3 problems of the family league rosters (banned
  players, blacklists, players outside the team's family);
- ``ties``: ties the rules leave to a committee, as the rulesets put them in
  the snapshot details: FL-11 ``cut_ties`` (once the stage is complete, i.e.
  the ruleset wrote its FL-11 note), GP-16/GP-17 ``vacancies`` with open
  finalist places (GP-18);
- ``schedules``: class_balanced stages with games to play whose schedule is
  not published (``Stage.published_at`` empty, CB-2);
- ``prizes``: awards with money of final standings not yet marked paid
  (``PrizePayment``, GP-22, FL-20), linking to the tournament's prizes page.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from dataclasses import dataclass
from urllib.parse import urlencode

from django.db.models import Count, Min, Q
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from accounts.models import Blacklist
from appeals.models import Appeal
from appeals.services import verdict_due
from rulesets.chgk_tour_points import season as chgk_season
from rulesets.facts import Player as FactPlayer
from rulesets.family_league.entry import BlacklistEntry, eligibility_problems
from scoring.loader import load_facts
from scoring.models import StandingsSnapshot
from tournaments.models import (
    Game,
    GameStatus,
    Participant,
    Question,
    RosterEntry,
    Stage,
    Team,
    Tour,
    Tournament,
    TournamentStatus,
)

LIMIT = 100
SECTIONS = (
    ("games", gettext_lazy("Games past their time without a result")),
    ("appeals", gettext_lazy("Pending appeals")),
    ("checklists", gettext_lazy("Checklist items overdue")),
    ("eligibility", gettext_lazy("Eligibility problems")),
    ("ties", gettext_lazy("Ties waiting for a committee decision")),
    ("schedules", gettext_lazy("Schedules not published")),
    ("prizes", gettext_lazy("Prizes to pay")),
)
APPEAL_RULE = {"chgk_tour_points": "CHGK-18", "elimination_gp": "GP-23", "family_league": "FL-19",
               "class_balanced": "CB-17"}
PRIZE_RULE = {"elimination_gp": "GP-22", "family_league": "FL-20"}
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


@dataclass
class Item:
    section: str
    key: str
    text: str
    url: str
    rule: str = ""
    due: dt.datetime | None = None
    overdue: bool = False


def admin_url(name: str, *args, **query) -> str:
    url = reverse(f"admin:{name}", args=args)
    return f"{url}?{urlencode(query)}" if query else url


def attention_items(tournament: Tournament, now: dt.datetime) -> list[Item]:
    items = _games(tournament, now)
    pending = list(Appeal.objects.filter(tournament=tournament, verdict__isnull=True).select_related(
        "tour__stage", "decision", "team").order_by("filed_at", "pk")[:LIMIT])
    facts = load_facts(tournament) if any(a.tour_id for a in pending) else None
    items += _appeals(tournament, pending, facts, now)
    if tournament.ruleset == "chgk_tour_points" and tournament.status != TournamentStatus.FINISHED:
        items += _checklists(tournament, pending, now)
    if tournament.ruleset == "family_league":
        items += _eligibility(tournament)
    snapshots = _snapshots(tournament)
    items += _ties(tournament, snapshots)
    if tournament.ruleset == "class_balanced":
        items += _schedules(tournament)
    items += _prizes(tournament, snapshots)
    return items


def sections(items: list[Item]) -> list[dict]:
    return [{"key": key, "label": label, "items": [i for i in items if i.section == key]} for key, label in SECTIONS]


def _games(tournament: Tournament, now: dt.datetime) -> list[Item]:
    games = Game.objects.filter(stage__tournament=tournament, status=GameStatus.SCHEDULED,
                                scheduled_at__lt=now).select_related("stage").order_by("scheduled_at", "pk")[:LIMIT]
    return [Item("games", f"game:{g.stage.key}:{g.number}",
                 _("Game %(number)s (%(stage)s) was scheduled and has no result yet.")
                 % {"number": g.number, "stage": g.stage.key},
                 admin_url("tournaments_game_change", g.pk), due=g.scheduled_at, overdue=True) for g in games]


def _appeals(tournament: Tournament, pending: list[Appeal], facts, now: dt.datetime) -> list[Item]:
    rows = []
    for appeal in pending:
        due = verdict_due(tournament, appeal, facts) if appeal.tour_id else None
        if appeal.tour_id:
            text = _("Appeal no. %(order)s: tour %(tour)s, question %(question)s (%(kind)s).") % {
                "order": appeal.order, "tour": appeal.tour.number, "question": appeal.question,
                "kind": appeal.get_kind_display()}
        else:
            text = _("Appeal no. %(order)s against decision %(decision)s.") % {
                "order": appeal.order, "decision": appeal.decision.index if appeal.decision else "-"}
        rows.append((due is None, due or appeal.filed_at, appeal.filed_at, Item(
            "appeals", f"appeal:{appeal.pk}", text, reverse("appeal-verdict", args=[appeal.pk]),
            rule=APPEAL_RULE.get(tournament.ruleset, ""), due=due, overdue=due is not None and now > due)))
    rows.sort(key=lambda r: r[:3])
    return [r[3] for r in rows]


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
                            admin_url("tournaments_tour_change", tour.pk), rule=item.rule, due=item.due,
                            overdue=True))
    return out


ELIGIBILITY_TEXT = {
    "membership": gettext_lazy("%(player)s (%(team)s) is not a member of the team's family."),
    "banned": gettext_lazy("%(player)s (%(team)s) is banned from official tournaments."),
    "blacklist": gettext_lazy("%(player)s (%(team)s) and %(other)s are on a blacklist together."),
}


def _eligibility(tournament: Tournament) -> list[Item]:
    """FL-3 as the facts stand: every current roster player's family, ban and blacklists."""
    zone = zoneinfo.ZoneInfo(tournament.timezone)
    teams = {name: (pk, family) for pk, name, family in Team.objects.filter(
        tournament=tournament, stage__isnull=True).values_list("pk", "name", "family__name")}
    rosters: dict[str, list[str]] = {name: [] for name in teams}
    for team, nick in RosterEntry.objects.filter(team__tournament=tournament, team__stage__isnull=True,
                                                 left_at__isnull=True).order_by("order", "pk").values_list(
            "team__name", "player__nick"):
        rosters[team].append(nick)
    players = [FactPlayer(nick=nick, family=family, banned=banned) for nick, family, banned in
               Participant.objects.filter(tournament=tournament).values_list("player__nick", "family__name",
                                                                             "banned")]
    start = Game.objects.filter(stage__tournament=tournament).aggregate(m=Min("scheduled_at"))["m"]
    blacklist = [BlacklistEntry(owner, blocked, dt.datetime.combine(since, dt.time(0, 0), tzinfo=zone)
                                if since else None)
                 for owner, blocked, since in Blacklist.objects.filter(
                     owner__participations__tournament=tournament,
                     blocked__participations__tournament=tournament).values_list(
                     "owner__nick", "blocked__nick", "since")]
    families = {name: family or name for name, (_pk, family) in teams.items()}
    warnings = eligibility_problems(players, families, blacklist, start, rosters)
    return [Item("eligibility", f"eligibility:{w.team}:{w.player}:{w.reason}",
                 ELIGIBILITY_TEXT[w.reason] % {"player": w.player, "team": w.team, "other": w.other or ""},
                 admin_url("tournaments_team_change", teams[w.team][0]), rule="FL-3")
            for w in warnings[:LIMIT]]


def _snapshots(tournament: Tournament) -> list[dict]:
    """The stored standings, one per stage (the "latest" copy only when no stage snapshot has its stage)."""
    rows = list(StandingsSnapshot.objects.filter(tournament=tournament).values("stage_key", "export", "details"))
    staged = {row["stage_key"] for row in rows if row["stage_key"]}
    return [row for row in rows if row["stage_key"] or (row["export"] or {}).get("stage") not in staged]


def _decision_url(tournament: Tournament, kind: str) -> str:
    return admin_url("appeals_decision_add", tournament=tournament.pk, kind=kind)


def _ties(tournament: Tournament, snapshots: list[dict]) -> list[Item]:
    out = []
    for snap in snapshots:
        details = (snap["details"] or {}).get("details") or {}
        notes = (snap["details"] or {}).get("notes") or []
        stage = (snap["export"] or {}).get("stage") or snap["stage_key"]
        for tie in details.get("cut_ties") or []:
            if tie.get("settled") or not any(n.startswith(f"group {tie['group']}:") and "FL-11" in n for n in notes):
                continue
            out.append(Item("ties", f"tie:{stage}:{tie['group']}",
                            _("Group %(group)s: %(teams)s are tied at the cut; the curator decides.")
                            % {"group": tie["group"], "teams": ", ".join(tie["teams"])},
                            _decision_url(tournament, "tie_break"), rule="FL-11"))
        if details.get("open_places"):
            for vacancy in details.get("vacancies") or []:
                out.append(Item("ties", f"vacancy:{stage}:{vacancy['rule']}",
                                _("%(stage)s: %(places)s finalist place(s) open, tied: %(tied)s; the committee "
                                  "decides.") % {"stage": stage, "places": vacancy["places"],
                                                  "tied": ", ".join(vacancy.get("tied") or []) or "-"},
                                _decision_url(tournament, "qualify"), rule=f"{vacancy['rule']}, GP-18"))
    return out


def _schedules(tournament: Tournament) -> list[Item]:
    stages = Stage.objects.filter(tournament=tournament, published_at__isnull=True,
                                  games__status=GameStatus.SCHEDULED).distinct().order_by("order")
    return [Item("schedules", f"schedule:{s.key}",
                 _("The schedule of %(stage)s is not published; results cannot be entered until it is.")
                 % {"stage": s.key}, admin_url("tournaments_stage_change", s.pk), rule="CB-2") for s in stages]


def _prizes(tournament: Tournament, snapshots: list[dict]) -> list[Item]:
    from tournaments.gp_models import PrizePayment

    paid = set(PrizePayment.objects.filter(tournament=tournament).values_list(
        "stage_key", "place", "team_name", "player_nick"))
    out = []
    for snap in snapshots:
        export = snap["export"] or {}
        if not export.get("final"):
            continue
        stage = export.get("stage") or snap["stage_key"]
        rule = PRIZE_RULE.get(tournament.ruleset, "")
        if tournament.ruleset == "elimination_gp" and stage != "final":
            rule = "GP-22a"
        for award in export.get("awards") or []:
            if not award.get("prize"):
                continue
            if (stage, int(award["place"]), award.get("team") or "", award.get("player") or "") in paid:
                continue
            who = award.get("player") or award.get("team")
            out.append(Item("prizes", f"prize:{stage}:{award['place']}:{who}",
                            _("%(stage)s, place %(place)s: %(who)s, %(prize)s %(currency)s, not paid yet.")
                            % {"stage": stage, "place": award["place"], "who": who,
                               "prize": award["prize"], "currency": award.get("currency", "mf")},
                            reverse("prizes", args=[tournament.slug]), rule=rule))
    return out[:LIMIT]
