"""The REST API under /api/v1/ (the import and standings endpoints among them).

The interchange endpoints follow spec/interchange.md; standings are read from
snapshots only (design.md principle 3); writes are atomic, versioned and
judged by the ruleset (principle 5).
"""

from __future__ import annotations

import copy
import csv
import datetime as dt
import io
import json
import os
import types

import pytest
from django.apps import apps
from django.core.cache import cache
from django.utils import timezone
from hypothesis import HealthCheck, given
from hypothesis import settings as hsettings
from hypothesis import strategies as st
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient
from rest_framework.throttling import AnonRateThrottle

from accounts.models import Role, TournamentRole
from portal.api import standings as standings_api
from scoring.models import StandingsSnapshot
from scoring.services import recompute
from tests.conftest import example
from tournaments.importer import import_document
from tournaments.models import Appeal, Game, Mask, Penalty, Tour, Tournament
from tournaments.synthetic import chgk_season, mafia_league

pytestmark = pytest.mark.django_db

API = "/api/v1"
FUZZ_IMPORT_EXAMPLES = 60
FUZZ_MASK_EXAMPLES = 60
EXAMPLE_COUNTS: dict[str, int] = {}


def count(key: str) -> None:
    EXAMPLE_COUNTS[key] = EXAMPLE_COUNTS.get(key, 0) + 1


@pytest.fixture(autouse=True)
def _fresh_cache():
    """Standings renders and anonymous throttling live in the cache: start every test empty."""
    cache.clear()
    yield
    cache.clear()


def english(**kwargs) -> APIClient:
    """A client reading English (Russian is the portal's default language)."""
    return APIClient(HTTP_ACCEPT_LANGUAGE="en", **kwargs)


@pytest.fixture
def client() -> APIClient:
    return english()


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("staff", password="pw-staff-123456", is_staff=True)


@pytest.fixture
def other(django_user_model):
    return django_user_model.objects.create_user("other", password="pw-other-123456")


def organizer_of(tournament, django_user_model, name="organizer", role=Role.ORGANIZER):
    user = django_user_model.objects.create_user(name, password=f"pw-{name}-123456")
    TournamentRole.objects.create(user=user, tournament=tournament, role=role)
    return user


def imported(document: dict) -> Tournament:
    """Import and compute its snapshots (on_commit never fires inside a test transaction)."""
    tournament = import_document(document)
    recompute(tournament.pk, force=True)
    tournament.refresh_from_db()
    return tournament


@pytest.fixture
def chgk() -> Tournament:
    return imported(example("chgk_tour_points"))


@pytest.fixture
def league() -> Tournament:
    return imported(example("family_league"))


def as_user(user) -> APIClient:
    api = english()
    api.force_login(user)
    return api


BOOKKEEPING = {"sessions.Session", "admin.LogEntry"}  # a login is not a write of the tournament's facts


def table_counts() -> dict[str, int]:
    return {m._meta.label: m.objects.count() for m in apps.get_models()
            if m._meta.label not in BOOKKEEPING and not m._meta.app_label.startswith("axes")}


def post_document(api: APIClient, document, query: str = ""):
    body = document if isinstance(document, (bytes, str)) else json.dumps(document, ensure_ascii=False)
    return api.post(f"{API}/tournaments/import/{query}", data=body, content_type="application/json")


# --- import: POST /api/v1/tournaments/import/ ---


def test_staff_import_answers_201_with_the_slug(staff):
    response = post_document(as_user(staff), example("chgk_tour_points"))
    assert response.status_code == 201, response.content
    assert response.json() == {"slug": "mubk-spring"}
    assert Tournament.objects.filter(slug="mubk-spring").exists()


@pytest.mark.parametrize("body, path", [
    ("{not json", ""),
    ("[1, 2, 3]", ""),
])
def test_import_of_malformed_json_is_400_and_writes_nothing(staff, body, path):
    before = table_counts()
    response = post_document(as_user(staff), body)
    assert response.status_code == 400
    errors = response.json()["errors"]
    assert errors and errors[0]["path"] == path and errors[0]["message"]
    assert table_counts() == before


def test_import_refusals_name_the_paths_and_write_nothing(staff):
    """Unknown keys and wrong types are refused at every level (interchange: a typo must not pass)."""
    document = example("chgk_tour_points")
    document["tournament"]["colour"] = "red"
    document["stages"][0]["tours"][0]["questions"] = "eight"
    document["teams"][1]["captian"] = "x"
    before = table_counts()
    response = post_document(as_user(staff), document)
    assert response.status_code == 400
    paths = {e["path"] for e in response.json()["errors"]}
    assert {"tournament.colour", "stages[0].tours[0].questions", "teams[1].captian"} <= paths
    assert table_counts() == before


def test_import_with_an_error_in_the_last_game_changes_nothing(staff):
    """All or nothing, through the API too."""
    document = mafia_league(games=20, teams=9, seed=5, slug="broken")
    document["stages"][0]["games"][19]["seats"][2]["role"] = "sheriff"
    before = table_counts()
    response = post_document(as_user(staff), document)
    assert response.status_code == 400
    assert [e["path"] for e in response.json()["errors"]] == ["stages[0].games[19].seats[2].role"]
    assert table_counts() == before


def test_import_of_an_existing_slug_is_409_unless_replace(staff):
    api = as_user(staff)
    document = example("chgk_tour_points")
    assert post_document(api, document).status_code == 201
    before = table_counts()
    response = post_document(api, document)
    assert response.status_code == 409
    assert response.json()["errors"][0]["path"] == "tournament.slug"
    assert table_counts() == before
    document["tournament"]["name"] = "Replaced"
    response = post_document(api, document, "?replace=true")
    assert response.status_code == 201
    assert Tournament.objects.get(slug="mubk-spring").name == "Replaced"


def test_import_needs_staff_or_the_organizer_replacing_their_own_tournament(client, other, chgk,
                                                                             django_user_model):
    document = example("chgk_tour_points")
    assert post_document(client, document).status_code == 401
    assert post_document(as_user(other), document, "?replace=true").status_code == 403
    fresh = dict(document, tournament={**document["tournament"], "slug": "someone-elses"})
    organizer = organizer_of(chgk, django_user_model)
    assert post_document(as_user(organizer), fresh).status_code == 403
    response = post_document(as_user(organizer), document, "?replace=true")
    assert response.status_code == 201
    replaced = Tournament.objects.get(slug="mubk-spring")
    assert replaced.pk != chgk.pk
    assert TournamentRole.objects.filter(user=organizer, tournament=replaced, role=Role.ORGANIZER).exists()


def test_import_larger_than_the_upload_limit_is_413(staff, settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 2000
    before = table_counts()
    response = post_document(as_user(staff), example("chgk_tour_points"))
    assert response.status_code == 413
    assert "2000" in response.json()["errors"][0]["message"]
    assert table_counts() == before


JSON_LEAVES = st.none() | st.booleans() | st.integers(-10**20, 10**20) | st.floats(allow_nan=False) | st.text(
    max_size=12)
JSON_VALUES = st.recursive(JSON_LEAVES, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.text(max_size=8), inner, max_size=3), max_leaves=8)


def _paths(value, prefix=()):
    yield prefix
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _paths(item, prefix + (key,))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            yield from _paths(item, prefix + (index,))


def _mutate(document, path, value):
    if not path:
        return value
    document = copy.deepcopy(document)
    target = document
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    return document


CHGK_PATHS = list(_paths(example("chgk_tour_points")))


@hsettings(max_examples=FUZZ_IMPORT_EXAMPLES, deadline=None,
           suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow], database=None)
@given(mutations=st.lists(st.tuples(st.sampled_from(CHGK_PATHS), JSON_VALUES), min_size=1, max_size=3),
       raw=st.one_of(st.none(), st.binary(max_size=40)))
def test_fuzzed_import_documents_never_crash_nor_write_partially(staff, mutations, raw):
    """Hypothesis, 60 examples (``FUZZ_IMPORT_EXAMPLES``): the example with 1-3 values replaced anywhere, or
    random bytes; the answer is 201, 400 or 409 (never 500), and a refusal leaves every table as it was."""
    count("import")
    document = example("chgk_tour_points")
    for path, value in mutations:
        try:
            document = _mutate(document, path, value)
        except (KeyError, IndexError, TypeError):
            continue
    body = raw if raw is not None else json.dumps(document)
    before = table_counts()
    response = post_document(as_user(staff), body, "?replace=true")
    assert response.status_code in (201, 400, 409), response.content
    count(f"import {response.status_code}")
    if response.status_code != 201:
        assert response.json()["errors"]
        assert table_counts() == before


# --- standings: GET /api/v1/tournaments/SLUG/standings/ ---


def snapshot(tournament, stage_key="") -> StandingsSnapshot:
    return StandingsSnapshot.objects.get(tournament=tournament, stage_key=stage_key)


def test_standings_are_the_stored_snapshot_export(client, chgk):
    response = client.get(f"{API}/tournaments/mubk-spring/standings/")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/json")
    assert response.json() == snapshot(chgk).export


def test_standings_of_a_stage(client, league):
    response = client.get(f"{API}/tournaments/mt-example/standings/?stage=final")
    assert response.status_code == 200
    assert response.json() == snapshot(league, "final").export
    assert response.json()["stage"] == "final"


def test_standings_of_an_unknown_stage_or_tournament_is_404_with_a_message(client, chgk):
    response = client.get(f"{API}/tournaments/mubk-spring/standings/?stage=final")
    assert response.status_code == 404
    assert "final" in response.json()["detail"] and "season" in response.json()["detail"]
    assert client.get(f"{API}/tournaments/nope/standings/").status_code == 404


def test_standings_answer_304_to_the_same_etag(client, chgk):
    first = client.get(f"{API}/tournaments/mubk-spring/standings/")
    etag = first["ETag"]
    assert etag and first["Last-Modified"]
    again = client.get(f"{API}/tournaments/mubk-spring/standings/", HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again["ETag"] == etag
    since = client.get(f"{API}/tournaments/mubk-spring/standings/", HTTP_IF_MODIFIED_SINCE=first["Last-Modified"])
    assert since.status_code == 304
    other = client.get(f"{API}/tournaments/mubk-spring/standings/", HTTP_IF_NONE_MATCH='"something-else"')
    assert other.status_code == 200


def test_a_new_snapshot_changes_the_etag(client, chgk):
    etag = client.get(f"{API}/tournaments/mubk-spring/standings/")["ETag"]
    mask = Mask.objects.filter(tour__stage__tournament=chgk).first()
    mask.mask = "1" * len(mask.mask)
    mask.save()
    recompute(chgk.pk)
    response = client.get(f"{API}/tournaments/mubk-spring/standings/", HTTP_IF_NONE_MATCH=etag)
    assert response.status_code == 200
    assert response["ETag"] != etag
    assert response.json() == snapshot(chgk).export


def test_repeated_standings_requests_are_served_from_the_cache(client, chgk, django_assert_max_num_queries):
    """One small query (the tournament's facts version) once the rendered table is cached."""
    with django_assert_max_num_queries(3):
        first = client.get(f"{API}/tournaments/mubk-spring/standings/")
    with django_assert_max_num_queries(1):
        again = client.get(f"{API}/tournaments/mubk-spring/standings/")
    assert again.content == first.content


class _CacheSpy:
    """Django's cache as ``portal.api.standings`` sees it, recording the keys of the rendered standings it reads and writes."""

    def __init__(self):
        self.calls: list[tuple[str, str]] = []

    def get(self, key, *args, **kwargs):
        self.calls.append(("get", key))
        return cache.get(key, *args, **kwargs)

    def set(self, key, *args, **kwargs):
        self.calls.append(("set", key))
        return cache.set(key, *args, **kwargs)


def test_a_repeated_request_costs_one_query_and_no_cache_round_trip_for_the_body(client, chgk, monkeypatch,
                                                                                  django_assert_num_queries):
    """The per-process LRU (portal.api.standings.local_cache) answers before Redis; the facts version is read."""
    spy = _CacheSpy()
    monkeypatch.setattr(standings_api, "cache", spy)
    path = f"{API}/tournaments/mubk-spring/standings/"
    with django_assert_num_queries(2):  # the tournament, its snapshot
        first = client.get(path)
    assert [call for call, _key in spy.calls] == ["get", "set"]
    spy.calls.clear()
    for _ in range(3):
        with django_assert_num_queries(1):  # the tournament (its facts version) only
            again = client.get(path)
        assert again.content == first.content and again["ETag"] == first["ETag"]
    assert spy.calls == [], "the body came from the process, not from Django's cache"
    with django_assert_num_queries(1):
        not_modified = client.get(path, HTTP_IF_NONE_MATCH=first["ETag"])
    assert not_modified.status_code == 304 and spy.calls == []

    standings_api.local_cache.clear()  # another process: its first request reads Django's cache once, then keeps the body
    with django_assert_num_queries(1):
        assert client.get(path).content == first.content
    with django_assert_num_queries(1):
        assert client.get(path).content == first.content
    assert [call for call, _key in spy.calls] == ["get"]


def test_a_new_facts_version_is_served_at_once_despite_the_process_cache(client, chgk, monkeypatch):
    path = f"{API}/tournaments/mubk-spring/standings/"
    first = client.get(path)
    assert int(first["X-Facts-Version"]) == chgk.facts_version and len(standings_api.local_cache) == 1
    mask = Mask.objects.filter(tour__stage__tournament=chgk).first()
    mask.mask = "1" * len(mask.mask)
    mask.save()  # bumps the facts version; the recompute has not run yet
    version = Tournament.objects.get(pk=chgk.pk).facts_version
    assert version > chgk.facts_version
    monkeypatch.setattr("tournaments.changes.enqueue_recompute", lambda tournament_id: None)  # the worker is busy
    pending = client.get(path)
    assert pending["X-Standings-Outdated"] == "1", "never the process's entry of the older version as current"
    recompute(chgk.pk)
    current = client.get(path)
    assert current.status_code == 200 and "X-Standings-Outdated" not in current
    assert int(current["X-Facts-Version"]) == version
    assert current["ETag"] != first["ETag"] and current.json() == snapshot(chgk).export


def test_the_process_cache_keeps_an_entry_only_until_the_snapshot_is_due_for_a_recheck(client, chgk, monkeypatch,
                                                                                       django_assert_num_queries):
    """A snapshot due for a re-check (an appeal window closing) is cached until then, in the process too."""
    start = timezone.now()
    recheck = start + dt.timedelta(hours=1)
    StandingsSnapshot.objects.filter(tournament=chgk).update(recheck_at=recheck)
    clock = {"now": start}
    monkeypatch.setattr(standings_api, "timezone", types.SimpleNamespace(now=lambda: clock["now"]))
    path = f"{API}/tournaments/mubk-spring/standings/"
    first = client.get(path)
    key = standings_api.cache_key(Tournament.objects.get(pk=chgk.pk), "", "json")
    local = standings_api.local_cache
    assert key in local
    assert local.get(key, recheck.timestamp() - 1) is not None
    assert local.get(key, recheck.timestamp()) is None, "the entry expires at the re-check moment"

    first = client.get(path)  # cached again (Django's cache still had it)
    changed = snapshot(chgk)
    changed.export["final"] = True  # what a recheck at the same facts version may store
    changed.save()
    clock["now"] = recheck - dt.timedelta(minutes=1)
    with django_assert_num_queries(1):
        assert client.get(path).content == first.content
    clock["now"] = recheck + dt.timedelta(seconds=1)
    with django_assert_num_queries(2):  # the entries are due: the snapshot is read again
        after = client.get(path)
    assert after.json()["final"] is True


def test_the_process_cache_is_a_bounded_lru():
    assert standings_api.local_cache.max_entries == standings_api.LOCAL_ENTRIES == 256
    lru = standings_api.LocalCache(max_entries=3)
    for key in "abc":
        lru.set(key, {"body": key.encode()}, expires=100.0)
    assert lru.get("a", now=1.0) == {"body": b"a"}  # "a" is now the most recently used
    lru.set("d", {"body": b"d"}, expires=100.0)
    assert len(lru) == 3 and "b" not in lru and all(k in lru for k in "acd")
    for number in range(1000):
        lru.set(f"k{number}", {"body": b"x"}, expires=100.0)
    assert len(lru) == 3 and all(f"k{n}" in lru for n in (997, 998, 999))
    assert lru.get("k999", now=100.0) is None and "k999" not in lru, "expired entries are dropped"
    lru.set("huge", {"body": b"x" * (2 * 1024 * 1024)}, expires=100.0)
    assert "huge" not in lru, "a body over LOCAL_MAX_BODY stays in Django's cache only"


@pytest.fixture
def three_a_minute(monkeypatch):
    """The anonymous throttle at 3 requests a minute (DRF reads the rates once, into the class)."""
    monkeypatch.setattr(AnonRateThrottle, "THROTTLE_RATES", {"anon": "3/minute"})


def test_without_trusted_proxies_x_forwarded_for_cannot_dodge_the_anonymous_throttle(client, chgk, settings,
                                                                                     three_a_minute):
    if "DJANGO_NUM_PROXIES" not in os.environ:
        assert settings.REST_FRAMEWORK["NUM_PROXIES"] == 0, "the default trusts no X-Forwarded-For"
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 0}
    path = f"{API}/tournaments/mubk-spring/standings/"
    statuses = [client.get(path, HTTP_X_FORWARDED_FOR=f"10.0.0.{n}", REMOTE_ADDR="192.0.2.1").status_code
                for n in range(1, 6)]
    assert statuses == [200, 200, 200, 429, 429]
    assert client.get(path, REMOTE_ADDR="192.0.2.2").status_code == 200, "another connection has its own quota"


def test_behind_one_proxy_the_throttle_keys_on_the_address_the_proxy_appended(client, chgk, settings,
                                                                             three_a_minute):
    """DJANGO_NUM_PROXIES=1 (benchmarks/http.py): the last X-Forwarded-For address is the client's."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": 1}
    path = f"{API}/tournaments/mubk-spring/standings/"
    statuses = [client.get(path, HTTP_X_FORWARDED_FOR=f"198.51.100.{n}, 10.0.0.7", REMOTE_ADDR="127.0.0.1")
                .status_code for n in range(1, 6)]
    assert statuses == [200, 200, 200, 429, 429], "an invented first address changes nothing"
    assert client.get(path, HTTP_X_FORWARDED_FOR="10.0.0.8", REMOTE_ADDR="127.0.0.1").status_code == 200


def test_outdated_snapshot_is_served_and_a_recompute_enqueued(client, chgk, monkeypatch):
    calls = []
    monkeypatch.setattr("tournaments.changes.enqueue_recompute", calls.append)
    Tournament.objects.filter(pk=chgk.pk).update(facts_version=chgk.facts_version + 1)
    response = client.get(f"{API}/tournaments/mubk-spring/standings/")
    assert response.status_code == 200
    assert response["X-Standings-Outdated"] == "1"
    assert response.json() == snapshot(chgk).export
    assert calls == [chgk.pk]


def test_missing_snapshot_is_503_with_retry_after_while_the_worker_computes(client, chgk, monkeypatch, settings):
    settings.CELERY_TASK_ALWAYS_EAGER = False
    calls = []
    monkeypatch.setattr("tournaments.changes.enqueue_recompute", calls.append)
    StandingsSnapshot.objects.filter(tournament=chgk).delete()
    response = client.get(f"{API}/tournaments/mubk-spring/standings/")
    assert response.status_code == 503
    assert int(response["Retry-After"]) > 0
    assert calls == [chgk.pk]


def test_missing_snapshot_is_computed_by_the_eager_worker_in_development(client, chgk):
    StandingsSnapshot.objects.filter(tournament=chgk).delete()
    response = client.get(f"{API}/tournaments/mubk-spring/standings/")
    assert response.status_code == 200
    assert response.json() == snapshot(chgk).export


def test_standings_as_csv(client, chgk):
    response = client.get(f"{API}/tournaments/mubk-spring/standings/?format=csv", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/csv")
    assert "attachment" in response["Content-Disposition"]
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    export = snapshot(chgk).export
    assert rows[0][:4] == ["Rank", "Team", "Points", "Status"]
    assert "correct answers" in rows[0] and "correct_answers" not in rows[0]  # in words
    assert [row[1] for row in rows[1:]] == [team["team"] for team in export["teams"]]
    assert [float(row[2]) for row in rows[1:]] == [team["points"] for team in export["teams"]]


def test_standings_csv_has_the_players_table_where_the_ruleset_ranks_players(client):
    tournament = imported(example("elimination_gp"))
    export = snapshot(tournament).export
    assert export.get("players")
    response = client.get(f"{API}/tournaments/{tournament.slug}/standings/?format=csv")
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    gap = rows.index([])
    assert len(rows[1:gap]) == len(export["teams"])
    assert [row[1] for row in rows[gap + 2:]] == [p["player"] for p in export["players"]]


def test_standings_as_xlsx(client, league):
    from openpyxl import load_workbook

    response = client.get(f"{API}/tournaments/mt-example/standings/?format=xlsx")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("application/vnd.openxmlformats")
    workbook = load_workbook(io.BytesIO(response.content))
    sheet = workbook.worksheets[0]
    rows = list(sheet.iter_rows(values_only=True))
    export = snapshot(league).export
    team_column = 2 if any("group" in t for t in export["teams"]) else 1
    assert [row[team_column] for row in rows[1:]] == [team["team"] for team in export["teams"]]


# --- schedule ---


def test_schedule_shows_times_in_the_tournament_zone(client, league):
    response = client.get(f"{API}/tournaments/mt-example/schedule/")
    assert response.status_code == 200
    body = response.json()
    assert body["timezone"] == "Europe/Moscow"
    assert [g["number"] for g in body["games"]] == [1, 2, 3, 4, 5, 6]
    assert body["games"][0]["scheduled_at"] == "2014-09-01T19:00:00+04:00"
    stage = client.get(f"{API}/tournaments/mt-example/schedule/?stage=qualifying").json()
    assert stage["games"] == []


def test_schedule_ics_parses_with_icalendar(client, league, chgk):
    import icalendar

    response = client.get(f"{API}/tournaments/mt-example/schedule.ics")
    assert response.status_code == 200
    assert response["Content-Type"].startswith("text/calendar")
    calendar = icalendar.Calendar.from_ical(response.content)
    events = list(calendar.walk("VEVENT"))
    assert len(events) == 6
    start = events[0].decoded("dtstart")
    assert str(start.tzinfo) == "Europe/Moscow" and start.hour == 19
    assert list(calendar.walk("VTIMEZONE"))
    tours = icalendar.Calendar.from_ical(client.get(f"{API}/tournaments/mubk-spring/schedule.ics").content)
    assert len(list(tours.walk("VEVENT"))) == chgk.stages.get().tours.count()
    assert client.get(f"{API}/tournaments/nope/schedule.ics").status_code == 404


# --- reads: filters, pagination, bounded queries ---


def test_games_filter_by_tournament_stage_team_player_status_and_dates(client, league):
    imported(mafia_league(games=8, teams=9, seed=2, slug="other-league"))
    base = f"{API}/games/?tournament=mt-example"
    assert client.get(base).json()["count"] == 6
    assert client.get(f"{base}&stage=final").json()["count"] == 6
    assert client.get(f"{base}&stage=qualifying").json()["count"] == 0
    by_player = client.get(f"{base}&player=Fam01-p3").json()
    assert by_player["count"] >= 1
    assert all(any(s["player"] == "Fam01-p3" for s in g["seats"]) for g in by_player["results"])
    by_team = client.get(f"{base}&team=Fam01").json()
    assert by_team["count"] == len({r["id"] for r in by_team["results"]})
    assert client.get(f"{base}&status=scheduled").json()["count"] == 0
    window = client.get(f"{base}&scheduled_after=2014-09-02T00:00:00%2B04:00"
                        f"&scheduled_before=2014-09-02T23:59:00%2B04:00").json()
    assert [g["number"] for g in window["results"]] == [3, 4]
    assert client.get(f"{API}/games/?status=nonsense").status_code == 400


def test_lists_are_paginated_with_count_in_a_stable_order(client):
    imported(mafia_league(games=30, teams=9, seed=2, slug="paged"))
    first = client.get(f"{API}/games/?tournament=paged&page_size=12").json()
    assert first["count"] == 30 and len(first["results"]) == 12 and first["next"]
    second = client.get(first["next"]).json()
    third = client.get(second["next"]).json()
    numbers = [g["number"] for page in (first, second, third) for g in page["results"]]
    assert numbers == list(range(1, 31))


def test_teams_players_families_stages_and_tours_filters(client, chgk, league):
    teams = client.get(f"{API}/teams/?tournament=mubk-spring").json()
    assert teams["count"] == len(example("chgk_tour_points")["teams"])
    signum = client.get(f"{API}/teams/?tournament=mubk-spring&name=Signum").json()["results"][0]
    assert signum["captain"] == "Signum captain" and signum["roster"][0]["player"] == "Signum captain"
    players = client.get(f"{API}/players/?tournament=mubk-spring&team=Signum").json()
    assert {p["nick"] for p in players["results"]} == set(example("chgk_tour_points")["teams"][0]["players"])
    assert client.get(f"{API}/stages/?tournament=mt-example").json()["results"][0]["groups"][0]["teams"]
    tours = client.get(f"{API}/tours/?tournament=mubk-spring&stage=season").json()
    assert tours["count"] == 2 and tours["results"][0]["masks"]
    assert client.get(f"{API}/tours/?tournament=mubk-spring&played_after=2030-01-01").json()["count"] == 0
    assert client.get(f"{API}/families/?tournament=mt-example").status_code == 200
    assert client.get(f"{API}/tournaments/mubk-spring/").json()["stages"] == ["season"]
    assert client.get(f"{API}/tournaments/?ruleset=family_league").json()["count"] == 1


def _populate(size: str) -> None:
    """Small: the examples (a penalty, a decision, a decided and a pending appeal); large: those and more."""
    league = example("family_league")
    league["decisions"] = [{"stage": "final", "game": 6, "kind": "technical_result", "outcome": "civilians",
                            "code": "FP-4", "decided_at": "2014-09-04T12:00:00+04:00", "by": "Judge"}]
    imported(league)
    season = example("chgk_tour_points")
    del season["appeals"][1]["verdict"]
    imported(season)
    if size == "large":
        imported(mafia_league(games=120, teams=12, seed=7, slug="large-league"))
        imported(chgk_season(teams=24, seed=3, slug="large-season"))


LIST_ENDPOINTS = ["tournaments", "stages", "teams", "players", "families", "games", "tours", "penalties",
                  "decisions", "appeals"]


@pytest.mark.parametrize("size", ["small", "large"])
def test_list_endpoints_use_the_same_number_of_queries_whatever_the_size(client, size,
                                                                         django_assert_max_num_queries):
    """Every list endpoint: at most 6 queries for a full page (200 rows), small or large tournaments."""
    _populate(size)
    for endpoint in LIST_ENDPOINTS:
        with django_assert_max_num_queries(6, info=endpoint):
            response = client.get(f"{API}/{endpoint}/?page_size=200")
        assert response.status_code == 200, endpoint
        assert response.json()["count"] > 0, endpoint


@pytest.mark.parametrize("size", ["small", "large"])
def test_schedule_and_standings_use_the_same_number_of_queries_whatever_the_size(client, size,
                                                                                django_assert_max_num_queries):
    _populate(size)
    slug = "mt-example" if size == "small" else "large-league"
    with django_assert_max_num_queries(4):
        assert client.get(f"{API}/tournaments/{slug}/schedule/").status_code == 200
    with django_assert_max_num_queries(4):
        assert client.get(f"{API}/tournaments/{slug}/schedule.ics").status_code == 200
    with django_assert_max_num_queries(4):
        assert client.get(f"{API}/tournaments/{slug}/standings/?stage=final").status_code == 200


# --- appeals and decisions ---


@pytest.fixture
def pending_chgk(staff):
    document = example("chgk_tour_points")
    del document["appeals"][1]["verdict"]
    tournament = imported(document)
    return tournament


def test_pending_chgk_appeal_hides_the_appealing_team_from_the_public(client, pending_chgk, other,
                                                                      django_user_model):
    """CHGK-20: the appealing team is shown to the committee, hidden from everyone else while pending."""
    rows = client.get(f"{API}/appeals/?tournament=mubk-spring").json()["results"]
    decided, pending = rows
    assert decided["team"] == "Vega" and decided["team_hidden"] is False
    assert pending["team"] is None and pending["team_hidden"] is True
    assert as_user(other).get(f"{API}/appeals/{pending['id']}/").json()["team"] is None
    jury = organizer_of(pending_chgk, django_user_model, "juror", Role.JURY)
    assert as_user(jury).get(f"{API}/appeals/{pending['id']}/").json()["team"] is None
    assert client.get(f"{API}/appeals/?tournament=mubk-spring&team=Lynx").json()["count"] == 0
    assert client.get(f"{API}/appeals/?tournament=mubk-spring&status=pending").json()["count"] == 1


@pytest.mark.parametrize("role", [Role.ORGANIZER, Role.CURATOR])
def test_pending_chgk_appellant_is_shown_to_organizers_and_curators(pending_chgk, role, django_user_model):
    user = organizer_of(pending_chgk, django_user_model, "committee", role)
    api = as_user(user)
    pending = api.get(f"{API}/appeals/?tournament=mubk-spring&status=pending").json()["results"][0]
    assert pending["team"] == "Lynx" and pending["team_hidden"] is False
    assert api.get(f"{API}/appeals/?tournament=mubk-spring&team=Lynx").json()["count"] == 1


def test_staff_sees_pending_appellants(staff, pending_chgk):
    pending = as_user(staff).get(f"{API}/appeals/?status=pending").json()["results"][0]
    assert pending["team"] == "Lynx"


def test_decisions_are_listed_with_filters(client):
    tournament = imported(example("class_balanced"))
    response = client.get(f"{API}/decisions/?tournament={tournament.slug}")
    assert response.status_code == 200
    assert response.json()["count"] == tournament.decisions.count()
    assert client.get(f"{API}/decisions/?kind=replay&tournament={tournament.slug}").status_code == 200
    assert client.get(f"{API}/decisions/?kind=nonsense").status_code == 400


# --- writes: permissions ---


def game_payload(number: int = 7, **changes) -> dict:
    game = copy.deepcopy(example("family_league")["stages"][0]["games"][0])
    game.update(number=number, scheduled_at="2014-09-04T19:00:00+04:00", round=4, **changes)
    return {"tournament": "mt-example", "stage": "final", **game}


def test_anonymous_writes_are_401_and_other_users_writes_403(client, other, league):
    game = Game.objects.get(stage__tournament=league, number=1)
    tour_less = {"masks": {}, "version": 1}
    for api, code in ((client, 401), (as_user(other), 403)):
        assert api.post(f"{API}/games/", game_payload(), format="json").status_code == code
        assert api.put(f"{API}/games/{game.pk}/", {**game_payload(1), "version": 1},
                       format="json").status_code == code
        assert api.post(f"{API}/penalties/", {"tournament": "mt-example", "kind": "fair_play", "points": "1"},
                        format="json").status_code == code
        assert api.delete(f"{API}/penalties/{Penalty.objects.first().pk}/").status_code == code
    chgk_tournament = imported(example("chgk_tour_points"))
    tour = Tour.objects.filter(stage__tournament=chgk_tournament).first()
    assert client.put(f"{API}/tours/{tour.pk}/masks/", tour_less, format="json").status_code == 401
    assert as_user(other).put(f"{API}/tours/{tour.pk}/masks/", tour_less, format="json").status_code == 403
    assert Game.objects.filter(stage__tournament=league).count() == 6


def test_organizer_of_another_tournament_may_not_write(league, django_user_model):
    elsewhere = imported(example("chgk_tour_points"))
    user = organizer_of(elsewhere, django_user_model)
    assert as_user(user).post(f"{API}/games/", game_payload(), format="json").status_code == 403


def test_organizer_enters_a_game_and_the_tournament_is_marked_changed(league, django_user_model):
    user = organizer_of(league, django_user_model)
    response = as_user(user).post(f"{API}/games/", game_payload(), format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["number"] == 7 and body["version"] == 1 and body["updated_by"] == "organizer"
    assert [s["player"] for s in body["seats"]] == [s["player"] for s in game_payload()["seats"]]
    assert body["scheduled_at"] == "2014-09-04T19:00:00+04:00"
    league_after = Tournament.objects.get(pk=league.pk)
    assert league_after.facts_version > league.facts_version


def test_token_authentication_writes(league, django_user_model):
    user = organizer_of(league, django_user_model)
    token = Token.objects.create(user=user)
    api = english()
    api.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    assert api.post(f"{API}/games/", game_payload(), format="json").status_code == 201


def test_session_writes_need_the_csrf_token(league, django_user_model):
    user = organizer_of(league, django_user_model)
    api = english(enforce_csrf_checks=True)
    api.force_login(user)
    response = api.post(f"{API}/games/", game_payload(), format="json")
    assert response.status_code == 403
    assert "CSRF" in response.json()["detail"]


# --- writes: games ---


def test_a_game_the_ruleset_refuses_is_400_with_paths_and_writes_nothing(league, staff):
    payload = game_payload()
    payload["seats"][1]["team"] = payload["seats"][0]["team"]
    payload["seats"][2]["player"] = "Nobody"
    payload["seats"][3]["role"] = "sheriff"
    before = table_counts()
    response = as_user(staff).post(f"{API}/games/", payload, format="json")
    assert response.status_code == 400
    paths = {e["path"] for e in response.json()["errors"]}
    assert "seats[3].role" in paths
    assert table_counts() == before
    payload["seats"][3]["role"] = "civilian"
    response = as_user(staff).post(f"{API}/games/", payload, format="json")
    assert response.status_code == 400
    paths = {e["path"] for e in response.json()["errors"]}
    assert "seats[2].player" in paths
    assert table_counts() == before


def test_a_game_number_is_unique_in_its_stage(league, staff):
    response = as_user(staff).post(f"{API}/games/", game_payload(number=1), format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "number"


def test_updating_a_game_bumps_its_version_and_replaces_its_seats(league, django_user_model):
    user = organizer_of(league, django_user_model)
    game = Game.objects.get(stage__tournament=league, number=1)
    payload = {**game_payload(1), "version": game.version, "outcome": "mafia"}
    payload["seats"] = payload["seats"][:8]
    response = as_user(user).put(f"{API}/games/{game.pk}/", payload, format="json")
    assert response.status_code == 200, response.content
    game.refresh_from_db()
    assert game.version == 2 and game.outcome == "mafia" and game.updated_by == "organizer"
    assert game.seats.count() == 8
    assert response.json()["version"] == 2


def test_a_write_with_an_older_version_is_409_naming_who_changed_it(league, django_user_model, staff):
    user = organizer_of(league, django_user_model)
    game = Game.objects.get(stage__tournament=league, number=1)
    first = {**game_payload(1), "version": game.version, "outcome": "mafia"}
    assert as_user(user).put(f"{API}/games/{game.pk}/", first, format="json").status_code == 200
    stale = {**game_payload(1), "version": 1, "outcome": "draw"}
    response = as_user(staff).put(f"{API}/games/{game.pk}/", stale, format="json")
    assert response.status_code == 409
    body = response.json()
    message = body["errors"][0]["message"]
    assert "organizer" in message and "Europe/Moscow" in message
    assert body["version"] == 2 and body["updated_by"] == "organizer"
    game.refresh_from_db()
    assert game.outcome == "mafia" and game.version == 2


def test_a_game_cannot_move_to_another_stage(league, staff):
    game = Game.objects.get(stage__tournament=league, number=1)
    payload = {**game_payload(1), "version": 1, "stage": "qualifying"}
    response = as_user(staff).put(f"{API}/games/{game.pk}/", payload, format="json")
    assert response.status_code == 400 and response.json()["errors"][0]["path"] == "stage"


def test_version_is_required_to_update(league, staff):
    game = Game.objects.get(stage__tournament=league, number=1)
    response = as_user(staff).put(f"{API}/games/{game.pk}/", game_payload(1), format="json")
    assert response.status_code == 400 and response.json()["errors"][0]["path"] == "version"


# --- writes: masks ---


@pytest.fixture
def tour(chgk) -> Tour:
    return Tour.objects.select_related("host").filter(stage__tournament=chgk).order_by("number").first()


def current_masks(tour: Tour) -> dict[str, str]:
    return dict(Mask.objects.filter(tour=tour).values_list("team__name", "mask"))


def test_organizer_puts_masks_and_the_version_is_bumped(chgk, tour, django_user_model):
    user = organizer_of(chgk, django_user_model)
    masks = {team: "1" * tour.questions for team in current_masks(tour)}
    response = as_user(user).put(f"{API}/tours/{tour.pk}/masks/", {"masks": masks, "version": tour.version},
                                 format="json")
    assert response.status_code == 200, response.content
    assert response.json()["masks"] == masks and response.json()["version"] == tour.version + 1
    assert current_masks(tour) == masks
    assert Tournament.objects.get(pk=chgk.pk).facts_version > chgk.facts_version


def test_a_bad_mask_is_refused_naming_the_team_and_question(chgk, tour, staff):
    masks = current_masks(tour)
    team = sorted(masks)[0]
    masks[team] = "10a" + "0" * (tour.questions - 3)
    before = current_masks(tour)
    response = as_user(staff).put(f"{API}/tours/{tour.pk}/masks/", {"masks": masks, "version": tour.version},
                                  format="json")
    assert response.status_code == 400
    error = response.json()["errors"][0]
    assert error["path"] == f"masks.{team}" and team in error["message"] and "question 3" in error["message"]
    assert current_masks(tour) == before


@pytest.mark.parametrize("change, path_part", [
    (lambda masks, tour: masks.update({sorted(masks)[0]: "1"}), "masks."),
    (lambda masks, tour: masks.update({"Nobody": "0" * tour.questions}), "masks.Nobody"),
    (lambda masks, tour: masks.update({tour.host.name: "0" * tour.questions}), "masks."),
])
def test_masks_of_a_wrong_length_or_unknown_team_or_the_host_are_refused(chgk, tour, staff, change, path_part):
    masks = current_masks(tour)
    change(masks, tour)
    response = as_user(staff).put(f"{API}/tours/{tour.pk}/masks/", {"masks": masks, "version": tour.version},
                                  format="json")
    assert response.status_code == 400
    assert any(path_part in e["path"] for e in response.json()["errors"]), response.json()


def test_masks_with_an_older_version_are_409(chgk, tour, staff, django_user_model):
    user = organizer_of(chgk, django_user_model)
    masks = current_masks(tour)
    assert as_user(user).put(f"{API}/tours/{tour.pk}/masks/", {"masks": masks, "version": tour.version},
                             format="json").status_code == 200
    response = as_user(staff).put(f"{API}/tours/{tour.pk}/masks/", {"masks": masks, "version": tour.version},
                                  format="json")
    assert response.status_code == 409
    assert "changed by organizer" in response.json()["errors"][0]["message"]


MASK_TEXT = st.text(alphabet="10X?a 2", max_size=10)
MASK_TEAMS = [team["name"] for team in example("chgk_tour_points")["teams"]] + ["Nobody", ""]
TOUR_ONE_TEAMS = sorted(example("chgk_tour_points")["stages"][0]["tours"][0]["masks"])


@hsettings(max_examples=FUZZ_MASK_EXAMPLES, deadline=None,
           suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow], database=None)
@given(data=st.data())
def test_fuzzed_masks_never_crash_nor_write_partially(chgk, tour, staff, data):
    """Hypothesis, 60 examples (``FUZZ_MASK_EXAMPLES``): masks of known and unknown teams, of any marks and
    length; the answer is 200 or 400 (never 500), a refusal changes no mask and no version, an acceptance
    stores exactly the masks sent."""
    anything = st.dictionaries(st.sampled_from(MASK_TEAMS), MASK_TEXT | st.just("1" * tour.questions), max_size=6)
    plausible = st.dictionaries(st.sampled_from(TOUR_ONE_TEAMS), st.text(alphabet="10?", min_size=tour.questions,
                                                                          max_size=tour.questions), max_size=6)
    masks = data.draw(anything | plausible)
    count("masks")
    tour.refresh_from_db()
    before, version = current_masks(tour), tour.version
    response = as_user(staff).put(f"{API}/tours/{tour.pk}/masks/", {"masks": masks, "version": version},
                                  format="json")
    assert response.status_code in (200, 400), response.content
    count(f"masks {response.status_code}")
    tour.refresh_from_db()
    if response.status_code == 400:
        assert response.json()["errors"]
        assert current_masks(tour) == before and tour.version == version
    else:
        assert current_masks(tour) == masks and tour.version == version + 1


# --- writes: penalties ---


def test_fl_0_a_judge_records_and_withdraws_a_penalty_the_organizer_may_not(league, django_user_model):
    payload = {"tournament": "mt-example", "stage": "final", "game": 2, "team": "Fam03", "player": "Fam03-p1",
               "kind": "fair_play", "code": "FP-9", "points": "0.5"}
    refused = as_user(organizer_of(league, django_user_model)).post(f"{API}/penalties/", payload, format="json")
    assert refused.status_code == 403 and "FL-0" in refused.content.decode()
    api = as_user(organizer_of(league, django_user_model, name="judge", role=Role.JUDGE))
    response = api.post(f"{API}/penalties/", {"tournament": "mt-example", "stage": "final", "game": 2,
                                              "team": "Fam03", "player": "Fam03-p1", "kind": "fair_play",
                                              "code": "FP-9", "points": "0.5"}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["team"] == "Fam03" and body["game"] == 2 and body["points"] == "0.500"
    assert api.delete(f"{API}/penalties/{body['id']}/").status_code == 204
    assert not Penalty.objects.filter(pk=body["id"]).exists()


@pytest.mark.parametrize("payload, path", [
    ({"kind": "fair_play", "points": "-1"}, "points"),
    ({"kind": "no_show", "points": "1"}, "kind"),
    ({"kind": "fair_play", "points": "1", "team": "Nobody"}, "team"),
    ({"kind": "fair_play", "points": "1", "stage": "final", "game": 99}, "game"),
    ({"kind": "fair_play", "points": "1", "colour": "red"}, "colour"),
])
def test_a_bad_penalty_is_refused_with_its_path(league, staff, payload, path):
    before = Penalty.objects.count()
    response = as_user(staff).post(f"{API}/penalties/", {"tournament": "mt-example", **payload}, format="json")
    assert response.status_code == 400
    assert path in {e["path"] for e in response.json()["errors"]}
    assert Penalty.objects.count() == before


def test_appeal_rows_exist_for_the_hiding_tests(pending_chgk):
    assert Appeal.objects.filter(tournament=pending_chgk, verdict__isnull=True).count() == 1


def test_fuzz_example_counts_were_recorded():
    """The fuzz tests above ran; the examples and answers they saw are printed with ``-s``."""
    print("hypothesis examples run:", dict(sorted(EXAMPLE_COUNTS.items())))
    if "import" in EXAMPLE_COUNTS:
        assert EXAMPLE_COUNTS["import"] <= FUZZ_IMPORT_EXAMPLES + 1


@pytest.mark.django_db
def test_date_range_filters_with_odd_offsets_never_fail(client):
    """Found by schemathesis on PostgreSQL: an offset of +18:44 is valid ISO 8601 but not a PostgreSQL zone."""
    for value in ("0826-04-21T14:46:33+18:44", "0001-01-01T00:00:00+05:00", "9999-12-31T23:59:59-12:00"):
        for url in ("/api/v1/penalties/?decided_after=", "/api/v1/games/?scheduled_before=",
                    "/api/v1/appeals/?filed_after="):
            from urllib.parse import quote

            assert client.get(url + quote(value)).status_code == 200, url + value
