"""The browser tests' shared fixtures (``tests/browser.py``): the off-site guard, languages, sign-in.

The first test needs no browser: it checks that every browser test goes through ``page_factory``, so that the
guard failing a test on a request to another host holds for all of them.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest

from tests.browser import OffSiteGuard, PlaywrightError, browser_test, html_lang

ROOT = Path(__file__).resolve().parent.parent
MARKED = re.compile(r"pytestmark\s*=\s*\[?\s*\*?BROWSER\b|@browser_test")
OWN_BROWSER = re.compile(r"sync_playwright\s*\(|\.new_context\s*\(|chromium\.launch\s*\(")
USES_BROWSER = re.compile(r"^\s*(?:from|import)\s+(?:playwright\b|tests\.browser\b)", re.MULTILINE)


def browser_test_modules() -> list[Path]:
    found = [*ROOT.glob("tests/**/test_*.py"), *ROOT.glob("formats/*/tests/test_*.py"),
             *ROOT.glob("*/tests/test_*.py")]
    return sorted({p for p in found if ".venv" not in p.parts
                   and (p.name.startswith("test_browser") or USES_BROWSER.search(p.read_text(encoding="utf-8")))})


def test_every_browser_test_opens_its_pages_through_the_guarded_page_factory():
    """A test fails on any request to another host - no browser test opens an unguarded context."""
    modules = browser_test_modules()
    assert any(p.name == "test_browser.py" for p in modules)
    own = [str(p.relative_to(ROOT)) for p in modules if OWN_BROWSER.search(p.read_text(encoding="utf-8"))]
    assert own == [], f"open pages with tests.browser.page_factory, not a browser context of their own: {own}"
    unmarked = [str(p.relative_to(ROOT)) for p in modules
                if not MARKED.search(p.read_text(encoding="utf-8"))]
    assert unmarked == [], f"mark browser tests with `pytestmark = BROWSER` (tests.browser): {unmarked}"


def test_the_guard_lets_through_only_the_live_server():
    guard = OffSiteGuard("http://localhost:8123")
    assert guard.allows("http://localhost:8123/static/css/portal.css")
    assert guard.allows("data:image/svg+xml,<svg/>")
    assert not guard.allows("http://localhost:8124/")
    assert not guard.allows("https://fonts.googleapis.com/css?family=Roboto")
    assert not guard.allows("https://cdn.redoc.ly/redoc/latest/bundles/redoc.standalone.js")


@pytest.mark.parametrize("width", [1280, 390])
@pytest.mark.usefixtures("transactional_db")
@browser_test
def test_a_request_to_another_host_is_aborted_and_recorded(page_factory, live_server, width):
    page = page_factory(width, "en")
    page.goto("/")
    assert html_lang(page) == "en"
    assert page.evaluate("document.documentElement.clientWidth") == width
    # The site's CSP already stops a script's fetch of another host; a navigation reaches the network layer.
    with pytest.raises(PlaywrightError, match="ERR_BLOCKED_BY_CLIENT"):
        page.goto("https://fonts.googleapis.com/css?family=Roboto")
    assert page_factory.guard.refused == ["https://fonts.googleapis.com/css?family=Roboto"]
    with pytest.raises(pytest.fail.Exception, match="fonts.googleapis.com"):
        page_factory.check()  # what the fixture does after the test
    page_factory.guard.refused.clear()  # this test expected it


@pytest.mark.usefixtures("transactional_db")
@browser_test
def test_page_factory_signs_in_through_a_session_cookie_in_the_given_language(page_factory, live_server):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_user("reader", "reader@example.org", "a long password 123")
    guest = page_factory(390, "ru")
    guest.goto("/")
    assert html_lang(guest) == "ru"
    assert guest.locator("form.logout").count() == 0
    reader = page_factory(390, "en", user="reader")
    reader.goto("/accounts/profile/")
    assert html_lang(reader) == "en"
    assert reader.url.endswith("/accounts/profile/")
    assert reader.locator("form.logout").count() == 1


@pytest.fixture
def sessions_left(transactional_db):
    """The database sessions a browser test opened (appended by the test); after every other fixture of the test
    has ended, fails it if one of them is still open."""
    from django.db import connection

    pids: list[int] = []
    yield pids
    if not pids:
        return
    deadline = time.monotonic() + 5
    while True:
        with connection.cursor() as cursor:
            cursor.execute("SELECT pid FROM pg_stat_activity WHERE pid = ANY(%s)", [pids])
            open_ = [row[0] for row in cursor.fetchall()]
        if not open_ or time.monotonic() > deadline:
            break
        time.sleep(0.05)
    assert open_ == [], "a browser test's database session outlived it: the test database could not be dropped"


@browser_test
def test_a_browser_tests_database_session_ends_with_the_browser(sessions_left, chromium_browser):
    """While Playwright's loop runs, the test's queries use a connection of their own (asgiref); ``chromium_browser``
    closes it, or PostgreSQL keeps the session and refuses to drop the test database at the end of the run."""
    from django.db import connection

    if connection.vendor != "postgresql":
        pytest.skip("sessions are PostgreSQL's (.ci/run runs this against it)")
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        sessions_left.append(cursor.fetchone()[0])
