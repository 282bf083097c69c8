"""The REST API's contract: what it reads back it accepts, what it refuses it says in the
documented shape, what it is it documents.

- bad input is a 4xx with a message, never a 500: non-numeric ids, NUL characters in the query or the body,
  empty or fractional numbers in filters, malformed JSON;
- errors are ``{"errors": [{"path", "message"}]}`` (400, 409) or ``{"detail": ...}`` (403, 404), always JSON;
- ``GET`` then ``PUT`` of the same game is accepted;
- ``/api/v1/`` lists the endpoints and links the documentation;
- the schema declares authentication optional on reads and documents the error answers.
"""

from __future__ import annotations

import re

import pytest
from django.core.cache import cache
from django.test import Client
from drf_spectacular.generators import SchemaGenerator
from rest_framework.test import APIClient

from scoring.services import recompute
from tests.conftest import example
from tournaments.importer import import_document
from tournaments.models import Game, Tour

pytestmark = pytest.mark.django_db

API = "/api/v1"


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def league():
    tournament = import_document(example("family_league"))
    recompute(tournament.pk, force=True)
    return tournament


@pytest.fixture
def season():
    return import_document(example("chgk_tour_points"))


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("staff", password="pw-123456789", is_staff=True)


@pytest.fixture
def api(staff) -> APIClient:
    client = APIClient()
    client.force_authenticate(staff)
    return client


def assert_errors(response, status: int = 400, path: str | None = None) -> list[dict]:
    """The documented refusal: JSON ``{"errors": [{"path", "message"}, ...]}``, each with a message."""
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    rows = response.json()["errors"]
    assert rows and all(set(row) >= {"path", "message"} and row["message"] for row in rows), rows
    if path is not None:
        assert path in {row["path"] for row in rows}, rows
    return rows


def assert_detail(response, status: int) -> str:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("application/json")
    detail = response.json()["detail"]
    assert detail
    return detail


# --- server errors on bad input ---


@pytest.mark.parametrize("method, url", [
    ("put", "/games/true/"), ("put", "/games/0.5/"), ("get", "/games/null/"), ("put", "/tours/null,null/masks/"),
    ("get", "/tours/AAA/"), ("delete", "/penalties/1e3/"), ("post", "/appeals/x/verdict/"),
    ("get", "/decisions/-1/"), ("get", "/players/99999999999999999999999/"), ("put", f"/games/{2**63}/"),
])
def test_an_id_that_is_not_a_whole_number_is_a_404_naming_it(api, league, method, url):
    """PUT /api/v1/games/true/ (any logged-in user) was a 500; an id is a whole number, else 404."""
    response = getattr(api, method)(f"{API}{url}", {}, format="json")
    detail = assert_detail(response, 404)
    if "." not in url:  # games/0.5/ reads as game 0 in format "5": an unknown format, also a 404
        assert url.split("/")[2] in detail


def test_an_id_that_is_a_number_but_no_game_is_a_plain_404(api, league):
    assert_detail(api.put(f"{API}/games/987654/", {}, format="json"), 404)


@pytest.mark.parametrize("url", [
    "/tournaments/mt-example/standings/?stage=%00", "/tournaments/mt-example/standings/?format=csv&stage=a%00",
    "/tournaments/mt-example/schedule/?stage=%00", "/tournaments/mt-example/schedule.ics?stage=%00",
    "/games/?tournament=%00", "/appeals/?team=x%00y", "/tournaments/?name%00=x",
])
def test_a_nul_character_in_the_query_is_a_400_naming_the_parameter(league, url):
    """?stage=%00 was a 500 on PostgreSQL (no NUL in a string literal), on every reading endpoint."""
    rows = assert_errors(APIClient().get(f"{API}{url}"))
    assert all("NUL" in row["message"] for row in rows)


@pytest.mark.parametrize("url", ["/t/mt-example/schedule/?stage=%00", "/t/mt-example/?stage=%00",
                                 "/t/mt-example/?page=1&stage=x%00"])
def test_a_nul_character_in_a_pages_query_is_a_400(league, url):
    """The HTML pages refuse a NUL in ?stage= too, with a message naming it."""
    response = Client().get(url)
    assert response.status_code == 400
    assert "stage" in response.content.decode() and "NUL" in response.content.decode()


def test_a_nul_character_in_a_json_body_is_a_400_naming_where(api, league):
    game = Game.objects.filter(stage__tournament=league).order_by("number").first()
    body = {**api.get(f"{API}/games/{game.pk}/").json()}
    body["seats"][1]["player"] = "Maj\x00esty"
    rows = assert_errors(api.put(f"{API}/games/{game.pk}/", body, format="json"))
    assert "seats[1].player" in rows[0]["message"]
    assert Game.objects.get(pk=game.pk).version == game.version


def test_malformed_json_is_refused_in_the_documented_errors_shape(api, league):
    """Malformed JSON was {"detail": ...}; the documented 400 is {"errors": [...]}."""
    game = Game.objects.filter(stage__tournament=league).first()
    for url, method in ((f"{API}/games/{game.pk}/", "put"), (f"{API}/games/", "post"), (f"{API}/penalties/", "post")):
        response = getattr(api, method)(url, "{bad json", content_type="application/json")
        rows = assert_errors(response, path="")
        assert "JSON" in rows[0]["message"]


@pytest.mark.parametrize("query, path", [
    ("scheduled_before=", "scheduled"), ("status=", "status"), ("round=0.5", "round"), ("number=x", "number"),
    ("page_size=0", "page_size"), ("page_size=abc", "page_size"), ("page=", "page"),
])
def test_a_filter_the_schema_types_refuses_what_is_not_of_that_type(league, query, path):
    """?scheduled_before= or ?round=0.5 were ignored (200); the schema says date-time, integer."""
    assert_errors(APIClient().get(f"{API}/games/?{query}"), path=path)


def test_an_empty_text_filter_still_means_no_filter(league):
    everything = APIClient().get(f"{API}/games/").json()["count"]
    assert APIClient().get(f"{API}/games/?team=").json()["count"] == everything > 0


def test_a_number_larger_than_any_column_matches_nothing_rather_than_failing(league):
    response = APIClient().get(f"{API}/games/?number={10**30}")
    assert response.status_code == 200 and response.json()["count"] == 0


def test_a_page_size_over_the_limit_is_cut_to_it(league):
    response = APIClient().get(f"{API}/games/?page_size=100000")
    assert response.status_code == 200 and len(response.json()["results"]) == min(200, response.json()["count"])


def test_the_schema_refuses_an_unknown_language(league):
    assert_errors(APIClient().get(f"{API}/schema/?lang=xx"), path="lang")
    assert APIClient().get(f"{API}/schema/?lang=en&format=json").status_code == 200


def test_errors_of_a_csv_or_calendar_endpoint_are_json(league):
    """A refusal is JSON whatever the endpoint renders on success (CSV table, iCalendar feed)."""
    assert "nope" in assert_detail(APIClient().get(f"{API}/tournaments/mt-example/standings/?format=csv"
                                                   "&stage=nope"), 404)
    assert_detail(APIClient().get(f"{API}/tournaments/nope/standings/?format=xlsx"), 404)
    assert_detail(APIClient().get(f"{API}/tournaments/nope/schedule.ics"), 404)


def test_a_path_under_the_api_that_matches_nothing_is_a_json_404(league):
    for url in ("/api/v1/nothing-here/", "/api/v1/tournaments/a%20b/", "/api/v1/tournaments/a%2Fb/standings/"):
        assert "/api/v1/" in assert_detail(Client().get(url), 404)
    page = Client().get("/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")


def test_a_write_without_a_login_is_a_401_saying_how_to_authenticate(league):
    game = Game.objects.filter(stage__tournament=league).first()
    response = APIClient().put(f"{API}/games/{game.pk}/", {}, format="json")
    assert "Authorization: Token" in assert_detail(response, 401)
    assert response["WWW-Authenticate"] == "Token"


# --- what GET returns, PUT accepts ---


def test_get_then_put_of_the_same_game_is_accepted(api, league):
    """PUT of what GET returned was refused (read-only keys, "link": "")."""
    for game in Game.objects.filter(stage__tournament=league).order_by("number")[:3]:
        read = api.get(f"{API}/games/{game.pk}/").json()
        written = api.put(f"{API}/games/{game.pk}/", read, format="json")
        assert written.status_code == 200, written.json()
        again = written.json()
        assert again["version"] == read["version"] + 1
        assert {k: v for k, v in again.items() if k not in ("version", "updated_at", "updated_by")} == {
            k: v for k, v in read.items() if k not in ("version", "updated_at", "updated_by")}


def test_a_game_without_a_log_reads_as_link_null_and_round_trips(api, league):
    game = Game.objects.filter(stage__tournament=league).order_by("number").first()
    Game.objects.filter(pk=game.pk).update(link="")
    read = api.get(f"{API}/games/{game.pk}/").json()
    assert read["link"] is None
    assert api.put(f"{API}/games/{game.pk}/", {**read, "link": ""}, format="json").status_code == 200
    assert Game.objects.get(pk=game.pk).link in ("", None)


def test_put_refuses_another_games_id(api, league):
    game = Game.objects.filter(stage__tournament=league).order_by("number").first()
    read = api.get(f"{API}/games/{game.pk}/").json()
    assert_errors(api.put(f"{API}/games/{game.pk}/", {**read, "id": game.pk + 1000}, format="json"), path="id")


def test_a_stale_version_is_still_a_409_with_the_current_version(api, league):
    game = Game.objects.filter(stage__tournament=league).order_by("number").first()
    read = api.get(f"{API}/games/{game.pk}/").json()
    assert api.put(f"{API}/games/{game.pk}/", read, format="json").status_code == 200
    stale = api.put(f"{API}/games/{game.pk}/", read, format="json")
    assert_errors(stale, 409)
    assert stale.json()["version"] == read["version"] + 1


def test_masks_of_a_tour_still_take_masks_and_version(api, season):
    tour = Tour.objects.filter(stage__tournament=season).order_by("number").first()
    read = api.get(f"{API}/tours/{tour.pk}/").json()
    response = api.put(f"{API}/tours/{tour.pk}/masks/", {"masks": read["masks"], "version": read["version"]},
                       format="json")
    assert response.status_code == 200 and response.json()["version"] == read["version"] + 1


# --- the API's root ---


def test_the_api_root_lists_its_endpoints_and_links_the_docs(league):
    """The menu's "API" link, /api/v1/, was a 404."""
    response = APIClient().get(f"{API}/")
    assert response.status_code == 200
    body = response.json()
    assert {"tournaments", "games", "tours", "penalties", "appeals"} <= set(body["endpoints"])
    assert set(body["documentation"]) == {"schema", "swagger_ui", "redoc"}
    for link in [*body["endpoints"].values(), *body["documentation"].values()]:
        if link["url"].endswith("/import/"):
            continue
        assert APIClient().get(link["url"]).status_code == 200, link


def test_the_api_root_is_a_page_in_a_browser(league):
    page = Client().get(f"{API}/", HTTP_ACCEPT="text/html")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    assert "/api/v1/redoc/" in page.content.decode() and "/api/v1/games/" in page.content.decode()


# --- the schema documents authentication and errors ---


@pytest.fixture(scope="module")
def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


def operations(schema: dict):
    for path, item in schema["paths"].items():
        for method, operation in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                yield path, method, operation


def test_reads_declare_that_no_authentication_is_needed(schema):
    """Public GETs declared authentication; anyone reads, so {} (none) is among the options."""
    for path, method, operation in operations(schema):
        if method == "get":
            assert {} in operation["security"], path
        else:
            assert operation["security"] and {} not in operation["security"], (method, path)


def test_every_operation_documents_its_error_answers(schema):
    """404 and 400 were undocumented; each error answer names the shared body."""
    for path, method, operation in operations(schema):
        responses = operation["responses"]
        assert {"404", "429"} <= set(responses), (method, path)
        if method != "get":
            assert {"400", "403"} <= set(responses), (method, path)
        if operation.get("parameters") and any(p["in"] == "query" for p in operation["parameters"]):
            assert "400" in responses, (method, path)
        if "400" in responses:
            assert responses["400"]["content"]["application/json"]["schema"]["$ref"].endswith("/Errors")
        if "409" in responses:  # a stale version's conflict adds the current version, who and when
            assert responses["409"]["content"]["application/json"]["schema"]["$ref"].endswith(("/Errors", "/Conflict"))
        for code in ("403", "404"):
            content = responses[code]["content"] if code in responses else {"application/json": {"schema": {
                "$ref": "/Detail"}}}
            assert content["application/json"]["schema"]["$ref"].endswith("/Detail"), (method, path, code)
    assert {"Errors", "Error", "Detail"} <= set(schema["components"]["schemas"])
    conflict = schema["components"]["schemas"]["Conflict"]
    assert {"errors", "version", "updated_by", "updated_at"} <= set(conflict["required"])


def test_text_parameters_are_declared_without_nul(schema):
    """The API refuses a NUL in the query or the path, so the schema's text parameters cannot hold one."""
    for path, _method, operation in operations(schema):
        for parameter in operation.get("parameters", []):
            if parameter["schema"].get("type") == "string" and not {"enum", "format"} & set(parameter["schema"]):
                pattern = parameter["schema"]["pattern"]
                assert re.fullmatch(pattern, "a\x00") is None, (path, parameter)
