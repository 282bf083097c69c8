"""Personal API tokens: created on the profile, shown once, stored hashed, acting with
exactly the user's roles; a revoked or expired token is 401 with a body saying how to authenticate."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.core.cache import cache
from django.db import connection
from django.test import Client
from django.urls import reverse
from django.utils import timezone
from knox.models import AuthToken
from rest_framework.test import APIClient

from accounts import tokens
from accounts.models import ApiTokenName
from tests.conftest import example
from tests.test_api import game_payload, imported, organizer_of

pytestmark = pytest.mark.django_db

API = "/api/v1"


@pytest.fixture(autouse=True)
def _fresh_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def league():
    return imported(example("family_league"))


def with_token(plain: str) -> APIClient:
    return APIClient(HTTP_ACCEPT_LANGUAGE="en", HTTP_AUTHORIZATION=f"Token {plain}")


def page_of(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def test_a_token_created_on_the_page_is_shown_once(django_user_model):
    user = django_user_model.objects.create_user("reader", password="pw-reader-123456")
    client = page_of(user)
    assert client.get("/accounts/profile/").content.decode().count(reverse("api-tokens")) >= 1
    response = client.post(reverse("api-tokens"), {"action": "create", "name": "my script", "expiry_days": "30"})
    assert response.status_code == 200
    row = AuthToken.objects.get(user=user)
    assert ApiTokenName.objects.get(token=row).name == "my script"
    assert row.expiry is not None and timedelta(days=29) < row.expiry - timezone.now() <= timedelta(days=30)
    page = response.content.decode()
    plain = page.split('<p><code>')[1].split("</code>")[0]
    assert plain.startswith(row.token_key) and len(plain) > len(row.token_key)
    assert f'curl -H &quot;Authorization: Token {plain}&quot; http://testserver/api/v1/tournaments/' in page
    again = client.get(reverse("api-tokens")).content.decode()
    assert plain not in again and "my script" in again and row.token_key[:8] in again
    assert with_token(plain).get(f"{API}/tournaments/").status_code == 200


def test_the_page_needs_a_login():
    response = Client().get(reverse("api-tokens"))
    assert response.status_code == 302 and "/login/" in response["Location"]


def test_a_token_that_never_expires(django_user_model):
    user = django_user_model.objects.create_user("reader", password="pw-reader-123456")
    page_of(user).post(reverse("api-tokens"), {"action": "create", "name": "forever", "expiry_days": "0"})
    assert AuthToken.objects.get(user=user).expiry is None


def test_the_stored_value_is_hashed(django_user_model):
    user = django_user_model.objects.create_user("reader", password="pw-reader-123456")
    row, plain = tokens.create_token(user, "hashed", 90)
    assert row.digest != plain
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f'SELECT * FROM "{table}"')  # noqa: S608 - the database's own table names
            for values in cursor.fetchall():
                assert not any(plain in str(value) for value in values), table


def test_a_token_acts_with_exactly_its_users_roles(league, django_user_model):
    nobody = django_user_model.objects.create_user("nobody", password="pw-nobody-123456")
    _row, plain = tokens.create_token(nobody, "no roles", 30)
    response = with_token(plain).post(f"{API}/games/", game_payload(), format="json")
    assert response.status_code == 403, response.content
    organizer = organizer_of(league, django_user_model)
    _row, plain = tokens.create_token(organizer, "results", 30)
    response = with_token(plain).post(f"{API}/games/", game_payload(), format="json")
    assert response.status_code == 201, response.content
    assert response.json()["updated_by"] == "organizer"


def test_a_revoked_token_is_401_saying_how_to_authenticate(league, django_user_model):
    user = organizer_of(league, django_user_model)
    row, plain = tokens.create_token(user, "soon gone", 30)
    client = page_of(user)
    response = client.post(reverse("api-tokens"), {"action": "revoke", "token": row.digest})
    assert response.status_code == 302 and not AuthToken.objects.filter(user=user).exists()
    answer = with_token(plain).post(f"{API}/games/", game_payload(), format="json")
    assert answer.status_code == 401
    assert answer["WWW-Authenticate"] == "Token"
    detail = answer.json()["detail"]
    assert "Authorization: Token <token>" in detail and "/accounts/profile/tokens/" in detail
    assert with_token(plain).get(f"{API}/tournaments/").status_code == 401


def test_an_expired_token_is_401(django_user_model):
    user = django_user_model.objects.create_user("reader", password="pw-reader-123456")
    row, plain = tokens.create_token(user, "old", 30)
    AuthToken.objects.filter(pk=row.pk).update(expiry=timezone.now() - timedelta(seconds=1))
    answer = with_token(plain).get(f"{API}/tournaments/")
    assert answer.status_code == 401
    assert "/accounts/profile/tokens/" in answer.json()["detail"]


def test_another_user_cannot_revoke_my_token(django_user_model):
    me = django_user_model.objects.create_user("me", password="pw-me-123456789")
    intruder = django_user_model.objects.create_user("intruder", password="pw-intruder-123456")
    row, plain = tokens.create_token(me, "mine", 30)
    response = page_of(intruder).post(reverse("api-tokens"), {"action": "revoke", "token": row.digest})
    assert response.status_code == 302
    assert AuthToken.objects.filter(pk=row.pk).exists()
    assert not tokens.revoke_token(intruder, row.digest)
    assert with_token(plain).get(f"{API}/tournaments/").status_code == 200
    assert row.token_key[:8] not in page_of(intruder).get(reverse("api-tokens")).content.decode()


def test_no_credentials_says_how_to_authenticate(league):
    answer = APIClient(HTTP_ACCEPT_LANGUAGE="en").post(f"{API}/games/", game_payload(), format="json")
    assert answer.status_code in (401, 403)
    assert "Authorization: Token <token>" in answer.json()["detail"]
