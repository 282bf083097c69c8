"""The history is an audit trail: who, when, what, and a readable before and after per field,
seats and masks included, in the reader's language; bulk writes are recorded too."""

from __future__ import annotations

import copy

import pytest
from django.test import Client

from accounts.models import Role, TournamentRole
from formats.class_balanced.services import generate
from formats.family_league.services import draw_qualifying_groups
from tests.conftest import example
from tests.factories import UserFactory
from tournaments import commands
from tournaments.importer import import_document
from tournaments.models import AuditEntry, Game, Stage, Tour, Tournament

pytestmark = pytest.mark.django_db


def _organizer(tournament: Tournament):
    user = UserFactory(username="olga")
    TournamentRole.objects.create(user=user, tournament=tournament, role=Role.ORGANIZER)
    return user


def _client(user, language: str) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(user)
    return client


def test_saving_a_game_records_one_entry_with_its_seats_before_and_after():
    tournament = import_document(example("family_league"))
    organizer = _organizer(tournament)
    game = Game.objects.get(stage__tournament=tournament, number=1)
    payload = copy.deepcopy(example("family_league")["stages"][0]["games"][0])
    payload["seats"].reverse()  # the order joined changes, nothing else
    AuditEntry.objects.all().delete()
    commands.update_game(organizer, game.pk, {"tournament": tournament.slug, "stage": "final",
                                               "version": game.version, **payload})
    [entry] = AuditEntry.objects.all()  # no seat deletions or creations of their own
    assert (entry.model, entry.action, entry.username) == ("tournaments.Game", "update", "olga")
    assert set(entry.before) == {"seats"} == set(entry.after)
    assert [s["player"] for s in entry.after["seats"]] == [s["player"] for s in payload["seats"]]
    assert entry.before["seats"] == list(reversed(entry.after["seats"]))


def test_a_new_game_records_its_seats_at_creation():
    tournament = import_document(example("family_league"))
    organizer = _organizer(tournament)
    payload = copy.deepcopy(example("family_league")["stages"][0]["games"][0])
    payload.update(number=7, scheduled_at="2014-09-04T19:00:00+04:00", round=4)
    AuditEntry.objects.all().delete()
    commands.record_game(organizer, {"tournament": tournament.slug, "stage": "final", **payload})
    [entry] = AuditEntry.objects.all()
    assert entry.action == "create" and entry.before is None
    assert [s["player"] for s in entry.after["seats"]] == [s["player"] for s in payload["seats"]]


def test_entering_a_tours_masks_records_the_answers_team_by_team():
    tournament = import_document(example("chgk_tour_points"))
    organizer = _organizer(tournament)
    tour = Tour.objects.get(stage__tournament=tournament, number=1)
    masks = {m.team.name: m.mask for m in tour.masks.select_related("team")}
    team = sorted(masks)[0]
    changed = {**masks, team: "1" * len(masks[team])}
    AuditEntry.objects.all().delete()
    commands.record_tour_masks(organizer, tour.pk, {"masks": changed, "version": tour.version})
    [entry] = AuditEntry.objects.all()
    assert entry.model == "tournaments.Tour"
    assert entry.before["masks"][team] == masks[team] and entry.after["masks"][team] == changed[team]


@pytest.mark.parametrize(("language", "action", "field"), [("en", "changed", "answer masks"),
                                                           ("ru", "изменено", "маски ответов")])
def test_the_history_page_words_changes_in_the_readers_language(language, action, field,
                                                                         django_assert_max_num_queries):
    tournament = import_document(example("chgk_tour_points"))
    organizer = _organizer(tournament)
    tour = Tour.objects.get(stage__tournament=tournament, number=1)
    masks = {m.team.name: m.mask for m in tour.masks.select_related("team")}
    team = sorted(masks)[0]
    commands.record_tour_masks(organizer, tour.pk, {"masks": {**masks, team: "1" * len(masks[team])},
                                                     "version": tour.version})
    client = _client(organizer, language)
    # 12, and one query per kind of object listed, to name it in the reader's language (portal.history._current)
    with django_assert_max_num_queries(15):
        page = client.get(f"/t/{tournament.slug}/history/").content.decode()
    assert f"{action}:" in page and field in page
    assert f"{team}: {'1' * len(masks[team])}" in page
    assert "tournaments.Tour" not in page and "{&#x27;" not in page  # no raw labels or dicts


def test_references_are_shown_by_name_not_by_id():
    tournament = import_document(example("family_league"))
    organizer = _organizer(tournament)
    game = Game.objects.get(stage__tournament=tournament, number=1)
    group = game.stage.groups.first()
    AuditEntry.objects.all().delete()
    game.group = None
    game.save()
    game.group = group
    game.save()
    page = _client(organizer, "en").get(f"/t/{tournament.slug}/history/").content.decode()
    assert str(group) in page


def test_a_generated_cb_schedule_is_one_history_entry_with_its_games():
    """CB-2: the stage's games are written in bulk; the history still shows the table that was generated."""
    document = example("class_balanced")
    document["stages"] = [{"key": "stage-1", "games": []}]
    tournament = import_document(document)
    stage = tournament.stages.get(key="stage-1")
    Stage.objects.filter(pk=stage.pk).update(published_at=None)
    stage.refresh_from_db()
    AuditEntry.objects.all().delete()
    count = generate(stage, "public-42")
    entry = AuditEntry.objects.get(action="schedule")
    assert entry.after["seed"] == "public-42" and len(entry.after["games"]) == count
    organizer = _organizer(tournament)
    page = _client(organizer, "en").get(f"/t/{tournament.slug}/history/").content.decode()
    assert "schedule generated" in page and entry.after["games"][0] in page


def test_a_drawn_fl_qualifying_is_one_history_entry_with_its_groups():
    """FL-8: the groups' teams are written in bulk; the history shows each group's teams and the seed."""
    document = example("family_league")
    document["stages"], document["penalties"] = [], []
    tournament = import_document(document)
    organizer = _organizer(tournament)
    drawn = draw_qualifying_groups(organizer, tournament, "public-7")
    entry = AuditEntry.objects.get(action="draw", model="tournaments.Stage")
    assert entry.username == "olga" and entry.after == {"seed": "public-7", "groups": {
        str(i + 1): list(names) for i, names in enumerate(drawn)}}


def test_an_entry_names_its_object_in_the_readers_language_not_the_actors():
    """A role granted while the portal spoke Russian reads "organizer" to an English reader (the object's name
    is rendered when read, while the object exists)."""
    from django.utils import translation

    tournament = import_document(example("family_league"))
    with translation.override("ru"):
        organizer = _organizer(tournament)
    assert AuditEntry.objects.filter(model="accounts.TournamentRole", object_repr__contains="организатор").exists()
    page = _client(organizer, "en").get(f"/t/{tournament.slug}/history/").content.decode()
    assert "организатор" not in page and "organizer" in page
