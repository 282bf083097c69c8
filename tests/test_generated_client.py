"""A Python client generated from the REST schema works against a running portal.

What the author of a results bot does: generate a client from /api/v1/schema/
with openapi-python-client (once per session, into a temporary directory),
import it, and call a live server (pytest-django's ``live_server``) with it:
list tournaments and read the standings of each of the four formats without
logging in, import a document through ``tournaments/import/`` and save a
result with a staff member's personal API token, and file an appeal with a
captain's token. A token is sent as ``Authorization: Token <token>``: the
generated ``AuthenticatedClient`` is given ``prefix="Token"``.
"""

from __future__ import annotations

import importlib
import json
import pkgutil
import subprocess
import sys
from collections.abc import Iterator
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest
from django.utils import timezone, translation
from drf_spectacular.generators import SchemaGenerator

from accounts.tokens import create_token
from scoring.services import recompute
from tests.conftest import example
from tests.factories import UserFactory, user_playing_as
from tournaments.importer import import_document
from tournaments.models import Appeal, Game, Team, Tournament

pytest.importorskip("openapi_python_client", reason="openapi-python-client is not installed "
                                                    "(it is pinned in requirements-dev.lock: run scripts/setup)")

pytestmark = pytest.mark.django_db(transaction=True)

PACKAGE = "portal_api_client"
FORMATS = ("chgk_tour_points", "family_league", "class_balanced", "elimination_gp")


@pytest.fixture(scope="session")
def generated(tmp_path_factory) -> Iterator[SimpleNamespace]:
    """The client openapi-python-client generates from the schema, imported (its modules by their short names)."""
    root = tmp_path_factory.mktemp("generated_client")
    with translation.override("en"):
        schema = SchemaGenerator().get_schema(request=None, public=True)
    (root / "schema.json").write_text(json.dumps(schema), encoding="utf-8")
    (root / "config.yaml").write_text("post_hooks: []\n", encoding="utf-8")  # no formatter run on the code
    run = subprocess.run(
        [sys.executable, "-m", "openapi_python_client", "generate", "--path", str(root / "schema.json"),
         "--meta", "none", "--output-path", str(root / PACKAGE), "--config", str(root / "config.yaml")],
        capture_output=True, text=True, timeout=300, check=False)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "warning" not in (run.stdout + run.stderr).lower(), run.stdout + run.stderr
    sys.path.insert(0, str(root))
    try:
        def module(name: str) -> ModuleType:
            return importlib.import_module(f"{PACKAGE}.{name}")

        for found in pkgutil.walk_packages(module("api").__path__, f"{PACKAGE}.api."):
            importlib.import_module(found.name)  # every operation's module imports

        yield SimpleNamespace(
            client=module("client"), models=module("models"), types=module("types"),
            tournaments_list=module("api.tournaments.tournaments_list"),
            tournaments_standings=module("api.tournaments.tournaments_standings"),
            tournaments_import=module("api.tournaments.tournaments_import"),
            games_create=module("api.games.games_create"),
            games_list=module("api.games.games_list"),
            appeals_create=module("api.appeals.appeals_create"))
    finally:
        sys.path.remove(str(root))
        for name in [name for name in sys.modules if name == PACKAGE or name.startswith(f"{PACKAGE}.")]:
            del sys.modules[name]


def anonymous(generated: SimpleNamespace, url: str) -> Any:
    return generated.client.Client(base_url=url, headers={"Accept-Language": "en"}, raise_on_unexpected_status=True)


def with_token(generated: SimpleNamespace, url: str, user) -> Any:
    _row, token = create_token(user, "results bot", 30)
    return generated.client.AuthenticatedClient(base_url=url, token=token, prefix="Token",
                                                headers={"Accept-Language": "en"}, raise_on_unexpected_status=True)


def imported(key: str, **changes: Any) -> Tournament:
    document = example(key)
    document["tournament"].update(changes)
    tournament = import_document(document)
    recompute(tournament.pk, force=True)
    return tournament


def test_generated_client_lists_tournaments_and_reads_the_standings_of_every_format(generated, live_server):
    slugs = [imported(key).slug for key in FORMATS]
    api = anonymous(generated, live_server.url)

    page = generated.tournaments_list.sync(client=api)
    assert isinstance(page, generated.models.PaginatedTournamentList)
    assert page.count == 4 and sorted(t.slug for t in page.results) == sorted(slugs)
    assert {t.ruleset for t in page.results} == set(FORMATS)
    chgk = generated.tournaments_list.sync(client=api, ruleset="chgk_tour_points")
    assert [t.slug for t in chgk.results] == ["mubk-spring"]

    for tournament in page.results:
        standings = generated.tournaments_standings.sync(tournament.slug, client=api)
        assert isinstance(standings, generated.models.Standings), (tournament.slug, standings)
        assert (standings.format_, standings.tournament, standings.ruleset) == (
            "tournament-portal/standings/1", tournament.slug, tournament.ruleset)
        assert [row.rank for row in standings.teams] == sorted(row.rank for row in standings.teams)
        assert standings.teams[0].rank == 1 and standings.teams[0].team
        assert all(isinstance(value, int | float) for row in standings.teams for value in row.tiebreaks.to_dict().values())
        if tournament.ruleset == "elimination_gp":
            assert standings.players and standings.players[0].player  # GP-15a ranks players

    missing = generated.tournaments_standings.sync_detailed("no-such-tournament", client=api)
    assert missing.status_code == 404 and isinstance(missing.parsed, generated.models.Detail)


def test_generated_client_imports_a_document_and_saves_a_result_with_a_token(generated, live_server):
    imported("family_league")
    staff = with_token(generated, live_server.url, UserFactory(is_staff=True))

    document = example("chgk_tour_points")
    document["tournament"].update(slug="mubk-bot", name="Imported by a bot")
    body = generated.models.TournamentsImportBody.from_dict(document)
    result = generated.tournaments_import.sync_detailed(client=staff, body=body)
    assert result.status_code == 201, result.content
    assert isinstance(result.parsed, generated.models.ImportResult) and result.parsed.slug == "mubk-bot"
    assert Tournament.objects.get(slug="mubk-bot").name == "Imported by a bot"
    again = generated.tournaments_import.sync_detailed(client=staff, body=body)
    assert again.status_code == 409 and isinstance(again.parsed, generated.models.Errors)

    game = dict(example("family_league")["stages"][0]["games"][0], number=7, tournament="mt-example", stage="final")
    saved = generated.games_create.sync_detailed(client=staff, body=generated.models.GameWrite.from_dict(game))
    assert saved.status_code == 201, saved.content
    assert isinstance(saved.parsed, generated.models.Game)
    assert (saved.parsed.number, saved.parsed.tournament, saved.parsed.version) == (7, "mt-example", 1)
    assert len(saved.parsed.seats) == len(game["seats"])
    assert Game.objects.filter(stage__tournament__slug="mt-example", number=7).exists()
    listed = generated.games_list.sync(client=anonymous(generated, live_server.url), tournament="mt-example",
                                       number=7)
    assert [g.id for g in listed.results] == [saved.parsed.id]

    stranger = generated.client.AuthenticatedClient(base_url=live_server.url, token="not-a-token", prefix="Token")
    refused = generated.games_create.sync_detailed(client=stranger, body=generated.models.GameWrite.from_dict(
        {**game, "number": 8}))
    assert refused.status_code == 401 and isinstance(refused.parsed, generated.models.Detail)
    assert refused.headers["WWW-Authenticate"] == "Token"


def test_generated_client_files_an_appeal_with_a_captains_token(generated, live_server):
    document = example("chgk_tour_points")
    document["stages"][0]["tours"][1]["played_on"] = timezone.localdate().isoformat()
    document["appeals"] = [appeal for appeal in document["appeals"] if appeal["tour"] == 1]
    tournament = import_document(document)
    captain = user_playing_as(Team.objects.get(tournament=tournament, name="Rotor").captain.nick)
    api = with_token(generated, live_server.url, captain)

    body = generated.models.AppealsCreateBody.from_dict({
        "tournament": tournament.slug, "kind": "accept_answer", "tour": 2, "question": 3, "answer": "Гаусс",
        "argument": "no less precise"})
    filed = generated.appeals_create.sync_detailed(client=api, body=body)
    assert filed.status_code == 201, filed.content
    appeal = filed.parsed
    assert isinstance(appeal, generated.models.Appeal)
    assert (appeal.tournament, appeal.kind.value, appeal.tour, appeal.question) == (
        tournament.slug, "accept_answer", 2, 3)
    assert appeal.verdict is None and appeal.team_hidden and appeal.team is None  # pending: hidden (CHGK-20)
    assert Appeal.objects.get(pk=appeal.id).team.name == "Rotor"
    twice = generated.appeals_create.sync_detailed(client=api, body=body)
    assert twice.status_code in (400, 409) and isinstance(twice.parsed, generated.models.Errors)
