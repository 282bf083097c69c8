"""Appeals and decisions: deadlines at their edges, verdicts that recompute, who may do what."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from fractions import Fraction

import pytest
from django.core import mail
from django.utils import translation

from accounts.models import Player, Role
from appeals.services import AppealRefused, AppealTarget, decide, file_appeal, filing_deadline
from scoring.services import current_export
from tests.conftest import example
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tournaments.importer import import_document
from tournaments.models import Appeal, Decision, Penalty, Team, Tour

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture(autouse=True)
def _in_english():
    """The refusals are read in English here (the site's default language is Russian)."""
    with translation.override("en"):
        yield
MSK = zoneinfo.ZoneInfo("Europe/Moscow")
BERLIN = zoneinfo.ZoneInfo("Europe/Berlin")


def chgk(**changes):
    document = example("chgk_tour_points")
    document["tournament"].update(changes)
    return import_document(document)


def captain_of(tournament, team_name):
    team = Team.objects.get(tournament=tournament, name=team_name)
    return team, user_playing_as(team.captain.nick)


def test_chgk_18_appeal_at_23_59_59_of_d_plus_3_is_accepted_and_at_midnight_refused():
    tournament = chgk()
    tour = Tour.objects.get(stage__tournament=tournament, number=2)
    team, user = captain_of(tournament, "Rotor")
    target = AppealTarget(kind="removal", tour=tour, question=3)
    deadline = filing_deadline(tournament, target)
    assert deadline == dt.datetime(2013, 2, 24, 23, 59, 59, tzinfo=MSK)
    with pytest.raises(AppealRefused, match="24 February 2013, 23:59"):
        file_appeal(tournament, user, target, team=team, now=dt.datetime(2013, 2, 25, 0, 0, 0, tzinfo=MSK))
    appeal = file_appeal(tournament, user, target, team=team, now=deadline)
    assert Appeal.objects.filter(pk=appeal.pk, verdict__isnull=True).exists()


def test_chgk_18_deadline_across_a_daylight_saving_change():
    """Tour on Friday 29 March 2024 in Berlin: D+3 ends on Monday 1 April at 23:59:59 CEST (+02:00)."""
    document = example("chgk_tour_points")
    document["tournament"]["timezone"] = "Europe/Berlin"
    document["stages"][0]["tours"][1]["played_on"] = "2024-03-29"
    document["appeals"] = [a for a in document["appeals"] if a["tour"] == 1]
    tournament = import_document(document)
    tour = Tour.objects.get(stage__tournament=tournament, number=2)
    deadline = filing_deadline(tournament, AppealTarget(kind="removal", tour=tour, question=1))
    assert deadline == dt.datetime(2024, 4, 1, 23, 59, 59, tzinfo=BERLIN)
    assert deadline.utcoffset() == dt.timedelta(hours=2)


def mafia_with_decision(key: str, decided_at: str, published_at: str | None = None):
    document = example(key)
    stage = document["stages"][0]
    game = next(g for g in stage["games"] if g.get("status", "played") == "played")
    decision = {"stage": stage["key"], "game": game["number"], "kind": "technical_result", "code": "FP-4",
                "outcome": "civilians", "decided_at": decided_at}
    if published_at:
        decision["published_at"] = published_at
    document["decisions"] = [decision]
    tournament = import_document(document)
    return tournament, Decision.objects.get(tournament=tournament)


@pytest.mark.parametrize(("key", "hours", "rule"), [
    ("elimination_gp", 72, "GP-23"), ("family_league", 72, "FL-19"), ("class_balanced", 48, "CB-17"),
])
def test_mafia_appeal_deadline_edges(key, hours, rule):
    """GP-23 from decided_at; FL-19 and CB-17 from published_at; exact hours across the DST change in Berlin."""
    tournament, decision = mafia_with_decision(key, "2024-03-30T12:00:00+01:00", "2024-03-30T14:00:00+01:00")
    start = decision.decided_at if rule == "GP-23" else decision.published_at
    deadline = filing_deadline(tournament, AppealTarget(kind="decision", decision=decision))
    assert deadline == start + dt.timedelta(hours=hours), rule
    seat_team = Team.objects.filter(tournament=tournament).order_by("id").first()
    user = user_playing_as(seat_team.roster.first().player.nick)
    with pytest.raises(AppealRefused):
        file_appeal(tournament, user, AppealTarget(kind="decision", decision=decision), team=seat_team,
                    now=deadline + dt.timedelta(seconds=1))
    file_appeal(tournament, user, AppealTarget(kind="decision", decision=decision), team=seat_team, now=deadline)


def test_chgk_22_accept_answer_upheld_on_the_last_tour_changes_the_winner_and_final_status():
    """Every tour played, no pending appeal: the upheld dual on the last tour crowns another team."""
    document = example("chgk_tour_points")
    teams = [t["name"] for t in document["teams"]][:3]
    document["teams"] = [t for t in document["teams"] if t["name"] in teams]
    document["stages"][0]["tours"] = [
        {"number": 1, "host": teams[0], "played_on": "2013-02-14", "questions": 8,
         "masks": {teams[1]: "11000000", teams[2]: "10000000"}},
        {"number": 2, "host": teams[1], "played_on": "2013-02-21", "questions": 8,
         "masks": {teams[0]: "11000000", teams[2]: "10000000"}},
        {"number": 3, "host": teams[2], "played_on": "2013-02-28", "questions": 8,
         "masks": {teams[0]: "10000000", teams[1]: "00000000"}},
    ]
    document["appeals"] = []
    tournament = import_document(document)
    now = dt.datetime(2013, 3, 2, 12, 0, tzinfo=MSK)
    before = current_export(tournament, now=now)
    team, user = captain_of(tournament, teams[1])
    tour = Tour.objects.get(stage__tournament=tournament, number=3)
    appeal = file_appeal(tournament, user, AppealTarget(kind="accept_answer", tour=tour, question=2), team=team,
                         answer="Лобачевский", now=now)
    assert current_export(tournament, now=now)["final"] is False
    jury = UserFactory()
    RoleFactory(user=jury, tournament=tournament, role=Role.JURY)
    after_deadline = dt.datetime(2013, 3, 4, 12, 0, tzinfo=MSK)
    decide(appeal, jury, "accepted", reasons="a dual", credited=[team], now=after_deadline)
    after = current_export(tournament, now=after_deadline)
    assert before["teams"][0]["team"] != after["teams"][0]["team"] or after["teams"][0]["rank"] == after["teams"][1][
        "rank"]
    assert after["final"] is True
    assert any(row["status"] == "winner" for row in after["teams"])
    appeal.refresh_from_db()
    assert appeal.standings_change, "the appeal keeps the rows that moved"


def test_fl_19_penalty_annulled_on_appeal_restores_the_points_and_renumbers_fines():
    document = example("family_league")
    penalty_doc = document["penalties"][0]
    tournament = import_document(document)
    now = dt.datetime(2014, 9, 5, 12, 0, tzinfo=MSK)
    before = {r["team"]: r["points"] for r in current_export(tournament, now=now)["teams"]}
    penalty = Penalty.objects.get(tournament=tournament)
    team = penalty.team
    user = user_playing_as(penalty_doc["player"])
    appeal = Appeal.objects.create(tournament=tournament, kind="decision", penalty=penalty, team=team,
                                   filed_at=now, filed_by=user, appellant=team.name)
    curator = UserFactory()
    RoleFactory(user=curator, tournament=tournament, role=Role.CURATOR)
    decide(appeal, curator, "accepted", reasons="no insult in the log", now=now)
    after = {r["team"]: r["points"] for r in current_export(tournament, now=now)["teams"]}
    assert after[team.name] == pytest.approx(before[team.name] + float(penalty_doc["points"]))


def test_only_the_appellants_side_may_file():
    tournament = chgk()
    tour = Tour.objects.get(stage__tournament=tournament, number=2)
    rotor = Team.objects.get(tournament=tournament, name="Rotor")
    stranger = user_playing_as("Felidae 2")
    with pytest.raises(AppealRefused, match="CHGK-20"):
        file_appeal(tournament, stranger, AppealTarget(kind="removal", tour=tour, question=1), team=rotor,
                    now=dt.datetime(2013, 2, 22, tzinfo=MSK))
    nobody = UserFactory()
    with pytest.raises(AppealRefused):
        file_appeal(tournament, nobody, AppealTarget(kind="removal", tour=tour, question=1), team=rotor,
                    now=dt.datetime(2013, 2, 22, tzinfo=MSK))


def test_only_the_assigned_jury_may_decide_and_mail_goes_out():
    tournament = chgk()
    tour = Tour.objects.get(stage__tournament=tournament, number=2)
    team, user = captain_of(tournament, "Rotor")
    jury = UserFactory()
    RoleFactory(user=jury, tournament=tournament, role=Role.JURY)
    appeal = file_appeal(tournament, user, AppealTarget(kind="removal", tour=tour, question=1), team=team,
                         now=dt.datetime(2013, 2, 22, tzinfo=MSK))
    assert any(jury.email in m.to for m in mail.outbox), "the jury is told of a new appeal"
    organizer = UserFactory()
    RoleFactory(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    with pytest.raises(AppealRefused):
        decide(appeal, organizer, "rejected")
    decide(appeal, jury, "rejected", reasons="the question is correct")
    assert Appeal.objects.get(pk=appeal.pk).verdict == "rejected"


def test_chgk_20_the_appealing_team_is_hidden_from_the_jury_until_the_verdict(client):
    tournament = chgk()
    tour = Tour.objects.get(stage__tournament=tournament, number=2)
    team, user = captain_of(tournament, "Rotor")
    appeal = file_appeal(tournament, user, AppealTarget(kind="removal", tour=tour, question=1), team=team,
                         now=dt.datetime(2013, 2, 22, tzinfo=MSK))
    jury = UserFactory()
    RoleFactory(user=jury, tournament=tournament, role=Role.JURY)
    client.force_login(jury)
    page = client.get(f"/appeals/{appeal.pk}/").content.decode()
    assert "Rotor" not in page
    client.force_login(UserFactory())
    assert "Rotor" not in client.get(f"/appeals/{appeal.pk}/").content.decode()
    decide(appeal, jury, "rejected", reasons="correct as written")
    assert "Rotor" in client.get(f"/appeals/{appeal.pk}/").content.decode()


def test_jury_queue_lists_pending_appeals_oldest_first_with_overdue_flag(client):
    tournament = chgk()
    team, user = captain_of(tournament, "Rotor")
    first = file_appeal(tournament, user, AppealTarget(kind="removal", tour=Tour.objects.get(
        stage__tournament=tournament, number=1), question=2), team=team, now=dt.datetime(2013, 2, 15, tzinfo=MSK))
    jury = UserFactory()
    RoleFactory(user=jury, tournament=tournament, role=Role.JURY)
    client.force_login(jury)
    page = client.get("/appeals/queue/").content.decode()
    assert f"/appeals/{first.pk}/verdict/" in page
    assert "overdue" in page


def test_chgk_11_a_player_of_the_season_cannot_sit_on_its_appeal_jury():
    from django.core.exceptions import ValidationError

    from accounts.models import TournamentRole

    tournament = chgk()
    player_user = user_playing_as("Rotor 2")
    role = TournamentRole(user=player_user, tournament=tournament, role=Role.JURY)
    with pytest.raises(ValidationError, match="CHGK-11"):
        role.full_clean()
    TournamentRole(user=UserFactory(), tournament=tournament, role=Role.JURY).full_clean()


def test_fl_19_a_detected_violation_annulled_on_appeal_restores_the_point_and_renumbers_later_fines():
    """Two seats of Fam01 in games 1 and 2 (FL-15.3) on top of its violation in the example:
    fines 50, 75 and 100 mf; annulling the first leaves 50 and 75 (FL-17 renumbers)."""
    import rulesets
    from tournaments.loader import load_facts

    document = example("family_league")
    games = document["stages"][0]["games"]
    for game in games[:2]:
        first = next(s for s in game["seats"] if s["team"] == "Fam01")
        game["seats"].append({**first, "player": "Fam01-p4" if first["player"] != "Fam01-p4" else "Fam01-p1",
                              "role": "civilian"})
    document["penalties"] = []
    tournament = import_document(document)
    now = dt.datetime(2014, 9, 2, 12, 0, tzinfo=MSK)

    def fam01():
        facts = load_facts(tournament)
        standings = rulesets.get("family_league").compute(facts, None, now)
        return next(row for row in standings.teams if row.team == "Fam01")

    before = fam01()
    assert before.details["fines_total"] == 50 + 75 + 100
    game = tournament.stages.get().games.get(number=games[0]["number"])
    violator = games[0]["seats"][-1]["player"]
    user = user_playing_as("Fam01-p2")
    appeal = file_appeal(tournament, user, AppealTarget(kind="violation", game=game, violation="two_players",
                                                        player=Player.objects.get(nick=violator)),
                         team=Team.objects.get(tournament=tournament, name="Fam01"),
                         now=game.updated_at + dt.timedelta(hours=1))
    curator = UserFactory()
    RoleFactory(user=curator, tournament=tournament, role=Role.CURATOR)
    decide(appeal, curator, "accepted", reasons="the second account is a different person", now=now)
    after = fam01()
    assert after.points == before.points + Fraction(1, 10)
    assert after.details["fines_total"] == 50 + 75, "the later violations are now the team's 1st and 2nd"


def test_daily_digest_mails_the_jury_appeals_near_or_past_their_verdict_deadline():
    """CHGK-18: verdicts are due by 23:59 of D+9; the beat job reminds the jury of those due within 2 days."""
    from appeals.tasks import digest_rows, send_deadline_digest

    tournament = chgk()
    team, user = captain_of(tournament, "Rotor")
    tour = Tour.objects.get(stage__tournament=tournament, number=2)
    appeal = file_appeal(tournament, user, AppealTarget(kind="removal", tour=tour, question=1), team=team,
                         now=dt.datetime(2013, 2, 22, tzinfo=MSK))
    jury = UserFactory()
    RoleFactory(user=jury, tournament=tournament, role=Role.JURY)
    assert digest_rows(dt.datetime(2013, 2, 25, tzinfo=MSK)) == {}
    rows = digest_rows(dt.datetime(2013, 3, 1, 12, 0, tzinfo=MSK))
    assert len(rows[tournament.pk]) == 1 and f"#{appeal.pk} due" in rows[tournament.pk][0]
    assert "OVERDUE" in digest_rows(dt.datetime(2013, 3, 5, tzinfo=MSK))[tournament.pk][0]
    mail.outbox.clear()
    assert send_deadline_digest() == 1
    assert mail.outbox[0].to == [jury.email]
