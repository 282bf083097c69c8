"""Celery beat job of the family league: at the judging moment, remove the players who fail FL-3."""

from __future__ import annotations

from celery import shared_task

from formats.family_league.services import judge_due


@shared_task
def remove_ineligible_players() -> dict[str, list[list[str]]]:
    """Judge every family league tournament whose moment (24 h before its first game) has passed, once (FL-3).

    Returns, per tournament slug judged in this run, the removed ``[team, nick]`` pairs.
    """
    return {slug: [list(pair) for pair in removed] for slug, removed in judge_due().items()}
