"""ChGK season setup rows (CHGK-1, CHGK-5, CHGK-7, CHGK-11).

The admission queue, the hosting draw and the overdue
flags are not stored: ``formats.chgk_tour_points.services`` computes them from these
rows with the pure rules of ``rulesets.chgk_tour_points.season``.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from rulesets import facts as F


class ApplicationStatus(models.TextChoices):
    """Where a ChGK application stands (CHGK-5): waiting in the queue, admitted (a team), or refused."""

    PENDING = "pending", _("pending")
    ADMITTED = "admitted", _("admitted")
    REFUSED = "refused", _("refused")


class ChgkApplication(models.Model):
    """A team's application for a ChGK season (CHGK-1); ``team`` is set once it is admitted (CHGK-5).

    A captain files it from the season's page (``filed_by``, ``captain_player``), or an organizer
    records it from paper; the organizers admit it or refuse it with a reason the applicant reads.
    """

    tournament = models.ForeignKey("tournaments.Tournament", on_delete=models.CASCADE,
                                   related_name="chgk_applications", verbose_name=_("tournament"))
    team_name = models.CharField(_("team name"), max_length=100)
    captain = models.CharField(_("captain's full name"), max_length=100)
    players = models.JSONField(_("players' full names"), default=list)
    home_university = models.BooleanField(_("host-university team"), default=False)
    league = models.CharField(_("league"), max_length=10, default="none", choices=[(k, k) for k in F.LEAGUES])
    played_tournaments = models.TextField(_("tournaments already played"), blank=True)
    filed_at = models.DateTimeField(_("filed at"), db_index=True)
    team = models.OneToOneField("tournaments.Team", null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="chgk_application", verbose_name=_("admitted team"))
    status = models.CharField(_("status"), max_length=10, choices=ApplicationStatus.choices,
                              default=ApplicationStatus.PENDING, db_index=True)
    refusal_reason = models.TextField(_("reason of the refusal"), blank=True)
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+", verbose_name=_("decided by"))
    filed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="chgk_applications", verbose_name=_("filed by"))
    captain_player = models.ForeignKey("accounts.Player", null=True, blank=True, on_delete=models.SET_NULL,
                                       related_name="chgk_applications", verbose_name=_("captain"))

    class Meta:
        ordering = ["tournament", "filed_at", "id"]
        verbose_name = _("ChGK application")
        verbose_name_plural = _("ChGK applications")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "team_name"], name="unique_chgk_application"),
            models.CheckConstraint(condition=~models.Q(status="refused") | ~models.Q(refusal_reason=""),
                                   name="chgk_refusal_has_reason"),
        ]

    def __str__(self) -> str:
        return self.team_name

    @property
    def pending(self) -> bool:
        return self.status == ApplicationStatus.PENDING


class ChgkHostingWish(models.Model):
    """Tour numbers or dates (ISO strings) a team prefers to host or cannot host (CHGK-7)."""

    team = models.OneToOneField("tournaments.Team", on_delete=models.CASCADE, related_name="hosting_wish",
                                verbose_name=_("team"))
    prefers = models.JSONField(_("preferred tours or dates"), default=list, blank=True)
    cannot = models.JSONField(_("impossible tours or dates"), default=list, blank=True)

    class Meta:
        verbose_name = _("hosting wish")
        verbose_name_plural = _("hosting wishes")

    def __str__(self) -> str:
        return f"{self.team}: +{self.prefers} -{self.cannot}"


class ChgkChecklistDone(models.Model):
    """A checklist item of a tour marked done (CHGK-11)."""

    tour = models.ForeignKey("tournaments.Tour", on_delete=models.CASCADE, related_name="checklist_done",
                             verbose_name=_("tour"))
    key = models.CharField(_("item"), max_length=40)
    done_at = models.DateTimeField(_("done at"))

    class Meta:
        ordering = ["tour", "key"]
        verbose_name = _("checklist item done")
        verbose_name_plural = _("checklist items done")
        constraints = [models.UniqueConstraint(fields=["tour", "key"], name="unique_checklist_done")]

    def __str__(self) -> str:
        return f"{self.tour}: {self.key}"


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
