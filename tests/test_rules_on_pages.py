"""Rules that reach the pages beyond the standings tables."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest
from django.utils import timezone

from accounts.models import Player
from scoring.services import compute_all, next_recheck, store
from tests.conftest import example
from tournaments.importer import import_document
from tournaments.loader import load_facts
from tournaments.models import Tournament

pytestmark = pytest.mark.django_db
MSK = zoneinfo.ZoneInfo("Europe/Moscow")


def load(document: dict) -> Tournament:
    """Import and store the snapshots, as the recompute job would."""
    tournament = import_document(document)
    facts, now = load_facts(tournament), timezone.now()
    store(tournament, compute_all(facts, now), now, next_recheck(facts, now))
    return Tournament.objects.get(pk=tournament.pk)


def player_page(client, nick: str) -> str:
    player = Player.objects.get(nick=nick)
    response = client.get(f"/players/{player.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    return response.content.decode()


def test_fl_20_only_family_members_who_played_get_the_teams_cup_on_their_page(client):
    """Fam06 wins the example's final: Fam06-p1 played and gets the gold cup; Fam06-p2 never played and does not."""
    load(example("family_league"))
    played = player_page(client, "Fam06-p1")
    never = player_page(client, "Fam06-p2")
    assert "gold cup" in played
    assert "gold cup" not in never
    assert "place 1" in never, "the team's place is still shown to the roster member"


def _class_balanced_with_a_decision(published: dt.datetime) -> Tournament:
    document = example("class_balanced")
    game = document["stages"][0]["games"][0]
    document["decisions"] = [{"kind": "replay", "stage": document["stages"][0]["key"], "game": game["number"],
                              "code": "FP-1", "decided_at": published.isoformat(),
                              "published_at": published.isoformat(), "by": "Tiberi", "text": "a replay"}]
    return load(document)


def _game_page(client, tournament: Tournament) -> str:
    from tournaments.models import Game

    game = Game.objects.filter(stage__tournament=tournament).order_by("stage__order", "number").first()
    response = client.get(f"/t/{tournament.slug}/{game.stage.key}/games/{game.number}/", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 200
    return response.content.decode()


def test_cb_17_game_page_shows_a_decisions_times_its_appeal_deadline_and_the_link_while_it_is_open(client):
    from tests.factories import user_playing_as
    from tournaments.models import RosterEntry

    published = timezone.now() - dt.timedelta(hours=1)
    tournament = _class_balanced_with_a_decision(published)
    anonymous = _game_page(client, tournament)
    deadline = published + dt.timedelta(hours=48)  # CB-17: 48 hours after publication
    assert "appeals until" in anonymous and f'datetime="{deadline.astimezone(MSK).isoformat()}"' in anonymous
    assert "decided" in anonymous and "published" in anonymous
    assert "Appeal this decision" not in anonymous, "only those entitled see the link"
    nick = RosterEntry.objects.filter(team__tournament=tournament).values_list("player__nick", flat=True).first()
    client.force_login(user_playing_as(nick))
    page = _game_page(client, tournament)
    assert "Appeal this decision" in page and "?decision=1" in page


def test_gp_23_fl_19_cb_17_a_closed_appeal_window_shows_no_link(client):
    from tests.factories import user_playing_as
    from tournaments.models import RosterEntry

    tournament = _class_balanced_with_a_decision(timezone.now() - dt.timedelta(days=3))
    nick = RosterEntry.objects.filter(team__tournament=tournament).values_list("player__nick", flat=True).first()
    client.force_login(user_playing_as(nick))
    page = _game_page(client, tournament)
    assert "(closed)" in page and "Appeal this decision" not in page


def _chgk_season() -> Tournament:
    return load(example("chgk_tour_points"))


def test_chgk_20_a_player_the_captain_delegated_files_during_the_period_and_not_after():
    from appeals.services import AppealRefused, AppealTarget, file_appeal
    from formats.chgk_tour_points.captains import delegate_filing
    from tests.factories import user_playing_as
    from tournaments.models import Team, Tour

    tournament = _chgk_season()
    team = Team.objects.select_related("captain").filter(tournament=tournament).first()
    tour = Tour.objects.filter(stage__tournament=tournament, host__isnull=False).exclude(host=team).order_by(
        "number").first() or Tour.objects.filter(stage__tournament=tournament).order_by("number").first()
    deputy = team.roster.exclude(player=team.captain).select_related("player").first().player
    captain_user, deputy_user = user_playing_as(team.captain.nick), user_playing_as(deputy.nick)
    filed_at = dt.datetime.combine(tour.played_on, dt.time(20, 0), tzinfo=MSK)
    target = AppealTarget(kind="accept_answer", tour=tour, question=1)
    with pytest.raises(AppealRefused, match="CHGK-20"):
        file_appeal(tournament, deputy_user, target, team=team, answer="x", now=filed_at)
    delegate_filing(captain_user, team, deputy.pk, filed_at - dt.timedelta(hours=1), filed_at + dt.timedelta(hours=1))
    appeal = file_appeal(tournament, deputy_user, target, team=team, answer="x", now=filed_at)
    assert appeal.filed_by == deputy_user, "the appeal shows who filed it"
    with pytest.raises(AppealRefused, match="CHGK-20"):
        file_appeal(tournament, deputy_user, target, team=team, answer="y", now=filed_at + dt.timedelta(hours=2))


def test_chgk_20_only_the_captain_or_the_organizer_delegates_and_only_to_a_player_of_the_team():
    from accounts.models import Role
    from formats.chgk_tour_points.captains import RosterRefused, delegate_filing
    from tests.factories import RoleFactory, UserFactory, user_playing_as
    from tournaments.models import Team

    tournament = _chgk_season()
    team, other = list(Team.objects.select_related("captain").filter(tournament=tournament)[:2])
    deputy = team.roster.exclude(player=team.captain).first().player
    start = timezone.now()
    with pytest.raises(RosterRefused, match="CHGK-20"):
        delegate_filing(user_playing_as(deputy.nick), team, deputy.pk, start, start + dt.timedelta(days=1))
    with pytest.raises(RosterRefused, match="CHGK-20"):
        delegate_filing(user_playing_as(team.captain.nick), team, other.captain_id, start, start + dt.timedelta(days=1))
    organizer = UserFactory()
    RoleFactory(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    delegation = delegate_filing(organizer, team, deputy.pk, start, start + dt.timedelta(days=1))
    assert delegation.granted_by == organizer and delegation.granted_at is not None


def test_chgk_20_the_appeal_page_shows_who_filed_it_once_the_team_may_be_shown(client):
    from appeals.services import AppealTarget, file_appeal
    from tests.factories import user_playing_as
    from tournaments.models import Team, Tour

    tournament = _chgk_season()
    team = Team.objects.select_related("captain").filter(tournament=tournament).first()
    tour = Tour.objects.filter(stage__tournament=tournament).order_by("number").first()
    captain_user = user_playing_as(team.captain.nick)
    filed_at = dt.datetime.combine(tour.played_on, dt.time(20, 0), tzinfo=MSK)
    appeal = file_appeal(tournament, captain_user, AppealTarget(kind="accept_answer", tour=tour, question=1),
                         team=team, answer="x", now=filed_at)
    client.force_login(captain_user)
    page = client.get(f"/appeals/{appeal.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Filed by" in page and team.captain.nick in page


def test_chgk_20_the_captain_delegates_filing_on_the_team_page_and_sees_who_gave_it(client):
    from tests.factories import user_playing_as
    from tournaments.models import FilingDelegation, Team

    tournament = _chgk_season()
    team = Team.objects.select_related("captain").filter(tournament=tournament).first()
    deputy = team.roster.exclude(player=team.captain).first().player
    captain_user = user_playing_as(team.captain.nick)
    client.force_login(captain_user)
    url = f"/accounts/teams/{team.pk}/manage/"
    assert "CHGK-20" in client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    response = client.post(url, {"action": "delegate", "delegate-player": deputy.pk,
                                 "delegate-starts_at": "2013-02-14T10:00", "delegate-ends_at": "2013-02-13T10:00"},
                           HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 400 and not FilingDelegation.objects.exists(), "an end before the start is refused"
    response = client.post(url, {"action": "delegate", "delegate-player": deputy.pk,
                                 "delegate-starts_at": "2013-02-14T10:00", "delegate-ends_at": "2013-02-16T10:00"},
                           HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 302
    delegation = FilingDelegation.objects.get()
    assert delegation.player == deputy and delegation.granted_by == captain_user
    page = client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert deputy.nick in page and f"given by {captain_user.get_username()}" in page
