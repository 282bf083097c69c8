"""Entry to the family league: applications (FL-1, FL-2), eligibility (FL-3), the calendar (FL-9)."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import icalendar
import pytest
from django.urls import reverse
from django.utils import timezone

from accounts.models import Blacklist, Family, FamilyMembership, Player, Role
from formats.family_league import services as entry
from formats.family_league.tasks import remove_ineligible_players
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tournaments.models import AuditEntry, Game, GameStatus, Group, GroupTeam, RosterEntry, Stage, Team, Tournament

MSK = zoneinfo.ZoneInfo("Europe/Moscow")
FRIDAY = dt.date(2014, 9, 5)
pytestmark = pytest.mark.django_db


def league(**kwargs) -> Tournament:
    values = {"slug": "fl-entry", "name": "Family league", "ruleset": "family_league", "starts_on": FRIDAY,
              "registration_deadline": timezone.now() + dt.timedelta(days=3)}
    values.update(kwargs)
    return Tournament.objects.create(**values)


def family(name: str, members: int = 3, head_user: bool = True):
    """A family ``name`` with current members ``name-p1..``; p1 is the head (a user if ``head_user``)."""
    fam = Family.objects.create(name=name)
    players = [Player.objects.create(nick=f"{name}-p{i}") for i in range(1, members + 1)]
    for player in players:
        FamilyMembership.objects.create(family=fam, player=player, joined_on=dt.date(2014, 1, 1))
    fam.head = players[0]
    fam.save()
    user = user_playing_as(players[0].nick) if head_user else None
    return fam, players, user


def enter(tournament, fam, players) -> Team:
    team = Team.objects.create(tournament=tournament, name=fam.name, family=fam)
    for index, player in enumerate(players):
        RosterEntry.objects.create(team=team, player=player, order=index)
    return team


def test_fl1_the_head_applies_and_the_team_is_named_after_the_family_with_the_chosen_members(client):
    tournament = league()
    fam, players, head = family("Corleone")
    client.force_login(head)
    response = client.post(reverse("family-apply", args=[tournament.slug]),
                           {"family": fam.pk, "players": [players[0].pk, players[2].pk]})
    assert response.status_code == 302
    team = Team.objects.get(tournament=tournament)
    assert (team.name, team.family) == ("Corleone", fam)
    assert sorted(team.roster.values_list("player__nick", flat=True)) == ["Corleone-p1", "Corleone-p3"]
    page = client.get(response["Location"])
    assert page.status_code == 200
    assert "Corleone-p3" in page.content.decode()


def test_fl1_a_member_who_is_not_the_head_is_refused(client):
    tournament = league()
    fam, players, _head = family("Corleone")
    member = UserFactory()
    players[1].user, players[1].claim_confirmed = member, True
    players[1].save()
    client.force_login(member)
    response = client.post(reverse("family-apply", args=[tournament.slug]), {"players": [players[1].pk]})
    assert response.status_code == 403
    assert not Team.objects.filter(tournament=tournament).exists()
    with pytest.raises(entry.EntryRefused):
        entry.apply(member, tournament, fam, [players[1].pk])


def test_fl1_the_roster_holds_only_current_members_not_pending_requests():
    tournament = league()
    fam, players, head = family("Corleone")
    stranger = Player.objects.create(nick="asker")
    FamilyMembership.objects.create(family=fam, player=stranger, joined_on=None)
    with pytest.raises(entry.EntryRefused):
        entry.apply(head, tournament, fam, [players[0].pk, stranger.pk])
    assert not Team.objects.filter(tournament=tournament).exists()


def test_fl2_an_application_after_the_registration_deadline_is_refused(client):
    tournament = league(registration_deadline=timezone.now() - dt.timedelta(minutes=1))
    fam, players, head = family("Corleone")
    client.force_login(head)
    response = client.post(reverse("family-apply", args=[tournament.slug]), {"players": [players[0].pk]})
    assert response.status_code == 403
    assert "FL-2" in response.content.decode()
    assert not Team.objects.filter(tournament=tournament).exists()
    page = client.get(reverse("family-apply", args=[tournament.slug]))
    assert page.status_code == 200 and "FL-2" in page.content.decode() and 'name="players"' not in (
        page.content.decode())


def test_fl2_the_page_counts_applied_families_against_min_teams(client):
    tournament = league(settings={"min_teams": 3})
    first, first_players, _ = family("Barzini", head_user=False)
    enter(tournament, first, first_players)
    fam, _players, head = family("Corleone")
    assert entry.applications(tournament) == entry.Applications(1, 3)
    assert not entry.applications(tournament).enough
    client.force_login(head)
    page = client.get(reverse("family-apply", args=[tournament.slug])).content.decode()
    assert "1 of at least 3" in page or "1 из не менее 3" in page


def test_fl3_a_blacklisted_pair_of_two_families_is_both_flagged_and_shown_to_the_head(client):
    tournament = league()
    corleone, c_players, head = family("Corleone")
    barzini, b_players, _ = family("Barzini", head_user=False)
    enter(tournament, corleone, c_players)
    enter(tournament, barzini, b_players)
    Blacklist.objects.create(owner=b_players[1], blocked=c_players[2])
    warnings = entry.warnings_for(tournament)
    assert {(w.team, w.player, w.reason) for w in warnings} == {
        ("Barzini", "Barzini-p2", "blacklist"), ("Corleone", "Corleone-p3", "blacklist")}
    client.force_login(head)
    page = client.get(reverse("family-apply", args=[tournament.slug])).content.decode()
    assert "Corleone-p3" in page and "Barzini-p2" in page and "FL-3" in page


def test_fl3_warnings_for_a_banned_player_and_one_who_left_the_family():
    tournament = league()
    fam, players, _head = family("Corleone")
    enter(tournament, fam, players)
    players[1].banned = True
    players[1].save()
    FamilyMembership.objects.filter(player=players[2]).update(left_on=dt.date(2014, 2, 1))
    assert {(w.player, w.reason) for w in entry.warnings_for(tournament)} == {
        ("Corleone-p2", "banned"), ("Corleone-p3", "membership")}


def _judgeable(start_in: dt.timedelta):
    tournament = league(starts_on=timezone.localdate())
    stage = Stage.objects.create(tournament=tournament, key="final")
    start = timezone.now() + start_in
    Game.objects.create(stage=stage, number=1, status=GameStatus.SCHEDULED, scheduled_at=start)
    corleone, c_players, _ = family("Corleone", head_user=False)
    barzini, b_players, _ = family("Barzini", head_user=False)
    enter(tournament, corleone, c_players)
    enter(tournament, barzini, b_players)
    Blacklist.objects.create(owner=c_players[1], blocked=b_players[1])
    b_players[2].banned = True
    b_players[2].save()
    return tournament, start


def test_fl3_the_beat_job_removes_exactly_the_failing_players_once_at_the_judging_moment():
    tournament, start = _judgeable(dt.timedelta(hours=2))
    result = remove_ineligible_players.delay().get()
    assert result == {tournament.slug: [["Barzini", "Barzini-p2"], ["Barzini", "Barzini-p3"],
                                        ["Corleone", "Corleone-p2"]]}
    left = RosterEntry.objects.filter(team__tournament=tournament, left_at__isnull=False)
    assert sorted(left.values_list("player__nick", flat=True)) == ["Barzini-p2", "Barzini-p3", "Corleone-p2"]
    assert {e.left_at for e in left} == {start - dt.timedelta(hours=24)}
    assert RosterEntry.objects.filter(team__tournament=tournament, left_at__isnull=True).count() == 3
    marker = AuditEntry.objects.get(tournament=tournament, action=entry.JUDGED_ACTION)
    assert len(marker.after["removed"]) == 3
    assert remove_ineligible_players() == {}
    assert AuditEntry.objects.filter(tournament=tournament, action=entry.JUDGED_ACTION).count() == 1


def test_fl3_the_beat_job_waits_for_the_judging_moment():
    tournament, _start = _judgeable(dt.timedelta(hours=30))
    assert remove_ineligible_players() == {}
    assert not RosterEntry.objects.filter(team__tournament=tournament, left_at__isnull=False).exists()


def test_fl3_the_beat_job_leaves_a_tournament_already_under_way_alone():
    tournament, _start = _judgeable(dt.timedelta(hours=-30))
    Game.objects.create(stage=tournament.stages.get(), number=2, status=GameStatus.PLAYED)
    assert remove_ineligible_players() == {}
    assert not RosterEntry.objects.filter(team__tournament=tournament, left_at__isnull=False).exists()


def _qualifying(tournament):
    stage = Stage.objects.create(tournament=tournament, key="qualifying")
    for number in (1, 2):
        group = Group.objects.create(stage=stage, name=str(number), order=number)
        team = Team.objects.create(tournament=tournament, name=f"Team {number}", order=number)
        GroupTeam.objects.create(group=group, team=team)
    return stage


def test_fl9_the_calendar_for_a_friday_start_skips_the_weekend_and_staggers_groups(client):
    tournament = league()
    stage = _qualifying(tournament)
    organizer = UserFactory()
    RoleFactory(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    client.force_login(organizer)
    url = reverse("family-calendar", args=[tournament.slug, stage.key])
    preview = client.get(url, {"starts_on": FRIDAY.isoformat()})
    assert preview.status_code == 200 and "МТ, группа 2, тур 2, партия 1" in preview.content.decode()
    assert client.post(url, {"starts_on": FRIDAY.isoformat()}).status_code == 302
    games = list(stage.games.order_by("number"))
    assert len(games) == 40 and all(g.status == GameStatus.SCHEDULED for g in games)
    local = [(g.group_label, g.scheduled_at.astimezone(MSK).strftime("%a %d %H:%M")) for g in games[:6]]
    assert local == [("1", "Fri 05 19:00"), ("2", "Fri 05 19:05"), ("1", "Fri 05 22:00"), ("2", "Fri 05 22:05"),
                     ("1", "Mon 08 19:00"), ("2", "Mon 08 19:05")]
    assert all(g.scheduled_at.astimezone(MSK).weekday() < 5 for g in games)
    assert games[0].group.name == "1" and games[4].round == 2
    feed = client.get(reverse("api-schedule-ics", kwargs={"slug": tournament.slug}), {"stage": stage.key})
    events = icalendar.Calendar.from_ical(feed.content).walk("VEVENT")
    assert len(events) == 40
    page = client.get(reverse("family-apply", args=[tournament.slug]))
    assert page.status_code == 403  # the organizer heads no family (FL-1)


def test_fl_9_the_ics_feed_is_the_leagues_calendar_room_comments_five_minute_rooms_staggered_groups(client):
    """FL-9: the feed names each event by the room comment stored on the game, ends it when the room closes
    (5 minutes), and keeps the groups' rooms 5 minutes apart; an imported game gets its comment computed."""
    tournament = league()
    stage = _qualifying(tournament)
    organizer = UserFactory()
    RoleFactory(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    client.force_login(organizer)
    client.post(reverse("family-calendar", args=[tournament.slug, stage.key]), {"starts_on": FRIDAY.isoformat()})
    first = stage.games.get(number=1)
    assert first.room_comment == "МТ, группа 1, тур 1, партия 1", "the comment is stored on the game"
    feed = client.get(reverse("api-schedule-ics", kwargs={"slug": tournament.slug}), {"stage": stage.key})
    events = icalendar.Calendar.from_ical(feed.content).walk("VEVENT")
    by_summary = {str(e["SUMMARY"]): e for e in events}
    one, two = by_summary["МТ, группа 1, тур 1, партия 1"], by_summary["МТ, группа 2, тур 1, партия 1"]
    assert one["DTEND"].dt - one["DTSTART"].dt == dt.timedelta(minutes=5)
    assert two["DTSTART"].dt - one["DTSTART"].dt == dt.timedelta(minutes=5)
    assert "МТ, группа 2, тур 2, партия 1" in by_summary
    Game.objects.filter(stage=stage).update(room_comment="")
    feed = client.get(reverse("api-schedule-ics", kwargs={"slug": tournament.slug}), {"stage": stage.key})
    summaries = {str(e["SUMMARY"]) for e in icalendar.Calendar.from_ical(feed.content).walk("VEVENT")}
    assert "МТ, группа 2, тур 2, партия 1" in summaries, "a game without a stored comment gets the calendar's"


def test_fl9_only_an_organizer_generates_and_never_once_the_stage_has_games_held(client):
    tournament = league()
    stage = _qualifying(tournament)
    url = reverse("family-calendar", args=[tournament.slug, stage.key])
    client.force_login(UserFactory())
    assert client.post(url, {"starts_on": FRIDAY.isoformat()}).status_code == 403
    assert not stage.games.exists()
    organizer = UserFactory()
    RoleFactory(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    Game.objects.create(stage=stage, number=1, status=GameStatus.PLAYED)
    client.force_login(organizer)
    assert client.post(url, {"starts_on": FRIDAY.isoformat()}).status_code == 403
    assert list(stage.games.values_list("status", flat=True)) == [GameStatus.PLAYED]


@pytest.mark.parametrize("families", [2, 20])
def test_the_application_page_reads_a_bounded_number_of_queries(client, django_assert_max_num_queries, families):
    tournament = league()
    for index in range(families):
        fam, players, _ = family(f"F{index:02d}", members=4, head_user=False)
        enter(tournament, fam, players)
        Blacklist.objects.create(owner=players[1], blocked=players[2])
    fam, _players, head = family("Corleone")
    client.force_login(head)
    with django_assert_max_num_queries(20):
        assert client.get(reverse("family-apply", args=[tournament.slug])).status_code == 200


@pytest.mark.parametrize("teams_per_group", [1, 15])
def test_the_calendar_page_reads_a_bounded_number_of_queries(client, django_assert_max_num_queries, teams_per_group):
    tournament = league()
    stage = _qualifying(tournament)
    for group in stage.groups.all():
        for index in range(teams_per_group):
            team = Team.objects.create(tournament=tournament, name=f"{group.name}-{index}", order=10 + index)
            GroupTeam.objects.create(group=group, team=team, order=index + 1)
    organizer = UserFactory()
    RoleFactory(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    client.force_login(organizer)
    with django_assert_max_num_queries(30):
        response = client.get(reverse("family-calendar", args=[tournament.slug, stage.key]))
    assert response.status_code == 200


def test_fl_8_groups_drawn_with_a_public_seed_are_reproducible(client):
    from rulesets.family_league.entry import draw_groups
    from tests.conftest import example
    from tests.factories import RoleFactory, UserFactory
    from tournaments.importer import import_document
    from tournaments.models import GroupTeam, Stage, Team

    document = example("family_league")
    document["tournament"]["slug"] = "fl-groups"
    document["stages"] = []
    document["penalties"] = []
    tournament = import_document(document)
    organizer = UserFactory()
    RoleFactory(user=organizer, tournament=tournament)
    client.force_login(organizer)
    client.post("/t/fl-groups/family/groups/", {"seed": "public-7"})
    stage = Stage.objects.get(tournament=tournament, key="qualifying")
    assert stage.seed == "public-7"
    drawn = {}
    for row in GroupTeam.objects.filter(group__stage=stage).select_related("group", "team"):
        drawn.setdefault(row.group.name, []).append(row.team.name)
    teams = list(Team.objects.filter(tournament=tournament).order_by("order").values_list("name", flat=True))
    expected = draw_groups(teams, 2, "public-7")
    assert [sorted(drawn[str(i + 1)]) for i in range(2)] == [sorted(g) for g in expected]
    client.force_login(UserFactory())
    assert client.post("/t/fl-groups/family/groups/", {"seed": "x"}).status_code == 403
