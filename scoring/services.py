"""The recompute pipeline: load facts -> run the ruleset -> store snapshots."""

from __future__ import annotations

import contextlib
import datetime as dt
import logging
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Count, F, OuterRef, Q, Subquery
from django.utils import timezone

import rulesets
from rulesets.facts import Appeal, TournamentFacts
from rulesets.interchange import export_standings
from scoring import appeal_effects, figures
from scoring.models import RecomputeRun, StandingsSnapshot
from scoring.serialize import stored_figures
from tournaments import game_cache
from tournaments.collector import gc_paused
from tournaments.loader import load_facts
from tournaments.models import Tournament
from tournaments.webhooks import standings as standings_event

log = logging.getLogger(__name__)
LATEST = ""


@dataclass
class Computed:
    stage_key: str
    export: dict[str, Any]
    details: dict[str, Any]
    summary: dict[str, Any]

    @classmethod
    def of(cls, stage_key: str, facts: TournamentFacts, standings) -> Computed:
        """What is stored of a computation: its export, its details and its page summary."""
        details, summary = stored_figures(standings)
        return cls(stage_key, export_standings(facts, standings), details, summary)


def compute_all(facts: TournamentFacts, now: dt.datetime) -> list[Computed]:
    """Standings after each stage present, plus the latest (``stage_key`` "")."""
    ruleset = rulesets.get(facts.ruleset)
    out: list[Computed] = []
    for stage in facts.stages:
        standings = ruleset.compute(facts, stage.key, now)
        out.append(Computed.of(stage.key, facts, standings))
    if out and rulesets_latest_is_last(facts):
        last = out[-1]
        out.append(Computed(LATEST, last.export, last.details, last.summary))
    else:
        out.append(Computed.of(LATEST, facts, ruleset.compute(facts, None, now)))
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
        return tournament, load_facts(tournament, current=True)


def forget_kept(tournament_id: int, slug: str, ruleset_key: str) -> None:
    """Drop what this process keeps of the tournament between recomputes: the loader's games and context and what
    its ruleset keeps (the family league's ledger). A forced recompute starts so: every fact read and every game
    judged anew, and the previous version released before the next one is built, not beside it."""
    game_cache.forget(tournament_id)
    with contextlib.suppress(rulesets.UnknownRuleset):
        forget = rulesets.get(ruleset_key).forget
        if forget is not None:
            forget(slug)


def recompute(tournament_id: int, *, now: dt.datetime | None = None, force: bool = False) -> bool:
    """Recompute and store a tournament's snapshots; False when nothing needed doing.

    Idempotent and safe to run concurrently: a snapshot is only replaced by one
    computed from the same or a newer facts version.
    """
    now = now or timezone.now()
    current = StandingsSnapshot.objects.filter(tournament_id=tournament_id, stage_key=LATEST).values_list(
        "facts_version", "recheck_at", "stale").first()
    row = Tournament.objects.filter(pk=tournament_id).values_list("facts_version", "slug", "ruleset").first()
    if row is None:
        return False
    version, slug, ruleset_key = row
    if not force and current is not None and current[0] >= version and not current[2] and (
            current[1] is None or current[1] > now):
        return False
    if force:
        forget_kept(tournament_id, slug, ruleset_key)
    with run_lock(tournament_id):  # held while the run row is open: the sweep sees a run nobody holds as abandoned
        with transaction.atomic():  # a run that can be seen has already marked the older tables stale
            run = RecomputeRun.objects.create(tournament_id=tournament_id, facts_version=version, started_at=now)
            StandingsSnapshot.objects.filter(tournament_id=tournament_id, facts_version__lt=version).update(
                stale=True)
        try:
            with gc_paused(keep=True):  # the facts and the ledger are kept for the next recompute
                tournament, facts = load_consistent(tournament_id)
                before = standings_event.rows_before(tournament_id, lambda: StandingsSnapshot.objects.filter(
                    tournament_id=tournament_id).values_list("stage_key", "export"))
                computed = compute_all(facts, now)
                recheck_at = next_recheck(facts, now)
                with transaction.atomic():  # the table and the figures its pages show, one version
                    store(tournament, computed, now, recheck_at)
                    figures.store_figures(tournament, facts)
            if facts.appeals:  # a verdict recorded since the facts were read carries a newer version: it waits
                appeal_effects.settle(tournament, {c.stage_key: c.export for c in computed})
            standings_event.changed(tournament, before, {c.stage_key: c.export for c in computed})
        except Exception as exc:
            mark_stale(tournament_id, repr(exc))
            RecomputeRun.objects.filter(pk=run.pk).update(finished_at=timezone.now(), error=repr(exc))
            raise
        RecomputeRun.objects.filter(pk=run.pk).update(finished_at=timezone.now(), ok=True,
                                                      facts_version=tournament.facts_version)
    return True


# --- runs that nobody finishes, tables nobody recomputes ---

LOCK_NAMESPACE = 19_006  # the first key of PostgreSQL's two-key advisory locks that recomputes hold
ABANDONED = "abandoned: the process running it stopped before it finished (closed by the sweep)"
FAILED_RUNS_BEFORE_BACKOFF = 3  # failed runs at a tournament's current version before the sweep waits
FAILED_BACKOFF_SECONDS = 600


def _uses_advisory_locks() -> bool:
    return connection.vendor == "postgresql"


def lock_key(tournament_id: int) -> tuple[int, int]:
    return LOCK_NAMESPACE, tournament_id % 2_147_483_647


@contextlib.contextmanager
def run_lock(tournament_id: int):
    """A shared PostgreSQL advisory lock on the tournament for as long as a recompute runs.

    Any number of recomputes hold it at once; the sweep takes it exclusively, without waiting, to learn that
    no live process is recomputing the tournament. The lock belongs to the database session, so a worker that
    is killed (SIGKILL, out of memory, the machine gone) drops it with its connection, and its run row, still
    unfinished, is then recognisably abandoned. Nothing to hold on SQLite (``RECOMPUTE_RUN_TIMEOUT`` instead).
    """
    if not _uses_advisory_locks():
        yield
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_lock_shared(%s::integer, %s::integer)", lock_key(tournament_id))
    try:
        yield
    finally:
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock_shared(%s::integer, %s::integer)",
                               lock_key(tournament_id))
        except Exception:  # noqa: BLE001 - a broken connection has dropped the lock already
            log.warning("could not release the recompute lock of tournament %s", tournament_id, exc_info=True)
            if not connection.in_atomic_block:
                connection.close()  # the session, and so the lock, ends with the connection


@contextlib.contextmanager
def unless_running(tournament_id: int):
    """Yield True when no live process recomputes the tournament, holding it so until the block ends."""
    if not _uses_advisory_locks():
        yield True
        return
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_try_advisory_lock(%s::integer, %s::integer)", lock_key(tournament_id))
        acquired = bool(cursor.fetchone()[0])
    try:
        yield acquired
    finally:
        if acquired:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock(%s::integer, %s::integer)", lock_key(tournament_id))


def close_abandoned_runs(now: dt.datetime | None = None) -> int:
    """Close the unfinished runs no live process holds (not ok, error ``ABANDONED``); returns how many.

    PostgreSQL: a run is abandoned when nobody holds its tournament's recompute lock (``run_lock``), which is
    known at once. Elsewhere: when it started more than ``RECOMPUTE_RUN_TIMEOUT`` seconds ago.
    """
    now = now or timezone.now()
    unfinished = RecomputeRun.objects.filter(finished_at__isnull=True)
    if not _uses_advisory_locks():
        cutoff = now - dt.timedelta(seconds=settings.RECOMPUTE_RUN_TIMEOUT)
        return unfinished.filter(started_at__lt=cutoff).update(finished_at=now, ok=False, error=ABANDONED)
    closed = 0
    for tournament_id in sorted(set(unfinished.values_list("tournament_id", flat=True))):
        with unless_running(tournament_id) as idle:
            if idle:
                closed += unfinished.filter(tournament_id=tournament_id).update(finished_at=now, ok=False,
                                                                                error=ABANDONED)
    return closed


def stale_tournament_ids(now: dt.datetime | None = None) -> list[int]:
    """Tournaments whose latest table is missing, older than their facts, or marked stale, in one query.

    Left out: a tournament whose last ``FAILED_RUNS_BEFORE_BACKOFF`` runs at its current version failed within
    ``FAILED_BACKOFF_SECONDS`` (the job's own retries have given up; the sweep tries again after that).
    """
    now = now or timezone.now()
    latest = StandingsSnapshot.objects.filter(tournament=OuterRef("pk"), stage_key=LATEST)
    failed = RecomputeRun.objects.filter(
        tournament=OuterRef("pk"), ok=False, finished_at__gte=now - dt.timedelta(seconds=FAILED_BACKOFF_SECONDS),
        facts_version__gte=OuterRef("facts_version")).exclude(error=ABANDONED).order_by().values(
        "tournament").annotate(n=Count("pk")).values("n")
    return list(Tournament.objects.annotate(
        table_version=Subquery(latest.values("facts_version")[:1]),
        table_stale=Subquery(latest.values("stale")[:1]),
        recent_failures=Subquery(failed[:1]),
    ).filter(
        Q(table_version__isnull=True) | Q(table_version__lt=F("facts_version")) | Q(table_stale=True)
    ).filter(Q(recent_failures__isnull=True) | Q(recent_failures__lt=FAILED_RUNS_BEFORE_BACKOFF)).order_by(
        "pk").values_list("pk", flat=True))


@dataclass
class Sweep:
    closed: int  # abandoned runs closed
    queued: list[int]  # tournaments whose recompute was sent
    running: list[int]  # stale tournaments left alone: a live process recomputes them


def sweep(send, now: dt.datetime | None = None) -> Sweep:
    """Close abandoned runs, then ``send(tournament_id)`` the recompute of every stale table nobody recomputes.

    Run by Celery beat every ``STANDINGS_SWEEP_SECONDS`` (``scoring.tasks.sweep_stale_standings``): a table
    left stale by a killed worker, a lost job or a save whose job could not be queued is recomputed within that
    interval rather than when someone next reads it.
    """
    now = now or timezone.now()
    closed = close_abandoned_runs(now)
    queued: list[int] = []
    running: list[int] = []
    cutoff = now - dt.timedelta(seconds=settings.RECOMPUTE_RUN_TIMEOUT)
    for tournament_id in stale_tournament_ids(now):
        if _uses_advisory_locks():
            with unless_running(tournament_id) as idle:
                pass
        else:
            idle = not RecomputeRun.objects.filter(tournament_id=tournament_id, finished_at__isnull=True,
                                                   started_at__gte=cutoff).exists()
        if not idle:
            running.append(tournament_id)
            continue
        send(tournament_id)
        queued.append(tournament_id)
    return Sweep(closed, queued, running)


def next_recheck(facts: TournamentFacts, now: dt.datetime) -> dt.datetime | None:
    """The next moment an open appeal window closes: the table may turn final then (also FL-19's windows of the
    judges' penalties and of the violations the portal detected, counted from their games'
    ``result_recorded_at``)."""
    policy = rulesets.get(facts.ruleset).appeal_policy
    moments = [policy.decision_deadline(facts, d) for d in facts.decisions] if policy.decision_deadline else []
    if policy.penalty_deadline is not None:  # FL-19: a judge's penalty is appealable for 72 h after its publication
        moments += [policy.penalty_deadline(facts, p) for p in facts.penalties]
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
    """Write the snapshots; the rows are locked, not read (their details are large and about to be replaced).

    An item that shares its export, details and summary with one written before (the latest table when it is
    the last stage's, ``compute_all``) takes them from that row on the server: the same JSON is not encoded,
    sent and parsed twice (4-5 ms of a league's 10,000-game recompute against 0.3 ms)."""
    existing = {s.stage_key: s for s in StandingsSnapshot.objects.select_for_update().filter(
        tournament=tournament).only("pk", "tournament_id", "stage_key", "facts_version")}
    keep = {c.stage_key for c in computed}
    written: dict[tuple[int, int, int], int] = {}  # ids of a written item's figures -> its row's pk
    stamp = {"facts_version": tournament.facts_version, "ruleset_version": tournament.ruleset_version,
             "computed_at": now, "recheck_at": recheck_at, "stale": False, "error": ""}
    for item in computed:
        snap = existing.get(item.stage_key)
        if snap is not None and snap.facts_version > tournament.facts_version:
            continue
        figures = (id(item.export), id(item.details), id(item.summary))
        source = written.get(figures)
        if snap is not None and source is not None:
            _copy_figures(snap.pk, source, stamp)
            continue
        if snap is None:
            snap = StandingsSnapshot(tournament=tournament, stage_key=item.stage_key)
        for name, value in stamp.items():
            setattr(snap, name, value)
        snap.export = item.export
        snap.details = item.details
        snap.summary = item.summary
        snap.save(update_fields=SNAPSHOT_FIELDS if snap.pk else None)
        written[figures] = snap.pk
    StandingsSnapshot.objects.filter(tournament=tournament).exclude(stage_key__in=keep).exclude(
        facts_version__gt=tournament.facts_version).delete()


def _copy_figures(pk: int, source: int, stamp: dict[str, Any]) -> None:
    """Update snapshot ``pk`` with ``stamp`` and the export, details and summary of snapshot ``source``, copied by
    the server."""
    row = StandingsSnapshot.objects.filter(pk=source)
    StandingsSnapshot.objects.filter(pk=pk).update(
        **stamp, **{name: Subquery(row.values(name)[:1]) for name in ("export", "details", "summary")})


def mark_stale(tournament_id: int, error: str) -> None:
    """A failed recompute keeps the previous snapshot, marked stale."""
    StandingsSnapshot.objects.filter(tournament_id=tournament_id).update(stale=True, error=error[:2000])


def current_export(tournament: Tournament, stage_key: str | None = None,
                   now: dt.datetime | None = None) -> dict[str, Any]:
    """The export document computed from the facts as they are now (CLI and tests)."""
    facts = load_facts(tournament)
    standings = rulesets.get(facts.ruleset).compute(facts, stage_key, now or timezone.now())
    return export_standings(facts, standings)
