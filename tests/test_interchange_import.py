"""The interchange format end to end: import -> database -> facts -> export (spec/interchange.md)."""

from __future__ import annotations

import dataclasses
import io
import json

import pytest
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from rulesets.interchange import parse_document
from tests.conftest import RULESET_KEYS, example, expected_export
from tournaments.importer import ImportRefused, import_document
from tournaments.loader import load_facts
from tournaments.models import Game, Seat, Tournament
from tournaments.synthetic import chgk_season, mafia_league

pytestmark = pytest.mark.django_db


def run_import(path, *extra) -> str:
    out = io.StringIO()
    call_command("import_tournament", str(path), *extra, stdout=out)
    return out.getvalue().strip()


def run_export(slug: str, *extra) -> dict:
    out = io.StringIO()
    call_command("export_standings", slug, *extra, stdout=out)
    return json.loads(out.getvalue())


@pytest.mark.parametrize("key", RULESET_KEYS)
def test_example_document_exports_the_expected_standings(key, tmp_path):
    """spec/examples: import_tournament then export_standings gives NAME.expected.json exactly."""
    path = tmp_path / f"{key}.json"
    path.write_text(json.dumps(example(key), ensure_ascii=False), encoding="utf-8")
    slug = run_import(path)
    assert slug == example(key)["tournament"]["slug"]
    assert run_export(slug) == expected_export(key)


def imported(document):
    """Import ``document``; the parsed facts with the import's own time as each game's ``result_recorded_at``
    where the document leaves it out (FL-19; interchange: games), and the tournament."""
    before = timezone.now()
    tournament = import_document(document)
    moments = set(Game.objects.filter(stage__tournament=tournament).exclude(status="scheduled").exclude(
        result_recorded_at=None).values_list("result_recorded_at", flat=True))
    assert len(moments) <= 1 and all(before <= m <= timezone.now() for m in moments)
    moment = next(iter(moments), None)
    facts = parse_document(document)
    stages = tuple(dataclasses.replace(stage, games=tuple(
        g if g.result_recorded_at is not None or g.status == "scheduled"
        else dataclasses.replace(g, result_recorded_at=moment) for g in stage.games)) for stage in facts.stages)
    return tournament, dataclasses.replace(facts, stages=stages)


@pytest.mark.parametrize("key", RULESET_KEYS)
def test_loaded_facts_equal_the_parsed_document(key):
    """The database keeps every fact: the loader rebuilds exactly what the parser built (FL-19: with the
    import's own time where a game's result_recorded_at is left out)."""
    tournament, facts = imported(example(key))
    assert load_facts(tournament) == facts


def test_synthetic_league_round_trips_through_the_database():
    tournament, facts = imported(mafia_league(games=30, teams=9, seed=3))
    assert load_facts(tournament) == facts


def _table_counts() -> dict[str, int]:
    from django.apps import apps

    return {m._meta.label: m.objects.count() for m in apps.get_models()}


def test_import_with_an_error_deep_inside_changes_nothing_and_names_the_path():
    """All or nothing: a bad seat in the last game leaves the database exactly as it was."""
    import_document(example("family_league"))
    before = _table_counts()
    document = mafia_league(games=20, teams=9, seed=5, slug="broken")
    document["stages"][0]["games"][19]["seats"][2]["role"] = "sheriff"
    with pytest.raises(ImportRefused) as refused:
        import_document(document)
    assert [p.path for p in refused.value.problems] == ["stages[0].games[19].seats[2].role"]
    assert _table_counts() == before


def test_import_failing_in_the_database_rolls_back(monkeypatch):
    """Even a failure after the first rows were written leaves nothing behind."""
    import tournaments.importer as importer

    def boom(*args, **kwargs):
        raise RuntimeError("disk full")

    before = _table_counts()
    monkeypatch.setattr(importer, "_create_tours", boom)
    with pytest.raises(RuntimeError):
        import_document(chgk_season(teams=8, seed=2))
    assert _table_counts() == before


def test_unknown_keys_are_refused_at_every_level():
    document = example("chgk_tour_points")
    document["tournament"]["colour"] = "red"
    document["stages"][0]["tours"][0]["hots"] = "Lynx"
    document["teams"][1]["captian"] = "x"
    with pytest.raises(ImportRefused) as refused:
        import_document(document)
    paths = {p.path for p in refused.value.problems}
    assert {"tournament.colour", "stages[0].tours[0].hots", "teams[1].captian"} <= paths


def test_reference_to_an_undefined_name_is_refused():
    document = example("chgk_tour_points")
    document["stages"][0]["tours"][0]["masks"]["Nobody"] = "10101010"
    with pytest.raises(ImportRefused) as refused:
        import_document(document)
    assert any(p.path == "stages[0].tours[0].masks.Nobody" and "unknown team" in p.message
               for p in refused.value.problems)


def test_captain_must_be_one_of_the_team_players():
    document = example("chgk_tour_points")
    document["teams"][0]["captain"] = "Stranger"
    with pytest.raises(ImportRefused) as refused:
        import_document(document)
    assert [p.path for p in refused.value.problems] == ["teams[0].captain"]


def test_existing_slug_is_refused_unless_replace(tmp_path):
    path = tmp_path / "doc.json"
    document = example("chgk_tour_points")
    path.write_text(json.dumps(document), encoding="utf-8")
    run_import(path)
    with pytest.raises(CommandError, match="refused"):
        run_import(path)
    document["stages"][0]["tours"] = document["stages"][0]["tours"][:1]
    document["appeals"] = [a for a in document["appeals"] if a["tour"] == 1]
    path.write_text(json.dumps(document), encoding="utf-8")
    assert run_import(path, "--replace") == document["tournament"]["slug"]
    assert Tournament.objects.count() == 1
    assert Tournament.objects.get().stages.get().tours.count() == 1


def test_import_command_reports_invalid_json(tmp_path, capsys):
    path = tmp_path / "bad.json"
    path.write_text("{not json", encoding="utf-8")
    with pytest.raises(CommandError):
        run_import(path)
    assert "not valid JSON" in capsys.readouterr().err


def test_export_of_unknown_stage_is_refused():
    import_document(example("chgk_tour_points"))
    with pytest.raises(CommandError, match="no stage"):
        run_export("mubk-spring", "--stage", "final")


def _loader_queries(tournament) -> int:
    with CaptureQueriesContext(connection) as ctx:
        load_facts(tournament)
    return len(ctx.captured_queries)


def test_loader_query_count_does_not_grow_with_the_tournament():
    """The facts loader reads a 10-game and a 500-game tournament in the same number of queries."""
    small = import_document(mafia_league(games=10, teams=9, seed=1, slug="small"))
    large = import_document(mafia_league(games=500, teams=9, seed=1, slug="large"))
    assert Seat.objects.filter(game__stage__tournament=large).count() == 500 * 9
    assert _loader_queries(small) == _loader_queries(large) <= 20
    assert Game.objects.filter(stage__tournament=large).count() == 500
