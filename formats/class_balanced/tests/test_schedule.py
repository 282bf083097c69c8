"""class_balanced schedules in the portal: generated as a job, published, then results accepted (CB-2, CB-5, CB-6)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Role, TournamentRole
from formats.class_balanced.services import ScheduleRefused, generate, publish
from rulesets.class_balanced.schedule import generate_stage1
from tests.conftest import example
from tests.factories import UserFactory
from tournaments.importer import import_document
from tournaments.models import Game, GameStatus, Stage

pytestmark = pytest.mark.django_db


def fresh_stage_one():
    document = example("class_balanced")
    document["tournament"]["slug"] = "cb-fresh"
    document["stages"] = [{"key": "stage-1", "games": []}]
    tournament = import_document(document)
    stage = Stage.objects.get(tournament=tournament, key="stage-1")
    Stage.objects.filter(pk=stage.pk).update(published_at=None)
    stage.refresh_from_db()
    return tournament, stage


def test_cb_5_generated_stage_one_is_stored_as_48_scheduled_games_with_the_public_seed():
    tournament, stage = fresh_stage_one()
    assert generate(stage, "public-42") == 48
    stage.refresh_from_db()
    assert stage.seed == "public-42"
    games = list(stage.games.order_by("number"))
    assert len(games) == 48 and all(g.status == GameStatus.SCHEDULED for g in games)
    again = generate_stage1([t.name for t in tournament.teams.order_by("order")], "public-42")
    assert [g.round for g in games] == [slot.day + 1 for slot in again.slots()]


def test_cb_2_results_are_refused_until_the_table_is_published(client):
    tournament, stage = fresh_stage_one()
    generate(stage, "7")
    organizer = UserFactory()
    TournamentRole.objects.create(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    api = APIClient()
    api.force_authenticate(organizer)
    game = Game.objects.get(stage=stage, number=1)
    played = dict(example("class_balanced")["stages"][0]["games"][0], number=1)
    response = api.put(f"/api/v1/games/{game.pk}/", {**played, "tournament": tournament.slug, "stage": "stage-1",
                                                     "version": game.version}, format="json")
    assert response.status_code == 400
    assert "CB-2" in response.content.decode()
    publish(stage, timezone.now())
    with pytest.raises(ScheduleRefused):
        generate(stage, "8")


def test_the_schedule_page_starts_the_job_and_shows_the_table(client):
    tournament, stage = fresh_stage_one()
    organizer = UserFactory()
    TournamentRole.objects.create(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    client.force_login(organizer)
    url = f"/t/{tournament.slug}/stages/stage-1/schedule/"
    assert client.post(url, {"seed": "abc", "generate": "1"}).status_code == 302
    page = client.get(url).content.decode()
    assert "abc" in page and Game.objects.filter(stage=stage).count() == 48
    client.post(url, {"publish": "1"})
    stage.refresh_from_db()
    assert stage.published_at is not None
    client.force_login(UserFactory())
    assert client.get(url).status_code == 403


def test_cb_2_cb_4_the_schedule_page_shows_the_publication_deadline_and_the_day_turn_and_the_dashboard_flags_it(client):
    from formats.class_balanced.services import publication_due, stage_starts_at
    from portal.dashboard import attention_items

    tournament, stage = fresh_stage_one()
    generate(stage, "7")
    starts_at = stage_starts_at(stage)
    due = publication_due(stage)
    assert due == starts_at - dt.timedelta(days=1), "schedule_published_days_before defaults to 1 (CB-2)"
    organizer = UserFactory()
    TournamentRole.objects.create(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    client.force_login(organizer)
    page = client.get(f"/t/{tournament.slug}/stages/stage-1/schedule/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "A day turn lasts 2 minutes (CB-4)." in page
    assert "The table is to be published by" in page
    item = next(i for i in attention_items(tournament, due + dt.timedelta(hours=1)) if i.section == "schedules")
    assert item.due == due and item.overdue and item.rule == "CB-2"
    publish(stage, due + dt.timedelta(hours=1))
    page = client.get(f"/t/{tournament.slug}/stages/stage-1/schedule/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "later than CB-2 asks" in page


def test_cb_5_every_generated_game_keeps_its_teams_and_a_game_of_other_teams_is_refused_naming_the_seat(client):
    tournament, stage = fresh_stage_one()
    generate(stage, "7")
    game = Game.objects.get(stage=stage, number=1)
    assert len(game.scheduled_teams) == 7 and all(Game.objects.filter(stage=stage).values_list(
        "scheduled_teams", flat=True)), "stage 1 stores the seven teams of every game (CB-5)"
    organizer = UserFactory()
    TournamentRole.objects.create(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    client.force_login(organizer)
    schedule_page = client.get(f"/t/{tournament.slug}/stages/stage-1/schedule/").content.decode()
    assert ", ".join(game.scheduled_teams) in schedule_page
    game_page = client.get(f"/t/{tournament.slug}/stage-1/games/1/").content.decode()
    assert "CB-5" in game_page and game.scheduled_teams[0] in game_page
    publish(stage, timezone.now())
    outsider = next(t for t in tournament.teams.filter(stage__isnull=True).order_by("order").values_list(
        "name", flat=True) if t not in game.scheduled_teams)
    played = dict(example("class_balanced")["stages"][0]["games"][0], number=1)
    from tournaments.models import RosterEntry

    first_player = {}
    for team, nick in RosterEntry.objects.filter(team__tournament=tournament).order_by("order", "pk").values_list(
            "team__name", "player__nick"):
        first_player.setdefault(team, nick)
    seats = [dict(seat, team=team, player=first_player[team]) for seat, team in zip(played["seats"],
                                                                                    game.scheduled_teams)]
    seats[2].update(team=outsider, player=first_player[outsider])
    api = APIClient()
    api.force_authenticate(organizer)
    response = api.put(f"/api/v1/games/{game.pk}/", {**played, "seats": seats, "tournament": tournament.slug,
                                                     "stage": "stage-1", "version": game.version}, format="json")
    assert response.status_code == 400
    body = response.content.decode()
    assert "seats[2].team" in body and "CB-5" in body and outsider in body
    new = api.post("/api/v1/games/", {**played, "number": 999, "tournament": tournament.slug, "stage": "stage-1"},
                   format="json")
    assert new.status_code == 400 and "CB-2" in new.content.decode() and '"path":"number"' in new.content.decode()


def test_a_homes_tests_run_with_the_shared_autouse_fixtures(settings):
    """The root conftest.py gives formats/*/tests the autouse fixtures of tests/conftest.py (eager Celery)."""
    assert settings.CELERY_TASK_ALWAYS_EAGER is True
