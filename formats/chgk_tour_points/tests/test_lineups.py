"""Stored ChGK tour line-ups on the captain's page (CHGK-3, CHGK-4)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import Player
from formats.chgk_tour_points import captains
from formats.chgk_tour_points.models import LineUp
from tests.conftest import example
from tests.factories import user_playing_as
from tournaments.importer import import_document
from tournaments.models import Mask, Stage, Team, Tour
from tournaments.synthetic import chgk_season

pytestmark = pytest.mark.django_db

SEVEN = "\n".join(["Rotor captain", "Rotor 2", "Rotor 3", "Rotor 4", "Rotor 5", "Rotor 6", "Rotor 7"])


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture
def rotor(client):
    """Rotor of the seed season, its captain logged in, and a tour 3 to come hosted by Vega."""
    tournament = import_document(example("chgk_tour_points"))
    team = Team.objects.get(tournament=tournament, name="Rotor")
    stage = Stage.objects.get(tournament=tournament, key="season")
    vega = Team.objects.get(tournament=tournament, name="Vega")
    tour = Tour.objects.create(stage=stage, number=3, host=vega, played_on=dt.date(2013, 2, 28))
    client.force_login(user_playing_as(team.captain.nick))
    return team, tour


def manage(client, team, **data):
    return client.post(reverse("team-manage", args=[team.pk]), data)


def store(client, team, text):
    return manage(client, team, action="line_up", **{"line_up-line_up": text})


def test_next_tour_is_the_first_without_results_that_the_team_does_not_host(rotor):
    team, tour = rotor
    assert captains.next_tour(team) == tour
    Tour.objects.create(stage=tour.stage, number=4, host=team)
    tour.host = team
    tour.save()
    assert captains.next_tour(team) is None


def test_a_line_up_keeping_chgk_4_is_stored_for_the_next_tour_and_shown(client, rotor):
    team, tour = rotor
    response = store(client, team, "Rotor captain\nRotor 2\nRotor 3\n\nRotor 4")
    assert response.status_code == 302
    line_up = LineUp.objects.get(tour=tour, team=team)
    assert line_up.segments == [["Rotor captain", "Rotor 2", "Rotor 3"], ["Rotor 4"]]
    assert set(line_up.players.values_list("nick", flat=True)) == {"Rotor captain", "Rotor 2", "Rotor 3",
                                                                  "Rotor 4"}
    assert line_up.submitted_by.player.nick == "Rotor captain"
    page = client.get(reverse("team-manage", args=[team.pk]))
    assert page.context["current_line_up"] == line_up and page.context["next_tour"] == tour
    html = page.content.decode()
    assert "Rotor captain, Rotor 2, Rotor 3" in html and "Europe/Moscow" in html


def test_more_than_six_at_the_table_at_once_is_refused_citing_chgk_4(client, rotor):
    team, tour = rotor
    manage(client, team, action="add", **{"add-names": "Rotor 6\nRotor 7"})
    response = store(client, team, SEVEN)
    assert response.status_code == 400
    assert any("7 players at the table at once; at most 6 (CHGK-4)" in p for p in response.context["problems"])
    assert not LineUp.objects.filter(tour=tour, team=team).exists()


def test_seven_over_a_break_are_stored_chgk_4(client, rotor):
    """The line-up lists everyone who played any part of the tour: more than 6 in all, never at once."""
    team, tour = rotor
    manage(client, team, action="add", **{"add-names": "Rotor 6\nRotor 7"})
    assert store(client, team, "Rotor captain\nRotor 2\nRotor 3\nRotor 4\nRotor 5\n\nRotor 6\nRotor 7"
                 ).status_code == 302
    assert LineUp.objects.get(tour=tour, team=team).players.count() == 7


def test_a_player_not_on_the_roster_is_refused_citing_chgk_4(client, rotor):
    team, tour = rotor
    response = store(client, team, "Rotor captain\nVega 2")
    assert response.status_code == 400
    assert "Vega 2 is not on the team's roster (CHGK-4)" in " ".join(response.context["problems"])
    assert not LineUp.objects.exists()


def test_the_stored_line_up_is_replaced_until_the_tour_has_results_chgk_4(client, rotor):
    team, tour = rotor
    store(client, team, "Rotor captain\nRotor 2")
    assert store(client, team, "Rotor captain\nRotor 3").status_code == 302
    line_up = LineUp.objects.get(tour=tour, team=team)
    assert line_up.segments == [["Rotor captain", "Rotor 3"]]
    Mask.objects.create(tour=tour, team=team, mask="10000000")
    with pytest.raises(captains.RosterRefused) as refused:
        captains.store_line_up(line_up.submitted_by, team, "Rotor captain\nRotor 4")
    assert "CHGK-4" in refused.value.problems[0]
    assert LineUp.objects.get(tour=tour, team=team).segments == [["Rotor captain", "Rotor 3"]]


def test_without_a_tour_to_come_the_line_up_is_only_checked(client, rotor):
    team, tour = rotor
    tour.delete()
    response = store(client, team, "Rotor captain\nRotor 2")
    assert response.status_code == 200 and response.context["line_up_checked"]
    assert not LineUp.objects.exists()


def test_a_player_in_a_stored_line_up_has_played_and_cannot_be_replaced_chgk_3(client, rotor):
    team, _tour = rotor
    manage(client, team, action="add", **{"add-names": "Rookie\nBench"})
    assert captains.roster_state(team).played.isdisjoint({"Rookie", "Bench"})
    store(client, team, "Rotor captain\nRookie")
    assert "Rookie" in captains.roster_state(team).played
    rookie = team.roster.get(player__nick="Rookie")
    refused = manage(client, team, action="replace", **{"replace-old": rookie.pk, "replace-new": "Fresh"})
    assert refused.status_code == 400
    assert any("Rookie has already played a tour and cannot be replaced (CHGK-3)" in p
               for p in refused.context["problems"])
    rookie.refresh_from_db()
    assert rookie.left_at is None and not Player.objects.filter(nick="Fresh").exists()
    bench = team.roster.get(player__nick="Bench")
    assert manage(client, team, action="replace", **{"replace-old": bench.pk,
                                                     "replace-new": "Fresh"}).status_code == 302


def test_stored_line_ups_replace_the_inference_from_results_chgk_3(rotor):
    """Without line-ups every roster player counts as having played the tours with results; with a stored
    line-up for each of them, only the players in it have."""
    team, _tour = rotor
    assert {"Rotor 4", "Rotor 5"} <= captains.roster_state(team).played
    players = list(Player.objects.filter(nick__in=["Rotor captain", "Rotor 2", "Rotor 3"]))
    for tour in Tour.objects.filter(masks__team=team):
        line_up = LineUp.objects.create(tour=tour, team=team, submitted_at=timezone.now(),
                                        segments=[[p.nick for p in players]])
        line_up.players.set(players)
    assert captains.roster_state(team).played == {"Rotor captain", "Rotor 2", "Rotor 3"}


def test_a_tour_with_results_but_no_stored_line_up_is_still_inferred_chgk_3(rotor):
    team, _tour = rotor
    first = Tour.objects.get(stage__tournament=team.tournament, number=1)
    line_up = LineUp.objects.create(tour=first, team=team, submitted_at=timezone.now(),
                                    segments=[["Rotor captain"]])
    line_up.players.set([team.captain])
    assert "Rotor 5" in captains.roster_state(team).played


@pytest.mark.parametrize("teams", [8, 40])
def test_team_page_with_line_ups_queries_do_not_grow_with_the_season(client, teams, django_assert_max_num_queries):
    tournament = import_document(chgk_season(teams=teams, seed=3))
    team = Team.objects.get(tournament=tournament, name="Team01")
    captain = user_playing_as(team.captain.nick)
    names = [e.player.nick for e in team.roster.select_related("player")][:6]
    for tour in Tour.objects.filter(stage__tournament=tournament).exclude(host=team):
        line_up = LineUp.objects.create(tour=tour, team=team, submitted_at=timezone.now(), segments=[names])
        line_up.players.set(Player.objects.filter(nick__in=names))
    client.force_login(captain)
    with django_assert_max_num_queries(12):
        page = client.get(reverse("team-manage", args=[team.pk]))
    assert page.status_code == 200 and len(page.context["line_ups"]) == teams - 1
