"""The appeal workflow: filing before the deadline, the jury's verdict, its effect on the table.

Deadlines, deciders and what may be appealed come from the ruleset's
``appeal_policy`` (GP-23, CHGK-18..CHGK-20, FL-19, CB-17), computed in the
tournament's time zone. The edges of ``spec/roles.md`` ("Appeals at their
edges": not before the tour or the publication, one appeal per team, target
and kind, none on a question whose removal was upheld, only a team that played
the tour) are judged by ``rulesets.appeal_edges`` with the new appeal after
the stored ones, the same checks the import makes; the form and the API both
file here. A refused appeal stores nothing. A filed appeal is committed before
any notification is sent, so nothing filed in time is lost. A verdict is a
fact: the standings recompute through the normal pipeline, and the appeal
keeps the rows of the table that moved.
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
from accounts.models import Player, Role, TournamentRole
from accounts.permissions import appeal_deciders, appeal_refusal, appeal_stage_key, can_decide_appeal, refuse_to_file
from accounts.zones import moment_text
from rulesets import appeal_edges
from rulesets import facts as F
from rulesets.errors import Invalid, NotAllowed, Problem
from rulesets.interchange import Reader, parse_decision, parse_penalty, replacement_problems
from scoring import appeal_effects
from tournaments import webhooks
from tournaments.labels import PENALTY_KINDS
from tournaments.loader import load_facts
from tournaments.models import Appeal, AppealKind, Decision, Game, Penalty, Stage, Team, Tour, Tournament, Verdict

log = logging.getLogger(__name__)


class AppealRefused(Invalid):
    """The appeal or verdict was refused; the message says why (with the rule)."""


class AppealNotAllowed(AppealRefused, NotAllowed):
    """The acting user may not decide this appeal."""


@dataclass(frozen=True)
class AppealTarget:
    """What an appeal is about: a ChGK question, a Mafia decision, a judge's penalty (FL-19) or a detected
    violation (FL-15, FL-19)."""

    kind: str
    tour: Tour | None = None
    question: int | None = None
    decision: Decision | None = None
    game: Game | None = None
    violation: str = ""
    player: Player | None = None
    penalty: Penalty | None = None


def penalty_index(penalty: Penalty) -> int:
    """The penalty's 1-based index in its tournament's facts (the loader's order; changed penalties left out)."""
    ids = list(Penalty.objects.filter(tournament_id=penalty.tournament_id, replacement_for__isnull=True).order_by(
        "order", "id").values_list("id", flat=True))
    return ids.index(penalty.pk) + 1


def filing_deadline(tournament: Tournament, target: AppealTarget,
                    facts: F.TournamentFacts | None = None) -> dt.datetime | None:
    """The last moment an appeal on ``target`` may be filed, per the tournament's ruleset."""
    policy = rulesets.get(tournament.ruleset).appeal_policy
    if target.penalty is not None:
        # FL-19: a judge's penalty within 72 hours of its publication (published_at, defaulting to decided_at)
        if policy.penalty_deadline is None:
            return None
        facts = facts or load_facts(tournament)
        return policy.penalty_deadline(facts, facts.penalties[penalty_index(target.penalty) - 1])
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
    late = rulesets.get(appeal.tournament.ruleset).appeal_policy.verdict_late
    if late is None or appeal.verdict is None or appeal.verdict_at is None:
        return False
    probed = _tour_probe(appeal)
    return probed is not None and late(*probed)


def _tour_probe(appeal: Appeal) -> tuple[F.TournamentFacts, F.Appeal] | None:
    """The facts of the appeal's tour only (with its stage and the tournament's zone and rules) and the appeal."""
    tournament, tour = appeal.tournament, appeal.tour
    if tour is None:
        return None
    facts = F.TournamentFacts(
        slug=tournament.slug, name=tournament.name, ruleset=tournament.ruleset, timezone=tournament.timezone,
        settings=dict(tournament.settings), rules=dict(tournament.rules),
        stages=(F.Stage(key=tour.stage.key, tours=(F.Tour(number=tour.number, host=None, questions=tour.questions,
                                                          played_on=tour.played_on),)),))
    probe = F.Appeal(kind=appeal.kind, filed_at=appeal.filed_at, stage=tour.stage.key, tour=tour.number,
                     question=appeal.question, verdict=appeal.verdict, decided_at=appeal.verdict_at)
    return facts, probe


def verdict_overdue(appeal: Appeal, now: dt.datetime | None = None) -> bool:
    """CHGK-18: a pending appeal's verdict is overdue from 00:00 of D+10 in the tournament's zone, not one instant
    earlier (the ruleset's ``verdict_overdue``, not a comparison with 23:59 of D+9). False where the rules set no
    date. Reads only the appeal's tour (with its stage) and the tournament."""
    overdue = rulesets.get(appeal.tournament.ruleset).appeal_policy.verdict_overdue
    probed = _tour_probe(appeal) if overdue is not None and appeal.verdict is None else None
    if probed is None:
        return False
    return overdue(*probed, now or timezone.now())


def question_removed_by(appeal: Appeal) -> Appeal | None:
    """CHGK-21: the upheld removal of the appeal's question (another appeal), if there is one: the question counts
    for nobody, so this appeal changes nothing; it is shown as "question removed" and stays for the jury."""
    if appeal.tour_id is None or appeal.question is None:
        return None
    return (Appeal.objects.filter(tour_id=appeal.tour_id, question=appeal.question, kind=AppealKind.REMOVAL,
                                  verdict=Verdict.ACCEPTED).exclude(pk=appeal.pk).order_by("verdict_at", "order")
            .first())


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
    """File an appeal for ``team``; refused (nothing stored) after the deadline, before the tour or the
    publication, as a second one of the team on the same target and kind, on a question whose removal was upheld,
    or for someone not on the appellant's side."""
    now = now or timezone.now()
    reason = refuse_to_file(user, tournament, team, now=now)
    if reason:
        raise AppealNotAllowed(reason)  # who may file is a permission (403 naming the rule), not the input's fault
    policy = rulesets.get(tournament.ruleset).appeal_policy
    _check_target(policy, target)
    with transaction.atomic():
        # one filing of the tournament at a time: the edges below see every appeal stored before this one
        Tournament.objects.select_for_update().filter(pk=tournament.pk).values_list("pk", flat=True).first()
        facts = load_facts(tournament) if target.game is None else None
        deadline = filing_deadline(tournament, target, facts)
        if deadline is not None and not filed_in_time(tournament, target, now, facts):
            raise AppealRefused(_("The deadline for this appeal was %(deadline)s (%(zone)s); it can no longer be "
                                  "filed (%(rule)s).") % {
                "deadline": moment_text(deadline, tournament.timezone, with_zone=False), "zone": tournament.timezone,
                "rule": policy.rule})
        who = appellant or (team.name if team else "")
        if facts is None:
            _refuse_violation_edges(tournament, target, team, now)
        else:
            _refuse_at_edges(tournament, policy, facts, target, team, who, now)
        order = (Appeal.objects.filter(tournament=tournament).order_by("-order").values_list("order", flat=True)
                 .first() or 0) + 1
        appeal = Appeal.objects.create(
            tournament=tournament, order=order, kind=target.kind, stage=_stage_of(target),
            tour=target.tour, question=target.question, team=team, answer=answer or None, argument=argument,
            decision=target.decision, penalty=target.penalty, appellant=who or None, filed_at=now,
            filed_by=user, game=target.game, violation=target.violation, violating_player=target.player,
        )
        webhooks.appeal_event(tournament, appeal, webhooks.WebhookEvent.APPEAL_FILED)
        transaction.on_commit(lambda: notify_filed(appeal.pk))
    return appeal


def _check_target(policy, target: AppealTarget) -> None:
    """What may be appealed under the ruleset (CHGK-19, FL-15, FL-19, GP-23, CB-17)."""
    if policy.question_kinds:
        if target.kind not in policy.question_kinds or target.tour is None:
            raise AppealRefused(_("A ChGK appeal is a removal or an accepted answer on a tour's question (CHGK-19)."))
        if not 1 <= (target.question or 0) <= target.tour.questions:
            raise AppealRefused(_("Tour %(tour)d has no question %(question)s.") % {
                "tour": target.tour.number, "question": target.question})
    elif target.penalty is not None:
        if policy.penalty_deadline is None or target.kind != AppealKind.PENALTY:
            raise AppealRefused(_("A judge's penalty is appealed in a family league (FL-19); here an appeal is against "
                                  "a decision (GP-23, CB-17)."))
        if target.penalty.replacement_for_id is not None:
            raise AppealRefused(_("This penalty is the one a verdict put in place of an appealed penalty (FL-19); "
                                  "it is not appealed again."))
    elif target.game is not None:
        if policy.detected_violation_closes is None or target.violation not in policy.detected_violations:
            raise AppealRefused(_("Only a violation the portal detected in a family league game can be appealed "
                                  "this way (FL-15, FL-19)."))
    elif target.decision is None:
        raise AppealRefused(_("A Mafia appeal is against a decision (GP-23, FL-19, CB-17)."))
    if target.game is not None and target.game.result_recorded_at is None:
        raise AppealRefused(_("Game %(number)d has no result yet: there is no violation to appeal (FL-19).")
                            % {"number": target.game.number})


def _stage_of(target: AppealTarget) -> Stage | None:
    for owner in (target.tour, target.decision, target.penalty, target.game):
        if owner is not None:
            return owner.stage
    return None


def _earlier_text(appeal_order: int, filed_at: dt.datetime, zone: str) -> str:
    return _("appeal no. %(order)s, filed %(filed)s") % {"order": appeal_order,
                                                        "filed": moment_text(filed_at, zone)}


def _refuse_at_edges(tournament: Tournament, policy, facts: F.TournamentFacts, target: AppealTarget,
                     team: Team | None, who: str, now: dt.datetime) -> None:
    """The edges of ``roles.md`` for a new appeal after the stored ones (``rulesets.appeal_edges``, the import's
    checks too); every time in the tournament's zone, the earlier appeal by its number."""
    probe = F.Appeal(kind=target.kind, filed_at=now, stage=_stage_of(target).key if _stage_of(target) else None,
                     tour=target.tour.number if target.tour else None, question=target.question,
                     team=team.name if team else None, appellant=who or None,
                     decision=target.decision.index if target.decision else None,
                     penalty=penalty_index(target.penalty) if target.penalty else None)
    probed = dataclasses.replace(facts, appeals=(*facts.appeals, probe))
    stored = list(Appeal.objects.filter(tournament=tournament).order_by("order", "id").values_list(
        "order", "filed_at"))
    zone = tournament.timezone

    def earlier(index: int) -> str:
        if index >= len(stored):  # pragma: no cover - the facts and the rows are read in one transaction
            return appeal_edges.position(index)
        order, filed_at = stored[index]
        return _earlier_text(order, filed_at, zone)

    found = appeal_edges.edges(probed, len(facts.appeals), policy, moment=lambda m: moment_text(m, zone),
                               earlier=earlier)
    if found:
        raise AppealRefused([edge.message for edge in found])


def _refuse_violation_edges(tournament: Tournament, target: AppealTarget, team: Team | None,
                            now: dt.datetime) -> None:
    """The same edges for a violation the portal detected (FL-15; portal only, not in the interchange): not before
    the result that shows it was published, one appeal per team and violation (FL-19)."""
    game, zone = target.game, tournament.timezone
    player = target.player.nick if target.player is not None else None
    published = game.violation_published_at(None, target.violation, player)
    if published is not None and now < published:
        raise AppealRefused(_("Filed %(filed)s, before the result of game %(number)s that shows the violation was "
                              "published at %(published)s: no appeal before its publication (FL-19).") % {
            "filed": moment_text(now, zone), "number": game.number, "published": moment_text(published, zone)})
    first = Appeal.objects.filter(tournament=tournament, kind=AppealKind.VIOLATION, game=game,
                                  violation=target.violation, violating_player=target.player, team=team).order_by(
        "order", "id").values_list("order", "filed_at").first()
    if first is not None:
        raise AppealRefused(_("%(team)s has already appealed the violation %(violation)s of game %(number)s: "
                              "%(earlier)s; one appeal per team and violation (FL-19).") % {
            "team": team.name if team else "—", "violation": PENALTY_KINDS.get(target.violation, target.violation),
            "number": game.number, "earlier": _earlier_text(first[0], first[1], zone)})


def decide(appeal: Appeal, user, verdict: str, *, reasons: str = "", credited: list[Team] | None = None,
           now: dt.datetime | None = None, replacement: dict | None = None) -> Appeal:
    """Record the jury's verdict; an upheld appeal changes the facts and the table recomputes.

    ``replacement``: for ``partly`` on an appeal against a Mafia decision, the changed decision (an interchange
    decision object) that takes the appealed one's place (FL-19); stored as a ``Decision`` linked to the appeal.
    On an appeal against a judge's penalty, the changed penalty (an interchange penalty object; its stage, game,
    team and player are the appealed penalty's unless given), stored as a ``Penalty`` linked to the appeal; an
    accepted one annuls the penalty (FL-19, ``roles.md``).
    """
    tournament = appeal.tournament
    if not can_decide_appeal(user, appeal):
        raise AppealNotAllowed(appeal_refusal(tournament))
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
        if isinstance(changed, F.Penalty):
            _store_changed_penalty(locked, changed)
        elif changed is not None:
            _store_replacement(locked, changed, user)
        version = Tournament.objects.filter(pk=tournament.pk).values_list("facts_version", flat=True).get()
        locked.standings_before = appeal_effects.before_verdict(locked, version)
        Appeal.objects.filter(pk=locked.pk).update(standings_before=locked.standings_before)
        webhooks.appeal_event(tournament, locked, webhooks.WebhookEvent.APPEAL_DECIDED)
        transaction.on_commit(lambda: notify_decided(locked.pk))
    return locked


def _replacement(appeal: Appeal, verdict: str, replacement: dict | None, user,
                 now: dt.datetime) -> F.Decision | F.Penalty | None:
    """The changed decision of a ``partly`` verdict on a Mafia decision, read and judged as the import would
    (interchange: Appeals ``replacement``; FL-19), in the appealed decision's place and with its number; on an
    appeal against a penalty, the changed penalty."""
    policy = rulesets.get(appeal.tournament.ruleset).appeal_policy
    if verdict == Verdict.PARTLY and policy.question_kinds:
        raise AppealRefused(_("A ChGK appeal is upheld or rejected; a partly upheld verdict is for a Mafia "
                              "decision."))
    if verdict == Verdict.PARTLY and appeal.kind == AppealKind.VIOLATION:
        raise AppealRefused(Problem("verdict", _(
            "A violation the portal detected (FL-15) has no decision to change: the curator upholds the appeal, "
            "which annuls the violation, or rejects it (FL-19).")))
    if appeal.penalty_id is not None:
        return _changed_penalty(appeal, verdict, replacement, now)
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


def _changed_penalty(appeal: Appeal, verdict: str, replacement: dict | None, now: dt.datetime) -> F.Penalty | None:
    """FL-19: the changed penalty of a ``partly`` verdict on a judge's penalty, read and judged as the import
    would (interchange: Appeals ``replacement``, a penalty object), in the appealed penalty's place."""
    if verdict != Verdict.PARTLY:
        if replacement:
            raise AppealRefused(Problem("replacement", _(
                "Only a partly upheld appeal against a penalty records a changed penalty (FL-19).")))
        return None
    if not isinstance(replacement, dict) or not replacement:
        raise AppealRefused(Problem("replacement", _(
            "A partly upheld appeal against a penalty records the changed penalty that replaces the appealed one "
            "(FL-19).")))
    penalty = appeal.penalty
    data = {key: value for key, value in {
        "stage": penalty.stage.key if penalty.stage_id else None,
        "game": penalty.game.number if penalty.game_id else None,
        "team": penalty.team.name if penalty.team_id else None,
        "player": penalty.player.nick if penalty.player_id else None,
        "kind": penalty.kind, "code": penalty.code or None, "decided_at": now.isoformat()}.items()
        if value is not None}
    data.update(replacement)
    reader = Reader()
    changed = parse_penalty(reader, data, "replacement")
    if reader.problems or changed is None:
        raise AppealRefused(reader.problems)
    facts = load_facts(appeal.tournament)
    probe = dataclasses.replace(facts, appeals=(F.Appeal(kind="penalty", filed_at=appeal.filed_at,
                                                         penalty=penalty_index(penalty), verdict="partly",
                                                         replacement=changed),))
    problems = replacement_problems(probe)
    if problems:
        raise AppealRefused([Problem(p.path.removeprefix("appeals[0]."), p.message) for p in problems])
    return changed


def _store_changed_penalty(appeal: Appeal, p: F.Penalty) -> Penalty:
    tournament, appealed = appeal.tournament, appeal.penalty
    stage = Stage.objects.filter(tournament=tournament, key=p.stage).first() if p.stage else None
    teams = Team.objects.filter(tournament=tournament, name=p.team) if p.team else Team.objects.none()
    return Penalty.objects.create(
        tournament=tournament, order=appealed.order, stage=stage,
        game=Game.objects.filter(stage=stage, number=p.game).first() if stage and p.game else None,
        team=(teams.filter(stage=stage).first() or teams.filter(stage__isnull=True).first()) if p.team else None,
        player=Player.objects.filter(nick=p.player).first() if p.player else None, kind=p.kind, code=p.code or "",
        points=p.points, decided_at=p.decided_at, published_at=p.published_at, text=p.text, replacement_for=appeal)


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


def jury_emails(tournament: Tournament, appeal: Appeal | None = None) -> list[str]:
    """The addresses of the tournament's deciders; of ``appeal``'s only, when given (a CB judge decides the
    appeals of the stages the role names, ``accounts.permissions.can_decide_appeal``)."""
    roles = rulesets_deciders(tournament)
    stage = appeal_stage_key(appeal) if appeal is not None else None
    return sorted({email for email, role, stages in TournamentRole.objects.filter(
        tournament=tournament, role__in=roles).values_list("user__email", "role", "stages")
        if email and (appeal is None or role != Role.JUDGE or not stages or stage in stages)})


def rulesets_deciders(tournament: Tournament) -> tuple[str, ...]:
    return appeal_deciders(tournament.ruleset)


def notify_filed(appeal_id: int) -> None:
    """Tell the deciders of a new appeal, and its filer that it was filed. Two mails: the jury's names neither the
    appealing team nor the filer, whose address is not among its recipients either (CHGK-20)."""
    appeal = Appeal.objects.select_related("tournament", "filed_by").get(pk=appeal_id)
    tournament = appeal.tournament
    subject = _("Appeal filed: %(tournament)s") % {"tournament": tournament.name}
    body = _("An appeal (%(kind)s) was filed at %(at)s.") % {"kind": appeal.get_kind_display(),
                                                             "at": moment_text(appeal.filed_at, tournament.timezone)}
    filer = _filer_email(appeal)
    _send(subject, body, [e for e in jury_emails(tournament, appeal) if e != filer])
    if filer:
        _send(subject, body, [filer])


def notify_decided(appeal_id: int) -> None:
    appeal = Appeal.objects.select_related("tournament", "filed_by").get(pk=appeal_id)
    subject = _("Verdict on your appeal: %(tournament)s") % {"tournament": appeal.tournament.name}
    body = _("Verdict: %(verdict)s. %(reasons)s") % {"verdict": appeal.get_verdict_display(),
                                                     "reasons": appeal.verdict_reasons}
    filer = _filer_email(appeal)
    _send(subject, body, [e for e in jury_emails(appeal.tournament, appeal) if e != filer])
    if filer:
        _send(subject, body, [filer])


def _filer_email(appeal: Appeal) -> str:
    return appeal.filed_by.email if appeal.filed_by is not None and appeal.filed_by.email else ""


def _send(subject: str, body: str, recipients: list[str]) -> None:
    if not recipients:
        return
    try:
        send_mail(subject, body, None, recipients)
    except Exception:  # noqa: BLE001 - the appeal is stored; a mail failure must not lose it
        log.exception("could not send appeal notification to %s", recipients)
