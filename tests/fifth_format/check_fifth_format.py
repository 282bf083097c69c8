"""The fifth format end to end: import, recompute, pages and API (run under ``tests.fifth_format.settings`` by
``tests/test_fifth_format.py``; it is not collected by the suite itself)."""

from __future__ import annotations

import io
import json

import pytest
from django.core.management import call_command

from scoring.models import StandingsSnapshot
from tests.fifth_format.ruleset import KEY
from tournaments.models import Game, Tournament

SEATS = {  # team -> its players; each game seats every team's two players
    "Alfa": ["A1", "A2"], "Bravo": ["B1", "B2"], "Charlie": ["C1", "C2"],
}


def _game(number: int, mafia_team: str, outcome: str) -> dict:
    seats = []
    for team, players in SEATS.items():
        for i, player in enumerate(players):
            role = ("mafia" if i == 0 else "don") if team == mafia_team else "civilian"
            seats.append({"player": player, "team": team, "role": role})
    return {"number": number, "round": number, "scheduled_at": f"2026-03-0{number}T19:00:00+03:00",
            "outcome": outcome, "seats": seats}


DOCUMENT = {
    "format": "tournament-portal/1",
    "tournament": {"slug": "swiss-spring", "name": "Swiss spring", "ruleset": KEY, "timezone": "Europe/Moscow",
                   "starts_on": "2026-03-01"},
    "teams": [{"name": team, "players": players} for team, players in SEATS.items()],
    # game 1: Alfa's mafia wins (Alfa 2); game 2: Bravo's mafia loses (Alfa 2, Charlie 2); game 3: a draw (0.5 a seat)
    "stages": [{"key": "swiss", "games": [_game(1, "Alfa", "mafia"), _game(2, "Bravo", "civilians"),
                                          _game(3, "Charlie", "draw")]}],
}
EXPECTED = [("Alfa", 1, 5.0), ("Charlie", 2, 3.0), ("Bravo", 3, 1.0)]


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user("staff", password="pw-staff-123456", is_staff=True)


@pytest.fixture
def swiss(tmp_path, db, django_capture_on_commit_callbacks):
    path = tmp_path / "swiss.json"
    path.write_text(json.dumps(DOCUMENT), encoding="utf-8")
    with django_capture_on_commit_callbacks(execute=True):  # the recompute the import queues after its commit
        call_command("import_tournament", str(path), stdout=io.StringIO())
    return Tournament.objects.get(slug="swiss-spring")


def test_the_command_imports_it_and_the_recompute_gives_its_table(swiss):
    """SW-1, SW-2: 1 a winning seat, 0.5 a drawn one; ranked by points."""
    snapshot = StandingsSnapshot.objects.filter(tournament=swiss).order_by("-facts_version", "-id").first()
    assert snapshot is not None
    assert [(t["team"], t["rank"], t["points"]) for t in snapshot.export["teams"]] == EXPECTED
    assert snapshot.export["ruleset"] == KEY and snapshot.export["final"] is True


def test_the_api_imports_lists_and_serves_its_standings(client, staff, django_capture_on_commit_callbacks):
    client.force_login(staff)
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/v1/tournaments/import/", data=json.dumps(DOCUMENT),
                               content_type="application/json")
    assert response.status_code == 201, response.content
    listed = client.get("/api/v1/tournaments/", {"ruleset": KEY}).json()
    assert [t["slug"] for t in listed["results"]] == ["swiss-spring"]
    standings = client.get("/api/v1/tournaments/swiss-spring/standings/").json()
    assert [(t["team"], t["rank"], t["points"]) for t in standings["teams"]] == EXPECTED
    assert client.get("/api/v1/schema/").status_code == 200


@pytest.mark.parametrize("language", ["en", "ru"])
def test_its_pages_show_its_name_its_stage_and_its_figures(client, swiss, language):
    client.cookies["django_language"] = language
    home = client.get("/t/swiss-spring/", HTTP_ACCEPT_LANGUAGE=language)
    assert home.status_code == 200
    text = home.content.decode()
    assert "Swiss Mafia league" in text and "Alfa" in text and "swiss_mafia" not in text
    game = Game.objects.get(stage__tournament=swiss, number=1)
    page = client.get(f"/t/swiss-spring/{game.stage.key}/games/1/", HTTP_ACCEPT_LANGUAGE=language)
    assert page.status_code == 200
    assert "Swiss rounds" in page.content.decode()
    assert "SW-2" in client.get("/t/swiss-spring/rules/", HTTP_ACCEPT_LANGUAGE=language).content.decode()
    team = swiss.teams.get(name="Alfa").pk
    for url in ("/t/swiss-spring/schedule/", "/t/swiss-spring/prizes/", f"/t/swiss-spring/teams/{team}/", "/"):
        assert client.get(url, HTTP_ACCEPT_LANGUAGE=language).status_code == 200, url


def test_a_result_entered_through_the_api_moves_its_table(client, staff, swiss, django_capture_on_commit_callbacks):
    """A fourth game, Bravo's mafia winning (SW-1), recomputed after its save: Bravo 3.0, level with Charlie on
    points and on wins (two winning seats each), so they share the place (SW-2)."""
    client.force_login(staff)
    game = _game(4, "Bravo", "mafia")
    body = {"tournament": "swiss-spring", "stage": "swiss", "number": 4, "round": 4,
            "scheduled_at": game["scheduled_at"], "status": "played", "outcome": "mafia", "seats": game["seats"]}
    with django_capture_on_commit_callbacks(execute=True):
        response = client.post("/api/v1/games/", data=json.dumps(body), content_type="application/json")
    assert response.status_code == 201, response.content
    standings = client.get("/api/v1/tournaments/swiss-spring/standings/").json()
    assert [(t["team"], t["rank"], t["points"]) for t in standings["teams"]] == [
        ("Alfa", 1, 5.0), ("Bravo", 2, 3.0), ("Charlie", 2, 3.0)]
