"""Bad input and faults get an answer in words, and the health check tells the truth.

1. one JSON reader for every JSON endpoint, with a depth limit: deeper or malformed is a 400 ``{"errors": [...]}``;
2. every importer reads through the typed reader: a wrong type, a number that is not finite, a NUL is a problem at
   its path; the command exits non-zero with those lines, no traceback;
3. ``/healthz/`` asks the database, the cache and the broker now, each within a short timeout;
4. the database unreachable: 503 with ``Retry-After`` (JSON from the API, the 503 page elsewhere), one log line a
   failure, the commands one line and a non-zero exit;
5. a refusal the database finds in a race answers as without the race (eight imports of one new slug: one 201, seven
   409 naming the slug, on PostgreSQL);
7. import bodies that are not objects, a game's link scheme, mail said to be off, one JSON line per log event.
"""

from __future__ import annotations

import contextlib
import io
import json
import logging
import os
import secrets
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.db import IntegrityError, connection, connections
from django.db.utils import ConnectionHandler, load_backend
from django.test import Client
from django.urls import reverse
from rest_framework.test import APIClient

from config import health
from config.logs import OneLineFormatter
from portal.api import views as api_views
from rulesets.errors import Invalid
from rulesets.interchange import MAX_DOCUMENT_DEPTH
from tests.conftest import celery_conf, example
from tournaments.faults import database_unavailable, once_more_after_race
from tournaments.importer import ImportRefused, import_document
from tournaments.models import Game, Penalty, Tour, Tournament
from tournaments.sources.json_input import MAX_DEPTH, read_json

ROOT = Path(__file__).resolve().parent.parent
API = "/api/v1"
CHGK = ROOT / "tests" / "data" / "real" / "chgk"
V2_FILE = CHGK / "questionshub_rating_results_13097.json"
CLOSED_REDIS = "redis://127.0.0.1:1/0"
DEEP_BODIES = {"lists": "[" * 5000 + "]" * 5000, "objects": '{"a":' * 5000 + "1" + "}" * 5000,
               "one-too-deep": "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1)}


@pytest.fixture
def league(db):
    return import_document(example("family_league"))


@pytest.fixture
def season(db):
    return import_document(example("chgk_tour_points"))


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("staff", password="pw-staff-123456", is_staff=True)


@pytest.fixture
def api(staff) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en", raise_request_exception=False)
    client.force_authenticate(staff)
    return client


def errors_of(response, status: int = 400) -> list[dict]:
    """The documented refusal: JSON ``{"errors": [{"path", "message"}]}``."""
    assert response.status_code == status, (response.status_code, response.content[:400])
    assert response["Content-Type"].startswith("application/json")
    rows = response.json()["errors"]
    assert rows and all(row["message"] for row in rows), rows
    return rows


def json_writes(league: Tournament, season: Tournament) -> list[tuple[str, str]]:
    game = Game.objects.filter(stage__tournament=league).order_by("number").first()
    tour = Tour.objects.filter(stage__tournament=season).order_by("number").first()
    penalty = Penalty.objects.filter(tournament=league).first()
    return [
        ("post", f"{API}/tournaments/{league.slug}/stages/final/games/99/import-log/"),
        ("post", f"{API}/tournaments/{season.slug}/tours/1/import-rating/"),
        ("put", f"{API}/tours/{tour.pk}/masks/"),
        ("put", f"{API}/games/{game.pk}/"),
        ("patch", f"{API}/games/{game.pk}/"),
        ("post", f"{API}/games/"),
        ("post", f"{API}/penalties/"),
        ("patch", f"{API}/penalties/{penalty.pk if penalty else 1}/"),
        ("post", f"{API}/appeals/"),
        ("post", f"{API}/decisions/"),
        ("post", f"{API}/tournaments/import/"),
    ]


# --- one JSON reader, with a depth limit ---


@pytest.mark.parametrize("shape", sorted(DEEP_BODIES))
def test_a_deeply_nested_body_is_a_400_naming_where_on_every_json_write(api, league, season, settings, shape):
    """5,000 levels of ``[`` or ``{"a":`` were a 500 with an HTML page on every JSON write but the import."""
    settings.DEBUG = False
    for method, url in json_writes(league, season):
        response = getattr(api, method)(url, DEEP_BODIES[shape], content_type="application/json")
        assert response["Content-Type"].startswith("application/json"), (url, response.content[:200])
        if response.status_code == 405:  # PATCH is no method of these endpoints: said before the body is read
            assert response.json()["detail"]
            continue
        rows = errors_of(response)
        assert "nested too deeply" in rows[0]["message"] and str(MAX_DEPTH) in rows[0]["message"], url
        depth = rows[0]["path"].count("[") + rows[0]["path"].count(".") + 1
        assert depth >= MAX_DEPTH, rows[0]["path"][:80]


def test_sixty_four_levels_are_read_and_sixty_five_refused_at_their_path():
    assert MAX_DEPTH == MAX_DOCUMENT_DEPTH == 64
    assert read_json("[" * 64 + "]" * 64) is not None
    with pytest.raises(Invalid) as refused:
        read_json('{"games": ' + "[" * 64 + "]" * 64 + "}")
    assert refused.value.located()[0].path == "games" + "[0]" * 63


@pytest.mark.parametrize("body, path, words", [
    ('{"masks": {"A": "1"}, "version": NaN}', "version", "not a finite number"),
    ('{"masks": {"A": "1"}, "version": 1e400}', "version", "not a finite number"),
    ('{"masks": {"A\\u0000": "1"}}', "masks.A\\x00", "NUL"),
    ('{"masks": ["\\ud800"]}', "masks[0]", "surrogate"),
    ('{"masks": ', "", "not JSON"),
    (b'{"masks": "\xff"}', "", "UTF-8"),
])
def test_a_body_the_json_reader_refuses_is_a_400_at_its_path(api, season, body, path, words):
    tour = Tour.objects.filter(stage__tournament=season).order_by("number").first()
    rows = errors_of(api.put(f"{API}/tours/{tour.pk}/masks/", body, content_type="application/json"))
    assert rows[0]["path"] == path and words in rows[0]["message"], rows


def test_the_depth_limit_and_the_503_are_in_the_api_docs(settings):
    schema = APIClient().get(f"{API}/schema/?format=json").json()
    assert f"at most {MAX_DEPTH} objects and lists" in schema["info"]["description"]
    operation = schema["paths"]["/api/v1/games/{id}/"]["put"]
    assert f"nests at most {MAX_DEPTH} objects and lists" in operation["description"]
    assert "Retry-After" in operation["responses"]["503"]["headers"]


# --- every importer reads through the typed reader ---


def v2_rows() -> list[dict]:
    return json.loads(V2_FILE.read_text(encoding="utf-8"))


def first_with_controversials(rows: list[dict]) -> int:
    return next(i for i, row in enumerate(rows) if row.get("controversials"))


@pytest.mark.parametrize("field, value", [("status", ["A"]), ("status", {"A": 1}), ("id", {"id": 1}),
                                          ("id", [304032]), ("questionNumber", "3"), ("answer", ["x"])])
def test_a_rating_file_with_a_wrong_type_is_a_400_naming_its_path(api, season, field, value):
    """A controversial's ``status`` or ``id`` as a list or an object was a 500 (``unhashable type``)."""
    rows = v2_rows()
    index = first_with_controversials(rows)
    rows[index]["controversials"][0][field] = value
    response = api.post(f"{API}/tournaments/{season.slug}/tours/1/import-rating/?dry_run=true", {"results": rows},
                        format="json")
    paths = [row["path"] for row in errors_of(response)]
    assert f"results[{index}].controversials[0].{field}" in paths, paths


@pytest.mark.parametrize("literal", ["1e400", "-1e400", "NaN", "Infinity"])
def test_a_rating_position_that_is_not_finite_is_a_400_naming_its_path(api, season, literal):
    rows = v2_rows()
    rows[2]["position"] = "POSITION"
    body = json.dumps({"results": rows}, ensure_ascii=False).replace('"POSITION"', literal)
    response = api.post(f"{API}/tournaments/{season.slug}/tours/1/import-rating/", body,
                        content_type="application/json")
    rows_ = errors_of(response)
    assert rows_[0]["path"] == "results[2].position" and "not a finite number" in rows_[0]["message"], rows_


def test_a_rating_file_upload_is_read_by_the_same_reader(api, season):
    rows = v2_rows()
    rows[1]["team"]["id"] = [1, 2]
    upload = io.BytesIO(json.dumps(rows).encode())
    upload.name = "results.json"
    response = api.post(f"{API}/tournaments/{season.slug}/tours/1/import-rating/", {"file": upload},
                        format="multipart")
    assert "file[1].team.id" in [row["path"] for row in errors_of(response)]


def test_the_rating_command_refuses_a_wrong_type_with_its_path_and_no_traceback(season, tmp_path):
    rows = v2_rows()
    index = first_with_controversials(rows)
    rows[index]["controversials"][0]["status"] = {"verdict": "A"}
    path = tmp_path / "results.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    err = io.StringIO()
    with pytest.raises(CommandError, match="refused"):
        call_command("import_rating_results", str(path), "--tournament", season.slug, "--tour", "1", "--dry-run",
                     stdout=io.StringIO(), stderr=err)
    assert f"[{index}].controversials[0].status: must be a non-empty string" in err.getvalue()


@pytest.mark.parametrize("literal", ["1e400", "NaN", "Infinity", "-Infinity"])
def test_the_rating_command_exits_non_zero_with_the_lines_and_no_traceback(tmp_path, literal):
    """``manage.py import_rating_results`` printed a traceback for 1e400, Infinity and NaN positions."""
    rows = v2_rows()
    rows[0]["position"] = "POSITION"
    path = tmp_path / "results.json"
    path.write_text(json.dumps(rows, ensure_ascii=False).replace('"POSITION"', literal), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL"}
    env["DATABASE_URL"] = f"sqlite:///{tmp_path / 'unused.sqlite3'}"
    done = subprocess.run([sys.executable, "manage.py", "import_rating_results", str(path), "--tournament", "x",
                           "--tour", "1", "--dry-run"], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode != 0
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout
    assert "[0].position: " in done.stderr and "not a finite number" in done.stderr, done.stderr


def test_the_game_log_api_reads_its_fields_through_the_typed_reader(api, league):
    url = f"{API}/tournaments/{league.slug}/stages/final/games/99/import-log/?dry_run=true"
    assert errors_of(api.post(url, {"html": ["<html>"]}, format="json"))[0]["path"] == "html"
    assert errors_of(api.post(url, {"html": "<html>\x00</html>"}, format="json"))[0]["path"] == "html"
    assert errors_of(api.post(url, {"html": "<html>", "teams": {"Vera": ["Upiitsy"]}},
                              format="json"))[0]["path"] == "teams.Vera"
    assert errors_of(api.post(url, {"html": "<html>", "stats": {"Vera": 1.5}}, format="json"))[0]["path"] == (
        "stats.Vera")
    assert errors_of(api.post(url, {"html": "<html>", "teams": '{"Vera": '}, format="json"))[0]["path"] == "teams"


def test_the_interchange_import_refuses_a_number_that_is_not_finite_at_its_path(api):
    body = json.dumps(example("chgk_tour_points")).replace('"questions": 8', '"questions": NaN', 1)
    rows = errors_of(api.post(f"{API}/tournaments/import/", body, content_type="application/json"))
    assert rows[0]["path"].endswith(".questions") and "not a finite number" in rows[0]["message"], rows


# --- /healthz/ asks each dependency now ---


@pytest.fixture
def broker_at(settings):
    """Celery's broker at the URL given (tasks no longer eager), restored afterwards."""
    with contextlib.ExitStack() as stack:

        def point(url: str) -> None:
            settings.CELERY_TASK_ALWAYS_EAGER = False
            stack.enter_context(celery_conf(broker_url=url, broker_write_url=url))

        yield point


def redis_answers() -> bool:
    try:
        with socket.create_connection(("127.0.0.1", 6379), timeout=0.5):
            return True
    except OSError:
        return False


@pytest.mark.django_db
def test_healthz_reports_the_cache_down_in_a_fresh_process_that_never_called_it(settings):
    """It read a flag only a failed cache call in the same thread sets: a fresh process said "ok"."""
    settings.CACHES = {"default": {"BACKEND": "config.cache.ResilientRedisCache", "LOCATION": CLOSED_REDIS,
                                   "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}}
    response = Client().get("/healthz/")
    assert response.status_code == 200, "the portal serves without its cache"
    assert response.json() == {"status": "degraded", "database": "ok", "cache": "down", "broker": "in-process"}


@pytest.mark.django_db
def test_healthz_reports_the_broker_down(broker_at):
    broker_at(CLOSED_REDIS)
    response = Client().get("/healthz/")
    assert response.status_code == 200
    assert response.json()["broker"] == "down" and response.json()["status"] == "degraded"


@pytest.mark.django_db
def test_healthz_gives_up_on_an_unroutable_cache_within_its_timeout(settings):
    settings.CACHES = {"default": {"BACKEND": "config.cache.ResilientRedisCache",
                                   "LOCATION": "redis://10.255.255.1:6379/0",
                                   "OPTIONS": {"socket_connect_timeout": 1, "socket_timeout": 1}}}
    started = time.monotonic()
    assert Client().get("/healthz/").json()["cache"] == "down"
    assert time.monotonic() - started < 5


@pytest.mark.django_db
@pytest.mark.skipif(not redis_answers(), reason="needs Redis at 127.0.0.1:6379")
def test_healthz_says_ok_for_a_redis_that_answers(settings, broker_at):
    settings.CACHES = {"default": {"BACKEND": "config.cache.ResilientRedisCache",
                                   "LOCATION": "redis://127.0.0.1:6379/0", "KEY_PREFIX": f"healthz-{os.getpid()}"}}
    broker_at("redis://127.0.0.1:6379/0")
    assert Client().get("/healthz/").json() == {"status": "ok", "database": "ok", "cache": "ok", "broker": "ok"}


def dead_database(alias: str = "default"):
    """A connection to a PostgreSQL that refuses every connection (a closed port)."""
    settings_dict = ConnectionHandler().configure_settings({alias: {
        "ENGINE": "django.db.backends.postgresql", "NAME": "portal", "USER": "portal", "HOST": "127.0.0.1",
        "PORT": "1"}})[alias]
    return load_backend(settings_dict["ENGINE"]).DatabaseWrapper(settings_dict, alias)


@pytest.mark.django_db
def test_healthz_answers_503_when_the_database_refuses_the_probe(monkeypatch):
    monkeypatch.setattr(health, "probe_connection", dead_database)
    response = Client().get("/healthz/")
    assert response.status_code == 503
    assert response.json()["database"] == "down" and response.json()["status"] == "unavailable"


# --- the database unreachable ---


@pytest.fixture
def database_down(league, settings):
    """Every query of the test's thread goes to a PostgreSQL that refuses connections (DEBUG off)."""
    settings.DEBUG = False
    real = connections["default"]
    connections["default"] = dead_database()
    yield
    connections["default"] = real


def test_with_the_database_down_the_api_answers_503_json_with_retry_after_and_one_log_line(database_down, caplog,
                                                                                          settings):
    with caplog.at_level(logging.INFO):
        response = APIClient(HTTP_ACCEPT_LANGUAGE="en", raise_request_exception=False).get(f"{API}/games/")
    assert response.status_code == 503
    assert response["Content-Type"].startswith("application/json")
    assert response["Retry-After"] == str(settings.DATABASE_RETRY_AFTER)
    assert "database does not answer" in response.json()["detail"]
    failures = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(failures) == 1, [r.getMessage() for r in failures]
    line = OneLineFormatter().format(failures[0])
    assert "\n" not in line and "Traceback" not in line
    assert "127.0.0.1:1" in line and "/api/v1/games/" in line


@pytest.mark.parametrize("language, words", [("en", "cannot reach its database"), ("ru", 'lang="ru"')])
def test_with_the_database_down_a_page_answers_the_503_page_in_the_readers_language(database_down, caplog,
                                                                                    language, words):
    with caplog.at_level(logging.INFO):
        response = Client(HTTP_ACCEPT_LANGUAGE=language, raise_request_exception=False).get("/t/mt-example/")
    assert response.status_code == 503 and response["Retry-After"]
    page = response.content.decode()
    assert f'<html lang="{language}">' in page and words in page
    assert 'class="site-header"' in page, "the project's own template, with the site's header"
    failures = [r for r in caplog.records if r.levelno >= logging.WARNING]
    assert len(failures) == 1
    line = OneLineFormatter().format(failures[0])
    assert "\n" not in line and '"traceback"' not in line and "the database did not answer" in line


@pytest.mark.django_db
def test_the_database_errors_that_are_unavailability_and_those_that_are_not():
    dead = dead_database()
    with pytest.raises(Exception) as refused:
        dead.ensure_connection()
    assert database_unavailable(refused.value)
    assert not database_unavailable(IntegrityError("duplicate key"))
    assert not database_unavailable(ValueError("x"))


@pytest.mark.parametrize("command", [["runserver", "--noreload", "127.0.0.1:0"], ["migrate", "--noinput"]])
def test_run_and_serve_say_in_one_line_which_database_did_not_answer_and_exit_non_zero(command):
    env = dict(os.environ, DATABASE_URL="postgres://portal@127.0.0.1:1/portal")
    done = subprocess.run([sys.executable, "manage.py", *command], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 1
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(f"{command[0]}: the database did not answer: PostgreSQL 'portal' at 127.0.0.1:1")
    assert "Traceback" not in done.stdout + done.stderr


# --- a refusal the database finds in a race ---


@pytest.mark.django_db(transaction=True)
def test_eight_simultaneous_imports_of_one_new_slug_answer_one_201_and_seven_409s_naming_it(django_user_model):
    """PostgreSQL: seven imports waited on the first one's slug and were 400 "the database refused the document"."""
    if connection.vendor != "postgresql":
        pytest.skip("the race needs PostgreSQL's concurrent transactions (.ci/run runs this against it)")
    staff = django_user_model.objects.create_user("race-staff", password="pw-race-123456", is_staff=True)
    document = example("chgk_tour_points")
    document["tournament"]["slug"] = "race-for-a-slug"
    body = json.dumps(document)
    barrier = threading.Barrier(8)
    answers: list[tuple[int, dict]] = []

    def import_at_once() -> None:
        try:
            client = APIClient(HTTP_ACCEPT_LANGUAGE="en", raise_request_exception=False)
            client.force_authenticate(staff)
            barrier.wait(timeout=30)
            response = client.post(f"{API}/tournaments/import/", body, content_type="application/json")
            answers.append((response.status_code, response.json()))
        finally:
            connections.close_all()

    threads = [threading.Thread(target=import_at_once) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(status for status, _body in answers) == [201] + [409] * 7, answers
    for status, answer in answers:
        if status == 409:
            assert answer["errors"][0]["path"] == "tournament.slug", answer
            assert "race-for-a-slug" in answer["errors"][0]["message"]
    assert Tournament.objects.filter(slug="race-for-a-slug").count() == 1


def test_an_import_that_lost_a_race_is_answered_as_the_same_import_without_it(api, season, monkeypatch):
    """Any database: the first try is refused by the database as in the race; the second finds the slug: 409."""
    real = api_views.import_document
    calls: list[int] = []

    def raced_once(document, **kwargs):
        calls.append(1)
        if len(calls) == 1:
            try:
                raise IntegrityError('duplicate key value violates unique constraint "tournaments_tournament_slug_key"')
            except IntegrityError as exc:
                raise ImportRefused([]) from exc
        return real(document, **kwargs)

    monkeypatch.setattr(api_views, "import_document", raced_once)
    rows = errors_of(api.post(f"{API}/tournaments/import/", example("chgk_tour_points"), format="json"), 409)
    assert len(calls) == 2 and rows[0]["path"] == "tournament.slug" and season.slug in rows[0]["message"]


def test_a_write_is_tried_once_more_only_after_a_lost_race():
    calls: list[int] = []

    def lost_then_done() -> str:
        calls.append(1)
        if len(calls) == 1:
            raise IntegrityError("duplicate key")
        return "done"

    assert once_more_after_race(lost_then_done) == "done" and len(calls) == 2
    with pytest.raises(ValueError):
        once_more_after_race(lambda: (_ for _ in ()).throw(ValueError("not a race")))


# --- import bodies that are not objects ---


@pytest.mark.parametrize("body", ["[]", "1", '"x"', "null"])
def test_import_log_and_import_rating_refuse_a_body_that_is_not_an_object(api, league, season, body):
    """``AttributeError: 'list' object has no attribute 'get'`` was a 500."""
    for url in (f"{API}/tournaments/{league.slug}/stages/final/games/99/import-log/",
                f"{API}/tournaments/{season.slug}/tours/1/import-rating/"):
        rows = errors_of(api.post(url, body, content_type="application/json"))
        assert rows[0]["path"] == "" and "must be a JSON object" in rows[0]["message"], (url, rows)


# --- a game's link is http or https ---


@pytest.mark.parametrize("link", ["javascript:alert(1)", "data:text/html,<script>alert(1)</script>",
                                  "vbscript:msgbox(1)", "JavaScript:alert(1)", " https://x.example/", "https://"])
def test_a_games_link_other_than_http_or_https_is_refused_naming_the_field(api, league, link):
    game = Game.objects.filter(stage__tournament=league).order_by("number").first()
    body = api.get(f"{API}/games/{game.pk}/").json()
    body["link"] = link
    rows = errors_of(api.put(f"{API}/games/{game.pk}/", body, format="json"))
    assert rows[0]["path"] == "link" and "http:// or https://" in rows[0]["message"], rows
    assert Game.objects.get(pk=game.pk).link == game.link
    body["link"] = "https://mafiaonline.ru/log/3624027"
    assert api.put(f"{API}/games/{game.pk}/", body, format="json").status_code == 200


def test_an_interchange_document_with_a_javascript_link_is_refused_at_its_path(api):
    document = example("family_league")
    document["tournament"]["slug"] = "link-check"
    document["stages"][0]["games"][1]["link"] = "javascript:alert(document.cookie)"
    rows = errors_of(api.post(f"{API}/tournaments/import/", document, format="json"))
    assert rows[0]["path"] == "stages[0].games[1].link", rows


def test_the_game_page_never_renders_another_scheme_as_a_link(league):
    game = Game.objects.filter(stage__tournament=league).order_by("number").first()
    Game.objects.filter(pk=game.pk).update(link="javascript:alert(1)")  # stored before links were checked
    page = Client(HTTP_ACCEPT_LANGUAGE="en").get(f"/t/{league.slug}/{game.stage.key}/games/{game.number}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert 'href="javascript:' not in html and "javascript:alert(1)" in html
    Game.objects.filter(pk=game.pk).update(link="https://mafiaonline.ru/log/3624027")
    html = Client().get(f"/t/{league.slug}/{game.stage.key}/games/{game.number}/").content.decode()
    assert 'href="https://mafiaonline.ru/log/3624027"' in html


# --- production says loudly that mail is off ---


def _production(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "EMAIL_BACKEND")}
    env.update(DJANGO_DEBUG="False", SECRET_KEY=secrets.token_urlsafe(50), ALLOWED_HOSTS="portal.example.org",
               **extra)
    return env


def test_production_without_a_mail_server_says_loudly_that_mail_is_off():
    done = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=_production(), capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    line = next(json.loads(line) for line in done.stderr.splitlines() if "MAIL IS OFF" in line)
    assert line["level"] == "WARNING" and "EMAIL_BACKEND" in line["message"]
    smtp = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, capture_output=True, text=True,
                          timeout=120, env=_production(EMAIL_BACKEND="django.core.mail.backends.smtp.EmailBackend",
                                                       EMAIL_HOST="mail.example.org"))
    assert smtp.returncode == 0 and "MAIL IS OFF" not in smtp.stderr
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "MAIL IS OFF" in readme and "EMAIL_HOST_PASSWORD" in (ROOT / "docker-compose.yml").read_text()


# --- the log, one structured line per event ---


def test_a_log_line_is_one_json_object_with_time_level_and_logger():
    record = logging.LogRecord("portal.api", logging.WARNING, __file__, 1, "team %r refused", ("Rotor\n{\"x\": 1}",),
                               None)
    line = OneLineFormatter().format(record)
    assert "\n" not in line
    entry = json.loads(line)
    assert entry["level"] == "WARNING" and entry["logger"] == "portal.api" and entry["time"].endswith("Z")
    assert entry["message"] == "team 'Rotor\\n{\"x\": 1}' refused"


@pytest.mark.django_db
def test_a_403_is_logged_in_one_line_without_a_traceback(league, django_user_model, caplog, settings):
    settings.DEBUG = False
    player = django_user_model.objects.create_user("player", password="pw-player-123456")
    client = Client(HTTP_ACCEPT_LANGUAGE="en", raise_request_exception=False)
    client.force_login(player)
    game = Game.objects.filter(stage__tournament=league).order_by("number").first()
    with caplog.at_level(logging.WARNING):
        response = client.get(reverse("game-entry", args=[league.slug, game.stage.key, game.number]))
    assert response.status_code == 403
    record = next(r for r in caplog.records if r.name == "django.request")
    line = OneLineFormatter().format(record)
    entry = json.loads(line)
    assert "\n" not in line and "traceback" not in entry
    assert entry["status"] == 403 and entry["error"].startswith("PermissionDenied")


@pytest.mark.django_db
def test_an_entered_path_cannot_start_a_log_line_of_its_own(caplog):
    with caplog.at_level(logging.WARNING):
        Client().get("/t/a%0A%7B%22level%22%3A%22ERROR%22%7D/")
    line = OneLineFormatter().format(next(r for r in caplog.records if r.name == "django.request"))
    assert "\n" not in line and json.loads(line)["level"] == "WARNING"

