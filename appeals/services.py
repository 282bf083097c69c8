"""The appeal workflow: filing before the deadline, the jury's verdict, its effect on the table.

Deadlines, deciders and what may be appealed come from the ruleset's
``appeal_policy`` (GP-23, CHGK-18..CHGK-20, FL-19, CB-17), computed in the
tournament's time zone. A filed appeal is committed before any
notification is sent, so nothing filed in time is lost. A verdict is a fact:
the standings recompute through the normal pipeline, and the appeal keeps the
rows of the table that moved.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import logging
from dataclasses import dataclass

from django.core.mail import send_mail
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

import rulesets
from accounts.models import Player, TournamentRole
from accounts.permissions import appeal_deciders, can_decide_appeals, refuse_to_file
from accounts.zones import moment_text
from rulesets import facts as F
from rulesets.errors import Invalid, NotAllowed, Problem
from rulesets.interchange import Reader, parse_decision, replacement_problems
from scoring import appeal_effects
from tournaments.loader import load_facts
from tournaments.models import Appeal, AppealKind, Decision, Game, Stage, Team, Tour, Tournament, Verdict

log = logging.getLogger(__name__)


class AppealRefused(Invalid):
    """The appeal or verdict was refused; the message says why (with the rule)."""


class AppealNotAllowed(AppealRefused, NotAllowed):
    """The acting user may not decide this appeal."""


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
        # FL-19: a detected violation within 3 days of its publication: the game's result, or the later change
        # of the result that created it
        player = target.player.nick if target.player is not None else None
        published = target.game.violation_published_at(None, target.violation, player)
        if policy.detected_violation_closes is None or published is None:
            return None
        return policy.detected_violation_closes(tournament.rules, published)
    facts = facts or load_facts(tournament)
    if target.decision is not None:
        if policy.decision_deadline is None:
            return None
        return policy.decision_deadline(facts, facts.decisions[target.decision.index - 1])
    return policy.appeal_deadline(facts, _probe(target, timezone.now()))


def _probe(target: AppealTarget, filed_at: dt.datetime) -> F.Appeal:
    return F.Appeal(kind=target.kind, filed_at=filed_at, stage=target.tour.stage.key if target.tour else None,
                    tour=target.tour.number if target.tour else None, question=target.question)


def filed_in_time(tournament: Tournament, target: AppealTarget, now: dt.datetime,
                  facts: F.TournamentFacts | None = None) -> bool:
    """Whether an appeal on ``target`` filed at ``now`` is in time: the ruleset's one comparison where it has one
    (CHGK-18: before 00:00 of D+4, fractions of a second included), else at or before the last moment."""
    policy = rulesets.get(tournament.ruleset).appeal_policy
    if policy.appeal_in_time is not None and target.tour is not None:
        return policy.appeal_in_time(facts or load_facts(tournament), _probe(target, now))
    deadline = filing_deadline(tournament, target, facts)
    return deadline is None or now <= deadline


def verdict_given_late(appeal: Appeal) -> bool:
    """CHGK-18: a verdict given after the date the rules set (at or after 00:00 of D+10) stays marked "given late".

    Reads only the appeal's tour (with its stage) and the tournament's zone, not the whole tournament.
    """
    tournament = appeal.tournament
    late = rulesets.get(tournament.ruleset).appeal_policy.verdict_late
    tour = appeal.tour
    if late is None or tour is None or appeal.verdict is None or appeal.verdict_at is None:
        return False
    facts = F.TournamentFacts(
        slug=tournament.slug, name=tournament.name, ruleset=tournament.ruleset, timezone=tournament.timezone,
        settings=dict(tournament.settings), rules=dict(tournament.rules),
        stages=(F.Stage(key=tour.stage.key, tours=(F.Tour(number=tour.number, host=None, questions=tour.questions,
                                                          played_on=tour.played_on),)),))
    probe = F.Appeal(kind=appeal.kind, filed_at=appeal.filed_at, stage=tour.stage.key, tour=tour.number,
                     question=appeal.question, verdict=appeal.verdict, decided_at=appeal.verdict_at)
    return late(facts, probe)


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
    reason = refuse_to_file(user, tournament, team, now=now)
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
        if policy.detected_violation_closes is None or target.violation not in policy.detected_violations:
            raise AppealRefused(_("Only a violation the portal detected in a family league game can be appealed "
                                  "this way (FL-15, FL-19)."))
    elif target.decision is None:
        raise AppealRefused(_("A Mafia appeal is against a decision (GP-23, FL-19, CB-17)."))
    if target.game is not None and target.game.result_recorded_at is None:
        raise AppealRefused(_("Game %(number)d has no result yet: there is no violation to appeal (FL-19).")
                            % {"number": target.game.number})
    facts = load_facts(tournament) if target.game is None else None
    deadline = filing_deadline(tournament, target, facts)
    if deadline is not None and not filed_in_time(tournament, target, now, facts):
        raise AppealRefused(_("The deadline for this appeal was %(deadline)s (%(zone)s); it can no longer be filed.")
                            % {"deadline": moment_text(deadline, tournament.timezone, with_zone=False),
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
           now: dt.datetime | None = None, replacement: dict | None = None) -> Appeal:
    """Record the jury's verdict; an upheld appeal changes the facts and the table recomputes.

    ``replacement``: for ``partly`` on an appeal against a Mafia decision, the changed decision (an interchange
    decision object) that takes the appealed one's place (FL-19); stored as a ``Decision`` linked to the appeal.
    """
    tournament = appeal.tournament
    if not can_decide_appeals(user, tournament):
        raise AppealNotAllowed(_("Only the tournament's appeal jury decides this appeal."))
    if verdict not in Verdict.values:
        raise AppealRefused(_("Unknown verdict %(verdict)s.") % {"verdict": verdict})
    credited = list(credited or [])
    if appeal.kind == AppealKind.ACCEPT_ANSWER and verdict != Verdict.REJECTED:
        if not credited and appeal.team is not None:
            credited = [appeal.team]
    now = now or timezone.now()
    changed = _replacement(appeal, verdict, replacement, user, now)
    with transaction.atomic():
        locked = Appeal.objects.select_for_update(of=("self",)).select_related("stage").get(pk=appeal.pk)
        if locked.verdict is not None:
            raise AppealRefused(_("This appeal already has a verdict."))
        locked.verdict = verdict
        locked.verdict_reasons = reasons
        locked.verdict_at = now
        locked.save()
        if credited:
            locked.credited_teams.set(credited)
        if changed is not None:
            _store_replacement(locked, changed, user)
        version = Tournament.objects.filter(pk=tournament.pk).values_list("facts_version", flat=True).get()
        locked.standings_before = appeal_effects.before_verdict(locked, version)
        Appeal.objects.filter(pk=locked.pk).update(standings_before=locked.standings_before)
        transaction.on_commit(lambda: notify_decided(locked.pk))
    return locked


def _replacement(appeal: Appeal, verdict: str, replacement: dict | None, user,
                 now: dt.datetime) -> F.Decision | None:
    """The changed decision of a ``partly`` verdict on a Mafia decision, read and judged as the import would
    (interchange: Appeals ``replacement``; FL-19), in the appealed decision's place and with its number."""
    policy = rulesets.get(appeal.tournament.ruleset).appeal_policy
    if verdict == Verdict.PARTLY and policy.question_kinds:
        raise AppealRefused(_("A ChGK appeal is upheld or rejected; a partly upheld verdict is for a Mafia "
                              "decision."))
    if verdict == Verdict.PARTLY and appeal.kind == AppealKind.VIOLATION:
        raise AppealRefused(Problem("verdict", _(
            "A violation the portal detected (FL-15) has no decision to change: the curator upholds the appeal, "
            "which annuls the violation, or rejects it (FL-19).")))
    if verdict != Verdict.PARTLY or appeal.kind != AppealKind.DECISION or appeal.decision is None:
        if replacement:
            raise AppealRefused(Problem("replacement", _(
                "Only a partly upheld appeal against a decision records a changed decision (FL-19).")))
        return None
    if not isinstance(replacement, dict) or not replacement:
        raise AppealRefused(Problem("replacement", _(
            "A partly upheld appeal records the changed decision that replaces the appealed one (FL-19).")))
    data = {"decided_at": now.isoformat(), "by": user.get_username(), **replacement}
    index = appeal.decision.index
    reader = Reader()
    decision = parse_decision(reader, data, "replacement", index)
    if reader.problems or decision is None:
        raise AppealRefused(reader.problems)
    facts = load_facts(appeal.tournament)
    probe = dataclasses.replace(facts, appeals=(F.Appeal(kind="decision", filed_at=appeal.filed_at, decision=index,
                                                         verdict="partly", replacement=decision),))
    problems = replacement_problems(probe)
    if problems:
        raise AppealRefused([Problem(p.path.removeprefix("appeals[0]."), p.message) for p in problems])
    return decision


def _store_replacement(appeal: Appeal, d: F.Decision, user) -> Decision:
    tournament = appeal.tournament
    stage = Stage.objects.filter(tournament=tournament, key=d.stage).first() if d.stage else None
    teams = Team.objects.filter(tournament=tournament, name=d.team) if d.team else Team.objects.none()
    return Decision.objects.create(
        tournament=tournament, index=d.index, kind=d.kind, stage=stage,
        game=Game.objects.filter(stage=stage, number=d.game).first() if stage and d.game else None,
        code=d.code or "", outcome=d.outcome,
        team=(teams.filter(stage=stage).first() or teams.filter(stage__isnull=True).first()) if d.team else None,
        player=Player.objects.filter(nick=d.player).first() if d.player else None, order=list(d.order),
        reason=d.reason, decided_at=d.decided_at, published_at=d.published_at, by=d.by or "", text=d.text,
        author=user, replacement_for=appeal)


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
