"""Public pages: home, tournament (standings), schedule.

Standings are read from the stored snapshot; every page runs a fixed number
of queries whatever the size of the tournament (tests hold the limits).
"""

from __future__ import annotations

from django.db.models import Count, F, Q
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.template.loader import render_to_string

import rulesets
from accounts.models import Player
from accounts.zones import zones_caption
from portal import page_cache
from portal.table_status import settle_table, with_table_final
from portal.views.common import TeamIndex, nul_refusal, paginate
from portal.views.standings import build_table, player_nicks, snapshot_summary
from scoring.models import StandingsSnapshot
from tournaments.models import Appeal, Game, GroupTeam, Stage, Tour, Tournament, TournamentStatus

HOME_LIMIT = 30
SCHEDULE_PAGE = 200


def home_view(request: HttpRequest) -> HttpResponse:
    """Current tournaments (registration open, running) and recently finished ones."""
    visible = Tournament.objects.exclude(status=TournamentStatus.DRAFT).only(
        "slug", "name", "ruleset", "starts_on", "ends_on", "status", "timezone")
    # the shown status follows the stored tables (portal.table_status): a final latest table is a finished one
    visible = with_table_final(visible)
    current = list(visible.filter(status__in=[TournamentStatus.RUNNING, TournamentStatus.REGISTRATION],
                                  table_final=False).order_by("-starts_on", "name")[:HOME_LIMIT])
    recent = list(visible.filter(Q(status=TournamentStatus.FINISHED) | Q(table_final=True)).order_by(
        "-ends_on", "-starts_on", "name")[:HOME_LIMIT])
    return render(request, "tournaments/home.html", {"current": current, "recent": recent})


def _stages(tournament: Tournament) -> list[Stage]:
    return list(Stage.objects.filter(tournament=tournament).annotate(
        games_count=Count("games", distinct=True), tours_count=Count("tours", distinct=True)).order_by("order"))


def _groups_by_stage(tournament: Tournament, teams: TeamIndex) -> dict[int, list[dict]]:
    out: dict[int, list[dict]] = {}
    rows = GroupTeam.objects.filter(group__stage__tournament=tournament).order_by(
        "group__stage__order", "group__order", "group_id", "order").values_list(
        "group__stage_id", "group__stage__key", "group__name", "team__name")
    for stage_id, stage_key, group, team in rows:
        groups = out.setdefault(stage_id, [])
        if not groups or groups[-1]["name"] != group:
            groups.append({"name": group, "teams": []})
        groups[-1]["teams"].append({"name": team, "pk": teams.pk(team, stage_key)})
    return out


def tournament_view(request: HttpRequest, slug: str) -> HttpResponse:
    """The standings page: the header rendered for the reader, the body below it kept while nothing it shows
    changed (``portal.page_cache``): a reload of an unchanged table reads the tournament and its tables' versions."""
    refused = nul_refusal(request)
    if refused is not None:
        return refused
    tournament = get_object_or_404(Tournament, slug=slug)
    stage_key = request.GET.get("stage", "")
    snapshots = list(StandingsSnapshot.objects.filter(tournament=tournament).values_list(
        *page_cache.SNAPSHOT_FIELDS))
    kept = page_cache.body_key(tournament, stage_key, snapshots)
    body = page_cache.get(kept[0]) if kept else None
    if body is None:
        body = _standings_body(request, tournament, stage_key, {stage: pk for stage, pk, *_rest in snapshots})
        if kept:
            page_cache.keep(kept[0], body, kept[1])
    tournament.table_final = body.table_final
    return render(request, "tournaments/tournament.html", {"tournament": tournament, "body": body.html})


def _standings_body(request: HttpRequest, tournament: Tournament, stage_key: str,
                    snapshots: dict[str, int]) -> page_cache.Body:
    """The page below its header: the table after ``stage_key`` (404 for a stage the tournament does not have), its
    chart, the stages, the tours and the pending appeals; ``snapshots``: the stored tables' keys by stage."""
    stages = _stages(tournament)
    if stage_key and stage_key not in {s.key for s in stages}:
        raise Http404("no such stage")
    # never the details: at 10,000 games they are megabytes of per-round lists; the page reads the summary. The
    # latest table comes in the same query: the header's and the tables' statuses follow it (portal.table_status)
    wanted = [snapshots[key] for key in {stage_key, ""} if key in snapshots]
    loaded = ({s.stage_key: s for s in StandingsSnapshot.objects.defer("details").filter(pk__in=wanted)}
              if wanted else {})
    snapshot = loaded.get(stage_key)
    latest = loaded.get("")
    tournament.table_final = bool(latest is not None and latest.export.get("final") and not latest.stale
                                  and latest.facts_version >= tournament.facts_version)
    summary = snapshot_summary(snapshot)
    teams = TeamIndex(tournament)
    shown_stage = snapshot.export.get("stage") if snapshot else (stage_key or None)
    nicks = player_nicks(snapshot)
    player_pks = dict(Player.objects.filter(nick__in=nicks).values_list("nick", "pk")) if nicks else {}
    table = build_table(tournament, snapshot, teams.for_stage(shown_stage), player_pks, summary)
    groups = _groups_by_stage(tournament, teams)
    for stage in stages:
        stage.group_list = groups.get(stage.pk, [])
        stage.has_table = stage.key in snapshots
    tours = list(Tour.objects.filter(stage__tournament=tournament).select_related("host").order_by(
        "stage__order", "number")) if rulesets.get(tournament.ruleset).rounds == "tours" else []
    appeals = list(Appeal.objects.filter(tournament=tournament, verdict__isnull=True).select_related(
        "stage", "tour", "decision").order_by("filed_at", "order"))
    settle_table(table, tournament, stage_key, snapshot, stages=stages, pending=appeals)
    html = render_to_string("tournaments/_standings_body.html", {
        "tournament": tournament, "stages": stages, "stage_key": stage_key, "shown_stage": shown_stage,
        "snapshot": snapshot, "table": table, "tours": tours, "appeals": appeals,
        "class_balance": class_balance_rows(summary),
        "still_in": summary.get("still_in"),
        "zone": zones_caption(tournament.timezone, [t.played_on for t in tours] or [tournament.starts_on]),
        "api_base": f"/api/v1/tournaments/{tournament.slug}",
    }, request)
    return page_cache.Body(html=html, table_final=tournament.table_final)


def class_balance_rows(summary: dict) -> list[dict]:
    """class_balanced stages 1 and 3: games per class and still owed, per team (CB-7), from the snapshot's summary.

    (Players still in per team after every tour, elimination_gp GP-10..GP-13, come ready in ``summary["still_in"]``.)
    """
    balance = summary.get("class_balance")
    if not balance:
        return []
    return [{"team": team, **row} for team, row in sorted(balance.items())]


def schedule_view(request: HttpRequest, slug: str) -> HttpResponse:
    """Games and tours in order of time, shown in the tournament's zone (named)."""
    refused = nul_refusal(request)
    if refused is not None:
        return refused
    tournament = get_object_or_404(Tournament, slug=slug)
    games = paginate(request, Game.objects.filter(stage__tournament=tournament).select_related("stage").order_by(
        F("scheduled_at").asc(nulls_last=True), "stage__order", "number"), SCHEDULE_PAGE)
    tours = list(Tour.objects.filter(stage__tournament=tournament).select_related("host", "stage").order_by(
        F("played_on").asc(nulls_last=True), "number")[:SCHEDULE_PAGE])
    return render(request, "tournaments/schedule.html", {
        "tournament": tournament, "games": games, "tours": tours,
        "zone": zones_caption(tournament.timezone, [g.scheduled_at for g in games] + [t.played_on for t in tours]),
        "ics_url": f"/api/v1/tournaments/{tournament.slug}/schedule.ics",
    })
