"""The recompute pipeline: load facts -> run the ruleset -> store snapshots."""

from __future__ import annotations

import contextlib
import datetime as dt
import gc
import logging
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

import rulesets
from rulesets.facts import Appeal, TournamentFacts
from rulesets.interchange import export_standings
from scoring import appeal_effects, figures
from scoring.models import RecomputeRun, StandingsSnapshot
from scoring.serialize import page_summary, standings_details
from tournaments import game_cache
from tournaments.loader import load_facts
from tournaments.models import Tournament

log = logging.getLogger(__name__)
LATEST = ""


@dataclass
class Computed:
    stage_key: str
    export: dict[str, Any]
    details: dict[str, Any]


def compute_all(facts: TournamentFacts, now: dt.datetime) -> list[Computed]:
    """Standings after each stage present, plus the latest (``stage_key`` "")."""
    ruleset = rulesets.get(facts.ruleset)
    out: list[Computed] = []
    for stage in facts.stages:
        standings = ruleset.compute(facts, stage.key, now)
        out.append(Computed(stage.key, export_standings(facts, standings), standings_details(standings)))
    if out and rulesets_latest_is_last(facts):
        out.append(Computed(LATEST, out[-1].export, out[-1].details))
    else:
        latest = ruleset.compute(facts, None, now)
        out.append(Computed(LATEST, export_standings(facts, latest), standings_details(latest)))
    deadlines = decision_deadlines(facts)
    for item in out:
        item.details["deadlines"] = deadlines
    return out


def decision_deadlines(facts: TournamentFacts) -> dict[str, str]:
    """Decision number -> the last moment it may be appealed, ISO (GP-23, FL-19, CB-17), for the pages to show."""
    policy = rulesets.get(facts.ruleset).appeal_policy
    if policy.decision_deadline is None:
        return {}
    out = {}
    for number, decision in enumerate(facts.decisions, 1):
        deadline = policy.decision_deadline(facts, decision)
        if deadline is not None:
            out[str(number)] = deadline.isoformat()
    return out


def rulesets_latest_is_last(facts: TournamentFacts) -> bool:
    """Without ``--stage`` every ruleset shows its last stage that has games or tours: reuse that table."""
    last = facts.stages[-1]
    return bool(last.games or last.tours)


def load_consistent(tournament_id: int) -> tuple[Tournament, TournamentFacts]:
    """Read the version and every fact in one repeatable-read transaction."""
    outer = connection.in_atomic_block
    with transaction.atomic():
        if connection.vendor == "postgresql" and not outer:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
        tournament = Tournament.objects.get(pk=tournament_id)
        return tournament, load_facts(tournament)


def recompute(tournament_id: int, *, now: dt.datetime | None = None, force: bool = False) -> bool:
    """Recompute and store a tournament's snapshots; False when nothing needed doing.

    Idempotent and safe to run concurrently: a snapshot is only replaced by one
    computed from the same or a newer facts version.
    """
    now = now or timezone.now()
    current = StandingsSnapshot.objects.filter(tournament_id=tournament_id, stage_key=LATEST).values_list(
        "facts_version", "recheck_at", "stale").first()
    version = Tournament.objects.filter(pk=tournament_id).values_list("facts_version", flat=True).first()
    if version is None:
        return False
    if not force and current is not None and current[0] >= version and not current[2] and (
            current[1] is None or current[1] > now):
        return False
    if force:
        game_cache.forget(tournament_id)
    with transaction.atomic():  # a run that can be seen has already marked the older tables stale
        run = RecomputeRun.objects.create(tournament_id=tournament_id, facts_version=version, started_at=now)
        StandingsSnapshot.objects.filter(tournament_id=tournament_id, facts_version__lt=version).update(stale=True)
    try:
        with gc_paused():
            tournament, facts = load_consistent(tournament_id)
            computed = compute_all(facts, now)
        recheck_at = next_recheck(facts, now)
        store(tournament, computed, now, recheck_at)
        appeal_effects.settle(tournament, {c.stage_key: c.export for c in computed})
    except Exception as exc:
        mark_stale(tournament_id, repr(exc))
        RecomputeRun.objects.filter(pk=run.pk).update(finished_at=timezone.now(), error=repr(exc))
        raise
    RecomputeRun.objects.filter(pk=run.pk).update(finished_at=timezone.now(), ok=True,
                                                  facts_version=tournament.facts_version)
    return True


@contextlib.contextmanager
def gc_paused():
    """Building ~10^5 small immutable fact objects triggers the cyclic collector for nothing; pause it."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def next_recheck(facts: TournamentFacts, now: dt.datetime) -> dt.datetime | None:
    """The next moment an open appeal window closes: the table may turn final then (also FL-19's windows of the
    violations the portal detected, counted from their games' ``result_recorded_at``)."""
    policy = rulesets.get(facts.ruleset).appeal_policy
    moments = [policy.decision_deadline(facts, d) for d in facts.decisions] if policy.decision_deadline else []
    moments += [policy.appeal_deadline(facts, a) for a in facts.appeals]
    if policy.violation_windows is not None:
        moments += policy.violation_windows(facts, now)
    stage = facts.stages[-1] if facts.stages else None
    if stage is not None:
        for tour in stage.tours:
            probe = _probe_appeal(stage.key, tour.number)
            moments.append(policy.appeal_deadline(facts, probe))
    future = [m for m in moments if m is not None and m > now]
    return min(future) + dt.timedelta(seconds=1) if future else None


def _probe_appeal(stage_key: str, tour: int):
    return Appeal(kind="removal", filed_at=timezone.now(), stage=stage_key, tour=tour, question=1)


SNAPSHOT_FIELDS = ("facts_version", "ruleset_version", "computed_at", "recheck_at", "stale", "error", "export",
                   "details", "summary")


@transaction.atomic
def store(tournament: Tournament, computed: list[Computed], now: dt.datetime,
          recheck_at: dt.datetime | None) -> None:
    """Write the snapshots; the rows are locked, not read (their details are large and about to be replaced)."""
    existing = {s.stage_key: s for s in StandingsSnapshot.objects.select_for_update().filter(
        tournament=tournament).only("pk", "tournament_id", "stage_key", "facts_version")}
    keep = {c.stage_key for c in computed}
    summaries: dict[int, dict[str, Any]] = {}
    for item in computed:
        snap = existing.get(item.stage_key)
        if snap is not None and snap.facts_version > tournament.facts_version:
            continue
        if snap is None:
            snap = StandingsSnapshot(tournament=tournament, stage_key=item.stage_key)
        snap.facts_version = tournament.facts_version
        snap.ruleset_version = tournament.ruleset_version
        snap.computed_at = now
        snap.recheck_at = recheck_at
        snap.stale = False
        snap.error = ""
        snap.export = item.export
        snap.details = item.details
        if id(item.details) not in summaries:
            summaries[id(item.details)] = page_summary(item.details)
        snap.summary = summaries[id(item.details)]
        snap.save(update_fields=SNAPSHOT_FIELDS if snap.pk else None)
    StandingsSnapshot.objects.filter(tournament=tournament).exclude(stage_key__in=keep).exclude(
        facts_version__gt=tournament.facts_version).delete()


def mark_stale(tournament_id: int, error: str) -> None:
    """A failed recompute keeps the previous snapshot, marked stale."""
    StandingsSnapshot.objects.filter(tournament_id=tournament_id).update(stale=True, error=error[:2000])


def current_export(tournament: Tournament, stage_key: str | None = None,
                   now: dt.datetime | None = None) -> dict[str, Any]:
    """The export document computed from the facts as they are now (CLI and tests)."""
    facts = load_facts(tournament)
    standings = rulesets.get(facts.ruleset).compute(facts, stage_key, now or timezone.now())
    return export_standings(facts, standings)


def refresh_figures(tournament_id: int) -> int:
    """Store the per-game and per-tour figures of the tournament's current facts (``scoring.figures``).

    Run as its own job after each recompute, so that the table never waits for them.
    """
    with gc_paused():
        tournament, facts = load_consistent(tournament_id)
        return figures.store_figures(tournament, facts)
