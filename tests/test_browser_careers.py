"""Careers in Debian's chromium: the site-wide ranking by role from the site's menu, its form (a bad date
refused with its message beside the field), a player's results by role and a ChGK team's season history, at
390 px, in Russian and in English. The fixtures are ``tests/browser.py``'s (the demo, served)."""

from __future__ import annotations

import re

import pytest
from django.utils import translation

from tests.browser import BROWSER, html_lang, page_width

pytestmark = BROWSER


def t(text: str, language: str, context: str | None = None) -> str:
    with translation.override(language):
        return str(translation.pgettext(context, text) if context else translation.gettext(text))


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_ranking_by_role_from_the_menu_to_a_player_and_back_at_phone_width(demo_site, page_factory, language):
    page = page_factory(width=390, locale=language)
    page.goto("/")
    with page.expect_navigation():
        page.locator('.site-nav a[href="/players/rankings/"]').click()
    assert html_lang(page) == language
    assert page.locator("h1").inner_text().startswith(t("Site-wide ranking by role", language))
    assert page.locator(".role-ranking tbody tr").count() >= 5
    assert page_width(page) <= 390
    page.select_option("#id_role", "don")
    page.fill("#id_min_games", "2")
    with page.expect_navigation():
        page.locator(".ranking-form button[type=submit]").click()
    assert "role=don" in page.url and "min_games=2" in page.url
    assert page.locator("h1").inner_text().endswith(t("don", language))
    first = page.locator(".role-ranking tbody tr a").first
    with page.expect_navigation():
        first.click()
    assert re.search(r"/players/\d+/$", page.url)
    roles = page.locator(".role-figures tbody tr")
    assert roles.count() >= 1 and page.locator(".role-figures").inner_text().count("%") >= 2
    assert page.locator("#roles-heading").inner_text() == t("Mafia results by role", language)
    assert page_width(page) <= 390


@pytest.mark.parametrize("language", ["ru", "en"])
def test_a_bad_period_is_named_beside_its_field_and_shows_no_ranking(demo_site, page_factory, language):
    page = page_factory(width=390, locale=language)
    answer = page.goto("/players/rankings/?from=2016-13-01")
    assert answer.status == 400
    assert page.locator("#from-error").inner_text().strip() == t("A date is written YYYY-MM-DD, e.g. 2016-07-04.",
                                                                  language)
    assert page.locator(".role-ranking").count() == 0
    page.goto("/players/rankings/")
    page.fill("#id_from", "2016-07-05")
    page.fill("#id_to", "2016-07-04")
    with page.expect_navigation():
        page.locator(".ranking-form button[type=submit]").click()
    with translation.override(language):
        expected = str(translation.gettext("The period ends before it starts: %(to)s is before %(from)s.")) % {
            "to": "2016-07-04", "from": "2016-07-05"}
    assert page.locator("#to-error").inner_text().strip() == expected
    assert page_width(page) <= 390


@pytest.mark.parametrize("language", ["ru", "en"])
def test_a_chgk_captains_page_shows_the_teams_season_history(demo_site, page_factory, language):
    page = page_factory(width=390, locale=language)
    page.goto("/t/mubk-spring/")
    with page.expect_navigation():
        page.locator('a[href^="/t/mubk-spring/teams/"]').first.click()
    captain = page.locator('main a[href^="/players/"]:not([href^="/players/rankings"])').first
    with page.expect_navigation():
        captain.click()
    assert page.locator("#seasons-heading").inner_text() == t("ChGK seasons", language)
    assert page.locator(".season-history tbody tr").count() >= 2
    assert page_width(page) <= 390
