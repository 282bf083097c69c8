"""Words in Chromium (``tests/browser.py``): the history reads as an audit trail within the
page, the rulesets' sentences and the form's problems are in the reader's language, every seat's problem at once.

Every page here fails its test on a request to another host (``page_factory``'s guard).
"""

from __future__ import annotations

import pytest
from django.utils import translation

from accounts.models import User
from tests.browser import BROWSER, html_lang, page_width
from tournaments import commands
from tournaments.models import Game, Tour, Tournament

pytestmark = BROWSER


def said(language: str, message: str, context: str | None = None) -> str:
    with translation.override(language):
        return translation.pgettext(context, message) if context else translation.gettext(message)


@pytest.mark.parametrize("language", ["ru", "en"])
def test_history_shows_a_readable_before_and_after_within_1280_px(demo_site, page_factory,
                                                                                  language):
    season = Tournament.objects.get(slug="demo-chgk-season")
    tour = Tour.objects.filter(stage__tournament=season, masks__isnull=False).order_by("number").first()
    masks = {m.team.name: m.mask for m in tour.masks.select_related("team")}
    team = sorted(masks)[0]
    changed = "".join("1" if c == "0" else c for c in masks[team])
    commands.record_tour_masks(User.objects.get(username="admin"), tour.pk,
                               {"masks": {**masks, team: changed}, "version": tour.version})
    page = page_factory(1280, language, user="admin")
    page.goto(f"/t/{season.slug}/history/")
    assert html_lang(page) == language
    entry = page.locator(".history-entry").first
    text = entry.inner_text()
    assert said(language, "changed") in text and said(language, "answer masks") in text
    assert f"{team}: {changed}" in text and f"{team}: {masks[team]}" in text
    after = entry.locator("td.after").first.bounding_box()
    assert after["x"] + after["width"] <= 1280, "the After column is on screen"
    assert page_width(page) <= 1280


@pytest.mark.parametrize("language", ["ru", "en"])
def test_no_ruleset_code_words_on_the_pages(demo_site, page_factory, language):
    """Violation kinds, stage keys and notes are worded: no "two_players", "stage-2", "Preliminary:" on ru pages."""
    page = page_factory(1280, language)
    for tournament in Tournament.objects.order_by("slug"):
        page.goto(tournament.get_absolute_url())
        text = page.locator("main").inner_text()
        for code in ("two_players", "foreign_player", "ineligible_player", "stage-1", "stage-2", "qualifying-1"):
            assert code not in text, (tournament.slug, code)
        if language == "ru":
            assert "Preliminary:" not in text and "tours remain" not in text, tournament.slug
    game = Game.objects.filter(stage__tournament__slug="demo-family-league", seats__isnull=False).first()
    page.goto(f"/t/demo-family-league/{game.stage.key}/games/{game.number}/")
    assert "two_players" not in page.locator("main").inner_text()


@pytest.mark.parametrize(("language", "width"), [("ru", 390), ("en", 1280)])
def test_every_seats_problem_at_once_in_words(demo_site, page_factory, language, width):
    game = Game.objects.filter(stage__tournament__slug="demo-family-league", seats__isnull=False).select_related(
        "stage").order_by("number").first()
    page = page_factory(width, language, user="admin")
    page.goto(f"/t/demo-family-league/{game.stage.key}/games/{game.number}/enter/")
    page.fill('input[name="seat-0-days_played"]', "9")
    page.fill('input[name="seat-2-days_played"]', "8")
    page.fill('input[name="seat-4-days_played"]', "7")
    with page.expect_navigation():
        page.locator('form button[type="submit"]:not([name])').last.click()
    problems = page.locator("tr.row-problems")
    assert problems.count() >= 3, "three seats' problems in one answer"
    text = " ".join(problems.all_inner_texts())
    assert said(language, "days played") in text
    assert "days_played" not in text and "game_days" not in text
    assert page_width(page) <= width


def test_the_menus_api_link_opens_a_root_that_lists_the_endpoints(demo_site, page_factory):
    page = page_factory(1280, "en")
    page.goto("/")
    with page.expect_navigation():
        page.locator('a[href="/api/v1/"]').first.click()
    assert page.url.endswith("/api/v1/")
    text = page.locator("body").inner_text()
    assert "tournaments" in text and "/api/v1/docs/" in text and "/api/v1/redoc/" in text


@pytest.mark.parametrize("path", ["/api/v1/docs/", "/api/v1/redoc/"])
def test_the_api_docs_load_nothing_from_another_host(demo_site, page_factory, path):
    """Swagger UI and Redoc are served from the project; the page factory's guard fails on any off-site request."""
    page = page_factory(1280, "en")
    response = page.goto(path)
    assert response.status == 200
    page.wait_for_load_state("networkidle")
    assert page.locator("body").inner_text().strip()
