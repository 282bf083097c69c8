"""Every act checks exactly the role spec/roles.md names: the organizer records no penalty or
decision (FL-0, CB-15, CB-16), a judge acts only on the stages of the role, and GP invitations close with the
stage's registration for everyone (GP-5)."""

from __future__ import annotations

import pytest

from accounts.models import Role, TournamentRole
from accounts.permissions import can_record_decisions
from rulesets.errors import NotAllowed
from tests.conftest import example
from tests.factories import UserFactory
from tournaments import commands
from tournaments.importer import import_document

pytestmark = pytest.mark.django_db


def granted(tournament, role: str, stages: list[str] | None = None):
    user = UserFactory()
    TournamentRole.objects.create(user=user, tournament=tournament, role=role, stages=stages or [])
    return user


def penalty(stage: str) -> dict:
    return {"tournament": "mt-example", "stage": stage, "team": "Fam03", "kind": "fair_play", "code": "FP-9",
            "points": "0.1", "decided_at": "2014-09-20T12:00:00+03:00"}


@pytest.fixture
def league():
    return import_document(example("family_league"))


def test_fl_0_the_organizer_records_no_penalty(league):
    with pytest.raises(NotAllowed, match="FL-0"):
        commands.record_penalty(granted(league, Role.ORGANIZER), penalty("final"))


def test_fl_0_a_judge_of_a_stage_rules_on_that_stage_only(league):
    judge = granted(league, Role.JUDGE, ["qualifying"])
    assert can_record_decisions(judge, league, "qualifying") and not can_record_decisions(judge, league, "final")
    with pytest.raises(NotAllowed):
        commands.record_penalty(judge, penalty("final"))
    assert not can_record_decisions(judge, league), "an act on no stage needs a judge of every stage"


def test_fl_0_a_judge_whose_role_names_no_stage_and_the_curator_rule_on_every_stage(league):
    everywhere, curator = granted(league, Role.JUDGE), granted(league, Role.CURATOR)
    assert commands.record_penalty(everywhere, penalty("final")).pk
    assert commands.record_penalty(curator, penalty("final")).pk
    assert can_record_decisions(everywhere, league) and can_record_decisions(curator, league)


def test_cb_15_the_organizer_records_no_technical_result(league):
    with pytest.raises(NotAllowed, match="CB-15"):
        commands.record_decision(granted(league, Role.ORGANIZER), {
            "tournament": league.slug, "kind": "technical_result", "stage": "final", "game": 1,
            "outcome": "mafia"})
