"""Pages for people through the Django test client: links a reader may follow, styled refusals with a reason, the profile's
claim form, forms' labels and time zones, the read-only derived data in the admin, the favicon, the demo's ``PORT``.

The same pages in Chromium: ``tests/test_browser_pages.py``.
"""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from django.urls import reverse
from django.utils import translation

from accounts.forms import COMMON_ZONES, SignUpForm, timezone_choices
from accounts.models import Family, Player, Role
from portal.management.commands.demo import site_url
from portal.templatetags.portal import format_links
from scoring.models import RecomputeRun, StandingsSnapshot
from tests.conftest import example
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tournaments.importer import import_document

pytestmark = pytest.mark.django_db


def said(language: str, message: str) -> str:
    with translation.override(language):
        return translation.gettext(message)


@pytest.fixture
def league():
    return import_document(example("family_league"))


@pytest.fixture
def balanced():
    return import_document(example("class_balanced"))


def labels(tournament, user) -> set[str]:
    with translation.override("en"):
        return {str(link.label).split(":")[0] for link in format_links(tournament, user)}


def test_fl_1_apply_groups_and_calendars_are_linked_only_for_whoever_may_open_them(league):
    """A reader sees a header link only if its page lets them in (FL-1, FL-8, FL-9)."""
    from django.contrib.auth.models import AnonymousUser

    player = user_playing_as("Someone-not-a-head")
    head_player = Player.objects.create(nick="Head-of-a-family", claim_confirmed=True)
    Family.objects.create(name="Heads", head=head_player)
    head = UserFactory(username="head")
    head_player.user = head
    head_player.save()
    organizer = RoleFactory(tournament=league, role=Role.ORGANIZER).user
    for reader in (AnonymousUser(), player):
        assert not labels(league, reader) & {"Apply", "Qualifying groups", "Calendar"}
    assert "Apply" in labels(league, head)
    assert not labels(league, head) & {"Qualifying groups", "Calendar"}
    assert {"Qualifying groups", "Calendar"} <= labels(league, organizer)


def test_cb_2_stage_schedules_and_the_history_are_linked_only_for_organizers(client, balanced):
    player = user_playing_as("Just-a-player")
    client.force_login(player)
    page = client.get(balanced.get_absolute_url()).content.decode()
    assert "/schedule/" not in page.replace(reverse("schedule", args=[balanced.slug]), "")
    assert reverse("history", args=[balanced.slug]) not in page
    stage = balanced.stages.order_by("order").first()
    client.force_login(RoleFactory(tournament=balanced, role=Role.JUDGE).user)
    page = client.get(balanced.get_absolute_url()).content.decode()
    assert reverse("stage-schedule", args=[balanced.slug, stage.key]) not in page  # roles.md: the organizer's act
    assert reverse("history", args=[balanced.slug]) in page
    client.force_login(RoleFactory(tournament=balanced, role=Role.ORGANIZER).user)
    page = client.get(balanced.get_absolute_url()).content.decode()
    assert reverse("stage-schedule", args=[balanced.slug, stage.key]) in page


@pytest.mark.parametrize("language", ["ru", "en"])
def test_a_refused_page_is_the_sites_styled_page_with_the_reason_and_what_to_do(client, balanced, language):
    """History and stage schedules refuse with a reason in the reader's language, not a bare 403."""
    client.force_login(user_playing_as("Curious"))
    client.cookies["django_language"] = language
    stage = balanced.stages.order_by("order").first()
    for url, reason in [
        (reverse("history", args=[balanced.slug]), "Only the organizers, curators and judges of %(tournament)s see "
                                                  "its history."),
        (reverse("stage-schedule", args=[balanced.slug, stage.key]),
         "Only the organizers of %(tournament)s set up and publish its stage schedules (CB-2)."),
    ]:
        response = client.get(url)
        assert response.status_code == 403
        page = response.content.decode()
        assert 'href="/static/css/portal.css"' in page and f'lang="{language}"' in page
        assert said(language, "Not allowed") in page
        assert said(language, reason) % {"tournament": balanced.name} in page
        assert said(language, "What to do") in page


def test_fl_1_only_the_head_applies_says_so_on_a_styled_page(client, league):
    client.force_login(user_playing_as("Not-a-head"))
    response = client.get(reverse("family-apply", args=[league.slug]))
    assert response.status_code == 403
    page = response.content.decode()
    assert said("ru", "Only the head of a family may apply for the family league (FL-1).") in page
    assert said("ru", "What to do") in page


def test_an_anonymous_refusal_offers_to_log_in(client, balanced):
    from django.core.exceptions import PermissionDenied
    from django.test import RequestFactory
    from django.views.defaults import permission_denied

    request = RequestFactory().get("/somewhere/")
    from django.contrib.auth.models import AnonymousUser

    request.user = AnonymousUser()
    response = permission_denied(request, PermissionDenied("a reason"))
    page = response.content.decode()
    assert response.status_code == 403 and "a reason" in page
    assert f'{reverse("login")}?next=/somewhere/' in page


def test_the_profile_shows_no_error_before_the_claim_form_is_posted(client):
    """"This field is required." only after a POST of the claim form."""
    client.force_login(UserFactory(username="newcomer"))
    required = said("ru", "This field is required.")
    assert required not in client.get(reverse("profile")).content.decode()
    assert required not in client.post(reverse("profile"), {}, follow=True).content.decode()
    posted = client.post(reverse("profile"), {"action": "claim", "nick": ""}).content.decode()
    assert said("ru", "Enter the nick you play under.") in posted or required in posted
    assert 'aria-invalid="true"' in posted and "field-error" in posted


@pytest.mark.parametrize("language", ["ru", "en"])
def test_form_labels_start_with_a_capital_letter(client, language):
    client.cookies["django_language"] = language
    page = client.get(reverse("signup")).content.decode()
    for label in ("email", "time zone"):
        assert f">{said(language, label)[0].upper()}{said(language, label)[1:]}:</label>" in page


def test_the_time_zone_list_offers_the_common_zones_first_in_groups():
    groups = timezone_choices()
    assert [value for value, _ in groups[0][1]] == list(COMMON_ZONES)
    assert {name for name, _ in groups[1:]} >= {"Europe", "Asia", "America"}
    form = SignUpForm(data={"username": "z", "email": "z@example.org", "timezone": "Asia/Novosibirsk",
                            "password1": "a long pass 9876", "password2": "a long pass 9876"})
    assert form.is_valid(), form.errors
    page = str(SignUpForm()["timezone"])
    assert page.count("<optgroup") == len(groups)


def test_snapshots_and_recompute_runs_are_read_only_in_the_admin(client, django_capture_on_commit_callbacks):
    """Derived data has no "add" (it was a server error), no change and no delete."""
    with django_capture_on_commit_callbacks(execute=True):
        league = import_document(example("family_league"))
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    snapshot = StandingsSnapshot.objects.filter(tournament=league).first()
    assert snapshot is not None
    assert client.get("/admin/scoring/standingssnapshot/add/").status_code == 403
    assert client.get("/admin/scoring/recomputerun/add/").status_code == 403
    assert client.get("/admin/scoring/standingssnapshot/").status_code == 200
    view = client.get(f"/admin/scoring/standingssnapshot/{snapshot.pk}/change/")
    assert view.status_code == 200 and 'name="_save"' not in view.content.decode()
    assert client.post(f"/admin/scoring/standingssnapshot/{snapshot.pk}/delete/", {"post": "yes"}).status_code == 403
    run = RecomputeRun.objects.filter(tournament=league).first()
    if run is not None:
        assert 'name="_save"' not in client.get(f"/admin/scoring/recomputerun/{run.pk}/change/").content.decode()


def test_every_page_links_the_projects_own_favicon(client):
    page = client.get(reverse("home")).content.decode()
    assert '<link rel="icon" href="/static/img/favicon.svg" type="image/svg+xml">' in page
    response = client.get("/static/img/favicon.svg")
    assert response.status_code == 200
    assert b"<svg" in b"".join(response.streaming_content)


@pytest.mark.parametrize(("port", "url"), [(None, "http://127.0.0.1:8000"), ("8001", "http://127.0.0.1:8001"),
                                           ("0.0.0.0:8002", "http://127.0.0.1:8002"),
                                           ("192.168.1.5:9000", "http://192.168.1.5:9000")])
def test_the_demo_prints_the_admin_login_at_the_port_scripts_run_serves(monkeypatch, port, url):
    """The printed login ignored ``PORT``."""
    if port is None:
        monkeypatch.delenv("PORT", raising=False)
    else:
        monkeypatch.setenv("PORT", port)
    assert site_url() == url


def test_the_demo_command_prints_the_login_with_port(monkeypatch):
    monkeypatch.setenv("PORT", "8123")
    out = io.StringIO()
    call_command("demo", password="a-demo-password-1", stdout=out)
    assert "http://127.0.0.1:8123/admin/" in out.getvalue()
