"""The pages that span the site run no more queries for 30 tournaments than for 3.

The site alternates small ``family_league`` finals and ChGK seasons from ``tournaments.synthetic``; their
generators name players by team (``Fam01-p1``, ``Team01 captain``), so the same players play in every
tournament of their ruleset and their pages span the whole site. ``benchmarks/site_pages.py`` measures the same
pages (and their time) at 10, 100 and 1,000 tournaments.
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Player
from scoring.services import recompute
from tournaments.importer import import_document
from tournaments.synthetic import chgk_season, mafia_league

LIMIT = 8  # every page of the site within 8 queries
MAFIA_STAR, CHGK_STAR = "Fam01-p1", "Team01 captain"


def grow(tournaments: list, size: int) -> None:
    """Import and recompute tournaments until there are ``size``; every other one a league, then a season."""
    while len(tournaments) < size:
        index = len(tournaments)
        if index % 2:
            document = chgk_season(teams=4, seed=index, slug=f"site-{index}")
        else:
            document = mafia_league(games=4, teams=4, seed=index, players_per_team=1, slug=f"site-{index}")
        tournament = import_document(document)
        recompute(tournament.pk, force=True)
        tournaments.append(tournament)


def paths() -> list[str]:
    mafia = Player.objects.get(nick=MAFIA_STAR).pk
    chgk = Player.objects.get(nick=CHGK_STAR).pk
    return [
        "/",
        "/api/v1/tournaments/?ruleset=chgk_tour_points",
        "/api/v1/tournaments/?ruleset=family_league&status=draft",
        "/api/v1/games/?stage=final",
        "/api/v1/games/?page_size=200",
        f"/api/v1/games/?player={MAFIA_STAR}",
        "/search/?q=Team01",
        "/search/?q=Fam",
        f"/players/{mafia}/",
        f"/players/{mafia}/?tournaments_page=2&page=2",
        f"/players/{chgk}/",
    ]


def queries(client, path: str, number: int) -> int:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path, REMOTE_ADDR=f"10.0.{number // 256}.{number % 256}")
    assert response.status_code == 200, (path, response.status_code, response.content[:300])
    return len(captured)


@pytest.mark.django_db
def test_site_wide_pages_run_no_more_queries_for_30_tournaments_than_for_3(client, django_assert_max_num_queries):
    """Home, the filtered API lists, the search and a player's page across tournaments stay
    within 8 queries and do not run more queries as the site grows from 3 to 30 tournaments. (The player's
    second page of tournaments is past the end at 3: the last page is read in one more query.)"""
    tournaments: list = []
    counts: dict[int, dict[str, int]] = {}
    for size in (3, 30):
        grow(tournaments, size)
        counts[size] = {}
        for number, path in enumerate(paths()):
            client.get(path, REMOTE_ADDR="10.1.0.1")  # warm: the first request may fill a cache
            with django_assert_max_num_queries(LIMIT):
                counts[size][path] = queries(client, path, number)
    assert all(counts[30][path] <= counts[3][path] for path in counts[3]), counts


@pytest.mark.django_db
def test_a_players_page_spans_every_tournament_of_the_site(client):
    """The shared player of the synthetic leagues plays in each of them: the page names all of them."""
    tournaments: list = []
    grow(tournaments, 6)
    player = Player.objects.get(nick=MAFIA_STAR)
    body = client.get(f"/players/{player.pk}/").content.decode()
    leagues = [t for t in tournaments if t.ruleset == "family_league"]
    assert len(leagues) == 3
    assert all(f"/t/{t.slug}/" in body for t in leagues)
