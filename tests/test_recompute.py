"""The recompute pipeline: facts change -> Celery job -> stored snapshot (design.md principle 3)."""

from __future__ import annotations

import signal
import time

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from scoring.models import RecomputeRun, StandingsSnapshot
from scoring.services import current_export, recompute
from tests.conftest import example
from tournaments.importer import import_document
from tournaments.models import Game, Mask, Tournament
from tournaments.synthetic import chgk_season


def latest(tournament: Tournament) -> StandingsSnapshot:
    return StandingsSnapshot.objects.get(tournament=tournament, stage_key="")


@pytest.mark.django_db(transaction=True)
def test_import_stores_a_snapshot_per_stage_and_the_latest():
    tournament = import_document(example("chgk_tour_points"))
    keys = set(StandingsSnapshot.objects.filter(tournament=tournament).values_list("stage_key", flat=True))
    assert keys == {"", "season"}
    assert latest(tournament).export == current_export(tournament)


@pytest.mark.django_db(transaction=True)
def test_saving_a_mask_recomputes_the_table():
    tournament = import_document(example("chgk_tour_points"))
    before = latest(tournament)
    mask = Mask.objects.get(tour__number=1, team__name="Quark")
    mask.mask = "11111111"
    mask.save()
    tournament.refresh_from_db()
    after = latest(tournament)
    assert after.facts_version == tournament.facts_version > before.facts_version
    quark = next(row for row in after.export["teams"] if row["team"] == "Quark")
    assert quark["tiebreaks"]["correct_answers"] == 10
    assert after.export == current_export(tournament)


@pytest.mark.django_db(transaction=True)
def test_the_latest_table_is_the_last_stages_row_copied_by_the_server():
    """The latest table is the last stage's (``compute_all``): its figures are written once and copied."""
    tournament = import_document(example("chgk_tour_points"))
    mask = Mask.objects.get(tour__number=1, team__name="Quark")
    mask.mask = "11111111"
    with CaptureQueriesContext(connection) as captured:
        mask.save()
    tournament.refresh_from_db()
    season = StandingsSnapshot.objects.get(tournament=tournament, stage_key="season")
    after = latest(tournament)
    assert (after.export, after.details, after.summary) == (season.export, season.details, season.summary)
    assert after.facts_version == season.facts_version == tournament.facts_version
    assert (after.computed_at, after.stale, after.error) == (season.computed_at, False, "")
    assert after.export == current_export(tournament)
    updates = [q["sql"] for q in captured.captured_queries if q["sql"].startswith(
        'UPDATE "scoring_standingssnapshot" SET "facts_version"')]
    assert len(updates) == 2 and sum('SELECT' in sql for sql in updates) == 1


@pytest.mark.django_db(transaction=True)
def test_many_changes_in_one_transaction_cause_one_recompute():
    tournament = import_document(chgk_season(teams=10, seed=4))
    runs = RecomputeRun.objects.filter(tournament=tournament).count()
    with transaction.atomic():
        for mask in Mask.objects.filter(tour__stage__tournament=tournament)[:30]:
            mask.mask = "1" * len(mask.mask)
            mask.save()
    assert RecomputeRun.objects.filter(tournament=tournament).count() == runs + 1


@pytest.mark.django_db(transaction=True)
def test_recompute_is_idempotent():
    tournament = import_document(example("chgk_tour_points"))
    assert recompute(tournament.pk) is False
    assert recompute(tournament.pk, force=True) is True
    assert latest(tournament).export == current_export(tournament)


@pytest.mark.django_db(transaction=True)
def test_failed_recompute_keeps_the_previous_snapshot_marked_stale(monkeypatch):
    import scoring.services as services

    tournament = import_document(example("chgk_tour_points"))
    previous = latest(tournament).export

    def crash(facts, now):
        raise RuntimeError("ruleset crashed")

    monkeypatch.setattr(services, "compute_all", crash)
    with pytest.raises(RuntimeError):
        recompute(tournament.pk, force=True)
    snap = latest(tournament)
    assert snap.stale and "ruleset crashed" in snap.error
    assert snap.export == previous
    monkeypatch.undo()
    assert recompute(tournament.pk) is True
    assert not latest(tournament).stale


def wait_for_version(tournament: Tournament, seconds: float = 30) -> StandingsSnapshot:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        tournament.refresh_from_db()
        snap = StandingsSnapshot.objects.filter(tournament=tournament, stage_key="").first()
        if snap is not None and snap.facts_version == tournament.facts_version and not snap.stale:
            return snap
        time.sleep(0.05)
    raise AssertionError("the worker did not store the new snapshot in time")


def kill_worker_mid_recompute(worker, tournament: Tournament) -> None:
    """Change game 1's outcome, wait until the worker opens the recompute run, then SIGKILL it."""
    started = RecomputeRun.objects.filter(tournament=tournament).count()
    game = Game.objects.get(stage__tournament=tournament, number=1)
    game.outcome = "mafia" if game.outcome != "mafia" else "civilians"
    game.save()
    deadline = time.monotonic() + 60
    while RecomputeRun.objects.filter(tournament=tournament).count() == started:
        assert time.monotonic() < deadline, "the recompute never started"
        time.sleep(0.01)
    worker.send_signal(signal.SIGKILL)
    worker.wait(timeout=10)


@pytest.mark.celery_worker
def test_real_worker_stores_a_new_snapshot_after_a_save(celery_worker_process):
    tournament = import_document(example("chgk_tour_points"))
    wait_for_version(tournament)
    mask = Mask.objects.get(tour__number=1, team__name="Quark")
    mask.mask = "11111111"
    mask.save()
    snap = wait_for_version(tournament)
    quark = next(row for row in snap.export["teams"] if row["team"] == "Quark")
    assert quark["tiebreaks"]["correct_answers"] == 10
    assert snap.export == current_export(tournament)


@pytest.mark.celery_worker
def test_real_worker_coalesces_a_burst_of_200_saves(celery_worker_process):
    tournament = import_document(chgk_season(teams=12, seed=8))
    wait_for_version(tournament)
    runs_before = RecomputeRun.objects.filter(tournament=tournament).count()
    masks = list(Mask.objects.filter(tour__stage__tournament=tournament).order_by("id")[:200])
    assert len(masks) >= 100
    for i in range(200):
        mask = masks[i % len(masks)]
        mask.mask = ("1" if i % 2 else "0") * len(mask.mask)
        mask.save()
    snap = wait_for_version(tournament, seconds=60)
    time.sleep(1)
    runs = RecomputeRun.objects.filter(tournament=tournament).count() - runs_before
    assert 1 <= runs <= 40, runs
    assert snap.export == current_export(tournament)
