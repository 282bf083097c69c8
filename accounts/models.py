"""People: users (custom from the first migration), players, families, blacklists."""

from django.contrib.auth.models import AbstractUser
from django.db import models
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A login of the portal; a user may claim one player (accounts.Player.user)."""

    timezone = models.CharField(_("time zone"), max_length=64, default="Europe/Moscow")

    class Meta:
        verbose_name = _("user")
        verbose_name_plural = _("users")
