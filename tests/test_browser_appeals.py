"""Appeals in Debian's chromium (``tests/browser.py``'s fixtures: every request to
another host fails the test): the appeal's change of the standings, the captain's appeal links on a tour, statuses
that agree, the verdict form of a detected violation, the Grand Prix committee's forms."""

from __future__ import annotations

import pytest
from django.utils import translation

from accounts.models import Role
from scoring.services import recompute
from tests.browser import BROWSER, html_lang
from tests.conftest import example
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tests.test_appeal_pages import league_violation_appeal, season_with_a_tour_today, upheld_qualifying_penalty
from tournaments.demo import demo_class_balanced
from tournaments.importer import import_document
from tournaments.models import Decision

pytestmark = [*BROWSER, pytest.mark.django_db(transaction=True)]


def t(text: str, language: str, context: str | None = None) -> str:
    with translation.override(language):
        return str(translation.pgettext(context, text) if context else translation.gettext(text))


def member(tournament, role):
    user = UserFactory()
    RoleFactory(user=user, tournament=tournament, role=role)
    return user


@pytest.mark.parametrize("language", ["ru", "en"])
def test_fl_19_appeal_page_shows_the_appealed_familys_qualifying_row(live_server, page_factory, language):
    _tournament, penalty, appeal = upheld_qualifying_penalty()
    page = page_factory(width=390, locale=language)
    page.goto(f"/appeals/{appeal.pk}/")
    assert html_lang(page) == language
    row = page.locator(".standings-change tr.appealed")
    assert penalty.team.name in row.inner_text()
    assert t("the appealed team", language) in row.inner_text()
    assert page.locator("#change-heading").inner_text() == t("Change of the standings", language)


@pytest.mark.parametrize("language", ["ru", "en"])
def test_chgk_18_chgk_20_captain_follows_the_questions_appeal_link_to_a_prefilled_form(live_server, page_factory,
                                                                                      language):
    tournament, _tour = season_with_a_tour_today()
    page = page_factory(width=390, locale=language, user=user_playing_as("Rotor captain"))
    page.goto(f"/t/{tournament.slug}/tours/2/")
    assert page.locator(".appeal-window").is_visible()
    with page.expect_navigation():
        page.locator("#question-3 .appeal-links a").last.click()
    assert "tour=2" in page.url and "question=3" in page.url and "kind=removal" in page.url
    assert page.locator('select[name="kind"]').input_value() == "removal"
    assert page.locator("h1").inner_text() == t("File an appeal", language)


@pytest.mark.parametrize("language", ["ru", "en"])
def test_cb_17_finished_tournament_badges_and_rows_agree(live_server, page_factory, language):
    tournament = import_document(demo_class_balanced())
    recompute(tournament.pk, force=True)
    page = page_factory(width=1280, locale=language)
    page.goto(f"/t/{tournament.slug}/?stage=stage-1")
    assert page.locator(".tournament-header .tournament-status").inner_text() == t("finished", language)
    assert page.locator("#standings-heading .badge").first.inner_text() == t("final", language)
    assert page.locator(".standings-table tr.status-active").count() == 0
    page.goto("/")
    assert t("No tournament has finished yet.", language) not in page.locator("main").inner_text()


@pytest.mark.parametrize("language", ["ru", "en"])
def test_fl_15_3_fl_19_verdict_form_names_the_violation_and_the_game_marks_it_annulled(live_server, page_factory,
                                                                                      language):
    tournament, game, appeal, violator = league_violation_appeal()
    page = page_factory(width=390, locale=language, user=member(tournament, Role.CURATOR))
    page.goto(f"/appeals/{appeal.pk}/verdict/")
    assert page.locator('input[name="credited"]').count() == 0
    ruled = page.locator(".ruled-on").inner_text()
    assert "FL-15.3" in ruled and violator in ruled
    page.select_option('select[name="verdict"]', "accepted")
    page.fill('textarea[name="reasons"]', "one player")
    with page.expect_navigation():
        page.click('main form button[type="submit"]')
    recompute(tournament.pk, force=True)
    page.goto(f"/t/{tournament.slug}/final/games/{game.number}/")
    annulled = page.locator(".annulled-violations a")
    assert annulled.first.inner_text() == t("annulled on appeal (FL-19)", language)
    with page.expect_navigation():
        annulled.first.click()
    assert page.url.endswith(f"/appeals/{appeal.pk}/")


@pytest.mark.parametrize("language", ["ru", "en"])
def test_gp_18_committee_fills_the_vacancy_from_the_stages_players(live_server, page_factory, language):
    tournament = import_document(example("elimination_gp"))
    recompute(tournament.pk, force=True)
    page = page_factory(width=390, locale=language, user=member(tournament, Role.CURATOR))
    page.goto(f"/t/{tournament.slug}/")
    with page.expect_navigation():
        page.locator('.tournament-nav a[href$="/gp/qualifying-1/committee/"]').first.click()
    assert page.locator("h1").inner_text().startswith(t("Committee decisions", language))
    options = page.locator('select[name="qualify-player"] option').all_inner_texts()
    assert "GP02-p2" in options and len(options) <= 60
    page.select_option('select[name="qualify-player"]', "GP02-p2")
    page.fill('textarea[name="qualify-reason"]', "best of the tied")
    with page.expect_navigation():
        page.click('#qualify button[type="submit"]')
    assert page.locator(".messages").is_visible()
    assert Decision.objects.filter(tournament=tournament, kind="qualify", player__nick="GP02-p2").exists()
