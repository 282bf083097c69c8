"""The organizer's dashboard: what in one tournament needs a person now, each with where to fix it.

The first section, ``next``, says what to do next: the format home's steps (``next_steps``), the
next game or tour to enter and the appeals waiting, each linking to the page that does it.

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
- ``conflicts``: later games a confirmed correction of an earlier result put in conflict (a class-balanced
  team that no longer goes on, CB-12), until they are resolved;
- ``schedules``: class_balanced stages with games to play whose schedule is
  not published (``Stage.published_at`` empty, CB-2);
- ``rules``: the portal's code has another ruleset version or other rule
  constants than the tournament froze (design principle 8), linking to the
  page where an organizer may recompute under the current rules;
- ``prizes``: awards with money of final standings not yet marked paid
  (``PrizePayment``, GP-22, FL-20), linking to the tournament's prizes page.
"""

from __future__ import annotations

import datetime as dt
import re

from django.db.models import Exists, OuterRef
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext

import rulesets
from accounts.models import Role, TournamentRole
from appeals.services import verdict_due, verdict_overdue
from formats import registry
from formats.registry import DashboardItem as Item
from formats.registry import admin_url
from portal.paths import path_words
from rulesets.messages import from_data
from scoring.models import StandingsSnapshot
from tournaments.commands import conflicts_of, rules_outdated
from tournaments.labels import stage_label
from tournaments.loader import load_facts
from tournaments.messages import render
from tournaments.models import (
    Appeal,
    Game,
    GameStatus,
    PrizePayment,
    Stage,
    Team,
    Tour,
    Tournament,
)

LIMIT = 100
SECTIONS = (
    ("next", gettext_lazy("What to do next")),
    ("games", gettext_lazy("Games past their time without a result")),
    ("appeals", gettext_lazy("Pending appeals")),
    ("checklists", gettext_lazy("Checklist items overdue")),
    ("eligibility", gettext_lazy("Eligibility problems")),
    ("ties", gettext_lazy("Ties waiting for a committee decision")),
    ("conflicts", gettext_lazy("Later games in conflict with a corrected result")),
    ("schedules", gettext_lazy("Schedules not published")),
    ("prizes", gettext_lazy("Prizes to pay")),
    ("rules", gettext_lazy("Rules changed in the portal since the tournament was created")),
)


def attention_items(tournament: Tournament, now: dt.datetime) -> list[Item]:
    items = _games(tournament, now)
    pending = _pending(tournament)
    facts = load_facts(tournament) if any(a.tour_id for a in pending) else None
    items += _appeals(tournament, pending, facts, now)
    items += registry.for_tournament(tournament).dashboard_items(tournament, now, pending)
    snapshots = _snapshots(tournament)
    items += _ties(tournament, snapshots)
    items += _conflicts(tournament)
    items += _prizes(tournament, snapshots)
    items += _rules(tournament)
    return items


def sections(items: list[Item]) -> list[dict]:
    return [{"key": key, "label": label, "items": [i for i in items if i.section == key]} for key, label in SECTIONS]


def _pending(tournament: Tournament) -> list[Appeal]:
    return list(Appeal.objects.filter(tournament=tournament, verdict__isnull=True).select_related(
        "tour__stage", "decision", "team").order_by("filed_at", "pk")[:LIMIT])


def _setting_up(tournament: Tournament) -> list[Item]:
    """A new tournament's first steps, on the portal's own pages: its stages, its teams, its judges."""
    has = Tournament.objects.filter(pk=tournament.pk).annotate(
        has_stages=Exists(Stage.objects.filter(tournament=OuterRef("pk"))),
        has_teams=Exists(Team.objects.filter(tournament=OuterRef("pk"))),
        has_roles=Exists(TournamentRole.objects.filter(tournament=OuterRef("pk")).exclude(role=Role.ORGANIZER)),
    ).values("has_stages", "has_teams", "has_roles").first() or {}
    items = []
    if not has.get("has_stages"):
        items.append(Item("next", "setup:stages", _("Add the tournament's stages"),
                          reverse("tournament-structure", args=[tournament.slug])))
    if not has.get("has_teams"):
        items.append(Item("next", "setup:teams", _("Bring in the teams and their players from a file"),
                          reverse("import-rosters", args=[tournament.slug])))
    if not has.get("has_roles"):
        items.append(Item("next", "setup:roles", _("Name the judges, the curator and the jury"),
                          reverse("tournament-roles", args=[tournament.slug])))
    return items


def next_steps(tournament: Tournament, now: dt.datetime, *, organizer: bool = True) -> list[Item]:
    """What the organizer does next, each with the page that does it: the format's own steps (open a
    stage's registration, draw the groups, ...), the next result to enter, the appeals waiting."""
    pending = Appeal.objects.filter(tournament=tournament, verdict__isnull=True).count()
    setting_up = _setting_up(tournament) if organizer else []  # the organizer's acts (spec/roles.md)
    items = setting_up + list(registry.for_tournament(tournament).next_steps(tournament, now))
    if rulesets.get(tournament.ruleset).rounds == "games":
        game = (Game.objects.filter(stage__tournament=tournament, status=GameStatus.SCHEDULED)
                .select_related("stage").order_by("stage__order", "scheduled_at", "number").first())
        if game is not None:
            items.append(Item("next", f"enter:{game.stage.key}:{game.number}",
                              _("Enter the result of game %(number)s (%(stage)s)")
                              % {"number": game.number, "stage": stage_label(game.stage.key)},
                              reverse("game-entry", args=[tournament.slug, game.stage.key, game.number])))
    else:
        tour = (Tour.objects.filter(stage__tournament=tournament, masks__isnull=True)
                .order_by("number").first())
        if tour is not None:
            items.append(Item("next", f"enter-tour:{tour.number}",
                              _("Enter the answers of tour %(number)s") % {"number": tour.number},
                              reverse("tour-entry", args=[tournament.slug, tour.number])))
    if pending:
        items.append(Item("next", "appeals", ngettext("%(count)s appeal waits for a verdict",
                                                      "%(count)s appeals wait for a verdict", pending)
                          % {"count": pending}, reverse("appeal-queue")))
    return items


def _games(tournament: Tournament, now: dt.datetime) -> list[Item]:
    games = Game.objects.filter(stage__tournament=tournament, status=GameStatus.SCHEDULED,
                                scheduled_at__lt=now).select_related("stage").order_by("scheduled_at", "pk")[:LIMIT]
    return [Item("games", f"game:{g.stage.key}:{g.number}",
                 _("Game %(number)s (%(stage)s) was scheduled and has no result yet.")
                 % {"number": g.number, "stage": g.stage.key},
                 reverse("game-entry", args=[tournament.slug, g.stage.key, g.number]), due=g.scheduled_at,
                 overdue=True) for g in games]


def _appeals(tournament: Tournament, pending: list[Appeal], facts, now: dt.datetime) -> list[Item]:
    rows = []
    for appeal in pending:
        due = verdict_due(tournament, appeal, facts) if appeal.tour_id else None
        if appeal.tour_id:
            text = _("Appeal no. %(order)s: tour %(tour)s, question %(question)s (%(kind)s).") % {
                "order": appeal.order, "tour": appeal.tour.number, "question": appeal.question,
                "kind": appeal.get_kind_display()}
        elif appeal.decision_id:
            text = _("Appeal no. %(order)s against decision %(decision)s.") % {
                "order": appeal.order, "decision": appeal.decision.index}
        else:
            text = _("Appeal no. %(order)s (%(kind)s).") % {"order": appeal.order, "kind": appeal.get_kind_display()}
        appeal.tournament = tournament
        rows.append((due is None, due or appeal.filed_at, appeal.filed_at, Item(
            "appeals", f"appeal:{appeal.pk}", text, reverse("appeal-verdict", args=[appeal.pk]),
            rule=rulesets.get(tournament.ruleset).appeal_policy.rule, due=due,
            overdue=due is not None and verdict_overdue(appeal, now))))  # CHGK-18: from 00:00 of D+10 exactly
    rows.sort(key=lambda r: r[:3])
    return [r[3] for r in rows]


def _snapshots(tournament: Tournament) -> list[dict]:
    """The stored standings, one per stage (the "latest" copy only when no stage snapshot has its stage)."""
    rows = list(StandingsSnapshot.objects.filter(tournament=tournament).values("stage_key", "export", "details"))
    staged = {row["stage_key"] for row in rows if row["stage_key"]}
    return [row for row in rows if row["stage_key"] or (row["export"] or {}).get("stage") not in staged]


def _decision_url(tournament: Tournament, kind: str, stage_key: str | None = None) -> str:
    """The format's own committee page for the stage (GP-18: ``formats.registry.FormatHome.decision_url``), else
    the admin's decision form with the kind filled in."""
    page = registry.for_tournament(tournament).decision_url(tournament, kind, stage_key)
    return page or admin_url("tournaments_decision_add", tournament=tournament.pk, kind=kind)


def _ties(tournament: Tournament, snapshots: list[dict]) -> list[Item]:
    out = []
    for snap in snapshots:
        details = (snap["details"] or {}).get("details") or {}
        notes = [str(from_data(note)) for note in (snap["details"] or {}).get("notes") or []]
        stage = (snap["export"] or {}).get("stage") or snap["stage_key"]
        for tie in details.get("cut_ties") or []:
            if tie.get("settled") or not any(n.startswith(f"group {tie['group']}:") and "FL-11" in n for n in notes):
                continue
            out.append(Item("ties", f"tie:{stage}:{tie['group']}",
                            _("Group %(group)s: %(teams)s are tied at the cut; the curator decides.")
                            % {"group": tie["group"], "teams": ", ".join(tie["teams"])},
                            _decision_url(tournament, "tie_break", stage), rule="FL-11"))
        if details.get("open_places"):
            for vacancy in details.get("vacancies") or []:
                out.append(Item("ties", f"vacancy:{stage}:{vacancy['rule']}",
                                _("%(stage)s: %(places)s finalist place(s) open, tied: %(tied)s; the committee "
                                  "decides.") % {"stage": stage_label(stage), "places": vacancy["places"],
                                                  "tied": ", ".join(vacancy.get("tied") or []) or "-"},
                                _decision_url(tournament, "qualify", stage), rule=f"{vacancy['rule']}, GP-18"))
    return out


_GAME_PATH = re.compile(r"^(stages\[(\d+)\]\.games\[(\d+)\])")


def _conflicts(tournament: Tournament) -> list[Item]:
    """The later games a confirmed correction put in conflict (``commands.conflicts_of``), one item per game,
    its problems in words, linking to its result form, until they are resolved."""
    problems = conflicts_of(tournament)
    if not problems:
        return []
    facts = load_facts(tournament)
    by_game: dict[str, list[str]] = {}
    for problem in problems:
        match = _GAME_PATH.match(problem.path)
        key = match.group(1) if match else problem.path
        by_game.setdefault(key, []).append(f"{path_words(problem.path, facts)}: {render(problem.message)}")
    out = []
    for key, texts in list(by_game.items())[:LIMIT]:
        match = _GAME_PATH.match(key)
        url = ""
        if match:
            stage = facts.stages[int(match.group(2))]
            url = reverse("game-entry", args=[tournament.slug, stage.key, stage.games[int(match.group(3))].number])
        out.append(Item("conflicts", f"conflict:{key}", "; ".join(texts), url))
    return out


def _prizes(tournament: Tournament, snapshots: list[dict]) -> list[Item]:

    paid = set(PrizePayment.objects.filter(tournament=tournament).values_list(
        "stage_key", "place", "team_name", "player_nick"))
    out = []
    for snap in snapshots:
        export = snap["export"] or {}
        if not export.get("final"):
            continue
        stage = export.get("stage") or snap["stage_key"]
        rule = registry.for_tournament(tournament).prize_rule(stage)
        for award in export.get("awards") or []:
            if not award.get("prize"):
                continue
            if (stage, int(award["place"]), award.get("team") or "", award.get("player") or "") in paid:
                continue
            who = award.get("player") or award.get("team")
            out.append(Item("prizes", f"prize:{stage}:{award['place']}:{who}",
                            _("%(stage)s, place %(place)s: %(who)s, %(prize)s %(currency)s, not paid yet.")
                            % {"stage": stage_label(stage), "place": award["place"], "who": who,
                               "prize": award["prize"], "currency": award.get("currency", "mf")},
                            reverse("prizes", args=[tournament.slug]), rule=rule))
    return out[:LIMIT]


def _rules(tournament: Tournament) -> list[Item]:
    changed = rules_outdated(tournament)
    if not changed:
        return []
    names = ", ".join(name for name in changed)
    return [Item(section="rules", key="rules", rule=_("design principle 8"),
                 text=_("The current rules differ from this tournament's (%(names)s): review them and decide "
                        "whether to recompute under them") % {"names": names},
                 url=reverse("tournament-rules", args=[tournament.slug]))]
