"""Webhooks: an organizer subscribes a URL to a tournament's events from the pages and the API; each event is a
Standard Webhooks message, sent after the save commits, retried with backoff for 24 hours, and listed in a
delivery log. The messages here are received by a real HTTP server on this machine and verified with
``standardwebhooks.Webhook(secret).verify``."""

from __future__ import annotations

import copy
import datetime as dt
import json
import socket
import threading
import time
import zoneinfo
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from types import SimpleNamespace

import pytest
from django.test import Client
from django.urls import reverse
from django.utils import timezone, translation
from kombu.exceptions import OperationalError
from rest_framework.test import APIClient
from standardwebhooks import Webhook, WebhookVerificationError

from accounts.models import Role
from appeals.services import AppealTarget, decide, file_appeal
from rulesets.errors import Invalid, NotAllowed
from scoring.services import recompute
from tests.conftest import example, start_worker, stop_worker
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tournaments import commands, structure
from tournaments.importer import import_document
from tournaments.models import (
    AuditEntry,
    DeliveryStatus,
    Game,
    Team,
    Tour,
    Tournament,
    TournamentStatus,
    WebhookDelivery,
    WebhookEvent,
    WebhookSubscription,
)
from tournaments.webhooks import delivery, events, subscriptions, targets, tasks
from tournaments.webhooks import standings as standings_event

pytestmark = pytest.mark.django_db
MSK = zoneinfo.ZoneInfo("Europe/Moscow")
EVERY_EVENT = list(WebhookEvent.values)


@pytest.fixture(autouse=True)
def _english_and_a_receiver_on_this_machine(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
    settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS = True  # the receivers below listen on 127.0.0.1
    settings.WEBHOOKS_TIMEOUT = 2
    events.BrokerState.down_until = 0.0
    with translation.override("en"):
        yield
    events.BrokerState.down_until = 0.0


@pytest.fixture
def receiver():
    """A real HTTP server in a thread on 127.0.0.1: it keeps each request's body and headers and answers
    ``receiver.status``."""
    received: list[tuple[bytes, dict[str, str]]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802 - http.server's name
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            received.append((body, dict(self.headers.items())))
            self.send_response(server.answer)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.answer = 200
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield SimpleNamespace(url=f"http://127.0.0.1:{server.server_port}/hook?from=portal", received=received,
                          server=server)
    server.shutdown()
    server.server_close()


def closed_port_url() -> str:
    """A URL on 127.0.0.1 where nothing listens (the target is down)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/hook"


@pytest.fixture
def league() -> Tournament:
    return import_document(example("family_league"))


@pytest.fixture
def season() -> Tournament:
    return import_document(example("chgk_tour_points"))


def organizer_of(tournament: Tournament):
    return RoleFactory(tournament=tournament, role=Role.ORGANIZER).user


def with_role(tournament: Tournament, role: str):
    return RoleFactory(tournament=tournament, role=role).user


def subscribe(tournament: Tournament, url: str, events_: list[str] | None = None) -> WebhookSubscription:
    return subscriptions.subscribe(organizer_of(tournament), tournament, url, events_ or EVERY_EVENT)


def game_payload(number: int = 7, **changes) -> dict:
    game = copy.deepcopy(example("family_league")["stages"][0]["games"][0])
    game.update(number=number, scheduled_at="2014-09-04T19:00:00+04:00", round=4, **changes)
    return {"tournament": "mt-example", "stage": "final", **game}


def verified(receiver, secret: str) -> list[dict]:
    """Every message the receiver got, verified by the receiving side's library."""
    return [Webhook(secret).verify(body, headers) for body, headers in receiver.received]


# --- a real delivery, verified by the receiver ---


def test_a_saved_result_reaches_a_real_server_signed_by_standard_webhooks(league, receiver,
                                                                            django_capture_on_commit_callbacks):
    subscription = subscribe(league, receiver.url)
    with django_capture_on_commit_callbacks(execute=True):
        game = commands.record_game(organizer_of(league), game_payload())
    assert len(receiver.received) == 1
    body, headers = receiver.received[0]
    event = Webhook(subscription.secret).verify(body, headers)
    assert event["type"] == "result.saved"
    assert event["data"] == {"tournament": "mt-example", "stage": "final", "game": 7, "tour": None,
                             "status": game.status, "outcome": game.outcome, "version": 1}
    row = WebhookDelivery.objects.get(subscription=subscription)
    assert headers["webhook-id"] == row.msg_id and headers["content-type"] == "application/json"
    assert (row.status, row.last_response_code, row.attempts) == (DeliveryStatus.DELIVERED, 200, 1)
    with pytest.raises(WebhookVerificationError):
        Webhook(subscriptions.new_secret()).verify(body, headers)
    with pytest.raises(WebhookVerificationError):
        Webhook(subscription.secret).verify(body.replace(b'"game":7', b'"game":8'), headers)


def test_a_changed_result_is_a_correction_and_each_subscription_gets_its_own_signature(
        league, receiver, django_capture_on_commit_callbacks):
    first = subscribe(league, receiver.url, ["result.corrected"])
    second = subscribe(league, receiver.url, ["result.saved", "result.corrected"])
    game = Game.objects.get(stage__tournament=league, number=1)
    with django_capture_on_commit_callbacks(execute=True):
        commands.update_game(organizer_of(league), game.pk, {**game_payload(1), "version": game.version,
                                                              "outcome": "mafia"})
    assert len(receiver.received) == 2
    by_id = {headers["webhook-id"]: (body, headers) for body, headers in receiver.received}
    for subscription in (first, second):
        row = WebhookDelivery.objects.get(subscription=subscription)
        body, headers = by_id[row.msg_id]
        event = Webhook(subscription.secret).verify(body, headers)
        assert event["type"] == "result.corrected" and event["data"]["outcome"] == "mafia"


def test_a_tours_masks_entered_again_are_a_correction_of_its_result(season, receiver,
                                                                     django_capture_on_commit_callbacks):
    subscription = subscribe(season, receiver.url, ["result.saved", "result.corrected"])
    tour = Tour.objects.get(stage__tournament=season, number=1)
    masks = dict(tour.masks.values_list("team__name", "mask"))
    team = sorted(masks)[0]
    masks[team] = "1" * len(masks[team])
    with django_capture_on_commit_callbacks(execute=True):
        commands.record_tour_masks(organizer_of(season), tour.pk, {"masks": masks, "version": tour.version})
    (event,) = verified(receiver, subscription.secret)
    assert event["type"] == "result.corrected"
    assert event["data"] == {"tournament": season.slug, "stage": tour.stage.key, "game": None, "tour": 1,
                             "status": None, "outcome": None, "version": tour.version + 1}


def test_an_event_nobody_subscribed_to_writes_nothing_and_costs_one_query(league, django_assert_num_queries):
    subscribe(league, "http://127.0.0.1:9/hook", ["appeal.filed"])
    with django_assert_num_queries(1):
        assert events.emit(league, WebhookEvent.RESULT_SAVED, lambda: pytest.fail("not read")) == 0
    WebhookSubscription.objects.update(active=False)
    with django_assert_num_queries(1):
        assert events.emit(league, WebhookEvent.APPEAL_FILED, {}) == 0
    assert not WebhookDelivery.objects.exists()


def test_a_refused_save_sends_nothing(league, receiver, django_capture_on_commit_callbacks):
    subscribe(league, receiver.url)
    payload = game_payload()
    payload["seats"][2]["player"] = "Nobody"
    with django_capture_on_commit_callbacks(execute=True), pytest.raises(Invalid):
        commands.record_game(organizer_of(league), payload)
    assert receiver.received == [] and not WebhookDelivery.objects.exists()


# --- the standings, the schedule, appeals, the publication ---


def test_a_recompute_that_moves_rows_sends_the_new_version_and_the_rows_that_moved(league, receiver,
                                                                                  django_capture_on_commit_callbacks):
    recompute(league.pk, force=True)
    subscription = subscribe(league, receiver.url, ["standings.changed"])
    game = Game.objects.get(stage__tournament=league, number=1)
    with django_capture_on_commit_callbacks(execute=False):  # the recompute is run below, by hand
        commands.update_game(organizer_of(league), game.pk, {**game_payload(1), "version": game.version,
                                                              "outcome": "mafia" if game.outcome != "mafia"
                                                              else "civilians"})
    with django_capture_on_commit_callbacks(execute=True):
        assert recompute(league.pk)
    (event,) = verified(receiver, subscription.secret)
    league.refresh_from_db()
    assert event["type"] == "standings.changed"
    assert event["data"]["version"] == league.facts_version
    assert event["data"]["stages"] == ["final"] and event["data"]["final"].keys() == {"final"}
    moved = event["data"]["moved"]
    assert moved and all(row["stage"] == "final" for row in moved)
    assert all((row["rank_before"], row["points_before"], row["status_before"])
               != (row["rank_after"], row["points_after"], row["status_after"]) for row in moved)
    with django_capture_on_commit_callbacks(execute=True):
        assert recompute(league.pk, force=True)
    assert len(receiver.received) == 1  # the same tables again: no event


def test_rows_that_moved_are_the_new_gone_and_changed_ones():
    before = {"A": {"rank": 1, "points": 3, "status": "active"}, "B": {"rank": 2, "points": 1, "status": "active"},
              "C": {"rank": 3, "points": 0, "status": "active"}}
    after = {"B": {"rank": 1, "points": 4, "status": "active"}, "A": {"rank": 2, "points": 3, "status": "active"},
             "C": {"rank": 3, "points": 0, "status": "active"}, "D": {"rank": 4, "points": 0, "status": "active"}}
    moved = standings_event.moved("final", before, after)
    assert [row["team"] for row in moved] == ["B", "A", "D"]
    assert moved[2]["rank_before"] is None and moved[2]["rank_after"] == 4
    assert standings_event.moved("final", after, {"A": after["A"]})[-1]["rank_after"] is None


def test_without_a_standings_subscription_the_recompute_reads_no_previous_table(league):
    assert standings_event.rows_before(league.pk, lambda: pytest.fail("read")) is None


def test_publishing_a_schedule_and_changing_a_published_one_are_schedule_changes(receiver,
                                                                               django_capture_on_commit_callbacks):
    tournament = Tournament.objects.create(slug="new-season", name="New season", ruleset="family_league",
                                           status=TournamentStatus.DRAFT)
    organizer = organizer_of(tournament)
    subscription = subscriptions.subscribe(organizer, tournament, receiver.url, ["schedule.changed"])
    with django_capture_on_commit_callbacks(execute=True):
        stage = structure.add_stage(organizer, tournament, "qualifying")
        structure.add_game_slot(organizer, stage, 1, scheduled_at=dt.datetime(2026, 9, 1, 19, tzinfo=MSK))
    assert receiver.received == []  # a slot of a schedule nobody was shown yet
    with django_capture_on_commit_callbacks(execute=True):
        stage = structure.publish_schedule(organizer, stage)
        structure.add_game_slot(organizer, stage, 2)
        structure.delete_game_slot(organizer, Game.objects.get(stage=stage, number=2))
    changes = [(e["data"]["change"], e["data"]["game"]) for e in verified(receiver, subscription.secret)]
    assert changes == [("published", None), ("added", 2), ("removed", 2)]
    assert verified(receiver, subscription.secret)[0]["data"]["published_at"] == stage.published_at.astimezone(
        MSK).isoformat()


def test_a_chgk_appeal_filed_hides_its_team_and_its_verdict_names_it_chgk_20(season, receiver,
                                                                             django_capture_on_commit_callbacks):
    subscription = subscribe(season, receiver.url, ["appeal.filed", "appeal.decided"])
    tour = Tour.objects.get(stage__tournament=season, number=2)
    team = Team.objects.get(tournament=season, name="Rotor")
    captain = user_playing_as(team.captain.nick)
    with django_capture_on_commit_callbacks(execute=True):
        appeal = file_appeal(season, captain, AppealTarget(kind="removal", tour=tour, question=3), team=team,
                             argument="two answers", now=dt.datetime(2013, 2, 24, 12, tzinfo=MSK))
    with django_capture_on_commit_callbacks(execute=True):
        decide(appeal, with_role(season, Role.JURY), "rejected", reasons="one answer",
               now=dt.datetime(2013, 2, 26, 12, tzinfo=MSK))
    filed, decided = verified(receiver, subscription.secret)
    assert filed["type"] == "appeal.filed" and decided["type"] == "appeal.decided"
    assert filed["data"]["team"] is None and filed["data"]["team_hidden"] is True
    assert (filed["data"]["tour"], filed["data"]["question"], filed["data"]["verdict"]) == (2, 3, None)
    assert decided["data"]["team"] == "Rotor" and decided["data"]["verdict"] == "rejected"
    assert decided["data"]["verdict_at"] == "2013-02-26T12:00:00+04:00"  # the tournament's zone, then +04:00


def test_a_draft_that_opens_its_registration_or_is_saved_running_is_published(receiver,
                                                                              django_capture_on_commit_callbacks):
    tournament = Tournament.objects.create(slug="draft", name="Draft", ruleset="family_league",
                                           status=TournamentStatus.DRAFT)
    subscription = subscribe(tournament, receiver.url, ["tournament.published"])
    with django_capture_on_commit_callbacks(execute=True):
        structure.open_registration(organizer_of(tournament), tournament,
                                    timezone.now() + dt.timedelta(days=3))
        tournament.refresh_from_db()
        tournament.name = "Draft, renamed"
        tournament.save()  # no longer a draft: no second publication
    (event,) = verified(receiver, subscription.secret)
    assert event["data"] == {"tournament": "draft", "name": "Draft", "status": "registration", "path": "/t/draft/"}
    Tournament.objects.filter(pk=tournament.pk).update(status=TournamentStatus.DRAFT)
    tournament.refresh_from_db()
    tournament.status = TournamentStatus.RUNNING
    with django_capture_on_commit_callbacks(execute=True):
        tournament.save()  # as the admin saves it
    assert [e["data"]["status"] for e in verified(receiver, subscription.secret)] == ["registration", "running"]


# --- retries, backoff, a target or the broker down ---


def test_the_retries_back_off_from_30_seconds_to_4_hours_and_end_after_24_hours():
    start = dt.datetime(2026, 5, 4, 12, tzinfo=dt.UTC)
    due, now = [], start
    while (at := delivery.next_attempt(start, now)) is not None:
        due.append(at)
        now = at
    gaps = [(b - a).total_seconds() for a, b in zip([start, *due], due)]
    assert gaps[0] == 30 and gaps == sorted(gaps[:7]) + gaps[7:] and max(gaps) == 4 * 3600
    assert due[-1] - start == dt.timedelta(hours=24)
    assert delivery.next_attempt(start, start + dt.timedelta(hours=24)) is None
    assert delivery.next_attempt(start, start + dt.timedelta(minutes=11)) == start + dt.timedelta(minutes=30)


def test_a_save_succeeds_with_the_target_down_and_the_delivery_waits_for_its_retry(
        league, django_capture_on_commit_callbacks):
    subscription = subscribe(league, closed_port_url(), ["result.saved"])
    with django_capture_on_commit_callbacks(execute=True):
        commands.record_game(organizer_of(league), game_payload())
    assert Game.objects.filter(stage__tournament=league, number=7).exists()
    row = WebhookDelivery.objects.get(subscription=subscription)
    assert (row.status, row.attempts, row.last_response_code) == (DeliveryStatus.PENDING, 1, None)
    assert "ConnectionRefused" in row.last_error
    assert row.next_attempt_at == row.retry_from + dt.timedelta(seconds=30)
    assert delivery.attempt(row.pk) is None  # not due yet: nothing sent


def test_an_error_answer_is_retried_and_24_hours_of_them_fail_the_delivery(league, receiver,
                                                                          django_capture_on_commit_callbacks):
    receiver.server.answer = 503
    subscription = subscribe(league, receiver.url, ["result.saved"])
    with django_capture_on_commit_callbacks(execute=True):
        commands.record_game(organizer_of(league), game_payload())
    row = WebhookDelivery.objects.get(subscription=subscription)
    assert (row.status, row.last_response_code, row.last_error) == ("pending", 503, "HTTP 503 Service Unavailable")
    day_ago = timezone.now() - dt.timedelta(hours=24, seconds=1)
    WebhookDelivery.objects.filter(pk=row.pk).update(retry_from=day_ago, next_attempt_at=day_ago)
    assert tasks.send_due() == 1
    row.refresh_from_db()
    assert (row.status, row.attempts, row.next_attempt_at) == (DeliveryStatus.FAILED, 2, None)
    ids = {headers["webhook-id"] for _body, headers in receiver.received}
    assert ids == {row.msg_id} and len(receiver.received) == 2  # the same message id at every attempt


def test_a_save_succeeds_with_the_broker_down_and_the_sweep_sends_the_delivery(
        league, receiver, settings, monkeypatch, django_capture_on_commit_callbacks):
    subscription = subscribe(league, receiver.url, ["result.saved"])
    settings.CELERY_TASK_ALWAYS_EAGER = False

    def refused(*args, **kwargs):
        raise OperationalError("Error 111 connecting to 127.0.0.1:6379. Connection refused.")

    monkeypatch.setattr(tasks.deliver, "apply_async", refused)
    with django_capture_on_commit_callbacks(execute=True):
        commands.record_game(organizer_of(league), game_payload())
    row = WebhookDelivery.objects.get(subscription=subscription)
    assert (row.status, row.attempts) == (DeliveryStatus.PENDING, 0) and receiver.received == []
    assert events.BrokerState.down_until > 0
    monkeypatch.undo()
    settings.CELERY_TASK_ALWAYS_EAGER = True
    assert tasks.send_due() == 1
    (event,) = verified(receiver, subscription.secret)
    assert event["type"] == "result.saved"
    assert tasks.send_due() == 0  # delivered: nothing is due


def test_the_sweep_sends_a_leased_delivery_once_and_only_a_due_one(league, receiver):
    subscription = subscribe(league, receiver.url, ["result.saved"])
    now = timezone.now()
    due = WebhookDelivery.objects.create(subscription=subscription, event="result.saved", msg_id="msg_due",
                                         payload={"type": "result.saved"}, next_attempt_at=now, retry_from=now)
    WebhookDelivery.objects.create(subscription=subscription, event="result.saved", msg_id="msg_later",
                                   payload={"type": "result.saved"}, next_attempt_at=now + dt.timedelta(hours=1),
                                   retry_from=now)
    assert tasks.send_due() == 1
    assert delivery.attempt(due.pk) is None and delivery.attempt(due.pk, now) is None
    assert [headers["webhook-id"] for _body, headers in receiver.received] == ["msg_due"]


def test_a_paused_subscription_receives_nothing(league, receiver, django_capture_on_commit_callbacks):
    subscription = subscribe(league, receiver.url, ["result.saved"])
    now = timezone.now()
    waiting = WebhookDelivery.objects.create(subscription=subscription, event="result.saved", msg_id="msg_wait",
                                             payload={}, next_attempt_at=now, retry_from=now)
    subscriptions.change(organizer_of(league), subscription, active=False)
    with django_capture_on_commit_callbacks(execute=True):
        commands.record_game(organizer_of(league), game_payload())
    assert delivery.attempt(waiting.pk) == DeliveryStatus.FAILED
    assert receiver.received == [] and WebhookDelivery.objects.count() == 1


def test_send_again_sends_the_same_message_with_a_new_signature_and_24_hours_of_retries(
        league, receiver, django_capture_on_commit_callbacks):
    subscription = subscribe(league, receiver.url, ["result.saved"])
    old = timezone.now() - dt.timedelta(days=2)
    row = WebhookDelivery.objects.create(subscription=subscription, event="result.saved", msg_id="msg_again",
                                         payload={"type": "result.saved", "data": {"tournament": league.slug}},
                                         status=DeliveryStatus.FAILED, attempts=13, retry_from=old)
    with django_capture_on_commit_callbacks(execute=True):
        subscriptions.send_again(organizer_of(league), row)
    (event,) = verified(receiver, subscription.secret)
    assert event["data"] == {"tournament": league.slug}
    row.refresh_from_db()
    assert (row.status, row.attempts) == (DeliveryStatus.DELIVERED, 14) and row.retry_from > old
    with pytest.raises(NotAllowed):
        subscriptions.send_again(UserFactory(), row)


# --- targets ---


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8000/hook", "http://localhost/hook", "http://10.0.0.5/hook", "http://192.168.1.2/",
    "http://172.16.0.1/", "http://169.254.169.254/latest/meta-data/", "http://[::1]/hook", "http://0.0.0.0/",
    "http://100.64.0.1/", "http://[::ffff:127.0.0.1]/", "http://224.0.0.1/", "http://240.0.0.1/",
    "http://[fd00::1]/", "http://[fe80::1]/"])
def test_a_target_on_loopback_private_link_local_or_reserved_networks_is_refused(league, settings, url):
    settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS = False
    with pytest.raises(Invalid) as refused:
        subscribe(league, url)
    assert [p.path for p in refused.value.problems] == ["url"]
    assert "public addresses only" in str(refused.value.problems[0].message)
    assert not WebhookSubscription.objects.exists()


@pytest.mark.parametrize(("url", "words"), [
    ("ftp://93.184.215.14/hook", "https://"), ("https://user:pw@93.184.215.14/", "no user name"),
    ("https:///hook", "no host"), ("https://93.184.215.14/a b", "no spaces"), ("", "give the URL"),
    ("https://93.184.215.14:99999/", "not a URL"), ("https://" + "a" * 500 + ".org/", "at most 500")])
def test_a_url_that_is_no_http_target_is_refused_naming_why(league, url, words):
    with pytest.raises(Invalid) as refused:
        subscribe(league, url)
    assert words in str(refused.value.problems[0].message)


def test_a_public_address_is_a_target_and_private_ones_are_allowed_where_the_setting_says(league, settings):
    settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS = False
    assert subscribe(league, "https://93.184.215.14/hook").url == "https://93.184.215.14/hook"
    settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS = True
    assert subscribe(league, "http://127.0.0.1:8000/hook").url == "http://127.0.0.1:8000/hook"


def test_an_attempt_to_a_target_that_became_private_connects_nowhere(league, receiver, settings):
    subscription = subscribe(league, receiver.url, ["result.saved"])
    settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS = False
    now = timezone.now()
    row = WebhookDelivery.objects.create(subscription=subscription, event="result.saved", msg_id="msg_private",
                                         payload={}, next_attempt_at=now, retry_from=now)
    assert delivery.attempt(row.pk) == DeliveryStatus.PENDING
    row.refresh_from_db()
    assert "public addresses only" in row.last_error and receiver.received == []


def test_the_laptop_default_allows_private_targets_and_production_does_not():
    assert targets.is_public("93.184.215.14") and not targets.is_public("127.0.0.1")
    from config import settings as config

    assert config.WEBHOOKS_ALLOW_PRIVATE_TARGETS == (config.DEBUG and not config.DATABASE_URL
                                                     and not config.CELERY_BROKER_URL)


# --- the organizer's acts: history, permission ---


def test_subscribing_and_unsubscribing_are_one_history_entry_each_without_the_secret(league):
    organizer = organizer_of(league)
    subscription = subscriptions.subscribe(organizer, league, "http://127.0.0.1:9/hook", ["result.saved"])
    assert subscription.secret.startswith("whsec_") and len(subscription.secret) == 50
    Webhook(subscription.secret)  # the receiving library reads it
    subscriptions.unsubscribe(organizer, subscription)
    entries = list(AuditEntry.objects.filter(tournament=league, model="tournaments.WebhookSubscription").order_by(
        "pk").values_list("action", "username", "before", "after"))
    assert entries == [
        ("webhook_subscribe", organizer.username, None, {"url": "http://127.0.0.1:9/hook",
                                                         "events": ["result.saved"], "active": True}),
        ("webhook_unsubscribe", organizer.username, {"url": "http://127.0.0.1:9/hook", "events": ["result.saved"],
                                                     "active": True}, None)]
    assert subscription.secret not in json.dumps(entries)


@pytest.mark.parametrize("role", [Role.JUDGE, Role.CURATOR, Role.JURY])
def test_only_the_organizers_and_staff_subscribe(league, role):
    with pytest.raises(NotAllowed):
        subscriptions.subscribe(with_role(league, role), league, "http://127.0.0.1:9/", ["result.saved"])
    staff = UserFactory(is_staff=True)
    assert subscriptions.subscribe(staff, league, "http://127.0.0.1:9/", ["result.saved"]).created_by == staff


@pytest.mark.parametrize(("given", "path"), [([], "events"), (["result.lost"], "events[0]"), ("result.saved", "events"),
                                             (None, "events")])
def test_events_are_named_from_the_list(league, given, path):
    with pytest.raises(Invalid) as refused:
        subscriptions.subscribe(organizer_of(league), league, "http://127.0.0.1:9/", given)
    assert [p.path for p in refused.value.problems] == [path]


# --- the pages ---


def signed_in(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def test_the_organizer_subscribes_on_the_page_and_sees_the_secret_once(league):
    organizer = organizer_of(league)
    client = signed_in(organizer)
    url = reverse("tournament-webhooks", args=[league.slug])
    assert reverse("tournament-webhooks", args=[league.slug]) in client.get(
        reverse("dashboard", args=[league.slug])).content.decode()
    answer = client.post(url, {"action": "subscribe", "url": "http://127.0.0.1:9/hook",
                               "events": ["result.saved", "standings.changed"]})
    subscription = WebhookSubscription.objects.get(tournament=league)
    assert answer.status_code == 200 and subscription.secret in answer.content.decode()
    assert subscription.events == ["result.saved", "standings.changed"] and subscription.created_by == organizer
    page = client.get(url).content.decode()
    assert "http://127.0.0.1:9/hook" in page and subscription.secret not in page
    client.post(url, {"action": "deactivate", "subscription": subscription.pk})
    subscription.refresh_from_db()
    assert subscription.active is False
    client.post(url, {"action": "delete", "subscription": subscription.pk})
    assert not WebhookSubscription.objects.exists()
    assert list(AuditEntry.objects.filter(model="tournaments.WebhookSubscription").order_by("pk").values_list(
        "action", flat=True)) == ["webhook_subscribe", "webhook_change", "webhook_unsubscribe"]


def test_a_refused_url_on_the_page_is_shown_at_the_field_and_nothing_is_kept(league, settings):
    settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS = False
    answer = signed_in(organizer_of(league)).post(reverse("tournament-webhooks", args=[league.slug]), {
        "action": "subscribe", "url": "http://10.1.2.3/hook", "events": ["result.saved"]})
    assert answer.status_code == 400 and "public addresses only" in answer.content.decode()
    assert not WebhookSubscription.objects.exists()


@pytest.mark.parametrize("name", ["tournament-webhooks", "tournament-webhook-deliveries"])
def test_the_pages_are_the_organizers_and_staffs_only(league, name):
    url = reverse(name, args=[league.slug])
    assert signed_in(with_role(league, Role.JUDGE)).get(url).status_code == 403
    assert signed_in(with_role(league, Role.JUDGE)).post(url, {"action": "subscribe", "url": "http://127.0.0.1/",
                                                               "events": ["result.saved"]}).status_code == 403
    assert Client().get(url).status_code == 302
    assert signed_in(UserFactory(is_staff=True)).get(url).status_code == 200
    assert not WebhookSubscription.objects.exists()


def add_deliveries(subscription: WebhookSubscription, count: int) -> None:
    now = timezone.now()
    WebhookDelivery.objects.bulk_create([WebhookDelivery(
        subscription=subscription, event="result.saved", msg_id=f"msg_{subscription.pk}_{i}", payload={},
        status=DeliveryStatus.FAILED, attempts=13, last_response_code=500, retry_from=now) for i in range(count)])


def test_the_delivery_log_lists_status_code_attempts_and_sends_again(league, receiver,
                                                                    django_capture_on_commit_callbacks):
    organizer = organizer_of(league)
    subscription = subscriptions.subscribe(organizer, league, receiver.url, ["result.saved"])
    add_deliveries(subscription, 1)
    row = WebhookDelivery.objects.get()
    client = signed_in(organizer)
    url = reverse("tournament-webhook-deliveries", args=[league.slug])
    page = client.get(url).content.decode()
    assert f'data-delivery="{row.pk}" data-status="failed"' in page and "<td>500</td>" in page
    assert "Send again" in page
    with django_capture_on_commit_callbacks(execute=True):
        assert client.post(url, {"delivery": row.pk}).status_code == 302
    row.refresh_from_db()
    assert row.status == DeliveryStatus.DELIVERED and len(receiver.received) == 1
    assert "delivered" in client.get(url + "?status=delivered").content.decode()


def test_the_list_pages_run_the_same_queries_for_one_row_and_for_fifty(league, django_assert_max_num_queries):
    organizer = organizer_of(league)
    client = signed_in(organizer)
    first = subscriptions.subscribe(organizer, league, "http://127.0.0.1:9/a", ["result.saved"])
    add_deliveries(first, 1)
    for name in ("tournament-webhooks", "tournament-webhook-deliveries"):
        client.get(reverse(name, args=[league.slug]))
    for i in range(12):
        add_deliveries(subscriptions.subscribe(organizer, league, f"http://127.0.0.1:9/{i}", EVERY_EVENT), 5)
    for name in ("tournament-webhooks", "tournament-webhook-deliveries"):
        with django_assert_max_num_queries(9, info=name):
            assert client.get(reverse(name, args=[league.slug])).status_code == 200


def test_the_receivers_page_explains_the_signature_with_a_python_example():
    page = Client(HTTP_ACCEPT_LANGUAGE="en").get(reverse("webhooks-help")).content.decode()
    for words in ("webhook-id", "webhook-timestamp", "webhook-signature", "from standardwebhooks import Webhook",
                  "Webhook(SECRET).verify(body, headers)", "standings.changed", "24 hours"):
        assert words in page


# --- the API ---


def api_as(user) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    client.force_authenticate(user)
    return client


def test_the_api_subscribes_lists_changes_and_unsubscribes(league):
    organizer = organizer_of(league)
    client = api_as(organizer)
    base = f"/api/v1/tournaments/{league.slug}/webhooks/"
    created = client.post(base, {"url": "http://127.0.0.1:9/hook", "events": ["appeal.filed"]}, format="json")
    assert created.status_code == 201, created.content
    body = created.json()
    assert body["secret"].startswith("whsec_") and body["events"] == ["appeal.filed"] and body["active"]
    assert body["created_by"] == organizer.username
    listed = client.get(base).json()
    assert [row["id"] for row in listed] == [body["id"]] and "secret" not in listed[0]
    changed = client.patch(f"{base}{body['id']}/", {"active": False, "events": ["appeal.decided", "appeal.filed"]},
                           format="json").json()
    assert changed["active"] is False and changed["events"] == ["appeal.filed", "appeal.decided"]
    assert client.get(f"{base}{body['id']}/").json()["active"] is False
    assert client.delete(f"{base}{body['id']}/").status_code == 204
    assert client.get(f"{base}{body['id']}/").status_code == 404
    assert AuditEntry.objects.filter(model="tournaments.WebhookSubscription").count() == 3


def test_the_api_refuses_what_is_no_subscription_naming_the_field(league, settings):
    settings.WEBHOOKS_ALLOW_PRIVATE_TARGETS = False
    client = api_as(organizer_of(league))
    base = f"/api/v1/tournaments/{league.slug}/webhooks/"
    for body, path in (({"url": "http://10.0.0.5/", "events": ["result.saved"]}, "url"),
                       ({"url": "https://93.184.215.14/", "events": ["x"]}, "events[0]"),
                       ({"url": "https://93.184.215.14/"}, "events"),
                       ({"url": "https://93.184.215.14/", "events": [], "secret": "mine"}, "secret"),
                       ([1, 2], "")):
        answer = client.post(base, body, format="json")
        assert answer.status_code == 400 and path in [row["path"] for row in answer.json()["errors"]], body
    assert not WebhookSubscription.objects.exists()


def test_the_api_is_the_organizers_and_staffs_only(league):
    base = f"/api/v1/tournaments/{league.slug}/webhooks/"
    judge = api_as(with_role(league, Role.JUDGE))
    assert judge.get(base).status_code == 403
    assert judge.get(base + "deliveries/").status_code == 403
    assert judge.post(base, {"url": "http://127.0.0.1/", "events": ["result.saved"]}, format="json").status_code == 403
    assert APIClient().get(base).status_code == 401
    assert APIClient().post(base, {}, format="json").status_code == 401
    assert api_as(UserFactory(is_staff=True)).get(base).status_code == 200
    assert api_as(UserFactory(is_staff=True)).get("/api/v1/tournaments/nope/webhooks/").status_code == 404


def test_the_api_lists_deliveries_and_sends_one_again(league, receiver, django_capture_on_commit_callbacks):
    organizer = organizer_of(league)
    subscription = subscriptions.subscribe(organizer, league, receiver.url, ["result.saved"])
    add_deliveries(subscription, 3)
    client = api_as(organizer)
    base = f"/api/v1/tournaments/{league.slug}/webhooks/deliveries/"
    listed = client.get(base).json()
    assert listed["count"] == 3
    first = listed["results"][0]
    assert (first["status"], first["last_response_code"], first["attempts"], first["url"]) == (
        "failed", 500, 13, receiver.url)
    with django_capture_on_commit_callbacks(execute=True):
        answer = client.post(f"{base}{first['id']}/redeliver/")
    assert answer.status_code == 202 and answer.json()["status"] == "pending"
    assert client.get(base + "?status=delivered").json()["count"] == 1
    assert client.get(base + f"?subscription={subscription.pk}").json()["count"] == 3
    assert client.get(base + "?status=lost").status_code == 400
    assert client.post(f"{base}999999/redeliver/").status_code == 404


def test_the_api_lists_run_the_same_queries_for_one_row_and_for_fifty(league, django_assert_max_num_queries):
    organizer = organizer_of(league)
    client = api_as(organizer)
    for i in range(10):
        add_deliveries(subscriptions.subscribe(organizer, league, f"http://127.0.0.1:9/{i}", EVERY_EVENT), 5)
    for url in (f"/api/v1/tournaments/{league.slug}/webhooks/", f"/api/v1/tournaments/{league.slug}/webhooks/deliveries/"):
        with django_assert_max_num_queries(4, info=url):
            assert client.get(url).status_code == 200


def test_the_receivers_pages_examples_verify_a_real_message_and_refuse_an_altered_one(league, receiver,
                                                                                     django_capture_on_commit_callbacks):
    from portal.views.webhooks import MANUAL_EXAMPLE, VERIFY_EXAMPLE

    subscription = subscribe(league, receiver.url, ["result.saved"])
    with django_capture_on_commit_callbacks(execute=True):
        commands.record_game(organizer_of(league), game_payload())
    ((body, headers),) = receiver.received
    headers = {key.lower(): value for key, value in headers.items()}
    scope = {}
    exec(VERIFY_EXAMPLE.replace('"whsec_..."', repr(subscription.secret)), scope)  # noqa: S102 - the page's code
    assert scope["receive"](body, headers)["type"] == "result.saved"
    with pytest.raises(PermissionError):
        scope["receive"](body + b" ", headers)
    manual = {"SECRET": subscription.secret, "headers": headers, "body": body}
    exec(MANUAL_EXAMPLE, manual)  # noqa: S102
    assert manual["valid"] is True


@pytest.mark.celery_worker
def test_a_real_worker_delivers_through_the_broker_after_the_commit(real_services, receiver):
    """PostgreSQL, Redis and a ``celery worker`` process: the save commits, the job goes through the broker and the
    worker's attempt reaches the receiver, signed."""
    worker = start_worker({"WEBHOOKS_ALLOW_PRIVATE_TARGETS": "1"})
    try:
        league = import_document(example("family_league"))
        subscription = subscribe(league, receiver.url, ["result.saved"])
        commands.record_game(organizer_of(league), game_payload())
        deadline = time.monotonic() + 30
        while WebhookDelivery.objects.get(subscription=subscription).status != DeliveryStatus.DELIVERED:
            assert time.monotonic() < deadline, "the worker never delivered"
            time.sleep(0.1)
    finally:
        stop_worker(worker)
    (event,) = verified(receiver, subscription.secret)
    assert event["type"] == "result.saved" and event["data"]["game"] == 7
