"""Decisions (judges, commissions, committees) and the appeals against them."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _

from accounts.models import Player
from tournaments.models import Game, Outcome, Stage, Team, Tour, Tournament


class DecisionKind(models.TextChoices):
    TECHNICAL_RESULT = "technical_result", _("technical result")
    REPLAY = "replay", _("replay")
    DISQUALIFICATION = "disqualification", _("disqualification")
    TIE_BREAK = "tie_break", _("order of tied rows")
    QUALIFY = "qualify", _("qualification pick")


class Decision(models.Model):
    """A decision as a fact: who took it, when, on which grounds, and what it changes."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="decisions",
                                   verbose_name=_("tournament"))
    index = models.PositiveIntegerField(_("number"))
    kind = models.CharField(_("kind"), max_length=20, choices=DecisionKind.choices)
    stage = models.ForeignKey(Stage, null=True, blank=True, on_delete=models.CASCADE, verbose_name=_("stage"))
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("game"))
    code = models.CharField(_("grounds (rule or FP code)"), max_length=30, blank=True)
    outcome = models.CharField(_("awarded outcome"), max_length=12, choices=Outcome.choices, null=True, blank=True)
    team = models.ForeignKey(Team, null=True, blank=True, on_delete=models.CASCADE, verbose_name=_("team"))
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, verbose_name=_("player"))
    order = models.JSONField(_("order of tied rows"), default=list, blank=True)
    reason = models.TextField(_("reason"), blank=True, null=True)
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    published_at = models.DateTimeField(_("published at"), null=True, blank=True)
    by = models.CharField(_("decided by"), max_length=150, blank=True)
    text = models.TextField(_("text"), blank=True)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                               verbose_name=_("recorded by"))

    class Meta:
        ordering = ["tournament", "index"]
        verbose_name = _("decision")
        verbose_name_plural = _("decisions")
        constraints = [models.UniqueConstraint(fields=["tournament", "index"], name="unique_decision_index")]

    def __str__(self) -> str:
        return f"#{self.index} {self.get_kind_display()}"


class AppealKind(models.TextChoices):
    REMOVAL = "removal", _("removal of a question")
    ACCEPT_ANSWER = "accept_answer", _("acceptance of an answer")
    DECISION = "decision", _("appeal against a decision")
    VIOLATION = "violation", _("appeal against a detected violation")


class Verdict(models.TextChoices):
    ACCEPTED = "accepted", _("upheld")
    REJECTED = "rejected", _("rejected")
    PARTLY = "partly", _("partly upheld")


class Appeal(models.Model):
    """An appeal: ChGK (CHGK-18..CHGK-23) or against a Mafia decision (GP-23, FL-19, CB-17)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="appeals",
                                   verbose_name=_("tournament"))
    order = models.PositiveIntegerField(_("order"), default=0)
    kind = models.CharField(_("kind"), max_length=20, choices=AppealKind.choices)
    stage = models.ForeignKey(Stage, null=True, blank=True, on_delete=models.CASCADE, verbose_name=_("stage"))
    tour = models.ForeignKey(Tour, null=True, blank=True, on_delete=models.CASCADE, verbose_name=_("tour"))
    question = models.PositiveIntegerField(_("question"), null=True, blank=True)
    team = models.ForeignKey(Team, null=True, blank=True, on_delete=models.CASCADE, related_name="appeals",
                             verbose_name=_("appealing team"))
    answer = models.TextField(_("team's answer"), blank=True, null=True)
    argument = models.TextField(_("argument"), blank=True)
    decision = models.ForeignKey(Decision, null=True, blank=True, on_delete=models.CASCADE,
                                 related_name="appeals", verbose_name=_("decision"))
    game = models.ForeignKey("tournaments.Game", null=True, blank=True, on_delete=models.CASCADE,
                             related_name="violation_appeals", verbose_name=_("game"))
    violation = models.CharField(_("violation (FL-15)"), max_length=30, blank=True)
    violating_player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.CASCADE,
                                         related_name="violation_appeals", verbose_name=_("player"))
    penalty = models.ForeignKey("tournaments.Penalty", null=True, blank=True, on_delete=models.CASCADE,
                                related_name="appeals", verbose_name=_("penalty"))
    appellant = models.CharField(_("appellant"), max_length=150, blank=True, null=True)
    filed_at = models.DateTimeField(_("filed at"))
    filed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="appeals_filed", verbose_name=_("filed by"))
    verdict = models.CharField(_("verdict"), max_length=10, choices=Verdict.choices, null=True, blank=True)
    verdict_reasons = models.TextField(_("reasons"), blank=True)
    verdict_at = models.DateTimeField(_("verdict at"), null=True, blank=True)
    credited_teams = models.ManyToManyField(Team, blank=True, related_name="credited_by_appeals",
                                            verbose_name=_("teams credited"))
    standings_change = models.JSONField(_("standings change"), default=list, blank=True)

    class Meta:
        ordering = ["tournament", "order"]
        verbose_name = _("appeal")
        verbose_name_plural = _("appeals")

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.filed_at:%Y-%m-%d})"
