"""Regenerate the screenshots of the main pages in docs/screenshots/.

    .venv/bin/python scripts/screenshots.py [--out docs/screenshots] [--only NAME ...]

Starts the demo as ``scripts/run`` does, on a temporary SQLite database and a free port (``manage.py migrate``,
``manage.py demo``, ``manage.py runserver``), and photographs each page in headless Debian chromium
(``/usr/bin/chromium``, driven by Playwright) at 1280 and 390 px, in Russian and in English:
``<page>-<width>-<language>.png``. A shot is one viewport high (1280 x 800, 390 x 844), which keeps the files small;
the page itself is checked not to be wider than the viewport. A request to any other host than the demo stops the
script, as it fails a browser test.
"""

from __future__ import annotations

import argparse
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from urllib.parse import urlsplit

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"]
SIZES = {1280: 800, 390: 844}
LANGUAGES = ("ru", "en")
PASSWORD = "screenshots-demo-password"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def manage(env: dict[str, str], *args: str) -> None:
    subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL)


def wait_for(url: str, seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=5):  # noqa: S310 - the local demo
                return
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)


def pages(env: dict[str, str]) -> list[tuple[str, str, bool]]:
    """``(name, path, as_organizer)`` of every page to photograph, found in the demo's database."""
    os.environ.update(env)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.urls import reverse

    from tournaments.models import Appeal, Game, Team, Tour, Tournament

    def first(queryset):
        row = queryset.first()
        if row is None:
            raise SystemExit(f"the demo has no {queryset.model.__name__}: nothing to photograph")
        return row

    out = [("home", reverse("home"), False)]
    for tournament in Tournament.objects.order_by("ruleset", "-starts_on", "slug").distinct():
        if not any(name == f"standings-{tournament.ruleset}" for name, _, _ in out):
            out.append((f"standings-{tournament.ruleset}", tournament.get_absolute_url(), False))
    game = first(Game.objects.filter(seats__isnull=False).select_related("stage__tournament").order_by("id"))
    out.append(("game", reverse("game", args=[game.stage.tournament.slug, game.stage.key, game.number]), False))
    tour = first(Tour.objects.filter(masks__isnull=False).select_related("stage__tournament").order_by("id"))
    out.append(("tour", reverse("tour", args=[tour.stage.tournament.slug, tour.number]), False))
    team = first(Team.objects.filter(roster__isnull=False).select_related("tournament").order_by("id"))
    out.append(("team", reverse("team", args=[team.tournament.slug, team.pk]), False))
    seat = first(game.seats.filter(player__isnull=False).order_by("id"))
    out.append(("player", reverse("player", args=[seat.player_id]), False))
    out.append(("schedule", reverse("schedule", args=[game.stage.tournament.slug]), False))
    out.append(("dashboard", reverse("dashboard", args=[game.stage.tournament.slug]), True))
    appeal = Appeal.objects.order_by("id").first()
    if appeal is not None:
        out.append(("appeal", reverse("appeal-detail", args=[appeal.pk]), False))
    return out


def shoot(origin: str, shots: list[tuple[str, str, bool]], out: Path) -> list[Path]:
    from playwright.sync_api import sync_playwright

    netloc = urlsplit(origin).netloc
    refused: list[str] = []

    def guard(route, request) -> None:
        parts = urlsplit(request.url)
        if parts.scheme in ("data", "blob", "about") or parts.netloc == netloc:
            route.continue_()
        else:
            refused.append(request.url)
            route.abort("blockedbyclient")

    written = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        for language in LANGUAGES:
            for width, height in SIZES.items():
                context = browser.new_context(viewport={"width": width, "height": height}, base_url=origin,
                                              locale="ru-RU" if language == "ru" else "en-US")
                context.route("**/*", guard)
                context.add_cookies([{"name": "django_language", "value": language, "url": origin}])
                page = context.new_page()
                signed_in = False
                for name, path, as_organizer in shots:
                    if as_organizer and not signed_in:
                        page.goto(f"/accounts/login/?next={path}")
                        page.fill("input[name=username]", "admin")
                        page.fill("input[name=password]", PASSWORD)
                        with page.expect_navigation():
                            page.click("main form button[type=submit]")
                        signed_in = True
                    response = page.goto(path)
                    if response is None or response.status >= 400:
                        raise SystemExit(f"{path}: HTTP {response.status if response else '?'}")
                    wide = page.evaluate("document.documentElement.scrollWidth")
                    if wide > width:
                        print(f"warning: {path} is {wide} px wide at {width} px", file=sys.stderr)
                    target = out / f"{name}-{width}-{language}.png"
                    page.screenshot(path=str(target), full_page=False)
                    written.append(target)
                context.close()
        browser.close()
    if refused:
        raise SystemExit(f"a page requested another host: {', '.join(sorted(set(refused)))}")
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=ROOT / "docs" / "screenshots")
    parser.add_argument("--only", nargs="*", help="photograph only these pages (home, game, standings-..., ...)")
    options = parser.parse_args()
    if not Path(CHROMIUM).exists():
        raise SystemExit(f"{CHROMIUM} is missing: apt-get install chromium")
    options.out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="portal-screenshots-") as folder:
        port = free_port()
        env = {**os.environ, "DATABASE_URL": f"sqlite:///{folder}/demo.sqlite3", "DJANGO_DEBUG": "True",
               "PORT": f"127.0.0.1:{port}", "LOG_LEVEL": "ERROR"}
        env.pop("REDIS_URL", None)
        env.pop("CELERY_BROKER_URL", None)
        manage(env, "migrate", "--noinput")
        manage(env, "demo", "--password", PASSWORD)
        shots = pages(env)
        if options.only:
            shots = [shot for shot in shots if shot[0] in options.only]
        server = subprocess.Popen([sys.executable, "manage.py", "runserver", "--noreload", env["PORT"]], cwd=ROOT,
                                  env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            origin = f"http://{env['PORT']}"
            wait_for(f"{origin}/healthz/")
            for _name, path, as_organizer in shots:  # a page whose figures are not stored yet has them computed
                if not as_organizer:
                    wait_for(f"{origin}{path}")
            written = shoot(origin, shots, options.out)
        finally:
            server.terminate()
            server.wait(timeout=20)
    total = sum(p.stat().st_size for p in written)
    print(f"{len(written)} screenshots in {options.out} ({total // 1024} KiB)")


if __name__ == "__main__":
    main()
