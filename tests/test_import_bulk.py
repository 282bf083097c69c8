"""The importer's bulk writes (``tournaments.bulk``): the same rows as ``bulk_create``, all or nothing, the same
export, and a query count that does not grow with the games.

Run on SQLite by default (one ``executemany`` a table) and, with a PostgreSQL ``DATABASE_URL``, on PostgreSQL
(``COPY``; from ``bulk.SET_CHECK_MIN_ROWS`` rows on, foreign keys checked set-wise).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import io
import json

import hypothesis
import pytest
from django.apps import apps
from django.core.management import call_command
from django.db import IntegrityError, connection, transaction
from django.db.models.signals import post_delete
from django.test.utils import CaptureQueriesContext
from hypothesis import given, settings
from hypothesis import strategies as st

import rulesets
import tournaments.importer as importer
from rulesets.interchange import export_standings, parse_document
from tests.conftest import RULESET_KEYS, example, expected_export
from tournaments import bulk, purge
from tournaments.changes import bulk_change
from tournaments.importer import ImportRefused, import_document
from tournaments.loader import load_facts
from tournaments.models import Game, Seat, Stage, Tournament
from tournaments.synthetic import mafia_league

pytestmark = pytest.mark.django_db

NOW = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)


def _table_counts() -> dict[str, int]:
    return {m._meta.label: m._base_manager.count() for m in apps.get_models()}


def _export(facts) -> dict:
    """The reference loop: the ruleset's standings on the facts, as the export document."""
    return export_standings(facts, rulesets.get(facts.ruleset).compute(facts, None, NOW))


def _rows(queryset, *exclude: str) -> list[dict]:
    return [{k: v for k, v in row.items() if k not in exclude} for row in queryset.order_by("id").values()]


def _stage() -> Stage:
    tournament = Tournament.objects.create(slug="bulk", name="Bulk", ruleset="family_league")
    return Stage.objects.create(tournament=tournament, key="final")


def test_bulk_insert_stores_the_same_rows_as_bulk_create():
    """Every column, given or defaulted (JSON defaults, auto_now), as bulk_create stores it; keys in row order."""
    first, second = _stage(), Stage.objects.create(tournament=Tournament.objects.get(slug="bulk"), key="semi")
    moment = dt.datetime(2024, 3, 1, 19, 30, tzinfo=dt.timezone(dt.timedelta(hours=3)))
    values = [
        {"number": n, "round": n % 3 or None, "scheduled_at": moment + dt.timedelta(days=n), "status": "played",
         "outcome": "mafia" if n % 2 else "civilians", "omon": n == 2, "game_days": n, "link": f"https://x/{n}",
         "group_label": "Ф\t\\", "result_recorded_at": moment, "scheduled_teams": ["A", "Б"] if n == 1 else [],
         "violations_published": [{"team": "A", "kind": "no_show", "player": None, "at": moment.isoformat()}]}
        for n in range(1, 6)
    ]
    fields = ("stage_id", *values[0])
    keys = bulk.insert(Game, fields, [(first.pk, *v.values()) for v in values], ids=True)
    Game.objects.bulk_create([Game(stage=second, **v) for v in values])
    assert keys == list(Game.objects.filter(stage=first).order_by("number").values_list("id", flat=True))
    mine, theirs = (_rows(Game.objects.filter(stage=s), "id", "stage_id", "updated_at") for s in (first, second))
    assert mine == theirs and mine[0]["scheduled_classes"] == {} and mine[0]["revision"] == 0
    assert all(g.updated_at is not None for g in Game.objects.all())


def test_bulk_insert_of_seats_matches_bulk_create_and_gives_no_keys_unasked():
    from accounts.models import Player
    from tournaments.models import Team

    stage = _stage()
    team = Team.objects.create(tournament=stage.tournament, name="A")
    players = [Player.objects.create(nick=f"p{i}") for i in range(3)]
    one, two = (Game.objects.create(stage=stage, number=n) for n in (1, 2))
    seats = [(p.pk, team.pk, role, stats, i == 1, days, kills, i == 0, False)
             for i, (p, role, stats, days, kills) in enumerate(zip(
                 players, ("maniac", "civilian", "don"), (10, None, 0), (None, 3, 1), (2, 0, 0)))]
    fields = ("player_id", "team_id", "role", "stats", "timed_out", "days_played", "maniac_kills",
              "in_final_phase", "fake_passport")
    assert bulk.insert(Seat, ("game_id", "order", *fields), [(one.pk, i, *s) for i, s in enumerate(seats)]) == []
    Seat.objects.bulk_create([Seat(game=two, order=i, **dict(zip(fields, s))) for i, s in enumerate(seats)])
    mine, theirs = (_rows(Seat.objects.filter(game=g), "id", "game_id") for g in (one, two))
    assert mine == theirs and len(mine) == 3


def test_bulk_insert_refuses_a_primary_key_or_a_field_name_for_a_foreign_key():
    with pytest.raises(ValueError, match="attribute name"):
        bulk.insert(Game, ("stage", "number"), [(1, 1)])
    with pytest.raises(ValueError, match="primary key"):
        bulk.insert(Game, ("id", "stage_id", "number"), [(1, 1, 1)])


@pytest.mark.django_db(transaction=True)
def test_bulk_insert_with_a_missing_reference_is_refused_and_writes_nothing():
    """A key that is not there: IntegrityError (set-wise before the COPY, or the database's own check at the
    commit), and the transaction leaves nothing."""
    stage = _stage()
    rows = [(stage.pk, n) for n in range(1, bulk.SET_CHECK_MIN_ROWS + 2)] + [(stage.pk + 1000, 99_999)]
    with pytest.raises(IntegrityError), transaction.atomic():
        bulk.insert(Game, ("stage_id", "number"), rows, ids=True)
    assert not Game.objects.exists()
    with transaction.atomic():
        assert len(bulk.insert(Game, ("stage_id", "number"), [(stage.pk, 1)], ids=True)) == 1  # the table is fine


@pytest.mark.parametrize("key", RULESET_KEYS)
def test_an_imported_example_exports_as_the_document_itself(key):
    """spec/examples: the facts read back from the database give the export the parsed document gives (the
    reference loop), and the example's expected export."""
    tournament = import_document(example(key))
    assert _export(load_facts(tournament)) == _export(parse_document(example(key)))
    out = io.StringIO()
    call_command("export_standings", tournament.slug, stdout=out)
    assert json.loads(out.getvalue()) == expected_export(key)


def test_an_imported_league_exports_as_the_document_itself():
    """Enough games for the set-wise reference check on PostgreSQL (bulk.SET_CHECK_MIN_ROWS seats and more)."""
    document = mafia_league(games=120, seed=4, slug="bulk-league")
    tournament = import_document(document)
    assert Seat.objects.filter(game__stage__tournament=tournament).count() == 120 * 15
    assert _export(load_facts(tournament)) == _export(parse_document(document))


def test_a_refused_document_writes_nothing():
    import_document(example("family_league"))
    before = _table_counts()
    document = mafia_league(games=50, seed=2, slug="refused")
    document["stages"][0]["games"][49]["seats"][3]["stats"] = -1
    with pytest.raises(ImportRefused) as refused:
        import_document(document)
    assert [p.path for p in refused.value.problems] == ["stages[0].games[49].seats[3].stats"]
    assert _table_counts() == before


@pytest.mark.django_db(transaction=True)
def test_a_failure_in_the_middle_of_the_seat_copy_leaves_nothing_and_the_next_import_works(monkeypatch):
    """The database refuses a row of the seats (here a second seat of a player in a game, past the parser):
    the import is refused as a whole, nothing is left behind, and the sequences serve the next import."""
    document = mafia_league(games=100, seed=6, slug="midway")
    before = _table_counts()
    original = bulk.insert

    def broken(model, fields, rows, **kwargs):
        if model is Seat:
            rows = rows[:700] + [rows[0]] + rows[700:]  # unique_seat_player, in the middle of the COPY
        return original(model, fields, rows, **kwargs)

    monkeypatch.setattr(importer.bulk, "insert", broken)
    with pytest.raises(ImportRefused, match="the database refused the document"):
        import_document(document)
    assert _table_counts() == before
    if connection.vendor == "postgresql":  # the COPY ran without the per-row triggers: they are back
        with connection.cursor() as cursor:
            cursor.execute("SHOW session_replication_role")
            assert cursor.fetchone()[0] == "origin"
    monkeypatch.setattr(importer.bulk, "insert", original)
    tournament = import_document(document)
    assert Game.objects.filter(stage__tournament=tournament).count() == 100
    assert _export(load_facts(tournament)) == _export(parse_document(document))


def test_a_replace_deletes_the_old_games_and_seats_set_wise_and_only_its_own():
    """--replace: the replaced tournament's games and seats go in one DELETE each (no row is built to be
    deleted: no post_delete), the other tournament's seats of the same players stay, and the new seats are
    the document's."""
    other = import_document(mafia_league(games=30, seed=3, slug="other"))
    kept = _rows(Seat.objects.filter(game__stage__tournament=other))
    import_document(mafia_league(games=40, seed=5, slug="again"))
    document = mafia_league(games=20, seed=8, slug="again")
    built: list = []

    def seen(sender, instance, **kwargs):
        built.append(instance)

    for model in (Game, Seat):
        post_delete.connect(seen, sender=model, dispatch_uid=f"test-replace-{model.__name__}")
    try:
        with CaptureQueriesContext(connection) as captured:
            tournament = import_document(document, replace=True)
    finally:
        for model in (Game, Seat):
            post_delete.disconnect(sender=model, dispatch_uid=f"test-replace-{model.__name__}")
    assert built == []
    for table in ("tournaments_seat", "tournaments_game"):
        assert sum(q["sql"].startswith(f'DELETE FROM "{table}"') for q in captured) == 1
    assert Seat.objects.filter(game__stage__tournament=tournament).count() == 20 * 15
    assert Seat.objects.count() == (30 + 20) * 15
    assert _rows(Seat.objects.filter(game__stage__tournament=other)) == kept
    assert _export(load_facts(tournament)) == _export(parse_document(document))


@pytest.mark.parametrize("key", RULESET_KEYS)
def test_deleting_games_and_tours_set_wise_leaves_what_the_orms_delete_leaves(key):
    """tournaments.purge: every table ends as the ORM's delete of the tournament leaves it (the appeals,
    penalties and decisions of the examples point at games and tours); only inside bulk_change."""
    first = import_document(example(key))
    with transaction.atomic(), bulk_change():  # seats first: they protect the teams
        Seat.objects.filter(game__stage__tournament=first).delete()
        first.delete()
    by_orm = _table_counts()
    by_orm["tournaments.AuditEntry"] += 1  # the second import's own entry
    second = import_document(example(key))
    with pytest.raises(RuntimeError, match="bulk_change"):
        purge.delete_games_and_tours([second.pk])
    with transaction.atomic(), bulk_change():
        purge.delete_games_and_tours([second.pk])
        second.delete()
    assert _table_counts() == by_orm


def _import_queries(games: int) -> int:
    with CaptureQueriesContext(connection) as captured:
        import_document(mafia_league(games=games, seed=1, slug=f"count-{games}"))
    return len(captured)


def test_the_query_count_of_an_import_does_not_grow_with_the_games():
    """100 and 400 games (1,500 and 6,000 seats): the same statements; each table is one bulk write."""
    _import_queries(20)  # the league's players exist from here on, as they would for both sizes
    small, large = _import_queries(100), _import_queries(400)
    assert small == large <= 50


def test_an_import_keeps_each_games_own_keys_and_seats_in_order():
    """The keys the bulk write allocates belong to the right games: the loader reads back the same facts."""
    document = mafia_league(games=40, seed=9, slug="keys")
    tournament = import_document(document)
    facts = parse_document(document)
    loaded = load_facts(tournament)
    assert [g.seats for g in loaded.stages[0].games] == [g.seats for g in facts.stages[0].games]
    assert dataclasses.replace(loaded, stages=()) == dataclasses.replace(facts, stages=())


_VALUES = st.one_of(st.none(), st.booleans(), st.integers(-3, 30), st.sampled_from([2**31, 2**31 - 1, 1.0, 0, 1]),
                    st.sampled_from(["", " ", "civilian", "maniac", "don", "Fam01", "Fam01-p1", "x" * 101]),
                    st.lists(st.integers(), max_size=1))
_KEYS = st.sampled_from(["player", "team", "role", "stats", "timed_out", "days_played", "maniac_kills",
                         "in_final_phase", "fake_passport", "side"])
_PLAIN = st.fixed_dictionaries({"player": st.sampled_from(["a", "b", "c"]), "team": st.just("T"),
                                "role": st.sampled_from(["civilian", "maniac"])},
                               optional={"maniac_kills": st.integers(0, 2), "days_played": st.integers(0, 9),
                                         "stats": st.integers(0, 500), "timed_out": st.booleans(),
                                         "in_final_phase": st.booleans(), "fake_passport": st.booleans()})
# a plainly valid seat with a few values replaced by anything, or any dictionary, or not a dictionary
_ONE_CHANGED = st.tuples(_PLAIN, _KEYS, _VALUES).map(lambda t: {**t[0], t[1]: t[2]})
_SEAT = st.one_of(_ONE_CHANGED, _ONE_CHANGED, _PLAIN, st.dictionaries(_KEYS, _VALUES, max_size=10), _VALUES)


def _both_readings(seats: list, game_days: int | None) -> tuple:
    """(game, problems) of the quick reading of plain seats, and of the full reading value by value."""
    from rulesets import interchange

    raw = {"number": 1, "outcome": "mafia", "game_days": game_days, "seats": seats}
    quick = interchange.Reader()
    game = interchange.parse_game(quick, raw, "g")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(interchange.games, "_plain_seat", lambda seat, days, names: None)
        full = interchange.Reader()
        return (game, quick.problems), (interchange.parse_game(full, raw, "g"), full.problems)


@settings(max_examples=1000, deadline=None)
@given(seat=_SEAT, game_days=st.one_of(st.none(), st.integers(0, 8)))
@hypothesis.example(seat={"player": "a", "team": "T", "role": "civilian", "timed_out": 0}, game_days=None)
@hypothesis.example(seat={"player": "a", "team": "T", "role": "civilian", "fake_passport": 1.0}, game_days=None)
@hypothesis.example(seat={"player": "a", "team": "T", "role": "civilian", "stats": True}, game_days=None)
@hypothesis.example(seat={"player": "a", "team": "T", "role": ["civilian"]}, game_days=None)
@hypothesis.example(seat={"player": "a", "team": "T", "role": "civilian", "days_played": 5}, game_days=4)
@hypothesis.example(seat={"player": "a", "team": "T", "role": "civilian", "maniac_kills": 1}, game_days=None)
def test_the_quick_reading_of_a_plain_seat_changes_no_result_and_no_problem(seat, game_days):
    """rulesets.interchange reads a plainly valid seat in one pass; any other goes value by value. Either way
    the game and the problems (paths, messages, order) are those of the full reading."""
    quick, full = _both_readings([seat], game_days)
    assert quick == full


@settings(max_examples=300, deadline=None)
@given(seats=st.lists(_SEAT, max_size=6), game_days=st.one_of(st.none(), st.integers(0, 8)))
def test_the_quick_reading_of_the_seats_of_a_game_changes_no_result_and_no_problem(seats, game_days):
    """The same for a game's seats together: a player seated twice, plain and other seats mixed."""
    quick, full = _both_readings(seats, game_days)
    assert quick == full


def test_the_imports_benchmark_measures_a_small_league_and_removes_it():
    from benchmarks import imports

    result = imports.measure(10, repeat=1)
    assert result.games == 10 and result.seats == 150 and result.queries == len(result.statements) > 0
    assert 0 < result.parse and 0 < result.reference and 0 < result.imported
    assert not Tournament.objects.filter(slug__contains="imports-10").exists()
    assert any("ok" in line or "MISSED" in line for line in imports.goals([result]))


@pytest.mark.parametrize("refused", [False, True])
def test_import_pauses_the_cyclic_collector_and_restores_it(monkeypatch, refused):
    """A league's 150,000 seats are parsed and stored with the cyclic collector paused (a third
    of the parse went to collections that found nothing to free); it runs again after the import, refused or not,
    and a caller that had paused it keeps it paused."""
    import gc

    seen: list[bool] = []
    parse = importer.parse_document

    def watched(document):
        seen.append(gc.isenabled())
        return parse(document)

    monkeypatch.setattr(importer, "parse_document", watched)
    document = mafia_league(games=3, seed=1, slug="gc-paused")
    if refused:
        document["tournament"]["ruleset"] = "no_such_ruleset"
    assert gc.isenabled()
    if refused:
        with pytest.raises(ImportRefused):
            import_document(document)
    else:
        import_document(document)
    assert seen == [False]
    assert gc.isenabled()
    gc.disable()
    try:
        with pytest.raises(ImportRefused):
            import_document({**document, "format": "nope"})
        assert not gc.isenabled()
    finally:
        gc.enable()


def test_decoding_a_document_pauses_the_cyclic_collector(monkeypatch):
    """The JSON text of a league is 10^5 objects that all stay alive; they are decoded with the
    collector paused, and a syntax error is still a refusal, with the collector running again after it."""
    import gc

    seen: list[bool] = []
    loads = json.loads

    def watched(raw):
        seen.append(gc.isenabled())
        return loads(raw)

    monkeypatch.setattr(importer.json, "loads", watched)
    assert importer.decode('{"format": 1}') == {"format": 1}
    with pytest.raises(ImportRefused, match="not valid JSON"):
        importer.decode("{")
    assert seen == [False, False]
    assert gc.isenabled()
