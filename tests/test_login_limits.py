"""The login lockout keys on the client's real address behind the configured proxies, and one
address is limited in how many logins and password resets it tries (password spraying, reset floods)."""

from __future__ import annotations

import uuid

import pytest
from django.test import RequestFactory

from accounts.addresses import client_address
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def fresh_address() -> str:
    """An address no other test (nor an earlier run against a shared Redis) has used."""
    raw = uuid.uuid4().int
    return f"10.{raw % 250}.{raw // 250 % 250}.{raw // 62500 % 250 + 1}"


@pytest.fixture
def proxies(settings):
    def use(count: int) -> None:
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "NUM_PROXIES": count}
    return use


def test_without_trusted_proxies_the_forwarded_header_is_ignored(proxies):
    proxies(0)
    request = RequestFactory().get("/", REMOTE_ADDR="192.0.2.9", HTTP_X_FORWARDED_FOR="203.0.113.5")
    assert client_address(request) == "192.0.2.9"


def test_behind_one_proxy_the_client_is_the_address_the_proxy_saw(proxies):
    """A client's invented X-Forwarded-For entries stand before the proxy's own: the last entry is the real one."""
    proxies(1)
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR="1.1.1.1, 203.0.113.5")
    assert client_address(request) == "203.0.113.5"
    proxies(2)
    assert client_address(request) == "1.1.1.1"


def test_five_bad_passwords_behind_the_proxy_lock_the_user_for_that_client_only(client, proxies, settings):
    """AXES_FAILURE_LIMIT failures lock the username from the attacker's address; the owner elsewhere logs in."""
    proxies(1)
    settings.AXES_FAILURE_LIMIT = 5
    user = UserFactory(username="owner-" + uuid.uuid4().hex[:8])
    user.set_password("the-right-password-1")
    user.save()
    attacker, owner = fresh_address(), fresh_address()
    for _ in range(5):
        client.post("/accounts/login/", {"username": user.username, "password": "wrong"},
                    REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=attacker)
    locked = client.post("/accounts/login/", {"username": user.username, "password": "the-right-password-1"},
                         REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=attacker)
    assert locked.status_code == 429
    allowed = client.post("/accounts/login/", {"username": user.username, "password": "the-right-password-1"},
                          REMOTE_ADDR="10.0.0.2", HTTP_X_FORWARDED_FOR=owner)
    assert allowed.status_code == 302


def test_password_spraying_from_one_address_is_stopped(client, settings):
    """30 users x 4 tries from one address: past the address's login limit every further try answers 429."""
    settings.ADDRESS_ATTEMPT_LIMITS = {"login": (30, 600), "password_reset": (5, 3600)}
    address = fresh_address()
    answers = [client.post("/accounts/login/", {"username": f"user{n}", "password": f"guess{k}"},
                           REMOTE_ADDR=address).status_code for n in range(30) for k in range(4)]
    assert answers[:30] == [200] * 30
    assert set(answers[30:]) == {429}
    page = client.post("/accounts/login/", {"username": "x", "password": "y"}, REMOTE_ADDR=address,
                       HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 429 and int(page["Retry-After"]) > 0
    assert "Too many attempts from your address" in page.content.decode()
    elsewhere = client.post("/accounts/login/", {"username": "x", "password": "y"}, REMOTE_ADDR=fresh_address())
    assert elsewhere.status_code == 200


def test_the_reset_form_is_limited_per_address(client, settings, mailoutbox):
    settings.ADDRESS_ATTEMPT_LIMITS = {"login": (30, 600), "password_reset": (5, 3600)}
    user = UserFactory(email="reset-me@example.org")
    address = fresh_address()
    answers = [client.post("/accounts/password/reset/", {"email": user.email}, REMOTE_ADDR=address).status_code
               for _ in range(7)]
    assert answers == [302] * 5 + [429] * 2
    assert len(mailoutbox) == 5
    assert client.get("/accounts/password/reset/", REMOTE_ADDR=address).status_code == 200
