"""ChGK season setup pages: applications and admission (CHGK-1, CHGK-5), the hosting draw (CHGK-7),
a tour's pack (CHGK-8, CHGK-9) and the checklists (CHGK-11)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import Player, Role
from formats.chgk_tour_points import services
from formats.chgk_tour_points.models import ChgkApplication, ChgkChecklistDone, ChgkHostingWish
from rulesets.chgk_tour_points.season import HostingWish, draw_hosting_order
from tests.factories import RoleFactory, UserFactory
from tournaments.importer import import_document
from tournaments.models import Question, RosterEntry, Stage, Team, Tour, Tournament
from tournaments.synthetic import chgk_season

pytestmark = pytest.mark.django_db

PAGE_QUERIES = 14


def season(teams: int = 8, tours: int | None = 0, slug: str | None = None) -> Tournament:
    return import_document(chgk_season(teams=teams, tours=tours, slug=slug))


def organizer_client(client, tournament: Tournament):
    user = UserFactory()
    RoleFactory(user=user, tournament=tournament, role=Role.ORGANIZER)
    client.force_login(user)
    return client


def application(client, tournament: Tournament, **fields):
    data = {"team_name": "Знатоки", "captain": "Иван Иванов", "players": "Пётр Петров\nАнна Смирнова\nОлег Орлов",
            "league": "first", "played_tournaments": "ЧГК-2012", "action": "apply"}
    data.update(fields)
    return client.post(reverse("chgk-applications", args=[tournament.slug]), data)


# --------------------------------------------------------------------------- CHGK-1, CHGK-5


def test_chgk1_application_with_all_fields_is_recorded(client):
    tournament = season(teams=2)
    response = application(organizer_client(client, tournament), tournament, home_university="1")
    assert response.status_code == 302
    app = ChgkApplication.objects.get(tournament=tournament)
    assert app.players == ["Иван Иванов", "Пётр Петров", "Анна Смирнова", "Олег Орлов"]
    assert (app.captain, app.league, app.home_university, app.played_tournaments) == (
        "Иван Иванов", "first", True, "ЧГК-2012")


def test_chgk1_application_with_three_players_is_refused_citing_the_rule(client):
    tournament = season(teams=2)
    response = application(organizer_client(client, tournament), tournament, players="Пётр Петров\nАнна Смирнова")
    assert response.status_code == 400
    assert "CHGK-2" in response.content.decode()
    assert not ChgkApplication.objects.exists()


def test_chgk1_only_organizers_record_applications(client):
    tournament = season(teams=2)
    client.force_login(UserFactory())
    application(client, tournament)
    assert not ChgkApplication.objects.exists()


def test_chgk5_queue_puts_on_time_host_university_team_first_and_admission_creates_teams(client):
    tournament = season(teams=2)
    deadline = timezone.now() - dt.timedelta(days=1)
    tournament.registration_deadline = deadline
    tournament.save()
    players = ["A1", "A2", "A3", "A4"]
    services.file_application(tournament, team_name="Early", captain="E1", players=["E1", "E2", "E3", "E4"],
                              home_university=False, league="none", filed_at=deadline - dt.timedelta(days=5))
    services.file_application(tournament, team_name="LateHome", captain="L1", players=["L1", "L2", "L3", "L4"],
                              home_university=True, league="none", filed_at=deadline + dt.timedelta(hours=1))
    services.file_application(tournament, team_name="Home", captain="A1", players=players,
                              home_university=True, league="second", filed_at=deadline - dt.timedelta(days=1))
    assert [row.entry.team for row in services.queue(tournament, 2)] == ["Home", "Early", "LateHome"]
    client = organizer_client(client, tournament)
    response = client.get(reverse("chgk-applications", args=[tournament.slug]) + "?limit=2")
    page = response.content.decode()
    assert page.index("Home") < page.index("Early") < page.index("LateHome")
    client.post(reverse("chgk-applications", args=[tournament.slug]), {"action": "admit", "limit": "2"})
    home = Team.objects.get(tournament=tournament, name="Home")
    assert (home.league, home.home_university, home.captain.nick) == ("second", True, "A1")
    assert list(RosterEntry.objects.filter(team=home).values_list("player__nick", flat=True)) == players
    assert Team.objects.filter(tournament=tournament, name="Early").exists()
    assert not Team.objects.filter(tournament=tournament, name="LateHome").exists()
    assert Player.objects.filter(nick="E4").exists()


# --------------------------------------------------------------------------- CHGK-7


def test_chgk7_draw_is_reproducible_from_the_stored_seed_and_respects_an_impossible_date(client):
    tournament = season(teams=6)
    teams = list(Team.objects.filter(tournament=tournament).order_by("name"))
    dates = [dt.date(2027, 2, 7) + dt.timedelta(days=7 * k) for k in range(6)]
    client = organizer_client(client, tournament)
    url = reverse("chgk-hosting", args=[tournament.slug])
    client.post(url, {"action": "wish", "team": teams[0].pk, "prefers": "", "cannot": "1 2027-02-14"})
    assert ChgkHostingWish.objects.get(team=teams[0]).cannot == [1, "2027-02-14"]
    dates_text = "\n".join(d.isoformat() for d in dates)
    client.post(url, {"action": "draw", "seed": "public-42", "dates": dates_text})
    stage = Stage.objects.get(tournament=tournament, key="season")
    assert stage.seed == "public-42"
    tours = list(Tour.objects.filter(stage=stage).order_by("number"))
    order = [t.host.name for t in tours]
    expected = draw_hosting_order([t.name for t in teams], "public-42",
                                  {teams[0].name: HostingWish(frozenset(), frozenset({1, dt.date(2027, 2, 14)}))},
                                  dates=dates)
    assert order == expected
    assert [t.played_on for t in tours] == dates
    assert teams[0].name not in order[:2]
    client.post(url, {"action": "draw", "seed": "public-42", "dates": dates_text})
    assert [t.host.name for t in Tour.objects.filter(stage=stage).order_by("number")] == order
    assert "public-42" in client.get(url).content.decode()


def test_chgk7_hosting_order_fixed_by_hand(client):
    tournament = season(teams=3)
    names = sorted(Team.objects.filter(tournament=tournament).values_list("name", flat=True), reverse=True)
    client = organizer_client(client, tournament)
    client.post(reverse("chgk-hosting", args=[tournament.slug]), {"action": "by_hand", "order": "\n".join(names)})
    assert [t.host.name for t in Tour.objects.filter(stage__tournament=tournament).order_by("number")] == names


def test_chgk7_order_naming_a_team_twice_is_refused(client):
    tournament = season(teams=3)
    name = Team.objects.filter(tournament=tournament).first().name
    with pytest.raises(services.Refused, match="CHGK-7"):
        services.schedule(tournament, [name, name, name])
    assert not Tour.objects.filter(stage__tournament=tournament).exists()


# --------------------------------------------------------------------------- CHGK-8, CHGK-9


def pack(count: int = 8, by_host: int = 5, authors: str = "Автор", sources: str = "https://example.org") -> dict:
    data = {}
    for n in range(1, count + 1):
        data.update({f"q{n}-text": f"Вопрос {n}", f"q{n}-answer": "Ответ", f"q{n}-accepted_answers": "",
                     f"q{n}-comment": "", f"q{n}-sources": sources, f"q{n}-authors": authors,
                     f"q{n}-origin": "host" if n <= by_host else "committee"})
    return data


def hosted_tour(league: str = "first") -> tuple[Tournament, Tour]:
    tournament = season(teams=4, tours=1)
    tour = Tour.objects.get(stage__tournament=tournament, number=1)
    Team.objects.filter(pk=tour.host_id).update(league=league)
    return tournament, tour


def test_chgk9_pack_outside_the_host_leagues_range_is_refused(client):
    tournament, tour = hosted_tour("first")
    client = organizer_client(client, tournament)
    url = reverse("chgk-questions", args=[tournament.slug, 1])
    response = client.post(url, pack(by_host=8))
    assert response.status_code == 400
    assert "CHGK-9" in response.content.decode()
    assert not Question.objects.filter(tour=tour).exists()
    assert client.post(url, pack(by_host=5)).status_code == 302
    stored = list(Question.objects.filter(tour=tour).order_by("number"))
    assert [q.by_host for q in stored] == [True] * 5 + [False] * 3
    assert stored[0].sources == "https://example.org"


def test_chgk9_question_without_sources_is_refused(client):
    tournament, tour = hosted_tour("first")
    response = organizer_client(client, tournament).post(reverse("chgk-questions", args=[tournament.slug, 1]),
                                                         pack(sources=""))
    assert response.status_code == 400
    assert not Question.objects.filter(tour=tour).exists()


def test_chgk9_co_author_from_another_team_is_refused(client):
    tournament, tour = hosted_tour("first")
    other = RosterEntry.objects.filter(team__tournament=tournament).exclude(team=tour.host).first().player.nick
    with pytest.raises(services.Refused, match="another team"):
        services.save_pack(tournament, tour, [
            {"number": n, "text": "", "answer": "", "accepted_answers": "", "comment": "", "sources": "s",
             "authors": other, "by_host": n <= 5} for n in range(1, 9)])


# --------------------------------------------------------------------------- CHGK-11


def test_chgk11_overdue_checklist_item_is_flagged_and_marking_it_done_clears_the_flag(client):
    tournament, tour = hosted_tour()
    tour.played_on = timezone.localdate() + dt.timedelta(days=10)
    tour.save()
    rows = {row.item.key: row for row in services.checklists(tournament)}
    assert rows["committee_questions"].overdue
    assert not rows["pack_to_tester"].overdue
    client = organizer_client(client, tournament)
    url = reverse("chgk-checklists", args=[tournament.slug])
    page = client.get(url).content.decode()
    assert 'data-key="committee_questions" class="overdue"' in page
    client.post(url, {"tour": "1", "key": "committee_questions", "done": "1"})
    assert ChgkChecklistDone.objects.filter(tour=tour, key="committee_questions").exists()
    assert not {row.item.key: row for row in services.checklists(tournament)}["committee_questions"].overdue


# --------------------------------------------------------------------------- bounded queries


@pytest.mark.parametrize("teams", [4, 24])
def test_setup_pages_run_a_bounded_number_of_queries(client, django_assert_max_num_queries, teams):
    tournament = season(teams=teams, tours=None, slug=f"chgk-size-{teams}")
    for team in Team.objects.filter(tournament=tournament):
        ChgkApplication.objects.create(tournament=tournament, team_name=team.name, captain="c", players=["c"],
                                       filed_at=timezone.now(), team=team)
        ChgkHostingWish.objects.create(team=team, prefers=[1], cannot=[2])
    client = organizer_client(client, tournament)
    urls = [reverse("chgk-applications", args=[tournament.slug]) + "?limit=3",
            reverse("chgk-hosting", args=[tournament.slug]),
            reverse("chgk-questions", args=[tournament.slug, 1]),
            reverse("chgk-checklists", args=[tournament.slug])]
    for url in urls:
        with django_assert_max_num_queries(PAGE_QUERIES):
            assert client.get(url).status_code == 200
    client.logout()
    for url in urls:
        with django_assert_max_num_queries(PAGE_QUERIES):
            assert client.get(url).status_code == 200


def test_chgk18_pack_is_hidden_from_the_public_until_the_day_after_the_tour(client):
    tournament, tour = hosted_tour()
    Question.objects.create(tour=tour, number=1, text="Секретный вопрос", answer="Ответ", sources="s", authors="a")
    url = reverse("chgk-questions", args=[tournament.slug, 1])
    assert "Секретный вопрос" in client.get(url).content.decode()
    tour.played_on = timezone.localdate()
    tour.save()
    assert "Секретный вопрос" not in client.get(url).content.decode()
    assert "Секретный вопрос" in organizer_client(client, tournament).get(url).content.decode()


def test_setup_pages_exist_only_for_chgk_seasons(client):
    Tournament.objects.create(slug="family", name="Family", ruleset="family_league")
    assert client.get(reverse("chgk-applications", args=["family"])).status_code == 404
    tournament = season(teams=2)
    assert client.get(reverse("chgk-questions", args=[tournament.slug, 9])).status_code == 404


def test_chgk7_only_organizers_draw_the_hosting_order(client):
    tournament = season(teams=3)
    client.force_login(UserFactory())
    client.post(reverse("chgk-hosting", args=[tournament.slug]), {"action": "draw", "seed": "x"})
    assert not Tour.objects.filter(stage__tournament=tournament).exists()
    assert Stage.objects.get(tournament=tournament, key="season").seed == ""
