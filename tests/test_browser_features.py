"""Pages people look for, in Debian's chromium: the rules page and its links, the ChGK season grid,
penalty markers, player rankings, search and live standings (both languages where text matters, 390 px where
layout matters). The fixtures are ``tests/browser.py``'s: every request to another host fails the test.
"""

from __future__ import annotations

import re

import pytest
from django.contrib.auth import get_user_model
from django.utils import translation

from scoring.models import StandingsSnapshot
from scoring.services import recompute
from tests.browser import BROWSER, html_lang, page_width
from tournaments import commands
from tournaments.models import Tournament

pytestmark = BROWSER

LEAGUE = "mt-example"  # family_league demo: Fam03's two_players (FL-15.3) in game 4 of the final
CHGK = "mubk-spring"
CB = "demo-class-balanced"  # generated demo: three stages played, a best player (CB-14)
WAIT = 15_000  # ms: live.js polls every 3 s


def t(text: str, language: str) -> str:
    with translation.override(language):
        return str(translation.gettext(text))


@pytest.mark.parametrize("language", ["ru", "en"])
def test_rule_code_on_the_game_page_opens_its_explanation_on_the_rules_page(demo_site, page_factory, language):
    """FL-15.3 on the game page links to /t/SLUG/rules/#FL-15.3, which explains it in the reader's language."""
    page = page_factory(width=390, locale=language)
    page.goto(f"/t/{LEAGUE}/final/games/4/")
    with page.expect_navigation():
        page.locator('a.rule-link[href$="#FL-15.3"]').first.click()
    assert page.url.endswith(f"/t/{LEAGUE}/rules/#FL-15.3")
    assert html_lang(page) == language
    target = page.locator(".rule:target")
    assert target.get_attribute("id") == "FL-15.3"
    assert target.is_visible()
    assert page.locator("#scoring-heading").inner_text() == t("Scoring", language)
    assert page.locator(".tie-breaks li").count() >= 2
    assert page_width(page) <= 390


@pytest.mark.parametrize("language", ["ru", "en"])
def test_chgk_season_grid_from_the_tournament_header_at_phone_width(demo_site, page_factory, language):
    """CHGK-16: teams by tours, each cell place, points and correct answers; wide grids scroll inside their wrapper at 390 px."""
    page = page_factory(width=390, locale=language)
    page.goto(f"/t/{CHGK}/")
    with page.expect_navigation():
        page.locator(f'.tournament-nav a[href="/t/{CHGK}/chgk/grid/"]').click()
    assert page.locator("h1").inner_text() == t("Season grid", language)
    rows = page.locator(".season-grid tbody tr")
    assert rows.count() >= 5
    played = page.locator(".season-grid td.grid-played")
    assert played.count() > 0
    # place, points and the correct answers of the tour
    place, points, answers = played.first.inner_text().strip().splitlines()
    assert re.fullmatch(r"\d+(-\d+)?", place) and re.fullmatch(r"\d+([.,]\d+)?", points)
    assert re.search(r"\d", answers)
    assert page_width(page) <= 390


def test_penalty_marker_in_a_standings_row_links_to_its_game(demo_site, page_factory):
    """FL-16: Fam03's row shows −0,1 and the marker opens game 4, where the violation is."""
    page = page_factory(width=1280, locale="ru")
    page.goto(f"/t/{LEAGUE}/")
    marker = page.locator(".standings-table tr", has_text="Fam03").locator(".penalty-marker")
    assert marker.count() == 1
    assert marker.inner_text() == "−0,1"
    assert "FL-15.3" in marker.get_attribute("title")
    with page.expect_navigation():
        marker.click()
    assert page.url.endswith(f"/t/{LEAGUE}/final/games/4/")


@pytest.mark.parametrize("language", ["ru", "en"])
def test_player_rankings_of_both_mafia_formats_link_their_players(demo_site, page_factory, language):
    """family_league's players by points; class_balanced's by average with the best player (CB-14) linked."""
    page = page_factory(width=390, locale=language)
    page.goto(f"/t/{LEAGUE}/")
    with page.expect_navigation():
        page.locator(f'.tournament-nav a[href="/t/{LEAGUE}/family/players/"]').click()
    assert page.locator("h1").inner_text().startswith(t("Player rankings", language))
    assert page.locator(".player-rankings tbody tr").count() > 5
    assert page_width(page) <= 390
    page.goto(f"/t/{CB}/")
    with page.expect_navigation():
        page.locator(f'.tournament-nav a[href="/t/{CB}/cb/players/"]').click()
    assert page.locator(".player-rankings tr.best").count() >= 1
    best = page.locator(".best-player a")
    nick = best.first.inner_text()
    with page.expect_navigation():
        best.first.click()
    assert re.search(r"/players/\d+/$", page.url)
    assert nick in page.locator("h1").inner_text()


@pytest.mark.parametrize("language", ["ru", "en"])
def test_search_box_in_the_header_finds_a_team_and_opens_it(demo_site, page_factory, language):
    page = page_factory(width=390, locale=language)
    page.goto("/")
    page.fill("#site-search-q", "fam03")
    with page.expect_navigation():
        page.press("#site-search-q", "Enter")
    assert "/search/?q=fam03" in page.url
    assert page.locator("#teams-found").inner_text() == t("Teams", language)
    assert page.locator(".players-found a").count() >= 1  # Fam03-p1 ... whatever the case
    assert page_width(page) <= 390
    with page.expect_navigation():
        page.locator(".teams-found a", has_text="Fam03").first.click()
    assert re.search(rf"/t/{LEAGUE}/teams/\d+/$", page.url)


def test_live_standings_show_a_saved_result_without_a_reload_and_say_updating(demo_site, page_factory):
    """A penalty saved while the page is open appears in the table within seconds, no reload; a pending
    recompute shows "updating" until the new table is stored (design principle 3)."""
    page = page_factory(width=1280, locale="en")
    page.goto(f"/t/{LEAGUE}/")
    page.evaluate("window.__sameDocument = true")
    row = page.locator(".standings-table tr", has_text="Fam06")
    assert row.locator(".penalty-marker").count() == 0
    badge = page.locator(".live-badge")
    assert badge.is_hidden()

    tournament = Tournament.objects.get(slug=LEAGUE)
    StandingsSnapshot.objects.filter(tournament=tournament).update(stale=True)
    badge.wait_for(state="visible", timeout=WAIT)
    assert badge.inner_text() == t("updating…", "en")

    admin = get_user_model().objects.get(username="admin")
    commands.record_penalty(admin, {"tournament": LEAGUE, "stage": "final", "team": "Fam06", "game": 1,
                                    "kind": "fair_play", "code": "FP-11", "points": "5"})
    recompute(tournament.pk)  # the on-commit job ran already; this one also clears the stale mark set above
    page.locator(".standings-table tr", has_text="Fam06").locator(".penalty-marker").wait_for(timeout=WAIT)
    page.locator(".live-badge").wait_for(state="hidden", timeout=WAIT)
    assert page.evaluate("window.__sameDocument") is True  # swapped in place, not reloaded
    assert "−5" in page.locator(".standings-table tr", has_text="Fam06").locator(".penalty-marker").inner_text()
