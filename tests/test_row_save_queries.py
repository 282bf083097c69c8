"""One fact row saved on its own (the admin's change form): its tournament is read once, for the history entry
and the recompute signal together (the writer of a game evening shares the workers' machine;
the entry still names the tournament)."""

from __future__ import annotations

import pytest

from tests.conftest import example
from tournaments import audit
from tournaments.importer import import_document
from tournaments.models import AuditEntry, Mask, Seat, Tournament
from tournaments.signals import tournament_id_of, tournament_ref

pytestmark = pytest.mark.django_db


def _saved(row, django_assert_num_queries, queries: int) -> AuditEntry:
    AuditEntry.objects.all().delete()
    with django_assert_num_queries(queries) as captured:
        row.save()
    assert sum(q["sql"].startswith('SELECT "tournaments_tournament"') for q in captured.captured_queries) == 1
    [entry] = AuditEntry.objects.all()
    return entry


def test_a_seat_saved_alone_reads_its_tournament_once_for_history_and_recompute(django_assert_num_queries):
    tournament = import_document(example("family_league"))
    seat = Seat.objects.filter(game__stage__tournament=tournament).order_by("pk").first()
    seat.timed_out = not seat.timed_out
    # the row before, the update, the tournament, the player (the entry's text), the entry, two version bumps
    entry = _saved(seat, django_assert_num_queries, 7)
    assert (entry.tournament_id, entry.tournament_slug, entry.model) == (tournament.pk, tournament.slug,
                                                                         "tournaments.Seat")
    assert entry.after == {"timed_out": seat.timed_out}
    fresh = Tournament.objects.get(pk=tournament.pk)
    assert fresh.facts_version == tournament.facts_version + 1
    assert seat.game.__class__.objects.get(pk=seat.game_id).revision == fresh.facts_version


def test_a_mask_saved_alone_reads_its_tournament_once_not_its_tour_and_stage(django_assert_num_queries):
    tournament = import_document(example("chgk_tour_points"))
    mask = Mask.objects.filter(tour__stage__tournament=tournament).order_by("pk").first()
    mask.mask = "".join("0" if c == "1" else "1" for c in mask.mask)
    # the row before, the update, the tournament, the team (the entry's text), the entry, the version bump
    entry = _saved(mask, django_assert_num_queries, 6)
    assert (entry.tournament_id, entry.tournament_slug) == (tournament.pk, tournament.slug)
    assert Tournament.objects.get(pk=tournament.pk).facts_version == tournament.facts_version + 1


def test_a_row_with_its_relations_loaded_needs_no_query_for_its_tournament(django_assert_num_queries):
    tournament = import_document(example("family_league"))
    seat = Seat.objects.select_related("game__stage").filter(game__stage__tournament=tournament).first()
    with django_assert_num_queries(0):
        assert tournament_id_of(seat) == tournament.pk
    seat.timed_out = not seat.timed_out
    with audit.muted(), django_assert_num_queries(3):  # the update and the two version bumps
        seat.save()


def test_the_tournament_read_for_one_save_is_not_reused_for_another_row_or_relation():
    tournament = import_document(example("family_league"))
    other = import_document({**example("family_league"), "tournament": {
        **example("family_league")["tournament"], "slug": "other-league"}})
    seat = Seat.objects.filter(game__stage__tournament=tournament).first()
    moved = Seat.objects.filter(game__stage__tournament=other).first()
    audit.record("update", seat, {}, {})  # leaves the tournament on the row for this save's signal
    seat.game_id = moved.game_id  # the row now names another game before the signal reads it
    assert tournament_id_of(seat) == other.pk
    assert tournament_ref(moved) == (other.pk, "other-league")
    assert tournament_ref(Seat(game_id=moved.game_id + 10**6)) is None  # a game that is gone names none
