"""Nothing lost, nothing overwritten: parallel saves and a worker killed mid-recompute."""

from __future__ import annotations

import threading
import time

import pytest
from django.db import connection, connections, transaction
from django.utils import translation

from scoring.models import StandingsSnapshot
from scoring.services import current_export
from tests.conftest import real_services_available, start_worker, stop_worker
from tests.test_recompute import kill_worker_mid_recompute, wait_for_version
from tournaments.admin import VersionedForm
from tournaments.importer import import_document
from tournaments.models import Game
from tournaments.synthetic import mafia_league


class GameResultForm(VersionedForm):
    class Meta:
        model = Game
        fields = ["status", "outcome", "game_days"]


def _save_in_thread(game_id: int, seen: int, outcome: str, barrier: threading.Barrier, results: dict) -> None:
    try:
        with translation.override("en"), transaction.atomic():
            game = Game.objects.get(pk=game_id)
            form = GameResultForm(data={"status": "played", "outcome": outcome, "game_days": 3,
                                        "seen_version": seen}, instance=game)
            barrier.wait(timeout=10)
            if form.is_valid():
                saved = form.save(commit=False)
                saved.version = Game.objects.values_list("version", flat=True).get(pk=game_id) + 1
                saved.updated_by = f"organizer-{outcome}"
                time.sleep(0.3)
                saved.save()
                results[outcome] = "saved"
            else:
                results[outcome] = " ".join(form.non_field_errors())
    finally:
        connections.close_all()


@pytest.mark.django_db(transaction=True)
def test_two_organizers_saving_the_same_game_at_once_never_overwrite_silently():
    """The second save waits for the first one's row lock, then is refused with "changed by X at T"."""
    if connection.vendor != "postgresql":
        pytest.skip("row locks need PostgreSQL (.ci/run runs this against it)")
    tournament = import_document(mafia_league(games=3, teams=9, seed=1))
    game = Game.objects.get(stage__tournament=tournament, number=1)
    barrier = threading.Barrier(2)
    results: dict[str, str] = {}
    threads = [threading.Thread(target=_save_in_thread, args=(game.pk, game.version, outcome, barrier, results))
               for outcome in ("mafia", "civilians")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)
    assert list(results.values()).count("saved") == 1, results
    refused = [text for text in results.values() if text != "saved"]
    assert len(refused) == 1 and "reload" in refused[0] and "organizer-" in refused[0]
    game.refresh_from_db()
    assert game.version == 2
    assert results[game.outcome] == "saved"


@pytest.mark.django_db(transaction=True)
def test_an_outdated_form_is_refused_on_any_database():
    tournament = import_document(mafia_league(games=2, teams=9, seed=2))
    game = Game.objects.get(stage__tournament=tournament, number=1)
    Game.objects.filter(pk=game.pk).update(version=5, updated_by="alice")
    form = GameResultForm(data={"status": "played", "outcome": "draw", "game_days": 2, "seen_version": 1},
                          instance=game)
    assert not form.is_valid()
    assert "alice" in " ".join(form.non_field_errors())


@pytest.mark.celery_worker
def test_worker_killed_mid_recompute_leaves_the_old_snapshot_stale_and_the_job_is_retried(real_services):
    """SIGKILL during a recompute: the previous table stays (marked stale); a new worker redoes the job."""
    assert real_services_available()
    tournament = import_document(mafia_league(games=1500, teams=15, seed=9, slug="kill-me"))
    worker = start_worker({"CELERY_VISIBILITY_TIMEOUT": "3"})
    try:
        wait_for_version(tournament, seconds=120)
        previous = StandingsSnapshot.objects.get(tournament=tournament, stage_key="").export
        kill_worker_mid_recompute(worker, tournament)
        snap = StandingsSnapshot.objects.get(tournament=tournament, stage_key="")
        tournament.refresh_from_db()
        if snap.facts_version < tournament.facts_version:
            assert snap.stale, "a table older than the facts is marked stale"
            assert snap.export == previous
        time.sleep(4)
    finally:
        stop_worker(worker)
    worker = start_worker({"CELERY_VISIBILITY_TIMEOUT": "3"})
    try:
        snap = wait_for_version(tournament, seconds=120)
        assert not snap.stale
        assert snap.export == current_export(tournament)
    finally:
        stop_worker(worker)

