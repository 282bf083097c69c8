"""Decisions, appeals and verdicts written through the API."""

from __future__ import annotations

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Role
from tests.conftest import example
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tournaments.importer import import_document
from tournaments.models import Appeal, Decision, Game, Team

pytestmark = pytest.mark.django_db(transaction=True)
API = "/api/v1"


def client_of(user) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        client.force_authenticate(user)
    return client


def with_role(tournament, role):
    user = UserFactory()
    RoleFactory(user=user, tournament=tournament, role=role)
    return user


def test_cb_15_a_judge_records_a_technical_result_and_the_game_scores_by_it():
    from scoring.services import current_export

    tournament = import_document(example("class_balanced"))
    before = {row["team"]: row["points"] for row in current_export(tournament)["teams"]}
    judge = with_role(tournament, Role.JUDGE)
    response = client_of(judge).post(f"{API}/decisions/", {
        "tournament": tournament.slug, "stage": "stage-1", "game": 1, "kind": "technical_result", "code": "FP-4",
        "outcome": "mafia", "text": "the commissar's negligence"}, format="json")
    assert response.status_code == 201, response.content
    decision = Decision.objects.get(tournament=tournament)
    assert (decision.index, decision.author, decision.by) == (1, judge, judge.username)
    after = {row["team"]: row["points"] for row in current_export(tournament)["teams"]}
    assert after != before, "the civilians' win of game 1 became a mafia win (CB-15)"
    assert Game.objects.get(stage__tournament=tournament, number=1).outcome == "civilians", "the record stays"


def test_cb_15_a_technical_result_on_other_grounds_is_refused_and_outsiders_get_403():
    tournament = import_document(example("class_balanced"))
    judge = with_role(tournament, Role.JUDGE)
    refused = client_of(judge).post(f"{API}/decisions/", {
        "tournament": tournament.slug, "stage": "stage-1", "game": 1, "kind": "technical_result", "code": "FP-9",
        "outcome": "mafia"}, format="json")
    assert refused.status_code == 400 and "CB-15" in refused.content.decode()
    bad = client_of(judge).post(f"{API}/decisions/", {"tournament": tournament.slug, "kind": "pardon"},
                                format="json")
    assert bad.status_code == 400 and bad.json()["errors"][0]["path"] == "kind"
    outsider = client_of(UserFactory()).post(f"{API}/decisions/", {
        "tournament": tournament.slug, "kind": "disqualification", "team": "CB01"}, format="json")
    assert outsider.status_code == 403
    assert not Decision.objects.exists()


def chgk_today(slug: str = "mubk-today"):
    document = example("chgk_tour_points")
    document["tournament"]["slug"] = slug
    document["stages"][0]["tours"][1]["played_on"] = timezone.localdate().isoformat()
    document["appeals"] = [a for a in document["appeals"] if a["tour"] == 1]
    return import_document(document)


def test_chgk_20_the_captain_files_through_the_api_and_the_jury_decides():
    tournament = chgk_today()
    rotor = Team.objects.get(tournament=tournament, name="Rotor")
    captain = user_playing_as(rotor.captain.nick)
    filed = client_of(captain).post(f"{API}/appeals/", {
        "tournament": tournament.slug, "kind": "accept_answer", "tour": 2, "question": 3, "answer": "Гаусс",
        "argument": "no less precise"}, format="json")
    assert filed.status_code == 201, filed.content
    appeal = Appeal.objects.get(pk=filed.json()["id"])
    assert appeal.team == rotor and appeal.filed_by == captain
    jury = with_role(tournament, Role.JURY)
    seen_by_jury = client_of(jury).get(f"{API}/appeals/{appeal.pk}/").json()
    assert seen_by_jury["team"] is None and seen_by_jury["team_hidden"] is True
    organizer = with_role(tournament, Role.ORGANIZER)
    assert client_of(organizer).post(f"{API}/appeals/{appeal.pk}/verdict/", {"verdict": "accepted"},
                                     format="json").status_code == 403
    decided = client_of(jury).post(f"{API}/appeals/{appeal.pk}/verdict/", {
        "verdict": "accepted", "reasons": "a dual", "credited_teams": ["Rotor"]}, format="json")
    assert decided.status_code == 200, decided.content
    appeal.refresh_from_db()
    assert appeal.verdict == "accepted" and list(appeal.credited_teams.values_list("name", flat=True)) == ["Rotor"]
    again = client_of(jury).post(f"{API}/appeals/{appeal.pk}/verdict/", {"verdict": "rejected"}, format="json")
    assert again.status_code == 400


def test_chgk_18_a_late_appeal_is_refused_with_its_deadline_and_a_non_captain_cannot_file():
    tournament = import_document(example("chgk_tour_points"))
    rotor = Team.objects.get(tournament=tournament, name="Rotor")
    late = client_of(user_playing_as(rotor.captain.nick)).post(f"{API}/appeals/", {
        "tournament": tournament.slug, "kind": "removal", "tour": 2, "question": 1}, format="json")
    assert late.status_code == 400 and "24 February 2013, 23:59" in late.content.decode()
    fresh = chgk_today()
    player = client_of(user_playing_as("Rotor 3")).post(f"{API}/appeals/", {
        "tournament": fresh.slug, "kind": "removal", "tour": 2, "question": 1}, format="json")
    assert player.status_code == 403 and "CHGK-20" in player.content.decode()  # roles.md: who files is a 403
    assert Appeal.objects.filter(tournament=fresh).count() == 1, "only the imported appeal"
