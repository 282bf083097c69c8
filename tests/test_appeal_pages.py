"""Appeal pages through the Django test client: what an appeal changed (the appealed team's row in
the appealed stage), where a ChGK captain files (CHGK-18, CHGK-20), and the verdict form of each kind (FL-19)."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from django.test import Client
from django.utils import timezone, translation

from accounts.models import Role
from appeals.filing import filing_team, tour_window
from appeals.services import AppealTarget, decide, file_appeal
from scoring.services import recompute
from tests.conftest import example
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tournaments.demo import demo_family_league
from tournaments.importer import import_document
from tournaments.models import Appeal, FilingDelegation, Game, Penalty, Team, Tour

pytestmark = pytest.mark.django_db
MSK = zoneinfo.ZoneInfo("Europe/Moscow")


def said(language: str, message: str) -> str:
    with translation.override(language):
        return translation.gettext(message)


def client_for(user=None, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.cookies["django_language"] = language
    if user is not None:
        client.force_login(user)
    return client


def with_role(tournament, role):
    user = UserFactory()
    RoleFactory(user=user, tournament=tournament, role=role)
    return user


# --- the change of the standings is the appealed team's row in the appealed stage ------------------


def upheld_qualifying_penalty():
    """The demo family league (qualifying groups and a final); the qualifying stage's FP-11 penalty of one
    family is appealed and upheld; the tables are recomputed before and after."""
    tournament = import_document(demo_family_league())
    recompute(tournament.pk, force=True)
    penalty = Penalty.objects.select_related("team", "stage").get(tournament=tournament)
    assert penalty.stage.key == "qualifying"
    user = user_playing_as(penalty.player.nick)
    appeal = Appeal.objects.create(tournament=tournament, kind="decision", penalty=penalty, team=penalty.team,
                                   filed_at=timezone.now(), filed_by=user, appellant=penalty.team.name)
    decide(appeal, with_role(tournament, Role.CURATOR), "accepted", reasons="no insult in the log")
    recompute(tournament.pk, force=True)
    appeal.refresh_from_db()
    return tournament, penalty, appeal


def test_fl_18_fl_19_upheld_penalty_appeal_shows_the_penalised_teams_qualifying_row_before_and_after():
    tournament, penalty, appeal = upheld_qualifying_penalty()
    change = appeal.standings_change
    first = change[0]
    assert first["appealed"] is True
    assert first["team"] == penalty.team.name, "the appealed (penalised) team, not a row of another stage"
    assert first["stage"] == "qualifying"
    assert first["points_after"] - first["points_before"] == pytest.approx(float(penalty.points))
    assert all(row["stage"] == "qualifying" for row in change)
    finalists_only = {row["team"] for row in change} - set(Team.objects.filter(
        tournament=tournament).values_list("name", flat=True))
    assert not finalists_only


@pytest.mark.parametrize("language", ["en", "ru"])
def test_fl_19_appeal_page_names_the_appealed_team_stage_and_both_points(language):
    _tournament, penalty, appeal = upheld_qualifying_penalty()
    first = appeal.standings_change[0]
    page = client_for(language=language).get(f"/appeals/{appeal.pk}/").content.decode()
    assert said(language, "Change of the standings") in page
    row = page[page.index('<tr class="appealed">'):]
    row = row[:row.index("</tr>")]
    assert penalty.team.name in row and said(language, "the appealed team") in row
    with translation.override(language):
        from portal.labels import stage_label
        from portal.templatetags.portal import points
        assert stage_label("qualifying").capitalize()[:4] in row
        assert f"{points(first['points_before'])} → {points(first['points_after'])}" in row


def test_chgk_19_accepted_answer_change_starts_with_the_appellants_row():
    document = example("chgk_tour_points")
    document["appeals"] = [a for a in document["appeals"] if a["tour"] != 2]
    tournament = import_document(document)
    recompute(tournament.pk, force=True)
    tour = Tour.objects.get(stage__tournament=tournament, number=2)
    rotor = Team.objects.get(tournament=tournament, name="Rotor")
    appeal = Appeal.objects.create(tournament=tournament, kind="accept_answer", stage=tour.stage, tour=tour,
                                   question=1, team=rotor, answer="x", filed_at=dt.datetime(2013, 2, 22, tzinfo=MSK))
    decide(appeal, with_role(tournament, Role.JURY), "accepted", reasons="a dual", credited=[rotor])
    recompute(tournament.pk, force=True)
    appeal.refresh_from_db()
    assert appeal.standings_change[0]["team"] == "Rotor"
    assert appeal.standings_change[0]["stage"] == "season"


# --- a ChGK tour offers "appeal" to its captain or delegate while the window is open -----------------


def season_with_a_tour_today():
    """The ChGK example with tour 2 played today (its CHGK-18 window open) and no appeal on it yet."""
    document = example("chgk_tour_points")
    document["appeals"] = [a for a in document["appeals"] if a["tour"] != 2]
    today = timezone.now().astimezone(MSK).date()
    document["stages"][0]["tours"][1]["played_on"] = today.isoformat()
    tournament = import_document(document)
    recompute(tournament.pk, force=True)
    return tournament, Tour.objects.select_related("stage").get(stage__tournament=tournament, number=2)


@pytest.mark.parametrize("language", ["en", "ru"])
def test_chgk_18_chgk_20_captain_sees_appeal_links_on_the_tour_and_each_question(language):
    tournament, tour = season_with_a_tour_today()
    captain = user_playing_as("Rotor captain")
    page = client_for(captain, language).get(f"/t/{tournament.slug}/tours/2/").content.decode()
    with translation.override(language):
        assert translation.gettext("You file for %(team)s (CHGK-20).") % {"team": "Rotor"} in page
    for question in range(1, tour.questions + 1):
        assert f"?tour=2&amp;question={question}&amp;kind=accept_answer" in page
        assert f"?tour=2&amp;question={question}&amp;kind=removal" in page
    filing = client_for(captain, language).get(f"/appeals/t/{tournament.slug}/file/?tour=2&question=3&kind=removal")
    assert filing.status_code == 200
    assert 'name="question" value="3"' in filing.content.decode()
    assert 'value="removal" selected' in filing.content.decode()


def test_chgk_20_a_delegate_is_offered_appeal_and_files_for_the_team():
    tournament, tour = season_with_a_tour_today()
    rotor = Team.objects.get(tournament=tournament, name="Rotor")
    entry = rotor.roster.exclude(player=rotor.captain).select_related("player").first()
    now = timezone.now()
    FilingDelegation.objects.create(team=rotor, player=entry.player, starts_at=now - dt.timedelta(hours=1),
                                    ends_at=now + dt.timedelta(days=1), granted_at=now)
    delegate = user_playing_as(entry.player.nick)
    assert filing_team(delegate, tournament) == rotor
    assert tour_window(delegate, tournament, tour).can_file
    page = client_for(delegate).get(f"/t/{tournament.slug}/tours/2/").content.decode()
    assert "?tour=2&amp;question=1&amp;kind=accept_answer" in page
    response = client_for(delegate).post(f"/appeals/t/{tournament.slug}/file/", {
        "tour": 2, "question": 1, "kind": "accept_answer", "answer": "Лобачевский", "argument": "a dual"})
    assert response.status_code == 302, response.content.decode()[-2000:]
    assert Appeal.objects.get(tour=tour).team == rotor


def test_chgk_20_a_player_who_is_not_captain_nor_delegate_gets_no_appeal_link():
    tournament, _tour = season_with_a_tour_today()
    rotor = Team.objects.get(tournament=tournament, name="Rotor")
    member = rotor.roster.exclude(player=rotor.captain).select_related("player").first().player
    page = client_for(user_playing_as(member.nick)).get(f"/t/{tournament.slug}/tours/2/").content.decode()
    assert "kind=accept_answer" not in page
    assert said("en", "Only the team's captain, or a player the captain or the organizer delegated, files an "
                      "appeal (CHGK-20).") in page


def test_chgk_18_no_appeal_link_once_the_window_closed_and_the_closing_moment_is_said():
    tournament = import_document(example("chgk_tour_points"))
    recompute(tournament.pk, force=True)
    page = client_for(user_playing_as("Rotor captain")).get(f"/t/{tournament.slug}/tours/2/").content.decode()
    assert "kind=accept_answer" not in page
    assert "The window for appeals on this tour closed at 24 February 2013, 23:59" in page


def test_chgk_20_tour_lists_each_questions_appeals_with_kind_team_after_the_verdict_and_verdict():
    tournament, tour = season_with_a_tour_today()
    rotor = Team.objects.get(tournament=tournament, name="Rotor")
    captain = user_playing_as("Rotor captain")
    first = file_appeal(tournament, captain, AppealTarget(kind="removal", tour=tour, question=4), team=rotor,
                        argument="two answers")
    page = client_for().get(f"/t/{tournament.slug}/tours/2/").content.decode()
    row = page[page.index('id="question-4"'):]
    row = row[:row.index("</tr>")]
    assert said("en", "removal of a question").capitalize() in row and "pending" in row
    assert "Rotor" not in row, "CHGK-20: the appealing team is hidden until the verdict"
    decide(first, with_role(tournament, Role.JURY), "rejected", reasons="one answer")
    page = client_for().get(f"/t/{tournament.slug}/tours/2/").content.decode()
    row = page[page.index('id="question-4"'):]
    row = row[:row.index("</tr>")]
    assert "Rotor" in row and said("en", "rejected") in row and f"/appeals/{first.pk}/" in row


# --- the verdict form shows the fields of the appeal's kind and says what it rules on ---------------


def league_violation_appeal():
    """The family example with a second seat of Fam01 in game 1 (FL-15.3), appealed by Fam01's player."""
    document = example("family_league")
    game = document["stages"][0]["games"][0]
    first = next(s for s in game["seats"] if s["team"] == "Fam01")
    violator = "Fam01-p4" if first["player"] != "Fam01-p4" else "Fam01-p1"
    game["seats"].append({**first, "player": violator, "role": "civilian"})
    game["result_recorded_at"] = timezone.now().isoformat()
    tournament = import_document(document)
    recompute(tournament.pk, force=True)
    game_row = Game.objects.get(stage__tournament=tournament, number=1)
    user = user_playing_as(violator)
    fam01 = Team.objects.get(tournament=tournament, name="Fam01")
    appeal = file_appeal(tournament, user, AppealTarget(kind="violation", game=game_row, violation="two_players",
                                                        player=user.player), team=fam01, argument="one player")
    return tournament, game_row, appeal, violator


@pytest.mark.parametrize("language", ["en", "ru"])
def test_fl_15_3_fl_19_verdict_form_for_a_violation_has_no_credited_teams_and_names_the_violation(language):
    tournament, game, appeal, violator = league_violation_appeal()
    curator = with_role(tournament, Role.CURATOR)
    page = client_for(curator, language).get(f"/appeals/{appeal.pk}/verdict/").content.decode()
    assert 'name="credited"' not in page, "CHGK-22's credited teams belong to a ChGK appeal only"
    assert 'value="partly"' not in page, "a detected violation is annulled or not (FL-19)"
    ruled = page[page.index('class="ruled-on"'):page.index("</section>", page.index('class="ruled-on"'))]
    assert "FL-15.3" in ruled and violator in ruled and "Fam01" in ruled
    with translation.override(language):
        assert translation.gettext("two players of one team") in ruled
        assert translation.gettext("Game %(number)s (%(stage)s)").replace("%(number)s", str(game.number))[:4] in ruled


def test_chgk_22_verdict_form_for_an_accepted_answer_keeps_the_credited_teams():
    tournament, tour = season_with_a_tour_today()
    rotor = Team.objects.get(tournament=tournament, name="Rotor")
    appeal = file_appeal(tournament, user_playing_as("Rotor captain"), AppealTarget(
        kind="accept_answer", tour=tour, question=2), team=rotor, answer="x", argument="y")
    page = client_for(with_role(tournament, Role.JURY)).get(f"/appeals/{appeal.pk}/verdict/").content.decode()
    assert 'name="credited"' in page
    assert "Tour 2, question 2" in page


def test_fl_19_after_an_upheld_violation_appeal_the_game_page_marks_it_annulled_with_a_link():
    tournament, game, appeal, violator = league_violation_appeal()
    before = client_for().get(f"/t/{tournament.slug}/final/games/1/").content.decode()
    assert "annulled on appeal" not in before
    response = client_for(with_role(tournament, Role.CURATOR)).post(
        f"/appeals/{appeal.pk}/verdict/", {"verdict": "accepted", "reasons": "one player only"})
    assert response.status_code == 302
    recompute(tournament.pk, force=True)
    page = client_for().get(f"/t/{tournament.slug}/final/games/1/").content.decode()
    penalties = page[page.index('id="penalties-heading"'):]
    penalties = penalties[:penalties.index("</section>")]
    assert "annulled on appeal (FL-19)" in penalties and f"/appeals/{appeal.pk}/" in penalties
    assert "No penalty in this game." not in penalties
    seat_row = page[page.index(f">{violator}</a>"):]
    seat_row = seat_row[:seat_row.index("</tr>")]
    assert "annulled on appeal (FL-19)" in seat_row
