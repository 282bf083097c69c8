"""ChGK tour line-ups (CHGK-3, CHGK-4).

Loaded by ``tournaments.models`` (last lines) so Django sees it in the
``tournaments`` app. The captain stores the line-up of the next tour on the
team page (``accounts.captains.store_line_up``); everyone in a stored line-up
has played for CHGK-3 and can no longer be replaced in the roster.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

__all__ = ["LineUp"]


class LineUp(models.Model):
    """Who played a tour for a team: ``segments`` are the players at the table between the host's breaks
    (at most 6 each, CHGK-4); ``players`` is everyone in any segment."""

    tour = models.ForeignKey("tournaments.Tour", on_delete=models.CASCADE, related_name="line_ups",
                             verbose_name=_("tour"))
    team = models.ForeignKey("tournaments.Team", on_delete=models.CASCADE, related_name="line_ups",
                             verbose_name=_("team"))
    segments = models.JSONField(_("players at the table between breaks"), default=list)
    players = models.ManyToManyField("accounts.Player", related_name="line_ups", blank=True,
                                     verbose_name=_("players"))
    submitted_at = models.DateTimeField(_("submitted at"))
    submitted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+", verbose_name=_("submitted by"))

    class Meta:
        ordering = ["tour", "team"]
        verbose_name = _("line-up")
        verbose_name_plural = _("line-ups")
        constraints = [models.UniqueConstraint(fields=["tour", "team"], name="unique_line_up")]

    def __str__(self) -> str:
        return f"{self.team} / {self.tour}"
