"""The document's items: penalties, decisions, appeals (with a ``partly`` verdict's replacement, FL-19) and
withdrawals."""

from __future__ import annotations

from typing import Any

import rulesets
from rulesets.facts import OUTCOMES, Appeal, Decision, Penalty, Withdrawal
from rulesets.interchange.limits import (
    APPEAL_KEYS,
    DECISION_KEYS,
    DECISION_KINDS,
    MAX_DECISION_CODE,
    MAX_ITEMS,
    MAX_ORDER,
    MAX_PENALTY_CODE,
    MAX_PENALTY_KIND,
    MAX_QUESTIONS,
    MAX_SIGNATURE,
    MAX_TEXT,
    PENALTY_KEYS,
    VERDICTS,
    WITHDRAWAL_KEYS,
)
from rulesets.interchange.reader import Reader
from rulesets.messages import text as _

_NAMES_ITS_GAME = {"technical_result": _("a technical_result decision names its game"),
                   "replay": _("a replay decision names its game")}


def parse_penalty(r: Reader, raw: Any, path: str) -> Penalty | None:
    """A judge's penalty: positive points, deducted; the kinds the portal detects from the seats are refused
    (FL-15). None when refused."""
    p = r.obj(raw, path, PENALTY_KEYS, {"kind", "points"})
    if p is None:
        return None
    points = r.decimal(p.get("points"), f"{path}.points", required=True)
    if points is not None and points <= 0:
        r.fail(f"{path}.points", _("penalty points are positive (they are deducted)"))
    kind = r.string(p.get("kind"), f"{path}.kind", limit=MAX_PENALTY_KIND)
    if kind in ("no_show", "ineligible_player", "two_players", "foreign_player"):
        r.fail(f"{path}.kind", _("%(kind)s is detected by the portal from the seats (FL-15); do not import it",
                                   kind=kind))
    if points is None or kind is None:
        return None
    return Penalty(stage=r.string(p.get("stage"), f"{path}.stage", required=False),
                   team=r.string(p.get("team"), f"{path}.team", required=False),
                   kind=kind, points=points,
                   game=r.integer(p.get("game"), f"{path}.game", minimum=1),
                   player=r.string(p.get("player"), f"{path}.player", required=False),
                   code=r.string(p.get("code"), f"{path}.code", required=False, limit=MAX_PENALTY_CODE),
                   decided_at=r.datetime(p.get("decided_at"), f"{path}.decided_at"),
                   text=r.string(p.get("text"), f"{path}.text", required=False, allow_empty=True,
                                 limit=MAX_TEXT) or "",
                   published_at=r.datetime(p.get("published_at"), f"{path}.published_at"))


def parse_decision(r: Reader, raw: Any, path: str, index: int) -> Decision | None:
    """A judge's or committee's decision, numbered ``index`` (1-based, as appeals name it); what its kind needs is
    required (a game, a team or player, an order). None when refused."""
    d = r.obj(raw, path, DECISION_KEYS, {"kind"})
    if d is None:
        return None
    kind = r.choice(d.get("kind"), f"{path}.kind", DECISION_KINDS)
    outcome = r.choice(d.get("outcome"), f"{path}.outcome", OUTCOMES, required=kind == "technical_result")
    if kind in ("technical_result", "replay") and d.get("game") is None:
        r.fail(f"{path}.game", _NAMES_ITS_GAME[kind])
    if kind == "disqualification" and d.get("team") is None and d.get("player") is None:
        r.fail(path, _("a disqualification names a team or a player"))
    if kind == "tie_break" and not d.get("order"):
        r.fail(f"{path}.order", _("a tie_break decision gives the order of the tied rows"))
    if kind == "qualify" and d.get("player") is None:
        r.fail(f"{path}.player", _("a qualify decision names the player"))
    decided_at = r.datetime(d.get("decided_at"), f"{path}.decided_at")
    published_at = r.datetime(d.get("published_at"), f"{path}.published_at") or decided_at
    if kind is None:
        return None
    return Decision(index=index, kind=kind,
                    stage=r.string(d.get("stage"), f"{path}.stage", required=False),
                    game=r.integer(d.get("game"), f"{path}.game", minimum=1),
                    code=r.string(d.get("code"), f"{path}.code", required=False, limit=MAX_DECISION_CODE),
                    outcome=outcome,
                    team=r.string(d.get("team"), f"{path}.team", required=False),
                    player=r.string(d.get("player"), f"{path}.player", required=False),
                    order=r.names(d.get("order"), f"{path}.order", MAX_ORDER),
                    reason=r.string(d.get("reason"), f"{path}.reason", required=False, allow_empty=True,
                                    limit=MAX_TEXT),
                    decided_at=decided_at, published_at=published_at,
                    by=r.string(d.get("by"), f"{path}.by", required=False, limit=MAX_SIGNATURE),
                    text=r.string(d.get("text"), f"{path}.text", required=False, allow_empty=True,
                                  limit=MAX_TEXT) or "")


def _parse_appeal(r: Reader, raw: Any, path: str, key: str) -> Appeal | None:
    """An appeal of the ruleset ``key``: against a ChGK question (CHGK-20, CHGK-22), a Mafia decision or a
    penalty (FL-19); None when refused."""
    a = r.obj(raw, path, APPEAL_KEYS, {"kind", "filed_at"})
    if a is None:
        return None
    kind = r.choice(a.get("kind"), f"{path}.kind", _appeal_kinds(key))
    verdict = r.choice(a.get("verdict"), f"{path}.verdict", VERDICTS, required=False)
    filed_at = r.datetime(a.get("filed_at"), f"{path}.filed_at", required=True)
    credited = r.names(a.get("credited_teams"), f"{path}.credited_teams")
    _check_appeal_target(r, a, path, kind, verdict, credited)
    decision = r.integer(a.get("decision"), f"{path}.decision", minimum=1, maximum=MAX_ITEMS)
    penalty = r.integer(a.get("penalty"), f"{path}.penalty", minimum=1, maximum=MAX_ITEMS)
    replacement = _parse_replacement(r, a, path, kind, verdict, decision)
    decided_at = r.datetime(a.get("decided_at"), f"{path}.decided_at")
    if decided_at is not None and verdict is None:
        r.fail(f"{path}.decided_at", _("a pending appeal has no verdict time"))
    if kind is None or filed_at is None:
        return None
    return Appeal(kind=kind, filed_at=filed_at,
                  stage=r.string(a.get("stage"), f"{path}.stage", required=False),
                  tour=r.integer(a.get("tour"), f"{path}.tour", minimum=1),
                  question=r.integer(a.get("question"), f"{path}.question", minimum=1, maximum=MAX_QUESTIONS),
                  team=r.string(a.get("team"), f"{path}.team", required=False),
                  answer=r.string(a.get("answer"), f"{path}.answer", required=False, allow_empty=True,
                                  limit=MAX_TEXT),
                  verdict=verdict, credited_teams=credited, decision=decision,
                  appellant=r.string(a.get("appellant"), f"{path}.appellant", required=False, limit=MAX_SIGNATURE),
                  replacement=replacement, decided_at=decided_at, penalty=penalty)


def _appeal_kinds(key: str) -> tuple[str, ...]:
    """The kinds of appeal the ruleset ``key`` hears."""
    policy = rulesets.get(key).appeal_policy
    if policy.question_kinds:
        return policy.question_kinds  # CHGK-19: appeals on a tour's questions
    if policy.penalty_deadline is not None:
        return ("decision", "penalty")  # FL-19: a judge's penalty is appealable like any decision (roles.md)
    return ("decision",)


def _check_appeal_target(r: Reader, a: dict, path: str, kind: str | None, verdict: str | None,
                         credited: tuple[str, ...]) -> None:
    """An appeal names what it is against, as its kind needs: a tour's question (CHGK-20, CHGK-22), a decision,
    or a penalty (FL-19)."""
    if kind == "accept_answer" and verdict == "accepted" and not credited:
        r.fail(f"{path}.credited_teams", _("an accepted answer names the teams to credit (CHGK-22)"))
    if kind in ("removal", "accept_answer"):
        for needed in ("tour", "question", "team"):
            if a.get(needed) is None:
                r.fail(f"{path}.{needed}", _("is required for a ChGK appeal (CHGK-20)"))
    if kind == "decision" and a.get("decision") is None:
        r.fail(f"{path}.decision", _("a Mafia appeal names the decision it is against (its 1-based index)"))
    if kind == "penalty" and a.get("penalty") is None:
        r.fail(f"{path}.penalty", _("a penalty appeal names the penalty it is against (its 1-based index in "
                                    "penalties, FL-19)"))
    if kind is not None and kind != "penalty" and a.get("penalty") is not None:
        r.fail(f"{path}.penalty", _("only a penalty appeal (kind penalty) names a penalty (FL-19)"))
    if kind == "penalty" and a.get("decision") is not None:
        r.fail(f"{path}.decision", _("a penalty appeal names its penalty, not a decision (FL-19)"))


def _parse_replacement(r: Reader, a: dict, path: str, kind: str | None, verdict: str | None,
                       decision: int | None) -> Decision | Penalty | None:
    """The changed decision or penalty a ``partly`` verdict records in place of the appealed one (FL-19)."""
    replacement: Decision | Penalty | None = None
    if verdict == "partly" and kind not in ("decision", "penalty"):
        r.fail(f"{path}.verdict", _("partly is a verdict on a Mafia decision only"))
    elif verdict == "partly" and a.get("replacement") is None and kind == "penalty":
        r.fail(f"{path}.replacement", _("a partly upheld appeal against a penalty records the changed penalty that "
                                        "replaces the appealed one (FL-19)"))
    elif verdict == "partly" and a.get("replacement") is None:
        r.fail(f"{path}.replacement", _("a partly upheld appeal records the changed decision that replaces the "
                                        "appealed one (FL-19)"))
    elif verdict == "partly" and kind == "penalty":
        replacement = parse_penalty(r, a.get("replacement"), f"{path}.replacement")
    elif verdict == "partly":
        replacement = parse_decision(r, a.get("replacement"), f"{path}.replacement", decision or 0)
    elif a.get("replacement") is not None:
        r.fail(f"{path}.replacement", _("only a partly upheld appeal carries a replacement"))
    return replacement


def _parse_withdrawal(r: Reader, raw: Any, path: str) -> Withdrawal | None:
    w = r.obj(raw, path, WITHDRAWAL_KEYS, {"team", "at"})
    if w is None:
        return None
    team = r.string(w.get("team"), f"{path}.team")
    at = r.datetime(w.get("at"), f"{path}.at", required=True)
    if team is None or at is None:
        return None
    return Withdrawal(team=team, at=at)
