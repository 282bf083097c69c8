"""The demo command and the Django admin an organizer uses."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from accounts.models import Role, TournamentRole
from scoring.models import StandingsSnapshot
from tests.conftest import example
from tests.factories import UserFactory
from tournaments.importer import import_document
from tournaments.models import Game, Tour, Tournament

pytestmark = pytest.mark.django_db


def test_demo_loads_a_tournament_of_every_ruleset_and_prints_the_admin_login(django_capture_on_commit_callbacks):
    out = io.StringIO()
    with django_capture_on_commit_callbacks(execute=True):
        call_command("demo", password="demo-password-123", stdout=out)
    assert "admin / demo-password-123" in out.getvalue()
    assert set(Tournament.objects.values_list("ruleset", flat=True)) == {
        "elimination_gp", "chgk_tour_points", "family_league", "class_balanced"}
    for tournament in Tournament.objects.all():
        assert StandingsSnapshot.objects.filter(tournament=tournament, stage_key="").exists(), tournament.slug
    again = io.StringIO()
    call_command("demo", stdout=again)
    assert Tournament.objects.count() == 7, "the demo command can run twice"


@pytest.fixture
def superuser_client(client):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


@pytest.mark.parametrize("url", [
    "/admin/", "/admin/tournaments/tournament/", "/admin/tournaments/game/", "/admin/tournaments/tour/",
    "/admin/tournaments/team/", "/admin/tournaments/penalty/", "/admin/tournaments/appeal/",
    "/admin/tournaments/decision/", "/admin/scoring/standingssnapshot/", "/admin/tournaments/auditentry/",
    "/admin/accounts/player/",
])
def test_admin_lists_open(superuser_client, url):
    import_document(example("family_league"))
    assert superuser_client.get(url).status_code == 200


def test_admin_change_pages_of_a_game_and_a_tour_open(superuser_client):
    import_document(example("family_league"))
    import_document(example("chgk_tour_points"))
    game = Game.objects.first()
    tour = Tour.objects.first()
    assert superuser_client.get(f"/admin/tournaments/game/{game.pk}/change/").status_code == 200
    page = superuser_client.get(f"/admin/tournaments/tour/{tour.pk}/change/").content.decode()
    assert "seen_version" in page


def test_admin_shows_an_organizer_only_their_tournaments(client):
    mine = import_document(example("family_league"))
    import_document(example("chgk_tour_points"))
    organizer = UserFactory(is_staff=True)
    TournamentRole.objects.create(user=organizer, tournament=mine, role=Role.ORGANIZER)
    client.force_login(organizer)
    page = client.get("/admin/tournaments/tournament/").content.decode()
    assert mine.name in page and "mubk-spring" not in page
    other_tour = Tour.objects.first()
    assert client.get(f"/admin/tournaments/tour/{other_tour.pk}/change/").status_code in (302, 403, 404)


def test_recompute_now_action(superuser_client):
    tournament = import_document(example("chgk_tour_points"))
    assert not StandingsSnapshot.objects.filter(tournament=tournament).exists()
    response = superuser_client.post("/admin/tournaments/tournament/", {
        "action": "recompute_now", "_selected_action": [tournament.pk]}, follow=True)
    assert response.status_code == 200
    assert StandingsSnapshot.objects.filter(tournament=tournament).exists()


def test_changes_are_audited_and_shown_on_the_history_pages(client):
    """Who changed a fact, when, before and after — on the admin page and the tournament's history."""
    tournament = import_document(example("chgk_tour_points"))
    organizer = UserFactory(is_staff=True, username="olga")
    TournamentRole.objects.create(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    client.force_login(organizer)
    tour = Tour.objects.get(stage__tournament=tournament, number=1)
    mask = tour.masks.get(team__name="Quark")
    from accounts.middleware import current_user

    token = current_user.set(organizer)
    try:
        mask.mask = "11111111"
        mask.save()
    finally:
        current_user.reset(token)
    from tournaments.models import AuditEntry

    entry = AuditEntry.objects.get(model="tournaments.Mask", object_id=str(mask.pk))
    assert (entry.username, entry.before, entry.after) == ("olga", {"mask": "00000000"}, {"mask": "11111111"})
    history = client.get(f"/t/{tournament.slug}/history/").content.decode()
    assert "11111111" in history and "olga" in history
    admin_history = client.get(f"/admin/tournaments/mask/{mask.pk}/history/")
    assert admin_history.status_code in (200, 404)
    tour_history = client.get(f"/admin/tournaments/tour/{tour.pk}/history/").content.decode()
    assert "Audit trail" in tour_history or "Журнал" in tour_history
    client.force_login(UserFactory())
    assert client.get(f"/t/{tournament.slug}/history/").status_code == 403


def test_admin_filters_appeals_by_verdict_deadline(superuser_client):
    tournament = import_document(example("chgk_tour_points"))
    from tournaments.models import Appeal

    Appeal.objects.filter(tournament=tournament).update(verdict=None)
    page = superuser_client.get("/admin/tournaments/appeal/?due=overdue").content.decode()
    assert "result-list" in page or "result_list" in page
    assert superuser_client.get("/admin/tournaments/appeal/?due=soon").status_code == 200
