"""The demo's pages in a real browser: headless Debian chromium driven by Playwright (issue 5).

Skipped, with the reason, where the ``playwright`` package or ``/usr/bin/chromium`` is missing.
A screenshot of a standings page is written to ``tests/output/standings.png`` (an artifact, not in the repo).
"""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

import pytest

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
OUTPUT = Path(__file__).resolve().parent / "output"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(sync_playwright is None, reason="the python package playwright is not installed"),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium (/usr/bin/chromium) is not installed"),
]


@pytest.fixture
def demo_site(transactional_db, live_server, monkeypatch):
    """The demo's tournaments with their snapshots, served by a live server."""
    from django.core.management import call_command

    call_command("demo", password="browser-test-password", stdout=io.StringIO())
    # Playwright's sync API runs an event loop in this thread; the ORM calls below are plain and safe.
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    return live_server.url


@pytest.fixture
def page(demo_site):
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        context = browser.new_context(viewport={"width": 1280, "height": 900}, locale="ru-RU")
        yield context.new_page()
        context.close()
        browser.close()


def html_lang(page) -> str:
    return page.evaluate("document.documentElement.lang")


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
