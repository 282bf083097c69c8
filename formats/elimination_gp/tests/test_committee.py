"""The committee's decisions of a Grand Prix stage in the portal, not the admin (GP-16..GP-19)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import translation

from accounts.models import Player, Role
from portal.dashboard import attention_items
from scoring.services import recompute
from tests.conftest import example
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tournaments.importer import import_document
from tournaments.models import Decision, Tournament

pytestmark = pytest.mark.django_db
STAGE = "qualifying-1"
TIED = ["GP01-p5", "GP02-p2", "GP09-p4"]  # the example's GP-17 tie across the cut: one vacancy (GP-18)


@pytest.fixture
def series() -> Tournament:
    tournament = import_document(example("elimination_gp"))
    recompute(tournament.pk, force=True)
    return tournament


def member(tournament: Tournament, role: str = Role.CURATOR):
    user = UserFactory()
    RoleFactory(user=user, tournament=tournament, role=role)
    return user


def page_of(user, tournament: Tournament, language: str = "en") -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.cookies["django_language"] = language
    if user is not None:
        client.force_login(user)
    return client


def committee(tournament: Tournament) -> str:
    return f"/t/{tournament.slug}/gp/{STAGE}/committee/"


def test_gp_18_committee_page_is_the_committees_only(series):
    assert page_of(None, series).get(committee(series)).status_code == 302
    assert page_of(user_playing_as("GP01-p1"), series).get(committee(series)).status_code == 403
    assert page_of(member(series), series).get(committee(series)).status_code == 200


@pytest.mark.parametrize("language", ["en", "ru"])
def test_gp_17_gp_18_the_forms_offer_only_the_stages_players_with_the_tie_prefilled(series, language):
    Player.objects.create(nick="Outsider")
    page = page_of(member(series), series, language).get(committee(series)).content.decode()
    assert '<option value="GP01-p1">' in page
    assert "Outsider" not in page, "no dropdown of every player of the site"
    for index, nick in enumerate(TIED, 1):
        assert f'name="tie-place_{index}"' in page
        assert f'<option value="{nick}" selected>' in page
    with translation.override(language):
        assert translation.gettext("Committee decisions") in page
        assert translation.gettext("tied across the cut") in page


def test_gp_18_filling_the_vacancy_writes_a_qualify_decision_and_closes_it(series):
    curator = member(series)
    response = page_of(curator, series).post(committee(series), {
        "action": "qualify", "qualify-player": TIED[1], "qualify-scope": "vacancy",
        "qualify-reason": "best by points of the tied"})
    assert response.status_code == 302
    decision = Decision.objects.get(tournament=series)
    assert (decision.kind, decision.stage.key, decision.player.nick) == ("qualify", STAGE, TIED[1])
    assert "GP-18" in decision.reason and decision.author == curator
    recompute(series.pk, force=True)
    assert not [i for i in attention_items(series, decision.decided_at) if i.key.startswith("vacancy:")]


def test_gp_19_a_pick_for_the_final_names_no_qualifying_stage(series):
    page_of(member(series), series).post(committee(series), {
        "action": "qualify", "qualify-player": "GP03-p1", "qualify-scope": "pick", "qualify-reason": "GP-19 pick"})
    decision = Decision.objects.get(tournament=series)
    assert decision.stage is None and decision.player.nick == "GP03-p1"


def test_gp_18_a_player_outside_the_stage_is_refused_and_nothing_is_written(series):
    Player.objects.create(nick="Outsider")
    response = page_of(member(series), series).post(committee(series), {
        "action": "qualify", "qualify-player": "Outsider", "qualify-scope": "vacancy", "qualify-reason": "x"},
        follow=True)
    assert response.status_code == 200
    assert not Decision.objects.filter(tournament=series).exists()


def test_gp_17_tie_break_order_is_recorded_and_a_repeated_player_refused(series):
    client = page_of(member(series), series)
    client.post(committee(series), {"action": "tie_break", "tie-place_1": TIED[0], "tie-place_2": TIED[0],
                                    "tie-place_3": TIED[2]})
    assert not Decision.objects.filter(tournament=series).exists()
    client.post(committee(series), {"action": "tie_break", "tie-place_1": TIED[2], "tie-place_2": TIED[0],
                                    "tie-place_3": TIED[1], "tie-reason": "GP-17 custom"})
    decision = Decision.objects.get(tournament=series)
    assert decision.kind == "tie_break" and decision.order == [TIED[2], TIED[0], TIED[1]]


def test_gp_18_dashboard_vacancy_and_header_link_to_the_committee_page_not_the_admin(series):
    curator = member(series, Role.CURATOR)  # the committee (spec/roles.md), not the organizer
    from django.utils import timezone

    items = [i for i in attention_items(series, timezone.now()) if i.key.startswith("vacancy:")]
    assert items and all(i.url.startswith(committee(series)) for i in items)
    assert "/admin/" not in items[0].url
    page = page_of(curator, series).get(series.get_absolute_url()).content.decode()
    assert f'href="{committee(series)}"' in page
    stranger = page_of(user_playing_as("GP01-p1"), series).get(series.get_absolute_url()).content.decode()
    assert committee(series) not in stranger
