"""One permission matrix: every write act against every role, as docs/permissions.md writes it.

The expected table is the document's (``docs/permissions.md``, beside ``../shared/spec/roles.md``'s words): this
module parses it and runs one case per cell. A ``no`` is a 403 naming the rule in the API (401 or 403 for an
anonymous caller), the styled refusal page in the browser (or the login page for an anonymous visitor), and no
row of any model added or removed (the audit trail included); a ``yes`` is anything but 401 and 403. A cell
marked ``(known gap)`` is where the portal does not follow roles.md yet: it is expected to fail
(``xfail(strict=True)``, the reason from the table). The rules: FL-0, FL-1, FL-8, FL-9, FL-19, CB-15..CB-17,
GP-8, GP-23, CHGK-1, CHGK-5, CHGK-18, CHGK-20 (roles.md).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from django.apps import apps
from django.conf import settings
from django.test import Client
from django.urls import Resolver404, resolve
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Player, Role, TournamentRole, User
from tests.conftest import example
from tests.factories import UserFactory, user_playing_as
from tournaments.importer import import_document
from tournaments.models import Appeal, Decision, Game, Penalty, RosterEntry, Stage, Team, Tour, Tournament

pytestmark = pytest.mark.django_db

DOC = Path(__file__).resolve().parent.parent / "docs" / "permissions.md"
ROLES = ("anonymous", "player", "captain of another team", "organizer", "judge of another stage",
         "judge of this stage", "curator", "jury", "staff")
GAP = "(known gap)"
OTHER_STAGE = "elsewhere"
UNCOUNTED_APPS = {"sessions", "contenttypes", "admin"}  # a login writes a session; neither is the act's


@pytest.fixture(autouse=True)
def _fast_passwords(settings):
    """Hundreds of users, one a case: the test hasher instead of PBKDF2 (0.2 s each)."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@dataclass(frozen=True)
class Cell:
    act: str
    ruleset: str
    role: str
    allowed: bool
    gap: str


def read_table(path: Path = DOC) -> list[Cell]:
    """The cells of the one table of ``docs/permissions.md``: act, format, a column per role, rule, known gap."""
    lines = [line.strip() for line in path.read_text(encoding="utf-8").splitlines()]
    start = next(i for i, line in enumerate(lines) if line.startswith("| act |"))
    header = [h.strip() for h in lines[start].strip("|").split("|")]
    assert tuple(header[2:2 + len(ROLES)]) == ROLES, header
    cells = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        row = [c.strip() for c in line.strip("|").split("|")]
        act, ruleset, values, gap = row[0].strip("`"), row[1], row[2:2 + len(ROLES)], row[-1]
        for role, value in zip(ROLES, values, strict=True):
            word = value.replace(GAP, "").strip()
            assert word in ("yes", "no"), f"{act}: {role}: {value!r}"
            cells.append(Cell(act, ruleset, role, word == "yes", gap if GAP in value else ""))
    return cells


@dataclass
class World:
    """One example tournament with a second stage, and the user of one role."""

    tournament: Tournament
    stage: Stage
    user: User | None
    role: str
    made: dict[str, Any] = field(default_factory=dict)

    def teams(self) -> list[Team]:
        return list(Team.objects.filter(tournament=self.tournament).order_by("stage__order", "order", "pk"))


def build_world(ruleset: str, role: str) -> World:
    tournament = import_document(example(ruleset))
    stage = tournament.stages.order_by("order", "pk").first()
    Stage.objects.create(tournament=tournament, key=OTHER_STAGE, order=stage.order + 100)
    world = World(tournament, stage, None, role)
    world.user = make_user(world)
    return world


def make_user(world: World) -> User | None:
    role, tournament = world.role, world.tournament
    if role == "anonymous":
        return None
    if role == "staff":
        return UserFactory(is_staff=True)
    teams = world.teams()
    if role == "player":
        team = teams[0]
        entry = team.roster.exclude(player_id=team.captain_id).select_related("player").order_by("order").first()
        return user_playing_as(entry.player.nick)
    if role == "captain of another team":
        team = teams[1]
        user = user_playing_as(team.captain.nick)
        TournamentRole.objects.create(user=user, tournament=tournament, role=Role.CAPTAIN)
        return user
    user = UserFactory()
    if role.startswith("judge"):
        stages = [OTHER_STAGE] if role == "judge of another stage" else [world.stage.key]
        TournamentRole.objects.create(user=user, tournament=tournament, role=Role.JUDGE, stages=stages)
    else:
        TournamentRole.objects.create(user=user, tournament=tournament, role=role)
    return user


@dataclass(frozen=True)
class Request:
    method: str
    path: str
    body: Any = None
    api: bool = True


def pending_appeal(world: World) -> Appeal:
    tournament, team = world.tournament, world.teams()[0]
    now = timezone.now()
    if tournament.ruleset == "chgk_tour_points":
        tour = Tour.objects.get(stage__tournament=tournament, number=2)
        return Appeal.objects.create(tournament=tournament, kind="removal", stage=tour.stage, tour=tour, question=1,
                                     team=team, filed_at=now)
    decision = fresh_decision(world)
    return Appeal.objects.create(tournament=tournament, kind="decision", decision=decision, stage=world.stage,
                                 team=team, filed_at=now)


def fresh_decision(world: World) -> Decision:
    now = timezone.now()
    index = Decision.objects.filter(tournament=world.tournament).count() + 1  # the facts number them 1, 2, ...
    return Decision.objects.create(tournament=world.tournament, index=index, kind="disqualification",
                                   stage=world.stage, team=world.teams()[0], decided_at=now, published_at=now)


def pending_claim(world: World) -> Player:
    claimant = Player.objects.create(nick="matrix claimant", user=UserFactory(), claim_confirmed=False)
    RosterEntry.objects.create(team=world.teams()[0], player=claimant, order=99)
    return claimant


def first_game(world: World) -> Game:
    return Game.objects.filter(stage=world.stage).order_by("number").first()


def tour(world: World, number: int = 1) -> Tour:
    return Tour.objects.get(stage__tournament=world.tournament, number=number)


def api(method: str, path: str, body: Any = None) -> Callable[[World], Request]:
    return lambda w: Request(method, path.format(slug=w.tournament.slug, key=w.stage.key), body if body is not None
                             else {})


def page(path: str, body: dict | None = None) -> Callable[[World], Request]:
    return lambda w: Request("POST", path.format(slug=w.tournament.slug, key=w.stage.key), body or {}, api=False)


ACTS: dict[tuple[str, str], Callable[[World], Request]] = {
    ("POST /api/v1/tournaments/<slug>/stages/<key>/games/<n>/import-log/", "family_league"):
        lambda w: Request("POST", f"/api/v1/tournaments/{w.tournament.slug}/stages/{w.stage.key}/games/"
                                  f"{first_game(w).number}/import-log/", {}),
    ("POST /api/v1/tournaments/<slug>/tours/<n>/import-rating/", "chgk_tour_points"):
        api("POST", "/api/v1/tournaments/{slug}/tours/1/import-rating/"),
    ("POST /api/v1/tournaments/<slug>/import-rosters/", "family_league"):
        api("POST", "/api/v1/tournaments/{slug}/import-rosters/"),
    ("POST /api/v1/tournaments/<slug>/stages/<key>/import-logs/", "family_league"):
        api("POST", "/api/v1/tournaments/{slug}/stages/{key}/import-logs/"),
    ("POST /api/v1/tournaments/<slug>/import-penalties/", "family_league"):
        api("POST", "/api/v1/tournaments/{slug}/import-penalties/"),
    ("POST /api/v1/tournaments/<slug>/applications/", "chgk_tour_points"):
        api("POST", "/api/v1/tournaments/{slug}/applications/"),
    ("POST /api/v1/tournaments/<slug>/applications/<pk>/decision/", "chgk_tour_points"):
        api("POST", "/api/v1/tournaments/{slug}/applications/999999/decision/"),
    ("POST /api/v1/tournaments/new/", "family_league"): api("POST", "/api/v1/tournaments/new/"),
    ("POST /api/v1/tournaments/<slug>/roles/", "family_league"): api("POST", "/api/v1/tournaments/{slug}/roles/"),
    ("DELETE /api/v1/tournaments/<slug>/roles/", "family_league"):
        api("DELETE", "/api/v1/tournaments/{slug}/roles/"),
    ("POST /api/v1/tournaments/import/?replace=true", "family_league"):
        lambda w: Request("POST", "/api/v1/tournaments/import/?replace=true", example("family_league")),
    ("POST /api/v1/games/", "family_league"):
        lambda w: Request("POST", "/api/v1/games/", {"tournament": w.tournament.slug, "stage": w.stage.key}),
    ("PUT /api/v1/games/<pk>/", "family_league"):
        lambda w: Request("PUT", f"/api/v1/games/{first_game(w).pk}/", {}),
    ("PUT /api/v1/tours/<pk>/masks/", "chgk_tour_points"):
        lambda w: Request("PUT", f"/api/v1/tours/{tour(w).pk}/masks/", {}),
    ("POST /api/v1/penalties/", "family_league"):
        lambda w: Request("POST", "/api/v1/penalties/", {"tournament": w.tournament.slug, "stage": w.stage.key}),
    ("DELETE /api/v1/penalties/<pk>/", "family_league"):
        lambda w: Request("DELETE", f"/api/v1/penalties/{Penalty.objects.filter(tournament=w.tournament).first().pk}/"),
    ("POST /api/v1/decisions/", "class_balanced"):
        lambda w: Request("POST", "/api/v1/decisions/", {"tournament": w.tournament.slug, "stage": w.stage.key}),
    ("POST /api/v1/appeals/", "family_league"):
        lambda w: Request("POST", "/api/v1/appeals/", {"tournament": w.tournament.slug,
                                                       "decision": fresh_decision(w).index, "argument": "FL-19"}),
    **{("POST /api/v1/appeals/<pk>/verdict/", key): (
        lambda w: Request("POST", f"/api/v1/appeals/{pending_appeal(w).pk}/verdict/", {}))
       for key in ("chgk_tour_points", "family_league", "class_balanced", "elimination_gp")},
    ("POST /api/v1/tournaments/<slug>/stages/", "family_league"): api("POST", "/api/v1/tournaments/{slug}/stages/"),
    ("PATCH /api/v1/tournaments/<slug>/stages/<key>/", "family_league"):
        api("PATCH", "/api/v1/tournaments/{slug}/stages/{key}/"),
    ("DELETE /api/v1/tournaments/<slug>/stages/<key>/", "family_league"):
        api("DELETE", "/api/v1/tournaments/{slug}/stages/{key}/"),
    ("POST /api/v1/tournaments/<slug>/tours/", "chgk_tour_points"): api("POST", "/api/v1/tournaments/{slug}/tours/"),
    ("PATCH /api/v1/tournaments/<slug>/tours/<n>/", "chgk_tour_points"):
        api("PATCH", "/api/v1/tournaments/{slug}/tours/1/"),
    ("DELETE /api/v1/tournaments/<slug>/tours/<n>/", "chgk_tour_points"):
        api("DELETE", "/api/v1/tournaments/{slug}/tours/2/"),
    **{("POST /appeals/<pk>/verdict/", key): (
        lambda w: Request("POST", f"/appeals/{pending_appeal(w).pk}/verdict/", {}, api=False))
       for key in ("chgk_tour_points", "family_league")},
    ("POST /appeals/t/<slug>/file/", "family_league"):
        lambda w: Request("POST", f"/appeals/t/{w.tournament.slug}/file/", {
            "kind": "decision", "decision": fresh_decision(w).index, "argument": "FL-19"}, api=False),
    ("POST /t/<slug>/gp/<stage>/draw/", "elimination_gp"): page("/t/{slug}/gp/{key}/draw/"),
    ("POST /t/<slug>/gp/<stage>/committee/", "elimination_gp"): page("/t/{slug}/gp/{key}/committee/"),
    ("POST /t/<slug>/chgk/applications/", "chgk_tour_points"):
        page("/t/{slug}/chgk/applications/", {"action": "admit"}),
    ("POST /t/<slug>/chgk/hosting/", "chgk_tour_points"): page("/t/{slug}/chgk/hosting/"),
    ("POST /t/<slug>/chgk/tours/<n>/questions/", "chgk_tour_points"): page("/t/{slug}/chgk/tours/1/questions/"),
    ("POST /t/<slug>/chgk/checklists/", "chgk_tour_points"): page("/t/{slug}/chgk/checklists/"),
    ("POST /accounts/teams/<pk>/manage/", "chgk_tour_points"):
        lambda w: Request("POST", f"/accounts/teams/{w.teams()[0].pk}/manage/", {}, api=False),
    ("POST /t/<slug>/family/apply/", "family_league"): page("/t/{slug}/family/apply/"),
    ("POST /t/<slug>/family/groups/", "family_league"): page("/t/{slug}/family/groups/"),
    ("POST /t/<slug>/family/calendar/<stage>/", "family_league"):  # a stage without games: FL-9 lets it be drawn
        page(f"/t/{{slug}}/family/calendar/{OTHER_STAGE}/"),
    ("POST /t/<slug>/stages/<stage>/schedule/", "class_balanced"): page("/t/{slug}/stages/{key}/schedule/"),
    ("POST /t/<slug>/tours/<n>/enter/", "chgk_tour_points"): page("/t/{slug}/tours/1/enter/"),
    ("POST /t/<slug>/<stage>/games/<n>/enter/", "family_league"):
        lambda w: Request("POST", f"/t/{w.tournament.slug}/{w.stage.key}/games/{first_game(w).number}/enter/", {},
                          api=False),
    ("POST /t/<slug>/<stage>/games/new/", "family_league"): page("/t/{slug}/{key}/games/new/"),
    ("POST /t/<slug>/import/rosters/", "family_league"): page("/t/{slug}/import/rosters/"),
    ("POST /t/<slug>/import/games/", "family_league"):  # into this stage, as the page's form names it
        lambda w: Request("POST", f"/t/{w.tournament.slug}/import/games/", {"stage": w.stage.key}, api=False),
    ("POST /t/<slug>/import/penalties/", "family_league"): page("/t/{slug}/import/penalties/"),
    ("POST /accounts/dashboard/new/", "family_league"): page("/accounts/dashboard/new/"),
    ("POST /accounts/dashboard/<slug>/rules/", "family_league"): page("/accounts/dashboard/{slug}/rules/"),
    ("POST /accounts/dashboard/<slug>/roles/", "family_league"): page("/accounts/dashboard/{slug}/roles/"),
    ("POST /accounts/dashboard/<slug>/structure/", "family_league"): page("/accounts/dashboard/{slug}/structure/"),
    ("POST /accounts/claims/", "family_league"):
        lambda w: Request("POST", "/accounts/claims/", {"player": pending_claim(w).pk, "decision": "confirm"},
                          api=False),
    ("POST /accounts/players/merge/", "family_league"): page("/accounts/players/merge/"),
}

CELLS = read_table()


def case_id(cell: Cell) -> str:
    act = re.sub(r"[^\w<>/.?=-]+", "_", cell.act)
    return f"{act}-{cell.ruleset}-{cell.role.replace(' ', '_')}"


def params() -> list:
    out = []
    for cell in CELLS:
        marks = [pytest.mark.xfail(strict=True, reason=cell.gap)] if cell.gap else []
        out.append(pytest.param(cell, id=case_id(cell), marks=marks))
    return out


def row_counts() -> dict[str, int]:
    """The number of rows of every model of the portal (sessions and content types aside)."""
    return {model._meta.label: model._default_manager.count() for model in apps.get_models()
            if model._meta.app_label not in UNCOUNTED_APPS and not model._meta.proxy}


def client_of(request: Request, user: User | None) -> Any:
    """A signed-in client (the login's own rows, a session and an access log, are written before counting)."""
    if request.api:
        client: Any = APIClient()
        if user is not None:
            client.force_authenticate(user)
        return client
    client = Client()
    if user is not None:
        client.force_login(user)
    return client


def perform(client: Any, request: Request) -> Any:
    if request.api:
        return getattr(client, request.method.lower())(request.path, request.body, format="json",
                                                       HTTP_ACCEPT_LANGUAGE="en")
    return client.post(request.path, request.body, HTTP_ACCEPT_LANGUAGE="en")


def refusal_body(response: Any) -> str:
    """What a refused API call says: its ``detail``, or its ``errors``' messages."""
    data = response.json()
    if isinstance(data.get("detail"), str):
        return data["detail"]
    return " ".join(str(row.get("message", "")) for row in data.get("errors") or [])


def test_the_table_names_every_act_once_and_the_test_knows_each():
    """Every row of docs/permissions.md is an act the matrix knows how to try."""
    rows = {(c.act, c.ruleset) for c in CELLS}
    assert len(CELLS) == len(rows) * len(ROLES), "a row is written twice"
    assert rows == set(ACTS), {"unknown to the test": sorted(rows - set(ACTS)), "not in the doc": sorted(
        set(ACTS) - rows)}


@pytest.mark.parametrize("cell", params())
def test_permission_matrix(cell: Cell):
    """One cell of docs/permissions.md (roles.md; FL-0, CB-15, CHGK-18, GP-8, GP-23 ...)."""
    world = build_world(cell.ruleset, cell.role)
    request = ACTS[(cell.act, cell.ruleset)](world)
    try:
        resolve(request.path.split("?", 1)[0])
    except Resolver404:
        pytest.skip(f"{cell.act} is not routed yet (its endpoint is being written)")
    client = client_of(request, world.user)
    before = row_counts()
    response = perform(client, request)
    status = response.status_code
    if cell.allowed:
        assert status not in (401, 403), (status, response.content[:500])
        assert not (status == 302 and response["Location"].startswith(settings.LOGIN_URL)), response["Location"]
        return
    if request.api:
        assert status in ((401, 403) if world.user is None else (403,)), (status, response.content[:500])
        assert refusal_body(response).strip(), response.content
    elif status == 302 and world.user is None:
        assert response["Location"].startswith(settings.LOGIN_URL), response["Location"]
    else:
        assert status == 403, (status, response.content[:300])
        assert 'class="refusal"' in response.content.decode(), response.content[:300]
    after = row_counts()
    assert after == before, {label: (before[label], after[label]) for label in before if before[label] != after[label]}
