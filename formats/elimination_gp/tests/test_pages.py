"""Grand Prix pages: registration (GP-3..GP-6), baskets and draw (GP-7, GP-8), finalists (GP-16..GP-19)
and prize payments (GP-22, GP-22a)."""

from __future__ import annotations

import datetime as dt
import hashlib

import pytest
from django.utils import timezone
from django.utils.html import escape

from accounts.models import Player, Role
from formats.elimination_gp.models import StageConditions, StageRegistration
from rulesets.elimination_gp.draw import draw_teams
from scoring.services import recompute
from tests.conftest import example
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tournaments.importer import import_document
from tournaments.loader import load_facts
from tournaments.models import AuditEntry, Game, Participant, PrizePayment, RosterEntry, Stage, Team, Tournament
from tournaments.synthetic import elimination_gp_stage

pytestmark = pytest.mark.django_db

PAGE_QUERIES = 10
REGISTRATION_QUERIES = PAGE_QUERIES + 2  # the stage's played players and its draw: the page's one state
STAGE = "qualifying-2"


def imported(document: dict) -> Tournament:
    tournament = import_document(document)
    recompute(tournament.pk, force=True)
    tournament.refresh_from_db()
    return tournament


@pytest.fixture
def series() -> Tournament:
    """The example's played qualifying stage 1 (with its finalists) and an empty qualifying stage 2."""
    document = example("elimination_gp")
    document["tournament"]["settings"]["stage_prizes"] = {
        "qualifying-1": [{"place": 1, "amount": 100}, {"place": 2, "amount": 50}]}
    tournament = imported(document)
    stage = Stage.objects.create(tournament=tournament, key=STAGE, order=2)
    StageConditions.objects.create(stage=stage, commission="Eternity", game_times="21:00 MSK", prize_fund="300 mf",
                                   registration_opened_at=timezone.now())
    return tournament


def stage_of(tournament: Tournament) -> Stage:
    return Stage.objects.get(tournament=tournament, key=STAGE)


def organizer_of(tournament: Tournament, role: str = Role.ORGANIZER):
    user = UserFactory()
    RoleFactory(user=user, tournament=tournament, role=role)
    return user


def fill(stage: Stage, count: int, *, invited: int = 0, prefix: str = "R") -> list[str]:
    """``count`` registrations a minute apart (levels 1..3); the first ``invited`` are invitations."""
    start = timezone.now() - dt.timedelta(days=1)
    nicks = []
    for i in range(count):
        nick = f"{prefix}{i:02d}"
        player = Player.objects.create(nick=nick, level=1 + i % 3)
        StageRegistration.objects.create(stage=stage, player=player, invited=i < invited,
                                         registered_at=start + dt.timedelta(minutes=i))
        nicks.append(nick)
    return nicks


def errors(response) -> list[str]:
    """The refusals the page shows (the messages of level error)."""
    return [str(m) for m in response.context["messages"] if m.level_tag == "error"]


def url(tournament: Tournament, page: str) -> str:
    return f"/t/{tournament.slug}/gp/{STAGE}/{page}/"


# --------------------------------------------------------------------------- GP-3


@pytest.mark.parametrize("setup", ["level_0", "disqualified", "qualified"])
def test_gp3_ineligible_player_is_refused_with_the_rule(client, series, setup):
    nick = {"level_0": "Zero", "disqualified": "Cheat", "qualified": "GP07-p5"}[setup]
    user = user_playing_as(nick)
    player = user.player
    if setup == "level_0":
        player.level = 0
        player.save()
    elif setup == "disqualified":
        Participant.objects.create(tournament=series, player=player, disqualified=True)
    client.force_login(user)
    response = client.post(url(series, "registration"), {"action": "register"}, follow=True)
    assert response.status_code == 200
    [refusal] = errors(response)
    assert "GP-3" in refusal and nick in refusal and escape(refusal) in response.content.decode()
    assert not StageRegistration.objects.filter(player=player).exists()


def test_gp3_eligible_player_registers_and_withdraws_themselves(client, series):
    user = user_playing_as("Eligible")
    client.force_login(user)
    client.post(url(series, "registration"), {"action": "register"})
    registration = StageRegistration.objects.get(player__nick="Eligible", stage=stage_of(series))
    assert registration.withdrawn_at is None and not registration.invited
    assert AuditEntry.objects.filter(action="register", model="elimination_gp.StageRegistration").exists()
    client.post(url(series, "registration"), {"action": "withdraw"})
    registration.refresh_from_db()
    assert registration.withdrawn_at is not None


def test_a_player_may_not_register_someone_else_only_an_organizer_may(client, series):
    Player.objects.create(nick="Other", level=2)
    client.force_login(user_playing_as("Me"))
    response = client.post(url(series, "registration"), {"action": "register", "nick": "Other"}, follow=True)
    assert not StageRegistration.objects.filter(player__nick="Other").exists()
    assert errors(response)
    client.force_login(organizer_of(series))
    client.post(url(series, "registration"), {"action": "invite", "nick": "Other"})
    assert StageRegistration.objects.get(player__nick="Other").invited


def test_gp4_at_most_10_invitations(client, series):
    stage = stage_of(series)
    fill(stage, 10, invited=10)
    Player.objects.create(nick="Eleventh", level=2)
    client.force_login(organizer_of(series))
    response = client.post(url(series, "registration"), {"action": "invite", "nick": "Eleventh"}, follow=True)
    assert "GP-4" in errors(response)[0]
    assert not StageRegistration.objects.filter(player__nick="Eleventh").exists()


def test_gp5_invitations_close_with_the_registration_for_everyone_the_organizer_included(client, series):
    """spec/roles.md: the host family invites until the stage's registration closes; after it, nobody."""
    import datetime as dt

    from django.utils import timezone

    Tournament.objects.filter(pk=series.pk).update(registration_deadline=timezone.now() - dt.timedelta(minutes=1))
    Player.objects.create(nick="Late", level=2)
    client.force_login(organizer_of(series))
    response = client.post(url(series, "registration"), {"action": "invite", "nick": "Late"}, follow=True)
    assert "GP-5" in errors(response)[0]
    assert not StageRegistration.objects.filter(player__nick="Late").exists()


# --------------------------------------------------------------------------- GP-5, GP-6


def test_gp5_roster_is_the_invited_plus_the_queue_and_the_rest_wait(client, series):
    stage = stage_of(series)
    nicks = fill(stage, 58, invited=3)
    response = client.get(url(series, "registration"))
    roster = response.context["roster"]
    assert roster.invited == tuple(nicks[:3])
    assert roster.by_queue == tuple(nicks[3:54])
    assert roster.waiting == tuple(nicks[54:])
    body = response.content.decode()
    assert nicks[57] in body and "GP-5" in body


def test_gp6_withdrawals_are_replaced_and_the_history_is_shown(client, series):
    stage = stage_of(series)
    nicks = fill(stage, 56, invited=2)
    Player.objects.create(nick="NewGuest", level=2)
    client.force_login(organizer_of(series))
    client.post(url(series, "registration"), {"action": "withdraw", "nick": nicks[0], "new_invitation": "NewGuest"})
    client.post(url(series, "registration"), {"action": "withdraw", "nick": nicks[10]})
    client.post(url(series, "registration"), {"action": "withdraw", "nick": nicks[55]})
    response = client.get(url(series, "registration"))
    roster = response.context["roster"]
    assert roster.invited == (nicks[1], "NewGuest")
    assert nicks[54] in roster.by_queue and nicks[10] not in roster.players
    assert roster.waiting == ()
    history = [(h["withdrawn"], h["replacement"]) for h in response.context["history"]]
    assert history == [(nicks[0], "NewGuest"), (nicks[10], nicks[54]), (nicks[55], None)]
    assert "GP-6" in response.content.decode()


def test_gp6_nobody_is_replaced_after_the_draw(client, series):
    stage = stage_of(series)
    nicks = fill(stage, 56)
    organizer = organizer_of(series)
    client.force_login(organizer)
    client.post(url(series, "draw"), {"seed": "s"})
    client.post(url(series, "registration"), {"action": "withdraw", "nick": nicks[0]})
    response = client.get(url(series, "registration"))
    assert nicks[54] in response.context["roster"].waiting
    assert response.context["history"][0]["replacement"] is None


def test_registration_page_queries_do_not_grow_with_the_roster(client, series, django_assert_max_num_queries):
    stage = stage_of(series)
    fill(stage, 3, prefix="S")
    client.force_login(organizer_of(series))
    with django_assert_max_num_queries(REGISTRATION_QUERIES):
        assert client.get(url(series, "registration")).status_code == 200
    fill(stage, 60, invited=5, prefix="L")
    with django_assert_max_num_queries(REGISTRATION_QUERIES):
        assert client.get(url(series, "registration")).status_code == 200


# --------------------------------------------------------------------------- GP-7, GP-8


def test_gp8_draw_makes_9_teams_with_2_per_basket_reproducible_from_the_seed(client, series):
    stage = stage_of(series)
    fill(stage, 54)
    client.force_login(organizer_of(series))
    client.post(url(series, "draw"), {"seed": "public-seed-42"})
    stage.refresh_from_db()
    assert stage.seed == "public-seed-42"
    response = client.get(url(series, "draw"))
    baskets = response.context["baskets"]
    assert [len(b) for b in baskets] == [18, 18, 18]
    basket_of = {nick: n for n, basket in enumerate(baskets, start=1) for nick in basket}
    teams = list(Team.objects.filter(stage=stage).order_by("order"))
    assert len(teams) == 9
    drawn = [[e.player.nick for e in RosterEntry.objects.filter(team=t).select_related("player").order_by("order")]
             for t in teams]
    assert drawn == draw_teams(baskets, "public-seed-42")
    for players in drawn:
        assert sorted(basket_of[p] for p in players) == [1, 1, 2, 2, 3, 3]
    assert response.context["reproduced"] is True
    body = response.content.decode()
    assert "public-seed-42" in body and "sha256sum" in body
    # the page's instruction, run by hand, sorts basket 1 as the draw did
    digest = {n: hashlib.sha256(f"public-seed-42|basket 1|{n}".encode()).hexdigest() for n in baskets[0]}
    assert sorted(baskets[0], key=digest.get)[:2] == drawn[0][:2]


def test_gp7_level_baskets_put_the_strongest_in_basket_1(client, series):
    stage = stage_of(series)
    fill(stage, 54)
    baskets = client.get(url(series, "draw")).context["baskets"]
    levels = dict(Player.objects.values_list("nick", "level"))
    assert min(levels[n] for n in baskets[0]) >= max(levels[n] for n in baskets[1])


def test_gp8_draw_refused_for_a_non_organizer_and_once_the_stage_has_games(client, series):
    stage = stage_of(series)
    fill(stage, 54)
    client.force_login(user_playing_as("Curious"))
    refused = client.post(url(series, "draw"), {"seed": "x"}, HTTP_ACCEPT_LANGUAGE="en")
    assert refused.status_code == 403 and 'class="refusal"' in refused.content.decode()  # roles.md: styled refusal
    assert "GP-8" in refused.content.decode()
    assert not Team.objects.filter(stage=stage).exists()
    client.force_login(organizer_of(series))
    client.post(url(series, "draw"), {"seed": "first"})
    Game.objects.create(stage=stage, number=1, round=1)
    response = client.post(url(series, "draw"), {"seed": "second"}, follow=True)
    stage.refresh_from_db()
    assert stage.seed == "first"
    assert "GP-8" in errors(response)[0]


def test_gp8_draw_refused_while_the_roster_is_incomplete(client, series):
    stage = stage_of(series)
    fill(stage, 40)
    client.force_login(organizer_of(series))
    response = client.post(url(series, "draw"), {"seed": "x"}, follow=True)
    assert not Team.objects.filter(stage=stage).exists()
    assert "40" in errors(response)[0] and "GP-8" in errors(response)[0]


def test_draw_page_queries_do_not_grow_with_the_stage(client, series, django_assert_max_num_queries):
    stage = stage_of(series)
    with django_assert_max_num_queries(PAGE_QUERIES):
        assert client.get(url(series, "draw")).status_code == 200
    fill(stage, 54)
    organizer = organizer_of(series)
    client.force_login(organizer)
    client.post(url(series, "draw"), {"seed": "q"})
    with django_assert_max_num_queries(PAGE_QUERIES):
        assert client.get(url(series, "draw")).status_code == 200


# --------------------------------------------------------------------------- GP-16..GP-19


def test_finalists_page_lists_every_finalist_with_the_reason_vacancies_and_suggestions(client, series):
    response = client.get(f"/t/{series.slug}/gp/finalists/")
    assert response.status_code == 200
    rows = response.context["finalists"]
    assert {r["rule"] for r in rows} == {"GP-16", "GP-17"}
    assert len([r for r in rows if r["rule"] == "GP-16"]) == 6
    body = response.content.decode()
    for row in rows:
        assert row["player"] in body
    assert 'data-rule="GP-16"' in body and 'data-rule="GP-17"' in body
    vacancies = response.context["stages"][0]["vacancies"]
    assert vacancies[0]["rule"] == "GP-17" and "GP09-p4" in body
    assert [s["player"] for s in response.context["suggestions"]][:1] == ["GP01-p3"]


def test_finalists_page_queries_are_the_same_for_a_small_and_a_large_series(client, series,
                                                                             django_assert_max_num_queries):
    with django_assert_max_num_queries(6):
        assert client.get(f"/t/{series.slug}/gp/finalists/").status_code == 200
    large = imported(elimination_gp_stage(seed=3, slug="gp-large"))
    with django_assert_max_num_queries(6):
        assert client.get(f"/t/{large.slug}/gp/finalists/").status_code == 200


# --------------------------------------------------------------------------- GP-22, GP-22a


def test_prizes_are_marked_paid_only_by_the_committee(client, series):
    page = f"/t/{series.slug}/prizes/"
    awards = client.get(page).context["stages"][0]["awards"]
    first = awards[0]
    form = {"stage_key": "qualifying-1", "place": first["place"], "team": first["team_value"],
            "player": first["player_value"]}
    client.force_login(user_playing_as(first["player"]))
    client.post(page, form)
    assert not PrizePayment.objects.exists()
    committee = organizer_of(series, Role.CURATOR)
    client.force_login(committee)
    client.post(page, form)
    payment = PrizePayment.objects.get()
    assert (payment.player_nick, payment.amount_mf, payment.paid_by) == (first["player"], first["prize"], committee)
    assert AuditEntry.objects.filter(action="paid", model="tournaments.PrizePayment").exists()
    response = client.post(page, form, follow=True)
    assert PrizePayment.objects.count() == 1
    row = response.context["stages"][0]["awards"][0]
    assert row["payment"] == payment


def test_a_prize_the_standings_do_not_list_is_refused(client, series):
    client.force_login(organizer_of(series, Role.CURATOR))
    client.post(f"/t/{series.slug}/prizes/", {"stage_key": "qualifying-1", "place": 1, "team": "", "player": "Nobody"})
    assert not PrizePayment.objects.exists()


def test_prizes_page_queries_do_not_grow_with_the_awards(client, series, django_assert_max_num_queries):
    committee = organizer_of(series, Role.CURATOR)
    client.force_login(committee)
    with django_assert_max_num_queries(PAGE_QUERIES):
        assert client.get(f"/t/{series.slug}/prizes/").status_code == 200
    document = elimination_gp_stage(seed=4, slug="gp-prizes-large")
    document["tournament"]["settings"]["stage_prizes"] = {
        "qualifying-1": [{"place": p, "amount": 10} for p in range(1, 31)]}
    large = imported(document)
    RoleFactory(user=committee, tournament=large, role=Role.CURATOR)
    with django_assert_max_num_queries(PAGE_QUERIES):
        response = client.get(f"/t/{large.slug}/prizes/")
    assert len(response.context["stages"][0]["awards"]) >= 30


def test_anonymous_visitor_sees_the_roster_and_is_sent_to_log_in_to_register(client, series):
    fill(stage_of(series), 3)
    response = client.get(url(series, "registration"))
    assert response.status_code == 200
    assert f'href="/accounts/login/?next=/t/{series.slug}/gp/{STAGE}/registration/"' in response.content.decode()
    response = client.post(url(series, "registration"), {"action": "register"})
    assert response.status_code == 302 and "login" in response["Location"]
    assert StageRegistration.objects.count() == 3


def test_gp_pages_are_not_found_for_another_ruleset_or_stage(client, series):
    assert client.get(f"/t/{series.slug}/gp/qualifying-5/registration/").status_code == 404
    other = imported(example("family_league"))
    assert client.get(f"/t/{other.slug}/gp/finalists/").status_code == 404


def test_gp8_teams_entered_by_hand_need_2_players_from_each_basket(client, series):
    stage = stage_of(series)
    fill(stage, 54)
    client.force_login(organizer_of(series))
    baskets = client.get(url(series, "draw")).context["baskets"]
    wrong = [basket[i * 6:(i + 1) * 6] for basket in baskets for i in range(3)]
    response = client.post(url(series, "draw"), {"action": "by_hand", "teams": "\n".join(", ".join(t) for t in wrong)},
                           follow=True)
    assert "GP-8" in errors(response)[0] and not Team.objects.filter(stage=stage).exists()
    right = [baskets[0][2 * i:2 * i + 2] + baskets[1][2 * i:2 * i + 2] + baskets[2][2 * i:2 * i + 2] for i in range(9)]
    client.post(url(series, "draw"), {"action": "by_hand", "teams": "\n".join(f"T: {', '.join(t)}" for t in right)})
    stage.refresh_from_db()
    assert stage.seed == "" and Team.objects.filter(stage=stage).count() == 9
    assert RosterEntry.objects.filter(team__stage=stage).count() == 54
    assert client.get(url(series, "draw")).context["by_hand"] is True


def test_gp5_my_tournaments_shows_the_players_place_in_the_waiting_list(client, series):
    """A registered player sees their stage and waiting-list position on "my tournaments"."""
    stage = stage_of(series)
    nicks = fill(stage, 56)
    client.force_login(user_playing_as(nicks[55]))
    page = client.get("/accounts/my/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "waiting list, position 2 (GP-5)" in page
    client.force_login(user_playing_as(nicks[0]))
    assert "in the roster" in client.get("/accounts/my/", HTTP_ACCEPT_LANGUAGE="en").content.decode()


def test_gp2_registration_opens_only_with_every_condition_published_and_then_they_are_locked(client, series):
    tournament = series
    stage = Stage.objects.create(tournament=tournament, key="qualifying-3", order=3)
    organizer = organizer_of(tournament)
    client.force_login(organizer)
    page = url(tournament, "registration").replace(STAGE, "qualifying-3")
    client.post(page, {"action": "open"})
    assert not StageConditions.objects.filter(stage=stage, registration_opened_at__isnull=False).exists()
    player = user_playing_as("Newcomer")
    Player.objects.filter(nick="Newcomer").update(level=5)
    client.force_login(player)
    client.post(page, {"action": "register"})
    assert not StageRegistration.objects.filter(stage=stage).exists(), "GP-2: registration is not open yet"
    client.force_login(organizer)
    client.post(page, {"action": "conditions", "commission": "Eternity", "game_times": "21:00",
                       "prize_fund": "100 mf"})
    client.post(page, {"action": "open"})
    assert not StageConditions.objects.filter(stage=stage, registration_opened_at__isnull=False).exists(), (
        "GP-2, GP-17: the stage's extra indicator is a condition too")
    client.post(page, {"action": "conditions", "commission": "Eternity", "game_times": "21:00",
                       "prize_fund": "100 mf", "extra_indicator": "mafia_wins"})
    client.post(page, {"action": "open"})
    conditions = StageConditions.objects.get(stage=stage)
    assert conditions.registration_opened_at is not None
    client.post(page, {"action": "conditions", "commission": "Someone else", "game_times": "22:00",
                       "prize_fund": "0"})
    conditions.refresh_from_db()
    assert conditions.commission == "Eternity", "locked once registration is open (GP-2)"
    committee = organizer_of(tournament, Role.CURATOR)
    client.force_login(committee)
    client.post(page, {"action": "conditions", "commission": "Eternity (corrected)", "game_times": "21:00",
                       "prize_fund": "100 mf"})
    conditions.refresh_from_db()
    assert conditions.commission == "Eternity (corrected)"
    assert AuditEntry.objects.filter(action="correct", model="elimination_gp.StageConditions").exists()
    client.force_login(player)
    client.post(page, {"action": "register"})
    assert StageRegistration.objects.filter(stage=stage, player__nick="Newcomer").exists()



def test_gp_17_each_stage_has_its_own_extra_indicator_which_the_ruleset_uses(client, series):
    """GP-2, GP-17: the host family of each stage picks its indicator; the tournament's setting keeps one per stage
    and the stage's standings use its own (the other stages keep theirs)."""
    from formats.elimination_gp import services
    from rulesets.elimination_gp.finalists import extra_indicator_of

    tournament = series
    stage = Stage.objects.create(tournament=tournament, key="qualifying-3", order=3)
    organizer = organizer_of(tournament)
    before = extra_indicator_of(tournament.settings, "qualifying-1")
    services.save_conditions(stage, user=organizer, commission="Eternity", game_times="21:00", prize_fund="0",
                             extra_indicator="commissar_wins")
    tournament.refresh_from_db()
    assert extra_indicator_of(tournament.settings, "qualifying-3") == "commissar_wins"
    assert extra_indicator_of(tournament.settings, "qualifying-1") == before, "the other stages keep theirs"
    from rulesets import elimination_gp as gp

    assert gp.validate_settings({**tournament.settings}) == []
    assert gp.validate_settings({"extra_indicator": {"qualifying-9": "points"}}), "only qualifying stages"
    assert gp.validate_settings({"extra_indicator": {"qualifying-1": "luck"}}), "only GP-17's indicators"


def test_gp8_the_drawn_players_become_the_tournaments_players_so_their_games_can_seat_them(client, series):
    """A stage drawn through the pages (no imported players list) can have its games entered: the draw makes every
    drawn player a participant with the site's level (GP-3), once, keeping one already there as it is."""
    stage = stage_of(series)
    nicks = fill(stage, 54, prefix="D")
    Participant.objects.create(tournament=series, player=Player.objects.get(nick="D00"), level=9)
    client.force_login(organizer_of(series))
    client.post(url(series, "draw"), {"seed": "public-seed-7"})
    assert Team.objects.filter(stage=stage).count() == 9
    held = dict(Participant.objects.filter(tournament=series, player__nick__in=nicks).values_list(
        "player__nick", "level"))
    assert set(held) == set(nicks)
    assert held["D00"] == 9 and held["D01"] == Player.objects.get(nick="D01").level
    facts = load_facts(Tournament.objects.get(pk=series.pk))
    assert set(nicks) <= {player.nick for player in facts.players}
