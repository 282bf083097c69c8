"""A ChGK captain applies to a season from its page; the organizers admit or refuse with a reason.

The checks are those of ``formats.chgk_tour_points.services.file_application`` (CHGK-1, CHGK-2) plus the
deadline of a captain's own application; admission keeps the queue's order and limit (CHGK-5). Assertions
look for rule codes, names and the reason typed, so they hold whether the page speaks Russian or English.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Player, Role
from formats.chgk_tour_points import services
from formats.chgk_tour_points.models import ApplicationStatus, ChgkApplication
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tournaments.importer import import_document
from tournaments.models import AuditEntry, RosterEntry, Team, Tournament, TournamentStatus
from tournaments.synthetic import chgk_season

pytestmark = pytest.mark.django_db

CAPTAIN = "Иван Иванов"
OTHERS = "Пётр Петров\nАнна Смирнова\nОлег Орлов"
PAGE_QUERIES = 12


def open_season(teams: int = 2, slug: str | None = None, **fields) -> Tournament:
    """A season taking registrations until three days from now."""
    tournament = import_document(chgk_season(teams=teams, tours=0, slug=slug))
    values = {"status": TournamentStatus.REGISTRATION, "registration_deadline": timezone.now() + dt.timedelta(days=3)}
    values.update(fields)
    Tournament.objects.filter(pk=tournament.pk).update(**values)
    return Tournament.objects.get(pk=tournament.pk)


def url(tournament: Tournament) -> str:
    return reverse("chgk-applications", args=[tournament.slug])


def signed_in(client, user):
    client.force_login(user)
    return client


def organizer(tournament: Tournament):
    user = UserFactory()
    RoleFactory(user=user, tournament=tournament, role=Role.ORGANIZER)
    return user


def apply(client, tournament: Tournament, **fields):
    data = {"action": "captain_apply", "team_name": "Знатоки", "players": OTHERS, "league": "first",
            "home_university": "1"}
    data.update(fields)
    return client.post(url(tournament), data)


def captain_application(tournament: Tournament, nick: str = CAPTAIN, team: str = "Знатоки",
                        others: tuple[str, ...] = ("Пётр Петров", "Анна Смирнова", "Олег Орлов"),
                        **fields) -> ChgkApplication:
    return services.apply_as_captain(user_playing_as(nick), tournament, team_name=team, players=list(others),
                                     home_university=fields.pop("home_university", False),
                                     league=fields.pop("league", "none"), **fields)


# --------------------------------------------------------------------------- applying (CHGK-1)


def test_chgk_1_captain_applies_from_the_page_and_is_captain_of_the_pending_team(client):
    tournament = open_season()
    user = user_playing_as(CAPTAIN)
    client = signed_in(client, user)
    page = client.get(url(tournament)).content.decode()
    assert 'id="apply"' in page and 'value="captain_apply"' in page
    response = apply(client, tournament)
    assert response.status_code == 302
    application = ChgkApplication.objects.get(tournament=tournament, team_name="Знатоки")
    player = Player.objects.get(nick=CAPTAIN)
    assert (application.status, application.captain_player, application.captain, application.filed_by) == (
        ApplicationStatus.PENDING, player, CAPTAIN, user)
    assert application.players == [CAPTAIN, "Пётр Петров", "Анна Смирнова", "Олег Орлов"]
    assert application.team is None
    mine = client.get(url(tournament)).content.decode()
    assert 'id="mine"' in mine and 'data-status="pending"' in mine
    entry = AuditEntry.objects.get(tournament=tournament, action=services.APPLY_ACTION)
    assert (entry.user, entry.object_id, entry.after["status"]) == (user, str(application.pk), "pending")


def test_captain_application_the_season_home_links_to_the_captains_application_while_registration_is_open(client):
    tournament = open_season()
    home = reverse("tournament", args=[tournament.slug])
    assert f'{url(tournament)}#apply' in client.get(home).content.decode()
    Tournament.objects.filter(pk=tournament.pk).update(registration_deadline=timezone.now() - dt.timedelta(hours=1))
    assert f'{url(tournament)}#apply' not in client.get(home).content.decode()


def test_chgk1_a_captains_application_after_the_registration_deadline_is_refused(client):
    tournament = open_season(registration_deadline=timezone.now() - dt.timedelta(minutes=1))
    response = apply(signed_in(client, user_playing_as(CAPTAIN)), tournament)
    assert response.status_code == 400
    assert "CHGK-1" in response.content.decode()
    assert not ChgkApplication.objects.filter(tournament=tournament).exists()


def test_chgk1_a_captain_cannot_apply_while_the_season_takes_no_registrations(client):
    tournament = open_season(status=TournamentStatus.RUNNING)
    response = apply(signed_in(client, user_playing_as(CAPTAIN)), tournament)
    assert response.status_code == 400
    assert not ChgkApplication.objects.filter(tournament=tournament).exists()


def test_chgk1_a_second_application_of_the_same_team_name_is_refused(client):
    tournament = open_season()
    captain_application(tournament, nick="Мария Котова", others=("М2", "М3", "М4"))
    response = apply(signed_in(client, user_playing_as(CAPTAIN)), tournament)
    assert response.status_code == 400
    page = response.content.decode()
    assert "Знатоки" in page and "CHGK-1" in page
    assert ChgkApplication.objects.filter(tournament=tournament).count() == 1


def test_chgk1_a_player_already_on_another_team_of_the_season_is_refused(client):
    tournament = open_season()
    rostered = RosterEntry.objects.filter(team__tournament=tournament).select_related("player", "team").first()
    response = apply(signed_in(client, user_playing_as(CAPTAIN)), tournament,
                     players=f"{OTHERS}\n{rostered.player.nick}")
    assert response.status_code == 400
    page = response.content.decode()
    assert rostered.player.nick in page and rostered.team.name in page
    assert not ChgkApplication.objects.filter(tournament=tournament).exists()


def test_chgk1_a_player_in_another_pending_application_is_refused_and_so_is_a_captain_of_one():
    tournament = open_season()
    captain_application(tournament, team="Первые")
    with pytest.raises(services.Refused) as refused:
        captain_application(tournament, nick="Мария Котова", team="Вторые", others=("Пётр Петров", "М3", "М4"))
    assert "Пётр Петров" in str(refused.value) and "Первые" in str(refused.value) and "CHGK-1" in str(refused.value)
    with pytest.raises(services.Refused):
        captain_application(tournament, team="Третьи", others=("Т2", "Т3", "Т4"))
    assert list(ChgkApplication.objects.filter(tournament=tournament).values_list("team_name", flat=True)) == [
        "Первые"]


def test_chgk1_a_user_without_a_confirmed_player_gets_a_403_page_and_files_nothing(client):
    tournament = open_season()
    user = UserFactory()
    Player.objects.create(nick=CAPTAIN, user=user, claim_confirmed=False)
    response = apply(signed_in(client, user), tournament)
    assert response.status_code == 403
    assert "CHGK-1" in response.content.decode()
    assert not ChgkApplication.objects.exists()


def test_chgk1_an_anonymous_application_is_sent_to_sign_in(client):
    tournament = open_season()
    response = apply(client, tournament)
    assert response.status_code == 302 and reverse("login") in response["Location"]
    assert not ChgkApplication.objects.exists()


# --------------------------------------------------------------------------- deciding (CHGK-5)


def test_chgk_5_organizer_refuses_with_a_required_reason_and_the_captain_sees_it(client):
    tournament = open_season()
    application = captain_application(tournament)
    boss = organizer(tournament)
    client = signed_in(client, boss)
    data = {"action": "refuse", "application": application.pk, "reason": "  "}
    assert client.post(url(tournament), data).status_code == 400
    application.refresh_from_db()
    assert application.status == ApplicationStatus.PENDING
    reason = "Состав заявлен с игроком другого города"
    assert client.post(url(tournament), {**data, "reason": reason}).status_code == 302
    application.refresh_from_db()
    assert (application.status, application.refusal_reason, application.decided_by) == (
        ApplicationStatus.REFUSED, reason, boss)
    assert [row.application.pk for row in services.queue(tournament, None)] == [], "a refused team is not queued"
    entry = AuditEntry.objects.get(tournament=tournament, action=services.REFUSE_ACTION)
    assert (entry.user, entry.before["status"], entry.after["refusal_reason"]) == (boss, "pending", reason)
    history = client.get(reverse("history", args=[tournament.slug])).content.decode()
    assert services.REFUSE_ACTION in history and reason in history
    captain = signed_in(client, application.filed_by)
    page = captain.get(url(tournament)).content.decode()
    assert 'data-status="refused"' in page and reason in page
    assert captain.post(url(tournament), {**data, "reason": "again"}).status_code == 403


def test_chgk5_refusing_an_application_twice_is_a_conflict(client):
    tournament = open_season()
    application = captain_application(tournament)
    boss = organizer(tournament)
    services.refuse_application(boss, tournament, application.pk, "Поздно")
    with pytest.raises(services.ApplicationDecided):
        services.refuse_application(boss, tournament, application.pk, "Ещё раз")
    with pytest.raises(services.ApplicationDecided):
        services.admit_application(boss, tournament, application.pk)


def test_chgk5_an_individual_admit_keeps_the_queues_order_and_limit(client):
    tournament = open_season()
    later = captain_application(tournament, team="Поздние", now=timezone.now())
    first = captain_application(tournament, nick="Мария Котова", team="Первые", others=("М2", "М3", "М4"),
                                home_university=True)
    client = signed_in(client, organizer(tournament))
    response = client.post(url(tournament), {"action": "admit_one", "application": later.pk, "limit": "1"})
    assert response.status_code == 400
    assert "CHGK-5" in response.content.decode()
    assert not Team.objects.filter(tournament=tournament, name="Поздние").exists()
    assert client.post(url(tournament), {"action": "admit_one", "application": first.pk, "limit": "1"}).status_code == 302
    team = Team.objects.get(tournament=tournament, name="Первые")
    assert team.captain == Player.objects.get(nick="Мария Котова")
    assert list(RosterEntry.objects.filter(team=team).values_list("player__nick", flat=True)) == [
        "Мария Котова", "М2", "М3", "М4"]
    first.refresh_from_db()
    assert (first.status, first.team) == (ApplicationStatus.ADMITTED, team)
    entry = AuditEntry.objects.get(tournament=tournament, action=services.ADMIT_ACTION)
    assert (entry.object_id, entry.after["status"], entry.after["team"]) == (str(first.pk), "admitted", team.pk)
    assert client.post(url(tournament), {"action": "admit_one", "application": later.pk, "limit": "2"}).status_code == 302
    assert Team.objects.get(tournament=tournament, name="Поздние").captain.nick == CAPTAIN


def test_chgk5_admitting_the_queue_makes_the_applying_player_the_captain(client):
    tournament = open_season()
    captain_application(tournament)
    client = signed_in(client, organizer(tournament))
    client.post(url(tournament), {"action": "admit"})
    team = Team.objects.get(tournament=tournament, name="Знатоки")
    assert team.captain.nick == CAPTAIN and team.captain.user is not None
    assert AuditEntry.objects.filter(tournament=tournament, action=services.ADMIT_ACTION).count() == 1


def test_chgk5_a_non_organizer_cannot_admit_or_refuse_and_gets_the_rule_on_a_403_page(client):
    tournament = open_season()
    application = captain_application(tournament)
    client = signed_in(client, application.filed_by)
    for data in ({"action": "admit_one", "application": application.pk},
                 {"action": "refuse", "application": application.pk, "reason": "нет"},
                 {"action": "admit"}):
        response = client.post(url(tournament), data)
        assert response.status_code == 403
        assert "CHGK-5" in response.content.decode()
    application.refresh_from_db()
    assert application.status == ApplicationStatus.PENDING
    assert not Team.objects.filter(tournament=tournament, name="Знатоки").exists()


# --------------------------------------------------------------------------- the API


def test_captain_application_api_captain_applies_and_the_organizer_decides():
    tournament = open_season()
    api = APIClient()
    api.force_login(user_playing_as(CAPTAIN))
    base = f"/api/v1/tournaments/{tournament.slug}/applications/"
    created = api.post(base, {"team_name": "Знатоки", "players": ["Пётр Петров", "Анна Смирнова", "Олег Орлов"],
                              "league": "first"}, format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert (body["status"], body["captain_player"], body["players"][0]) == ("pending", CAPTAIN, CAPTAIN)
    again = api.post(base, {"team_name": "Знатоки", "players": ["А", "Б", "В"]}, format="json")
    assert again.status_code == 400 and "CHGK-1" in again.content.decode()
    decision = f"{base}{body['id']}/decision/"
    forbidden = api.post(decision, {"decision": "refuse", "reason": "нет"}, format="json")
    assert forbidden.status_code == 403 and "CHGK-5" in forbidden.json()["detail"]
    boss = APIClient()
    boss.force_login(organizer(tournament))
    assert boss.post(decision, {"decision": "refuse"}, format="json").status_code == 400
    refused = boss.post(decision, {"decision": "refuse", "reason": "Нет места"}, format="json")
    assert refused.status_code == 200
    assert (refused.json()["status"], refused.json()["refusal_reason"]) == ("refused", "Нет места")
    assert boss.post(decision, {"decision": "admit"}, format="json").status_code == 409
    assert APIClient().post(base, {"team_name": "Т"}, format="json").status_code in (401, 403)


def test_captain_application_api_admit_creates_the_team_and_a_user_without_a_player_is_refused_403():
    tournament = open_season()
    application = captain_application(tournament)
    boss = APIClient()
    boss.force_login(organizer(tournament))
    base = f"/api/v1/tournaments/{tournament.slug}/applications/"
    admitted = boss.post(f"{base}{application.pk}/decision/", {"decision": "admit", "limit": 4}, format="json")
    assert admitted.status_code == 200, admitted.content
    assert admitted.json()["status"] == "admitted" and admitted.json()["team"] is not None
    stranger = APIClient()
    stranger.force_login(UserFactory())
    refused = stranger.post(base, {"team_name": "Новые", "players": ["А", "Б", "В"]}, format="json")
    assert refused.status_code == 403 and "CHGK-1" in refused.json()["detail"]


# --------------------------------------------------------------------------- bounded queries


@pytest.mark.parametrize("applications", [3, 20])
def test_captain_application_the_applications_page_runs_a_bounded_number_of_queries(client, django_assert_max_num_queries,
                                                                          applications):
    tournament = open_season(slug=f"chgk-apply-{applications}")
    for n in range(applications):
        application = captain_application(tournament, nick=f"Капитан {n}", team=f"Команда {n}",
                                          others=tuple(f"Игрок {n}-{k}" for k in range(3)))
        if n % 3 == 1:
            services.refuse_application(UserFactory(is_staff=True), tournament, application.pk, f"Причина {n}")
    readers = [organizer(tournament), ChgkApplication.objects.filter(tournament=tournament).first().filed_by, None]
    for reader in readers:
        client.logout()
        if reader is not None:
            client.force_login(reader)
        with django_assert_max_num_queries(PAGE_QUERIES):
            assert client.get(url(tournament) + "?limit=5").status_code == 200
