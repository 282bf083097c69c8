"""Shared fixtures of the browser tests: headless Debian chromium driven by Playwright.

A browser test module starts with ``pytestmark = BROWSER`` (marked ``browser``; skipped, with the reason, where
the ``playwright`` package or ``/usr/bin/chromium`` is missing) and asks for:

- ``demo_site``: the demo's tournaments (``manage.py demo``) with their snapshots, served by the live server;
  the admin (``admin`` / ``PASSWORD``) is an organizer of every demo tournament;
- ``page_factory(width=1280, locale="ru", user=None, height=None)``: a new page in a new browser context of the
  given width (1280 or 390 px), language (``ru`` or ``en``: the language cookie and ``Accept-Language``), signed
  in as ``user`` (a user or a username) through a session cookie.

Every context ``page_factory`` opens routes its requests through ``OffSiteGuard``: a request to any host other
than the live server is aborted and fails the test ("no page may request an external host"). No browser
test opens a context of its own (``tests/test_browser_infrastructure.py`` checks it), so the guard holds for all.
"""

from __future__ import annotations

import io
from collections.abc import Callable, Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.db import connections

try:
    from playwright.sync_api import Error as PlaywrightError
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - depends on the machine
    sync_playwright = None
    PlaywrightError = Exception

CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
PASSWORD = "browser-test-password"
OUTPUT = Path(__file__).resolve().parent / "output"
WIDTHS = {1280: 900, 390: 844}  # a laptop's and a phone's widths, with the height of a laptop and of a phone
LOCALES = {"ru": "ru-RU", "en": "en-US"}
LOCAL_SCHEMES = {"data", "blob", "about", "chrome-error", "chrome"}

BROWSER = [
    pytest.mark.browser,
    pytest.mark.skipif(sync_playwright is None, reason="the python package playwright is not installed"),
    pytest.mark.skipif(not CHROMIUM.exists(), reason="Debian's chromium (/usr/bin/chromium) is not installed"),
]


def browser_test(function: Callable) -> Callable:
    """``BROWSER``'s marks on one test, for a module whose other tests need no browser."""
    for mark in reversed(BROWSER):
        function = mark(function)
    return function


class OffSiteGuard:
    """A Playwright route handler that lets through only requests to the live server (``origin``).

    Every other request is aborted and kept in ``refused``; ``page_factory`` fails the test if any is left.
    """

    def __init__(self, origin: str) -> None:
        parts = urlsplit(origin)
        self.netloc = parts.netloc
        self.refused: list[str] = []

    def allows(self, url: str) -> bool:
        parts = urlsplit(url)
        if parts.scheme in LOCAL_SCHEMES:
            return True
        return parts.scheme in ("http", "https", "ws", "wss") and parts.netloc == self.netloc

    def __call__(self, route, request) -> None:
        if self.allows(request.url):
            route.continue_()
        else:
            self.refused.append(request.url)
            route.abort("blockedbyclient")


def session_cookie_for(user) -> str:
    """A session of ``user`` (a user or a username), as the login page would start it."""
    from django.contrib.auth import get_user_model
    from django.test import Client

    if isinstance(user, str):
        user = get_user_model().objects.get(username=user)
    client = Client()
    client.force_login(user, backend="django.contrib.auth.backends.ModelBackend")
    return client.cookies[settings.SESSION_COOKIE_NAME].value


@pytest.fixture
def demo_site(transactional_db, live_server) -> str:
    """The demo's tournaments (all four rulesets) with their snapshots, served by the live server."""
    from django.core.management import call_command

    call_command("demo", password=PASSWORD, stdout=io.StringIO())
    return live_server.url


@pytest.fixture
def chromium_browser(monkeypatch) -> Iterator:
    """Debian's chromium, headless, for one test."""
    # Playwright's sync API runs an event loop in this thread; the ORM calls of the test are plain and safe.
    # While that loop runs, Django keeps the test's database connections apart from the thread's own (asgiref's
    # Local sees an async context): they are closed here, or their sessions outlive the test and PostgreSQL refuses
    # to drop the test database at the end of the run ("being accessed by other users").
    monkeypatch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield browser
        finally:
            browser.close()
            connections.close_all()


class PageFactory:
    """``page_factory(width, locale, user)``: a page of a fresh context, every request guarded (``OffSiteGuard``)."""

    def __init__(self, browser, origin: str) -> None:
        self.browser = browser
        self.origin = origin
        self.guard = OffSiteGuard(origin)
        self.contexts: list = []

    def __call__(self, width: int = 1280, locale: str = "ru", user=None, height: int | None = None):
        context = self.browser.new_context(
            viewport={"width": width, "height": height or WIDTHS.get(width, 900)},
            locale=LOCALES.get(locale, locale), base_url=self.origin)
        context.route("**/*", self.guard)
        cookies = [{"name": settings.LANGUAGE_COOKIE_NAME, "value": locale, "url": self.origin}]
        if user is not None:
            cookies.append({"name": settings.SESSION_COOKIE_NAME, "value": session_cookie_for(user),
                            "url": self.origin})
        context.add_cookies(cookies)
        self.contexts.append(context)
        return context.new_page()

    def close(self) -> None:
        for context in self.contexts:
            context.close()
        self.contexts.clear()

    def check(self) -> None:
        """Fail the test if a page requested another host than the live server."""
        if self.guard.refused:
            pytest.fail("a page requested another host than the live server: "
                        + ", ".join(sorted(set(self.guard.refused))))


@pytest.fixture
def page_factory(chromium_browser, live_server) -> Iterator[Callable]:
    """Pages of the live server at a width, in a language, as a user; fails the test on an off-site request."""
    factory = PageFactory(chromium_browser, live_server.url)
    yield factory
    factory.close()
    factory.check()


def page_width(page) -> int:
    """How wide the document is: at most the viewport's width when nothing sticks out."""
    return page.evaluate("document.documentElement.scrollWidth")


def html_lang(page) -> str:
    return page.evaluate("document.documentElement.lang")
