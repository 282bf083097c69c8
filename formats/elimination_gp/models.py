"""Grand Prix registration (GP-3..GP-7) and the stage conditions (GP-2).

Rosters, waiting lists and replacement histories are not
stored: ``formats.elimination_gp.services`` computes them from these rows with the
pure rules of ``rulesets.elimination_gp.registration``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from rulesets.elimination_gp.standings import EXTRA_INDICATORS


class StageRegistration(models.Model):
    """A player's registration for a Grand Prix stage (GP-3..GP-6), kept after a withdrawal for the history."""

    stage = models.ForeignKey("tournaments.Stage", on_delete=models.CASCADE, related_name="registrations",
                              verbose_name=_("stage"))
    player = models.ForeignKey("accounts.Player", on_delete=models.CASCADE, related_name="stage_registrations",
                               verbose_name=_("player"))
    registered_at = models.DateTimeField(_("registered at"), db_index=True)
    invited = models.BooleanField(_("invited by the host family"), default=False)
    replaces = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="replacement_invitations",
                                 verbose_name=_("new invitation replacing"))
    basket = models.PositiveSmallIntegerField(_("basket"), null=True, blank=True)
    withdrawn_at = models.DateTimeField(_("withdrawn at"), null=True, blank=True)
    withdrawn_after_draw = models.BooleanField(_("withdrew after the draw"), default=False)
    registered_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="+", verbose_name=_("registered by"))

    class Meta:
        ordering = ["stage", "registered_at", "id"]
        verbose_name = _("stage registration")
        verbose_name_plural = _("stage registrations")
        constraints = [models.UniqueConstraint(fields=["stage", "player"], name="unique_stage_registration")]

    def __str__(self) -> str:
        return f"{self.player} @ {self.stage}"


class StageConditions(models.Model):
    """GP-2: what the host family publishes before registration opens, locked once it is open.

    The extra indicator (GP-17) is chosen here for the stage; saving it writes the stage's entry of the
    tournament's ``extra_indicator`` setting, which the ruleset reads.
    """

    stage = models.OneToOneField("tournaments.Stage", on_delete=models.CASCADE, related_name="conditions",
                                 verbose_name=_("stage"))
    commission = models.TextField(_("stage commission"), blank=True)
    game_times = models.TextField(_("game times"), blank=True)
    prize_fund = models.TextField(_("prize fund"), blank=True)
    extra_indicator = models.CharField(_("extra indicator (GP-17)"), max_length=30, blank=True,
                                       choices=[(key, key) for key in EXTRA_INDICATORS])
    registration_opened_at = models.DateTimeField(_("registration opened at"), null=True, blank=True)
    registration_closed_at = models.DateTimeField(_("registration closed at"), null=True, blank=True)
    updated_by = models.CharField(_("updated by"), max_length=150, blank=True)

    class Meta:
        verbose_name = _("stage conditions")
        verbose_name_plural = _("stage conditions")

    def __str__(self) -> str:
        return f"{self.stage}: conditions"

    def missing(self) -> list[str]:
        names = {"commission": _("stage commission"), "game_times": _("game times"),
                 "prize_fund": _("prize fund"), "extra_indicator": _("extra indicator (GP-17)")}
        return [str(label) for field, label in names.items() if not getattr(self, field).strip()]
