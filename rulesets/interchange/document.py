"""A whole document: ``parse_document`` reads the top level and the tournament object, hands each part to its
reader (``teams``, ``games``, ``items``), and judges the facts it built (``references``, the ruleset's own
checks, the appeal windows of ``appeal_edges``)."""

from __future__ import annotations

import datetime as dt
import json
import zoneinfo
from typing import Any, NamedTuple

import rulesets
from rulesets import appeal_edges
from rulesets.base import RulesetError
from rulesets.facts import Appeal, Decision, Penalty, Stage, Team, TournamentFacts, Withdrawal
from rulesets.interchange.bounds import settings_problems, text_problems
from rulesets.interchange.games import _check_stage_order, _parse_stage
from rulesets.interchange.items import _parse_appeal, _parse_withdrawal, parse_decision, parse_penalty
from rulesets.interchange.limits import (
    FORMAT,
    MAX_ITEMS,
    MAX_TEAMS,
    MAX_TIMEZONE,
    MAX_TOURNAMENT_NAME,
    TOP_KEYS,
    TOURNAMENT_KEYS,
)
from rulesets.interchange.reader import Reader, _join
from rulesets.interchange.references import check_references, replacement_problems
from rulesets.interchange.teams import (
    _complete_families,
    _complete_players,
    _parse_families,
    _parse_players,
    _parse_teams,
)
from rulesets.messages import text as _
from rulesets.protocol import Ruleset
from rulesets.rules import frozen


def parse_document(document: Any) -> TournamentFacts:
    """Parse and validate a whole interchange document, or raise ``RulesetError``.

    Text that cannot be stored (``text_problems``) is refused before anything else. The whole-document check
    costs a quarter of a second at 150,000 seats, so a document whose games hold lists of seats is checked
    without them (``_clean_but_seats``) and each seat as it is read (``_plain_seat`` takes only storable
    text). Unless every seat was read that way and the document is accepted, the whole check runs before the
    answer, which is therefore the same.
    """
    seats = _clean_but_seats(document)
    if seats is None:
        _refuse_unstorable_text(document)
    r = Reader()
    try:
        facts = _parse_document(r, document)
    except RulesetError:
        if seats is not None:
            _refuse_unstorable_text(document)
        raise
    if seats is not None and r.clean_seats != seats:
        _refuse_unstorable_text(document)
    return facts


def _refuse_unstorable_text(document: Any) -> None:
    """Raise ``RulesetError`` with the ``text_problems`` of the document, if it has any."""
    text = text_problems(document)
    if text:
        raise RulesetError(text) from None


def _clean_but_seats(document: Any) -> int | None:
    """The number of seats of the document when every game of every stage holds a list of them and the document
    without those lists has no text ``text_problems`` would refuse (one encoding in C); None when the whole
    check must run first."""
    if not isinstance(document, dict) or not isinstance(document.get("stages"), list):
        return None
    stages, seats = [], 0
    for stage in document["stages"]:
        if not isinstance(stage, dict) or not isinstance(stage.get("games", []), list):
            return None
        games = []
        for game in stage.get("games", []):
            if not isinstance(game, dict) or not isinstance(game.get("seats", []), list):
                return None
            seats += len(game.get("seats", []))
            games.append({**game, "seats": []})
        stages.append({**stage, "games": games})
    try:
        text = json.dumps({**document, "stages": stages}, ensure_ascii=False, check_circular=False)
        text.encode("utf-8")
    except (UnicodeEncodeError, RecursionError, TypeError, ValueError):
        return None
    return seats if "\\u0000" not in text else None


class _Tournament(NamedTuple):
    """The fields of the document's ``tournament`` object, as read."""

    slug: str | None
    name: str | None
    key: str
    timezone: str
    starts_on: dt.date | None
    settings: dict[str, Any]


def _parse_document(r: Reader, document: Any) -> TournamentFacts:
    doc = r.obj(document, "", TOP_KEYS, {"format", "tournament"})
    if doc is None:
        raise RulesetError(r.problems)
    if doc.get("format") != FORMAT:
        r.fail("format", _("must be %(expected)s", expected=repr(FORMAT)))
    head = _parse_tournament(r, doc.get("tournament"))
    key = head.key
    ruleset = rulesets.get(key)
    for problem in ruleset.validate_settings(head.settings):
        r.fail(_join("tournament.settings", problem.path), problem.message)
    settings = {**ruleset.default_settings, **head.settings}

    players = _parse_players(r, doc.get("players"))
    families = _parse_families(r, doc.get("families"))
    teams, stages = _parse_teams_and_stages(r, doc, key)
    penalties, decisions, appeals, withdrawals = _parse_items(r, doc, key)

    all_teams = list(teams) + [t for s in stages for t in s.teams]
    players = _complete_players(r, players, all_teams)
    families = _complete_families(families, players, teams)
    if r.problems:
        raise RulesetError(r.problems)
    facts = TournamentFacts(
        slug=head.slug or "",
        name=head.name or "",
        ruleset=key,
        timezone=head.timezone,
        starts_on=head.starts_on,
        settings=settings,
        rules=frozen(ruleset.rule_constants),  # a document is read, and imported, under the current rules
        players=tuple(players),
        families=tuple(families),
        teams=tuple(teams),
        stages=tuple(stages),
        penalties=tuple(p for p in penalties if p is not None),
        decisions=tuple(d for d in decisions if d is not None),
        appeals=tuple(a for a in appeals if a is not None),
        withdrawals=tuple(w for w in withdrawals if w is not None),
    )
    _judge(facts, ruleset)
    return facts


def _parse_tournament(r: Reader, value: Any) -> _Tournament:
    """The ``tournament`` object; ``RulesetError`` when it is missing or names no known ruleset (nothing further
    can be read without one)."""
    tour_doc = r.obj(value, "tournament", TOURNAMENT_KEYS, {"slug", "name", "ruleset"})
    if tour_doc is None:
        raise RulesetError(r.problems)
    slug = r.string(tour_doc.get("slug"), "tournament.slug")
    if slug is not None and (len(slug) > 100 or not all(c.isalnum() or c in "-_" for c in slug)):
        r.fail("tournament.slug", _("may hold only letters, digits, '-' and '_' (at most 100)"))
    name = r.string(tour_doc.get("name"), "tournament.name", limit=MAX_TOURNAMENT_NAME)
    key = r.choice(tour_doc.get("ruleset"), "tournament.ruleset", rulesets.keys())
    timezone = r.string(tour_doc.get("timezone"), "tournament.timezone", required=False,
                        limit=MAX_TIMEZONE) or "Europe/Moscow"
    try:
        zoneinfo.ZoneInfo(timezone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        r.fail("tournament.timezone", _("%(value)s is not a known time zone", value=repr(timezone)))
    starts_on = r.date(tour_doc.get("starts_on"), "tournament.starts_on")
    raw_settings = _bounded_settings(r, tour_doc.get("settings"))
    if key is None:
        raise RulesetError(r.problems)
    return _Tournament(slug, name, key, timezone, starts_on, raw_settings)


def _bounded_settings(r: Reader, value: Any) -> dict[str, Any]:
    """``tournament.settings`` as given, or ``{}`` (refused) when it is not an object or is out of its bounds
    (``settings_problems``)."""
    raw_settings = value or {}
    if not isinstance(raw_settings, dict):
        r.fail("tournament.settings", _("must be an object"))
        raw_settings = {}
    bounds = settings_problems(raw_settings)
    if bounds:
        r.problems += bounds
        raw_settings = {}
    return raw_settings


def _parse_teams_and_stages(r: Reader, doc: dict, key: str) -> tuple[list[Team], list[Stage]]:
    """The top-level teams (a ruleset whose teams are drawn per stage lists them in each stage, GP-8) and the
    stages in order of play."""
    teams: list[Team] = []
    ruleset = rulesets.get(key)
    if ruleset.teams_per_stage:
        if doc.get("teams"):
            r.fail("teams", _("%(ruleset)s teams are drawn per stage: list them in each stage's teams", ruleset=key))
    else:
        teams = _parse_teams(r, doc.get("teams"), "teams", key)
    raw_stages = r.lst(doc.get("stages"), "stages", len(ruleset.stage_keys))
    stages = [_parse_stage(r, s, f"stages[{i}]", key) for i, s in enumerate(raw_stages)]
    kept = [s for s in stages if s is not None]
    _check_stage_order(r, kept, key)
    return teams, kept


def _parse_items(r: Reader, doc: dict, key: str) -> tuple[list[Penalty | None], list[Decision | None],
                                                          list[Appeal | None], list[Withdrawal | None]]:
    """The penalties, decisions (numbered from 1), appeals and withdrawals; None where an item is refused."""
    penalties = [parse_penalty(r, p, f"penalties[{i}]")
                 for i, p in enumerate(r.lst(doc.get("penalties"), "penalties", MAX_ITEMS))]
    decisions = [parse_decision(r, d, f"decisions[{i}]", i + 1)
                 for i, d in enumerate(r.lst(doc.get("decisions"), "decisions", MAX_ITEMS))]
    appeals = [_parse_appeal(r, a, f"appeals[{i}]", key)
               for i, a in enumerate(r.lst(doc.get("appeals"), "appeals", MAX_ITEMS))]
    withdrawals = [_parse_withdrawal(r, w, f"withdrawals[{i}]")
                   for i, w in enumerate(r.lst(doc.get("withdrawals"), "withdrawals", MAX_TEAMS))]
    return penalties, decisions, appeals, withdrawals


def _judge(facts: TournamentFacts, ruleset: Ruleset) -> None:
    """Raise ``RulesetError`` with what the references, the ruleset and the appeal windows refuse of the facts."""
    problems = check_references(facts) + list(ruleset.validate(facts))
    problems += replacement_problems(facts)
    problems += appeal_edges.document_problems(facts, ruleset.appeal_policy)  # roles.md, as the portal files
    if problems:
        raise RulesetError(problems)
