"""A rating-site result creates its tour when the season has none of that number (host and date
from the organizer's options), and the site's position is kept beside the portal's place and shown on the tour
page where they differ, with why (CHGK-13 shares tied places; the site breaks them by a shoot-out)."""

from __future__ import annotations

import datetime as dt
import json

import pytest
from django.core.management import CommandError
from django.test import Client
from django.utils.translation import override
from rest_framework.test import APIClient

from portal.views.games import site_difference
from scoring.services import recompute
from tests.test_result_imports import CHGK, rating_season, run
from tournaments.models import AuditEntry, Mask, Tour, Tournament

pytestmark = pytest.mark.django_db

FILE = CHGK / "chgkrating_3506_teams_at_tournament.json"
SHOOT_OUT = {"Большие красные прокариоты", "Ныробская яма"}  # tied here, ordered by the site (test_result_imports)


@pytest.fixture
def season(django_user_model) -> Tournament:
    """A ChGK season of the file's teams with tour 1 (no masks) only, and its staff user."""
    tournament = rating_season(FILE)
    Tour.objects.filter(stage__tournament=tournament).exclude(number=1).delete()
    django_user_model.objects.create_user("boss", password="pw-boss-123456", is_staff=True)
    return tournament


def file_teams() -> list[str]:
    rows = json.loads(FILE.read_text(encoding="utf-8"))
    return list(rows["current_name"].values()) if isinstance(rows, dict) else [
        r["team"]["name"] if "team" in r else r["current_name"] for r in rows]


def test_the_import_creates_the_missing_tour_with_its_host_and_date(season):
    host = file_teams()[-1]
    run("import_rating_results", str(FILE), "--tournament", season.slug, "--tour", "2", "--user", "boss",
        "--host", host, "--date", "2016-02-14")
    tour = Tour.objects.select_related("host").get(stage__tournament=season, number=2)
    assert (tour.host.name, tour.played_on) == (host, dt.date(2016, 2, 14))
    masks = Mask.objects.filter(tour=tour)
    assert masks.count() == len(file_teams()) - 1  # the host plays no mask of its own tour (CHGK-7)
    assert tour.questions == len(masks.first().mask)
    assert not masks.filter(site_position=None).exists()
    assert AuditEntry.objects.filter(tournament=season, model="tournaments.Tour", action="create").exists()


def test_the_tour_page_shows_the_sites_position_where_it_differs_and_why(season):
    run("import_rating_results", str(FILE), "--tournament", season.slug, "--tour", "1", "--user", "boss")
    recompute(season.pk, force=True)  # what the import's commit queues: it stores the tour's figures
    with override("en"):
        page = Client().get(f"/t/{season.slug}/tours/1/", HTTP_ACCEPT_LANGUAGE="en")
    text = page.content.decode()
    assert page.status_code == 200
    notes = text.split('class="notice site-difference">')[1:]
    assert len(notes) == len(SHOOT_OUT)
    for team in SHOOT_OUT:
        assert any(note.startswith(team) and "shoot-out" in note.split("</p>")[0] for note in notes), team


def test_a_host_that_is_no_season_team_is_refused_and_nothing_written(season):
    with pytest.raises(CommandError):
        run("import_rating_results", str(FILE), "--tournament", season.slug, "--tour", "3", "--user", "boss",
            "--host", "Nobody's team")
    assert list(Tour.objects.filter(stage__tournament=season).values_list("number", flat=True)) == [1]
    assert not Mask.objects.exists()


def test_an_existing_tours_host_and_date_are_not_changed_by_the_options(season):
    run("import_rating_results", str(FILE), "--tournament", season.slug, "--tour", "1", "--user", "boss",
        "--date", "2016-01-10")
    before = Mask.objects.count()
    with pytest.raises(CommandError):
        run("import_rating_results", str(FILE), "--tournament", season.slug, "--tour", "1", "--user", "boss",
            "--date", "2016-01-11")
    assert Tour.objects.get(stage__tournament=season, number=1).played_on == dt.date(2016, 1, 10)
    assert Mask.objects.count() == before


def test_the_api_creates_the_tour_from_host_and_played_on(season):
    from django.contrib.auth import get_user_model

    client = APIClient()
    client.force_authenticate(get_user_model().objects.get(username="boss"))
    body = {"results": json.loads(FILE.read_text(encoding="utf-8")), "host": file_teams()[0],
            "played_on": "2016-03-01"}
    bad = client.post(f"/api/v1/tournaments/{season.slug}/tours/4/import-rating/", {**body, "played_on": "1 March"},
                      format="json")
    assert bad.status_code == 400 and bad.json()["errors"][0]["path"] == "played_on"
    answer = client.post(f"/api/v1/tournaments/{season.slug}/tours/4/import-rating/", body, format="json")
    assert answer.status_code == 201, answer.content
    tour = Tour.objects.get(stage__tournament=season, number=4)
    assert tour.played_on == dt.date(2016, 3, 1) and tour.host.name == file_teams()[0]


@pytest.mark.parametrize(("place", "site", "kind"), [
    ("3", 3, None), ("2-4", 3, None), ("2-3", 2.5, None), ("2-3", 2, "tie"), ("2-3", 3, "tie"),
    ("5", 4, "answers"), ("2-4", 2.5, "answers"), ("1", None, None)])
def test_the_site_position_differs_only_outside_chgk_13s_averaged_shared_place(place, site, kind):
    with override("en"):
        found = site_difference(place, site)
    if kind is None:
        assert found is None
    else:
        assert ("shoot-out" in found["reason"]) == (kind == "tie")



def test_a_games_history_entry_that_names_its_group_renders():
    """The game's audited state keeps its group by name (tournaments.audit.game_state): shown as written, not
    looked up as a row id (that raised ValueError and took the history page down)."""
    from portal.history import readable

    entry = AuditEntry(at=dt.datetime(2026, 1, 1, tzinfo=dt.UTC), action="update", model="tournaments.Game", object_id="1", object_repr="game 1",
                       before={"group": "A"}, after={"group": "B"})
    text = str([{k: v for k, v in row.items() if k != "entry"} for row in readable([entry])])
    assert "A" in text and "B" in text
