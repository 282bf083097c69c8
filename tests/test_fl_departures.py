"""FL-3, FL-4: a player off the roster (``RosterEntry.left_at``) scores in no later game, through the loader."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Family, FamilyMembership, Player
from formats.family_league.families import leave
from rulesets import family_league
from rulesets.interchange import parse_document
from tests.conftest import example
from tests.factories import user_playing_as
from tournaments import game_cache
from tournaments.importer import import_document
from tournaments.loader import load_facts
from tournaments.models import Game, RosterEntry, Team

pytestmark = pytest.mark.django_db
MSK = dt.timezone(dt.timedelta(hours=4))


def _queries(tournament) -> int:
    """Queries of a cold load (the game cache emptied first, so every game is read)."""
    game_cache.forget()
    with CaptureQueriesContext(connection) as queries:
        load_facts(tournament)
    return len(queries)


def test_fl_4_a_player_who_left_the_family_is_ineligible_in_later_games_through_the_loader():
    """Fam01-p4 plays games 4 and 6 of the example (6 moved to tomorrow); leaving today (FL-4) bars them from 6."""
    tournament = import_document(example("family_league"))
    Game.objects.filter(stage__tournament=tournament, number=6).update(scheduled_at=timezone.now() + dt.timedelta(days=1))
    before = _queries(tournament)
    family = Family.objects.get(name="Fam01")
    user = user_playing_as("Fam01-p4")
    FamilyMembership.objects.create(family=family, player=Player.objects.get(nick="Fam01-p4"),
                                    joined_on=dt.date(2014, 1, 1))
    removed = leave(user, family)
    assert [(e.team.name, e.player.nick) for e in removed] == [("Fam01", "Fam01-p4")]
    moment = RosterEntry.objects.get(team__tournament=tournament, player__nick="Fam01-p4").left_at
    facts = load_facts(tournament)
    fam01 = next(t for t in facts.teams if t.name == "Fam01")
    assert fam01.players == ("Fam01-p1", "Fam01-p2", "Fam01-p3", "Fam01-p4")
    assert fam01.left_at == (("Fam01-p4", moment),)
    points = family_league.seat_points(facts, "final")
    assert not points[(4, "Fam01-p4")][1].startswith("ineligible_player")
    assert points[(6, "Fam01-p4")][0] == 0
    assert points[(6, "Fam01-p4")][1].startswith("ineligible_player (FL-15.2): Fam01-p4 left Fam01's roster")
    computed = family_league.compute(facts, None, timezone.now())
    assert ("Fam01", 6, "ineligible_player", "Fam01-p4") in {
        (v["team"], v["game"], v["kind"], v["player"]) for v in computed.details["violations"]}
    assert _queries(tournament) == before, "reading left_at costs no query of its own"


def test_fl_3_a_departure_in_the_document_is_stored_and_loaded_as_the_parser_reads_it():
    """The team's ``left_at`` (nick -> moment) becomes ``RosterEntry.left_at``; the loader gives the same facts."""
    document = example("family_league")
    judged = dt.datetime(2014, 8, 31, 19, 0, tzinfo=MSK)  # 24 hours before the first game (FL-3)
    document["teams"][1]["left_at"] = {"Fam02-p3": judged.isoformat()}
    for game in document["stages"][0]["games"]:  # FL-19: left out, the import's own time would be stored
        game["result_recorded_at"] = "2014-09-08T12:00:00+04:00"
    tournament = import_document(document)
    entry = RosterEntry.objects.get(team__tournament=tournament, player__nick="Fam02-p3")
    assert entry.left_at == judged
    assert not RosterEntry.objects.filter(team__tournament=tournament, left_at__isnull=False).exclude(
        pk=entry.pk).exists()
    facts = load_facts(tournament)
    assert facts == parse_document(document)
    points = family_league.seat_points(facts, "final")
    assert all(reason.startswith("ineligible_player (FL-15.2): Fam02-p3 left")
               for (_game, nick), (_points, reason) in points.items() if nick == "Fam02-p3")
    assert Team.objects.get(tournament=tournament, name="Fam02").roster.filter(left_at__isnull=True).count() == 3
