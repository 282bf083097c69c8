"""Appeal windows and verdicts through the database: FL-19's result_recorded_at (import, forms, API, export, pages, recompute),
CHGK-18's one comparison and "given late" (service, form, API, import, page), FL-19's ``partly`` verdict
with the changed decision (import, verdict form, API)."""

from __future__ import annotations

import copy
import datetime as dt
import zoneinfo

import pytest
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Player, Role
from appeals.services import AppealRefused, AppealTarget, decide, file_appeal, filing_deadline
from rulesets import mafia
from scoring.services import current_export, next_recheck
from tests.conftest import example
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tournaments.importer import ImportRefused, import_document
from tournaments.loader import load_facts
from tournaments.models import Appeal, Decision, Game, Team, Tour

pytestmark = pytest.mark.django_db
MSK = zoneinfo.ZoneInfo("Europe/Moscow")
API = "/api/v1"
RECORDED = "2014-09-01T21:00:00+04:00"


def api(user=None) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        client.force_authenticate(user)
    return client


def with_role(tournament, role):
    user = UserFactory()
    RoleFactory(user=user, tournament=tournament, role=role)
    return user


# --- FL-19: result_recorded_at -------------------------------------------------------------------------------


def league_with_a_violation(recorded_at: str | None = RECORDED):
    """The family example, game 1 with a second seat of Fam01 (FL-15.3), recorded at ``recorded_at``."""
    document = example("family_league")
    game = document["stages"][0]["games"][0]
    first = next(s for s in game["seats"] if s["team"] == "Fam01")
    game["seats"].append({**first, "player": "Fam01-p4" if first["player"] != "Fam01-p4" else "Fam01-p1",
                          "role": "civilian"})
    if recorded_at is not None:
        game["result_recorded_at"] = recorded_at
    return import_document(document), game["seats"][-1]["player"]


def test_fl_19_the_import_keeps_result_recorded_at_else_its_own_time_and_the_api_exports_it():
    before = timezone.now()
    tournament, _violator = league_with_a_violation()
    games = {g.number: g for g in Game.objects.filter(stage__tournament=tournament)}
    assert games[1].result_recorded_at == dt.datetime.fromisoformat(RECORDED)
    assert before <= games[2].result_recorded_at <= timezone.now(), "left out: the import's own time"
    shown = api().get(f"{API}/games/{games[1].pk}/").json()
    assert shown["result_recorded_at"] == RECORDED
    again = api().get(f"{API}/games/{games[2].pk}/").json()["result_recorded_at"]
    assert dt.datetime.fromisoformat(again) == games[2].result_recorded_at, "exported back: a round trip keeps it"


def test_fl_19_the_first_result_through_the_api_is_recorded_and_editing_the_link_does_not_move_it():
    tournament = import_document(example("family_league"))
    organizer = with_role(tournament, Role.ORGANIZER)
    played = copy.deepcopy(example("family_league")["stages"][0]["games"][0])
    played.update(number=7, scheduled_at="2014-09-04T19:00:00+04:00", round=4)
    created = api(organizer).post(f"{API}/games/", {
        "tournament": tournament.slug, "stage": "final", "number": 7, "status": "scheduled",
        "scheduled_at": "2014-09-04T19:00:00+04:00", "round": 4}, format="json")
    assert created.status_code == 201, created.content
    game = Game.objects.get(pk=created.json()["id"])
    assert game.result_recorded_at is None, "a scheduled game has no result yet"
    before = timezone.now()
    saved = api(organizer).put(f"{API}/games/{game.pk}/", {**played, "version": 1}, format="json")
    assert saved.status_code == 200, saved.content
    game.refresh_from_db()
    first = game.result_recorded_at
    assert first is not None and before <= first <= timezone.now()
    edited = api(organizer).put(f"{API}/games/{game.pk}/", {**played, "version": 2,
                                                            "link": "https://mafia.example/log/7"}, format="json")
    assert edited.status_code == 200, edited.content
    game.refresh_from_db()
    assert game.link == "https://mafia.example/log/7" and game.updated_at > first
    assert game.result_recorded_at == first


def test_fl_19_the_result_entry_form_keeps_result_recorded_at_when_the_link_changes():
    from tests.test_entry_forms import game_post, game_url

    tournament, _violator = league_with_a_violation()
    game = Game.objects.select_related("stage__tournament").get(stage__tournament=tournament, number=1)
    organizer = with_role(tournament, Role.ORGANIZER)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(organizer)
    response = client.post(game_url(game), game_post(game, game.version, link="https://mafia.example/log/1"))
    assert response.status_code == 302, response.content.decode()[:2000]
    game.refresh_from_db()
    assert game.link == "https://mafia.example/log/1"
    assert game.result_recorded_at == dt.datetime.fromisoformat(RECORDED)


def test_fl_19_a_detected_violations_window_runs_from_result_recorded_at_not_from_the_last_edit():
    tournament, violator = league_with_a_violation()
    game = Game.objects.get(stage__tournament=tournament, number=1)
    game.link = "https://mafia.example/log/1"
    game.save()  # an edit of something else: updated_at moves, the window does not
    target = AppealTarget(kind="violation", game=game, violation="two_players",
                          player=Player.objects.get(nick=violator))
    closes = dt.datetime.fromisoformat(RECORDED) + dt.timedelta(hours=72)
    assert filing_deadline(tournament, target) == closes
    fam01 = Team.objects.get(tournament=tournament, name="Fam01")
    user = user_playing_as("Fam01-p2")
    with pytest.raises(AppealRefused, match="4 September 2014, 21:00"):
        file_appeal(tournament, user, target, team=fam01, now=closes + dt.timedelta(seconds=1))
    file_appeal(tournament, user, target, team=fam01, now=closes)


def test_fl_19_the_appeal_page_shows_the_window_from_result_recorded_at(client):
    tournament, violator = league_with_a_violation()
    client.force_login(user_playing_as("Fam01-p2"))
    page = client.get(f"/appeals/t/{tournament.slug}/file/", {"stage": "final", "game": 1, "violation": "two_players",
                                                      "player": violator}, HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    assert "4 September 2014, 21:00" in page.content.decode()


def test_fl_19_the_table_stays_preliminary_and_the_recompute_wakes_when_the_window_closes():
    """Every game of a complete final played: final only once 72 h have passed since game 1's result."""
    from tests.rulesets.test_family_league_builder import document, filler_games, final_stage, full_game, names, seat

    nine = names(9)
    last = full_game(30, nine, "mafia", result_recorded_at=RECORDED)
    last["seats"].append(seat("Fam01-p2"))
    tournament = import_document(document(nine, [final_stage(nine, filler_games(1, 29, nine) + [last])]))
    closes = dt.datetime.fromisoformat(RECORDED) + dt.timedelta(hours=72)
    assert current_export(tournament, now=closes - dt.timedelta(seconds=1))["final"] is False
    assert current_export(tournament, now=closes)["final"] is True
    facts = load_facts(tournament)
    assert next_recheck(facts, closes - dt.timedelta(hours=1)) == closes + dt.timedelta(seconds=1)


# --- CHGK-18: one comparison; "given late" -------------------------------------------------------------------


def chgk():
    return import_document(example("chgk_tour_points"))


def rotor(tournament):
    team = Team.objects.get(tournament=tournament, name="Rotor")
    return team, user_playing_as(team.captain.nick)


HALF_A_SECOND_BEFORE = dt.datetime(2013, 2, 24, 23, 59, 59, 500000, tzinfo=MSK)  # tour 2, D = 2013-02-21
MIDNIGHT = dt.datetime(2013, 2, 25, 0, 0, tzinfo=MSK)


def test_chgk_18_the_service_takes_23_59_59_5_and_refuses_midnight():
    tournament = chgk()
    team, user = rotor(tournament)
    target = AppealTarget(kind="removal", tour=Tour.objects.get(stage__tournament=tournament, number=2), question=3)
    with pytest.raises(AppealRefused, match="CHGK-18|24 February 2013, 23:59"):
        file_appeal(tournament, user, target, team=team, now=MIDNIGHT)
    file_appeal(tournament, user, target, team=team, now=HALF_A_SECOND_BEFORE)


def test_chgk_18_the_form_and_the_api_take_23_59_59_5(monkeypatch):
    tournament = chgk()
    team, user = rotor(tournament)
    monkeypatch.setattr(timezone, "now", lambda: HALF_A_SECOND_BEFORE)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    page = client.post(f"/appeals/t/{tournament.slug}/file/", {"tour": 2, "question": 3, "kind": "removal",
                                                       "argument": "the question is wrong"})
    assert page.status_code == 302, page.content.decode()[:2000]
    filed = api(user).post(f"{API}/appeals/", {"tournament": tournament.slug, "kind": "removal", "tour": 2,
                                               "question": 4, "argument": "so is this one"}, format="json")
    assert filed.status_code == 201, filed.content
    monkeypatch.setattr(timezone, "now", lambda: MIDNIGHT)
    late = api(user).post(f"{API}/appeals/", {"tournament": tournament.slug, "kind": "removal", "tour": 2,
                                              "question": 5, "argument": "late"}, format="json")
    assert late.status_code == 400
    assert Appeal.objects.filter(tournament=tournament, tour__number=2, question__in=(3, 4)).count() == 2


def test_chgk_18_the_import_takes_23_59_59_5_and_refuses_midnight():
    document = example("chgk_tour_points")
    document["appeals"][1]["filed_at"] = HALF_A_SECOND_BEFORE.isoformat()
    import_document(document)
    document["appeals"][1]["filed_at"] = MIDNIGHT.isoformat()
    with pytest.raises(ImportRefused, match="CHGK-18"):
        import_document(document, replace=True)


def test_chgk_18_a_verdict_after_d_plus_9_stays_marked_given_late_on_its_page_and_in_the_api(client):
    tournament = chgk()
    team, user = rotor(tournament)
    tour = Tour.objects.get(stage__tournament=tournament, number=2)
    late = file_appeal(tournament, user, AppealTarget(kind="removal", tour=tour, question=3), team=team,
                       now=dt.datetime(2013, 2, 22, tzinfo=MSK))
    in_time = file_appeal(tournament, user, AppealTarget(kind="removal", tour=tour, question=4), team=team,
                          now=dt.datetime(2013, 2, 22, tzinfo=MSK))
    jury = with_role(tournament, Role.JURY)
    d_plus_10 = dt.datetime(2013, 3, 3, 0, 0, tzinfo=MSK)
    decide(late, jury, "rejected", reasons="correct", now=d_plus_10)
    decide(in_time, jury, "rejected", reasons="correct", now=d_plus_10 - dt.timedelta(milliseconds=1))
    assert api().get(f"{API}/appeals/{late.pk}/").json()["given_late"] is True
    assert api().get(f"{API}/appeals/{in_time.pk}/").json()["given_late"] is False
    page = client.get(f"/appeals/{late.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "given late (CHGK-18)" in page
    assert "given late" not in client.get(f"/appeals/{in_time.pk}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    russian = client.get(f"/appeals/{late.pk}/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert "с опозданием" in russian


def test_chgk_18_an_imported_verdicts_decided_at_is_kept_and_marked_given_late():
    document = example("chgk_tour_points")
    document["appeals"][1]["decided_at"] = "2013-03-03T00:00:00+04:00"
    tournament = import_document(document)
    appeal = Appeal.objects.get(tournament=tournament, tour__number=2)
    assert appeal.verdict_at == dt.datetime(2013, 3, 3, tzinfo=MSK)
    assert api().get(f"{API}/appeals/{appeal.pk}/").json()["given_late"] is True


# --- FL-19: partly with the changed decision -------------------------------------------------------------------


def league_with_decision(appeal: dict | None = None):
    document = example("family_league")
    document["decisions"] = [{"stage": "final", "game": 6, "kind": "technical_result", "outcome": "civilians",
                              "decided_at": "2014-09-09T12:00:00+04:00"}]
    if appeal is not None:
        document["appeals"] = [{"stage": "final", "decision": 1, "appellant": "Fam01", "kind": "decision",
                                "filed_at": "2014-09-09T18:00:00+04:00", **appeal}]
    return document


CHANGED = {"stage": "final", "game": 6, "kind": "technical_result", "outcome": "mafia",
           "decided_at": "2014-09-10T12:00:00+04:00", "text": "mafia win on review"}


def standings_of(tournament):
    return [(r["team"], r["rank"], r["points"]) for r in current_export(tournament, now=NOW)["teams"]]


NOW = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)


def test_fl_19_an_imported_partly_verdict_stores_the_changed_decision_in_place_of_the_appealed_one():
    tournament = import_document(league_with_decision({"verdict": "partly", "replacement": CHANGED}))
    appeal = Appeal.objects.get(tournament=tournament)
    stored = Decision.objects.get(replacement_for=appeal)
    assert (stored.index, stored.outcome, stored.text) == (1, "mafia", "mafia win on review")
    facts = load_facts(tournament)
    assert [(d.index, d.outcome) for d in facts.decisions] == [(1, "civilians")], "the appealed one, as taken"
    assert [(d.index, d.outcome) for d in mafia.active_decisions(facts)] == [(1, "mafia")]
    direct = import_document({**league_with_decision(), "tournament": {
        **example("family_league")["tournament"], "slug": "direct"}, "decisions": [CHANGED]})
    assert standings_of(tournament) == standings_of(direct)
    assert api().get(f"{API}/decisions/?tournament={tournament.slug}").json()["count"] == 1
    shown = api().get(f"{API}/appeals/{appeal.pk}/").json()
    assert shown["verdict"] == "partly" and shown["replacement"]["outcome"] == "mafia"


def test_fl_19_partly_in_the_verdict_form_records_the_changed_decision():
    tournament = import_document(league_with_decision({}))
    appeal = Appeal.objects.get(tournament=tournament)
    curator = with_role(tournament, Role.CURATOR)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(curator)
    form = client.get(f"/appeals/{appeal.pk}/verdict/").content.decode()
    assert 'name="replacement-kind"' in form and 'name="replacement-outcome"' in form
    response = client.post(f"/appeals/{appeal.pk}/verdict/", {
        "verdict": "partly", "reasons": "a mafia win, not a civilians' one", "replacement-kind": "technical_result",
        "replacement-outcome": "mafia"})
    assert response.status_code == 302, response.content.decode()[:3000]
    stored = Decision.objects.get(replacement_for=appeal)
    assert (stored.index, stored.kind, stored.outcome, stored.game.number) == (1, "technical_result", "mafia", 6)
    assert stored.author == curator
    assert [(d.index, d.outcome) for d in mafia.active_decisions(load_facts(tournament))] == [(1, "mafia")]
    page = client.get(f"/appeals/{appeal.pk}/").content.decode()
    assert "Changed decision" in page and "replaces the appealed decision, FL-19" in page


def test_fl_19_partly_without_the_changed_decision_is_refused_in_the_form_the_api_and_the_import():
    with pytest.raises(ImportRefused, match="replacement"):
        import_document(league_with_decision({"verdict": "partly"}))
    tournament = import_document(league_with_decision({}))
    appeal = Appeal.objects.get(tournament=tournament)
    curator = with_role(tournament, Role.CURATOR)
    with pytest.raises(AppealRefused, match="FL-19"):
        decide(appeal, curator, "partly", reasons="half right")
    refused = api(curator).post(f"{API}/appeals/{appeal.pk}/verdict/", {"verdict": "partly", "reasons": "x"},
                                format="json")
    assert refused.status_code == 400
    bad = api(curator).post(f"{API}/appeals/{appeal.pk}/verdict/", {
        "verdict": "partly", "reasons": "x", "replacement": {**CHANGED, "game": 99}}, format="json")
    assert bad.status_code == 400 and "game" in bad.content.decode()
    assert not Decision.objects.filter(replacement_for__isnull=False).exists()
    assert Appeal.objects.get(pk=appeal.pk).verdict is None


def test_fl_19_partly_through_the_api_records_the_changed_decision():
    tournament = import_document(league_with_decision({}))
    appeal = Appeal.objects.get(tournament=tournament)
    curator = with_role(tournament, Role.CURATOR)
    response = api(curator).post(f"{API}/appeals/{appeal.pk}/verdict/", {
        "verdict": "partly", "reasons": "a mafia win", "replacement": CHANGED}, format="json")
    assert response.status_code == 200, response.content
    assert response.json()["replacement"]["outcome"] == "mafia"
    assert response.json()["replacement"]["index"] == 1
    direct = import_document({**league_with_decision(), "tournament": {
        **example("family_league")["tournament"], "slug": "direct"}, "decisions": [CHANGED]})
    assert standings_of(tournament) == standings_of(direct)
