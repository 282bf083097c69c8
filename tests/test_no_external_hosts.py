"""No page of the portal loads anything from another host.

Each main page is rendered and every resource it would load is collected:
``<script src>``, ``<link href>`` of a stylesheet, icon, preload or preconnect,
``<img src/srcset>``, ``<iframe src>``, media sources, CSS ``url()`` and
``@import`` (inline and in the project's own CSS), and the URLs the
project's own JavaScript fetches. Each must be relative or on the portal's own
host. Plain links (``<a href>`` to the game's log on mafiaonline, say) are
not loads and are allowed. The API's documentation pages also carry a
Content-Security-Policy that lets their third-party bundles (Swagger UI,
Redoc) load nothing from elsewhere either.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from django.conf import settings
from django.contrib.staticfiles import finders
from django.core.cache import cache
from django.test import Client

from accounts.models import Player
from scoring.services import recompute
from tests.conftest import example
from tournaments.importer import import_document
from tournaments.models import Game, Team, Tour

pytestmark = pytest.mark.django_db

HOST = "testserver"
LOADING_RELS = {"stylesheet", "icon", "shortcut", "apple-touch-icon", "preload", "modulepreload", "prefetch",
                "preconnect", "dns-prefetch", "manifest", "mask-icon"}
CSS_URL = re.compile(r"""url\(\s*['"]?([^'")\s]+)['"]?\s*\)|@import\s+(?:url\()?\s*['"]([^'"]+)['"]""")
JS_LOAD = re.compile(r"""(?:fetch|EventSource|WebSocket|import|XMLHttpRequest\(\)\.open|\.open|new\s+URL|"""
                     r"""\.src\s*=|\.href\s*=|sendBeacon)\s*\(?\s*(?:['"][A-Z]+['"]\s*,\s*)?[`'"]([^`'"]*)[`'"]""")
ABSOLUTE = re.compile(r"""[`'"]((?:https?:|wss?:)?//[^`'"\s]+)[`'"]""")


class Resources(HTMLParser):
    """The URLs an HTML page loads, with the inline CSS and JavaScript it holds."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.urls: list[tuple[str, str]] = []
        self.inline_css: list[str] = []
        self.inline_js: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {name: value or "" for name, value in attrs}
        if "style" in a:
            self.inline_css.append(a["style"])
        if tag == "link" and set(a.get("rel", "").lower().split()) & LOADING_RELS:
            self.urls.append((f"<link rel={a.get('rel')}>", a.get("href", "")))
        elif tag in ("script", "img", "iframe", "source", "video", "audio", "embed", "track", "input") and a.get("src"):
            self.urls.append((f"<{tag} src>", a["src"]))
        elif tag == "object" and a.get("data"):
            self.urls.append(("<object data>", a["data"]))
        for name in ("srcset", "imagesrcset"):
            for candidate in a.get(name, "").split(","):
                if candidate.strip():
                    self.urls.append((f"<{tag} {name}>", candidate.split()[0]))
        if tag == "video" and a.get("poster"):
            self.urls.append(("<video poster>", a["poster"]))
        if tag in ("style", "script") and not a.get("src"):
            self._in = tag

    def handle_endtag(self, tag: str) -> None:
        if tag == self._in:
            self._in = None

    def handle_data(self, data: str) -> None:
        if self._in == "style":
            self.inline_css.append(data)
        elif self._in == "script":
            self.inline_js.append(data)


def is_external(url: str) -> bool:
    """Another host: an absolute or protocol-relative URL whose host is not the portal's."""
    url = url.strip()
    if not url or url.startswith(("data:", "blob:", "#", "about:", "javascript:")):
        return False
    parts = urlsplit(url)
    return bool(parts.netloc) and parts.hostname != HOST


def css_loads(text: str) -> list[str]:
    return [a or b for a, b in CSS_URL.findall(text)]


def js_loads(text: str) -> list[str]:
    """URLs the script loads or fetches, and any absolute URL it spells out."""
    return sorted(set(JS_LOAD.findall(text)) | set(ABSOLUTE.findall(text)))


def own_file(url: str) -> Path | None:
    """The project's own static file behind a URL (``static/``), None for a third party's (admin, sidecar)."""
    path = urlsplit(url).path
    if not path.startswith(settings.STATIC_URL):
        return None
    found = finders.find(path[len(settings.STATIC_URL):])
    own = Path(settings.BASE_DIR) / "static"
    return Path(found) if found and Path(found).is_relative_to(own) else None


def external_loads(html: str) -> list[str]:
    page = Resources()
    page.feed(html)
    bad = [f"{where} {url}" for where, url in page.urls if is_external(url)]
    bad += [f"inline CSS {url}" for css in page.inline_css for url in css_loads(css) if is_external(url)]
    bad += [f"inline script {url}" for js in page.inline_js for url in js_loads(js) if is_external(url)]
    for _where, url in page.urls:
        path = own_file(url)
        if path is None:
            continue
        text = path.read_text(encoding="utf-8")
        loads = css_loads(text) if path.suffix == ".css" else js_loads(text) if path.suffix == ".js" else []
        bad += [f"{path.name} {found}" for found in loads if is_external(found)]
    return bad


@pytest.fixture
def pages(django_user_model) -> dict[str, str]:
    cache.clear()
    league = import_document(example("family_league"))
    season = import_document(example("chgk_tour_points"))
    for tournament in (league, season):
        recompute(tournament.pk, force=True)
    game = Game.objects.filter(stage__tournament=league).select_related("stage").order_by("number").first()
    Game.objects.filter(pk=game.pk).update(link="https://mafiaonline.ru/log/3624027")  # a plain link: allowed
    tour = Tour.objects.filter(stage__tournament=season).order_by("number").first()
    team = Team.objects.filter(tournament=league).order_by("name").first()
    player = Player.objects.filter(seats__game=game).first()
    return {
        "home": "/",
        "tournament": f"/t/{league.slug}/",
        "standings of a stage": f"/t/{league.slug}/?stage={game.stage.key}",
        "schedule": f"/t/{league.slug}/schedule/",
        "game": f"/t/{league.slug}/{game.stage.key}/games/{game.number}/",
        "tour": f"/t/{season.slug}/tours/{tour.number}/",
        "team": f"/t/{league.slug}/teams/{team.pk}/",
        "player": f"/players/{player.pk}/",
        "prizes": f"/t/{league.slug}/prizes/",
        "API root": "/api/v1/",
        "Swagger UI": "/api/v1/docs/",
        "Redoc": "/api/v1/redoc/",
        "admin login": "/admin/login/",
    }


def test_no_page_loads_anything_from_another_host(pages):
    """Redoc loaded fonts.googleapis.com; no page may request another host."""
    client = Client()
    found = {}
    for name, url in pages.items():
        response = client.get(url, HTTP_ACCEPT="text/html")
        assert response.status_code == 200, (name, url, response.status_code)
        bad = external_loads(response.content.decode())
        if bad:
            found[name] = bad
    assert found == {}


def test_the_game_page_keeps_its_plain_link_to_the_log(pages):
    """The check is about loads, not links: the game's log on mafiaonline stays a link."""
    html = Client().get(pages["game"]).content.decode()
    assert 'href="https://mafiaonline.ru/log/3624027"' in html
    assert external_loads(html) == []


@pytest.mark.parametrize("html, expected", [
    ('<link rel="stylesheet" href="https://fonts.googleapis.com/css2?family=Roboto">', 1),
    ('<link rel="preconnect" href="https://fonts.gstatic.com" crossorigin>', 1),
    ('<script src="//cdn.example.org/x.js"></script>', 1),
    ('<img src="https://cdn.redoc.ly/redoc/logo-mini.svg">', 1),
    ('<div style="background: url(https://example.org/a.png)"></div>', 1),
    ("<style>@import 'https://example.org/a.css';</style>", 1),
    ('<script>fetch("https://example.org/api")</script>', 1),
    ('<a href="https://mafiaonline.ru/log/1">log</a><img src="/static/img/favicon.svg">', 0),
    ('<script src="http://testserver/static/js/portal.js"></script><img src="data:image/png;base64,AA==">', 0),
])
def test_the_check_tells_a_load_from_elsewhere_from_a_link(html, expected):
    assert len(external_loads(html)) == expected


@pytest.mark.parametrize("url", ["/api/v1/docs/", "/api/v1/redoc/"])
def test_the_documentation_pages_may_load_only_from_the_portal(url):
    """Redoc's bundle draws its logo from cdn.redoc.ly; the page's CSP lets it load nothing from elsewhere."""
    response = Client().get(url)
    policy = response["Content-Security-Policy"]
    directives = dict(part.strip().split(" ", 1) for part in policy.split(";"))
    assert directives["default-src"] == "'self'" and directives["img-src"] == "'self' data:"
    assert "http" not in policy and "*" not in policy
    html = response.content.decode()
    assert "drf_spectacular_sidecar" in html and "fonts.googleapis" not in html and "cdn.redoc.ly" not in html


def test_the_project_own_css_and_js_load_nothing_from_elsewhere():
    """Every file of static/ (not only those the pages above include)."""
    root = Path(settings.BASE_DIR) / "static"
    bad = []
    for path in sorted(root.rglob("*")):
        if path.suffix == ".css":
            bad += [(path.name, url) for url in css_loads(path.read_text(encoding="utf-8")) if is_external(url)]
        elif path.suffix == ".js":
            bad += [(path.name, url) for url in js_loads(path.read_text(encoding="utf-8")) if is_external(url)]
    assert bad == []
