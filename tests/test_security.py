"""Account protections and security headers."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from rest_framework.authtoken.models import Token
from rest_framework.test import APIClient

from tests.conftest import example
from tests.factories import UserFactory
from tournaments.importer import import_document

ROOT = Path(__file__).resolve().parent.parent


def test_check_deploy_is_clean_under_production_settings():
    env = dict(os.environ, DJANGO_DEBUG="False", SECRET_KEY=secrets.token_urlsafe(50),
               ALLOWED_HOSTS="portal.example.org")
    env.pop("DATABASE_URL", None)
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "no issues" in result.stdout


def test_production_settings_require_a_secret_key():
    env = dict(os.environ, DJANGO_DEBUG="False", ALLOWED_HOSTS="portal.example.org")
    env.pop("SECRET_KEY", None)
    env.pop("DJANGO_SECRET_KEY", None)
    result = subprocess.run([sys.executable, "manage.py", "check"], cwd=ROOT, env=env, capture_output=True,
                            text=True, timeout=120)
    assert result.returncode != 0
    assert "SECRET_KEY must be set" in result.stderr


@pytest.mark.django_db
def test_login_is_locked_after_five_failures(client):
    """django-axes: five wrong passwords lock the account from that address, even with the right one."""
    UserFactory(username="victim")
    for _ in range(5):
        response = client.post("/accounts/login/", {"username": "victim", "password": "wrong"})
        assert response.status_code in (200, 429)
    response = client.post("/accounts/login/", {"username": "victim", "password": "correct horse battery staple"})
    assert response.status_code in (403, 429)
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_correct_password_logs_in(client):
    UserFactory(username="someone")
    response = client.post("/accounts/login/", {"username": "someone", "password": "correct horse battery staple"})
    assert response.status_code == 302
    assert "_auth_user_id" in client.session


@pytest.mark.django_db
def test_pages_send_security_headers(client):
    response = client.get("/")
    assert response["X-Frame-Options"] == "DENY"
    assert response["X-Content-Type-Options"] == "nosniff"
    assert "default-src 'self'" in response["Content-Security-Policy"]
    assert "script-src 'self'" in response["Content-Security-Policy"]


@pytest.mark.django_db
def test_api_tokens_can_be_revoked():
    import_document(example("chgk_tour_points"))
    staff = UserFactory(is_staff=True)
    token = Token.objects.create(user=staff)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token.key}")
    document = example("chgk_tour_points")
    assert client.post("/api/v1/tournaments/import/?replace=true", document, format="json").status_code == 201
    token.delete()
    assert client.post("/api/v1/tournaments/import/?replace=true", document, format="json").status_code in (401, 403)


@pytest.mark.django_db
def test_strong_passwords_are_required(client):
    response = client.post("/accounts/signup/", {"username": "newbie", "email": "n@example.org",
                                                 "password1": "12345678", "password2": "12345678"})
    assert response.status_code == 200
    from accounts.models import User

    assert not User.objects.filter(username="newbie").exists()
