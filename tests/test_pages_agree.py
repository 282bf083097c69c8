"""Pages agree with themselves and each other, and the demo reads as a real, finished
season (its windows and checklists dated from its own dates, not from the moment it was loaded)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone

from accounts.models import Role, TournamentRole
from formats import registry
from formats.chgk_tour_points import services as chgk_services
from rulesets.family_league import standings as fl_standings
from tests.conftest import example
from tests.factories import UserFactory
from tests.test_pages import load
from tournaments.demo import as_archive, demo_chgk_season, demo_family_league
from tournaments.importer import import_document
from tournaments.loader import load_facts

pytestmark = pytest.mark.django_db


def test_gp_6_a_played_stage_shows_its_players_and_offers_no_registration():
    """The Grand Prix example's stage played 13 games: its page says so, lists the players of its games and
    shows no register or open-registration button."""
    tournament = load(example("elimination_gp"))
    organizer = UserFactory()
    TournamentRole.objects.create(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(organizer)
    page = client.get(reverse("gp-registration", args=[tournament.slug, "qualifying-1"])).content.decode()
    assert "This stage has been played" in page and "Players of the stage" in page
    assert "Roster (0 /" not in page
    assert 'value="register"' not in page and 'value="open"' not in page


def test_gp_2_a_stage_whose_registration_is_not_open_offers_no_register_button():
    tournament = import_document({**example("elimination_gp"), "stages": [
        {**example("elimination_gp")["stages"][0], "games": []}]})
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    page = client.get(reverse("gp-registration", args=[tournament.slug, "qualifying-1"])).content.decode()
    assert "Registration is open" not in page
    assert "Your registration" not in page and 'value="register"' not in page


def test_chgk_16_a_finished_season_says_finished_on_its_page_its_team_page_and_its_sheet():
    """The export keeps the spec's code (``active``); every page and the CSV say the same word."""
    tournament = load(as_archive(demo_chgk_season()))
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    export = client.get(f"/api/v1/tournaments/{tournament.slug}/standings/").json()
    assert export["final"] is True and {row["status"] for row in export["teams"]} >= {"active"}
    csv = client.get(f"/api/v1/tournaments/{tournament.slug}/standings/?format=csv").content.decode()
    assert "finished" in csv and ",in play" not in csv
    team = tournament.teams.filter(name=next(r["team"] for r in export["teams"] if r["status"] == "active")).get()
    page = client.get(reverse("team", args=[tournament.slug, team.pk])).content.decode()
    assert "finished" in page and "in play" not in page


def test_fl_19_the_demo_league_is_final_its_windows_run_from_its_own_games():
    """The demo's games were recorded three hours after they were scheduled (2014): no FL-19 window is open
    now, so the league is final and its awards are no longer provisional."""
    tournament = import_document(as_archive(demo_family_league()))
    facts = load_facts(tournament)
    assert fl_standings.violation_windows(facts, timezone.now()) == []
    assert all(g.result_recorded_at is not None and g.result_recorded_at.year == 2014
               for stage in facts.stages for g in stage.games if g.status != "scheduled")


def test_chgk_11_the_demo_season_has_no_overdue_checklist_item():
    """A season entered after it was played has done its tours' checklists (CHGK-11), each at its due time."""
    tournament = import_document(demo_chgk_season())
    assert any(row.overdue for row in chgk_services.checklists(tournament))
    registry.for_tournament(tournament).archive(tournament)
    rows = chgk_services.checklists(tournament)
    assert rows and not any(row.overdue for row in rows)
    assert all(row.done_at == row.item.due for row in rows)
    registry.for_tournament(tournament).archive(tournament)  # twice: nothing more to mark
    assert len(chgk_services.checklists(tournament)) == len(rows)


def test_the_season_grid_shows_correct_answers_in_the_cell_and_keeps_the_total_in_view():
    tournament = load(as_archive(demo_chgk_season()))
    page = Client(HTTP_ACCEPT_LANGUAGE="ru").get(reverse("chgk-grid", args=[tournament.slug])).content.decode()
    assert "отв.:" in page and 'class="num grid-total"' in page and 'class="grid-team"' in page


def test_an_api_refusal_carries_its_code_and_parameters_and_its_message_in_russian():
    tournament = import_document(example("family_league"))
    organizer = UserFactory()
    TournamentRole.objects.create(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    client = Client(HTTP_ACCEPT_LANGUAGE="ru")
    client.force_login(organizer)
    document = example("family_league")
    document["stages"][0]["games"][0]["seats"][0]["player"] = "Melancholia"
    response = client.post("/api/v1/tournaments/import/?replace=1", document, content_type="application/json")
    assert response.status_code == 400, response.content
    errors = response.json()["errors"]
    unknown = next(e for e in errors if e.get("code") == "unknown player %(player)s")
    assert unknown["params"] == {"player": "'Melancholia'"} and "Melancholia" in unknown["message"]
    assert "unknown player" not in unknown["message"]


def test_the_demo_dates_are_its_own_not_the_loading_moment():
    document = as_archive(demo_family_league())
    game = document["stages"][0]["games"][0]
    assert dt.datetime.fromisoformat(game["result_recorded_at"]) - dt.datetime.fromisoformat(
        game["scheduled_at"]) == dt.timedelta(hours=3)


def test_fl_3_the_application_page_and_the_dashboard_count_the_same_eligibility_warnings():
    """The league's own record (an imported document) names each participant's family: the head's application
    page and the organizer's dashboard judge FL-3 with one function and say the same."""
    from formats.family_league import services as fl_services
    from formats.family_league.home import dashboard_items
    from tournaments.models import Participant, Team

    tournament = import_document(example("family_league"))
    assert fl_services.warnings_for(tournament) == []
    Participant.objects.filter(tournament=tournament, player__nick="Fam01-p1").update(banned=True)
    warnings = fl_services.warnings_for(tournament)
    items = [item for item in dashboard_items(tournament, timezone.now(), []) if item.section == "eligibility"]
    assert [(w.player, w.reason) for w in warnings] == [("Fam01-p1", "banned")]
    assert len(items) == len(warnings) and "Fam01-p1" in items[0].text
    assert Team.objects.filter(tournament=tournament, name="Fam01").exists()
