"""Each act checks the role spec/roles.md names, in the role's scope: a judge enters the results and decides the
appeals of the stages the role names only (FL-0, CB-17), the jury decides ChGK appeals only (CHGK-18; FL-19, GP-23,
CB-17 name the curator and the judge), the organizer alone publishes a schedule (CB-2), the GP draw is the committee's
or the organizer's (GP-8), and whoever may not file an appeal gets the refusal page naming the rule (FL-19).
``tests/test_permission_matrix.py`` tries every act against every role; these check the scopes behind it."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import Role, TournamentRole
from accounts.permissions import can_decide_appeal, can_enter_results
from appeals.services import AppealNotAllowed, decide, jury_emails
from formats.elimination_gp.home import committee_url, tournament_links
from rulesets.errors import NotAllowed
from tests.conftest import example
from tests.factories import UserFactory
from tournaments import commands
from tournaments.importer import import_document
from tournaments.models import Appeal, Decision, Game, Stage, Team, Tour

pytestmark = pytest.mark.django_db

OTHER = "elsewhere"


def granted(tournament, role: str, stages: list[str] | None = None):
    user = UserFactory()
    TournamentRole.objects.create(user=user, tournament=tournament, role=role, stages=stages or [])
    return user


def with_other_stage(ruleset: str):
    tournament = import_document(example(ruleset))
    Stage.objects.create(tournament=tournament, key=OTHER, order=100)
    return tournament


def first_stage(tournament) -> Stage:
    return tournament.stages.order_by("order", "pk").first()


def decision_appeal(tournament, stage: Stage) -> Appeal:
    """A pending appeal against a fresh decision of ``stage``."""
    now = timezone.now()
    team = Team.objects.filter(tournament=tournament).order_by("pk").first()
    decision = Decision.objects.create(tournament=tournament, index=Decision.objects.filter(
        tournament=tournament).count() + 1, kind="disqualification", stage=stage, team=team, decided_at=now,
        published_at=now)
    return Appeal.objects.create(tournament=tournament, kind="decision", decision=decision, stage=stage, team=team,
                                 filed_at=now)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def test_fl_0_a_judge_enters_the_results_of_the_stages_the_role_names_only():
    league = with_other_stage("family_league")
    final = first_stage(league)
    judge, everywhere = granted(league, Role.JUDGE, [OTHER]), granted(league, Role.JUDGE)
    assert can_enter_results(judge, league, OTHER) and not can_enter_results(judge, league, final.key)
    assert not can_enter_results(judge, league), "an act on no stage needs a judge of every stage"
    assert can_enter_results(everywhere, league) and can_enter_results(everywhere, league, final.key)
    for role in (Role.ORGANIZER, Role.CURATOR):
        assert can_enter_results(granted(league, role), league, final.key), role
    game = Game.objects.filter(stage=final).order_by("number").first()
    with pytest.raises(NotAllowed, match=final.key):
        commands.update_game(judge, game.pk, {})


def test_fl_0_a_judge_of_another_stage_enters_no_tour_answers_of_this_one():
    season = with_other_stage("chgk_tour_points")
    tour = Tour.objects.filter(stage__tournament=season).order_by("number").first()
    with pytest.raises(NotAllowed):
        commands.record_tour_masks(granted(season, Role.JUDGE, [OTHER]), tour.pk, {})


def test_fl_0_the_game_log_import_offers_only_the_stages_the_judge_enters(django_assert_max_num_queries):
    league = with_other_stage("family_league")
    client = signed_in(granted(league, Role.JUDGE, [OTHER]))
    with django_assert_max_num_queries(20):
        response = client.get(f"/t/{league.slug}/import/games/")
    assert [stage.key for stage in response.context["stages"]] == [OTHER]
    refused = client.post(f"/t/{league.slug}/import/games/", {"stage": first_stage(league).key})
    assert refused.status_code == 403 and 'class="refusal"' in refused.content.decode()


def test_fl_0_the_game_page_links_to_the_entry_form_only_for_a_judge_of_its_stage():
    league = with_other_stage("family_league")
    final = first_stage(league)
    game = Game.objects.filter(stage=final).order_by("number").first()
    page = f"/t/{league.slug}/{final.key}/games/{game.number}/"
    entry = f"/t/{league.slug}/{final.key}/games/{game.number}/enter/"
    assert entry not in signed_in(granted(league, Role.JUDGE, [OTHER])).get(page).content.decode()
    assert entry in signed_in(granted(league, Role.JUDGE, [final.key])).get(page).content.decode()


def test_cb_17_only_the_judge_of_the_appeals_stage_or_the_curator_decides_it():
    cb = with_other_stage("class_balanced")
    appeal = decision_appeal(cb, first_stage(cb))
    assert can_decide_appeal(granted(cb, Role.JUDGE, [appeal.stage.key]), appeal)
    assert can_decide_appeal(granted(cb, Role.JUDGE), appeal), "a judge of every stage"
    assert can_decide_appeal(granted(cb, Role.CURATOR), appeal)
    for user in (granted(cb, Role.JUDGE, [OTHER]), granted(cb, Role.JURY), granted(cb, Role.ORGANIZER)):
        assert not can_decide_appeal(user, appeal)
    with pytest.raises(AppealNotAllowed, match="CB-17"):
        decide(appeal, granted(cb, Role.JUDGE, [OTHER]), "rejected")
    appeal.refresh_from_db()
    assert appeal.verdict is None


@pytest.mark.parametrize("ruleset, rule", [("family_league", "FL-19"), ("elimination_gp", "GP-23")])
def test_fl_19_gp_23_the_curator_decides_a_mafia_appeal_and_the_jury_does_not(ruleset, rule):
    tournament = import_document(example(ruleset))
    appeal = decision_appeal(tournament, first_stage(tournament))
    assert can_decide_appeal(granted(tournament, Role.CURATOR), appeal)
    for role in (Role.JURY, Role.JUDGE, Role.ORGANIZER):
        assert not can_decide_appeal(granted(tournament, role), appeal), role
    with pytest.raises(AppealNotAllowed, match=rule):
        decide(appeal, granted(tournament, Role.JURY), "rejected")


def test_cb_17_the_mail_and_the_queue_of_an_appeal_reach_the_judges_of_its_stage_only():
    cb = with_other_stage("class_balanced")
    appeal = decision_appeal(cb, first_stage(cb))
    here = UserFactory(email="here@example.org")
    TournamentRole.objects.create(user=here, tournament=cb, role=Role.JUDGE, stages=[appeal.stage.key])
    there = UserFactory(email="there@example.org")
    TournamentRole.objects.create(user=there, tournament=cb, role=Role.JUDGE, stages=[OTHER])
    curator = UserFactory(email="curator@example.org")
    TournamentRole.objects.create(user=curator, tournament=cb, role=Role.CURATOR)
    assert jury_emails(cb, appeal) == ["curator@example.org", "here@example.org"]
    queued = [row["appeal"].pk for row in signed_in(here).get("/appeals/queue/").context["rows"]]
    assert queued == [appeal.pk]
    assert signed_in(there).get("/appeals/queue/").context["rows"] == []
    assert signed_in(there).get(f"/appeals/{appeal.pk}/verdict/").status_code == 403


def test_fl_19_the_filing_page_refuses_a_non_participant_with_the_refusal_page_naming_why():
    league = import_document(example("family_league"))
    appeal = decision_appeal(league, first_stage(league))
    response = signed_in(granted(league, Role.ORGANIZER)).get(
        f"/appeals/t/{league.slug}/file/?decision={appeal.decision.index}", HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 403 and 'class="refusal"' in response.content.decode()
    assert "player linked to your account" in response.content.decode()


def test_gp_23_a_stage_judge_is_shown_the_committee_page_of_that_stage_only():
    series = with_other_stage("elimination_gp")
    stage = first_stage(series)
    links = {link.url for link in tournament_links(series, granted(series, Role.JUDGE, [stage.key]))}
    assert committee_url(series, stage.key) in links and committee_url(series, OTHER) not in links
    refused = signed_in(granted(series, Role.JUDGE, [OTHER])).get(committee_url(series, stage.key))
    assert refused.status_code == 403 and 'class="refusal"' in refused.content.decode()


def test_gp_8_the_draw_page_refuses_a_judge_with_the_refusal_page():
    series = import_document(example("elimination_gp"))
    stage = first_stage(series)
    seed, teams = stage.seed, Team.objects.filter(stage=stage).count()
    response = signed_in(granted(series, Role.JUDGE, [stage.key])).post(
        f"/t/{series.slug}/gp/{stage.key}/draw/", {"seed": "x"}, HTTP_ACCEPT_LANGUAGE="en")
    assert response.status_code == 403 and "GP-8" in response.content.decode()
    stage.refresh_from_db()
    assert (stage.seed, Team.objects.filter(stage=stage).count()) == (seed, teams)


def test_cb_2_only_the_organizer_opens_the_schedule_page():
    cb = import_document(example("class_balanced"))
    url = f"/t/{cb.slug}/stages/{first_stage(cb).key}/schedule/"
    for role in (Role.JUDGE, Role.CURATOR):
        assert signed_in(granted(cb, role)).get(url).status_code == 403, role
    assert signed_in(granted(cb, Role.ORGANIZER)).get(url).status_code == 200
