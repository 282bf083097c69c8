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
