"""Every page of every demo tournament, in Russian and in English, at 390 and 1280 px, in Chromium.

The demo is loaded by another process (``manage.py migrate`` and ``manage.py demo`` on a temporary SQLite file,
eager Celery, as ``scripts/run`` serves it) and served by ``manage.py runserver``, which is stopped once and started
again before the walk: what a reader sees after a deploy. The pages are found by following the links of each demo
tournament's home and of its organizer's dashboard, as the admin signed in through the login page: pages under
``/t/SLUG/`` and ``/accounts/dashboard/SLUG/``, and the players' and appeals' pages they link to (no downloads, API,
admin or logout); every distinct URL pattern (digits replaced) at most ``PER_PATTERN`` times. The language is the
site's own: its language cookie and ``Accept-Language`` (``tests.browser.PageFactory``). Each page, in each language
and at each width, fails the test on

- a visible "updating" message: the pending notices (``[data-live-pending]``, hidden ones do not count), a standings
  version document that says ``pending``, or visible text saying "updating" / "обновляется";
- a page wider than the screen (``scrollWidth > innerWidth + 1``), with the elements that stick out;
- a console error or an uncaught error of the page, an answer of 400 or more, a request to another host;
- an untranslated string, compared with ``locale/ru/LC_MESSAGES/django.po``: on a Russian page, visible text that is
  an English msgid of two words or more whose msgstr differs from it (not inside an element of another ``lang``,
  nor data: tournament, team, player, family, group names, questions); on an English page, visible Cyrillic text
  that is a msgstr of the catalogue.

All problems are collected and listed at once. ``tests/output/walk-<lang>-<width>.json`` keeps them, with notes that
fail nothing: text of the other language that is neither data nor from the catalogue (a string hard-coded in a
template, a name stored in another language), and catalogue messages in a ``title``, ``aria-label`` or ``alt``.
"""

from __future__ import annotations

import ast
import html
import http.cookiejar
import json
import os
import re
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.conf import settings

from tests.browser import BROWSER, OUTPUT, PageFactory

pytestmark = BROWSER

ROOT = Path(__file__).resolve().parent.parent
CATALOGUE = ROOT / "locale" / "ru" / "LC_MESSAGES" / "django.po"
PASSWORD = "walk-demo-password"
PER_PATTERN = 3  # pages of one URL pattern (digits replaced) walked per tournament
PER_TOURNAMENT = 60  # and at most this many pages of one tournament
SKIPPED_PREFIXES = ("/static/", "/admin/", "/api/", "/i18n/", "/accounts/logout/", "/media/")
DOWNLOAD = re.compile(r"\.(csv|xlsx|ics|json|pdf|zip|txt|xml)$|/download|/export|/version/$", re.I)
DOWNLOAD_QUERY = re.compile(r"(^|&)(format|download|export)=", re.I)
UPDATING = re.compile(r"\bupdating\b|\bbeing updated\b|обновляется", re.I)
CYRILLIC = re.compile(r"[А-Яа-яЁё]")
TWO_LATIN_WORDS = re.compile(r"[A-Za-z]{2,}\W+(?:\w+\W+)*?[A-Za-z]{2,}")
ENGLISH_WORDS = re.compile(r"(?<![\w/])[a-z]{2,}(?![\w/])")  # lower-case words: a sentence, not "CSV", "Europe/Moscow"
PLACEHOLDER = re.compile(r"%\(\w+\)[sdifr]|%[sdifr]|\{\w*\}")
ANSI = re.compile(r"\x1b\[[0-9;]*m")


# --- the catalogue ---------------------------------------------------------------------------------------------


@dataclass
class Entry:
    msgid: str = ""
    msgid_plural: str = ""
    msgstr: list[str] = field(default_factory=list)
    fuzzy: bool = False


def read_catalogue(path: Path = CATALOGUE) -> list[Entry]:
    """The entries of a .po file (obsolete ``#~`` ones left out): a small parser of msgid, msgid_plural, msgstr[n]."""
    entries: list[Entry] = []
    entry, target = Entry(), None

    def finish() -> None:
        nonlocal entry, target
        if entry.msgid or entry.msgstr:
            entries.append(entry)
        entry, target = Entry(), None

    for raw in path.read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line:
            finish()
        elif line.startswith("#,"):
            if target is not None and target[0] == "msgstr":
                finish()
            entry.fuzzy = entry.fuzzy or "fuzzy" in line
        elif line.startswith("#"):
            continue
        elif line.startswith('"'):
            if target is not None:
                append(entry, target, ast.literal_eval(line))
        else:
            keyword, _, rest = line.partition(" ")
            if keyword in ("msgctxt", "msgid") and target is not None and target[0] == "msgstr":
                finish()
            match = re.fullmatch(r"msgstr\[(\d+)\]", keyword)
            if match:
                target = ("msgstr", int(match.group(1)))
            elif keyword in ("msgid", "msgid_plural", "msgstr", "msgctxt"):
                target = (keyword, 0)
            else:
                continue
            append(entry, target, ast.literal_eval(rest))
    finish()
    return [e for e in entries if e.msgid]  # the header has an empty msgid


def append(entry: Entry, target: tuple[str, int], text: str) -> None:
    name, index = target
    if name == "msgid":
        entry.msgid += text
    elif name == "msgid_plural":
        entry.msgid_plural += text
    elif name == "msgstr":
        while len(entry.msgstr) <= index:
            entry.msgstr.append("")
        entry.msgstr[index] += text


def normal(text: str) -> str:
    """Text as compared: spaces collapsed, case folded (CSS may upper-case it), a closing colon left out."""
    return re.sub(r"\s+", " ", text).strip().rstrip(":").strip().casefold()


def shown(message: str) -> str:
    """A message as a page shows it: without its HTML tags, entities decoded."""
    return normal(html.unescape(re.sub(r"<[^>]+>", "", message)))


class Messages:
    """Messages of one language, looked up in the visible text of a page: exactly, or with placeholders matching."""

    def __init__(self, pairs: list[tuple[str, str]], words: re.Pattern, least: int) -> None:
        self.exact: dict[str, str] = {}
        self.patterns: list[tuple[re.Pattern, str]] = []
        for text, source in pairs:
            visible = shown(text)
            if len(words.findall(PLACEHOLDER.sub(" ", visible))) < least:
                continue
            if PLACEHOLDER.search(visible):
                pieces = [re.escape(p.replace("%%", "%")) for p in PLACEHOLDER.split(visible)]
                self.patterns.append((re.compile(".{1,120}?".join(pieces)), source))
            else:
                self.exact.setdefault(visible.replace("%%", "%"), source)
        self.any = re.compile("|".join(f"(?:{p.pattern})" for p, _ in self.patterns) or "(?!)")

    def find(self, text: str) -> str | None:
        """The catalogue's msgid that ``text`` (``normal``) shows, or None."""
        if text in self.exact:
            return self.exact[text]
        if self.any.fullmatch(text):
            for pattern, source in self.patterns:
                if pattern.fullmatch(text):
                    return source
        return None


def catalogue_messages() -> tuple[Messages, Messages]:
    """(English msgids a Russian page must not show, Russian msgstrs an English page must not show)."""
    english, russian = [], []
    for entry in read_catalogue():
        translations = [s for s in entry.msgstr if s] if not entry.fuzzy else []
        for msgid in filter(None, (entry.msgid, entry.msgid_plural)):
            if msgid not in translations:  # a msgstr equal to its msgid ("CHGK-12") is no translation to miss
                english.append((msgid, msgid))
        for msgstr in translations:
            if CYRILLIC.search(msgstr):
                russian.append((msgstr, entry.msgid))
    return (Messages(english, re.compile(r"[a-z]{2,}"), 2),
            Messages(russian, re.compile(r"[а-яё]{2,}"), 1))


# --- the demo, served by another process -----------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=5):  # noqa: S310 - the local server
            return True
    except (OSError, urllib.error.HTTPError):
        return False


@dataclass
class Demo:
    origin: str
    database: Path
    slugs: list[str]
    log: Path
    env: dict[str, str]
    server: subprocess.Popen | None = None

    def start(self) -> None:
        log = open(self.log, "a")  # noqa: SIM115 - the server keeps its own copy of the file
        self.server = subprocess.Popen(
            [sys.executable, "manage.py", "runserver", self.origin.removeprefix("http://"), "--noreload"],
            cwd=ROOT, env=self.env, stdout=log, stderr=subprocess.STDOUT)
        log.close()
        deadline = time.monotonic() + 90
        while not answers(f"{self.origin}/healthz/"):
            if self.server.poll() is not None:
                pytest.fail(f"runserver exited with {self.server.returncode}; see {self.log}")
            if time.monotonic() > deadline:
                self.stop()
                pytest.fail(f"runserver did not answer within 90 s; see {self.log}")
            time.sleep(0.3)

    def stop(self) -> None:
        if self.server is not None and self.server.poll() is None:
            self.server.send_signal(signal.SIGINT)
            try:
                self.server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.server.kill()
                self.server.wait()
        self.server = None


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=600)
    if done.returncode:
        pytest.fail(f"manage.py {' '.join(args)} failed ({done.returncode}):\n{done.stdout}\n{done.stderr}")
    return ANSI.sub("", done.stdout)


@pytest.fixture(scope="module")
def demo(tmp_path_factory) -> Iterator[Demo]:
    """The demo loaded by ``manage.py demo`` in another process, served by ``runserver``, stopped and started again."""
    folder = tmp_path_factory.mktemp("walk")
    database = folder / "db.sqlite3"
    env = {**os.environ, "DATABASE_URL": f"sqlite:///{database}", "DJANGO_DEBUG": "True", "LOG_LEVEL": "WARNING"}
    for name in ("REDIS_URL", "CELERY_BROKER_URL", "CELERY_RESULT_BACKEND", "DJANGO_ALLOW_ASYNC_UNSAFE"):
        env.pop(name, None)  # as scripts/run serves the demo: SQLite, eager Celery
    manage(env, "migrate", "--noinput")
    printed = manage(env, "demo", "--password", PASSWORD)
    match = re.search(r"Demo tournaments: (.+)", printed)
    assert match, f"manage.py demo printed no tournaments: {printed!r}"
    slugs = [s.strip() for s in match.group(1).split(",") if s.strip()]
    OUTPUT.mkdir(exist_ok=True)
    site = Demo(f"http://127.0.0.1:{free_port()}", database, slugs, OUTPUT / "walk-server.log", env)
    site.log.write_text("")
    site.start()
    try:
        for slug in slugs:  # the first server has served the pages once
            answers(f"{site.origin}/t/{slug}/")
        site.stop()
        site.start()  # the restart: the second server knows only what is stored
        yield site
    finally:
        site.stop()


# --- the pages: the links of each tournament, as its organizer -------------------------------------------------


class Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.csrf = ""

    def handle_starttag(self, tag, attrs) -> None:
        attrs = dict(attrs)
        if tag == "a" and attrs.get("href"):
            self.links.append(attrs["href"])
        if tag == "input" and attrs.get("name") == "csrfmiddlewaretoken":
            self.csrf = attrs.get("value") or ""


def parsed(body: bytes) -> Links:
    links = Links()
    links.feed(body.decode("utf-8", "replace"))
    return links


def signed_in_opener(origin: str) -> tuple[urllib.request.OpenerDirector, http.cookiejar.CookieJar]:
    """The admin, signed in through the login page."""
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{origin}/accounts/login/", timeout=30) as response:
        token = parsed(response.read()).csrf
    form = urllib.parse.urlencode({"username": "admin", "password": PASSWORD, "csrfmiddlewaretoken": token})
    request = urllib.request.Request(f"{origin}/accounts/login/", data=form.encode(),
                                     headers={"Referer": f"{origin}/accounts/login/"})
    with opener.open(request, timeout=30) as response:
        assert "/accounts/login/" not in response.url, "the admin could not sign in through the login page"
    assert any(c.name == settings.SESSION_COOKIE_NAME for c in jar), "no session after signing in"
    return opener, jar


def pattern(url: str) -> str:
    return re.sub(r"\d+", "N", url)


def belongs(path: str, slug: str) -> bool:
    """A page of the tournament: under /t/SLUG/ or its dashboard, or a player's or an appeal's page it links to."""
    return (path.startswith((f"/t/{slug}/", f"/accounts/dashboard/{slug}/"))
            or re.fullmatch(r"/(players|appeals)/\d+/", path) is not None)


def crawl(opener, origin: str, slug: str) -> list[str]:
    """The pages of one tournament, each URL pattern at most ``PER_PATTERN`` times (one that fails is walked too:
    the walk reports its status)."""
    netloc = urllib.parse.urlsplit(origin).netloc
    queue, seen = [f"/t/{slug}/", f"/accounts/dashboard/{slug}/"], []
    patterns = Counter(pattern(u) for u in queue)
    while queue and len(seen) < PER_TOURNAMENT:
        url = queue.pop(0)
        seen.append(url)
        try:
            with opener.open(origin + url, timeout=60) as response:
                if "html" not in response.headers.get("Content-Type", ""):
                    continue
                body = response.read()
        except urllib.error.HTTPError:
            continue
        for href in parsed(body).links:
            parts = urllib.parse.urlsplit(urllib.parse.urljoin(origin + url, href))
            if parts.scheme not in ("http", "https") or parts.netloc != netloc:
                continue
            if (parts.path.startswith(SKIPPED_PREFIXES) or DOWNLOAD.search(parts.path)
                    or DOWNLOAD_QUERY.search(parts.query) or not belongs(parts.path, slug)):
                continue
            link = parts.path + (f"?{parts.query}" if parts.query else "")
            if link in seen or link in queue or patterns[pattern(link)] >= PER_PATTERN:
                continue
            patterns[pattern(link)] += 1
            queue.append(link)
    return seen


@dataclass
class Walk:
    pages: dict[str, list[str]]  # slug -> urls
    session: str
    data: set[str]


def data_names(database: Path) -> set[str]:
    """What the demo's pages show as data (``normal``): names of tournaments, teams, players, families, groups..."""
    columns = {"tournaments_tournament": ("name", "slug", "room"), "tournaments_team": ("name",),
               "accounts_player": ("nick", "full_name"), "accounts_family": ("name",),
               "accounts_user": ("username", "first_name", "last_name"),
               "tournaments_group": ("name",), "tournaments_stage": ("key", "seed"),
               "tournaments_tournamentfamily": ("name",),
               "tournaments_game": ("group_label", "room_comment", "link"),
               "tournaments_penalty": ("text",), "tournaments_decision": ("reason", "text", "by"),
               "tournaments_appeal": ("answer", "argument", "appellant", "verdict_reasons"),
               "tournaments_question": ("text", "answer", "accepted_answers", "comment", "sources", "authors")}
    names: set[str] = set()
    with sqlite3.connect(database) as connection:
        for table, wanted in columns.items():
            present = {row[1] for row in connection.execute(f"PRAGMA table_info({table})")}  # noqa: S608
            for column in (c for c in wanted if c in present):
                for (value,) in connection.execute(f'SELECT DISTINCT "{column}" FROM {table}'):  # noqa: S608
                    if isinstance(value, str) and value.strip():
                        names.add(normal(value))
                        names.update(normal(line) for line in value.splitlines() if line.strip())
    return names


@pytest.fixture(scope="module")
def walk(demo) -> Walk:
    opener, jar = signed_in_opener(demo.origin)
    pages = {slug: crawl(opener, demo.origin, slug) for slug in demo.slugs}
    session = next(c.value for c in jar if c.name == settings.SESSION_COOKIE_NAME)
    return Walk(pages, session, data_names(demo.database))


# --- the checks of one page ------------------------------------------------------------------------------------

STATE = """async () => {
  const width = window.innerWidth;
  const scrollWidth = document.documentElement.scrollWidth;
  const describe = (el) => el.tagName.toLowerCase() + (el.id ? "#" + el.id : "")
    + (typeof el.className === "string" && el.className.trim() ? "." + el.className.trim().split(/\\s+/).join(".") : "");
  const sticking = [];
  if (scrollWidth > width + 1) {
    for (const el of document.body.querySelectorAll("*")) {
      const box = el.getBoundingClientRect();
      if (box.right <= width + 1 || !el.checkVisibility() || sticking.some((s) => s.el.contains(el))) continue;
      let clipped = false;
      for (let up = el.parentElement; up && up !== document.body; up = up.parentElement) {
        if (getComputedStyle(up).overflowX !== "visible") { clipped = true; break; }
      }
      if (clipped) continue;
      sticking.push({el, text: describe(el) + " (to " + Math.round(box.right) + " px)"});
      if (sticking.length >= 4) break;
    }
  }
  const pending = [...document.querySelectorAll("[data-live-pending]")]
    .filter((el) => el.checkVisibility({visibilityProperty: true, opacityProperty: true}))
    .map((el) => el.innerText.trim());
  let live = null;
  const root = document.querySelector("[data-live]");
  if (root) {
    try {
      const answer = await fetch(root.getAttribute("data-live"), {credentials: "same-origin", cache: "no-store"});
      live = answer.ok ? (await answer.json()).pending : "HTTP " + answer.status;
    } catch (error) { live = String(error); }
  }
  return {lang: document.documentElement.lang, width, scrollWidth, sticking: sticking.map((s) => s.text),
          pending, live, text: document.body.innerText};
}"""

TEXTS = """(lang) => {
  // what a reader of the page's language reads: not the elements of another language (the language switch)
  for (const el of [...document.body.querySelectorAll("[lang]")]) {
    const own = (el.getAttribute("lang") || "").toLowerCase();
    if (own && !own.startsWith(lang)) el.remove();
  }
  for (const el of document.querySelectorAll("details")) el.open = true;  // a click away
  const out = new Set(document.body.innerText.split(/[\\n\\t]+/));
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || ["SCRIPT", "STYLE", "NOSCRIPT", "TEMPLATE"].includes(parent.tagName)) continue;
    if (parent.tagName === "OPTION" ? parent.closest("select").checkVisibility()
        : parent.checkVisibility({visibilityProperty: true})) out.add(node.textContent);
  }
  for (const el of document.querySelectorAll("[placeholder], input[type=submit], input[type=button]")) {
    if (el.checkVisibility()) out.add(el.placeholder || el.value || "");
  }
  const said = new Set();  // what a tooltip or a screen reader says
  for (const el of document.body.querySelectorAll("[title], [aria-label], img[alt]")) {
    for (const name of ["title", "aria-label", "alt"]) if (el.getAttribute(name)) said.add(el.getAttribute(name));
  }
  const tidy = (texts) => [...texts].map((s) => s.replace(/\\s+/g, " ").trim()).filter((s) => s);
  return {texts: tidy(out), said: tidy(said)};
}"""


def without_data(text: str, data: set[str]) -> str:
    """``text`` with the data names in it (whole words, case aside) blanked out."""
    folded = text.casefold()
    for name in sorted((n for n in data if len(n) > 1 and n in folded), key=len, reverse=True):
        text = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", " ", text, flags=re.IGNORECASE)
    return text


def untranslated(texts: list[str], language: str, data: set[str], english: Messages,
                 russian: Messages) -> tuple[list[str], list[str]]:
    """(catalogue messages shown in the wrong language, text of the other language not from the catalogue).

    Text of the other language that is all data ("Семья 01 −0.1", "Signum captain") is left alone.
    """
    found, unknown = [], []
    for text in texts:
        key = normal(text)
        if not key or key in data:
            continue
        if language == "ru":
            if not TWO_LATIN_WORDS.search(text) or not TWO_LATIN_WORDS.search(without_data(text, data)):
                continue
            msgid = english.find(key)
            if msgid is not None:
                found.append(f"English on a Russian page: {text!r} (msgid {msgid!r})")
            elif (not CYRILLIC.search(text) and russian.find(key) is None
                  and len(ENGLISH_WORDS.findall(without_data(text, data))) >= 2):
                unknown.append(text)
        elif CYRILLIC.search(text) and CYRILLIC.search(without_data(text, data)):
            msgid = russian.find(key)
            if msgid is not None:
                found.append(f"Russian on an English page: {text!r} (msgstr of {msgid!r})")
            elif english.find(key) is None and re.search(r"[а-яё]{2,}", without_data(key, data)):
                unknown.append(text)
    return found, unknown


def check_pages(factory: PageFactory, walk: Walk, language: str, width: int) -> tuple[list[str], list[str]]:
    english, russian = catalogue_messages()
    page = factory(width, language)
    page.context.add_cookies([{"name": settings.SESSION_COOKIE_NAME, "value": walk.session, "url": factory.origin}])
    page.set_default_timeout(60_000)
    current = {"url": ""}
    errors: list[tuple[str, str]] = []
    page.on("console", lambda m: errors.append((current["url"], f"console {m.type}: {m.text}"))
            if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append((current["url"], f"page error: {e}")))
    problems, notes, refused = [], [], set()  # refused: pages answered with an error (their console says so too)
    for url in dict.fromkeys(u for urls in walk.pages.values() for u in urls):  # a player's page once
        current["url"] = url
        where = f"{url} [{language}, {width} px]"
        response = page.goto(url, wait_until="load")
        status = response.status if response else 0
        if status >= 400 or status == 0:
            problems.append(f"{where}: HTTP {status}")
            refused.add(url)
            continue
        state = page.evaluate(STATE)
        if state["lang"] != language:
            problems.append(f"{where}: <html lang={state['lang']!r}>, not {language!r}")
        for notice in state["pending"]:
            problems.append(f"{where}: a visible pending notice: {notice!r}")
        if state["live"] is not None and state["live"] is not False:
            problems.append(f"{where}: the standings version says pending={state['live']!r} "
                            "(the page will show 'updating…')")
        for line in state["text"].splitlines():
            if UPDATING.search(line) and not any(line.strip() in n for n in state["pending"]):
                problems.append(f"{where}: visible text says updating: {line.strip()!r}")
        if state["scrollWidth"] > state["width"] + 1:
            problems.append(f"{where}: the page is {state['scrollWidth']} px wide in a {state['width']} px "
                            f"window; sticking out: {', '.join(state['sticking']) or '?'}")
        texts = page.evaluate(TEXTS, language)
        found, unknown = untranslated(texts["texts"], language, walk.data, english, russian)
        problems += [f"{where}: {f}" for f in found]
        notes += [f"{where}: other-language text not from the catalogue: {u!r}" for u in unknown]
        found, unknown = untranslated(texts["said"], language, walk.data, english, russian)
        notes += [f"{where}: in an attribute (title, aria-label, alt): {f}" for f in found]
        notes += [f"{where}: in an attribute, other-language text not from the catalogue: {u!r}" for u in unknown]
    page.goto("about:blank")
    for (url, error), times in Counter(e for e in errors if e[0] not in refused).items():
        problems.append(f"{url} [{language}, {width} px]: {error}" + (f" (x{times})" if times > 1 else ""))
    problems += [f"a page requested another host: {u}" for u in sorted(set(factory.guard.refused))]
    return problems, notes


# --- the tests -------------------------------------------------------------------------------------------------


def test_the_catalogue_parser_reads_plurals_placeholders_and_markup():
    english, russian = catalogue_messages()
    assert english.find(normal("Updating: the results saved last are being counted; this page updates itself."))
    assert russian.find(normal("обновляется…")) == "updating…"
    entries = {e.msgid: e for e in read_catalogue()}
    assert entries["updating…"].msgstr == ["обновляется…"]
    assert any(e.msgid_plural and len(e.msgstr) == 3 for e in entries.values()), "ru plurals have three forms"
    assert english.find(normal("Ann is merged into Bob.")) == "%(duplicate)s is merged into %(target)s."
    assert english.find(normal("Points")) is None, "a one-word msgid is not looked for"
    data = {normal("Семья 01"), normal("Signum captain")}
    assert untranslated(["Семья 01 −0.1", "Signum captain", "Семья 01 has no player in game 7"], "en", data,
                        english, russian) == ([], [])
    found, _ = untranslated(["Турнирная таблица", "Log in"], "en", data, english, russian)
    assert len(found) == 1 and "Турнирная таблица" in found[0]
    found, _ = untranslated(["Search for a player or a team", "Signum captain"], "ru", data, english, russian)
    assert len(found) == 1 and "Search for a player" in found[0]


def test_the_walk_reaches_every_demo_tournament_with_its_organizer_pages(walk, demo):
    assert len(demo.slugs) >= 4, demo.slugs
    for slug in demo.slugs:
        urls = walk.pages[slug]
        assert f"/t/{slug}/" in urls and f"/accounts/dashboard/{slug}/" in urls, slug
        assert f"/t/{slug}/history/" in urls, f"{slug}: the organizer's history page was not reached"
        assert len({pattern(u) for u in urls}) >= 8, (slug, urls)
    assert walk.data, "no data names read from the demo's database"


@pytest.mark.parametrize("width", [390, 1280])
@pytest.mark.parametrize("language", ["ru", "en"])
def test_every_demo_page_reads_well_after_a_restart(chromium_browser, demo, walk, language, width):
    factory = PageFactory(chromium_browser, demo.origin)
    started = time.monotonic()
    try:
        problems, notes = check_pages(factory, walk, language, width)
    finally:
        factory.close()
    pages = len({u for urls in walk.pages.values() for u in urls})
    report = {"language": language, "width": width, "pages": pages, "seconds": round(time.monotonic() - started),
              "problems": problems, "notes": notes}
    OUTPUT.mkdir(exist_ok=True)
    (OUTPUT / f"walk-{language}-{width}.json").write_text(json.dumps(report, ensure_ascii=False, indent=1),
                                                         encoding="utf-8")
    assert not problems, (f"{len(problems)} problems on {pages} demo pages in {language} at {width} px:\n"
                          + "\n".join(problems))
