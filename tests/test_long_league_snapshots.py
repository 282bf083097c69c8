"""A long league's snapshot stores what the pages read, not every per-round list.

Above ``scoring.serialize.ROUNDS_KEPT`` games a team's ``points_by_round`` (one value per game) is replaced
by its sampled chart; the tournament page's chart is sampled from the whole lists before; the team page draws
the stored chart. Both must be the charts the whole lists give.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

import rulesets
from portal.views.chart import build_chart, draw_chart
from rulesets.interchange import parse_document
from scoring.models import StandingsSnapshot
from scoring.serialize import ROUNDS_KEPT, standings_details
from scoring.services import recompute
from tournaments.importer import import_document
from tournaments.synthetic import mafia_league

pytestmark = pytest.mark.django_db

GAMES = ROUNDS_KEPT + 40


@pytest.fixture
def league():
    tournament = import_document(mafia_league(GAMES, teams=7, slug="long-league"))
    recompute(tournament.pk)  # the test's transaction never commits: the job queued on commit does not run
    return tournament


def _whole_lists(document):
    facts = parse_document(document)
    computed = rulesets.get("family_league").compute(facts, "final", dt.datetime(2030, 1, 1, tzinfo=dt.UTC))
    return {row.team: row.details["points_by_round"] for row in computed.teams}, [str(n) for n in range(1, GAMES + 1)]


def test_a_long_leagues_snapshot_keeps_each_teams_sampled_chart_instead_of_its_per_round_list(league):
    snapshot = StandingsSnapshot.objects.get(tournament=league, stage_key="final")
    rows = snapshot.details["teams"]
    assert all("points_by_round" not in row["details"] for row in rows)
    assert "rounds" not in snapshot.details["details"] and snapshot.details["details"]["rounds_count"] == GAMES
    lists, labels = _whole_lists(mafia_league(GAMES, teams=7, slug="long-league"))
    for row in rows:
        assert draw_chart(row["details"]["chart"]) == build_chart([(row["team"], lists[row["team"]])], labels)
    series = [(row["team"], lists[row["team"]]) for row in rows]  # one group: the page's order
    assert draw_chart(snapshot.summary["chart"]) == build_chart(series, labels)


def test_the_team_page_of_a_long_league_draws_the_stored_chart(client, league):
    team = league.teams.order_by("order").first()
    response = client.get(reverse("team", args=[league.slug, team.pk]))
    assert response.status_code == 200
    assert response.context["chart"] is not None and response.context["chart"].rounds == GAMES
    assert response.context["chart"].sampled
    assert b"<svg" in response.content


def test_a_short_leagues_details_keep_every_per_round_list():
    document = mafia_league(12, teams=5, slug="short-league")
    facts = parse_document(document)
    computed = rulesets.get("family_league").compute(facts, "final", dt.datetime(2030, 1, 1, tzinfo=dt.UTC))
    details = standings_details(computed)
    assert all(len(row["details"]["points_by_round"]) == 12 for row in details["teams"])
    assert details["details"]["rounds"] == [str(n) for n in range(1, 13)]
