"""Materialized standings: what pages and the API read (design.md principle 3)."""

from __future__ import annotations

from django.db import models
from django.utils.translation import gettext_lazy as _

from tournaments.models import Tournament


class StandingsSnapshot(models.Model):
    """The standings after one stage (``stage_key`` "" = the latest), as of ``facts_version``."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="snapshots",
                                   verbose_name=_("tournament"))
    stage_key = models.CharField(_("stage"), max_length=40, blank=True)
    facts_version = models.PositiveBigIntegerField(_("facts version"))
    ruleset_version = models.PositiveIntegerField(_("ruleset version"), default=1)
    computed_at = models.DateTimeField(_("computed at"))
    recheck_at = models.DateTimeField(_("recompute at"), null=True, blank=True)
    stale = models.BooleanField(_("stale"), default=False)
    error = models.TextField(_("last error"), blank=True)
    export = models.JSONField(_("export document"))
    details = models.JSONField(_("details"), default=dict)
    # What the tournament page shows (scoring.serialize.page_summary of ``details``): small at any size, so the
    # page reads it with ``.defer("details")``. None in rows stored before it existed (the page derives it then).
    summary = models.JSONField(_("page summary"), null=True, blank=True)

    class Meta:
        verbose_name = _("standings snapshot")
        verbose_name_plural = _("standings snapshots")
        constraints = [models.UniqueConstraint(fields=["tournament", "stage_key"], name="unique_snapshot_stage")]

    def __str__(self) -> str:
        return f"{self.tournament} {self.stage_key or 'latest'} v{self.facts_version}"


class RecomputeRun(models.Model):
    """One run of the recompute job, kept for the benchmarks and the coalescing test."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="recompute_runs",
                                   verbose_name=_("tournament"))
    facts_version = models.PositiveBigIntegerField(_("facts version"))
    started_at = models.DateTimeField(_("started at"))
    finished_at = models.DateTimeField(_("finished at"), null=True, blank=True)
    ok = models.BooleanField(_("succeeded"), default=False)
    error = models.TextField(_("error"), blank=True)

    class Meta:
        ordering = ["-started_at"]
        verbose_name = _("recompute run")
        verbose_name_plural = _("recompute runs")

    def __str__(self) -> str:
        return f"{self.tournament} v{self.facts_version} {'ok' if self.ok else 'failed'}"


class PageFigures(models.Model):
    """Figures a page shows beside the standings, stored by the same recompute (design.md principle 3).

    ``kind`` "seats": the seat points of games ``block * BLOCK`` .. ``block * BLOCK + BLOCK - 1`` of stage
    ``stage_key`` (``scoring.figures``); "tour": the table of tour number ``block``. ``facts_version`` is the
    version they were computed from; ``digest`` lets a recompute rewrite only the rows whose figures changed.
    """

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="page_figures",
                                   verbose_name=_("tournament"))
    kind = models.CharField(_("kind"), max_length=8)
    stage_key = models.CharField(_("stage"), max_length=40, blank=True)
    block = models.PositiveIntegerField(_("block"))
    facts_version = models.PositiveBigIntegerField(_("facts version"))
    digest = models.CharField(_("digest"), max_length=40)
    data = models.JSONField(_("figures"))

    class Meta:
        verbose_name = _("page figures")
        verbose_name_plural = _("page figures")
        constraints = [models.UniqueConstraint(fields=["tournament", "kind", "stage_key", "block"],
                                               name="unique_page_figures")]

    def __str__(self) -> str:
        return f"{self.tournament} {self.kind} {self.stage_key}:{self.block} v{self.facts_version}"
