"""FL-19: a changed result that creates a new detected violation publishes it at the change:
its appeal window runs from then, and the stage is not final until it closes. A violation the change keeps
keeps its moment; one recorded with the result is published with it."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from accounts.models import Player, Role, TournamentRole
from appeals.services import AppealRefused, AppealTarget, decide, file_appeal, filing_deadline
from rulesets import family_league
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tests.rulesets.test_appeal_windows_and_verdicts import NINE, RECORDED, league
from tests.rulesets.test_family_league_builder import full_game, seat
from tests.test_appeal_windows_and_verdicts_portal import league_with_a_violation
from tournaments import commands
from tournaments.importer import import_document
from tournaments.loader import load_facts
from tournaments.models import Game, Team, Tournament

HOURS_72 = dt.timedelta(hours=72)


@pytest.fixture
def tournament(db) -> Tournament:
    return import_document(league(violation=False))  # game 30 recorded in 2014, no violation


@pytest.fixture
def organizer(tournament, django_user_model):
    user = django_user_model.objects.create_user("organizer", password="pw-organizer-123456")
    TournamentRole.objects.create(user=user, tournament=tournament, role=Role.ORGANIZER)
    return user


def _payload(tournament: Tournament, game: Game, two_players: bool, outcome: str = "mafia") -> dict:
    data = full_game(30, NINE, outcome)
    if two_players:
        data["seats"].append(seat("Fam01-p2"))
    return {"tournament": tournament.slug, "stage": "final", "version": game.version, **data}


def test_fl_19_a_change_that_creates_a_violation_publishes_it_at_the_change(tournament, organizer):
    game = Game.objects.get(stage__tournament=tournament, number=30)
    assert game.result_recorded_at == RECORDED
    before = timezone.now()
    commands.update_game(organizer, game.pk, _payload(tournament, game, two_players=True))
    game.refresh_from_db()
    assert game.result_recorded_at == RECORDED  # the result's own moment does not move
    [entry] = game.violations_published
    published = dt.datetime.fromisoformat(entry["at"])
    assert entry["team"] == "Fam01" and entry["kind"] == "two_players"
    assert before <= published <= timezone.now()

    facts = load_facts(tournament)
    assert family_league.violation_windows(facts, published) == [published + HOURS_72]
    assert family_league.compute(facts, None, published + HOURS_72 - dt.timedelta(seconds=1)).final is False
    assert family_league.compute(facts, None, published + HOURS_72).final is True
    target = AppealTarget(kind="violation", game=game, violation="two_players",
                          player=Player.objects.filter(nick=entry["player"]).first())
    assert filing_deadline(tournament, target) == published + HOURS_72


def test_fl_19_a_change_that_keeps_the_violation_keeps_its_moment(tournament, organizer):
    game = Game.objects.get(stage__tournament=tournament, number=30)
    commands.update_game(organizer, game.pk, _payload(tournament, game, two_players=True))
    game.refresh_from_db()
    first = game.violations_published
    commands.update_game(organizer, game.pk, _payload(tournament, game, two_players=True, outcome="civilians"))
    game.refresh_from_db()
    assert game.violations_published == first


def test_fl_19_a_change_that_removes_the_violation_forgets_its_moment(tournament, organizer):
    game = Game.objects.get(stage__tournament=tournament, number=30)
    commands.update_game(organizer, game.pk, _payload(tournament, game, two_players=True))
    game.refresh_from_db()
    commands.update_game(organizer, game.pk, _payload(tournament, game, two_players=False))
    game.refresh_from_db()
    assert game.violations_published == []
    assert family_league.violation_windows(load_facts(tournament), timezone.now()) == []


def test_fl_19_a_violation_recorded_with_the_result_is_published_with_it(db):
    tournament = import_document(league())  # game 30 has the violation from its first recording
    game = Game.objects.get(stage__tournament=tournament, number=30)
    assert game.violations_published == []
    facts = load_facts(tournament)
    assert family_league.violation_windows(facts, RECORDED) == [RECORDED + HOURS_72]


def test_fl_19_a_partly_verdict_on_a_detected_violation_is_refused(db):
    """A detected violation has no decision to change: upheld (annulled) or rejected, never ``partly``."""
    tournament, violator = league_with_a_violation(recorded_at=None)
    game = Game.objects.get(stage__tournament=tournament, number=1)
    target = AppealTarget(kind="violation", game=game, violation="two_players",
                          player=Player.objects.get(nick=violator))
    fam01 = Team.objects.get(tournament=tournament, name="Fam01")
    appeal = file_appeal(tournament, user_playing_as("Fam01-p2"), target, team=fam01)
    curator = UserFactory()
    RoleFactory(user=curator, tournament=tournament, role=Role.CURATOR)
    with pytest.raises(AppealRefused, match=r"FL-15.*FL-19"):
        decide(appeal, curator, "partly")
    appeal.refresh_from_db()
    assert appeal.verdict is None
    decide(appeal, curator, "accepted")
    assert [w.kind for w in load_facts(tournament).waived_violations] == ["two_players"]
