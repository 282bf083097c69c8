"""A tournament's organizer grants and revokes every role of spec/roles.md on the roles page
and through the API (``tournaments.grants``): the tournament's roles (a judge with its stages), captains, family
heads; each act is one entry of the tournament's history; anyone else is refused (403) and nothing changes;
CHGK-11 keeps players off the jury and jurors off the rosters, from both sides."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Family, Player, Role, TournamentRole
from formats.chgk_tour_points import captains
from rulesets.errors import Invalid, NotAllowed
from tests.conftest import example
from tests.factories import UserFactory, user_playing_as
from tournaments import commands, grants
from tournaments.importer import import_document
from tournaments.models import AuditEntry, RosterEntry, Stage, Team, Tournament, TournamentFamily

pytestmark = pytest.mark.django_db

PAGE_QUERIES = 9  # session, user, tournament, the reader's roles; the roles, teams, rosters, families, stages


@pytest.fixture
def season() -> Tournament:
    tournament = import_document(example("chgk_tour_points"))
    Stage.objects.create(tournament=tournament, key="final", order=9)  # a second stage for a judge to name
    return tournament


@pytest.fixture
def organizer(season):
    user = UserFactory(username="olga")
    TournamentRole.objects.create(user=user, tournament=season, role=Role.ORGANIZER)
    return user


def browser(user, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.cookies["django_language"] = language
    if user is not None:
        client.force_login(user)
    return client


def api(user) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        client.force_authenticate(user)
    return client


def page_url(tournament: Tournament) -> str:
    return reverse("tournament-roles", args=[tournament.slug])


def api_url(tournament: Tournament) -> str:
    return f"/api/v1/tournaments/{tournament.slug}/roles/"


def held(tournament: Tournament) -> set[tuple[str, str, tuple[str, ...]]]:
    return {(username, role, tuple(stages)) for username, role, stages in TournamentRole.objects.filter(
        tournament=tournament).values_list("user__username", "role", "stages")}


def state(tournament: Tournament) -> tuple:
    """Everything a grant could change, to show that a refused one changed nothing."""
    return (held(tournament), sorted(Team.objects.filter(tournament=tournament).values_list("name", "captain_id")),
            sorted(Family.objects.values_list("name", "head_id")), AuditEntry.objects.count())


def post(client: Client, tournament: Tournament, **data):
    return client.post(page_url(tournament), data, follow=True)


def page_messages(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def family_of(tournament: Tournament, name: str = "Clan") -> Family:
    family = Family.objects.create(name=name)
    TournamentFamily.objects.create(tournament=tournament, family=family)
    return family


# --- the page ---


@pytest.mark.parametrize("role", grants.TOURNAMENT_ROLES)
def test_the_organizer_grants_and_revokes_each_role_of_the_tournament_on_the_page(season, organizer, role):
    UserFactory(username="ivan")
    client = browser(organizer)
    page = post(client, season, action="grant", user="ivan", role=role)
    assert ("ivan", role, ()) in held(season), page_messages(page)
    assert any("ivan" in text for text in page_messages(page))
    entry = AuditEntry.objects.filter(tournament=season).latest("id")
    assert (entry.action, entry.model, entry.username) == ("grant_role", "accounts.TournamentRole", "olga")
    assert entry.after["role"] == role and entry.before is None
    shown = client.get(page_url(season)).content.decode()
    assert f'data-role="{role}" data-user="ivan"' in shown

    page = post(client, season, action="revoke", user="ivan", role=role)
    assert not any(name == "ivan" for name, _role, _stages in held(season)), page_messages(page)
    entry = AuditEntry.objects.filter(tournament=season).latest("id")
    assert (entry.action, entry.after, entry.before["role"]) == ("revoke_role", None, role)


def test_a_judges_stages_are_recorded_and_replaced_and_none_means_every_stage(season, organizer):
    UserFactory(username="ivan")
    client = browser(organizer)
    post(client, season, action="grant", user="ivan", role=Role.JUDGE, stages=["final"])
    assert held(season) >= {("ivan", Role.JUDGE, ("final",))}
    post(client, season, action="grant", user="ivan", role=Role.JUDGE, stages=["final", "season"])
    assert ("ivan", Role.JUDGE, ("season", "final")) in held(season), "in the tournament's order of stages"
    post(client, season, action="grant", user="ivan", role=Role.JUDGE)
    assert ("ivan", Role.JUDGE, ()) in held(season)
    grants_of_ivan = AuditEntry.objects.filter(tournament=season, action="grant_role").order_by("id")
    assert [e.after.get("stages") for e in grants_of_ivan] == [
        ["final"], ["season", "final"], {"$text": "every stage", "params": {}}]
    page = post(client, season, action="grant", user="ivan", role=Role.JUDGE)
    assert AuditEntry.objects.filter(tournament=season, action="grant_role").count() == 3, "already held as it is"
    assert any("already" in text for text in page_messages(page))
    refused = post(client, season, action="grant", user="ivan", role=Role.CURATOR, stages=["final"])
    assert ("ivan", Role.CURATOR, ("final",)) not in held(season)
    assert any("only a judge's role names stages" in text for text in page_messages(refused))


@pytest.mark.parametrize(("language", "granted", "revoked", "captain"), [
    ("en", "role granted", "role revoked", "captain named"), ("ru", "роль выдана", "роль отозвана", "капитан назначен")])
def test_the_history_words_every_grant_in_the_readers_language(season, organizer, language, granted,
                                                                       revoked, captain):
    UserFactory(username="ivan")
    family = family_of(season)
    Player.objects.create(nick="Boss")
    client = browser(organizer)
    post(client, season, action="grant", user="ivan", role=Role.JUDGE, stages=["final"])
    post(client, season, action="grant", user="ivan", role=Role.CURATOR)
    post(client, season, action="revoke", user="ivan", role=Role.CURATOR)
    signum = Team.objects.get(tournament=season, name="Signum")
    post(client, season, action="captain", team=signum.pk, player="Signum 2")
    post(client, season, action="head", family=family.pk, player="Boss")
    page = browser(organizer, language).get(reverse("history", args=[season.slug]))
    text = page.content.decode()
    assert page.status_code == 200
    for words in (granted, revoked, captain, "ivan", "Signum 2", "Boss", "Signum captain"):
        assert words in text, words
    judge = {"en": "final", "ru": "финал"}[language]
    assert judge in text, "a judge's stages by their names"
    assert {"en": "family head named", "ru": "глава семьи назначен"}[language] in text


def test_the_organizer_names_and_clears_captains_of_the_roster_only(season, organizer):
    client = browser(organizer)
    signum = Team.objects.get(tournament=season, name="Signum")
    post(client, season, action="captain", team=signum.pk, player="Signum 3")
    signum.refresh_from_db()
    assert signum.captain.nick == "Signum 3"
    entry = AuditEntry.objects.filter(tournament=season).latest("id")
    assert (entry.action, entry.model, entry.after["captain"]) == ("set_captain", "tournaments.Team",
                                                                   signum.captain_id)
    refused = post(client, season, action="captain", team=signum.pk, player="Felidae 2")
    signum.refresh_from_db()
    assert signum.captain.nick == "Signum 3" and any("Felidae 2" in m for m in page_messages(refused))
    post(client, season, action="captain", team=signum.pk, player="")
    signum.refresh_from_db()
    assert signum.captain is None


def test_the_organizer_names_and_clears_a_familys_head(season, organizer):
    family = family_of(season)
    Player.objects.create(nick="Boss")
    client = browser(organizer)
    assert 'data-family="Clan"' in client.get(page_url(season)).content.decode()
    post(client, season, action="head", family=family.pk, player="boss")  # letter case aside
    family.refresh_from_db()
    assert family.head.nick == "Boss"
    entry = AuditEntry.objects.filter(tournament=season).latest("id")
    assert (entry.action, entry.before, entry.after) == ("set_head", {"head": None}, {"head": "Boss"})
    refused = post(client, season, action="head", family=family.pk, player="Nobody")
    family.refresh_from_db()
    assert family.head.nick == "Boss" and any("Nobody" in m for m in page_messages(refused))
    post(client, season, action="head", family=family.pk, player="")
    family.refresh_from_db()
    assert family.head is None


def test_a_familys_head_is_named_by_who_organizes_every_tournament_it_plays(season, organizer):
    family = family_of(season)
    other = import_document(example("family_league"))
    TournamentFamily.objects.create(tournament=other, family=family)
    Player.objects.create(nick="Boss")
    before = state(season)
    with pytest.raises(NotAllowed, match="FL-1"):
        grants.set_family_head(organizer, season, family, "Boss")
    assert state(season) == before
    TournamentRole.objects.create(user=organizer, tournament=other, role=Role.ORGANIZER)
    organizer = type(organizer).objects.get(pk=organizer.pk)  # the roles read afresh
    assert grants.set_family_head(organizer, season, family, "Boss")[1]


def test_nobody_revokes_their_own_last_organizer_role(season, organizer):
    client = browser(organizer)
    before = state(season)
    page = post(client, season, action="revoke", user="olga", role=Role.ORGANIZER)
    assert state(season) == before
    assert any("last organizer" in text for text in page_messages(page))
    UserFactory(username="pavel")
    post(client, season, action="grant", user="pavel", role=Role.ORGANIZER)
    gone = post(client, season, action="revoke", user="olga", role=Role.ORGANIZER)
    assert ("olga", Role.ORGANIZER, ()) not in held(season)
    assert gone.redirect_chain[-1][0] == season.get_absolute_url(), "the roles page is no longer hers"
    assert ("pavel", Role.ORGANIZER, ()) in held(season)


def _outsiders(tournament: Tournament) -> list:
    users = []
    for role in (Role.JUDGE, Role.CURATOR, Role.JURY, Role.PLAYER):
        user = UserFactory(username=f"as-{role}")
        TournamentRole.objects.create(user=user, tournament=tournament, role=role)
        users.append(user)
    captain = user_playing_as("Signum captain", username="captain")
    return [*users, captain, UserFactory(username="outsider")]


def test_anyone_but_the_organizer_gets_the_styled_403_and_nothing_changes(season, organizer):
    UserFactory(username="ivan")
    family = family_of(season)
    signum = Team.objects.get(tournament=season, name="Signum")
    attempts = [{"action": "grant", "user": "ivan", "role": Role.JURY},
                {"action": "revoke", "user": "olga", "role": Role.ORGANIZER},
                {"action": "captain", "team": signum.pk, "player": "Signum 2"},
                {"action": "head", "family": family.pk, "player": "Signum 2"}]
    for user in _outsiders(season):
        before = state(season)
        client = browser(user)
        page = client.get(page_url(season))
        assert page.status_code == 403, user.username
        assert "Only the organizers of" in page.content.decode()
        assert "accounts/forbidden.html" in [t.name for t in page.templates]
        for data in attempts:
            refused = client.post(page_url(season), data)
            assert refused.status_code == 403, (user.username, data)
        assert state(season) == before, user.username
    assert browser(None).get(page_url(season)).status_code == 302, "to the login page"


def test_staff_grant_as_the_organizer_does(season):
    UserFactory(username="ivan")
    staff = UserFactory(username="root", is_staff=True)
    post(browser(staff), season, action="grant", user="ivan", role=Role.CURATOR)
    assert ("ivan", Role.CURATOR, ()) in held(season)


def test_the_page_reads_in_a_bounded_number_of_queries(season, organizer, django_assert_max_num_queries):
    client = browser(organizer)
    with django_assert_max_num_queries(PAGE_QUERIES):
        small = client.get(page_url(season))
    assert small.status_code == 200
    for i in range(12):
        user = user_playing_as(f"juror {i}", username=f"juror{i}")
        TournamentRole.objects.create(user=user, tournament=season, role=[Role.JURY, Role.JUDGE][i % 2],
                                      stages=["final"] if i % 2 else [])
        family_of(season, f"Clan {i}")
    for i in range(6):
        team = Team.objects.create(tournament=season, name=f"Extra {i}", order=20 + i)
        for j in range(4):
            RosterEntry.objects.create(team=team, player=Player.objects.create(nick=f"Extra {i}.{j}"), order=j)
    with django_assert_max_num_queries(PAGE_QUERIES):
        large = client.get(page_url(season))
    text = large.content.decode()
    assert "juror11" in text and "Extra 5.3" in text and "Clan 11" in text


# --- the API ---


def test_the_api_lists_grants_and_revokes_every_role(season, organizer):
    UserFactory(username="ivan")
    family = family_of(season)
    Player.objects.create(nick="Boss")
    client = api(organizer)
    mark = AuditEntry.objects.latest("id").pk
    answer = client.post(api_url(season), {"role": "judge", "user": "ivan", "stages": ["final"]}, format="json")
    assert answer.status_code == 201, answer.json()
    assert answer.json()["stages"] == ["final"] and answer.json()["user"] == "ivan"
    again = client.post(api_url(season), {"role": "judge", "user": "ivan", "stages": ["final"]}, format="json")
    assert again.status_code == 200
    assert client.post(api_url(season), {"role": "captain", "team": "Signum", "player": "Signum 4"},
                       format="json").status_code == 201
    assert client.post(api_url(season), {"role": "family_head", "family": "Clan", "player": "Boss"},
                       format="json").status_code == 201
    listing = client.get(api_url(season)).json()
    assert {(r["role"], r["user"], tuple(r["stages"])) for r in listing["roles"]} == {
        ("organizer", "olga", ()), ("judge", "ivan", ("final",))}
    assert {"role": "captain", "team": "Signum", "team_id": Team.objects.get(name="Signum").pk, "stage": None,
            "player": "Signum 4"} in listing["captains"]
    assert listing["family_heads"] == [{"role": "family_head", "family": "Clan", "family_id": family.pk,
                                        "player": "Boss"}]

    revoked = client.delete(f"{api_url(season)}?role=judge&user=ivan")
    assert revoked.status_code == 200 and revoked.json()["stages"] == ["final"]
    assert client.delete(f"{api_url(season)}?role=judge&user=ivan").status_code == 404
    assert client.delete(f"{api_url(season)}?role=captain&team=Signum").json()["player"] == "Signum 4"
    assert Team.objects.get(name="Signum").captain is None
    assert client.delete(f"{api_url(season)}?role=family_head&family=Clan").json()["player"] == "Boss"
    assert Family.objects.get(name="Clan").head is None
    actions = list(AuditEntry.objects.filter(pk__gt=mark).order_by("id").values_list("action", flat=True))
    assert actions == ["grant_role", "set_captain", "set_head", "revoke_role", "set_captain", "set_head"]


def test_the_api_refuses_what_it_cannot_do_naming_the_field(season, organizer):
    client = api(organizer)
    for body, path in (({"role": "umpire", "user": "olga"}, "role"), ({"role": "judge", "user": "nobody"}, "user"),
                       ({"role": "judge", "user": "olga", "stages": ["semi"]}, "stages"),
                       ({"role": "captain", "team": "Nobody", "player": "x"}, "team"),
                       ({"role": "player", "user": "olga"}, "role"), ({"role": "judge", "colour": 1}, "colour")):
        answer = client.post(api_url(season), body, format="json")
        assert answer.status_code == 400, body
        assert [e["path"] for e in answer.json()["errors"]] == [path], answer.json()
    last = client.delete(f"{api_url(season)}?role=organizer&user=olga")
    assert last.status_code == 400 and "last organizer" in last.json()["errors"][0]["message"]


def test_the_api_refuses_anyone_but_the_organizer_with_the_rule(season, organizer):
    UserFactory(username="ivan")
    for user in [*_outsiders(season), None]:
        before = state(season)
        client = api(user)
        answers = [client.get(api_url(season)),
                   client.post(api_url(season), {"role": "jury", "user": "ivan"}, format="json"),
                   client.delete(f"{api_url(season)}?role=organizer&user=olga")]
        refusal = 403 if user is not None else 401  # no credentials: 401 saying how to authenticate
        assert [a.status_code for a in answers] == [refusal] * 3, getattr(user, "username", None)
        if user is not None:
            assert all("Only the organizers of" in a.json()["detail"] for a in answers)
        assert state(season) == before


# --- CHGK-11 from both sides ---


def test_chgk_11_the_jury_role_is_refused_to_a_rostered_player_on_the_page_and_in_the_api(season, organizer):
    user_playing_as("Signum 2", username="sig")
    before = state(season)
    page = post(browser(organizer), season, action="grant", user="sig", role=Role.JURY)
    assert any("CHGK-11" in text and "Signum" in text for text in page_messages(page))
    answer = api(organizer).post(api_url(season), {"role": "jury", "user": "sig"}, format="json")
    assert answer.status_code == 400 and "CHGK-11" in answer.json()["errors"][0]["message"]
    assert state(season) == before
    RosterEntry.objects.filter(player__nick="Signum 2").update(left_at=timezone.now())
    assert api(organizer).post(api_url(season), {"role": "jury", "user": "sig"}, format="json").status_code == 201
    assert ("sig", Role.JURY, ()) in held(season), "once off the roster, they may sit on the jury"


def test_chgk_11_a_jurors_player_is_refused_a_roster_of_the_tournament(season, organizer):
    juror = user_playing_as("Judge Dredd", username="dredd")
    grants.grant_role(organizer, season, "dredd", Role.JURY)
    with pytest.raises(Invalid, match="CHGK-11"):
        commands.add_to_roster(organizer, season, None, "Signum", "Judge Dredd")
    signum = Team.objects.get(tournament=season, name="Signum")
    with pytest.raises(captains.RosterRefused, match="CHGK-11"):
        captains.add_players(organizer, signum, ["Judge Dredd"])
    assert not RosterEntry.objects.filter(player__user=juror).exists()
    grants.revoke_role(organizer, season, "dredd", Role.JURY)
    assert captains.add_players(organizer, signum, ["Judge Dredd"])


def test_the_roster_files_captain_goes_through_the_same_command(season, organizer):
    signum = Team.objects.get(tournament=season, name="Signum")
    commands.set_captain(organizer, signum, "Signum 5")
    assert Team.objects.get(pk=signum.pk).captain.nick == "Signum 5"
    assert AuditEntry.objects.filter(tournament=season).latest("id").action == "set_captain"
    with pytest.raises(NotAllowed):
        commands.set_captain(UserFactory(), signum, "Signum 2")
