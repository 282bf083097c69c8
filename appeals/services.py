"""The appeal workflow: filing before the deadline, the jury's verdict, its effect on the table.

Deadlines, deciders and what may be appealed come from the ruleset's
``appeal_policy`` (GP-23, CHGK-18..CHGK-20, FL-19, CB-17), computed in the
tournament's time zone. A filed appeal is committed before any
notification is sent, so nothing filed in time is lost. A verdict is a fact:
the standings recompute through the normal pipeline, and the appeal keeps the
rows of the table that moved.
"""

from __future__ import annotations

import datetime as dt
import logging
import zoneinfo
from dataclasses import dataclass

from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import rulesets
from accounts.models import Player, TournamentRole
from accounts.permissions import appeal_deciders, can_decide_appeals, refuse_to_file
from rulesets import facts as F
from scoring import appeal_effects
from tournaments.loader import load_facts
from tournaments.models import Appeal, AppealKind, Decision, Game, Team, Tour, Tournament, Verdict

log = logging.getLogger(__name__)


class AppealRefused(Exception):
    """The appeal or verdict was refused; the message says why (with the rule)."""


@dataclass(frozen=True)
class AppealTarget:
    """What an appeal is about: a ChGK question or a Mafia decision."""

    kind: str
    tour: Tour | None = None
    question: int | None = None
    decision: Decision | None = None
    game: Game | None = None
    violation: str = ""
    player: Player | None = None


def filing_deadline(tournament: Tournament, target: AppealTarget,
                    facts: F.TournamentFacts | None = None) -> dt.datetime | None:
    """The last moment an appeal on ``target`` may be filed, per the tournament's ruleset."""
    policy = rulesets.get(tournament.ruleset).appeal_policy
    if target.game is not None:
        # FL-19: a detected violation within 3 days of the result's publication (its entry in the portal)
        if policy.detected_violation_hours is None:
            return None
        return target.game.updated_at + dt.timedelta(hours=policy.detected_violation_hours)
    facts = facts or load_facts(tournament)
    if target.decision is not None:
        if policy.decision_deadline is None:
            return None
        return policy.decision_deadline(facts, facts.decisions[target.decision.index - 1])
    probe = F.Appeal(kind=target.kind, filed_at=timezone.now(), stage=target.tour.stage.key if target.tour else None,
                     tour=target.tour.number if target.tour else None, question=target.question)
    return policy.appeal_deadline(facts, probe)


def verdict_due(tournament: Tournament, appeal: Appeal, facts: F.TournamentFacts | None = None) -> dt.datetime | None:
    """When the jury's verdict is due (CHGK-18: D+9); None where the rules set no date."""
    due = rulesets.get(tournament.ruleset).appeal_policy.verdict_due
    if appeal.tour is None or due is None:
        return None
    facts = facts or load_facts(tournament)
    probe = F.Appeal(kind=appeal.kind, filed_at=appeal.filed_at, stage=appeal.tour.stage.key,
                     tour=appeal.tour.number, question=appeal.question)
    return due(facts, probe)


def file_appeal(tournament: Tournament, user, target: AppealTarget, *, team: Team | None, answer: str = "",
                argument: str = "", appellant: str = "", now: dt.datetime | None = None) -> Appeal:
    """File an appeal for ``team``; refused after the deadline or for someone not on the appellant's side."""
    now = now or timezone.now()
    reason = refuse_to_file(user, tournament, team)
    if reason:
        raise AppealRefused(reason)
    policy = rulesets.get(tournament.ruleset).appeal_policy
    if policy.question_kinds:
        if target.kind not in policy.question_kinds or target.tour is None:
            raise AppealRefused(_("A ChGK appeal is a removal or an accepted answer on a tour's question (CHGK-19)."))
        if not 1 <= (target.question or 0) <= target.tour.questions:
            raise AppealRefused(_("Tour %(tour)d has no question %(question)s.") % {
                "tour": target.tour.number, "question": target.question})
    elif target.game is not None:
        if policy.detected_violation_hours is None or target.violation not in policy.detected_violations:
            raise AppealRefused(_("Only a violation the portal detected in a family league game can be appealed "
                                  "this way (FL-15, FL-19)."))
    elif target.decision is None:
        raise AppealRefused(_("A Mafia appeal is against a decision (GP-23, FL-19, CB-17)."))
    deadline = filing_deadline(tournament, target)
    if deadline is not None and now > deadline:
        zone = zoneinfo.ZoneInfo(tournament.timezone)
        raise AppealRefused(_("The deadline for this appeal was %(deadline)s (%(zone)s); it can no longer be filed.")
                            % {"deadline": deadline.astimezone(zone).strftime("%Y-%m-%d %H:%M:%S"),
                               "zone": tournament.timezone})
    with transaction.atomic():
        order = (Appeal.objects.filter(tournament=tournament).order_by("-order").values_list("order", flat=True)
                 .first() or 0) + 1
        appeal = Appeal.objects.create(
            tournament=tournament, order=order, kind=target.kind, stage=target.tour.stage if target.tour else (
                target.decision.stage if target.decision else (target.game.stage if target.game else None)),
            tour=target.tour, question=target.question, team=team, answer=answer or None, argument=argument,
            decision=target.decision, appellant=appellant or (team.name if team else None), filed_at=now,
            filed_by=user, game=target.game, violation=target.violation, violating_player=target.player,
        )
        transaction.on_commit(lambda: notify_filed(appeal.pk))
    return appeal


def decide(appeal: Appeal, user, verdict: str, *, reasons: str = "", credited: list[Team] | None = None,
           now: dt.datetime | None = None) -> Appeal:
    """Record the jury's verdict; an upheld appeal changes the facts and the table recomputes."""
    tournament = appeal.tournament
    if not can_decide_appeals(user, tournament):
        raise AppealRefused(_("Only the tournament's appeal jury decides this appeal."))
    if verdict not in Verdict.values:
        raise AppealRefused(_("Unknown verdict %(verdict)s.") % {"verdict": verdict})
    credited = list(credited or [])
    if appeal.kind == AppealKind.ACCEPT_ANSWER and verdict != Verdict.REJECTED:
        if not credited and appeal.team is not None:
            credited = [appeal.team]
    now = now or timezone.now()
    with transaction.atomic():
        locked = Appeal.objects.select_for_update().select_related("stage").get(pk=appeal.pk)
        if locked.verdict is not None:
            raise AppealRefused(_("This appeal already has a verdict."))
        locked.verdict = verdict
        locked.verdict_reasons = reasons
        locked.verdict_at = now
        locked.save()
        if credited:
            locked.credited_teams.set(credited)
        version = Tournament.objects.filter(pk=tournament.pk).values_list("facts_version", flat=True).get()
        locked.standings_before = appeal_effects.before_verdict(locked, version)
        Appeal.objects.filter(pk=locked.pk).update(standings_before=locked.standings_before)
        transaction.on_commit(lambda: notify_decided(locked.pk))
    return locked


def jury_emails(tournament: Tournament) -> list[str]:
    roles = rulesets_deciders(tournament)
    return sorted({e for e in TournamentRole.objects.filter(tournament=tournament, role__in=roles).values_list(
        "user__email", flat=True) if e})


def rulesets_deciders(tournament: Tournament) -> tuple[str, ...]:
    return appeal_deciders(tournament.ruleset)


def notify_filed(appeal_id: int) -> None:
    appeal = Appeal.objects.select_related("tournament", "filed_by").get(pk=appeal_id)
    subject = _("Appeal filed: %(tournament)s") % {"tournament": appeal.tournament.name}
    body = _("An appeal (%(kind)s) was filed at %(at)s.") % {"kind": appeal.get_kind_display(),
                                                             "at": appeal.filed_at.isoformat()}
    _send(subject, body, _recipients(appeal))


def notify_decided(appeal_id: int) -> None:
    appeal = Appeal.objects.select_related("tournament", "filed_by").get(pk=appeal_id)
    subject = _("Verdict on your appeal: %(tournament)s") % {"tournament": appeal.tournament.name}
    body = _("Verdict: %(verdict)s. %(reasons)s") % {"verdict": appeal.get_verdict_display(),
                                                     "reasons": appeal.verdict_reasons}
    _send(subject, body, _recipients(appeal))


def _recipients(appeal: Appeal) -> list[str]:
    recipients = jury_emails(appeal.tournament)
    if appeal.filed_by is not None and appeal.filed_by.email:
        recipients.append(appeal.filed_by.email)
    return sorted(set(recipients))


def _send(subject: str, body: str, recipients: list[str]) -> None:
    if not recipients:
        return
    try:
        send_mail(subject, body, None, recipients)
    except Exception:  # noqa: BLE001 - the appeal is stored; a mail failure must not lose it
        log.exception("could not send appeal notification to %s", recipients)
