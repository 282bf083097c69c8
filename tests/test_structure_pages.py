"""An organizer builds a tournament's structure from the portal's pages and the API (stages,
groups, tours, game slots, the schedule's publication, registration), not only in the Django admin."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import factory
import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation
from rest_framework.test import APIClient

import rulesets
from accounts.models import Role
from formats.elimination_gp.models import StageConditions
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tournaments import structure
from tournaments.models import (
    AuditEntry,
    Game,
    GameStatus,
    Group,
    GroupTeam,
    Mask,
    Stage,
    Team,
    Tour,
    Tournament,
    TournamentStatus,
)

pytestmark = pytest.mark.django_db
MSK = zoneinfo.ZoneInfo("Europe/Moscow")
MAFIA = ("family_league", "class_balanced", "elimination_gp")


class TournamentFactory(factory.django.DjangoModelFactory):
    """A new, empty tournament: no stages, no teams."""

    class Meta:
        model = Tournament

    slug = factory.Sequence(lambda n: f"new-{n}")
    name = factory.Sequence(lambda n: f"New tournament {n}")
    ruleset = "family_league"
    status = TournamentStatus.DRAFT


class TeamFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Team

    name = factory.Sequence(lambda n: f"Team {n}")


@pytest.fixture(autouse=True)
def _english_and_fast_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    with translation.override("en"):
        yield


@pytest.fixture
def client():
    """The test client, reading the pages in English (the default language may be Russian)."""
    return Client(HTTP_ACCEPT_LANGUAGE="en")


def organizer_of(tournament: Tournament):
    return RoleFactory(tournament=tournament, role=Role.ORGANIZER).user


def url(tournament: Tournament) -> str:
    return reverse("tournament-structure", args=[tournament.slug])


def signed_in(client, user):
    client.force_login(user)
    return client


def post(client, tournament: Tournament, **data):
    return client.post(url(tournament), {k: "" if v is None else v for k, v in data.items()})


def messages_of(response) -> str:
    return response.content.decode()


# --------------------------------------------------------------------------- stages


@pytest.mark.parametrize("ruleset", ["chgk_tour_points", *MAFIA])
def test_structure_an_organizer_adds_the_first_stage_of_a_new_tournament_of_each_ruleset(client, ruleset):
    tournament = TournamentFactory(ruleset=ruleset)
    organizer = organizer_of(tournament)
    client = signed_in(client, organizer)
    assert client.get(url(tournament)).status_code == 200
    key = {"chgk_tour_points": "season", "family_league": "qualifying", "class_balanced": "stage-1",
           "elimination_gp": "qualifying-1"}[ruleset]
    response = post(client, tournament, action="add_stage", key=key, order="", seed="public-seed")
    assert response.status_code == 302
    stage = Stage.objects.get(tournament=tournament)
    assert (stage.key, stage.order, stage.seed) == (key, 0, "public-seed")
    entry = AuditEntry.objects.get(tournament=tournament, model="tournaments.Stage")
    assert (entry.action, entry.user, entry.after["key"]) == ("create", organizer, key)
    page = client.get(url(tournament))
    assert f'data-stage="{key}"' in page.content.decode()


def test_structure_a_duplicate_stage_key_is_refused_naming_the_field_and_nothing_changes(client):
    tournament = TournamentFactory()
    client = signed_in(client, organizer_of(tournament))
    post(client, tournament, action="add_stage", key="qualifying")
    audited = AuditEntry.objects.count()
    response = post(client, tournament, action="add_stage", key="qualifying")
    assert response.status_code == 400
    assert "Stage key: the tournament already has a stage qualifying" in messages_of(response)
    assert Stage.objects.filter(tournament=tournament).count() == 1
    assert AuditEntry.objects.count() == audited


def test_structure_a_key_outside_the_ruleset_is_refused(client):
    tournament = TournamentFactory()
    with pytest.raises(structure.Invalid, match="qualifying, final"):
        structure.add_stage(organizer_of(tournament), tournament, "semi-final")
    assert not Stage.objects.filter(tournament=tournament).exists()


def test_structure_an_organizer_edits_a_stage_and_its_key_is_fixed_once_it_has_games(client):
    tournament = TournamentFactory()
    organizer = organizer_of(tournament)
    client = signed_in(client, organizer)
    post(client, tournament, action="add_stage", key="qualifying")
    stage = Stage.objects.get(tournament=tournament)
    assert post(client, tournament, action="edit_stage", stage=stage.pk, key="final", order=3,
                seed="s").status_code == 302
    stage.refresh_from_db()
    assert (stage.key, stage.order, stage.seed) == ("final", 3, "s")
    Game.objects.create(stage=stage, number=1, status=GameStatus.SCHEDULED)
    response = post(client, tournament, action="edit_stage", stage=stage.pk, key="qualifying", order=3, seed="s")
    assert response.status_code == 400
    assert "has games or tours: its key no longer changes" in messages_of(response)
    stage.refresh_from_db()
    assert stage.key == "final"


def test_structure_only_an_empty_stage_is_deleted_its_groups_with_it(client):
    tournament = TournamentFactory()
    organizer = organizer_of(tournament)
    client = signed_in(client, organizer)
    empty = structure.add_stage(organizer, tournament, "qualifying")
    structure.add_group(organizer, empty, "A")
    full = structure.add_stage(organizer, tournament, "final")
    structure.add_game_slot(organizer, full, 1)
    response = post(client, tournament, action="delete_stage", stage=full.pk)
    assert response.status_code == 400 and "stage final is not empty: it holds games" in messages_of(response)
    assert post(client, tournament, action="delete_stage", stage=empty.pk).status_code == 302
    assert list(Stage.objects.filter(tournament=tournament).values_list("key", flat=True)) == ["final"]
    assert not Group.objects.filter(name="A").exists()
    entry = AuditEntry.objects.filter(model="tournaments.Stage", action="delete").get()
    assert entry.before["groups"] == ["A"] and entry.user == organizer


def test_structure_publishing_a_schedule_sets_published_at_and_a_late_one_is_flagged_cb_2(client):
    """CB-2 asks for the table days before the stage starts; publishing later is allowed and flagged (roles.md)."""
    tournament = TournamentFactory(ruleset="class_balanced")
    organizer = organizer_of(tournament)
    client = signed_in(client, organizer)
    stage = structure.add_stage(organizer, tournament, "stage-1")
    starts = timezone.now() + dt.timedelta(hours=5)
    structure.add_game_slot(organizer, stage, 1, scheduled_at=starts)
    assert post(client, tournament, action="publish", stage=stage.pk).status_code == 302
    stage.refresh_from_db()
    assert stage.published_at is not None and stage.published_at < starts
    page = client.get(url(tournament)).content.decode()
    assert "published 4 hours before the start; CB-2 asks for" in page
    assert structure.publication_lateness(tournament, starts - dt.timedelta(days=30), starts) is None
    response = post(client, tournament, action="publish", stage=stage.pk)
    assert response.status_code == 400 and "was published on" in messages_of(response)


def test_structure_a_schedule_with_nothing_in_it_is_not_published():
    tournament = TournamentFactory()
    organizer = organizer_of(tournament)
    stage = structure.add_stage(organizer, tournament, "qualifying")
    with pytest.raises(structure.Invalid, match="no games or tours yet"):
        structure.publish_schedule(organizer, stage)
    stage.refresh_from_db()
    assert stage.published_at is None


# --------------------------------------------------------------------------- groups


def test_structure_groups_are_added_renamed_filled_and_deleted(client):
    tournament = TournamentFactory()
    organizer = organizer_of(tournament)
    client = signed_in(client, organizer)
    stage = structure.add_stage(organizer, tournament, "qualifying")
    eternity = TeamFactory(tournament=tournament, name="Eternity")
    assert post(client, tournament, action="add_group", stage=stage.pk, name="A").status_code == 302
    group = Group.objects.get(stage=stage)
    assert post(client, tournament, action="group_team", group=group.pk, team=eternity.pk).status_code == 302
    assert list(group.teams.values_list("name", flat=True)) == ["Eternity"]
    response = post(client, tournament, action="group_team", group=group.pk, team=eternity.pk)
    assert response.status_code == 400 and "Team: Eternity is already in group A" in messages_of(response)
    other = structure.add_group(organizer, stage, "B")
    post(client, tournament, action="group_team", group=other.pk, team=eternity.pk)
    assert list(GroupTeam.objects.filter(team=eternity).values_list("group__name", flat=True)) == ["B"]
    assert post(client, tournament, action="rename_group", group=group.pk, name="C").status_code == 302
    group.refresh_from_db()
    assert group.name == "C"
    response = post(client, tournament, action="rename_group", group=group.pk, name="B")
    assert response.status_code == 400 and "Group name: stage qualifying already has a group B" in messages_of(
        response)
    post(client, tournament, action="ungroup_team", group=other.pk, team=eternity.pk)
    assert not GroupTeam.objects.filter(team=eternity).exists()
    assert post(client, tournament, action="delete_group", group=group.pk).status_code == 302
    assert list(Group.objects.filter(stage=stage).values_list("name", flat=True)) == ["B"]
    assert set(AuditEntry.objects.filter(model="tournaments.Group").values_list("action", flat=True)) == {
        "create", "update", "delete"}


def test_structure_a_group_with_games_is_not_deleted_and_a_rename_renames_its_games():
    tournament = TournamentFactory()
    organizer = organizer_of(tournament)
    stage = structure.add_stage(organizer, tournament, "qualifying")
    group = structure.add_group(organizer, stage, "A")
    game = structure.add_game_slot(organizer, stage, 1, group=group)
    with pytest.raises(structure.Invalid, match="games 1 are played in group A"):
        structure.delete_group(organizer, group)
    structure.rename_group(organizer, group, "Z")
    game.refresh_from_db()
    assert (game.group_id, game.group_label) == (group.pk, "Z")


# --------------------------------------------------------------------------- ChGK tours


def test_structure_a_new_chgk_tour_opens_its_entry_page_and_links_questions_and_hosting(client):
    tournament = TournamentFactory(ruleset="chgk_tour_points")
    organizer = organizer_of(tournament)
    client = signed_in(client, organizer)
    signum = TeamFactory(tournament=tournament, name="Signum")
    TeamFactory(tournament=tournament, name="Rotor")
    response = post(client, tournament, action="add_tour", stage="", number=1, host=signum.pk,
                    played_on="2013-02-07", questions=8)
    assert response.status_code == 400 and "add the stage the tours are played in first" in messages_of(response)
    stage = structure.add_stage(organizer, tournament, "season")
    response = post(client, tournament, action="add_tour", stage=stage.pk, number=1, host=signum.pk,
                    played_on="2013-02-07", questions=8)
    assert response.status_code == 302
    tour = Tour.objects.get(stage=stage)
    assert (tour.number, tour.host, tour.played_on, tour.questions) == (1, signum, dt.date(2013, 2, 7), 8)
    assert client.get(reverse("tour-entry", args=[tournament.slug, 1])).status_code == 200
    page = client.get(url(tournament)).content.decode()
    assert reverse("chgk-questions", args=[tournament.slug, 1]) in page
    assert reverse("chgk-hosting", args=[tournament.slug]) in page
    entry = AuditEntry.objects.get(model="tournaments.Tour")
    assert (entry.action, entry.user, entry.after["host"]) == ("create", organizer, signum.pk)


def test_structure_a_taken_tour_number_is_refused_and_an_edit_moves_the_version(client):
    tournament = TournamentFactory(ruleset="chgk_tour_points")
    organizer = organizer_of(tournament)
    client = signed_in(client, organizer)
    stage = structure.add_stage(organizer, tournament, "season")
    first = structure.add_tour(organizer, stage, 1)
    second = structure.add_tour(organizer, stage, 2)
    assert first.questions == 8  # CHGK-8, the settings' default
    response = post(client, tournament, action="add_tour", stage=stage.pk, number=2)
    assert response.status_code == 400 and "Number: tour 2 is taken" in messages_of(response)
    assert Tour.objects.filter(stage=stage).count() == 2
    response = post(client, tournament, action="edit_tour", tour=second.pk, number=3, questions=12,
                    played_on="2013-03-01")
    assert response.status_code == 302
    second.refresh_from_db()
    assert (second.number, second.questions, second.version, second.updated_by) == (3, 12, 2,
                                                                                     organizer.username)


def test_structure_the_questions_of_a_tour_with_masks_do_not_change():
    tournament = TournamentFactory(ruleset="chgk_tour_points")
    organizer = organizer_of(tournament)
    stage = structure.add_stage(organizer, tournament, "season")
    tour = structure.add_tour(organizer, stage, 1)
    Mask.objects.create(tour=tour, team=TeamFactory(tournament=tournament), mask="10101010")
    with pytest.raises(structure.Invalid, match="no longer changes"):
        structure.update_tour(organizer, tour, questions=12)
    with pytest.raises(structure.Invalid, match="answer masks"):
        structure.delete_tour(organizer, tour)
    tour.refresh_from_db()
    assert tour.questions == 8


def test_structure_a_mafia_tournament_takes_no_tours_and_a_chgk_one_no_game_slots():
    fl = TournamentFactory()
    chgk = TournamentFactory(ruleset="chgk_tour_points")
    with pytest.raises(structure.Invalid, match="not tours of questions"):
        structure.add_tour(organizer_of(fl), structure.add_stage(organizer_of(fl), fl, "final"), 1)
    with pytest.raises(structure.Invalid, match="not games of Mafia"):
        structure.add_game_slot(organizer_of(chgk), structure.add_stage(organizer_of(chgk), chgk, "season"), 1)


# --------------------------------------------------------------------------- Mafia game slots


@pytest.mark.parametrize("ruleset", MAFIA)
def test_structure_a_scheduled_game_slot_is_added_in_the_tournaments_zone_and_links_its_entry(client, ruleset):
    tournament = TournamentFactory(ruleset=ruleset, timezone="Asia/Yekaterinburg")
    organizer = organizer_of(tournament)
    client = signed_in(client, organizer)
    key = {"family_league": "qualifying", "class_balanced": "stage-1", "elimination_gp": "qualifying-1"}[ruleset]
    stage = structure.add_stage(organizer, tournament, key)
    group = structure.add_group(organizer, stage, "1")
    response = post(client, tournament, action="add_game", stage=stage.pk, number=7, group=group.pk,
                    scheduled_at="2030-09-08T19:00")
    assert response.status_code == 302
    game = Game.objects.get(stage=stage)
    assert (game.number, game.status, game.group, game.group_label) == (7, GameStatus.SCHEDULED, group, "1")
    assert game.scheduled_at == dt.datetime(2030, 9, 8, 19, 0, tzinfo=zoneinfo.ZoneInfo("Asia/Yekaterinburg"))
    entry = reverse("game-entry", args=[tournament.slug, key, 7])
    assert entry in client.get(url(tournament)).content.decode()
    assert client.get(entry).status_code == 200
    response = post(client, tournament, action="add_game", stage=stage.pk, number=7)
    assert response.status_code == 400 and "Number: game 7 is taken" in messages_of(response)
    assert Game.objects.filter(stage=stage).count() == 1
    assert AuditEntry.objects.filter(model="tournaments.Game", action="create", user=organizer).count() == 1


# --------------------------------------------------------------------------- registration


@pytest.mark.parametrize("ruleset", ["family_league", "chgk_tour_points"])
def test_structure_registration_opens_and_closes_per_tournament_fl_2(client, ruleset):
    tournament = TournamentFactory(ruleset=ruleset)
    organizer = organizer_of(tournament)
    client = signed_in(client, organizer)
    response = post(client, tournament, action="open_registration", registration_deadline="2000-01-01T12:00")
    assert response.status_code == 400 and "Registration deadline: the deadline" in messages_of(response)
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.DRAFT
    deadline = (timezone.now() + dt.timedelta(days=10)).astimezone(MSK).replace(second=0, microsecond=0)
    response = post(client, tournament, action="open_registration",
                    registration_deadline=deadline.strftime("%Y-%m-%dT%H:%M"))
    assert response.status_code == 302
    tournament.refresh_from_db()
    assert (tournament.status, tournament.registration_deadline) == (TournamentStatus.REGISTRATION, deadline)
    assert structure.registration_is_open(tournament)
    assert post(client, tournament, action="close_registration").status_code == 302
    tournament.refresh_from_db()
    assert tournament.status == TournamentStatus.RUNNING and tournament.registration_deadline <= timezone.now()
    assert not structure.registration_is_open(tournament)
    assert list(AuditEntry.objects.filter(model="tournaments.Tournament", user=organizer).order_by(
        "pk").values_list("action", flat=True)) == ["open", "update"]


def test_structure_a_gp_stage_opens_its_own_registration_once_its_conditions_are_published_gp_2(client):
    tournament = TournamentFactory(ruleset="elimination_gp")
    organizer = organizer_of(tournament)
    client = signed_in(client, organizer)
    stage = structure.add_stage(organizer, tournament, "qualifying-1")
    page = client.get(url(tournament)).content.decode()
    assert reverse("gp-registration", args=[tournament.slug, "qualifying-1"]) in page
    response = post(client, tournament, action="open_stage_registration", stage=stage.pk)
    assert response.status_code == 400 and "conditions before opening registration" in messages_of(response)
    assert not StageConditions.objects.filter(stage=stage, registration_opened_at__isnull=False).exists()
    StageConditions.objects.update_or_create(stage=stage, defaults={
        "commission": "A, B", "game_times": "19:00", "prize_fund": "1000 mf", "extra_indicator": "mafia_wins"})
    assert post(client, tournament, action="open_stage_registration", stage=stage.pk).status_code == 302
    assert StageConditions.objects.get(stage=stage).registration_opened_at is not None
    assert AuditEntry.objects.filter(action="open", user=organizer).exists()


def test_structure_per_stage_registration_is_refused_where_it_is_per_tournament(client):
    tournament = TournamentFactory()
    organizer = organizer_of(tournament)
    stage = structure.add_stage(organizer, tournament, "qualifying")
    response = post(signed_in(client, organizer), tournament, action="open_stage_registration", stage=stage.pk)
    assert response.status_code == 400 and "per tournament, not per stage" in messages_of(response)


def test_structure_every_change_of_structure_shows_in_the_history_page(client):
    """The history lists who changed which fact; the structure's changes are among them."""
    tournament = TournamentFactory(ruleset="family_league")
    organizer = organizer_of(tournament)
    stage = structure.add_stage(organizer, tournament, "qualifying")
    group = structure.add_group(organizer, stage, "A")
    structure.put_team_in_group(organizer, group, TeamFactory(tournament=tournament, name="Eternity"))
    structure.add_game_slot(organizer, stage, 3, group=group, scheduled_at=timezone.now())
    structure.open_registration(organizer, tournament, timezone.now() + dt.timedelta(days=3))
    chgk = TournamentFactory(ruleset="chgk_tour_points")
    chgk_organizer = organizer_of(chgk)
    season = structure.add_stage(chgk_organizer, chgk, "season")
    tour = structure.add_tour(chgk_organizer, season, 1, host=TeamFactory(tournament=chgk, name="Signum"))
    structure.update_tour(chgk_organizer, tour, host=None, played_on=dt.date(2013, 2, 7))
    structure.delete_tour(chgk_organizer, tour)
    for who, where in ((organizer, tournament), (chgk_organizer, chgk)):
        page = signed_in(client, who).get(reverse("history", args=[where.slug]))
        assert page.status_code == 200
        assert page.content.decode().count(who.username) >= 3


# --------------------------------------------------------------------------- who may


@pytest.mark.parametrize("who", ["anonymous", "player", "judge", "other organizer"])
def test_structure_only_the_organizers_write_anyone_else_gets_403_and_nothing_changes(client, who):
    """roles.md: the organizer creates stages, tours and games; a judge sees the page but does not write."""
    tournament = TournamentFactory()
    if who == "player":
        client.force_login(user_playing_as("Majesty"))
    elif who == "judge":
        client.force_login(RoleFactory(tournament=tournament, role=Role.JUDGE).user)
    elif who == "other organizer":
        client.force_login(organizer_of(TournamentFactory()))
    audited = AuditEntry.objects.count()
    response = post(client, tournament, action="add_stage", key="qualifying")
    assert response.status_code == 403
    assert "accounts/forbidden.html" in [t.name for t in response.templates]
    assert not Stage.objects.filter(tournament=tournament).exists()
    assert AuditEntry.objects.count() == audited
    page = client.get(url(tournament))
    assert page.status_code == (200 if who == "judge" else 403)
    if who == "judge":
        assert 'value="add_stage"' not in page.content.decode()


def test_structure_staff_write_too(client):
    tournament = TournamentFactory()
    client.force_login(UserFactory(is_staff=True))
    assert post(client, tournament, action="add_stage", key="final").status_code == 302
    assert Stage.objects.filter(tournament=tournament, key="final").exists()


# --------------------------------------------------------------------------- recompute and queries


def test_structure_a_change_of_structure_schedules_the_recompute_after_commit(django_capture_on_commit_callbacks):
    tournament = TournamentFactory()
    organizer = organizer_of(tournament)
    before = Tournament.objects.get(pk=tournament.pk).facts_version
    with django_capture_on_commit_callbacks() as callbacks:
        structure.add_stage(organizer, tournament, "qualifying")
    assert [type(c).__name__ for c in callbacks] == ["_Dispatch"]
    assert Tournament.objects.get(pk=tournament.pk).facts_version > before
    other = TournamentFactory()
    with django_capture_on_commit_callbacks() as callbacks:
        structure.open_registration(organizer_of(other), other, timezone.now() + dt.timedelta(days=1))
    assert [type(c).__name__ for c in callbacks] == ["_Dispatch"]


@pytest.mark.parametrize("ruleset", ["chgk_tour_points", "family_league", "elimination_gp"])
def test_structure_the_page_reads_a_bounded_number_of_queries(client, ruleset, django_assert_max_num_queries):
    tournament = TournamentFactory(ruleset=ruleset)
    organizer = organizer_of(tournament)
    teams = [TeamFactory(tournament=tournament) for _ in range(8)]
    for key in rulesets.get(ruleset).stage_keys:
        stage = structure.add_stage(organizer, tournament, key)
        for name in ("A", "B"):
            group = structure.add_group(organizer, stage, name)
            for team in teams[:4] if name == "A" else teams[4:]:
                structure.put_team_in_group(organizer, group, team)
        if ruleset == "chgk_tour_points":
            for number in range(1, 9):
                structure.add_tour(organizer, stage, number, host=teams[number - 1])
        else:
            for number in range(1, 9):
                structure.add_game_slot(organizer, stage, number, group=group,
                                        scheduled_at=timezone.now() + dt.timedelta(days=number))
    client = signed_in(client, organizer)
    with django_assert_max_num_queries(20):
        assert client.get(url(tournament)).status_code == 200


# --------------------------------------------------------------------------- API


def api_for(user=None) -> APIClient:
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        api.force_authenticate(user)
    return api


def test_structure_the_api_creates_changes_publishes_and_deletes_a_stage():
    tournament = TournamentFactory()
    organizer = organizer_of(tournament)
    api = api_for(organizer)
    base = f"/api/v1/tournaments/{tournament.slug}/stages/"
    response = api.post(base, {"key": "qualifying", "seed": "x"}, format="json")
    assert response.status_code == 201, response.content
    assert (response.json()["key"], response.json()["seed"]) == ("qualifying", "x")
    response = api.post(base, {"key": "qualifying"}, format="json")
    assert response.status_code == 400
    assert response.json()["errors"][0]["path"] == "key"
    assert api.post(base, {"key": 5}, format="json").status_code == 400
    response = api.patch(f"{base}qualifying/", {"order": 4}, format="json")
    assert response.status_code == 200 and response.json()["order"] == 4
    structure.add_game_slot(organizer, Stage.objects.get(tournament=tournament), 1)
    response = api.patch(f"{base}qualifying/", {"publish": True}, format="json")
    assert response.status_code == 200 and response.json()["published_at"] is not None
    assert api.delete(f"{base}qualifying/").status_code == 400
    Game.objects.filter(stage__tournament=tournament).delete()
    assert api.delete(f"{base}qualifying/").status_code == 204
    assert api.delete(f"{base}qualifying/").status_code == 404
    assert not Stage.objects.filter(tournament=tournament).exists()


def test_structure_the_api_creates_changes_and_deletes_a_tour():
    tournament = TournamentFactory(ruleset="chgk_tour_points")
    organizer = organizer_of(tournament)
    TeamFactory(tournament=tournament, name="Signum")
    TeamFactory(tournament=tournament, name="Rotor")
    api = api_for(organizer)
    base = f"/api/v1/tournaments/{tournament.slug}/tours/"
    response = api.post(base, {"number": 1}, format="json")
    assert response.status_code == 400 and response.json()["errors"][0]["path"] == "stage"
    structure.add_stage(organizer, tournament, "season")
    response = api.post(base, {"number": 1, "host": "Signum", "played_on": "2013-02-07"}, format="json")
    assert response.status_code == 201, response.content
    assert (response.json()["host"], response.json()["played_on"], response.json()["questions"]) == (
        "Signum", "2013-02-07", 8)
    assert api.post(base, {"number": 1}, format="json").json()["errors"][0]["path"] == "number"
    assert api.post(base, {"number": 2, "played_on": "7 Feb"}, format="json").status_code == 400
    response = api.patch(f"{base}1/", {"host": "Rotor", "questions": 10}, format="json")
    assert response.status_code == 200 and (response.json()["host"], response.json()["questions"]) == ("Rotor", 10)
    assert api.delete(f"{base}1/").status_code == 204
    assert not Tour.objects.filter(stage__tournament=tournament).exists()


@pytest.mark.parametrize("who", ["anonymous", "player"])
def test_the_structure_api_refuses_anyone_but_the_organizers_naming_the_rule(who):
    tournament = TournamentFactory()
    api = api_for(user_playing_as("Majesty") if who == "player" else None)
    response = api.post(f"/api/v1/tournaments/{tournament.slug}/stages/", {"key": "final"}, format="json")
    refusal = 401 if who == "anonymous" else 403
    assert response.status_code == refusal
    assert "Only the organizers of" in response.json()["detail"] and "roles.md" in response.json()["detail"]
    assert api.post(f"/api/v1/tournaments/{tournament.slug}/tours/", {"number": 1},
                    format="json").status_code == refusal
    assert not Stage.objects.filter(tournament=tournament).exists()
    assert api.post("/api/v1/tournaments/no-such/stages/", {"key": "final"}, format="json").status_code == 404


# --------------------------------------------------------------------------- one GP stage's registration, game slots


def _published_gp_stage(organizer, tournament: Tournament, key: str = "qualifying-1") -> Stage:
    stage = structure.add_stage(organizer, tournament, key)
    StageConditions.objects.update_or_create(stage=stage, defaults={
        "commission": "A, B", "game_times": "19:00", "prize_fund": "1000 mf", "extra_indicator": "mafia_wins"})
    return stage


def test_gp_5_an_organizer_closes_one_stages_registration_and_its_invitations_close_for_everyone(client):
    """GP-5: invitations close when registration closes; a GP stage's registration closes on its own, before the
    tournament's deadline, and the other stages stay open."""
    from accounts.models import Player
    from formats.elimination_gp import services as gp

    tournament = TournamentFactory(ruleset="elimination_gp")
    organizer = organizer_of(tournament)
    first, second = _published_gp_stage(organizer, tournament), _published_gp_stage(organizer, tournament,
                                                                                    "qualifying-2")
    client = signed_in(client, organizer)
    for stage in (first, second):
        assert post(client, tournament, action="open_stage_registration", stage=stage.pk).status_code == 302
    response = post(client, tournament, action="close_stage_registration", stage=first.pk)
    assert response.status_code == 302
    assert StageConditions.objects.get(stage=first).registration_closed_at is not None
    assert (gp.registration_open(first), gp.registration_open(second)) == (False, True)
    entry = AuditEntry.objects.get(tournament=tournament, action="close")
    assert entry.user == organizer and entry.after["registration_closed_at"]
    player = Player.objects.create(nick="Latecomer")
    for invited in (True, False):
        with pytest.raises(gp.Refused, match="GP-5"):
            gp.register(first, player, user=organizer, invited=invited)
    assert gp.register(second, player, user=organizer, invited=True).invited
    page = client.get(url(tournament)).content.decode()
    assert 'value="close_stage_registration"' in page and 'value="open_stage_registration"' in page
    registration_page = client.get(reverse("gp-registration", args=[tournament.slug, first.key])).content.decode()
    assert "Registration is closed; so are invitations (GP-5)." in registration_page
    assert "Reopen this stage" in registration_page


def test_gp_5_a_closed_stage_reopens_until_its_draw_and_closing_twice_changes_nothing(client):
    from formats.elimination_gp import services as gp

    tournament = TournamentFactory(ruleset="elimination_gp")
    organizer = organizer_of(tournament)
    stage = _published_gp_stage(organizer, tournament)
    with pytest.raises(gp.Refused, match="not open"):
        structure.run_stage_act(organizer, stage, gp.close_registration)
    structure.run_stage_act(organizer, stage, gp.open_registration)
    structure.run_stage_act(organizer, stage, gp.close_registration)
    closed_at = StageConditions.objects.get(stage=stage).registration_closed_at
    structure.run_stage_act(organizer, stage, gp.close_registration)
    assert StageConditions.objects.get(stage=stage).registration_closed_at == closed_at
    assert AuditEntry.objects.filter(tournament=tournament, action="close").count() == 1
    structure.run_stage_act(organizer, stage, gp.open_registration)
    assert gp.registration_open(stage)
    assert AuditEntry.objects.filter(tournament=tournament, action="reopen").count() == 1


def test_gp_2_the_api_opens_and_closes_a_stages_registration_for_organizers_only():
    tournament = TournamentFactory(ruleset="elimination_gp")
    organizer = organizer_of(tournament)
    stage = _published_gp_stage(organizer, tournament)
    path = f"/api/v1/tournaments/{tournament.slug}/stages/{stage.key}/"
    assert api_for(UserFactory()).patch(path, {"registration": "open"}, format="json").status_code == 403
    assert api_for(organizer).patch(path, {"registration": "open"}, format="json").status_code == 200
    assert api_for(organizer).patch(path, {"registration": "closed"}, format="json").status_code == 200
    assert StageConditions.objects.get(stage=stage).registration_closed_at is not None
    refused = api_for(organizer).patch(path, {"registration": "shut"}, format="json")
    assert refused.status_code == 400 and refused.json()["errors"][0]["path"] == "registration"
    league = TournamentFactory(ruleset="family_league")
    league_organizer = organizer_of(league)
    structure.add_stage(league_organizer, league, "qualifying")
    answer = api_for(league_organizer).patch(f"/api/v1/tournaments/{league.slug}/stages/qualifying/",
                                             {"registration": "open"}, format="json")
    assert answer.status_code == 400 and "per tournament" in answer.json()["errors"][0]["message"]


def test_an_organizer_deletes_a_scheduled_game_slot_but_never_a_played_game(client):
    tournament = TournamentFactory(ruleset="family_league")
    organizer = organizer_of(tournament)
    stage = structure.add_stage(organizer, tournament, "qualifying")
    slot = structure.add_game_slot(organizer, stage, 3, scheduled_at=timezone.now())
    played = structure.add_game_slot(organizer, stage, 4, scheduled_at=timezone.now())
    Game.objects.filter(pk=played.pk).update(status=GameStatus.PLAYED)
    client = signed_in(client, organizer)
    page = client.get(url(tournament)).content.decode()
    assert page.count('value="delete_game"') == 1
    assert post(client, tournament, action="delete_game", game=slot.pk).status_code == 302
    assert not Game.objects.filter(pk=slot.pk).exists()
    entry = AuditEntry.objects.get(tournament=tournament, model="tournaments.Game", action="delete")
    assert entry.user == organizer and entry.before["number"] == 3
    response = post(client, tournament, action="delete_game", game=played.pk)
    assert response.status_code == 400 and "has a result" in messages_of(response)
    assert Game.objects.filter(pk=played.pk).exists()


def test_the_api_deletes_a_game_slot_for_organizers_only():
    tournament = TournamentFactory(ruleset="family_league")
    organizer = organizer_of(tournament)
    stage = structure.add_stage(organizer, tournament, "qualifying")
    structure.add_game_slot(organizer, stage, 5)
    path = f"/api/v1/tournaments/{tournament.slug}/stages/qualifying/games/5/"
    assert APIClient().delete(path).status_code == 401
    assert api_for(UserFactory()).delete(path).status_code == 403
    assert api_for(organizer).delete(path).status_code == 204
    assert not Game.objects.filter(stage=stage).exists()
    assert api_for(organizer).delete(path).status_code == 404
