"""Personal API tokens: django-rest-knox keeps them hashed, ``ApiTokenName`` their names.

A token authenticates as its user (``knox.auth.TokenAuthentication`` in ``REST_FRAMEWORK``), so it can do
exactly what the user's roles allow. The plain text exists only in the answer to ``create_token``.
"""

from __future__ import annotations

from datetime import timedelta

from django.db import transaction
from django.db.models import QuerySet
from knox.models import AuthToken
from rest_framework.authentication import TokenAuthentication
from rest_framework.authtoken.models import Token

from accounts.models import ApiTokenName, User

EXPIRY_DAYS = (30, 90, 365, 0)  # 0: never expires


@transaction.atomic
def create_token(user: User, name: str, expiry_days: int) -> tuple[AuthToken, str]:
    """A new token of ``user`` named ``name``, expiring in ``expiry_days`` days (0: never); and its plain text."""
    expiry = timedelta(days=expiry_days) if expiry_days else None
    row, plain = AuthToken.objects.create(user=user, expiry=expiry)
    ApiTokenName.objects.create(token=row, name=name)
    return row, plain


def revoke_token(user: User, token_id: str) -> bool:
    """Delete ``user``'s token whose digest is ``token_id``; False if ``user`` has no such token."""
    deleted, _ = AuthToken.objects.filter(user=user, digest=token_id).delete()
    return bool(deleted)


def tokens_of(user: User) -> QuerySet[AuthToken]:
    """``user``'s tokens, the newest first, with their names."""
    return AuthToken.objects.filter(user=user).select_related("label").order_by("-created")


class LegacyTokenAuthentication(TokenAuthentication):
    """DRF's own tokens (the admin's): a key it does not know is left to knox instead of refused."""

    def authenticate_credentials(self, key: str) -> tuple[User, Token] | None:  # type: ignore[override]
        if not Token.objects.filter(key=key).exists():
            return None
        return super().authenticate_credentials(key)
