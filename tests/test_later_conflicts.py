"""Correcting an early class-balanced result that changes who goes on to a later stage (CB-12) is
possible: the change is refused once with the later games it puts in conflict, saved when the organizer
confirms, and the dashboard lists those conflicts, in words, until they are resolved."""

from __future__ import annotations

import copy

import pytest
from django.utils import timezone, translation

from accounts.models import Role, TournamentRole
from portal.dashboard import attention_items
from portal.paths import path_words
from tests.factories import UserFactory
from tournaments import commands
from tournaments.demo import demo_class_balanced
from tournaments.importer import import_document
from tournaments.loader import load_facts
from tournaments.models import AuditEntry, Game

pytestmark = pytest.mark.django_db


@pytest.fixture
def cup():
    document = demo_class_balanced()
    tournament = import_document(copy.deepcopy(document))
    organizer = UserFactory()
    TournamentRole.objects.create(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    return tournament, organizer, document


def corrected_first_game(tournament, document) -> tuple[Game, dict]:
    """Stage 1's first game with its outcome turned: a team that went on to stage 3 no longer does (CB-12)."""
    game = Game.objects.get(stage__tournament=tournament, stage__key="stage-1", number=1)
    payload = copy.deepcopy(document["stages"][0]["games"][0])
    payload["outcome"] = "mafia" if payload.get("outcome") != "mafia" else "civilians"
    return game, {**payload, "version": game.version}


def test_cb_12_a_correction_that_changes_who_goes_on_is_refused_once_with_the_later_games_in_conflict(cup):
    tournament, organizer, document = cup
    game, payload = corrected_first_game(tournament, document)
    with pytest.raises(commands.LaterConflicts) as refused:
        commands.update_game(organizer, game.pk, payload)
    paths = [p.path for p in refused.value.located()]
    assert paths and all(path.startswith("stages[") and not path.startswith("stages[0]") for path in paths)
    game.refresh_from_db()
    assert game.outcome == document["stages"][0]["games"][0]["outcome"], "nothing saved before the confirmation"


def test_cb_12_the_confirmed_correction_is_saved_and_the_dashboard_lists_the_conflicts_in_words(cup):
    tournament, organizer, document = cup
    game, payload = corrected_first_game(tournament, document)
    commands.update_game(organizer, game.pk, payload, accept_conflicts=True)
    game.refresh_from_db()
    assert game.outcome == payload["outcome"]
    assert AuditEntry.objects.filter(tournament=tournament, action=commands.CONFLICTS_ACCEPTED).count() == 1
    with translation.override("en"):
        items = [i for i in attention_items(tournament, timezone.now()) if i.section == "conflicts"]
    assert items and all("/stage-" in item.url and item.url.endswith("/enter/") for item in items)
    assert all("stages[" not in item.text for item in items) and "stage 3, game" in items[0].text


def test_cb_12_the_conflicts_leave_the_dashboard_once_resolved(cup):
    tournament, organizer, document = cup
    game, payload = corrected_first_game(tournament, document)
    commands.update_game(organizer, game.pk, payload, accept_conflicts=True)
    game.refresh_from_db()
    commands.update_game(organizer, game.pk, {**document["stages"][0]["games"][0], "version": game.version})
    assert commands.conflicts_of(tournament) == []
    assert AuditEntry.objects.filter(tournament=tournament, action=commands.CONFLICTS_RESOLVED).count() == 1
    assert commands.conflicts_of(tournament) == [], "recorded: the next look costs nothing"


def test_a_path_is_said_as_the_stage_the_game_the_seat_and_the_player(cup):
    tournament, _organizer, _document = cup
    facts = load_facts(tournament)
    seat = facts.stages[2].games[0].seats[1]
    with translation.override("en"):
        words = path_words("stages[2].games[0].seats[1].team", facts)
    assert words == f"stage 3, game {facts.stages[2].games[0].number}, seat 2 ({seat.player}): team"
    with translation.override("ru"):
        assert "stages[" not in path_words("stages[2].games[0].seats[1].team", facts)
    assert path_words("", facts) == ""


def test_the_history_says_which_later_games_the_confirmed_save_put_in_conflict(cup, client):
    tournament, organizer, document = cup
    game, payload = corrected_first_game(tournament, document)
    commands.update_game(organizer, game.pk, payload, accept_conflicts=True)
    client.force_login(organizer)
    page = client.get(f"/t/{tournament.slug}/history/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "этап 3, игра" in page and "stages[" not in page and "$text" not in page


def test_cb_12_the_result_form_lists_the_later_games_in_words_and_saves_once_confirmed(cup, client):
    from tests.test_entry_forms import game_post

    tournament, organizer, document = cup
    game = Game.objects.get(stage__tournament=tournament, stage__key="stage-1", number=1)
    data = game_post(game, game.version)
    data["outcome"] = "mafia" if game.outcome != "mafia" else "civilians"
    client.force_login(organizer)
    url = f"/t/{tournament.slug}/stage-1/games/1/enter/"
    page = client.post(url, data, HTTP_ACCEPT_LANGUAGE="en")
    text = page.content.decode()
    assert page.status_code == 400 and "in conflict" in text and 'name="accept_conflicts"' in text
    assert "stages[" not in text and "stage 3, game" in text
    saved = client.post(url, {**data, "accept_conflicts": "1"}, HTTP_ACCEPT_LANGUAGE="en")
    assert saved.status_code == 302
    game.refresh_from_db()
    assert game.outcome == data["outcome"]
    dashboard = client.get(f"/accounts/dashboard/{tournament.slug}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Later games in conflict with a corrected result" in dashboard and "stage 3, game" in dashboard
