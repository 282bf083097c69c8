"""People: users (custom from the first migration), players, families, blacklists."""

from django.contrib.auth.models import AbstractUser
from django.core.exceptions import ValidationError
from django.db import models
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _


class User(AbstractUser):
    """A login of the portal; a user may claim one player (accounts.Player.user)."""

    timezone = models.CharField(_("time zone"), max_length=64, default="Europe/Moscow")

    class Meta:
        verbose_name = _("user")
        verbose_name_plural = _("users")


class Family(models.Model):
    """A clan of players on the Mafia site (семья), with its head (глава семьи)."""

    name = models.CharField(_("name"), max_length=100, unique=True)
    head = models.ForeignKey(
        "accounts.Player", verbose_name=_("head"), null=True, blank=True, on_delete=models.SET_NULL,
        related_name="headed_families",
    )
    official = models.BooleanField(_("official"), default=True)

    class Meta:
        ordering = ["name"]
        verbose_name = _("family")
        verbose_name_plural = _("families")

    def __str__(self) -> str:
        return self.name


class Player(models.Model):
    """A player known by the nick used on the game site (or a ChGK player's full name)."""

    nick = models.CharField(_("nick"), max_length=100, unique=True)
    full_name = models.CharField(_("full name"), max_length=200, blank=True)
    level = models.PositiveIntegerField(_("level"), null=True, blank=True)
    disqualified = models.BooleanField(_("disqualified"), default=False)
    banned = models.BooleanField(_("banned from official tournaments"), default=False)
    user = models.OneToOneField(
        User, verbose_name=_("account"), null=True, blank=True, on_delete=models.SET_NULL, related_name="player"
    )
    claim_confirmed = models.BooleanField(_("claim confirmed"), default=False)

    class Meta:
        ordering = ["nick"]
        verbose_name = _("player")
        verbose_name_plural = _("players")

    def __str__(self) -> str:
        return self.nick


class FamilyMembership(models.Model):
    """A player's membership of a family, dated (FL-3, FL-4)."""

    family = models.ForeignKey(Family, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("family"))
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="memberships", verbose_name=_("player"))
    joined_on = models.DateField(_("joined on"), null=True, blank=True)
    left_on = models.DateField(_("left on"), null=True, blank=True)

    class Meta:
        ordering = ["family", "joined_on"]
        verbose_name = _("family membership")
        verbose_name_plural = _("family memberships")
        constraints = [
            models.CheckConstraint(
                condition=models.Q(left_on__isnull=True)
                | models.Q(joined_on__isnull=True)
                | models.Q(left_on__gte=models.F("joined_on")),
                name="membership_left_after_joined",
            )
        ]

    def __str__(self) -> str:
        return f"{self.player} @ {self.family}"


class Blacklist(models.Model):
    """``owner`` blacklisted ``blocked``: they may not play in the same tournament (FL-3)."""

    owner = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="blacklist", verbose_name=_("owner"))
    blocked = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="blacklisted_by", verbose_name=_("blocked player")
    )
    since = models.DateField(_("since"), null=True, blank=True)

    class Meta:
        verbose_name = _("blacklist entry")
        verbose_name_plural = _("blacklist entries")
        constraints = [
            models.UniqueConstraint(fields=["owner", "blocked"], name="unique_blacklist_pair"),
            models.CheckConstraint(condition=~models.Q(owner=models.F("blocked")), name="blacklist_not_self"),
        ]

    def __str__(self) -> str:
        return f"{self.owner} ⟂ {self.blocked}"


class Role(models.TextChoices):
    ORGANIZER = "organizer", _("organizer")
    JUDGE = "judge", _("judge / commission")
    CURATOR = "curator", _("curator / committee")
    JURY = "jury", _("appeal jury member")
    CAPTAIN = "captain", _("team captain")
    FAMILY_HEAD = "family_head", _("family head")
    PLAYER = "player", _("player")


class TournamentRole(models.Model):
    """A per-tournament role of a user (not a global flag)."""

    user = models.ForeignKey(User, on_delete=models.CASCADE, related_name="tournament_roles", verbose_name=_("user"))
    tournament = models.ForeignKey(
        "tournaments.Tournament", on_delete=models.CASCADE, related_name="roles", verbose_name=_("tournament")
    )
    role = models.CharField(_("role"), max_length=20, choices=Role.choices)
    stages = models.JSONField(
        _("stages"), default=list, blank=True,
        help_text=_("A judge's stages (FL-0 names judges per stage): their keys; none: every stage."))
    granted_at = models.DateTimeField(_("granted at"), auto_now_add=True)

    class Meta:
        verbose_name = _("tournament role")
        verbose_name_plural = _("tournament roles")
        constraints = [models.UniqueConstraint(fields=["user", "tournament", "role"], name="unique_tournament_role")]

    def __str__(self) -> str:
        return f"{self.user} — {self.get_role_display()} @ {self.tournament}"

    def clean(self) -> None:
        """Appeal jury members may not play in the tournament (CHGK-11)."""
        if self.role == Role.JURY and self.tournament_id and self.user_id:
            player = getattr(self.user, "player", None)
            if player is not None and player.roster_entries.filter(team__tournament_id=self.tournament_id).exists():
                raise ValidationError({"role": gettext(
                    "%(nick)s plays in this tournament and cannot sit on its appeal jury (CHGK-11).") % {
                    "nick": player.nick}})


class ApiTokenName(models.Model):
    """The name a user gave a personal API token: knox's ``AuthToken`` has none."""

    token = models.OneToOneField("knox.AuthToken", verbose_name=_("token"), on_delete=models.CASCADE,
                                 related_name="label")
    name = models.CharField(_("name"), max_length=100)

    class Meta:
        verbose_name = _("API token name")
        verbose_name_plural = _("API token names")

    def __str__(self) -> str:
        return self.name
