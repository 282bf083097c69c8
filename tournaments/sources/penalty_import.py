"""A penalty file into a tournament: the judges' penalties recorded, the no-shows as the rules read them.

Each line (``tournaments.sources.penalty_file``) names the site's game: it is the tournament's game that links to
that log, else the game the stage list places it at (``tournaments.sources.stage_list``: the n-th game of the
lines that go into a stage is its game n). Then, as the family league reads a penalty (``spec/family_league.md``):

- a judge's penalty (``штраф`` or any other reason, FL-18) is recorded with its points, its reason as the text,
  on the game, the clan and the player (``tournaments.commands.record_penalty``); the same penalty already
  recorded is not recorded twice;
- a no-show (``неявка``) is not a penalty anybody records: the portal detects it from the game itself. In a
  played game the clan with nobody in it is a ``no_show`` (FL-15.1); in a game that did not start the clans that
  did not come are its absent teams (FL-10): the import adds the clan to them (``update_game``). Each costs the
  rules' 0.1 (FL-16), which the line must say. A no-show of a game without a result yet waits for it (nothing is
  written; it follows from the seats when the game is recorded). A clan that played in the game is refused.

Who may: the stage's judges and the curator, not the organizers (FL-0, ``spec/roles.md``), as for a penalty
typed in: a judge whose role names stages rules on the lines of those stages only (a line of another stage
refuses the file as not allowed). The file is one transaction, recomputed once; any refused line refuses the
file, naming the line, and nothing is written.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

import rulesets
from accounts.models import Role
from accounts.permissions import can_record_decisions, has_role
from rulesets import facts as F
from rulesets.errors import Invalid, NotAllowed, Problem, Refused
from tournaments import commands
from tournaments.loader import load_facts
from tournaments.messages import render
from tournaments.models import Game, GameStatus, Penalty, RosterEntry, Stage, Team, Tournament
from tournaments.sources.files import at_line
from tournaments.sources.mafiaonline_log import log_number
from tournaments.sources.penalty_file import JUDGE, NO_SHOW, PenaltyLine, parse_penalties
from tournaments.sources.stage_list import parse_stage_list, placement

RECORD = "record"  # a judge's penalty to record
RECORDED = "recorded"  # the same penalty is there already
DETECTED = "detected"  # a no-show the portal finds in the game itself (FL-15.1, FL-10)
ABSENT = "absent"  # a no-show of a game that did not start: the clan joins its absent teams (FL-10)
PENDING = "pending"  # a no-show of a game without a result yet: it follows from the seats
JUDGE_KIND = "fair_play"
VIOLATION_POINTS = "violation_points"  # the rule constant of a detected violation's points (FL-16), when frozen
STARTED = (GameStatus.PLAYED, GameStatus.TECHNICAL)


@dataclass
class PenaltyPlan:
    """What a penalty file does: one row a line, and the refusals."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    forbidden: list[Problem] = field(default_factory=list)  # lines of stages the acting user does not rule on
    written: bool = False

    def as_json(self) -> dict[str, Any]:
        counts: dict[str, int] = {}
        for row in self.rows:
            counts[row["action"]] = counts.get(row["action"], 0) + 1
        return {"written": self.written, "counts": counts, "penalties": self.rows,
                "problems": [{"path": p.path, "message": render(p.message)} for p in self.problems]}


def require_judge(user, tournament: Tournament) -> None:
    """A penalty is the stage's judge's or the curator's, not the organizer's (FL-0, ``spec/roles.md``): a judge
    of some stage may import; each line is then judged by its stage (``read_penalties``)."""
    if not has_role(user, tournament, Role.JUDGE, Role.CURATOR):
        raise NotAllowed(Problem("", _("Only the tournament's judges and curator record its penalties (FL-0); its "
                                       "organizers do not.")))


@dataclass(frozen=True)
class _Game:
    pk: int
    stage: str
    number: int
    status: str
    version: int


class _Games:
    """The tournament's games by the log they link to, and by their place (stage, number)."""

    def __init__(self, tournament: Tournament, stage_list: str | None, lines: Mapping[str, str] | None,
                 problems: list[Problem]) -> None:
        self.by_site: dict[int, _Game] = {}
        self.by_place: dict[tuple[str, int], _Game] = {}
        for pk, stage, number, link, status, version in Game.objects.filter(stage__tournament=tournament).values_list(
                "pk", "stage__key", "number", "link", "status", "version"):
            game = _Game(pk, stage, number, status, version)
            self.by_place[(stage, number)] = game
            site = log_number(link)
            if site is not None:
                self.by_site[site] = game
        self.places = {}
        if stage_list and stage_list.strip():
            parsed, listed = parse_stage_list(stage_list)
            keys = list(Stage.objects.filter(tournament=tournament).order_by("order", "pk").values_list(
                "key", flat=True))
            self.places, placing = placement(parsed, keys, dict(lines) if lines else None)
            problems += [Problem(f"stage_list.{p.path}" if p.path else "stage_list", render(p.message))
                         for p in listed + placing]

    def find(self, line: PenaltyLine) -> tuple[_Game | None, str | None]:
        """The game of the line, or why there is none."""
        game = self.by_site.get(line.game)
        if game is not None:
            return game, None
        place = self.places.get(line.game)
        if place is None:
            return None, _("game %(game)d is not in the portal: import its log, or give the stage list that places "
                           "it") % {"game": line.game}
        game = self.by_place.get((place.stage, place.number))
        if game is None:
            return None, _("game %(game)d is game %(number)d of the stage %(stage)s by the stage list, which the "
                           "stage does not have yet") % {"game": line.game, "number": place.number,
                                                         "stage": place.stage}
        return game, None


def _no_show_points(tournament: Tournament) -> Fraction | None:
    value = (tournament.rules or {}).get(VIOLATION_POINTS)
    try:
        return Fraction(value) if value is not None else None
    except (TypeError, ValueError, ZeroDivisionError):
        return None


def read_penalties(tournament: Tournament, text: str, *, stage_list: str | None = None,
                   lines: Mapping[str, str] | None = None, user=None) -> PenaltyPlan:
    """The preview of the penalty file ``text``: each line's game, clan, player and what it will do; with
    ``user``, the lines of stages they do not rule on (FL-0) are refused."""
    parsed, problems = parse_penalties(text)
    plan = PenaltyPlan(problems=problems)
    games = _Games(tournament, stage_list, lines, plan.problems)
    team_names = set(Team.objects.filter(tournament=tournament).values_list("name", flat=True))
    rosters: dict[str, set[str]] = {}
    for nick, team in RosterEntry.objects.filter(team__tournament=tournament).values_list("player__nick",
                                                                                          "team__name"):
        rosters.setdefault(nick, set()).add(team)
    existing = set(Penalty.objects.filter(tournament=tournament, replacement_for__isnull=True).values_list(
        "stage__key", "game__number", "team__name", "player__nick", "kind", "points", "text"))
    policy = rulesets.get(tournament.ruleset).appeal_policy
    points = _no_show_points(tournament)
    facts: F.TournamentFacts | None = None
    for line in parsed:
        game, missing = games.find(line)
        row = {"line": line.line, "game": line.game, "stage": game.stage if game else None,
               "number": game.number if game else None, "team": line.team, "player": line.player,
               "kind": line.kind, "reason": line.reason, "points": str(line.points), "action": None}
        plan.rows.append(row)
        refusals: list[str] = []
        if missing:
            refusals.append(missing)
        if line.team not in team_names:
            refusals.append(_("%(team)s is no team of this tournament") % {"team": line.team})
        if line.player is not None:
            playing = rosters.get(line.player)
            if not playing:
                refusals.append(_("%(nick)s is on no roster of this tournament") % {"nick": line.player})
            elif line.team not in playing:
                refusals.append(_("%(nick)s plays for %(other)s, not %(team)s") % {
                    "nick": line.player, "other": ", ".join(sorted(playing)), "team": line.team})
        if line.kind == JUDGE and game is not None:
            key = (game.stage, game.number, line.team, line.player, JUDGE_KIND, line.points, line.reason)
            row["action"] = RECORDED if key in existing else RECORD
        elif line.kind == NO_SHOW and game is not None and not refusals:
            if points is not None and Fraction(line.points) != points:
                refusals.append(_("a no-show costs %(rule)s (FL-16), not %(points)s: the portal deducts it itself; "
                                  "a judge's other penalty is a line with its own reason") % {
                    "rule": float(points), "points": line.points})
            elif policy.game_violations is None:
                refusals.append(_("the rules of this tournament detect no no-shows"))
            elif game.status == GameStatus.SCHEDULED:
                row["action"] = PENDING
            elif game.status == GameStatus.ANNULLED:
                refusals.append(_("game %(game)d was annulled: it gives no penalties (FL-15)") % {"game": line.game})
            else:
                facts = facts or load_facts(tournament)
                row["action"], refusal = _no_show(facts, policy, game, line)
                if refusal:
                    refusals.append(refusal)
        for refusal in refusals:
            plan.problems.append(at_line(line.line, refusal))
        if user is not None and game is not None and not can_record_decisions(user, tournament, game.stage):
            plan.forbidden.append(at_line(line.line, _(
                "only the judges of the stage %(stage)s or the curator rule on its penalties (FL-0)") % {
                "stage": game.stage}))
    plan.problems += plan.forbidden
    return plan


def _no_show(facts: F.TournamentFacts, policy, game: _Game, line: PenaltyLine) -> tuple[str | None, str | None]:
    """What a no-show line of a started or not-held game is: detected already, an absent team to add, or refused."""
    detected = (line.team, "no_show", None) in policy.game_violations(facts, game.stage, game.number)
    if detected:
        return DETECTED, None
    stage = facts.stage(game.stage)
    fgame = stage.game(game.number) if stage is not None else None
    seat = next((s for s in fgame.seats if s.team == line.team), None) if fgame is not None else None
    if seat is not None:
        return None, _("%(team)s played in game %(game)d (%(nick)s): it is not a no-show") % {
            "team": line.team, "game": line.game, "nick": seat.player}
    if game.status not in STARTED:  # not held: the clans that did not come are its absent teams (FL-10)
        return ABSENT, None
    return None, _("the portal finds no no-show of %(team)s in game %(game)d: the clan is not one of its group's "
                   "teams") % {"team": line.team, "game": line.game}


def _not_held_payload(game: F.Game, team: str, version: int) -> dict[str, Any]:
    """The not-held game as the interchange sends it, with ``team`` among its absent teams (FL-10)."""
    return {"number": game.number, "status": game.status, "group": game.group, "round": game.round,
            "scheduled_at": game.scheduled_at.isoformat() if game.scheduled_at else None, "link": game.link,
            "absent_teams": list(dict.fromkeys((*game.absent_teams, team))),
            "no_show_eliminated": dict(game.no_show_eliminated), "version": version}


def _record_batch(user, tournament: Tournament, rows: list[dict[str, Any]]) -> None:
    """The judges' penalties of consecutive lines, judged and written together (``commands.record_penalties``);
    a refusal names the line of each problem."""
    if not rows:
        return
    try:
        commands.record_penalties(user, tournament, [{
            "stage": row["stage"], "game": row["number"], "team": row["team"], "player": row["player"],
            "kind": JUDGE_KIND, "points": row["points"], "text": row["reason"]} for row in rows])
    except Refused as refused:
        if isinstance(refused, NotAllowed):
            raise
        problems = []
        for problem in refused.located():
            match = ITEM.match(problem.path)
            line = rows[int(match.group(1))]["line"] if match else rows[0]["line"]
            problems.append(at_line(line, render(problem.message)))
        raise Invalid(problems) from refused


ITEM = re.compile(r"^\[(\d+)\]")


def import_penalties(user, tournament: Tournament, text: str, *, game_problems: commands.GameProblems | None,
                     stage_list: str | None = None, lines: Mapping[str, str] | None = None) -> PenaltyPlan:
    """Write the penalty file (see the module); ``Invalid`` with every problem, nothing written, when refused."""
    require_judge(user, tournament)
    plan = read_penalties(tournament, text, stage_list=stage_list, lines=lines, user=user)
    if plan.forbidden:
        raise NotAllowed(plan.forbidden)
    if plan.problems:
        raise Invalid(plan.problems)
    absent: set[tuple[str, int, str]] = set()  # a no-show line repeated adds the team once
    with transaction.atomic():
        batch: list[dict[str, Any]] = []
        for row in plan.rows:
            if row["action"] == RECORD:
                batch.append(row)
                continue
            _record_batch(user, tournament, batch)
            batch = []
            if row["action"] != ABSENT or (row["stage"], row["number"], row["team"]) in absent:
                continue
            absent.add((row["stage"], row["number"], row["team"]))
            try:
                game = Game.objects.get(stage__tournament=tournament, stage__key=row["stage"], number=row["number"])
                fgame = load_facts(tournament).stage(row["stage"]).game(row["number"])
                commands.update_game(user, game.pk, _not_held_payload(fgame, row["team"], game.version),
                                     game_problems=game_problems)
            except Refused as refused:
                if isinstance(refused, NotAllowed):
                    raise
                raise Invalid([at_line(row["line"], render(p.message)) for p in refused.located()]) from refused
        _record_batch(user, tournament, batch)
    plan.written = True
    return plan
