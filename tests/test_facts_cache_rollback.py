"""The loader's per-process facts cache (``tournaments.game_cache``) never keeps facts of a transaction that
rolled back: the versions a rolled-back change took are taken again by the next change, so facts read inside it
and kept under them would be served as the next change's."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import transaction

from tests.conftest import example
from tournaments import game_cache
from tournaments.changes import mark_changed
from tournaments.importer import import_document
from tournaments.loader import load_facts
from tournaments.models import Penalty, Team, Tournament

pytestmark = pytest.mark.django_db(transaction=True)


class RolledBack(Exception):
    pass


def penalty(tournament: Tournament, points: str) -> None:
    team = Team.objects.filter(tournament=tournament).order_by("pk").first()
    Penalty.objects.create(tournament=tournament, team=team, kind="fair_play", points=Decimal(points))
    mark_changed(tournament.pk)


def test_facts_read_inside_a_rolled_back_change_are_not_kept_for_the_next_change():
    tournament = import_document(example("family_league"))
    load_facts(tournament)
    with pytest.raises(RolledBack), transaction.atomic():
        penalty(tournament, "1")
        inside = Tournament.objects.get(pk=tournament.pk)
        assert Decimal("1") in {p.points for p in load_facts(inside).penalties}
        rolled_back_key = game_cache.tournament_key(inside)
        raise RolledBack
    assert game_cache.cached_context(tournament.pk, rolled_back_key) is None
    penalty(tournament, "2")
    again = Tournament.objects.get(pk=tournament.pk)
    assert game_cache.tournament_key(again) == rolled_back_key  # the next change took the same versions
    served = load_facts(again)
    game_cache.forget()
    assert served.penalties == load_facts(again).penalties
    assert Decimal("1") not in {p.points for p in served.penalties}


def test_facts_read_in_a_committed_transaction_are_kept_once_it_commits():
    tournament = import_document(example("family_league"))
    game_cache.forget()
    with transaction.atomic():
        current = Tournament.objects.get(pk=tournament.pk)
        load_facts(current, current=True)
        assert game_cache.cached_context(tournament.pk, game_cache.tournament_key(current)) is None
    assert game_cache.cached_context(tournament.pk, game_cache.tournament_key(current)) is not None
