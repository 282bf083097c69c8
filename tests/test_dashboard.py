"""The organizer's dashboard: exactly what needs attention, each item linking to where it is fixed."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import Blacklist, Player, Role
from portal.dashboard import attention_items
from scoring.models import StandingsSnapshot
from tests.conftest import example
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tournaments.importer import import_document
from tournaments.models import Appeal, Game, GameStatus, Participant, Question, Stage, Team, Tour
from tournaments.synthetic import chgk_season, mafia_league

pytestmark = pytest.mark.django_db
MSK = zoneinfo.ZoneInfo("Europe/Moscow")


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """Tests hash passwords with a cheap hasher; the real one is PBKDF2 with many iterations."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def keys(tournament, now=None) -> list[str]:
    return [item.key for item in attention_items(tournament, now or timezone.now())]


def pending_appeal(tournament, tour_number: int, question: int, team: str) -> Appeal:
    tour = Tour.objects.get(stage__tournament=tournament, number=tour_number)
    return Appeal.objects.create(tournament=tournament, order=10 + question, kind="removal", stage=tour.stage,
                                 tour=tour, question=question, team=Team.objects.get(tournament=tournament, name=team),
                                 filed_at=dt.datetime.combine(tour.played_on, dt.time(12), tzinfo=MSK))


def complete_pack(tour: Tour) -> None:
    Question.objects.bulk_create([Question(tour=tour, number=n, text=f"Q{n}", answer=f"A{n}", authors="Author",
                                           sources="Source") for n in range(1, tour.questions + 1)])


@pytest.fixture
def chgk():
    """Tour 1 done in every respect; tour 2 without its pack and with an appeal waiting for the jury."""
    tournament = import_document(example("chgk_tour_points"))
    complete_pack(Tour.objects.get(stage__tournament=tournament, number=1))
    appeal = pending_appeal(tournament, 2, 3, "Rotor")
    return tournament, appeal


def test_chgk_dashboard_lists_the_pending_appeal_and_the_overdue_checklist_items_of_tour_2(chgk):
    tournament, appeal = chgk
    items = attention_items(tournament, timezone.now())
    assert [i.key for i in items] == [
        f"appeal:{appeal.pk}",
        "checklist:2:final_pack", "checklist:2:questions_published", "checklist:2:verdicts",
    ]
    appeal_item = items[0]
    assert appeal_item.due == dt.datetime(2013, 3, 2, 23, 59, 59, tzinfo=MSK) and appeal_item.overdue
    assert appeal_item.rule == "CHGK-18" and appeal_item.url == reverse("appeal-verdict", args=[appeal.pk])
    assert items[1].url == reverse("chgk-checklists", args=[tournament.slug])  # the portal's page
    assert items[1].rule == "CHGK-11" and items[3].rule == "CHGK-18"


def test_chgk_checklist_items_not_yet_due_are_not_listed(chgk):
    tournament, appeal = chgk
    tour_2_day = dt.datetime(2013, 2, 21, 22, 0, tzinfo=MSK)
    assert keys(tournament, tour_2_day) == [f"appeal:{appeal.pk}"]
    after_d1 = dt.datetime(2013, 2, 23, 0, 0, 1, tzinfo=MSK)
    assert keys(tournament, after_d1) == [f"appeal:{appeal.pk}", "checklist:2:final_pack",
                                          "checklist:2:questions_published"]


def test_a_finished_chgk_season_has_no_checklist_items(chgk):
    tournament, appeal = chgk
    tournament.status = "finished"
    tournament.save()
    assert keys(tournament) == [f"appeal:{appeal.pk}"]


def test_gp_dashboard_lists_the_tie_left_to_the_committee_and_the_prizes_to_pay(django_capture_on_commit_callbacks):
    document = example("elimination_gp")
    document["tournament"]["settings"]["stage_prizes"] = {"qualifying-1": [{"place": 1, "amount": 100},
                                                                           {"place": 2, "amount": 50}]}
    with django_capture_on_commit_callbacks(execute=True):
        tournament = import_document(document)
    items = attention_items(tournament, timezone.now())
    assert [i.key for i in items] == ["vacancy:qualifying-1:GP-17", "prize:qualifying-1:1:GP07-p5",
                                      "prize:qualifying-1:2:GP07-p3"]
    assert items[0].rule == "GP-17, GP-18" and "GP01-p5, GP02-p2, GP09-p4" in items[0].text
    # GP-18: the stage's committee page, not the admin's list of every player
    assert items[0].url == reverse("gp-committee", args=[tournament.slug, "qualifying-1"]) + "#qualify"
    assert items[1].rule == "GP-22a" and "100" in items[1].text


def test_family_league_dashboard_lists_the_late_game_eligibility_problems_and_the_open_cut_tie():
    tournament = import_document(example("family_league"))
    game = Game.objects.get(stage__tournament=tournament, number=6)
    game.status, game.outcome = GameStatus.SCHEDULED, None
    game.scheduled_at = timezone.now() - dt.timedelta(hours=3)
    game.save()
    Participant.objects.filter(tournament=tournament, player__nick="Fam02-p1").update(banned=True)
    Blacklist.objects.create(owner=Player.objects.get(nick="Fam01-p1"), blocked=Player.objects.get(nick="Fam03-p2"))
    Blacklist.objects.create(owner=Player.objects.get(nick="Fam04-p1"), blocked=Player.objects.create(nick="Outsider"))
    StandingsSnapshot.objects.update_or_create(tournament=tournament, stage_key="qualifying", defaults={
        "facts_version": tournament.facts_version, "computed_at": timezone.now(),
        "export": {"stage": "qualifying", "final": False, "teams": [], "awards": []},
        "details": {"teams": [], "players": [], "notes": [
            "group A: Fam01, Fam02 are tied at the cut; the curator decides (FL-11)"],
            "details": {"cut_ties": [{"group": "A", "rank": 5, "teams": ["Fam01", "Fam02"], "settled": False},
                                     {"group": "B", "rank": 5, "teams": ["Fam05", "Fam06"], "settled": False}],
                        "advance_per_group": 5}}})
    items = attention_items(tournament, timezone.now())
    assert [i.key for i in items] == [
        "game:final:6",
        "eligibility:Fam01:Fam01-p1:blacklist", "eligibility:Fam02:Fam02-p1:banned",
        "eligibility:Fam03:Fam03-p2:blacklist",
        "tie:qualifying:A",
    ]
    assert items[0].url == reverse("game-entry", args=[tournament.slug, "final", game.number])  # the entry form, not the admin
    assert items[1].url == reverse("team", args=[tournament.slug,
                                                 Team.objects.get(tournament=tournament, name="Fam01").pk])
    assert items[-1].rule == "FL-11"


def test_class_balanced_dashboard_lists_the_stage_whose_schedule_is_not_published():
    tournament = import_document(example("class_balanced"))
    assert keys(tournament) == [], "an imported stage counts as published (CB-2)"
    Stage.objects.filter(tournament=tournament).update(published_at=None)
    Game.objects.filter(stage__tournament=tournament, number=14).update(
        status=GameStatus.SCHEDULED, outcome=None, scheduled_at=timezone.now() + dt.timedelta(days=3))
    assert keys(tournament) == ["schedule:stage-1"]
    Stage.objects.filter(tournament=tournament).update(published_at=timezone.now())
    assert keys(tournament) == []


@pytest.mark.parametrize(("role", "allowed"), [
    (Role.ORGANIZER, True), (Role.CURATOR, True), (Role.JUDGE, True), (Role.JURY, False), (Role.PLAYER, False),
])
def test_only_organizers_curators_and_judges_see_the_dashboard(client, chgk, role, allowed):
    tournament, _appeal = chgk
    user = UserFactory()
    RoleFactory(user=user, tournament=tournament, role=role)
    client.force_login(user)
    assert client.get(reverse("dashboard", args=[tournament.slug])).status_code == (200 if allowed else 403)


def test_staff_see_every_dashboard_and_anonymous_users_are_sent_to_log_in(client, chgk):
    tournament, _appeal = chgk
    url = reverse("dashboard", args=[tournament.slug])
    assert client.get(url).status_code == 302
    client.force_login(UserFactory(is_staff=True))
    assert client.get(url).status_code == 200
    client.force_login(user_playing_as("Rotor captain"))
    assert client.get(url).status_code == 403


def test_dashboard_page_links_every_item_to_where_it_is_fixed(client, chgk):
    tournament, appeal = chgk
    organizer = UserFactory()
    RoleFactory(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    client.force_login(organizer)
    content = client.get(reverse("dashboard", args=[tournament.slug])).content.decode()
    assert f'href="{reverse("appeal-verdict", args=[appeal.pk])}"' in content
    assert f'href="{reverse("chgk-checklists", args=[tournament.slug])}"' in content
    assert "Europe/Moscow" in content and 'data-key="checklist:2:verdicts"' in content
    assert client.get(reverse("dashboards")).context["tournaments"] == [tournament]


@pytest.mark.parametrize("teams", [8, 40])
def test_chgk_dashboard_queries_do_not_grow_with_the_season(client, teams, django_assert_max_num_queries):
    tournament = import_document(chgk_season(teams=teams, seed=5))
    for number in (1, 2, 3):
        host = Tour.objects.get(stage__tournament=tournament, number=number).host
        playing = Team.objects.filter(tournament=tournament).exclude(pk=host.pk).first()
        pending_appeal(tournament, number, 2, playing.name)
    client.force_login(UserFactory(is_staff=True))
    with django_assert_max_num_queries(33):  # 30, the next steps (the next tour to enter, the appeals count) and
        # the setting-up steps' one query
        response = client.get(reverse("dashboard", args=[tournament.slug]))
    assert len([i for s in response.context["sections"] for i in s["items"] if i.section == "appeals"]) == 3


@pytest.mark.parametrize("games", [10, 400])
def test_family_league_dashboard_queries_do_not_grow_with_the_league(client, games, django_assert_max_num_queries):
    tournament = import_document(mafia_league(games=games, teams=9, seed=6))
    Game.objects.filter(stage__tournament=tournament, number__gt=games - 3).update(
        status=GameStatus.SCHEDULED, outcome=None, scheduled_at=timezone.now() - dt.timedelta(hours=1))
    Participant.objects.filter(tournament=tournament, player__nick="Fam01-p1").update(banned=True)
    client.force_login(UserFactory(is_staff=True))
    with django_assert_max_num_queries(21):  # with the setting-up steps' one query
        response = client.get(reverse("dashboard", args=[tournament.slug]))
    assert response.context["total"] == 4


def test_gp_22a_dashboard_lists_prizes_until_the_committee_marks_them_paid():
    from scoring.prizes import mark_paid
    from scoring.services import recompute

    document = example("elimination_gp")
    document["tournament"]["settings"]["stage_prizes"] = {"qualifying-1": [{"place": 1, "amount": 100}]}
    tournament = import_document(document)
    recompute(tournament.pk, force=True)
    prizes = [k for k in keys(tournament) if k.startswith("prize:")]
    assert prizes == ["prize:qualifying-1:1:GP07-p5"]
    committee = UserFactory()
    RoleFactory(user=committee, tournament=tournament, role=Role.CURATOR)
    mark_paid(tournament, "qualifying-1", 1, "GP07", "GP07-p5", user=committee)
    assert [k for k in keys(tournament) if k.startswith("prize:")] == []


def test_the_dashboard_says_what_to_do_next_with_the_page_that_does_it(client):
    """The next game to enter (a link to its result form), the appeals waiting, and only the sections that hold
    something; the quiet ones are named on one line."""
    tournament = import_document(mafia_league(games=10, teams=9, seed=6))
    game = Game.objects.filter(stage__tournament=tournament).order_by("number").last()
    Game.objects.filter(pk=game.pk).update(status=GameStatus.SCHEDULED, outcome=None)
    client.force_login(UserFactory(is_staff=True))
    response = client.get(reverse("dashboard", args=[tournament.slug]), HTTP_ACCEPT_LANGUAGE="en")
    page = response.content.decode()
    entry = reverse("game-entry", args=[tournament.slug, game.stage.key, game.number])
    assert "What to do next" in page and f'href="{entry}"' in page
    assert f"Enter the result of game {game.number}" in page
    assert "Nothing here." not in page and "Nothing waits in:" in page


def test_gp_2_a_stage_not_played_yet_asks_to_open_its_registration():
    from formats.elimination_gp.home import next_steps as gp_next_steps
    from tests.conftest import example

    document = example("elimination_gp")
    document["stages"][0]["games"] = []
    tournament = import_document(document)
    steps = gp_next_steps(tournament, timezone.now())
    stage = tournament.stages.get()
    assert [s.url for s in steps] == [reverse("gp-registration", args=[tournament.slug, stage.key])]
    assert steps[0].rule == "GP-2"
