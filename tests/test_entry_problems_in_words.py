"""The game form reports every seat's problem at once, in words, not in field ids."""

from __future__ import annotations

import copy
import re

import pytest
from django.test import Client

from accounts.models import Role, TournamentRole
from rulesets.errors import Invalid
from tests.conftest import example
from tests.factories import UserFactory
from tests.test_entry_forms import game_post, game_url
from tournaments import commands
from tournaments.importer import import_document
from tournaments.models import Game

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(("language", "days_played", "game_days"), [
    ("en", "days played", "game days"), ("ru", "сыграно дней", "игровые дни")])
def test_every_seats_problem_at_once_in_words(language, days_played, game_days):
    tournament = import_document(example("family_league"))
    organizer = UserFactory()
    TournamentRole.objects.create(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    game = Game.objects.select_related("stage__tournament").get(stage__tournament=tournament, number=1)
    data = game_post(game, game.version)
    data["seat-0-days_played"] = "9"
    data["seat-2-role"] = "sheriff"
    data["seat-4-days_played"] = "8"
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.force_login(organizer)
    response = client.post(game_url(game), data)
    page = response.content.decode()
    assert response.status_code == 400
    rows = {row: page.count(f'id="seat-problems-{row}"') for row in (0, 2, 4)}
    assert rows == {0: 1, 2: 1, 4: 1}, "all three seats' problems in one answer"
    assert days_played in page and game_days in page
    problems = re.findall(r'<tr class="row-problems".*?</tr>', page, flags=re.S)
    assert len(problems) >= 3 and not any("days_played" in row or "game_days" in row for row in problems)


def test_the_readings_and_the_rulesets_problems_come_together():
    """A days_played the reading refuses and a stat sum the family league refuses (glossary: 150..450) are
    reported by one save, not one after the other."""
    tournament = import_document(example("family_league"))
    organizer = UserFactory()
    TournamentRole.objects.create(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    game = Game.objects.get(stage__tournament=tournament, number=1)
    payload = copy.deepcopy(example("family_league")["stages"][0]["games"][0])
    payload["seats"][0]["days_played"] = 9
    payload["seats"][3]["stats"] = 999
    with pytest.raises(Invalid) as refused:
        commands.update_game(organizer, game.pk, {"tournament": tournament.slug, "stage": "final",
                                                   "version": game.version, **payload})
    paths = {p.path for p in refused.value.problems}
    assert {"seats[0].days_played", "seats[3].stats"} <= paths
