"""The figures pages show are stored in the database by the recompute (design.md principle 3).

A game's seat points and a tour's table are written in the recompute's transaction beside the standings, so a
page served by any process shows them, whatever cache that process has; the recompute after one result rewrites
only the blocks of games that changed, and what it stores always equals the figures derived from scratch.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.cache import cache

from scoring import figures
from scoring.models import PageFigures, StandingsSnapshot
from scoring.services import recompute
from tournaments.importer import import_document
from tournaments.loader import load_facts
from tournaments.models import Game, Tour, Tournament
from tournaments.synthetic import chgk_season, mafia_league

pytestmark = pytest.mark.django_db(transaction=True)

DEMO = Path(__file__).resolve().parent.parent / "tournaments" / "demo_data"


def stored(tournament: Tournament) -> dict[tuple[str, str, int], object]:
    return {(kind, stage_key, block): data for kind, stage_key, block, data in PageFigures.objects.filter(
        tournament=tournament).values_list("kind", "stage_key", "block", "data")}


def from_scratch(tournament: Tournament) -> dict[tuple[str, str, int], object]:
    tournament = Tournament.objects.get(pk=tournament.pk)
    return figures.compute_figures(load_facts(tournament))


def forget_process() -> None:
    """What another process would have: no cache, no blocks derived before."""
    cache.clear()
    figures._Derived.kept.clear()


def test_the_recompute_stores_every_game_and_tour_figure_in_the_database():
    league = import_document(mafia_league(games=250, seed=3, slug="figures-league"))
    season = import_document(chgk_season(teams=8, tours=4, seed=3, slug="figures-season"))
    for tournament in (league, season):
        recompute(tournament.pk, force=True)
        assert stored(tournament) == from_scratch(tournament)
        version = Tournament.objects.get(pk=tournament.pk).facts_version
        assert set(PageFigures.objects.filter(tournament=tournament).values_list("facts_version", flat=True)) == {
            version} == {StandingsSnapshot.objects.get(tournament=tournament, stage_key="").facts_version}
    assert {kind for kind, _s, _b in stored(league)} == {"seats"}
    assert {block for _k, _s, block in stored(season)} == set(Tour.objects.filter(
        stage__tournament=season).values_list("number", flat=True))


def test_after_one_result_only_the_changed_block_is_written_and_equals_a_computation_from_scratch():
    league = import_document(mafia_league(games=250, seed=4, slug="figures-one"))
    recompute(league.pk, force=True)
    before = stored(league)
    game = Game.objects.filter(stage__tournament=league).order_by("number").first()
    game.outcome = "mafia" if game.outcome != "mafia" else "civilians"
    game.save()
    recompute(league.pk)
    after = stored(league)
    assert after == from_scratch(league)
    changed = {key for key in after if after[key] != before.get(key)}
    assert changed == {("seats", game.stage.key, game.number // figures.BLOCK)}


def test_a_block_of_seat_points_is_written_as_json_dumps_writes_its_figures():
    """A block's text (and so its digest) is ``json.dumps`` of its figures, games by number: built from each
    seat's text, it is the encoder's own, and a block stored before compares equal."""
    league = import_document(mafia_league(games=250, seed=6, slug="figures-text"))
    recompute(league.pk, force=True)
    digests = {(kind, stage_key, block): digest for kind, stage_key, block, digest in PageFigures.objects.filter(
        tournament=league).values_list("kind", "stage_key", "block", "digest")}
    blocks = {key: games for key, games in from_scratch(league).items() if key[0] == figures.SEATS}
    assert blocks and len(blocks) == len(digests)
    for key, games in blocks.items():
        text = json.dumps({number: games[number] for number in sorted(games, key=int)})
        assert digests[key] == figures._text_digest(text)


def test_a_block_another_process_wrote_differently_is_written_again():
    """The process's memory of derived blocks is a speed-up: the stored digest decides what is written."""
    league = import_document(mafia_league(games=120, seed=5, slug="figures-other"))
    recompute(league.pk, force=True)
    row = PageFigures.objects.filter(tournament=league).first()
    PageFigures.objects.filter(pk=row.pk).update(data={"tampered": True}, digest="x")
    Tournament.objects.filter(pk=league.pk).update(facts_version=league.facts_version + 5)
    recompute(league.pk)
    assert stored(league) == from_scratch(league)


def test_a_game_page_in_a_fresh_process_shows_the_stored_seat_points(client):
    league = import_document(mafia_league(games=30, seed=6, slug="figures-page"))
    recompute(league.pk, force=True)
    forget_process()
    game = Game.objects.select_related("stage").filter(stage__tournament=league, status="played").first()
    response = client.get(f"/t/{league.slug}/{game.stage.key}/games/{game.number}/")
    assert response.status_code == 200
    assert response.context["has_points"] and not response.context["figures"].pending
