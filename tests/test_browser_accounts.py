"""In a real browser (headless Debian chromium): sign up, claim a player, see the tournament on "my tournaments".

Run in Russian (the default) and in English (chosen with the language switch).
The shared fixtures are ``tests/browser.py``'s (skipped, with the reason, without ``playwright`` or chromium). The same path
through the Django test client is ``tests/test_accounts.py::test_sign_up_claim_and_see_the_tournament_on_my_...``.
"""

from __future__ import annotations

import pytest
from django.utils import translation

from tests.browser import BROWSER
from tests.conftest import example
from tournaments.importer import import_document

PASSWORD = "correct horse battery staple"

pytestmark = BROWSER


@pytest.fixture
def site(transactional_db, live_server):
    import_document(example("family_league"))
    return live_server.url


@pytest.fixture
def page(site, page_factory):
    return page_factory(390, "ru")


def said(language: str, message: str) -> str:
    with translation.override(language):
        return translation.gettext(message)


@pytest.mark.parametrize(("language", "nick"), [("ru", "Fam01-p2"), ("en", "Fam02-p2")])
def test_sign_up_claim_and_see_the_tournament_on_my_tournaments(page, site, language, nick):
    page.goto(f"{site}/accounts/signup/")
    assert page.evaluate("document.documentElement.lang") == "ru"
    if language == "en":
        with page.expect_navigation():
            page.click('.language-switch button[value="en"]')
        assert page.evaluate("document.documentElement.lang") == "en"
    assert page.locator("h1").inner_text() == said(language, "Sign up")

    page.fill("input[name=username]", f"player-{language}")
    page.fill("input[name=email]", f"player-{language}@example.org")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert page.url == f"{site}/accounts/profile/"
    assert page.locator("h1").inner_text() == said(language, "Profile")

    page.fill("#claim-form input[name=nick]", nick)
    with page.expect_navigation():
        page.click("#claim-form button[type=submit]")
    assert said(language, "waiting for confirmation") in page.locator("main").inner_text()

    page.goto(f"{site}/accounts/my/")
    assert page.locator("h1").inner_text() == said(language, "My tournaments")
    teams = page.locator("#teams-heading + .table-scroll table").inner_text()
    assert "Турнирные Мастера, пример" in teams and nick.split("-")[0] in teams


@pytest.mark.parametrize("language", ["ru", "en"])
def test_sign_up_claim_register_for_a_grand_prix_stage_and_see_it_on_my_tournaments(page, site, language):
    """Sign-up -> claim (confirmed by an organizer) -> register for a stage (GP-3, GP-5) -> my tournaments."""
    from django.utils import timezone

    from accounts.models import Player
    from formats.elimination_gp.models import StageConditions
    from tournaments.models import Stage

    tournament = import_document(example("elimination_gp"))
    stage = Stage.objects.create(tournament=tournament, key="qualifying-2", order=2)
    StageConditions.objects.create(stage=stage, commission="Eternity", game_times="21:00", prize_fund="300 mf",
                                   registration_opened_at=timezone.now())
    nick = f"Newcomer-{language}"
    Player.objects.create(nick=nick, level=7)
    page.goto(f"{site}/accounts/signup/")
    if language == "en":
        with page.expect_navigation():
            page.click('.language-switch button[value="en"]')
    page.fill("input[name=username]", f"gp-{language}")
    page.fill("input[name=email]", f"gp-{language}@example.org")
    page.fill("input[name=password1]", PASSWORD)
    page.fill("input[name=password2]", PASSWORD)
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    page.fill("#claim-form input[name=nick]", nick)
    with page.expect_navigation():
        page.click("#claim-form button[type=submit]")
    Player.objects.filter(nick=nick).update(claim_confirmed=True)  # an organizer confirms the claim

    page.goto(f"{site}/t/{tournament.slug}/gp/qualifying-2/registration/")
    with page.expect_navigation():
        page.click('main form button[name="action"][value="register"]')
    page.goto(f"{site}/accounts/my/")
    text = page.locator("#gp-heading + ul").inner_text()
    assert tournament.name in text and "qualifying-2" in text
    assert said(language, "in the roster") in text
