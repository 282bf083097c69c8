"""A player's page lists the player's tournaments a page at a time, newest first.

The page reads the snapshots of the shown tournaments only (on PostgreSQL only the player's rows of them), so
it runs the same queries whether the player plays in 3 tournaments or in 30. The page size is patched down to 2
here (``portal.views.people.TOURNAMENTS_PAGE``) so that a few small leagues make several pages.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import translation

from accounts.models import Player
from portal.labels import SIDES, stage_label
from portal.views import people
from rulesets.facts import SIDE_OF_ROLE
from scoring.models import StandingsSnapshot
from scoring.services import recompute
from tournaments.importer import import_document
from tournaments.models import Seat, Tournament
from tournaments.synthetic import mafia_league

LIMIT = 8  # every page of the site within 8 queries
STAR = "Fam01-p1"  # mafia_league names players by team: this one plays in every league


@pytest.fixture
def small_pages(monkeypatch):
    monkeypatch.setattr(people, "TOURNAMENTS_PAGE", 2)


def grow(leagues: list[Tournament], size: int) -> None:
    """Small leagues until there are ``size``, league ``i`` starting ``i`` weeks after the first."""
    while len(leagues) < size:
        index = len(leagues)
        tournament = import_document(mafia_league(games=4, teams=4, seed=index, players_per_team=1,
                                                  slug=f"pages-{index}"))
        Tournament.objects.filter(pk=tournament.pk).update(
            starts_on=dt.date(2020, 1, 6) + dt.timedelta(weeks=index), name=f"League number {index:02d}")
        recompute(tournament.pk, force=True)
        leagues.append(Tournament.objects.get(pk=tournament.pk))


def page(client, query: str = "", language: str = "en") -> str:
    client.cookies["django_language"] = language
    response = client.get(f"/players/{Player.objects.get(nick=STAR).pk}/{query}")
    assert response.status_code == 200
    return response.content.decode()


def listed(html: str) -> list[str]:
    """The tournament names of the page's list of tournaments, in order."""
    start = html.index('aria-labelledby="tournaments-heading"')
    part = html[start:html.index("</section>", start)]
    return re.findall(r"League number \d\d", part)


@pytest.mark.django_db
def test_player_page_lists_the_newest_tournaments_first_and_the_older_ones_on_page_2(client, small_pages):
    leagues: list[Tournament] = []
    grow(leagues, 5)
    assert listed(page(client)) == ["League number 04", "League number 03"]
    assert listed(page(client, "?tournaments_page=2")) == ["League number 02", "League number 01"]
    assert listed(page(client, "?tournaments_page=3")) == ["League number 00"]


@pytest.mark.django_db
def test_player_page_shows_its_tournament_pager_whose_links_start_the_games_again(client, small_pages):
    leagues: list[Tournament] = []
    grow(leagues, 5)
    html = page(client, "?page=2&tournaments_page=2&stage=x")
    pager = re.search(r'<nav class="pager" aria-label="Pages of tournaments">(.*?)</nav>', html, re.S)
    assert pager, "the list of tournaments has a pager"
    assert "page 2 of 3" in pager.group(1)
    assert 'href="?tournaments_page=1&amp;stage=x" rel="prev"' in pager.group(1)  # the games start again
    assert 'href="?tournaments_page=3&amp;stage=x" rel="next"' in pager.group(1)
    assert "5 tournaments, newest first." in html
    russian = page(client, "?tournaments_page=2", "ru")
    assert re.search(r'<nav class="pager"[^>]*>\s*<a href="\?tournaments_page=1" rel="prev">← назад</a>\s*'
                     r'<span>страница 2 из 3</span>\s*<a href="\?tournaments_page=3" rel="next">дальше →</a>', russian)


@pytest.mark.django_db
def test_player_page_shows_the_players_figures_and_awards_of_the_tournaments_on_its_page(client, small_pages):
    leagues: list[Tournament] = []
    grow(leagues, 3)
    oldest = leagues[0]
    snapshot = StandingsSnapshot.objects.get(tournament=oldest, stage_key="final")
    assert not snapshot.export.get("players")  # a league ranks families: the page shows the details' figures
    mine = next(p for p in snapshot.details["details"]["players"] if p["player"] == STAR)
    award = next(a for a in snapshot.export["awards"] if a["team"] == "Fam01")
    html = page(client, "?tournaments_page=2")
    tournaments = html[html.index('aria-labelledby="tournaments-heading"'):
                       html.index('aria-labelledby="games-heading"')]
    row = re.sub(r"\s+", " ", tournaments[tournaments.index(f'<a href="/t/{oldest.slug}/">'):])
    row = row[:row.index("</tr>")]
    assert f'<td class="num"><span class="stage-value">{mine["games"]}</span></td>' in row
    assert f'<td class="num"><span class="stage-value">{mine["points"]:g}</span></td>' in row
    awards = html[html.index('aria-labelledby="awards-heading"'):html.index('aria-labelledby="tournaments-heading"')]
    assert "In the tournaments listed on this page." in awards
    assert f"{oldest.name}</a> (final):" in awards and f"place {award['place']}" in awards
    assert leagues[2].name not in awards  # the newest league is on page 1, its awards with it


@pytest.mark.django_db
def test_player_page_lists_the_games_of_the_tournaments_on_its_page(client, small_pages):
    leagues: list[Tournament] = []
    grow(leagues, 3)
    html = page(client, "?tournaments_page=2")
    games = html[html.index('aria-labelledby="games-heading"'):]
    games = games[:games.index("</section>")]
    assert "In the tournaments listed on this page." in games
    assert f"/t/{leagues[0].slug}/final/games/" in games
    assert not any(f"/t/{league.slug}/" in games for league in leagues[1:])
    assert len(re.findall(r"/final/games/\d+/", games)) == Seat.objects.filter(
        player__nick=STAR, game__stage__tournament=leagues[0]).count()


@pytest.mark.django_db
def test_player_page_runs_the_same_queries_for_3_and_7_tournaments(client, small_pages,
                                                                    django_assert_max_num_queries):
    leagues: list[Tournament] = []
    counts = {}
    for size in (3, 7):
        grow(leagues, size)
        page(client)  # warm
        for query in ("", "?tournaments_page=2"):
            with django_assert_max_num_queries(LIMIT), CaptureQueriesContext(connection) as captured:
                page(client, query)
            counts[size, query] = len(captured)
    assert counts[3, ""] == counts[7, ""] == counts[3, "?tournaments_page=2"] == counts[7, "?tournaments_page=2"], \
        counts


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["en", "ru"])
def test_player_page_game_rows_name_the_game_the_role_and_its_side_and_the_outcome(client, language):
    """Each row as the model's own labels give it: the stage and number, the role (its side), the outcome or else
    the game's status, "timed out" where the player timed out; the links of the tournament, game and team."""
    leagues: list[Tournament] = []
    grow(leagues, 1)
    Seat.objects.filter(player__nick=STAR, game__number=2).update(timed_out=True)
    html = page(client, language=language)
    games = html[html.index('aria-labelledby="games-heading"'):]
    seats = Seat.objects.filter(player__nick=STAR).select_related("game__stage__tournament", "team").order_by(
        "game__number")
    assert seats.count() == games.count("<tr><td>")
    with translation.override(language):
        for seat in seats:
            game, tournament = seat.game, seat.game.stage.tournament
            side = SIDES.get(SIDE_OF_ROLE.get(seat.role), "")
            row = (f'<tr><td><a href="/t/{tournament.slug}/">{tournament.name}</a></td>\n'
                   f'        <td><a href="/t/{tournament.slug}/final/games/{game.number}/">{stage_label("final")}, '
                   f'{translation.gettext("game %(number)s") % {"number": game.number}}</a></td>\n'
                   f'        <td><a href="/t/{tournament.slug}/teams/{seat.team_id}/">{seat.team.name}</a></td>\n'
                   f'        <td>{seat.get_role_display()} ({side})'
                   f'{" · " + translation.gettext("timed out") if seat.timed_out else ""}</td>\n'
                   f'        <td>{game.get_outcome_display() if game.outcome else game.get_status_display()}</td></tr>')
            assert row in games, row
    assert games.count(" · ") == 1
