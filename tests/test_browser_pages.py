"""Pages for people in Chromium (``tests/browser.py``): pages fit a phone, refusals are styled pages with a reason, links
a reader may follow, the profile's claim form, styled forms, sortable standings and their print view.

Every page here fails its test on a request to another host (``page_factory``'s guard).
"""

from __future__ import annotations

import re

import pytest
from django.urls import reverse
from django.utils import translation

from accounts.models import Role, TournamentRole
from tests.browser import BROWSER, html_lang, page_width
from tests.factories import UserFactory, user_playing_as
from tournaments.models import Game, Team, Tour, Tournament

pytestmark = BROWSER


def said(language: str, message: str) -> str:
    with translation.override(language):
        return translation.gettext(message)


def main_pages() -> list[str]:
    """Home, the standings of every demo tournament, a game, a tour, a team, a player, a schedule."""
    urls = [reverse("home")] + [t.get_absolute_url() for t in Tournament.objects.order_by("slug")]
    game = Game.objects.filter(seats__isnull=False).select_related("stage__tournament").order_by("id").first()
    tour = Tour.objects.filter(masks__isnull=False).select_related("stage__tournament").order_by("id").first()
    team = Team.objects.filter(roster__isnull=False).select_related("tournament").order_by("id").first()
    player = game.seats.filter(player__isnull=False).order_by("id").first().player_id
    return urls + [
        reverse("game", args=[game.stage.tournament.slug, game.stage.key, game.number]),
        reverse("tour", args=[tour.stage.tournament.slug, tour.number]),
        reverse("team", args=[team.tournament.slug, team.pk]),
        reverse("player", args=[player]),
        reverse("schedule", args=[game.stage.tournament.slug]),
    ]


@pytest.mark.parametrize("language", ["ru", "en"])
def test_no_main_page_is_wider_than_a_390_px_phone(demo_site, page_factory, language):
    """A page was 1342 px wide at 390 px; wide tables scroll inside their own box."""
    page = page_factory(390, language)
    wide = {}
    for url in main_pages():
        response = page.goto(url)
        assert response.status < 400, url
        assert html_lang(page) == language
        if page_width(page) > 390:
            wide[url] = page_width(page)
    assert wide == {}


def test_wide_standings_fit_at_1280_px_and_chart_labels_are_readable_on_a_phone(demo_site, page_factory):
    """The class-balanced table's tie-break and status columns were cut off at 1280 px; the SVG chart's
    labels were 5 px high on a phone."""
    page = page_factory(1280, "en")
    for tournament in Tournament.objects.filter(ruleset="class_balanced"):
        page.goto(tournament.get_absolute_url())
        boxes = page.locator(".standings .table-scroll")
        for index in range(boxes.count()):
            assert boxes.nth(index).evaluate("box => box.scrollWidth <= box.clientWidth"), tournament.slug
    phone = page_factory(390, "ru")
    charted = 0
    for tournament in Tournament.objects.order_by("slug"):
        phone.goto(tournament.get_absolute_url())
        labels = phone.locator(".chart svg text")
        if labels.count():
            charted += 1
            height = labels.first.evaluate("label => label.getBoundingClientRect().height")
            assert height >= 9, f"{tournament.slug}: chart labels {height:.1f} px high"
    assert charted


@pytest.mark.parametrize("language", ["ru", "en"])
def test_a_player_sees_only_links_they_may_follow_and_a_refusal_says_why(demo_site, page_factory, language):
    """History, groups, calendars, stage schedules and "Apply" are not shown to a player they
    would refuse; opened anyway, each is the site's page, in the reader's language, with the reason and what to do."""
    user_playing_as("Visitor-01", username="visitor")
    league = Tournament.objects.get(slug="demo-family-league")
    balanced = Tournament.objects.get(slug="demo-class-balanced")
    page = page_factory(1280, language, user="visitor")
    refused = []
    for tournament in (league, balanced):
        page.goto(tournament.get_absolute_url())
        nav = page.locator(".tournament-nav").inner_text()
        for hidden in ("History", "Apply", "Qualifying groups", "Calendar", "Stage schedule"):
            assert said(language, hidden) not in nav, (tournament.slug, hidden)
        refused.append(reverse("history", args=[tournament.slug]))
    stage = balanced.stages.order_by("order").first()
    refused += [reverse("family-groups", args=[league.slug]), reverse("family-apply", args=[league.slug]),
                reverse("family-calendar", args=[league.slug, league.stages.order_by("order").first().key]),
                reverse("stage-schedule", args=[balanced.slug, stage.key])]
    for url in refused:
        response = page.goto(url)
        assert response.status == 403, url
        assert html_lang(page) == language
        assert page.locator(".site-header").is_visible(), url  # the site's page, not a bare "403 Forbidden"
        assert page.locator("h1").inner_text() == said(language, "Not allowed")
        reason = page.locator(".refusal-reason").inner_text()
        assert len(reason) > 30 and said(language, "Not allowed") not in reason, url  # a reason, not a title
        assert page.locator(".refusal-next a").count() >= 1
    organizer = page_factory(1280, language, user="admin")
    organizer.goto(league.get_absolute_url())
    nav = organizer.locator(".tournament-nav").inner_text()
    assert said(language, "History") in nav and said(language, "Qualifying groups") in nav


@pytest.mark.parametrize("language", ["ru", "en"])
def test_the_profile_and_sign_up_forms_are_styled_and_mark_errors_only_after_a_post(demo_site, page_factory,
                                                                                      language):
    """No "This field is required." before a POST; capitalised labels; a grouped time
    zone list with the common zones first; an error marked with aria-invalid and a class."""
    UserFactory(username="fresh")
    page = page_factory(390, language, user="fresh")
    page.goto(reverse("profile"))
    assert page.locator("main .errorlist").count() == 0
    label = page.locator("#claim-form label[for=id_nick]").inner_text()
    assert label[0].isupper()
    assert page.locator("select[name=timezone] optgroup").first.get_attribute("label") == said(language,
                                                                                               "Common zones")
    assert page.locator("#claim-form input[name=nick]").evaluate("e => getComputedStyle(e).borderRadius") != "0px"
    page.fill("#claim-form input[name=nick]", " ")
    with page.expect_navigation():
        page.click("#claim-form button[type=submit]")
    assert page.locator("#claim-form .errorlist").count() == 1
    assert page.locator("#claim-form input[name=nick]").get_attribute("aria-invalid") == "true"
    assert page.locator("#claim-form .field-error").count() == 1
    assert page_width(page) <= 390


def standings_points(page) -> list[float]:
    column = page.locator(".standings-table thead th").all_inner_texts().index(said("en", "Points").strip())
    texts = page.locator(".standings-table").first.locator(f"tbody tr td:nth-child({column + 1})").all_inner_texts()
    return [float(t.replace(",", ".").replace("−", "-")) for t in texts]


def test_standings_sort_by_a_clicked_column_and_print_as_the_table_alone(demo_site, page_factory):
    """Sortable tables (the project's own script, aria-sort) and a print view of the standings."""
    page = page_factory(1280, "en")
    page.goto(Tournament.objects.get(slug="demo-chgk-season").get_absolute_url())
    points = page.locator(".standings-table").first.locator("thead th", has_text="Points").first
    before = standings_points(page)
    assert before == sorted(before, reverse=True)
    points.locator("button.sort-button").click()
    assert points.get_attribute("aria-sort") == "ascending"
    assert standings_points(page) == sorted(before)
    points.locator("button.sort-button").click()
    assert points.get_attribute("aria-sort") == "descending"
    assert standings_points(page) == sorted(before, reverse=True)
    team = page.locator(".standings-table").first.locator("thead th").nth(1)
    team.locator("button.sort-button").click()
    names = page.locator(".standings-table").first.locator("tbody tr td:nth-child(2)").all_inner_texts()
    assert names == sorted(names, key=str.casefold) or names == sorted(names, key=lambda n: [
        int(p) if p.isdigit() else p.casefold() for p in re.split(r"(\d+)", n)])
    assert points.get_attribute("aria-sort") is None

    assert page.locator(".print-button").is_visible()
    page.emulate_media(media="print")
    assert not page.locator(".site-header").is_visible()
    assert not page.locator(".tournament-nav").is_visible()
    assert not page.locator(".print-button").is_visible()
    table = page.locator(".standings-table").first
    assert table.is_visible()
    assert table.evaluate("t => t.getBoundingClientRect().width") >= 0.9 * page.evaluate("window.innerWidth") - 40


def test_the_organizer_dashboard_and_an_appeal_page_fit_a_phone(demo_site, page_factory):
    from tournaments.models import Appeal

    TournamentRole.objects.get_or_create(user=UserFactory(username="judge"),
                                         tournament=Tournament.objects.get(slug="demo-family-league"),
                                         role=Role.JUDGE)
    page = page_factory(390, "en", user="judge")
    page.goto(reverse("dashboard", args=["demo-family-league"]))
    assert page.locator("h1").count() == 1 and page_width(page) <= 390
    appeal = Appeal.objects.order_by("id").first()
    if appeal is not None:
        page.goto(reverse("appeal-detail", args=[appeal.pk]))
        assert page_width(page) <= 390
