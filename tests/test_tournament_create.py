"""An organizer creates a tournament from the portal's pages and the API
(``tournaments.setup.create_tournament``: the page ``/accounts/dashboard/new/``, ``POST /api/v1/tournaments/new/``)."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.urls import reverse
from django.utils import translation
from rest_framework.test import APIClient

import rulesets
from accounts.models import Role, TournamentRole
from portal.forms_setup import PREFIX
from rulesets.errors import Invalid, NotAllowed
from tests.conftest import RULESET_KEYS
from tests.factories import RoleFactory, UserFactory
from tournaments.models import AuditEntry, Tournament
from tournaments.setup import create_tournament, form_settings, may_create_tournament, suggest_slug

pytestmark = pytest.mark.django_db

NEW = "/accounts/dashboard/new/"
API_NEW = "/api/v1/tournaments/new/"
BAD_SETTING = {  # one setting of each ruleset, and a value its own validation refuses
    "chgk_tour_points": ("questions_per_tour", "0"),
    "family_league": ("groups", "0"),
    "class_balanced": ("appeal_hours", "-1"),
    "elimination_gp": ("basket_order", "alphabet"),
}


@pytest.fixture(autouse=True)
def _english(client, settings):
    """The pages and the API in English whatever the default language (the words are checked)."""
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "en"
    with translation.override("en"):
        yield


def english_api(user=None) -> APIClient:
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        api.force_authenticate(user)
    return api


@pytest.fixture
def organizer():
    """A user who organizes a tournament already: allowed to create the next one (tournaments.setup)."""
    user = UserFactory(username="org")
    RoleFactory(user=user, tournament=Tournament.objects.create(slug="old-season", name="Old season",
                                                                 ruleset="family_league"))
    return user


def page_data(key: str, **extra: str) -> dict[str, str]:
    """The form as a browser posts it untouched: every setting at its default."""
    data = {"ruleset": key, "name": f"New {key}", "slug": f"new-{key.replace('_', '-')}",
            "timezone": "Europe/Moscow", "starts_on": "2025-03-01", "ends_on": "2025-05-31",
            "registration_deadline": "2025-02-25T23:59", "room": "Room 3"}
    from portal.forms_setup import TournamentCreateForm

    form = TournamentCreateForm(key)
    for field in form.setting_fields():
        value = field.field.prepare_value(field.initial)
        if isinstance(field.initial, bool):
            if field.initial:
                data[field.name] = "on"
        else:
            data[field.name] = "" if value is None else str(value)
    data.update(extra)
    return data


@pytest.mark.parametrize("key", RULESET_KEYS)
def test_each_ruleset_is_created_from_the_page_with_its_defaults(client, organizer, key,
                                                                       django_assert_max_num_queries):
    client.force_login(organizer)
    with django_assert_max_num_queries(12):
        form_page = client.get(f"{NEW}?ruleset={key}")
    assert form_page.status_code == 200
    for setting in form_settings(key):
        assert f'name="{PREFIX}{setting}"' in form_page.content.decode()
    with django_assert_max_num_queries(20):
        response = client.post(NEW, page_data(key))
    slug = f"new-{key.replace('_', '-')}"
    assert response.status_code == 302 and response["Location"] == reverse("dashboard", args=[slug])
    tournament = Tournament.objects.get(slug=slug)
    ruleset = rulesets.get(key)
    assert tournament.ruleset == key and tournament.ruleset_version == ruleset.version
    assert tournament.settings == {**ruleset.default_settings}  # principle 8: every default filled in
    assert tournament.rules  # the rule constants frozen
    assert tournament.room == "Room 3" and tournament.ends_on == dt.date(2025, 5, 31)
    deadline = tournament.registration_deadline.astimezone(dt.UTC)
    assert deadline.isoformat() == "2025-02-25T20:59:00+00:00"  # typed in the tournament's zone (UTC+3)


@pytest.mark.parametrize("key", RULESET_KEYS)
def test_an_empty_new_tournament_has_a_dashboard_and_a_public_page(client, organizer, key,
                                                                         django_capture_on_commit_callbacks):
    """What to do next leads on from the new tournament's dashboard; its public page renders without facts, before
    and after the recompute of its (empty) tables that the creation queues."""
    client.force_login(organizer)
    with django_capture_on_commit_callbacks(execute=True) as queued:
        client.post(NEW, page_data(key))
    assert queued  # the recompute, as after an import
    slug = f"new-{key.replace('_', '-')}"
    dashboard = client.get(reverse("dashboard", args=[slug]))
    assert dashboard.status_code == 200
    assert "New " + key in dashboard.content.decode()
    assert client.get(f"/t/{slug}/").status_code == 200
    assert client.get(reverse("history", args=[slug])).status_code == 200  # the creation's entry reads
    client.logout()
    assert client.get(f"/t/{slug}/").status_code == 200


@pytest.mark.parametrize("key", RULESET_KEYS)
def test_each_ruleset_is_created_through_the_api(organizer, key, django_assert_max_num_queries):
    api = english_api(organizer)
    setting, _bad = BAD_SETTING[key]
    default = rulesets.get(key).default_settings[setting]
    changed = {"questions_per_tour": 12, "groups": 3, "appeal_hours": 24, "basket_order": "manual"}[setting]
    with django_assert_max_num_queries(20):
        response = api.post(API_NEW, {"name": f"API {key}", "ruleset": key, "starts_on": "2025-03-01",
                                      "registration_deadline": "2025-02-25T23:59:00+03:00",
                                      "settings": {setting: changed}}, format="json")
    assert response.status_code == 201, response.content
    body = response.json()
    assert body["slug"] == f"api-{key}"  # suggested from the name
    assert body["settings"][setting] == changed != default
    assert set(body["settings"]) == set(rulesets.get(key).default_settings)
    assert response["Location"].endswith(f"/api/v1/tournaments/{body['slug']}/")
    tournament = Tournament.objects.get(slug=body["slug"])
    assert TournamentRole.objects.filter(user=organizer, tournament=tournament, role=Role.ORGANIZER).exists()


@pytest.mark.parametrize("key", RULESET_KEYS)
def test_a_bad_setting_is_refused_beside_its_field_and_nothing_is_created(client, organizer, key):
    client.force_login(organizer)
    setting, bad = BAD_SETTING[key]
    before = (Tournament.objects.count(), TournamentRole.objects.count(), AuditEntry.objects.count())
    response = client.post(NEW, page_data(key, **{PREFIX + setting: bad}))
    assert response.status_code == 400
    form = response.context["form"]
    assert list(form.errors) == [PREFIX + setting], form.errors
    message = form.errors[PREFIX + setting][0]
    assert re.search(r"[a-z]{3,} ", message)  # in words, not a code
    html = response.content.decode()
    field_block = html.split(f'data-setting="{setting}"')[0].rsplit('<ul class="errorlist', 1)[1]
    assert message.split(" (")[0].replace("'", "&#x27;") in field_block  # the error right above its field
    assert (Tournament.objects.count(), TournamentRole.objects.count(), AuditEntry.objects.count()) == before


@pytest.mark.parametrize("key", RULESET_KEYS)
def test_a_bad_setting_is_refused_by_the_api_naming_it(organizer, key):
    api = english_api(organizer)
    setting, bad = BAD_SETTING[key]
    value = int(bad) if bad.lstrip("-").isdigit() else bad
    response = api.post(API_NEW, {"name": "Bad", "ruleset": key, "settings": {setting: value}}, format="json")
    assert response.status_code == 400
    assert [e["path"] for e in response.json()["errors"]] == [f"settings.{setting}"]
    assert not Tournament.objects.filter(name="Bad").exists()


def test_a_nested_setting_is_refused_beside_its_top_level_field(client, organizer):
    client.force_login(organizer)
    table = '{"civilians": {"win": "many", "draw": 0.5}}'
    response = client.post(NEW, page_data("family_league", **{PREFIX + "points_table": table}))
    assert response.status_code == 400
    errors = response.context["form"].errors
    assert list(errors) == [PREFIX + "points_table"]
    assert errors[PREFIX + "points_table"][0].startswith("civilians.win: ")


def test_a_list_setting_is_read_from_its_comma_separated_text(client, organizer):
    client.force_login(organizer)
    response = client.post(NEW, page_data("family_league", **{PREFIX + "prizes": "100, 50",
                                                               PREFIX + "game_times": "18:00, 21:00"}))
    assert response.status_code == 302
    settings = Tournament.objects.get(slug="new-family-league").settings
    assert settings["prizes"] == [100, 50] and settings["game_times"] == ["18:00", "21:00"]


def test_a_taken_slug_is_refused_and_nothing_is_created(client, organizer):
    client.force_login(organizer)
    response = client.post(NEW, page_data("chgk_tour_points", slug="old-season"))
    assert response.status_code == 400
    assert list(response.context["form"].errors) == ["slug"]
    assert "old-season" in response.context["form"].errors["slug"][0]
    assert Tournament.objects.count() == 1
    api = english_api(organizer)
    refused = api.post(API_NEW, {"name": "X", "slug": "old-season", "ruleset": "family_league"}, format="json")
    assert refused.status_code == 400 and refused.json()["errors"][0]["path"] == "slug"


@pytest.mark.parametrize("slug", ["new", "with space", "ёлка", "a" * 101])
def test_a_slug_the_pages_urls_cannot_take_is_refused(organizer, slug):
    with pytest.raises(Invalid) as refused:
        create_tournament(organizer, name="X", slug=slug, ruleset="family_league")
    assert [p.path for p in refused.value.problems] == ["slug"]


def test_the_slug_is_suggested_from_the_name_when_left_empty(client, organizer):
    client.force_login(organizer)
    assert client.post(NEW, page_data("family_league", slug="", name="Old season")).status_code == 302
    assert Tournament.objects.filter(slug="old-season-2", name="Old season").exists()
    assert suggest_slug("Кубок Москвы 2025") == "kubok-moskvy-2025"


def test_the_creator_becomes_organizer_and_the_creation_is_audited(client, organizer):
    client.force_login(organizer)
    client.post(NEW, page_data("class_balanced"))
    tournament = Tournament.objects.get(slug="new-class-balanced")
    assert list(TournamentRole.objects.filter(tournament=tournament).values_list("user__username", "role")) == [
        ("org", Role.ORGANIZER)]
    entries = list(AuditEntry.objects.filter(tournament=tournament))
    assert [(e.action, e.username) for e in entries] == [("create", "org")]  # one entry, not one per row
    assert entries[0].after["organizer"] == "org" and entries[0].after["ruleset"] == "class_balanced"
    assert entries[0].after["settings"] == tournament.settings


def test_staff_may_create_without_organizing_anything(client):
    staff = UserFactory(is_staff=True)
    client.force_login(staff)
    assert client.post(NEW, page_data("elimination_gp")).status_code == 302
    assert has_organizer(staff, "new-elimination-gp")


def has_organizer(user, slug: str) -> bool:
    return TournamentRole.objects.filter(user=user, tournament__slug=slug, role=Role.ORGANIZER).exists()


def test_a_user_who_organizes_nothing_is_refused_403(client):
    """roles.md: the organizer creates the tournament; a user without that role anywhere gets the refusal page."""
    user = UserFactory()
    RoleFactory(user=user, role=Role.JUDGE, tournament=Tournament.objects.create(
        slug="judged", name="Judged", ruleset="family_league"))
    assert not may_create_tournament(user)
    client.force_login(user)
    for response in (client.get(NEW), client.get(f"{NEW}?ruleset=family_league"),
                     client.post(NEW, page_data("family_league"))):
        assert response.status_code == 403
        assert "organizer" in response.content.decode()
    assert not Tournament.objects.filter(slug="new-family-league").exists()
    api = english_api(user)
    refused = api.post(API_NEW, {"name": "X", "ruleset": "family_league"}, format="json")
    assert refused.status_code == 403 and "organizer" in refused.json()["detail"]
    with pytest.raises(NotAllowed):
        create_tournament(user, name="X", slug="x", ruleset="family_league")


def test_an_inactive_organizer_may_not_create(organizer):
    organizer.is_active = False
    organizer.save()
    assert not may_create_tournament(organizer)


def test_anonymous_visitors_are_sent_to_the_login_page(client):
    response = client.get(NEW)
    assert response.status_code == 302 and reverse("login") in response["Location"]
    assert client.post(NEW, page_data("family_league")).status_code == 302
    assert english_api().post(API_NEW, {"name": "X", "ruleset": "family_league"}, format="json").status_code == 401
    assert not Tournament.objects.filter(slug="new-family-league").exists()


def test_the_page_first_offers_the_four_rulesets(client, organizer, django_assert_max_num_queries):
    client.force_login(organizer)
    with django_assert_max_num_queries(8):
        response = client.get(NEW)
    assert response.status_code == 200 and response.context.get("form") is None
    html = response.content.decode()
    for key in RULESET_KEYS:
        assert f"?ruleset={key}" in html


def test_the_dashboards_page_links_the_new_tournament_page(client, organizer):
    client.force_login(organizer)
    html = client.get(reverse("dashboards")).content.decode()
    assert '<html lang="en">' in html and f'href="{NEW}"' in html and "New tournament" in html
    client.force_login(UserFactory())
    assert f'href="{NEW}"' not in client.get(reverse("dashboards")).content.decode()


def test_the_end_before_the_start_is_refused_beside_ends_on(client, organizer):
    client.force_login(organizer)
    response = client.post(NEW, page_data("family_league", ends_on="2025-01-01"))
    assert response.status_code == 400 and list(response.context["form"].errors) == ["ends_on"]
