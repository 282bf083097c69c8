"""One write layer of commands that knows no HTTP, one hierarchy of refusals with a code,
mapped to an HTTP status in one place (portal.api.errors)."""

from __future__ import annotations

import ast
import copy
import importlib
import inspect
from pathlib import Path

import pytest

from accounts.models import Role, TournamentRole
from portal import hooks
from portal.api.errors import STATUS, body_of, exception_handler, status_of
from rulesets.base import Problem, RulesetError
from rulesets.errors import KINDS, Conflict, Invalid, NotAllowed, NotFound, Refused
from tests.conftest import example
from tournaments import commands
from tournaments.importer import import_document
from tournaments.models import Game, Seat, Tour, Tournament

ROOT = Path(__file__).resolve().parent.parent
REFUSAL_MODULES = (
    "rulesets.base", "accounts.claims", "tournaments.importer", "tournaments.merge", "scoring.prizes",
    "appeals.services", "formats.elimination_gp.services", "formats.class_balanced.services",
    "formats.family_league.families", "formats.family_league.services", "formats.chgk_tour_points.captains",
    "formats.chgk_tour_points.services",
)


@pytest.fixture
def league(db) -> Tournament:
    return import_document(example("family_league"))


@pytest.fixture
def organizer(league, django_user_model):
    user = django_user_model.objects.create_user("organizer", password="pw-organizer-123456")
    TournamentRole.objects.create(user=user, tournament=league, role=Role.ORGANIZER)
    return user


def game_payload(number: int = 7, **changes) -> dict:
    game = copy.deepcopy(example("family_league")["stages"][0]["games"][0])
    game.update(number=number, scheduled_at="2014-09-04T19:00:00+04:00", round=4, **changes)
    return {"tournament": "mt-example", "stage": "final", **game}


# --- the commands, called with no request at all ---


def test_record_game_called_with_no_http_stores_the_game_and_its_seats(league, organizer):
    payload = game_payload()
    game = commands.record_game(organizer, payload, game_problems=hooks.game_problems)
    stored = Game.objects.get(stage__tournament=league, number=7)
    assert stored.pk == game.pk and stored.version == 1 and stored.updated_by == "organizer"
    assert Seat.objects.filter(game=stored).count() == len(payload["seats"])


def test_bad_input_is_refused_as_invalid_with_the_paths_and_nothing_is_written(league, organizer):
    payload = game_payload()
    payload["seats"][3]["role"] = "sheriff"
    payload["seats"][2]["player"] = "Nobody"
    games = Game.objects.count()
    with pytest.raises(Invalid) as refused:
        commands.record_game(organizer, payload)
    assert refused.value.code == "invalid"
    assert "seats[3].role" in {p.path for p in refused.value.problems}
    payload["seats"][3]["role"] = "civilian"
    with pytest.raises(Invalid) as refused:
        commands.record_game(organizer, payload)
    assert "seats[2].player" in {p.path for p in refused.value.problems}
    assert Game.objects.count() == games


def test_a_format_hook_passed_by_the_caller_refuses_the_game_at_its_path(league, organizer):
    def hook(stage, game, classes):
        return [Problem("seats[0]", "not on the stage's schedule (CB-6)")]

    with pytest.raises(Invalid) as refused:
        commands.record_game(organizer, game_payload(), game_problems=hook)
    assert refused.value.problems == [Problem("seats[0]", "not on the stage's schedule (CB-6)")]
    assert not Game.objects.filter(stage__tournament=league, number=7).exists()


def test_a_user_without_the_role_gets_not_allowed(league, django_user_model):
    outsider = django_user_model.objects.create_user("outsider", password="pw-outsider-123456")
    game = Game.objects.get(stage__tournament=league, number=1)
    with pytest.raises(NotAllowed) as refused:
        commands.record_game(outsider, game_payload())
    assert refused.value.code == "forbidden"
    with pytest.raises(NotAllowed):
        commands.update_game(outsider, game.pk, {**game_payload(1), "version": game.version})
    with pytest.raises(NotAllowed):
        commands.record_penalty(outsider, {"tournament": "mt-example", "kind": "fair_play", "points": "1"})
    assert not Game.objects.filter(stage__tournament=league, number=7).exists()


def test_a_stale_version_gets_a_conflict_naming_who_changed_it(league, organizer, django_user_model):
    game = Game.objects.get(stage__tournament=league, number=1)
    commands.update_game(organizer, game.pk, {**game_payload(1), "version": game.version, "outcome": "mafia"})
    staff = django_user_model.objects.create_user("staff", password="pw-staff-123456", is_staff=True)
    with pytest.raises(Conflict) as refused:
        commands.update_game(staff, game.pk, {**game_payload(1), "version": 1, "outcome": "draw"})
    assert refused.value.code == "conflict"
    assert refused.value.problems[0].path == "version" and "organizer" in refused.value.problems[0].message
    assert refused.value.extra["version"] == 2 and refused.value.extra["updated_by"] == "organizer"
    game.refresh_from_db()
    assert game.outcome == "mafia" and game.version == 2


def test_a_missing_row_gets_not_found(league, organizer):
    missing = (Tour.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1
    with pytest.raises(NotFound) as refused:
        commands.record_tour_masks(organizer, missing, {"masks": {}, "version": 1})
    assert refused.value.code == "not_found"


# --- one status per code, in one place ---


def test_status_maps_each_code_of_the_hierarchy():
    assert STATUS == {"invalid": 400, "forbidden": 403, "not_found": 404, "conflict": 409}
    assert {kind.code for kind in KINDS} == set(STATUS)
    assert [status_of(kind("x")) for kind in (Invalid, NotAllowed, NotFound, Conflict)] == [400, 403, 404, 409]


def test_the_api_handler_answers_any_refusal_with_the_documented_body():
    stale = Conflict(Problem("version", "changed by organizer"), extra={"version": 2})
    response = exception_handler(stale, {})
    assert response.status_code == 409
    assert response.data == {"errors": [{"path": "version", "message": "changed by organizer"}], "version": 2}
    assert exception_handler(NotAllowed("Only the jury."), {}).data == {"detail": "Only the jury."}
    assert exception_handler(RulesetError([Problem("a", "b")]), {}).status_code == 400
    assert body_of(NotFound("Not found.")) == {"detail": "Not found."}


# --- every refusal of the project is one of the hierarchy ---


def refusal_classes() -> list[type]:
    classes = []
    for name in REFUSAL_MODULES:
        module = importlib.import_module(name)
        classes += [c for _n, c in inspect.getmembers(module, inspect.isclass)
                    if issubclass(c, Exception) and c.__module__ == name]
    return classes


def test_every_refusal_class_of_the_project_is_a_refused():
    classes = refusal_classes()
    assert len(classes) >= len(REFUSAL_MODULES)
    assert [c.__qualname__ for c in classes if not issubclass(c, Refused)] == []


def test_a_refusal_mixing_kinds_takes_the_code_of_the_kind_it_names():
    for cls in refusal_classes():
        named = next((k for k in (NotAllowed, NotFound, Conflict) if issubclass(cls, k)), Invalid)
        assert cls.code == named.code, cls.__qualname__


def test_no_module_outside_the_list_defines_a_refusal_of_its_own():
    """A new ``...Refused`` class belongs in REFUSAL_MODULES (and so in the hierarchy)."""
    listed = {name.replace(".", "/") + ".py" for name in REFUSAL_MODULES} | {"rulesets/errors.py"}
    found = set()
    for package in ("accounts", "appeals", "config", "formats", "portal", "rulesets", "scoring", "tournaments"):
        for path in (ROOT / package).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ClassDef) and node.name.endswith(("Refused", "Error")):
                    found.add(str(path.relative_to(ROOT)))
    assert found <= listed, found - listed


def test_a_refusal_from_one_message_reads_as_that_message():
    refused = Invalid("The draw has taken place (GP-6).")
    assert str(refused) == "The draw has taken place (GP-6)." and refused.problems == [
        Problem("", "The draw has taken place (GP-6).")]
