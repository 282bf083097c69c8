"""The standings page and API run the same number of queries for 10 and 10,000 games.

Both tournaments are family_league finals from ``tournaments.synthetic.mafia_league``
(15 teams, 15 seats a game: the large one has 150,000 seats). They are stored
once for the module. The 10,000-game one is stored without the importer's ORM
path for its seats (``_store_fast``: the parsed facts without seats, then the
seats by one ``executemany``), which takes seconds instead of a minute on
SQLite; its snapshot comes from the real ``scoring.services.recompute``. The
requests read only snapshots, so the counts must not depend on the size.
"""

from __future__ import annotations

import copy
import json

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from scoring.chart import MAX_POINTS
from scoring.models import StandingsSnapshot
from tournaments.synthetic import mafia_league

SMALL, LARGE = 10, 10_000
API_LIMIT = 4  # measured: 2 on the first request after a recompute, 1 once cached
PAGE_LIMIT = 12  # measured: 7


def _store_fast(document: dict):
    """Store a Mafia document: its facts without seats through the importer, then every seat by one executemany."""
    from accounts.models import Player
    from rulesets.interchange import parse_document
    from tournaments.importer import store_facts
    from tournaments.models import Game, Seat, Team

    bare = copy.deepcopy(document)
    for stage in bare["stages"]:
        for game in stage.get("games", []):
            game["seats"] = []
    tournament = store_facts(parse_document(bare))
    games = {(key, number): pk for key, number, pk in Game.objects.filter(stage__tournament=tournament).values_list(
        "stage__key", "number", "pk")}
    teams = dict(Team.objects.filter(tournament=tournament).values_list("name", "pk"))
    players = dict(Player.objects.values_list("nick", "pk"))
    names = ["game", "order", "player", "team", "role", "stats", "timed_out", "days_played", "maniac_kills",
             "in_final_phase", "fake_passport"]
    columns = ", ".join(connection.ops.quote_name(Seat._meta.get_field(n).column) for n in names)
    rows = [
        (games[(stage["key"], game["number"])], order, players[seat["player"]], teams[seat["team"]], seat["role"],
         seat.get("stats"), seat.get("timed_out", False), seat.get("days_played"), seat.get("maniac_kills", 0),
         seat.get("in_final_phase", False), seat.get("fake_passport", False))
        for stage in document["stages"] for game in stage.get("games", [])
        for order, seat in enumerate(game.get("seats", []))
    ]
    with connection.cursor() as cursor:
        cursor.executemany(f"INSERT INTO {connection.ops.quote_name(Seat._meta.db_table)} ({columns}) "
                           f"VALUES ({', '.join(['%s'] * len(names))})", rows)
    return tournament


@pytest.fixture(scope="module")
def leagues(django_db_setup, django_db_blocker):
    """A 10-game and a 10,000-game league with current snapshots, committed for the module, removed after it."""
    from accounts.models import Family, Player
    from benchmarks.common import delete_tournament, no_recompute_on_commit
    from scoring.services import recompute
    from tournaments.importer import import_document

    with django_db_blocker.unblock():
        known = set(Player.objects.values_list("nick", flat=True))
        known_families = set(Family.objects.values_list("name", flat=True))
        with no_recompute_on_commit():  # whether Celery is eager or not: the fixture recomputes itself
            small = import_document(mafia_league(games=SMALL, seed=7, slug="query-count-small"))
            large = _store_fast(mafia_league(games=LARGE, seed=7, slug="query-count-large"))
        for tournament in (small, large):
            recompute(tournament.pk, force=True)
            tournament.refresh_from_db()
        yield {"small": small, "large": large}
        for tournament in (small, large):
            delete_tournament(tournament.pk)
        Family.objects.exclude(name__in=known_families).delete()
        Player.objects.exclude(nick__in=known).delete()


def count_queries(client, path: str) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200, (path, response.status_code, response.content[:500])
    return len(captured), len(response.content)


@pytest.mark.django_db
def test_the_large_league_has_10000_games_and_current_snapshots(leagues):
    large = leagues["large"]
    from tournaments.models import Game, Seat

    assert Game.objects.filter(stage__tournament=large).count() == LARGE
    assert Seat.objects.filter(game__stage__tournament=large).count() == 15 * LARGE
    for tournament in leagues.values():
        snap = StandingsSnapshot.objects.get(tournament=tournament, stage_key="")
        assert snap.facts_version == tournament.facts_version and not snap.stale
        assert len(snap.export["teams"]) == 15


@pytest.mark.django_db
def test_standings_api_runs_the_same_queries_for_10_and_10000_games(client, leagues,
                                                                     django_assert_max_num_queries):
    counts = {}
    for size, tournament in leagues.items():
        path = f"/api/v1/tournaments/{tournament.slug}/standings/"
        with django_assert_max_num_queries(API_LIMIT):
            first, _ = count_queries(client, path)
        with django_assert_max_num_queries(API_LIMIT):
            again, _ = count_queries(client, path)
        counts[size] = (first, again)
    assert counts["small"] == counts["large"], counts


@pytest.mark.django_db
def test_standings_api_for_a_stage_runs_the_same_queries_for_10_and_10000_games(client, leagues):
    counts = {size: count_queries(client, f"/api/v1/tournaments/{t.slug}/standings/?stage=final")[0]
              for size, t in leagues.items()}
    assert counts["small"] == counts["large"] <= API_LIMIT, counts


@pytest.mark.django_db
def test_standings_page_runs_the_same_queries_for_10_and_10000_games(client, leagues,
                                                                      django_assert_max_num_queries):
    counts = {}
    for size, tournament in leagues.items():
        with django_assert_max_num_queries(PAGE_LIMIT):
            counts[size] = count_queries(client, f"/t/{tournament.slug}/")[0]
    assert counts["small"] == counts["large"], counts


@pytest.mark.django_db
def test_standings_page_of_a_stage_runs_the_same_queries_for_10_and_10000_games(client, leagues):
    counts = {size: count_queries(client, f"/t/{t.slug}/?stage=final")[0] for size, t in leagues.items()}
    assert counts["small"] == counts["large"] <= PAGE_LIMIT, counts


SUMMARY_LIMIT = 20_000  # bytes of a snapshot's page summary (measured: 4 KB at 10 games, 12 KB at 10,000)


def snapshot_queries(client, path: str) -> list[str]:
    """The SQL of the page's queries that read the standings snapshots table."""
    table = StandingsSnapshot._meta.db_table
    with CaptureQueriesContext(connection) as captured:
        response = client.get(path)
    assert response.status_code == 200, (path, response.status_code)
    return [q["sql"] for q in captured.captured_queries if table in q["sql"]]


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["", "?stage=final"])
def test_standings_page_never_reads_the_snapshot_details_whatever_the_size(client, leagues, query):
    """The page costs the same work at 10 and 10,000 games: it reads the small summary, not the details
    (at 10,000 games 15 x 10,000 per-round points), and draws the chart sampled at store time."""
    details = connection.ops.quote_name("details")
    sizes = {}
    for size, tournament in leagues.items():
        sql = snapshot_queries(client, f"/t/{tournament.slug}/{query}")
        reads = [q for q in sql if connection.ops.quote_name("export") in q]
        assert reads and all(connection.ops.quote_name("summary") in q for q in reads), sql
        assert not any(details in q for q in sql), f"the page read the details column: {sql}"
        snap = StandingsSnapshot.objects.get(tournament=tournament, stage_key=query.rpartition("=")[2])
        sizes[size] = len(json.dumps(snap.summary))
        chart = snap.summary["chart"]
        assert chart["rounds"] == {"small": SMALL, "large": LARGE}[size]
        assert all(len(points) == len(chart["indexes"]) <= MAX_POINTS + 1 for _team, points in chart["lines"])
    assert sizes["large"] <= SUMMARY_LIMIT, f"the summary must not grow with the games: {sizes}"


@pytest.mark.django_db
def test_reading_the_standings_never_recomputes(client, leagues):
    from scoring.models import RecomputeRun

    before = RecomputeRun.objects.count()
    for tournament in leagues.values():
        count_queries(client, f"/api/v1/tournaments/{tournament.slug}/standings/")
        count_queries(client, f"/t/{tournament.slug}/")
    assert RecomputeRun.objects.count() == before
