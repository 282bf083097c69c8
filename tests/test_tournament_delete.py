"""Deleting a tournament: from the admin (one, or several with "delete selected"), with everything it holds, in
the history; its games and tours set-wise (``tournaments.purge``), so the seats that protect its teams from a
row-by-row delete do not stop it."""

from __future__ import annotations

import pytest

from accounts.models import Player, Role, TournamentRole
from scoring.models import StandingsSnapshot
from scoring.services import recompute
from tests.conftest import example
from tests.factories import UserFactory
from tournaments import commands
from tournaments.importer import import_document
from tournaments.models import AuditEntry, Game, Seat, Stage, Team, Tour, Tournament

pytestmark = pytest.mark.django_db


@pytest.fixture
def superuser_client(client):
    client.force_login(UserFactory(is_staff=True, is_superuser=True))
    return client


def _deletions_since(mark: int):
    """The tournaments' deletion entries recorded after the entry ``mark`` (other tests' entries may remain)."""
    return AuditEntry.objects.filter(pk__gt=mark, action="delete", model="tournaments.Tournament")


def _last_entry() -> int:
    return AuditEntry.objects.order_by("-pk").values_list("pk", flat=True).first() or 0


def _holds(tournament: Tournament) -> dict[str, int]:
    return {"stages": Stage.objects.filter(tournament=tournament).count(),
            "teams": Team.objects.filter(tournament=tournament).count(),
            "games": Game.objects.filter(stage__tournament=tournament).count(),
            "seats": Seat.objects.filter(game__stage__tournament=tournament).count(),
            "tours": Tour.objects.filter(stage__tournament=tournament).count()}


def test_the_admin_confirms_with_counts_and_deletes_a_tournament_with_games(superuser_client):
    league = import_document(example("family_league"))
    season = import_document(example("chgk_tour_points"))
    recompute(league.pk, force=True)
    kept = _holds(season)
    seated = set(Seat.objects.filter(game__stage__tournament=league).values_list("player_id", flat=True))
    url = f"/admin/tournaments/tournament/{league.pk}/delete/"
    mark = _last_entry()
    confirmation = superuser_client.get(url)
    assert confirmation.status_code == 200
    assert confirmation.context["protected"] == [] and not confirmation.context["perms_lacking"]
    assert dict(confirmation.context["model_count"])[Seat._meta.verbose_name_plural] == _holds(league)["seats"] > 0
    response = superuser_client.post(url, {"post": "yes"})
    assert response.status_code == 302
    assert not Tournament.objects.filter(pk=league.pk).exists()
    assert not StandingsSnapshot.objects.filter(tournament_id=league.pk).exists()
    assert _holds(season) == kept
    assert Player.objects.filter(pk__in=seated).count() == len(seated) > 0  # players are global
    entry = _deletions_since(mark).get()
    assert entry.tournament_slug == league.slug
    assert entry.tournament_id is None and entry.before["name"] == league.name


def test_delete_selected_deletes_every_chosen_tournament(superuser_client):
    chosen = [import_document(example(key)) for key in ("family_league", "elimination_gp")]
    other = import_document(example("class_balanced"))
    ids = [t.pk for t in chosen]
    mark = _last_entry()
    response = superuser_client.post("/admin/tournaments/tournament/", {
        "action": "delete_selected", "_selected_action": ids, "post": "yes"})
    assert response.status_code == 302
    assert not Tournament.objects.filter(pk__in=ids).exists()
    assert Tournament.objects.filter(pk=other.pk).exists() and _holds(other)["seats"] > 0
    assert sorted(_deletions_since(mark).values_list("tournament_slug", flat=True)) == sorted(t.slug for t in chosen)


def test_an_organizer_deletes_only_their_own_tournament(client):
    mine = import_document(example("family_league"))
    theirs = import_document(example("chgk_tour_points"))
    organizer = UserFactory(is_staff=True)
    TournamentRole.objects.create(user=organizer, tournament=mine, role=Role.ORGANIZER)
    client.force_login(organizer)
    assert client.post(f"/admin/tournaments/tournament/{theirs.pk}/delete/", {"post": "yes"}).status_code in (
        302, 403, 404)
    assert Tournament.objects.filter(pk=theirs.pk).exists()
    assert client.post(f"/admin/tournaments/tournament/{mine.pk}/delete/", {"post": "yes"}).status_code == 302
    assert not Tournament.objects.filter(pk=mine.pk).exists()


def test_only_organizers_may_delete_through_the_command():
    tournament = import_document(example("family_league"))
    mark = _last_entry()
    judge = UserFactory()
    TournamentRole.objects.create(user=judge, tournament=tournament, role=Role.JUDGE)
    with pytest.raises(commands.NotAllowed):
        commands.delete_tournaments(judge, [tournament])
    assert Tournament.objects.filter(pk=tournament.pk).exists() and _holds(tournament)["seats"] > 0
    assert not _deletions_since(mark).exists()
