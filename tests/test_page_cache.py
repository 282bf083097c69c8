"""The standings page keeps its rendered body while nothing it shows has changed
(``portal.page_cache``), and shows every change at once."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import Role, TournamentRole
from portal import page_cache
from scoring.models import StandingsSnapshot
from tests.factories import UserFactory
from tests.test_pages import demo, load, recompute
from tournaments.models import Team, Tournament

pytestmark = pytest.mark.django_db
UPDATING = "it is being updated"  # the notice of a table older than the facts


def body_of(response) -> str:
    """The page below its header: from the tournament header's end to the live script."""
    html = response.content.decode()
    start = html.index("</header>", html.index('<header class="tournament-header">')) + len("</header>")
    return html[start:html.index('<script src=', start)]


def get(client: Client, tournament: Tournament, query: str = ""):
    with CaptureQueriesContext(connection) as captured:
        response = client.get(f"/t/{tournament.slug}/{query}")
    return response, len(captured)


@pytest.fixture
def league() -> Tournament:
    return load(demo("family_league"))


@pytest.mark.parametrize(("ruleset", "queries"), [
    ("family_league", 2), ("class_balanced", 2), ("chgk_tour_points", 2),
    ("elimination_gp", 3),  # each stage's registration is linked for everyone (GP-3..GP-6)
])
def test_a_reload_of_an_unchanged_table_reads_only_the_versions(ruleset, queries):
    """The tournament and its tables' versions; the header's links for an anonymous reader read no more."""
    tournament = load(demo(ruleset))
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    first, rendered = get(client, tournament)
    again, kept = get(client, tournament)
    assert first.status_code == again.status_code == 200
    assert body_of(again) == body_of(first)
    assert kept == queries < rendered
    assert len(page_cache.bodies) == 1


def test_a_changed_fact_is_shown_at_once_and_the_new_table_when_stored(league):
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    get(client, league)
    team = Team.objects.filter(tournament=league).order_by("pk").first()
    team.name = "Renamed at the table"
    team.save()  # a fact: the facts version goes up, the stored table is now older than the facts
    outdated, _ = get(client, league)
    assert UPDATING in body_of(outdated)
    assert len(page_cache.bodies) == 1  # an outdated table is never kept
    league = recompute(league)
    current, _ = get(client, league)
    assert "Renamed at the table" in body_of(current) and UPDATING not in body_of(current)
    assert len(page_cache.bodies) == 2


def test_an_edit_of_the_tournament_row_is_shown_at_once(league):
    """Not a fact (no facts version bump): the body's key holds every value of the tournament's row."""
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    before = body_of(get(client, league)[0])
    Tournament.objects.filter(pk=league.pk).update(timezone="Asia/Vladivostok")
    after = body_of(get(client, league)[0])  # the FL-19 window's end, in the tournament's zone
    assert "(Asia/Vladivostok)" in after and "(Europe/Moscow)" in before


def test_each_language_and_stage_has_its_own_body(league):
    english, russian = Client(HTTP_ACCEPT_LANGUAGE="en"), Client(HTTP_ACCEPT_LANGUAGE="ru")
    assert "Schedule of games and tours" in body_of(get(english, league)[0])
    assert "Расписание игр и туров" in body_of(get(russian, league)[0])
    stage = league.stages.order_by("order").first().key
    shown = body_of(get(english, league, f"?stage={stage}")[0])
    assert f"/standings/version/?stage={stage}" in shown and shown != body_of(get(english, league)[0])
    assert len(page_cache.bodies) == 3
    assert get(english, league, "?stage=nowhere")[0].status_code == 404


def test_the_body_is_the_same_for_every_reader_and_the_header_stays_theirs(league):
    """Rendered afresh for an anonymous reader and for an organizer, the body is the same (no reader, no CSRF token
    in it); a kept body is then served to both, and the header's links still follow who reads (the history is
    its organizers')."""
    anonymous = Client(HTTP_ACCEPT_LANGUAGE="en")
    organizer = UserFactory(username="olga")
    TournamentRole.objects.create(user=organizer, tournament=league, role=Role.ORGANIZER)
    signed_in = Client(HTTP_ACCEPT_LANGUAGE="en")
    signed_in.force_login(organizer)
    history = f'href="/t/{league.slug}/history/"'
    first = get(anonymous, league)[0]
    page_cache.clear()
    fresh = get(signed_in, league)[0]
    assert body_of(fresh) == body_of(first)
    kept = get(signed_in, league)[0]
    assert body_of(kept) == body_of(first) and len(page_cache.bodies) == 1
    assert history not in first.content.decode() and history in kept.content.decode()
    assert "Log out" in kept.content.decode() and "Log out" not in first.content.decode()


def test_a_body_is_kept_until_the_first_re_check_moment(league):
    """An appeal window closing changes a table's status (portal.table_status): no body outlives it."""
    now = timezone.now()
    rows = list(StandingsSnapshot.objects.filter(tournament=league).values_list(*page_cache.SNAPSHOT_FIELDS))
    soon = now + dt.timedelta(minutes=5)
    with_recheck = [row[:5] + (soon,) + row[6:] for row in rows]
    key, expires = page_cache.body_key(league, "", with_recheck, now)
    assert expires == pytest.approx(soon.timestamp())
    assert page_cache.body_key(league, "", with_recheck, soon) is None
    assert page_cache.body_key(league, "", with_recheck, now + dt.timedelta(minutes=1))[0] == key


def test_no_body_is_kept_for_a_missing_or_stale_table(league):
    now = timezone.now()
    rows = list(StandingsSnapshot.objects.filter(tournament=league).values_list(*page_cache.SNAPSHOT_FIELDS))
    assert page_cache.body_key(league, "", rows, now) is not None
    assert page_cache.body_key(league, "", [row for row in rows if row[0] != ""], now) is None
    assert page_cache.body_key(league, "", [row[:6] + (True,) for row in rows], now) is None
    league.facts_version += 1
    assert page_cache.body_key(league, "", rows, now) is None
    StandingsSnapshot.objects.filter(tournament=league).update(stale=True)  # a failed recompute
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    get(client, Tournament.objects.get(pk=league.pk))
    assert len(page_cache.bodies) == 0


def test_the_tournament_row_and_language_are_in_the_key(league):
    from django.utils import translation

    rows = list(StandingsSnapshot.objects.filter(tournament=league).values_list(*page_cache.SNAPSHOT_FIELDS))
    now = timezone.now()
    with translation.override("en"):
        english = page_cache.body_key(league, "", rows, now)[0]
        league.name = "Another name"
        renamed = page_cache.body_key(league, "", rows, now)[0]
    with translation.override("ru"):
        russian = page_cache.body_key(league, "", rows, now)[0]
    assert len({english, renamed, russian}) == 3
    assert re.fullmatch(rf"standings-body:{league.pk}:[0-9a-f]{{64}}", english)
