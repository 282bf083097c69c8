"""Prizes of the stored standings and their payment (GP-22, GP-22a, FL-20).

The awards are read from the stage snapshots (never computed here); marking
one paid stores a ``PrizePayment`` fact, audited.
"""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import rulesets
from rulesets.errors import Conflict, Invalid, NotFound
from scoring.models import StandingsSnapshot
from tournaments import audit
from tournaments.models import PrizePayment, Tournament


class PrizeRefused(Invalid):
    """The prize cannot be marked paid; the message says why."""


class PrizeNotFound(PrizeRefused, NotFound):
    """The standings list no such prize."""


class PrizeConflict(PrizeRefused, Conflict):
    """The prize is already marked paid."""


def awards_by_stage(tournament: Tournament) -> list[tuple[str, list[dict[str, Any]]]]:
    """Every stage snapshot's ``export["awards"]`` (the latest snapshot only when no stage has one)."""
    rows = list(StandingsSnapshot.objects.filter(tournament=tournament).values_list(
        "stage_key", "export__stage", "export__awards"))
    staged = [(stage or key, awards or []) for key, stage, awards in rows if key]
    if not staged:
        staged = [(stage or key, awards or []) for key, stage, awards in rows]
    order = {key: i for i, key in enumerate(rulesets.get(tournament.ruleset).stage_keys)}
    return sorted(staged, key=lambda item: order.get(item[0], len(order)))


def award_key(stage_key: str, award: dict[str, Any]) -> tuple[str, int, str, str]:
    return stage_key, int(award["place"]), award.get("team") or "", award.get("player") or ""


@transaction.atomic
def mark_paid(tournament: Tournament, stage_key: str, place: int, team: str, player: str, *, user) -> PrizePayment:
    """Mark one award of the snapshot paid; refused for an award the snapshot does not list or already paid."""
    wanted = (stage_key, place, team, player)
    award = next((a for key, awards in awards_by_stage(tournament) for a in awards
                  if award_key(key, a) == wanted), None)
    if award is None:
        raise PrizeNotFound(_("The standings list no such prize."))
    try:
        with transaction.atomic():
            payment = PrizePayment.objects.create(
                tournament=tournament, stage_key=stage_key, place=place, team_name=team, player_nick=player,
                amount_mf=int(award.get("prize") or 0), paid_at=timezone.now(), paid_by=user)
    except IntegrityError as exc:
        raise PrizeConflict(_("This prize is already marked paid.")) from exc
    audit.record("paid", payment, None, {"stage": stage_key, "place": place, "team": team, "player": player,
                                         "amount_mf": payment.amount_mf}, user=user)
    return payment
