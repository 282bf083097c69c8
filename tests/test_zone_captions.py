"""A schedule of games played in 2014 names the zone's offset then (Moscow: UTC+04:00), as its
game pages do, not today's UTC+03:00."""

from __future__ import annotations

import datetime as dt

import pytest
from django.template.loader import render_to_string
from django.utils import translation

from accounts.models import Player
from accounts.zones import zones_caption
from tests.conftest import example
from tournaments.importer import import_document
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db


def test_the_schedule_names_the_offset_of_its_games_dates(client):
    tournament = import_document(example("family_league"))  # games of September 2014, Moscow at UTC+04:00
    page = client.get(f"/t/{tournament.slug}/schedule/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "UTC+04:00" in page and "UTC+03:00" not in page
    game = client.get(f"/t/{tournament.slug}/final/games/1/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "UTC+04:00" in game


def test_a_page_spanning_two_offsets_names_both():
    moments = [dt.datetime(2014, 9, 1, 15, tzinfo=dt.UTC), dt.datetime(2014, 11, 1, 15, tzinfo=dt.UTC)]
    assert zones_caption("Europe/Moscow", moments) == "Europe/Moscow (MSK, UTC+04:00); Europe/Moscow (MSK, UTC+03:00)"
    assert zones_caption("Europe/Moscow", [None]).endswith("UTC+03:00)")


def test_a_players_figures_of_several_stages_are_labelled_by_stage(rf):
    """Two tables of one tournament on a player's page: each place, points and games names its stage."""
    tournament = Tournament.objects.create(slug="fl-x", name="FL", ruleset="family_league")
    item = {"tournament": tournament, "teams": [], "awards": [],
            "rows": [{"stage": "qualifying", "rank": 3, "points": 5.5, "games": 10, "status_label": ""},
                     {"stage": "final", "rank": 1, "points": 8.0, "games": 12, "status_label": ""}]}
    with translation.override("en"):
        page = render_to_string("tournaments/player.html", {
            "player": Player(nick="Lynx"), "awards": [], "tournaments": [item], "seats": None}, request=rf.get("/"))
    assert page.count('<span class="value-label">qualifying stage:</span>') == 3
    assert page.count('<span class="value-label">final:</span>') == 3
