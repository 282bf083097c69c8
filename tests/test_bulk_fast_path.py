"""The bulk writes' fast path: each column converted once, from the field's type and the types the
column holds, and the rows stored exactly as the ORM stores them.

For every model the importer writes with ``tournaments.bulk.insert`` (and for the field types it does not write
today: dates, nullable JSON), the same values are written twice, once by ``bulk.insert`` and once by the ORM
(``bulk_create``), under two parents; the rows are then read back raw (``SELECT *`` through the cursor, no field
conversion) and must be equal but for the primary key and the parent. Run on SQLite by default and, with a
PostgreSQL ``DATABASE_URL``, on PostgreSQL (``COPY``; from ``bulk.SET_CHECK_MIN_ROWS`` rows on, the references
checked set-wise).
"""

from __future__ import annotations

import datetime as dt
import io
import json
from zoneinfo import ZoneInfo

import pytest
from django.core.management import call_command
from django.db import DataError, connection, models, transaction
from django.test.utils import CaptureQueriesContext

from accounts.models import Family, Player
from scoring.models import StandingsSnapshot
from tests.conftest import RULESET_KEYS, example, expected_export
from tournaments import bulk
from tournaments.importer import GAME_FIELDS, SEAT_FIELDS, import_document
from tournaments.models import (
    AuditEntry,
    Game,
    Group,
    GroupTeam,
    Mask,
    NoShowElimination,
    Participant,
    RosterEntry,
    Seat,
    Stage,
    Team,
    Tour,
    Tournament,
    TournamentFamily,
)
from tournaments.synthetic import chgk_season, mafia_league

pytestmark = pytest.mark.django_db(transaction=True)  # the COPY's set-wise check needs a real transaction

MSK = dt.timezone(dt.timedelta(hours=3))
MOSCOW = ZoneInfo("Europe/Moscow")
NEW_YORK = ZoneInfo("America/New_York")
TEXTS = ["", "plain", "Фёдор", "tab\there", "back\\slash", "new\nline", "quote'\"", "emoji \U0001f0cf", "\\N",
         "  spaced  ", "ü" * 20]
MOMENTS = [
    dt.datetime(2014, 9, 1, 19, 0, tzinfo=MSK),
    dt.datetime(2014, 9, 1, 16, 0, 0, 123456, tzinfo=dt.UTC),
    dt.datetime(2021, 11, 7, 1, 30, tzinfo=NEW_YORK, fold=1),  # the repeated hour, second time
    dt.datetime(2021, 11, 7, 1, 30, tzinfo=NEW_YORK),
    dt.datetime(2011, 3, 27, 3, 0, tzinfo=MOSCOW),
    dt.datetime(1999, 12, 31, 23, 59, 59, 999999, tzinfo=dt.timezone(dt.timedelta(hours=-9, minutes=-30))),
    dt.datetime(2030, 1, 1, tzinfo=dt.UTC),
]
JSON_VALUES = [[], {}, [1, 2.5, "Ф", None, True, False], {"team": "Eternity", "kind": "no_show", "player": None,
                                                         "at": "2014-09-01T19:00:00+03:00", "nested": {"a": [{}]}},
               "just text", 0, 12.25, True, ["\u2028", "tab\t", "\\", "\U0001f0cf"]]


def _raw(model: type[models.Model]) -> tuple[list[str], list[tuple]]:
    """Every row of the model's table as the database holds it: column names and rows in key order."""
    q = connection.ops.quote_name
    table = model._meta.db_table
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT * FROM {q(table)} ORDER BY {q(model._meta.pk.column)}")
        names = [c[0] for c in cursor.description]
        return names, [tuple(row) for row in cursor.fetchall()]


def _written_alike(model: type[models.Model], fields: tuple[str, ...], rows: list[tuple], parent: str,
                   mine, theirs, ignore: tuple[str, ...] = ()) -> list[tuple]:
    """Write ``rows`` with ``bulk.insert`` under parent ``mine`` and with ``bulk_create`` under ``theirs`` (the
    value of field ``parent``, the first of ``fields``), then compare the raw rows of both but for the key, the
    parent and the columns ``ignore`` (auto_now moments); returns the raw rows of the fast path."""
    assert fields[0] == parent
    with transaction.atomic():
        keys = bulk.insert(model, fields, [(mine, *row) for row in rows], ids=True)
    with transaction.atomic():
        model._base_manager.bulk_create([model(**dict(zip(fields, (theirs, *row)))) for row in rows])
    names, raw = _raw(model)
    column = model._meta.get_field(parent).column
    at = names.index(column)
    skip = {names.index(model._meta.pk.column), at} | {names.index(model._meta.get_field(n).column) for n in ignore}
    by_parent: dict[object, list[tuple]] = {mine: [], theirs: []}
    for row in raw:
        if row[at] in by_parent:
            by_parent[row[at]].append(tuple(v for i, v in enumerate(row) if i not in skip))
    assert len(by_parent[mine]) == len(rows) == len(keys)
    assert by_parent[mine] == by_parent[theirs]
    assert keys == [row[names.index(model._meta.pk.column)] for row in raw if row[at] == mine]
    return by_parent[mine]


@pytest.fixture
def world():
    """Two of each parent (tournaments, stages, teams, groups, games, tours; the games and tours of a third stage),
    and players and families."""
    tournaments = [Tournament.objects.create(slug=f"fast-{i}", name=f"Fast {i}", ruleset="family_league")
                   for i in range(2)]
    stages = [Stage.objects.create(tournament=t, key="final") for t in tournaments]
    home = Stage.objects.create(tournament=tournaments[0], key="qualifying")  # of the parents below
    teams = [Team.objects.create(tournament=tournaments[0], name=f"Team {i}") for i in range(4)]
    groups = [Group.objects.create(stage=home, name=str(i)) for i in range(2)]
    games = [Game.objects.create(stage=home, number=n) for n in (1, 2)]
    tours = [Tour.objects.create(stage=home, number=n) for n in (1, 2)]
    players = Player.objects.bulk_create([Player(nick=f"player {i}") for i in range(bulk.SET_CHECK_MIN_ROWS + 100)])
    players = list(Player.objects.order_by("pk"))
    families = [Family.objects.create(name=f"Family {i}") for i in range(3)]
    return {"tournaments": tournaments, "stages": stages, "teams": teams, "groups": groups, "games": games,
            "tours": tours, "players": players, "families": families}


def test_seats_are_written_as_the_orm_writes_them_nulls_booleans_texts(world):
    """Seat (SEAT_FIELDS, as the importer gives them): ints, nulls, booleans, texts; more than
    ``SET_CHECK_MIN_ROWS`` rows, so that PostgreSQL checks the references set-wise."""
    players, teams = world["players"], world["teams"]
    rows = [(order, players[order].pk, teams[order % 4].pk, ("civilian", "don", "maniac", "мафия")[order % 4],
             None if order % 7 == 0 else 150 + order % 300, order % 3 == 0, None if order % 11 == 0 else order % 8,
             order % 5, order % 2 == 0, order % 13 == 0)
            for order in range(bulk.SET_CHECK_MIN_ROWS + 50)]
    one, two = world["games"]
    written = _written_alike(Seat, SEAT_FIELDS, rows, "game_id", one.pk, two.pk)
    assert any(None in row for row in written)


def test_games_are_written_as_the_orm_writes_them_aware_datetimes_json_big_ints(world):
    """Game (GAME_FIELDS and its JSON columns and big version counters): aware datetimes in several zones (a fold, a
    moment with microseconds), JSON of every kind, a group or none, big ints."""
    first, second = world["stages"]
    group = world["groups"][0].pk
    fields = (*GAME_FIELDS, "scheduled_teams", "scheduled_classes", "violations_published", "revision", "version")
    rows = [(n, group if n % 2 else None, TEXTS[n % len(TEXTS)][:20], n % 4 or None, MOMENTS[n % len(MOMENTS)],
             "played", ("mafia", "civilians", None)[n % 3], n % 5 == 0, n % 8, TEXTS[(n + 3) % len(TEXTS)],
             None if n % 3 == 0 else MOMENTS[(n + 2) % len(MOMENTS)], JSON_VALUES[n % len(JSON_VALUES)],
             {"Фам": ["A", "B"][n % 2], "n": n}, JSON_VALUES[(n + 4) % len(JSON_VALUES)], 2 ** 62 + n, 2 ** 31 - 1)
            for n in range(100, 140)]
    _written_alike(Game, ("stage_id", *fields[1:]), [row for row in rows], "stage_id", first.pk, second.pk,
                   ignore=("updated_at",))


def test_the_small_tables_of_an_import_are_written_as_the_orm_writes_them(world):
    """Participant, TournamentFamily, RosterEntry (aware and null ``left_at``), GroupTeam, the absent teams of games
    and tours, NoShowElimination, Mask."""
    players, teams, families = world["players"], world["teams"], world["families"]
    a, b = (t.pk for t in world["tournaments"])
    _written_alike(Participant, ("tournament_id", "player_id", "order", "level", "disqualified", "banned",
                                 "family_id"),
                   [(p.pk, i, None if i % 4 == 0 else i, i % 3 == 0, i % 5 == 0,
                     None if i % 2 else families[i % 3].pk) for i, p in enumerate(players[:40])], "tournament_id",
                   a, b)
    _written_alike(TournamentFamily, ("tournament_id", "family_id", "order"),
                   [(f.pk, i) for i, f in enumerate(families)], "tournament_id", a, b)
    one, two = teams[0].pk, teams[1].pk
    _written_alike(RosterEntry, ("team_id", "player_id", "order", "left_at"),
                   [(p.pk, i, None if i % 3 else MOMENTS[i % len(MOMENTS)]) for i, p in enumerate(players[:40])],
                   "team_id", one, two)
    first, second = (g.pk for g in world["groups"])
    _written_alike(GroupTeam, ("group_id", "team_id", "order"), [(t.pk, i) for i, t in enumerate(teams)],
                   "group_id", first, second)
    game_one, game_two = (g.pk for g in world["games"])
    _written_alike(Game.absent_teams.through, ("game_id", "team_id"), [(t.pk,) for t in teams], "game_id",
                   game_one, game_two)
    _written_alike(NoShowElimination, ("game_id", "team_id", "player_id"),
                   [(t.pk, players[i].pk) for i, t in enumerate(teams)], "game_id", game_one, game_two)
    tour_one, tour_two = (t.pk for t in world["tours"])
    _written_alike(Mask, ("tour_id", "team_id", "mask", "order"),
                   [(t.pk, ("10X?", "", "1" * 100, "0")[i], i) for i, t in enumerate(teams)], "tour_id",
                   tour_one, tour_two)
    _written_alike(Tour.absent.through, ("tour_id", "team_id"), [(t.pk,) for t in teams], "tour_id", tour_one,
                   tour_two)


def test_players_are_written_as_the_orm_writes_them():
    """Player: the importer gives the nick alone (the other columns take their defaults); the unique nick differs
    between the two writes, so the rows are compared without it and the nicks by their ends."""
    nicks = [text for text in TEXTS if text] + [f"n{i}" for i in range(20)]
    with transaction.atomic():
        keys = bulk.insert(Player, ("nick", "level", "full_name"),
                           [("a:" + n, i or None, n) for i, n in enumerate(nicks)], ids=True)
    Player.objects.bulk_create([Player(nick="b:" + n, level=i or None, full_name=n) for i, n in enumerate(nicks)])
    names, raw = _raw(Player)
    nick, pk = names.index("nick"), names.index("id")
    mine = [row for row in raw if row[nick].startswith("a:")]
    theirs = [row for row in raw if row[nick].startswith("b:")]
    assert [row[pk] for row in mine] == keys
    assert [r[nick][2:] for r in mine] == [r[nick][2:] for r in theirs] == nicks
    strip = {nick, pk}
    assert [tuple(v for i, v in enumerate(r) if i not in strip) for r in mine] == [
        tuple(v for i, v in enumerate(r) if i not in strip) for r in theirs]


def test_dates_and_nullable_json_are_written_as_the_orm_writes_them(world):
    """Types the importer does not bulk-write today: a date (Tour.played_on), JSON that may be SQL NULL
    (AuditEntry.before and after: None is NULL, JSON's null is not asked for)."""
    first, second = (s.pk for s in world["stages"])
    _written_alike(Tour, ("stage_id", "number", "played_on", "questions", "updated_by"),
                   [(n, None if n % 4 == 0 else dt.date(2013, 2, 7) + dt.timedelta(days=7 * n), n % 12 + 1,
                     TEXTS[n % len(TEXTS)]) for n in range(100, 130)], "stage_id", first, second,
                   ignore=("updated_at",))
    _written_alike(AuditEntry, ("tournament_slug", "action", "model", "object_id", "before", "after"),
                   [("import", "Game", str(i), None if i % 3 == 0 else JSON_VALUES[i % len(JSON_VALUES)],
                     JSON_VALUES[(i + 1) % len(JSON_VALUES)]) for i in range(20)], "tournament_slug", "one", "two",
                   ignore=("at",))


def test_values_of_other_types_go_through_the_field_as_the_orm_takes_them(world):
    """A column that does not hold its field's own type (digits for an integer, 0/1 for a boolean, a number for a
    text, a naive datetime) is converted value by value by the field: the same rows as the ORM's."""
    players, teams = world["players"], world["teams"]
    rows = [(i, players[i].pk, str(teams[i % 4].pk), 12345 if i % 2 else "civilian", str(200 + i), i % 2,
             True, 3, 1 if i % 3 else False, 0) for i in range(10)]
    one, two = world["games"]
    _written_alike(Seat, SEAT_FIELDS, rows, "game_id", one.pk, two.pk)
    with pytest.warns(RuntimeWarning, match="naive datetime"):
        _written_alike(RosterEntry, ("team_id", "player_id", "order", "left_at"),
                       [(p.pk, i, dt.datetime(2014, 9, 1, 19, i)) for i, p in enumerate(players[:5])],
                       "team_id", teams[2].pk, teams[3].pk)


def test_an_import_converts_each_column_once_and_no_value_through_the_field(monkeypatch):
    """The importer's columns all hold their fields' own types: none goes through the field value by value, and a
    column's converter is chosen once."""
    slow, chosen = [], []
    original = bulk._converter

    def spy(field, values):
        chosen.append(field)
        convert = original(field, values)
        if getattr(convert, "through_field", False):
            slow.append(f"{field.model.__name__}.{field.name}")
        return convert

    monkeypatch.setattr(bulk, "_converter", spy)
    import_document(mafia_league(games=30, teams=21, groups=3, players_per_team=5, seed=3, slug="fast-league"))
    import_document(chgk_season(teams=6, seed=2, slug="fast-chgk"))
    assert not slow
    seat_columns = [f for f in chosen if f.model is Seat]
    assert len(seat_columns) == len(SEAT_FIELDS)  # one stage: one seat write, one converter a column


def test_an_imports_copies_are_binary_on_postgresql():
    """On PostgreSQL every table an import writes goes in one binary ``COPY`` (its columns all hold their fields'
    own types); SQLite has no COPY."""
    with CaptureQueriesContext(connection) as queries:
        import_document(mafia_league(games=30, teams=21, groups=3, players_per_team=5, seed=3, slug="fast-binary"))
        import_document(chgk_season(teams=6, seed=2, slug="fast-binary-chgk"))
    copies = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("COPY")]
    if connection.vendor != "postgresql":
        assert not copies
        return
    assert copies and all("(FORMAT BINARY)" in sql for sql in copies)


def test_an_integer_beyond_its_columns_type_is_refused_as_the_orm_is_not_wrapped_around(world):
    """A binary COPY would store 2^31 in an ``integer`` column as -2^31: such rows go in text, where the database
    refuses them as it refuses the ORM's (SQLite's integers hold it: stored as the ORM stores it)."""
    players, teams = world["players"], world["teams"]
    one, two = world["games"]
    rows = [(order, players[order].pk, teams[0].pk, "civilian", 2 ** 31 if order == 7 else order, False, None, 0,
             False, False) for order in range(bulk.SET_CHECK_MIN_ROWS + 10)]
    if connection.vendor != "postgresql":
        _written_alike(Seat, SEAT_FIELDS, rows, "game_id", one.pk, two.pk)
        return
    with pytest.raises(DataError, match="out of range"), transaction.atomic():
        bulk.insert(Seat, SEAT_FIELDS, [(one.pk, *row) for row in rows])
    with pytest.raises(DataError, match="out of range"), transaction.atomic():
        Seat.objects.bulk_create([Seat(**dict(zip(SEAT_FIELDS, (one.pk, *row)))) for row in rows])
    assert not Seat.objects.filter(game=one).exists()


def test_rows_of_the_wrong_length_are_refused(world):
    stage = world["stages"][0]
    with pytest.raises(ValueError, match="one value of each"), transaction.atomic():
        bulk.insert(Game, ("stage_id", "number"), [(stage.pk, 1), (stage.pk,)])


@pytest.mark.parametrize("key", RULESET_KEYS)
def test_an_imported_example_stores_and_exports_the_expected_standings(key):
    """The spec's examples imported through the fast path: the stored latest table and ``export_standings`` are the
    examples' expected exports."""
    tournament = import_document(example(key))
    out = io.StringIO()
    call_command("export_standings", tournament.slug, stdout=out)
    assert json.loads(out.getvalue()) == expected_export(key)
    stored = StandingsSnapshot.objects.get(tournament=tournament, stage_key="").export
    assert json.loads(json.dumps(stored)) == expected_export(key)


def _odd_league() -> dict:
    """A small league with the game fields the loader turns back: a scheduled game, a not-held one with absent teams,
    a link, a recorded moment of the document's own, a game with none (the import's time), no-show eliminations."""
    document = mafia_league(games=6, teams=9, seed=5, slug="fast-odd")
    games = document["stages"][0]["games"]
    games[0]["link"] = "https://mafia.example/log/1"
    games[1]["result_recorded_at"] = "2014-09-02T01:02:03.456789+05:00"
    games[2].update(status="scheduled", seats=[])
    del games[2]["outcome"], games[2]["game_days"]
    games[3].update(status="not_held", seats=[], absent_teams=["Fam01", "Fam02"])
    del games[3]["outcome"], games[3]["game_days"]
    return document


@pytest.mark.parametrize("name", [*RULESET_KEYS, "odd league", "groups", "elimination series"])
def test_the_games_an_import_leaves_in_the_loaders_cache_are_those_the_loader_reads(name):
    """The import hands the recompute its games (``importer._prime_loader``): exactly what the loader reads back from
    the database, keys, headers, order and facts, times in the zone the database gives them (compared by
    ``repr``: a time in another zone is equal but not the same)."""
    from tournaments import game_cache
    from tournaments.loader import load_facts
    from tournaments.synthetic import elimination_gp_series

    document = {"odd league": _odd_league, "groups": lambda: mafia_league(
        games=40, teams=21, groups=3, players_per_team=4, seed=7, slug="fast-groups"),
                "elimination series": lambda: elimination_gp_series(stages=2, seed=3, slug="fast-gp")}.get(
        name, lambda: example(name))()
    tournament = import_document(document)
    key = Tournament.objects.filter(pk=tournament.pk).values_list(*game_cache.KEY_FIELDS).get()
    primed = game_cache.cached(tournament.pk, key)
    games = Game.objects.filter(stage__tournament=tournament).count()
    if not games:
        assert primed is None or not primed.games  # the recompute cached the none it read
        return
    assert primed is not None and len(primed.games) == games
    game_cache.forget(tournament.pk)
    facts = load_facts(tournament)
    read = game_cache.cached(tournament.pk, key)
    assert list(primed.games) == list(read.games)
    assert repr(list(primed.games.values())) == repr(list(read.games.values()))
    assert primed.revision == read.revision
    assert sum(len(s.games) for s in facts.stages) == games


def test_an_import_whose_recompute_goes_to_a_worker_keeps_no_games_in_this_process(settings, monkeypatch):
    """With a broker the worker recomputes: the importing process (a web process) does not keep the league."""
    import tournaments.changes as changes
    from tournaments import game_cache

    settings.CELERY_TASK_ALWAYS_EAGER = False
    sent = []
    monkeypatch.setattr(changes, "enqueue_recompute", sent.append)
    tournament = import_document(mafia_league(games=12, seed=2, slug="fast-worker"))
    key = Tournament.objects.filter(pk=tournament.pk).values_list(*game_cache.KEY_FIELDS).get()
    assert sent == [tournament.pk] and game_cache.cached(tournament.pk, key) is None
