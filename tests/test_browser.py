"""The demo's pages in a real browser: headless Debian chromium driven by Playwright.

The shared fixtures are ``tests/browser.py``'s (skipped, with the reason, without ``playwright`` or chromium).
A screenshot of a standings page is written to ``tests/output/standings.png`` (an artifact, not in the repo).
"""

from __future__ import annotations

import os
import re

import pytest

from tests.browser import BROWSER, OUTPUT, html_lang

pytestmark = BROWSER


@pytest.fixture
def page(demo_site, page_factory):
    return page_factory(1280, "ru")


def test_demo_pages_in_both_languages_and_links_from_standings_to_team_to_game(page, demo_site):
    page.goto(f"{demo_site}/t/mt-example/")
    assert html_lang(page) == "ru"
    assert page.locator("#standings-heading").inner_text().startswith("Турнирная таблица")
    assert page.locator(".standings-table tbody tr").count() == 9

    with page.expect_navigation():
        page.click('.language-switch button[value="en"]')
    assert html_lang(page) == "en"
    assert page.url.endswith("/t/mt-example/")
    assert page.locator("#standings-heading").inner_text().startswith("Standings")
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / "standings.png"), full_page=True)

    with page.expect_navigation():
        page.locator(".standings-table tbody tr").first.locator("a").first.click()
    assert re.search(r"/t/mt-example/teams/\d+/$", page.url)
    assert page.locator("#roster-heading").is_visible()

    with page.expect_navigation():
        page.locator(".team-games tbody a").first.click()
    assert re.search(r"/t/mt-example/final/games/\d+/$", page.url)
    assert page.locator(".seats-table tbody tr").count() == 9

    with page.expect_navigation():
        page.click('.language-switch button[value="ru"]')
    assert html_lang(page) == "ru"
    assert page.locator("#seats-heading").inner_text().startswith("Участники игры")


def test_chgk_demo_tour_page_and_phone_width(page, demo_site):
    page.set_viewport_size({"width": 375, "height": 800})
    page.goto(f"{demo_site}/t/demo-chgk-season/")
    assert page.locator(".standings-table tbody tr").count() >= 10
    assert page.locator("svg polyline").count() >= 10
    assert page.evaluate("document.documentElement.scrollWidth") <= 376  # wide tables scroll inside their wrapper
    with page.expect_navigation():
        page.locator('.tours-table a[href$="/tours/3/"]').click()
    assert page.locator(".matrix th.removed").count() == 1
    assert page.evaluate("document.documentElement.scrollWidth") <= 376
    OUTPUT.mkdir(exist_ok=True)
    page.screenshot(path=str(OUTPUT / "tour-phone.png"), full_page=True)
    assert os.path.getsize(OUTPUT / "tour-phone.png") > 0
