"""The game-log and rating-site imports through the commands, the API and the entry form,
written through the same commands as typed results (record_game / record_tour_masks), on the real files."""

from __future__ import annotations

import json
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client

from accounts.models import Role, TournamentRole
from tournaments.importer import import_document
from tournaments.models import Appeal, AuditEntry, Game, Mask, RosterEntry, Tour, Tournament

pytestmark = pytest.mark.django_db

REAL = Path(__file__).resolve().parent / "data" / "real"
LOGS = REAL / "mafiaonline" / "logs"
CHGK = REAL / "chgk"


def clans(path: Path) -> list[dict]:
    teams = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if ":" in line:
            name, players = line.split(":", 1)
            nicks = list(dict.fromkeys(n.strip() for n in players.split(",") if n.strip()))
            teams.append({"name": name.strip(), "captain": nicks[0], "players": nicks})
    return teams


@pytest.fixture
def cup() -> Tournament:
    """The Family Cup 2016 (its 16 clans) as a family league with an empty qualifying stage."""
    teams = clans(REAL / "mafiaonline" / "family_cup_2016" / "teams.txt")
    return import_document({
        "format": "tournament-portal/1",
        "tournament": {"slug": "family-cup-2016", "name": "Семейный кубок 2016", "ruleset": "family_league",
                       "timezone": "Europe/Moscow", "starts_on": "2016-07-04"},
        "teams": teams, "stages": [{"key": "qualifying", "groups": [{"name": "1", "teams": [t["name"] for t in teams]}],
                                    "games": []}]})


@pytest.fixture
def organizer(cup, django_user_model):
    user = django_user_model.objects.create_user("org", password="pw-org-123456")
    TournamentRole.objects.create(user=user, tournament=cup, role=Role.ORGANIZER)
    return user


def run(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def test_import_game_log_dry_run_prints_the_interchange_game_and_writes_nothing(cup):
    out, err = run("import_game_log", str(LOGS / "3624027.html"), "--tournament", cup.slug, "--stage",
                   "qualifying", "--game", "1", "--dry-run")
    game = json.loads(out)
    assert set(game) == {"number", "status", "outcome", "omon", "game_days", "link", "seats"}
    assert game["number"] == 1 and game["outcome"] == "civilians" and game["link"].endswith("/log/3624027")
    vera = next(s for s in game["seats"] if s["player"] == "Vera")
    assert set(vera) == {"player", "team", "role", "timed_out", "days_played", "maniac_kills", "in_final_phase"}
    assert vera["role"] == "don"
    assert Game.objects.count() == 0
    # nicks that no clan's roster holds are listed to assign
    unknown = [s["player"] for s in game["seats"] if s["team"] is None]
    assert all(nick in err for nick in unknown)


def test_import_game_log_writes_through_record_game_with_audit(cup, organizer):
    """Unknown nicks refuse the write until assigned; then the game is recorded as a typed one, audited."""
    args = ("import_game_log", str(LOGS / "3624027.html"), "--tournament", cup.slug, "--stage", "qualifying",
            "--game", "1", "--user", "org")
    RosterEntry.objects.filter(team__tournament=cup, player__nick="Vera").delete()  # a nick on no roster
    with pytest.raises(CommandError):
        run(*args)
    assert Game.objects.count() == 0
    out, _ = run(*args, "--dry-run")
    unknown = [s["player"] for s in json.loads(out)["seats"] if s["team"] is None]
    assert "Vera" in unknown
    run(*args, *[f"--team={nick}=Упийцы" for nick in unknown])
    game = Game.objects.get(stage__tournament=cup, number=1)
    assert game.link == "http://mafiaonline.ru/log/3624027" and game.game_days == 5 and game.outcome == "civilians"
    assert game.seats.count() == 16 and game.updated_by == "org"
    assert AuditEntry.objects.filter(model="tournaments.Game", object_id=str(game.pk)).exists()


def test_a_log_of_another_game_or_a_truncated_page_is_refused_and_nothing_saved(cup, organizer, tmp_path):
    Game.objects.create(stage=cup.stages.get(), number=2, status="scheduled", link="https://mafiaonline.ru/log/3624161")
    with pytest.raises(CommandError):
        run("import_game_log", str(LOGS / "3624027.html"), "--tournament", cup.slug, "--stage", "qualifying",
            "--game", "2", "--dry-run")
    cut = tmp_path / "cut.html"
    cut.write_text((LOGS / "3624027.html").read_text(encoding="utf-8")[:30000], encoding="utf-8")
    with pytest.raises(CommandError, match="refused"):
        run("import_game_log", str(cut), "--tournament", cup.slug, "--stage", "qualifying", "--game", "3",
            "--user", "org")
    assert Game.objects.filter(number=3).count() == 0


def test_a_50_mb_upload_is_refused_before_parsing(cup, organizer, tmp_path):
    big = tmp_path / "big.html"
    big.write_bytes(b"<html>" + b" " * (50 * 1024 * 1024))
    with pytest.raises(CommandError, match="IMPORT_MAX_BYTES"):
        run("import_game_log", str(big), "--tournament", cup.slug, "--stage", "qualifying", "--game", "1",
            "--dry-run")
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(organizer)
    response = client.post(f"/api/v1/tournaments/{cup.slug}/stages/qualifying/games/1/import-log/",
                           {"log": SimpleUploadedFile("big.html", big.read_bytes(), "text/html")})
    assert response.status_code == 413 and "more than" in response.json()["errors"][0]["message"]
    page = client.post(f"/t/{cup.slug}/qualifying/games/new/",
                       {"log_import": "1", "log_file": SimpleUploadedFile("big.html", b"x" * (6 * 1024 * 1024))})
    assert page.status_code == 400 and b"more than" in page.content


def test_api_game_log_dry_run_and_write(cup, organizer):
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(organizer)
    url = f"/api/v1/tournaments/{cup.slug}/stages/qualifying/games/4/import-log/"
    html = (LOGS / "3624161.html").read_text(encoding="utf-8")
    dry = client.post(url + "?dry_run=true", {"html": html}, content_type="application/json")
    assert dry.status_code == 200, dry.content
    body = dry.json()
    assert body["game"]["omon"] is False and body["site_number"] == 3624161 and "stats" in body["not_in_log"]
    teams = {nick: "Упийцы" for nick in body["unknown_players"]}
    saved = client.post(url, {"html": html, "teams": teams}, content_type="application/json")
    assert saved.status_code == 201, saved.content
    assert Game.objects.get(pk=saved.json()["id"]).link.endswith("/3624161")
    other = client.post(url + "?dry_run=true", {"html": "<html><title>Форум</title></html>"},
                        content_type="application/json")
    assert other.status_code == 400 and "not a mafiaonline.ru game log" in other.json()["errors"][0]["message"]


def test_entry_form_previews_the_log_and_saves_nothing(cup, organizer):
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(organizer)
    upload = SimpleUploadedFile("3624224.html", (LOGS / "3624224.html").read_bytes(), "text/html")
    page = client.post(f"/t/{cup.slug}/qualifying/games/new/", {"log_import": "1", "log_file": upload})
    assert page.status_code == 200
    text = page.content.decode()
    assert "Preview from the game log" in text and "apaapaapa" in text and "not in the log" in text
    assert 'value="http://mafiaonline.ru/log/3624224"' in text
    assert Game.objects.count() == 0


# --- ChGK ---


def rating_season(path: Path) -> Tournament:
    """A ChGK season of the teams of a rating file, with tour 1 to import into."""
    rows = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(rows, dict):
        names = list(rows["current_name"].values())
    else:
        names = [r["team"]["name"] if "team" in r else r["current_name"] for r in rows]
    teams = [{"name": n, "captain": f"cap-{i}", "players": [f"cap-{i}"]} for i, n in enumerate(names)]
    return import_document({
        "format": "tournament-portal/1",
        "tournament": {"slug": f"chgk-{path.stem[-5:]}", "name": "ChGK", "ruleset": "chgk_tour_points",
                       "timezone": "Europe/Moscow", "starts_on": "2015-11-08"},
        "teams": teams, "stages": [{"key": "season", "tours": [{"number": 1, "questions": 12}]}]})


@pytest.fixture
def season():
    return rating_season


def staff(django_user_model):
    return django_user_model.objects.create_user("boss", password="pw-boss-123456", is_staff=True)


@pytest.mark.parametrize("name", ["chgkrating_3506_teams_at_tournament.json", "questionshub_rating_results_13097.json",
                                  "rating-v1/rosolimo_get_tourn_3416.json", "rating-v1/rosolimo_get_tourn_4441.json"])
def test_import_rating_results_dry_run_places_beside_site_positions(season, name):
    tournament = season(CHGK / name)
    out, err = run("import_rating_results", str(CHGK / name), "--tournament", tournament.slug, "--tour", "1",
                   "--dry-run")
    doc = json.loads(out)
    assert set(doc) == {"tour", "appeals", "places"}
    assert doc["tour"]["questions"] == len(next(iter(doc["tour"]["masks"].values())))
    differ = [p["team"] for p in doc["places"] if p["place"] != p["site_position"]]
    assert sorted(differ) == (sorted(["Большие красные прокариоты", "Ныробская яма"]) if "3506" in name else [])
    assert Mask.objects.count() == 0


def test_import_rating_v2_writes_masks_and_controversials_as_appeals(season, django_user_model):
    tournament = season(CHGK / "questionshub_rating_results_13097.json")
    staff(django_user_model)
    run("import_rating_results", str(CHGK / "questionshub_rating_results_13097.json"), "--tournament",
        tournament.slug, "--tour", "1", "--user", "boss")
    tour = Tour.objects.get(stage__tournament=tournament, number=1)
    assert tour.questions == 36 and tour.masks.count() == 17
    appeals = Appeal.objects.filter(tour=tour)
    assert appeals.exists() and set(appeals.values_list("verdict", flat=True)) <= {"accepted", "rejected"}
    accepted = appeals.filter(verdict="accepted", question=3).first()
    assert accepted.credited_teams.count() > 1
    assert Mask.objects.get(tour=tour, team__name="X-promt").mask[2] == "0"  # the jury's mark, credited on top


def test_unmatched_and_same_name_synchron_teams_are_listed_and_mapped_by_site_id(season, django_user_model):
    path = CHGK / "questionshub_rating_results_13097.json"
    tournament = season(path)
    rows = json.loads(path.read_text(encoding="utf-8"))
    rows[1]["team"]["name"] = rows[1]["current"]["name"] = "X-promt"  # two teams of one name in a synchron
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(staff(django_user_model))
    url = f"/api/v1/tournaments/{tournament.slug}/tours/1/import-rating/"
    refused = client.post(url + "?dry_run=true", {"results": rows}, content_type="application/json")
    assert refused.status_code == 400
    assert sum("X-promt" in e["message"] for e in refused.json()["errors"]) == 2
    mapping = {str(rows[0]["team"]["id"]): "X-promt", str(rows[1]["team"]["id"]): "Кокаїнові бегемотики"}
    dry = client.post(url + "?dry_run=true", {"results": rows, "map": mapping}, content_type="application/json")
    assert dry.status_code == 200, dry.content
    assert dry.json()["differences"] == []
    assert Mask.objects.count() == 0
    skipped = client.post(url + "?dry_run=true", {"results": rows, "skip_unmatched": True},
                          content_type="application/json")
    assert skipped.status_code == 200 and len(skipped.json()["skipped"]) == 2
    saved = client.post(url, {"results": rows, "map": mapping}, content_type="application/json")
    assert saved.status_code == 201 and Mask.objects.count() == 17


def test_rating_json_of_another_shape_is_refused(season, django_user_model, tmp_path):
    tournament = season(CHGK / "chgkrating_3506_teams_at_tournament.json")
    other = tmp_path / "doc.json"
    other.write_text(json.dumps({"format": "tournament-portal/1"}))
    with pytest.raises(CommandError, match="refused"):
        run("import_rating_results", str(other), "--tournament", tournament.slug, "--tour", "1", "--dry-run")


def test_import_endpoints_are_in_the_openapi_schema():
    schema = Client().get("/api/v1/schema/?format=json").json()
    assert "/api/v1/tournaments/{slug}/stages/{stage_key}/games/{number}/import-log/" in schema["paths"]
    assert "/api/v1/tournaments/{slug}/tours/{number}/import-rating/" in schema["paths"]
