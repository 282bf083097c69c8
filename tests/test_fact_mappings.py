"""One mapping a fact entity between the facts, the rows, the API and the audit trail.

``rulesets.facts.SEAT_FIELDS`` declares a seat's fields once and ``tournaments.fact_fields.SEAT`` maps them to the
rows, the API, the entry form and the history; every layer iterates the mapping. Here: the declaration is the
dataclass's and the model's, each layer takes its fields from the mapping, every mapped field round-trips
document -> rows -> facts -> API -> entry form -> history, a field added to the mapping reaches the layers'
derivations, and a seat flag is named only where docs/architecture.md ("Adding a fact field") says.
"""

from __future__ import annotations

import copy
import dataclasses
import re
from pathlib import Path
from typing import Any

import pytest
from django.test import Client
from rest_framework import serializers
from rest_framework.test import APIClient

from accounts.models import Role, TournamentRole
from portal import forms as portal_forms
from portal import labels
from portal.api import serializers as api_serializers
from portal.api import views as api_views
from portal.history import readable
from rulesets import facts as F
from rulesets.interchange import SEAT_KEYS, parse_document
from tests.conftest import example
from tests.factories import UserFactory
from tournaments import admin as tournaments_admin
from tournaments import audit, commands, importer, loader
from tournaments.fact_fields import SEAT, Mapped, mapping
from tournaments.importer import import_document
from tournaments.loader import load_facts
from tournaments.models import AuditEntry, Game, Seat
from tournaments.sources import game_log_import

ROOT = Path(__file__).resolve().parent.parent


# --- the declaration agrees with the dataclass, the model and the format ---


def test_the_declaration_names_every_field_of_the_seat_once_with_its_default():
    declared = {f.name: f for f in dataclasses.fields(F.Seat)}
    assert [f.name for f in F.SEAT_FIELDS] == list(declared) == list(SEAT.names)
    for field in F.SEAT_FIELDS:
        default = declared[field.name].default
        assert field.required == (default is dataclasses.MISSING)
        assert field.required or field.default == default
    assert SEAT_KEYS == set(SEAT.names)  # the interchange's seat keys
    with pytest.raises(TypeError, match="declare the kind of each field"):
        F.fact_fields(F.Seat, player="name")
    with pytest.raises(TypeError, match="map every declared field once"):
        mapping(Seat, F.SEAT_FIELDS, player=Mapped())


def test_every_mapped_field_is_a_column_of_the_seat_with_the_facts_default():
    columns = {f.name for f in Seat._meta.concrete_fields} - {"id", "game", "order"}
    assert columns == set(SEAT.names)
    for field in SEAT.fields:
        column = Seat._meta.get_field(field.name)
        if field.mapped.reference:
            assert column.many_to_one and field.column == column.attname
            continue
        assert field.column == column.attname == field.name
        if not field.fact.required:
            assert column.get_default() == field.default or (field.default is None and column.null)
        assert field.label == column.verbose_name
    assert all(f.mapped.header for f in SEAT.cells), "a number or a flag has its column header in the entry form"


def test_a_seat_maker_builds_the_same_seat_in_any_order_of_its_fields():
    seat = F.Seat(player="a", team="T", role="maniac", stats=3, timed_out=True, days_played=2, maniac_kills=1,
                  in_final_phase=True, fake_passport=True)
    values = {f.name: getattr(seat, f.name) for f in F.SEAT_FIELDS}
    for order in (tuple(values), tuple(reversed(values))):
        made = F.seat_maker(order)(*(values[name] for name in order))
        assert made == seat and hash(made) == hash(seat) and type(made) is F.Seat
    assert F.make_seat("a", "T", "civilian") == F.Seat(player="a", team="T", role="civilian")
    with pytest.raises(TypeError, match="every field of Seat once"):
        F.seat_maker(("player", "team"))
    flagged = F.flagged_seat_maker(tuple(f.name for f in F.SEAT_FIELDS if f.kind != "flag"))
    others = [values[f.name] for f in F.SEAT_FIELDS if f.kind != "flag"]
    assert flagged({name: True for name in F.SEAT_FLAGS}.get, *others) == seat
    assert flagged({}.get, *others) == dataclasses.replace(seat, **{name: False for name in F.SEAT_FLAGS})
    for name in F.SEAT_FLAGS:  # a flag is true, false or left out: 0 is no flag
        assert flagged({name: 0}.get, *others) is None


# --- each layer takes its fields from the mapping ---


def test_each_layer_takes_the_seat_fields_from_the_mapping():
    assert importer.SEAT_FIELDS == ("game_id", "order", *SEAT.columns)
    assert set(loader.SEAT_READ) == {"game_id", *SEAT.columns}
    assert audit.SEAT_FIELDS == SEAT.history and set(SEAT.history) == set(SEAT.values)
    assert tournaments_admin.SeatInline.fields == ("order", *SEAT.names)
    assert game_log_import.NOT_IN_THE_LOG == SEAT.not_in_log == ("stats", "fake_passport")
    assert api_serializers.SEAT_LIST_FIELDS == ("game_id", "order", *SEAT.reads)
    assert api_serializers.SeatSerializer.Meta.fields == ["order", *SEAT.names]
    assert list(api_serializers.SeatWriteSerializer().fields) == list(SEAT.names)
    assert list(api_views.SEAT_EXAMPLE) == ["order", *SEAT.names]
    assert [c["name"] for c in portal_forms.SEAT_CELLS] == [f.name for f in SEAT.cells]
    assert set(portal_forms.SEAT_NUMBERS) | set(portal_forms.SEAT_FLAGS) == {f.name for f in SEAT.cells}
    for field in SEAT.fields:
        assert labels.field_label(field.name) == str(field.label)


def test_a_field_added_to_the_mapping_reaches_every_derivation(monkeypatch):
    """A new seat flag (here ``wore_hat``, in a dataclass of its own: no migration) is in the history's fields, the
    importer's columns, the API's reads, fields and example, the entry form's cells and rows, and the log's
    "not in the log", without another edit."""
    fields = [(f.name, f.type, dataclasses.field(default=f.default) if f.default is not dataclasses.MISSING
               else dataclasses.field()) for f in dataclasses.fields(F.Seat)]
    with_hat = dataclasses.make_dataclass("SeatWithHat", [*fields, ("wore_hat", bool, dataclasses.field(default=False))],
                                          frozen=True)
    kinds = {f.name: f.kind for f in F.SEAT_FIELDS}
    declared = F.fact_fields(with_hat, **kinds, wore_hat="flag")
    extended = mapping(Seat, declared, **{f.name: f.mapped for f in SEAT.fields}, wore_hat=Mapped("Wore a hat"))
    assert extended.names == (*SEAT.names, "wore_hat")
    assert extended.history == (*SEAT.history, "wore_hat")
    assert extended.columns == (*SEAT.columns, "wore_hat") and extended.reads == (*SEAT.reads, "wore_hat")
    assert [f.name for f in extended.cells] == [*(f.name for f in SEAT.cells), "wore_hat"]
    assert extended.not_in_log == (*SEAT.not_in_log, "wore_hat")
    assert extended.example({"player": "a"})["wore_hat"] is False
    assert isinstance(api_serializers._write_field(extended.by_name["wore_hat"]), serializers.BooleanField)
    monkeypatch.setattr(portal_forms, "SEAT", extended)
    assert portal_forms.seat_form_row(lambda name: None)["wore_hat"] is False


def test_a_seat_flag_is_named_only_where_the_architecture_says():
    """``fake_passport`` (FL-6) stands for any seat flag: its declaration (rulesets/facts.py), the rule that reads it
    (the family league's ledger), the model's column and its migration, the mapping; the rest is data (the demo,
    the API's examples)."""
    allowed = {"rulesets/facts.py", "rulesets/family_league/ledger.py", "tournaments/models.py",
               "tournaments/fact_fields.py", "tournaments/demo.py", "portal/api/views.py", "portal/api/imports.py"}
    named = set()
    for package in ("accounts", "appeals", "config", "formats", "portal", "rulesets", "scoring", "tournaments",
                    "templates", "static"):
        for path in (ROOT / package).rglob("*"):
            relative = path.relative_to(ROOT).as_posix()
            if (path.suffix in {".py", ".html", ".js"} and "/migrations/" not in relative
                    and "/tests/" not in relative and re.search(r"\bfake_passport\b", path.read_text("utf-8"))):
                named.add(relative)
    assert named <= allowed, sorted(named - allowed)


# --- every mapped field round-trips ---


def _document() -> dict[str, Any]:
    """The family league example, every mapped flag true on a seat of game 1 and every number off its default."""
    document = example("family_league")
    games = document["stages"][0]["games"]
    seats = games[0]["seats"]
    for i, name in enumerate(SEAT.named(("flag",))):
        seats[i % len(seats)][name] = True
    maniac = next(s for g in games for s in g.get("seats", ()) if s["role"] == "maniac")
    for name in SEAT.named(("count",)):
        if all(s.get(name, F.SEAT_FIELDS[SEAT.names.index(name)].default) in (None, 0)
               for g in games for s in g.get("seats", ())):
            maniac[name] = 1
    return document


def _seat_facts(seat: F.Seat) -> dict[str, Any]:
    return {name: getattr(seat, name) for name in SEAT.names}


@pytest.mark.django_db
def test_every_mapped_seat_field_round_trips_from_the_document_to_the_history():
    document = _document()
    parsed = parse_document(copy.deepcopy(document))
    games = {g.number: g for g in parsed.stages[0].games}
    expected = {n: [_seat_facts(s) for s in g.seats] for n, g in games.items()}
    for field in SEAT.fields:  # the round trip carries a value that is not the default
        assert any(seat[field.name] not in (None, field.default) for seats in expected.values() for seat in seats) \
            or field.kind in ("name", "choice"), field.name
    tournament = import_document(document)

    rows = {n: [dict(zip(SEAT.names, row)) for row in Seat.objects.filter(
        game__stage__tournament=tournament, game__number=n).order_by("order").values_list(*SEAT.reads)]
            for n in games}
    assert rows == expected  # document -> rows
    loaded = {g.number: [_seat_facts(s) for s in g.seats] for g in load_facts(tournament).stages[0].games}
    assert loaded == expected  # rows -> facts

    api = APIClient(REMOTE_ADDR="10.20.1.1", HTTP_ACCEPT_LANGUAGE="en")
    listed = api.get(f"/api/v1/games/?tournament={tournament.slug}&page_size=200").json()["results"]
    for game in listed:  # rows -> API, the list's plain rows and the detail's serializer alike
        detail = api.get(f"/api/v1/games/{game['id']}/").json()
        assert game["seats"] == detail["seats"]
        assert [{k: v for k, v in s.items() if k != "order"} for s in game["seats"]] == expected[game["number"]]

    organizer = UserFactory(username="olga")
    TournamentRole.objects.create(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    game = Game.objects.get(stage__tournament=tournament, number=1)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(organizer)
    page = client.get(f"/t/{tournament.slug}/final/games/1/enter/").content.decode()  # rows -> the entry form
    for field in SEAT.cells:
        assert f">{field.mapped.header}</th>" in page
    for i, seat in enumerate(expected[1]):
        for name in SEAT.named(("flag",)):
            box = re.search(rf'<input type="checkbox" name="seat-{i}-{name}" value="1"( checked)?', page)
            assert box is not None and bool(box.group(1)) == seat[name], (i, name)
        for name in SEAT.named(("count",)):
            default = SEAT.by_name[name].default
            shown = "" if seat[name] is None or seat[name] == default else str(seat[name])
            assert f'name="seat-{i}-{name}" min="0" value="{shown}"' in page, (i, name)

    payload = copy.deepcopy(document["stages"][0]["games"][0])
    for name in SEAT.named(("flag",)):  # every flag turned over: the history has each before and after
        for seat in payload["seats"]:
            seat[name] = not seat.get(name, False)
    AuditEntry.objects.all().delete()
    commands.update_game(organizer, game.pk, {"tournament": tournament.slug, "stage": "final",
                                               "version": game.version, **payload})
    [entry] = AuditEntry.objects.all()
    keep = ("player", "team", *SEAT.history)
    assert entry.before["seats"] == [{k: s[k] for k in keep} for s in expected[1]]
    after = [_seat_facts(s) for s in parse_document(_with_game(document, payload)).stages[0].games[0].seats]
    assert entry.after["seats"] == [{k: s[k] for k in keep} for s in after]
    [words] = readable([entry])
    text = next(c for c in words["changes"] if c["label"] == "seats")["after"]
    for name in SEAT.named(("flag",)):
        assert str(SEAT.by_name[name].label) in text  # the history words every flag that is set


def _with_game(document: dict[str, Any], game: dict[str, Any]) -> dict[str, Any]:
    document = copy.deepcopy(document)
    document["stages"][0]["games"][0] = game
    return document
