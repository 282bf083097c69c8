"""Self-service: accounts, claims, merges, families, captains and "my tournaments"."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.conf import settings
from django.core import mail
from django.urls import reverse
from django.utils import timezone, translation

from accounts.models import Blacklist, Family, FamilyMembership, Player, Role, User
from scoring.models import StandingsSnapshot
from tests.conftest import example
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tournaments.importer import import_document
from tournaments.merge import MergeRefused, merge_players
from tournaments.models import (
    Appeal,
    AuditEntry,
    Decision,
    Game,
    GameStatus,
    Participant,
    RosterEntry,
    Seat,
    Team,
    Tour,
    Tournament,
    TournamentStatus,
)
from tournaments.synthetic import chgk_season, mafia_league

pytestmark = pytest.mark.django_db
PASSWORD = "correct horse battery staple"
NEW_PASSWORD = "a quite different passphrase 42"


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    """Tests hash passwords with a cheap hasher; the real one is PBKDF2 with many iterations."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def login(client, user):
    client.force_login(user)
    return client


def logs_in(client, username, password) -> bool:
    """Log in through the login page (django-axes needs the request, so no ``client.login``)."""
    client.logout()
    response = client.post(reverse("login"), {"username": username, "password": password})
    return response.status_code == 302 and client.get(reverse("my-tournaments")).status_code == 200


# ---------------------------------------------------------------- sign-up, log-in, passwords

def test_sign_up_creates_the_account_logs_in_and_opens_the_profile(client):
    response = client.post(reverse("signup"), {
        "username": "newcomer", "email": "newcomer@example.org", "timezone": "Europe/Berlin",
        "password1": PASSWORD, "password2": PASSWORD})
    assert response.status_code == 302 and response["Location"] == reverse("profile")
    user = User.objects.get(username="newcomer")
    assert user.timezone == "Europe/Berlin"
    assert client.get(reverse("profile")).status_code == 200


def test_sign_up_refuses_a_weak_password_and_a_taken_email(client):
    UserFactory(username="first", email="taken@example.org")
    response = client.post(reverse("signup"), {
        "username": "second", "email": "TAKEN@example.org", "timezone": "Europe/Moscow",
        "password1": "12345678", "password2": "12345678"})
    assert response.status_code == 200
    form = response.context["form"]
    assert "email" in form.errors and "password2" in form.errors
    assert not User.objects.filter(username="second").exists()


def test_log_in_and_log_out(client):
    UserFactory(username="alice")
    response = client.post(reverse("login"), {"username": "alice", "password": PASSWORD})
    assert response.status_code == 302
    assert client.get(reverse("my-tournaments")).status_code == 200
    assert client.post(reverse("logout")).status_code == 200
    assert client.get(reverse("my-tournaments")).status_code == 302


def test_wrong_password_does_not_log_in(client):
    UserFactory(username="alice")
    response = client.post(reverse("login"), {"username": "alice", "password": "wrong"})
    assert response.status_code in (200, 403, 429)
    assert client.get(reverse("my-tournaments")).status_code == 302


def test_password_change_then_log_in_with_the_new_password(client):
    user = UserFactory(username="bob")
    login(client, user)
    response = client.post(reverse("password_change"), {
        "old_password": PASSWORD, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})
    assert response.status_code == 302 and response["Location"] == reverse("password_change_done")
    assert logs_in(client, "bob", NEW_PASSWORD)
    assert not logs_in(client, "bob", PASSWORD)


def test_password_reset_by_email_end_to_end(client):
    UserFactory(username="carol", email="carol@example.org")
    response = client.post(reverse("password_reset"), {"email": "carol@example.org"})
    assert response.status_code == 302 and response["Location"] == reverse("password_reset_done")
    assert len(mail.outbox) == 1 and mail.outbox[0].to == ["carol@example.org"]
    link = re.search(r"https?://[^/\s]+(/\S+)", mail.outbox[0].body).group(1)
    form_page = client.get(link, follow=True)
    assert form_page.status_code == 200 and form_page.context["validlink"]
    response = client.post(form_page.redirect_chain[-1][0], {"new_password1": NEW_PASSWORD,
                                                             "new_password2": NEW_PASSWORD})
    assert response.status_code == 302 and response["Location"] == reverse("password_reset_complete")
    assert logs_in(client, "carol", NEW_PASSWORD)
    client.logout()
    assert client.get(link, follow=True).context["validlink"] is False


def test_password_reset_for_an_unknown_email_sends_nothing_and_says_the_same(client):
    response = client.post(reverse("password_reset"), {"email": "nobody@example.org"})
    assert response.status_code == 302 and response["Location"] == reverse("password_reset_done")
    assert mail.outbox == []


@pytest.mark.parametrize("language", ["ru", "en", None])
def test_account_pages_speak_russian_by_default_and_english_on_request(client, language):
    if language:
        client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    content = client.get(reverse("signup")).content.decode()
    with translation.override(language or "ru"):
        heading = translation.gettext("Sign up")
    assert f'lang="{language or "ru"}"' in content
    assert f"<h1>{heading}</h1>" in content
    assert bool(re.search("[а-яА-Я]", heading)) == (language != "en")


@pytest.mark.parametrize("name", ["profile", "claims", "player-merge", "dashboards"])
def test_account_pages_answer_in_few_queries(client, name, django_assert_max_num_queries):
    import_document(example("family_league"))
    user = user_playing_as("Fam01-p1", is_staff=True)
    client.force_login(user)
    with django_assert_max_num_queries(8):
        assert client.get(reverse(name)).status_code == 200


# ---------------------------------------------------------------- claims

def claim(client, nick, full_name=""):
    return client.post(reverse("profile"), {"action": "claim", "nick": nick, "full_name": full_name})


def test_claim_confirmed_by_an_organizer_of_a_tournament_the_player_played_in(client):
    tournament = import_document(example("family_league"))
    user = UserFactory(username="fam1")
    assert claim(login(client, user), "Fam01-p2", "Ivan Petrov").status_code == 302
    player = Player.objects.get(nick="Fam01-p2")
    assert player.user == user and not player.claim_confirmed and player.full_name == "Ivan Petrov"
    organizer = UserFactory(username="org")
    RoleFactory(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    login(client, organizer)
    assert [p.nick for p in client.get(reverse("claims")).context["pending"]] == ["Fam01-p2"]
    assert client.post(reverse("claims"), {"player": player.pk, "decision": "confirm"}).status_code == 302
    player.refresh_from_db()
    assert player.claim_confirmed and player.user == user
    assert AuditEntry.objects.filter(model="accounts.Player", object_id=str(player.pk), user=organizer).exists()


def test_refused_claim_frees_the_nick_for_another_account(client):
    tournament = import_document(example("family_league"))
    impostor = UserFactory(username="impostor")
    claim(login(client, impostor), "Fam02-p1")
    organizer = UserFactory(username="org")
    RoleFactory(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    player = Player.objects.get(nick="Fam02-p1")
    login(client, organizer).post(reverse("claims"), {"player": player.pk, "decision": "refuse"})
    player.refresh_from_db()
    assert player.user is None and not player.claim_confirmed
    assert RosterEntry.objects.filter(player=player).exists(), "the player and their facts stay"
    real = UserFactory(username="real")
    assert claim(login(client, real), "Fam02-p1").status_code == 302
    assert Player.objects.get(nick="Fam02-p1").user == real


def test_refused_claim_of_an_unknown_nick_deletes_the_empty_player(client):
    head = user_playing_as("Head")
    family = Family.objects.create(name="Clan", head=head.player)
    claimant = UserFactory(username="newbie")
    claim(login(client, claimant), "Newbie")
    FamilyMembership.objects.create(family=family, player=Player.objects.get(nick="Newbie"),
                                    joined_on=dt.date(2024, 1, 1))
    login(client, head).post(reverse("claims"), {"player": Player.objects.get(nick="Newbie").pk,
                                                 "decision": "refuse"})
    assert Player.objects.filter(nick="Newbie").exists(), "a membership is a fact: the player stays"
    claim(login(client, claimant), "Nobody-else")
    orphan = Player.objects.get(nick="Nobody-else")
    staff = UserFactory(username="staff", is_staff=True)
    login(client, staff).post(reverse("claims"), {"player": orphan.pk, "decision": "refuse"})
    assert not Player.objects.filter(nick="Nobody-else").exists()


def test_family_head_confirms_the_claim_of_a_member_of_their_family(client):
    head = user_playing_as("Head")
    family = Family.objects.create(name="Clan", head=head.player)
    member = Player.objects.create(nick="Member")
    FamilyMembership.objects.create(family=family, player=member, joined_on=dt.date(2024, 1, 1))
    claim(login(client, UserFactory(username="member")), "Member")
    login(client, head).post(reverse("claims"), {"player": member.pk, "decision": "confirm"})
    member.refresh_from_db()
    assert member.claim_confirmed


def test_nobody_else_decides_a_claim_and_nobody_decides_their_own(client):
    import_document(example("family_league"))
    other = import_document(example("class_balanced"))
    user = UserFactory(username="fam")
    claim(login(client, user), "Fam03-p1")
    player = Player.objects.get(nick="Fam03-p1")
    assert client.post(reverse("claims"), {"player": player.pk, "decision": "confirm"}).status_code == 403
    stranger = UserFactory(username="elsewhere")
    RoleFactory(user=stranger, tournament=other, role=Role.ORGANIZER)
    login(client, stranger)
    assert client.get(reverse("claims")).context["pending"] == []
    assert client.post(reverse("claims"), {"player": player.pk, "decision": "confirm"}).status_code == 403
    player.refresh_from_db()
    assert not player.claim_confirmed


def test_one_user_one_player(client):
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    import_document(example("family_league"))
    user = UserFactory(username="greedy")
    claim(login(client, user), "Fam04-p1")
    response = claim(client, "Fam04-p2")
    assert response.status_code == 200 and "one user, one player" in str(response.context["form"].errors)
    assert list(Player.objects.filter(user=user).values_list("nick", flat=True)) == ["Fam04-p1"]
    taken = claim(login(client, UserFactory(username="late")), "Fam04-p1")
    assert "already claimed" in str(taken.context["form"].errors)


def test_a_pending_claim_can_be_withdrawn(client):
    import_document(example("family_league"))
    user = UserFactory(username="shy")
    claim(login(client, user), "Fam05-p1")
    client.post(reverse("profile"), {"action": "withdraw"})
    assert Player.objects.get(nick="Fam05-p1").user is None


def test_claims_page_queries_do_not_grow_with_the_number_of_claims(client, django_assert_max_num_queries):
    tournament = import_document(mafia_league(games=20, teams=9, seed=2))
    organizer = UserFactory(username="org")
    RoleFactory(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    for count, nicks in ((1, ["Fam01-p1"]), (11, [f"Fam{i:02d}-p2" for i in range(1, 10)] + ["Fam01-p3"])):
        for nick in nicks:
            player = Player.objects.get(nick=nick)
            player.user = UserFactory()
            player.save()
        login(client, organizer)
        with django_assert_max_num_queries(10):
            response = client.get(reverse("claims"))
        assert len(response.context["pending"]) == count


# ---------------------------------------------------------------- merge

def gp_with_prizes():
    document = example("elimination_gp")
    document["tournament"]["settings"]["stage_prizes"] = {"qualifying-1": [{"place": 1, "amount": 100},
                                                                           {"place": 2, "amount": 50}]}
    return document


def awards_of(tournament) -> list[dict]:
    return StandingsSnapshot.objects.get(tournament=tournament, stage_key="").export["awards"]


@pytest.mark.django_db(transaction=True)
def test_merge_of_two_players_keeps_every_seat_and_award():
    """Real commits: the recompute after the merge runs on commit, as in production."""
    gp = import_document(gp_with_prizes())
    league = import_document(example("family_league"))
    duplicate, target = Player.objects.get(nick="GP07-p5"), Player.objects.get(nick="Fam06-p1")
    seats_before = Seat.objects.filter(player__in=[duplicate, target]).count()
    games = set(Seat.objects.filter(player__in=[duplicate, target]).values_list("game_id", flat=True))
    assert [a["player"] for a in awards_of(gp)] == ["GP07-p5", "GP07-p3"]
    staff = UserFactory(username="staff", is_staff=True)
    claimant = UserFactory(username="five")
    duplicate.user, duplicate.claim_confirmed = claimant, True
    duplicate.save()
    versions = dict(Tournament.objects.values_list("pk", "facts_version"))

    result = merge_players(duplicate, target, user=staff)

    assert not Player.objects.filter(nick="GP07-p5").exists()
    assert Seat.objects.filter(player=target).count() == seats_before
    assert set(Seat.objects.filter(player=target).values_list("game_id", flat=True)) == games
    assert [(a["player"], a["prize"]) for a in awards_of(gp)] == [("Fam06-p1", 100), ("GP07-p3", 50)]
    assert Team.objects.filter(tournament=gp, roster__player=target).exists()
    assert Participant.objects.filter(player=target).count() == 2
    target.refresh_from_db()
    assert target.user == claimant and target.claim_confirmed
    assert result["tournaments"] == ["gp-example"]
    assert Tournament.objects.get(pk=gp.pk).facts_version > versions[gp.pk]
    assert Tournament.objects.get(pk=league.pk).facts_version == versions[league.pk]
    entry = AuditEntry.objects.get(action="merge")
    assert entry.user == staff and entry.object_id == str(target.pk)
    assert entry.before["duplicate"]["nick"] == "GP07-p5" and entry.after["moved"]["seats"] > 0


def test_merge_of_two_players_on_one_roster_keeps_one_entry_and_renames_tie_orders():
    tournament = import_document(example("family_league"))
    target = Player.objects.get(nick="Fam01-p1")
    team = Team.objects.get(tournament=tournament, name="Fam01")
    duplicate = Player.objects.create(nick="fam01-P1")
    RosterEntry.objects.create(team=team, player=duplicate, order=9)
    Participant.objects.create(tournament=tournament, player=duplicate, order=99, banned=True)
    Decision.objects.create(tournament=tournament, index=1, kind="tie_break", order=["fam01-P1", "Fam02-p1"])
    other = Player.objects.create(nick="Other")
    Blacklist.objects.create(owner=duplicate, blocked=other)
    Blacklist.objects.create(owner=duplicate, blocked=target)
    merge_players(duplicate, target)
    assert RosterEntry.objects.filter(team=team, player=target).count() == 1
    participation = Participant.objects.get(tournament=tournament, player=target)
    assert participation.banned
    assert Decision.objects.get(tournament=tournament, index=1).order == ["Fam01-p1", "Fam02-p1"]
    assert list(Blacklist.objects.values_list("owner__nick", "blocked__nick")) == [("Fam01-p1", "Other")]


def test_merge_refused_when_both_players_sat_in_one_game_and_nothing_changes():
    import_document(example("family_league"))
    game = Game.objects.filter(seats__isnull=False).first()
    first, second = [s.player for s in game.seats.all()[:2]]
    before = Seat.objects.filter(player=second).count()
    with translation.override("en"), pytest.raises(MergeRefused, match="two people"):
        merge_players(second, first)
    assert Seat.objects.filter(player=second).count() == before


def test_merge_page_is_for_staff_and_merges(client):
    import_document(example("family_league"))
    Player.objects.create(nick="Fam01-p1 (dup)")
    assert login(client, UserFactory(username="nobody")).get(reverse("player-merge")).status_code == 403
    staff = UserFactory(username="staff", is_staff=True)
    response = login(client, staff).post(reverse("player-merge"), {
        "duplicate": "Fam01-p1 (dup)", "target": "Fam01-p1", "confirm": "on"})
    assert response.status_code == 302
    assert not Player.objects.filter(nick="Fam01-p1 (dup)").exists()


# ---------------------------------------------------------------- families

@pytest.fixture
def clan():
    head = user_playing_as("Head")
    family = Family.objects.create(name="Clan", head=head.player)
    FamilyMembership.objects.create(family=family, player=head.player, joined_on=dt.date(2020, 1, 1))
    member = user_playing_as("Old member")
    FamilyMembership.objects.create(family=family, player=member.player, joined_on=dt.date(2021, 5, 1))
    return family, head, member


def test_join_request_is_accepted_by_the_head_only(client, clan):
    family, head, member = clan
    applicant = user_playing_as("Applicant")
    url = reverse("family", args=[family.pk])
    login(client, applicant).post(url, {"action": "request"})
    request = FamilyMembership.objects.get(family=family, player=applicant.player)
    assert request.joined_on is None and request.left_on is None
    for user in (member, applicant, UserFactory(username="outsider")):
        login(client, user).post(url, {"action": "accept", "membership": request.pk})
        request.refresh_from_db()
        assert request.joined_on is None, user
    page = login(client, head).get(url)
    assert [m.player.nick for m in page.context["requests"]] == ["Applicant"]
    client.post(url, {"action": "accept", "membership": request.pk})
    request.refresh_from_db()
    assert request.joined_on is not None and request.left_on is None


def test_a_head_whose_claim_is_pending_cannot_decide(client, clan):
    family, head, _member = clan
    head.player.claim_confirmed = False
    head.player.save()
    applicant = user_playing_as("Applicant")
    request = FamilyMembership.objects.create(family=family, player=applicant.player)
    login(client, head).post(reverse("family", args=[family.pk]), {"action": "accept", "membership": request.pk})
    request.refresh_from_db()
    assert request.joined_on is None


def test_refused_request_is_kept_as_refused_and_the_player_may_ask_again(client, clan):
    family, head, _member = clan
    applicant = user_playing_as("Applicant")
    url = reverse("family", args=[family.pk])
    login(client, applicant).post(url, {"action": "request"})
    request = FamilyMembership.objects.get(family=family, player=applicant.player)
    login(client, head).post(url, {"action": "refuse", "membership": request.pk})
    request.refresh_from_db()
    assert request.joined_on is None and request.left_on is not None
    login(client, applicant).post(url, {"action": "request"})
    assert FamilyMembership.objects.filter(family=family, player=applicant.player).count() == 2


def test_a_member_of_another_family_must_leave_it_before_asking(client, clan):
    family, _head, member = clan
    other = Family.objects.create(name="Other clan")
    login(client, member).post(reverse("family", args=[other.pk]), {"action": "request"})
    assert not FamilyMembership.objects.filter(family=other).exists()


def test_leaving_the_family_sets_left_on_and_fl_4_takes_the_player_off_running_teams(client, clan):
    family, _head, member = clan
    tournament = import_document(example("family_league"))
    team = Team.objects.get(tournament=tournament, name="Fam01")
    team.family = family
    team.save()
    entry = RosterEntry.objects.create(team=team, player=member.player, order=20)
    login(client, member).post(reverse("family", args=[family.pk]), {"action": "leave"})
    membership = FamilyMembership.objects.get(family=family, player=member.player)
    assert membership.left_on is not None
    entry.refresh_from_db()
    assert entry.left_at is not None


def test_the_head_cannot_leave(client, clan):
    family, head, _member = clan
    login(client, head).post(reverse("family", args=[family.pk]), {"action": "leave"})
    assert FamilyMembership.objects.get(family=family, player=head.player).left_on is None


def test_family_page_shows_members_with_dates_and_the_head(client, clan, django_assert_max_num_queries):
    family, head, _member = clan
    with django_assert_max_num_queries(8):
        response = client.get(reverse("family", args=[family.pk]))
    content = response.content.decode()
    assert "1 января 2020" in content and "1 мая 2021" in content and "Head" in content
    for i in range(30):
        FamilyMembership.objects.create(family=family, player=Player.objects.create(nick=f"m{i}"),
                                        joined_on=dt.date(2022, 1, 1), left_on=dt.date(2023, 1, 1))
        FamilyMembership.objects.create(family=family, player=Player.objects.create(nick=f"r{i}"))
    login(client, head)
    with django_assert_max_num_queries(8):
        response = client.get(reverse("family", args=[family.pk]))
    assert len(response.context["requests"]) == 30


# ---------------------------------------------------------------- captains

@pytest.fixture
def rotor(client):
    tournament = import_document(example("chgk_tour_points"))
    team = Team.objects.get(tournament=tournament, name="Rotor")
    captain = user_playing_as(team.captain.nick)
    login(client, captain)
    return team, captain


def manage(client, team, **data):
    return client.post(reverse("team-manage", args=[team.pk]), data)


def test_captain_adds_players_up_to_ten_and_the_eleventh_is_refused_citing_chgk_2(client, rotor):
    team, _captain = rotor
    response = manage(client, team, action="add", **{"add-names": "New 1\nNew 2\nNew 3\nNew 4\nNew 5"})
    assert response.status_code == 302
    assert team.roster.filter(left_at__isnull=True).count() == 10
    refused = manage(client, team, action="add", **{"add-names": "New 6"})
    assert refused.status_code == 400 and any("CHGK-2" in p for p in refused.context["problems"])
    assert team.roster.count() == 10
    assert Participant.objects.filter(tournament=team.tournament, player__nick="New 1").exists()


def test_at_most_six_additions_a_season_chgk_2(client, rotor):
    """Replacements are free; players the organizer took off do not give additions back."""
    team, _captain = rotor
    manage(client, team, action="add", **{"add-names": "A1\nA2"})
    entry = team.roster.get(player__nick="A1")
    manage(client, team, action="replace", **{"replace-old": entry.pk, "replace-new": "A1 bis"})
    left = timezone.now() - dt.timedelta(days=1)
    team.roster.filter(player__nick__in=["Rotor 4", "Rotor 5"]).update(left_at=left)
    manage(client, team, action="add", **{"add-names": "B1\nB2\nB3\nB4"})
    assert team.roster.filter(left_at__isnull=True).count() == 9
    response = manage(client, team, action="add", **{"add-names": "B5"})
    assert response.status_code == 400
    assert any("at most 6 additions (CHGK-2)" in p for p in response.context["problems"])


def test_a_player_who_played_a_tour_cannot_be_replaced_chgk_3(client, rotor):
    team, _captain = rotor
    played = team.roster.get(player__nick="Rotor 2")
    response = manage(client, team, action="replace", **{"replace-old": played.pk, "replace-new": "Fresh"})
    assert response.status_code == 400
    assert any("CHGK-3" in p for p in response.context["problems"])
    played.refresh_from_db()
    assert played.left_at is None and not Player.objects.filter(nick="Fresh").exists()


def test_a_replacement_is_not_an_addition_chgk_3(client, rotor):
    team, _captain = rotor
    manage(client, team, action="add", **{"add-names": "Rookie"})
    rookie = team.roster.get(player__nick="Rookie")
    assert manage(client, team, action="replace", **{"replace-old": rookie.pk,
                                                     "replace-new": "Rookie 2"}).status_code == 302
    rookie.refresh_from_db()
    new = team.roster.get(player__nick="Rookie 2")
    assert rookie.left_at == new.joined_at
    page = client.get(reverse("team-manage", args=[team.pk]))
    assert page.context["state"].additions_used == 1


def test_captain_hands_the_captaincy_to_a_roster_player(client, rotor):
    team, captain = rotor
    stranger = Player.objects.get(nick="Vega 2")
    assert manage(client, team, action="captain", **{"captain-player": stranger.pk}).status_code == 200
    team.refresh_from_db()
    assert team.captain.nick == "Rotor captain"
    new = Player.objects.get(nick="Rotor 3")
    assert manage(client, team, action="captain", **{"captain-player": new.pk}).status_code == 302
    team.refresh_from_db()
    assert team.captain == new
    assert client.get(reverse("team-manage", args=[team.pk])).status_code == 403


def test_line_up_check_cites_chgk_4(client, rotor):
    team, _captain = rotor
    seven = "\n".join(["Rotor captain", "Rotor 2", "Rotor 3", "Rotor 4", "Rotor 5", "Vega 2", "Vega 3"])
    response = manage(client, team, action="line_up", **{"line_up-line_up": seven})
    problems = response.context["problems"]
    assert any("at most 6 (CHGK-4)" in p for p in problems)
    assert any("Vega 2 is not on the team's roster (CHGK-4)" in p for p in problems)
    ok = manage(client, team, action="line_up", **{"line_up-line_up": "Rotor captain\nRotor 2\n\nRotor 3"})
    assert ok.context["problems"] == [] and ok.context["line_up_checked"]


def test_only_the_captain_or_an_organizer_manages_a_team(client):
    tournament = import_document(example("chgk_tour_points"))
    team = Team.objects.get(tournament=tournament, name="Rotor")
    assert login(client, user_playing_as("Rotor 2")).get(reverse("team-manage", args=[team.pk])).status_code == 403
    unconfirmed = UserFactory(username="fake")
    team.captain.user = unconfirmed
    team.captain.save()
    assert login(client, unconfirmed).get(reverse("team-manage", args=[team.pk])).status_code == 403
    organizer = UserFactory(username="org")
    RoleFactory(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    assert login(client, organizer).get(reverse("team-manage", args=[team.pk])).status_code == 200


def test_mafia_rosters_are_not_changed_here_but_the_captaincy_is(client):
    tournament = import_document(example("family_league"))
    team = Team.objects.get(tournament=tournament, name="Fam01")
    login(client, user_playing_as("Fam01-p1"))
    refused = manage(client, team, action="add", **{"add-names": "Stranger"})
    assert refused.status_code == 400 and not Player.objects.filter(nick="Stranger").exists()
    assert manage(client, team, action="captain",
                  **{"captain-player": Player.objects.get(nick="Fam01-p2").pk}).status_code == 302


@pytest.mark.parametrize("teams", [8, 40])
def test_team_page_queries_do_not_grow_with_the_season(client, teams, django_assert_max_num_queries):
    tournament = import_document(chgk_season(teams=teams, seed=3))
    team = Team.objects.get(tournament=tournament, name="Team01")
    login(client, user_playing_as(team.captain.nick))
    with django_assert_max_num_queries(10):
        assert client.get(reverse("team-manage", args=[team.pk])).status_code == 200


# ---------------------------------------------------------------- my tournaments

def test_my_tournaments_shows_teams_games_to_come_in_the_viewer_zone_and_appeal_deadlines(client):
    league = import_document(example("family_league"))
    game = Game.objects.filter(stage__tournament=league).order_by("number").last()
    game.status, game.outcome = GameStatus.SCHEDULED, None
    game.scheduled_at = timezone.now() + dt.timedelta(days=2)
    game.save()
    chgk = import_document(example("chgk_tour_points"))
    tour = Tour.objects.get(stage__tournament=chgk, number=2)
    user = user_playing_as("Fam01-p1", username="viewer", timezone="Asia/Tokyo")
    RosterEntry.objects.create(team=Team.objects.get(tournament=chgk, name="Rotor"), player=user.player, order=9)
    Appeal.objects.create(tournament=chgk, kind="removal", tour=tour, question=3, filed_at=timezone.now(),
                          filed_by=user, team=Team.objects.get(tournament=chgk, name="Rotor"))
    response = login(client, user).get(reverse("my-tournaments"))
    context = response.context
    assert {e.team.name for e in context["entries"]} == {"Fam01", "Rotor"}
    assert [row["game"].pk for row in context["games"]] == [game.pk]
    moment = context["games"][0]["when"]
    assert moment.local.tzinfo.key == "Asia/Tokyo" and moment.at_tournament.tzinfo.key == "Europe/Moscow"
    assert context["appeals"][0]["due"].at == dt.datetime(2013, 3, 2, 23, 59, 59,
                                                          tzinfo=dt.timezone(dt.timedelta(hours=4)))
    content = response.content.decode()
    assert "Asia/Tokyo" in content and "Europe/Moscow" in content


@pytest.mark.parametrize("games", [10, 300])
def test_my_tournaments_queries_do_not_grow_with_the_tournament(client, games, django_assert_max_num_queries):
    tournament = import_document(mafia_league(games=games, teams=9, seed=4))
    Game.objects.filter(stage__tournament=tournament, number__gt=games - 5).update(
        status=GameStatus.SCHEDULED, outcome=None, scheduled_at=timezone.now() + dt.timedelta(days=1))
    Tournament.objects.filter(pk=tournament.pk).update(status=TournamentStatus.RUNNING)
    user = user_playing_as("Fam01-p1")
    login(client, user)
    with django_assert_max_num_queries(12):
        response = client.get(reverse("my-tournaments"))
    assert len(response.context["games"]) == 5


@pytest.mark.parametrize("language", ["ru", "en"])
def test_sign_up_claim_and_see_the_tournament_on_my_tournaments(client, language):
    """The browser test's path (tests/test_browser_accounts.py) through the test client, in both languages."""
    import_document(example("family_league"))
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = language
    client.post(reverse("signup"), {"username": f"p-{language}", "email": f"p-{language}@example.org",
                                    "timezone": "Europe/Moscow", "password1": PASSWORD, "password2": PASSWORD})
    profile = client.post(reverse("profile"), {"action": "claim", "nick": "Fam03-p4"}, follow=True)
    with translation.override(language):
        pending, heading = translation.gettext("waiting for confirmation"), translation.gettext("My tournaments")
    assert pending in profile.content.decode()
    content = client.get(reverse("my-tournaments")).content.decode()
    assert f"<h1>{heading}</h1>" in content and "Турнирные Мастера, пример" in content and ">Fam03<" in content
