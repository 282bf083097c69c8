"""Who may do what, per tournament role: one table, every role x write action x ruleset (issue 6).

The rules behind the table live in ``accounts/permissions.py``: results are
entered by the organizers, judges and curator, imports are the organizers'
(and staff's); penalties the judges', the
curator's and the organizers' (FL-0, FL-18); verdicts the appeal jury's
(CHGK-20, GP-23, FL-19, CB-17); filing an appeal the appellant's side only
(the captain in ChGK, CHGK-20).
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Role, TournamentRole
from appeals.services import AppealRefused, AppealTarget, file_appeal
from tests.conftest import example
from tests.factories import UserFactory, user_playing_as
from tournaments.importer import import_document
from tournaments.models import Appeal, Decision, Team, Tour

pytestmark = pytest.mark.django_db

ROLES = ("anonymous", "outsider", "organizer", "judge", "curator", "jury", "captain", "staff")
MAFIA = ("family_league", "class_balanced", "elimination_gp")
ALLOWED: dict[tuple[str, str], set[str]] = {
    ("chgk_tour_points", "enter_results"): {"organizer", "judge", "curator", "staff"},
    ("chgk_tour_points", "import_replace"): {"organizer", "staff"},
    ("chgk_tour_points", "decide_appeal"): {"jury", "staff"},
    ("chgk_tour_points", "file_appeal"): {"captain"},
    # spec/roles.md: the stage's judges or the curator, not the organizer (FL-0, CB-15, CB-16)
    **{(key, "record_penalty"): {"judge", "curator", "staff"} for key in MAFIA},
    **{(key, "import_replace"): {"organizer", "staff"} for key in MAFIA},
    **{(key, "file_appeal"): {"captain"} for key in MAFIA},
    ("family_league", "decide_appeal"): {"curator", "jury", "staff"},
    ("elimination_gp", "decide_appeal"): {"curator", "jury", "staff"},
    ("class_balanced", "decide_appeal"): {"judge", "curator", "jury", "staff"},
}
CASES = [(key, action, role, role in allowed) for (key, action), allowed in ALLOWED.items() for role in ROLES]


def first_team(tournament) -> Team:
    return Team.objects.filter(tournament=tournament).order_by("stage__order", "order").first()


def make_user(role: str, tournament):
    if role == "anonymous":
        return None
    if role == "staff":
        return UserFactory(is_staff=True)
    if role == "captain":
        team = first_team(tournament)
        nick = team.captain.nick if team.captain else team.roster.first().player.nick
        user = user_playing_as(nick)
        TournamentRole.objects.create(user=user, tournament=tournament, role=Role.CAPTAIN)
        return user
    user = UserFactory()
    if role != "outsider":
        TournamentRole.objects.create(user=user, tournament=tournament, role=role)
    return user


def api(user) -> APIClient:
    client = APIClient()
    if user is not None:
        client.force_authenticate(user)
    return client


def pending_appeal(tournament) -> Appeal:
    if tournament.ruleset == "chgk_tour_points":
        tour = Tour.objects.get(stage__tournament=tournament, number=2)
        return Appeal.objects.create(tournament=tournament, kind="removal", stage=tour.stage, tour=tour, question=1,
                                     team=first_team(tournament), filed_at=timezone.now())
    decision = Decision.objects.create(tournament=tournament, index=1, kind="disqualification",
                                       team=first_team(tournament), decided_at=timezone.now(),
                                       published_at=timezone.now())
    return Appeal.objects.create(tournament=tournament, kind="decision", decision=decision,
                                 team=first_team(tournament), filed_at=timezone.now())


def attempt(action: str, tournament, user, client) -> bool:
    """Try the action as ``user``; True when it took effect, False when it was refused (and nothing changed)."""
    if action == "enter_results":
        tour = Tour.objects.get(stage__tournament=tournament, number=1)
        masks = {m.team.name: "1" * len(m.mask) for m in tour.masks.select_related("team")}
        response = api(user).put(f"/api/v1/tours/{tour.pk}/masks/", {"masks": masks, "version": tour.version},
                                 format="json")
        assert response.status_code in (200, 401, 403), response.content
        return response.status_code == 200
    if action == "record_penalty":
        team = first_team(tournament)
        stage = team.stage.key if team.stage else tournament.stages.order_by("order").first().key
        response = api(user).post("/api/v1/penalties/", {
            "tournament": tournament.slug, "stage": stage, "team": team.name, "kind": "fair_play", "code": "FP-9",
            "points": "0.1", "decided_at": "2030-01-01T12:00:00+03:00"}, format="json")
        assert response.status_code in (201, 401, 403), response.content
        return response.status_code == 201
    if action == "import_replace":
        response = api(user).post("/api/v1/tournaments/import/?replace=true", example(tournament.ruleset),
                                  format="json")
        assert response.status_code in (201, 401, 403), response.content
        return response.status_code == 201
    if action == "decide_appeal":
        appeal = pending_appeal(tournament)
        if user is not None:
            client.force_login(user)
        response = client.post(f"/appeals/{appeal.pk}/verdict/", {"verdict": "rejected", "reasons": "as written"})
        appeal.refresh_from_db()
        if appeal.verdict is None:
            assert response.status_code in (302, 403), response.status_code
            return False
        return True
    if action == "file_appeal":
        team = first_team(tournament)
        if tournament.ruleset == "chgk_tour_points":
            # tour 1, which the first team (Signum) played: it hosts tour 2, and a host does not appeal its own
            # tour's questions (CHGK-7, roles.md; issue 43)
            tour = Tour.objects.get(stage__tournament=tournament, number=1)
            target = AppealTarget(kind="removal", tour=tour, question=1)
            now = dt.datetime.combine(tour.played_on, dt.time(12), tzinfo=dt.UTC) + dt.timedelta(days=1)
        else:
            decision = Decision.objects.create(tournament=tournament, index=1, kind="disqualification", team=team,
                                               decided_at=timezone.now(), published_at=timezone.now())
            target = AppealTarget(kind="decision", decision=decision)
            now = timezone.now()
        try:
            file_appeal(tournament, user, target, team=team, now=now)
        except AppealRefused:
            return False
        return True
    raise AssertionError(action)


@pytest.mark.parametrize(("key", "action", "role", "allowed"), CASES,
                         ids=[f"{k}-{a}-{r}" for k, a, r, _ in CASES])
def test_permission_matrix(key, action, role, allowed, client):
    tournament = import_document(example(key))
    user = make_user(role, tournament)
    assert attempt(action, tournament, user, client) is allowed
