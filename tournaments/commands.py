"""The write commands of the facts: record a game, change it, enter a tour's masks, record or withdraw a
penalty, record a decision, add a team (``add_team``), put a player on a team's roster (``add_to_roster``), name
its captain (``set_captain``); recompute under the current rules (``adopt_current_rules``).

They know no HTTP. The acting ``user`` is an argument (no context variable);
a payload is the interchange format's object (``rulesets.interchange``) as
JSON decodes it, plus where it goes (``tournament`` slug, ``stage`` key) and
the ``version`` read; a refusal is one of ``rulesets.errors``: ``Invalid``
with paths relative to the object sent (``seats[2].team``), ``NotAllowed``
(the user may not write), ``NotFound`` (no such row), ``Conflict`` (an older
version: "changed by X at T, reload", with the current ``version``,
``updated_by`` and ``updated_at`` in ``extra``). The pages
(``portal/views/entry.py``) and the API (``portal/api/views.py``,
``portal/api/appeal_writes.py``) call them and turn a refusal into a page or a
body (``portal.api.errors``); the importer stores whole documents by the same
interchange rules (``tournaments.importer``).

Every write is one transaction: the row is locked (``select_for_update``) and
its ``version`` compared with the one the caller read; the payload is read by
the interchange rules (a result entered live is refused exactly as the same
result in an imported document would be), then judged by the ruleset's
``validate`` on the tournament's facts with the change in place
(``tournaments.loader.load_facts``). Only then is anything written; the model
signals bump the facts version and enqueue the recompute.

Format hooks: ``tournaments/`` cannot import ``formats/``, so the refusals a
format adds to a game being recorded (class_balanced's CB-2, CB-6:
``FormatHome.game_problems``) come in as the ``game_problems`` argument of
``record_game`` and ``update_game``, a callable ``(stage, game facts,
the stored game row) -> problems`` that the portal takes from
``formats.registry`` (``portal.hooks.game_problems``). A caller that passes
none (a script, a test of the facts alone) is judged by the interchange rules
and the ruleset only.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
from collections.abc import Callable, Sequence
from decimal import Decimal
from functools import wraps
from typing import Any

from django.db import DataError, IntegrityError, transaction
from django.db.models import Max
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

import rulesets
from accounts.models import Family, Player, Role
from accounts.permissions import can_enter_results, can_record_decisions, has_role, result_entry_refusal
from accounts.zones import moment_text, zone_of
from rulesets import facts as F
from rulesets.base import Problem, strip_prefix
from rulesets.errors import Conflict, Invalid, NotAllowed, NotFound
from rulesets.interchange import Reader, check_references, parse_decision, parse_game, parse_penalty, parse_tour
from rulesets.messages import Text, as_data
from rulesets.rules import differences, frozen
from tournaments import audit, grants, purge, rosters, webhooks
from tournaments.changes import bulk_change, mark_changed
from tournaments.fact_fields import SEAT
from tournaments.loader import load_facts
from tournaments.models import (
    AuditEntry,
    Decision,
    Game,
    GameStatus,
    Group,
    Mask,
    NoShowElimination,
    Participant,
    Penalty,
    RosterEntry,
    Seat,
    Stage,
    Team,
    Tour,
    Tournament,
    TournamentFamily,
)

GameProblems = Callable[[Stage, F.Game, Game], Sequence[Problem]]
MASKS_KEYS = {"masks", "version"}
MAX_POINTS = Decimal("99999.999")


# --- refusals and checks shared by the commands ---


def refuse(path: str, message: str) -> Invalid:
    """One problem of the payload, at ``path``."""
    return Invalid(Problem(path, message))


def as_object(data: Any) -> dict:
    """The payload as a dict of its own (the commands pop keys from it)."""
    if not isinstance(data, dict):
        raise refuse("", _("must be an object"))
    return dict(data)


def tournament_of(data: dict) -> Tournament:
    """The tournament the payload's ``tournament`` slug names (popped from ``data``)."""
    slug = data.pop("tournament", None)
    tournament = Tournament.objects.filter(slug=slug).first() if isinstance(slug, str) else None
    if tournament is None:
        raise refuse("tournament", _("unknown tournament %(slug)r") % {"slug": slug})
    return tournament


def team_named(tournament: Tournament, stage: Stage | None, name: str | None) -> Team | None:
    """A team by name, as the importer resolves it: the stage's own draw first, then the tournament's teams."""
    if not name:
        return None
    teams = Team.objects.filter(tournament=tournament, name=name)
    return ((teams.filter(stage=stage).first() if stage is not None else None)
            or teams.filter(stage__isnull=True).first() or teams.first())


def _local_text(value: dt.datetime | None, tournament: Tournament) -> str:
    """A moment for people: ``2014-09-08 19:00 (Europe/Moscow)``."""
    if value is None:
        return "—"
    return moment_text(value, tournament.timezone)


def _conflict(row, tournament: Tournament) -> Conflict:
    message = _("changed by %(user)s at %(time)s, reload") % {
        "user": row.updated_by or _("someone"), "time": _local_text(row.updated_at, tournament)}
    updated_at = row.updated_at.astimezone(zone_of(tournament.timezone)).isoformat() if row.updated_at else None
    return Conflict(Problem("version", message),
                    extra={"version": row.version, "updated_by": row.updated_by, "updated_at": updated_at})


def _check_version(data: dict, row, tournament: Tournament) -> None:
    version = data.pop("version", None)
    if version is None:
        raise refuse("version", _("is required: send the version you read"))
    if isinstance(version, bool) or not isinstance(version, int):
        raise refuse("version", _("must be an integer"))
    if version != row.version:
        raise _conflict(row, tournament)


def require_result_entry(user, tournament: Tournament, stage_key: Any = None) -> None:
    """A stage's results are entered by the organizers, the curator and that stage's judges; an act on no stage
    by a judge of every stage (``accounts.permissions.can_enter_results``)."""
    key = stage_key if isinstance(stage_key, str) else None
    if not can_enter_results(user, tournament, key):
        raise NotAllowed(result_entry_refusal(key))


def _require_judge(user, tournament: Tournament, stage_key: Any = None) -> None:
    """Penalties are the rulings of the stage's judges and of the curator, not of the organizer as such (FL-0,
    FL-18, CB-15, CB-16; spec/roles.md)."""
    if not can_record_decisions(user, tournament, stage_key if isinstance(stage_key, str) else None):
        raise NotAllowed(_("Only the stage's judges or the curator may record, change or withdraw a penalty "
                           "(FL-0, CB-15, CB-16)."))


def _lock(model, pk) -> Any:
    row = model.objects.select_for_update(of=("self",)).filter(pk=pk).select_related("stage__tournament").first()
    if row is None:
        raise NotFound(_("Not found."))
    return row


def _database_guard(func):
    """A value the database cannot hold (a negative stat, a number too large) is a refusal, not a crash."""

    @wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except (IntegrityError, DataError, OverflowError) as exc:
            raise refuse("", _("the database refused the values: %(error)s") % {"error": exc}) from exc

    return wrapper


# --- judging a change against the whole tournament ---


def _replace_in_stage(facts: F.TournamentFacts, stage_key: str, attr: str, item: Any,
                      match: Any) -> tuple[F.TournamentFacts, str]:
    """Facts with ``item`` put in place of the stage's game/tour ``match`` (appended when None)."""
    si = next(i for i, s in enumerate(facts.stages) if s.key == stage_key)
    stage = facts.stages[si]
    items = list(getattr(stage, attr))
    index = next((i for i, x in enumerate(items) if x.number == match), None) if match is not None else None
    if index is None:
        index = len(items)
        items.append(item)
    else:
        items[index] = item
    stages = list(facts.stages)
    stages[si] = dataclasses.replace(stage, **{attr: tuple(items)})
    return dataclasses.replace(facts, stages=tuple(stages)), f"stages[{si}].{attr}[{index}]"


def judge(tournament: Tournament, before: F.TournamentFacts, after: F.TournamentFacts, prefix: str) -> list[Problem]:
    """Problems the change brings: any about the changed object, and any new elsewhere."""
    old, problems = _problems_before_and_after(tournament, before, after)
    fresh = [p for p in problems if p.path == prefix or p.path.startswith(prefix + ".")
             or p.path.startswith(prefix + "[") or p not in old]
    return strip_prefix(list(dict.fromkeys(fresh)), prefix)


def _problems_before_and_after(tournament: Tournament, before: F.TournamentFacts,
                               after: F.TournamentFacts) -> tuple[set[Problem], list[Problem]]:
    """The problems the facts had before a change (as a set) and those they have after it (references first,
    then the ruleset's own)."""
    validate = rulesets.get(tournament.ruleset).validate
    return set(check_references(before)) | set(validate(before)), check_references(after) + list(validate(after))


def _points_unfit(points: Decimal) -> bool:
    """A penalty's points beyond ``MAX_POINTS`` or with more than 3 decimals (the column's precision)."""
    return points > MAX_POINTS or points != points.quantize(Decimal("0.001"))


def _refuse_problems(problems: Sequence[Problem]) -> None:
    if problems:
        raise Invalid(list(problems))


class LaterConflicts(Invalid):
    """The game is right in itself, but its change puts games of later stages in conflict (a correction of an
    early class-balanced result changes who goes on, CB-12): ``problems`` are those games' problems, with their
    paths in the whole document. Saving again with ``accept_conflicts`` records the change; the dashboard then
    lists the conflicts until they are resolved."""


_STAGE_INDEX = re.compile(r"^stages\[(\d+)\]")


CONFLICTS_ACCEPTED = "accept_conflicts"  # audit actions: a save that put later games in conflict, and the end
CONFLICTS_RESOLVED = "conflicts_resolved"


def _refuse_or_accept(problems: Sequence[Problem], after: F.TournamentFacts, stage_key: str,
                      accept_conflicts: bool) -> list[Problem]:
    """Refuse the game's own problems; the problems its change makes in later stages only with confirmation.
    Returns the later problems accepted."""
    index = next(i for i, stage in enumerate(after.stages) if stage.key == stage_key)
    later = [p for p in problems if (m := _STAGE_INDEX.match(p.path)) and int(m.group(1)) > index]
    own = [p for p in problems if p not in later]
    if own:
        raise Invalid(list(problems))
    if later and not accept_conflicts:
        raise LaterConflicts(later)
    return later


_GAME_AT = re.compile(r"^stages\[(\d+)\]\.games\[(\d+)\]")


def _record_conflicts(game: Game, later: list[Problem], after: F.TournamentFacts, user) -> None:
    """The history keeps which later games the save put in conflict and why, rendered when read."""
    if not later:
        return
    conflicts = []
    for problem in later:
        match = _GAME_AT.match(problem.path)
        if match is None:
            conflicts.append(as_data(problem.message))
            continue
        stage = after.stages[int(match.group(1))]
        conflicts.append(Text(gettext_noop("%(stage)s, game %(number)s: %(problem)s"), {
            "stage": stage.key, "number": stage.games[int(match.group(2))].number,
            "problem": problem.message}).as_data())
    audit.record(CONFLICTS_ACCEPTED, game, None, {"conflicts": conflicts}, user=user)


def conflicts_of(tournament: Tournament) -> list[Problem]:
    """The problems of later games a confirmed correction left (``LaterConflicts``), as the facts stand now;
    none once every one is resolved, which is then recorded so that the next look costs nothing."""
    if rulesets.get(tournament.ruleset).rounds != "games":  # only a game's correction confirms conflicts
        return []
    last = AuditEntry.objects.filter(tournament=tournament, action__in=(CONFLICTS_ACCEPTED, CONFLICTS_RESOLVED)
                                     ).order_by("-pk").values_list("action", flat=True).first()
    if last != CONFLICTS_ACCEPTED:
        return []
    facts = load_facts(tournament)
    problems = [p for p in list(dict.fromkeys(check_references(facts) + list(rulesets.get(tournament.ruleset)
                                                                              .validate(facts))))
                if _STAGE_INDEX.match(p.path)]
    if not problems:
        audit.record(CONFLICTS_RESOLVED, tournament, None, {}, user=None)
    return problems


def _teams_of(tournament: Tournament, stage: Stage) -> dict[str, Team]:
    """Team names as a stage sees them: the tournament's teams, then the stage's own draw."""
    teams: dict[str, Team] = {}
    for team in Team.objects.filter(tournament=tournament, stage__isnull=True):
        teams[team.name] = team
    for team in Team.objects.filter(tournament=tournament, stage=stage):
        teams[team.name] = team
    return teams


def _players(nicks: set[str]) -> dict[str, Player]:
    return {p.nick: p for p in Player.objects.filter(nick__in=nicks)}


# --- games ---


def _parse_game_payload(data: dict) -> tuple[F.Game, list[Problem]]:
    """The game as read, and what the reading refused (paths relative to the object sent)."""
    r = Reader()
    game = parse_game(r, data, "")
    if game is None:
        raise Invalid(strip_prefix(r.problems or [Problem("", _("not a game"))], ""))
    return game, strip_prefix(r.problems, "")


def _every_game_problem(tournament: Tournament, stage: Stage, row: Game, fgame: F.Game, read: list[Problem],
                        before: F.TournamentFacts, after: F.TournamentFacts, prefix: str,
                        game_problems: GameProblems | None) -> list[Problem]:
    """Every problem of the game at once: what the reading refused, and the ruleset's and the
    format's judgement of the game as it was read. A game the reading refused is judged as far as it can be: a
    judgement that cannot run on it (a value missing) leaves the reading's problems to be fixed first."""
    problems = list(read)
    try:
        problems += judge(tournament, before, after, prefix)
        if game_problems is not None:
            problems += list(game_problems(stage, fgame, row))
    except Exception:  # noqa: BLE001 - only when the reading already refused the game
        if not read:
            raise
    return list(dict.fromkeys(problems))


@_database_guard
def record_game(user, data: Any, *, game_problems: GameProblems | None = None,
                accept_conflicts: bool = False) -> Game:
    """A new game of a stage, with its seats: the interchange game object plus ``tournament`` and ``stage``
    (``accept_conflicts``: record it even though it puts later games in conflict, ``LaterConflicts``)."""
    data = as_object(data)
    stage_key = data.pop("stage", None)
    data.pop("version", None)
    tournament = tournament_of(data)
    require_result_entry(user, tournament, stage_key)
    stage = Stage.objects.filter(tournament=tournament, key=stage_key).first() if isinstance(stage_key, str) else None
    if stage is None:
        raise refuse("stage", _("tournament %(slug)s has no stage %(key)r") % {"slug": tournament.slug,
                                                                             "key": stage_key})
    fgame, read = _parse_game_payload(data)
    with transaction.atomic():
        Stage.objects.select_for_update().filter(pk=stage.pk).first()
        if Game.objects.filter(stage=stage, number=fgame.number).exists():
            raise refuse("number", _("stage %(key)s already has game %(number)d") % {
                "key": stage.key, "number": fgame.number})
        facts = load_facts(tournament)
        after, prefix = _replace_in_stage(facts, stage.key, "games", fgame, None)
        game = Game(stage=stage, version=1)
        later = _refuse_or_accept(_every_game_problem(tournament, stage, game, fgame, read, facts, after, prefix,
                                                      game_problems), after, stage.key, accept_conflicts)
        _write_game(game, stage, fgame, user)
        _record_conflicts(game, later, after, user)
        webhooks.result_saved(tournament, game, had_result=False)
    return game


@_database_guard
def update_game(user, game_id: int, data: Any, *, game_problems: GameProblems | None = None,
                accept_conflicts: bool = False) -> Game:
    """The game's new state, with the ``version`` read; the seats sent replace the game's seats
    (``accept_conflicts``: even though it puts later games in conflict, ``LaterConflicts``)."""
    data = as_object(data)
    with transaction.atomic():
        game = _lock(Game, game_id)
        stage = game.stage
        tournament = stage.tournament
        require_result_entry(user, tournament, stage.key)
        for key, current in (("tournament", tournament.slug), ("stage", stage.key)):
            given = data.pop(key, None)
            if given is not None and given != current:
                raise refuse(key, _("a game cannot move to another tournament or stage"))
        _check_version(data, game, tournament)
        fgame, read = _parse_game_payload(data)
        if fgame.number != game.number and Game.objects.filter(stage=stage, number=fgame.number).exists():
            raise refuse("number", _("stage %(key)s already has game %(number)d") % {
                "key": stage.key, "number": fgame.number})
        facts = load_facts(tournament)
        after, prefix = _replace_in_stage(facts, stage.key, "games", fgame, game.number)
        later = _refuse_or_accept(_every_game_problem(tournament, stage, game, fgame, read, facts, after, prefix,
                                                      game_problems), after, stage.key, accept_conflicts)
        game.violations_published = _violation_publications(tournament, facts, after, stage.key, game, fgame)
        game.version += 1
        had_result = game.status != GameStatus.SCHEDULED
        _write_game(game, stage, fgame, user)
        _record_conflicts(game, later, after, user)
        webhooks.result_saved(tournament, game, had_result=had_result)
    return game


def _violation_publications(tournament: Tournament, before: F.TournamentFacts, after: F.TournamentFacts,
                            stage_key: str, game: Game, fgame: F.Game) -> list[dict[str, Any]]:
    """FL-19: a change of a recorded result that creates a new detected violation publishes it at the change;
    one that the change keeps keeps its moment, one that it removes is forgotten (if it comes back, that
    change publishes it again). Before the first result everything is published with the result."""
    detect = rulesets.get(tournament.ruleset).appeal_policy.game_violations
    if detect is None or game.result_recorded_at is None:
        return []
    old = detect(before, stage_key, game.number)
    new = detect(after, stage_key, fgame.number)
    kept = [entry for entry in game.violations_published or ()
            if (entry["team"], entry["kind"], entry.get("player")) in new & old]
    at = timezone.now().isoformat()
    created = [{"team": team, "kind": kind, "player": player, "at": at}
               for team, kind, player in sorted(new - old, key=lambda key: (key[0], key[1], key[2] or ""))]
    return kept + created


def _write_game(game: Game, stage: Stage, fgame: F.Game, user) -> None:
    """Write the game and replace its seats; the history gets one entry with the game's whole readable state
    before and after (seats, absences and no-shows included: the bulk writes are not lost to it)."""
    created = game.pk is None
    before = None if created else audit.game_state(Game.objects.get(pk=game.pk))
    with audit.muted():
        _store_game(game, stage, fgame, user)
    audit.record_change("create" if created else "update", game, before, audit.game_state(game), user=user)


def _store_game(game: Game, stage: Stage, fgame: F.Game, user) -> None:
    teams = _teams_of(stage.tournament, stage)
    players = _players({s.player for s in fgame.seats} | {p for _t, p in fgame.no_show_eliminated})
    game.number = fgame.number
    game.group = Group.objects.filter(stage=stage, name=fgame.group).first() if fgame.group else None
    game.group_label = fgame.group or ""
    game.round = fgame.round
    game.scheduled_at = fgame.scheduled_at
    game.status = fgame.status
    game.outcome = fgame.outcome
    game.omon = fgame.omon
    game.game_days = fgame.game_days
    game.link = fgame.link or ""
    game.updated_by = user.get_username()
    game.save()
    for old in list(game.seats.all()) + list(game.no_show_eliminations.all()):
        old._skip_recompute = True  # the game's own save marks the tournament changed once
        old.delete()
    Seat.objects.bulk_create([
        Seat(game=game, order=order, player=players[s.player], team=teams[s.team], **SEAT.of(s))
        for order, s in enumerate(fgame.seats)
    ])
    NoShowElimination.objects.bulk_create([
        NoShowElimination(game=game, team=teams[t], player=players[p]) for t, p in fgame.no_show_eliminated])
    game.absent_teams.set([teams[name] for name in fgame.absent_teams])


# --- a tour's masks ---


@_database_guard
def record_tour_masks(user, tour_id: int, data: Any) -> Tour:
    """The tour's masks, all of them (``masks``: team -> mask), with the ``version`` read."""
    data = as_object(data)
    with transaction.atomic():
        tour = _lock(Tour, tour_id)
        tournament = tour.stage.tournament
        require_result_entry(user, tournament, tour.stage.key)
        unknown = sorted(set(data) - MASKS_KEYS)
        if unknown:
            raise Invalid([Problem(key, _("unknown key")) for key in unknown])
        _check_version(data, tour, tournament)
        masks = data.get("masks")
        if not isinstance(masks, dict):
            raise refuse("masks", _("must be an object of team: mask"))
        r = Reader()
        parsed = parse_tour(r, {"number": tour.number, "questions": tour.questions, "masks": masks}, "")
        if r.problems or parsed is None:
            raise Invalid(strip_prefix(r.problems, ""))
        facts = load_facts(tournament)
        current = next(t for t in facts.stage(tour.stage.key).tours if t.number == tour.number)
        ftour = dataclasses.replace(current, masks=parsed.masks)
        after, prefix = _replace_in_stage(facts, tour.stage.key, "tours", ftour, tour.number)
        _refuse_problems(judge(tournament, facts, after, prefix))
        before = audit.tour_state(tour)
        with audit.muted():
            _write_masks(tour, parsed.masks)
            tour.version += 1
            tour.updated_by = user.get_username()
            tour.save()
        audit.record_change("update", tour, before, audit.tour_state(tour), user=user)
        webhooks.result_saved(tournament, tour, had_result=bool(before["masks"]))
    return tour


def _write_masks(tour: Tour, masks: tuple[tuple[str, str], ...]) -> None:
    teams = _teams_of(tour.stage.tournament, tour.stage)
    existing = {m.team_id: m for m in Mask.objects.filter(tour=tour)}
    wanted = {teams[name].pk: (order, mask) for order, (name, mask) in enumerate(masks)}
    for team_id, row in existing.items():
        if team_id not in wanted:
            row._skip_recompute = True  # the tour's own save marks the tournament changed once
            row.delete()
    changed = []
    for team_id, (order, mask) in wanted.items():
        row = existing.get(team_id)
        if row is not None and (row.mask != mask or row.order != order):
            row.mask, row.order = mask, order
            changed.append(row)
    Mask.objects.bulk_update(changed, ["mask", "order"])
    Mask.objects.bulk_create([Mask(tour=tour, team_id=team_id, mask=mask, order=order)
                              for team_id, (order, mask) in wanted.items() if team_id not in existing])


# --- penalties ---


@_database_guard
def record_penalty(user, data: Any) -> Penalty:
    """A judge's fair-play ruling (FL-18) as a fact: the interchange penalty object plus ``tournament``."""
    data = as_object(data)
    tournament = tournament_of(data)
    _require_judge(user, tournament, data.get("stage"))
    if data.get("decided_at") is None:
        data["decided_at"] = timezone.now().isoformat()
    r = Reader()
    fpen = parse_penalty(r, data, "")
    if r.problems or fpen is None:
        raise Invalid(strip_prefix(r.problems, ""))
    if _points_unfit(fpen.points):
        raise refuse("points", _("at most %(max)s, with at most 3 decimals") % {"max": MAX_POINTS})
    with transaction.atomic():
        Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
        facts = load_facts(tournament)
        after = dataclasses.replace(facts, penalties=facts.penalties + (fpen,))
        _refuse_problems(judge(tournament, facts, after, f"penalties[{len(facts.penalties)}]"))
        stage = Stage.objects.filter(tournament=tournament, key=fpen.stage).first() if fpen.stage else None
        team = team_named(tournament, stage, fpen.team)
        last = Penalty.objects.filter(tournament=tournament).order_by("-order").values_list("order", flat=True).first()
        with audit.muted():  # the history names ``user``, also where no request sets the current user (a command)
            penalty = Penalty.objects.create(
                tournament=tournament, order=(last + 1) if last is not None else 0, stage=stage,
                game=Game.objects.filter(stage=stage, number=fpen.game).first() if stage and fpen.game else None,
                team=team, player=Player.objects.filter(nick=fpen.player).first() if fpen.player else None,
                kind=fpen.kind, code=fpen.code or "", points=fpen.points, decided_at=fpen.decided_at,
                text=fpen.text)
        audit.record("create", penalty, None, audit.snapshot(penalty), user=user)
    return penalty


def record_penalties(user, tournament: Tournament, items: Sequence[Any]) -> list[Penalty]:
    """Judges' fair-play rulings (FL-18) of one file at once, as ``record_penalty`` records each, judged together:
    the facts are read once and the ruleset validates them once with every penalty in place (a file of a season
    has thousands of lines). ``Invalid`` with each problem at ``[i].field`` (``i``: the item's index), nothing
    written; ``NotAllowed`` when ``user`` may not rule on one of the stages named."""
    for stage_key in sorted({item.get("stage") if isinstance(item, dict) else None for item in items}, key=str):
        _require_judge(user, tournament, stage_key)
    decided_at = timezone.now().isoformat()
    reader, parsed = Reader(), []
    for index, item in enumerate(items):
        data = dict(as_object(item))
        data.pop("tournament", None)
        data.setdefault("decided_at", decided_at)
        fpen = parse_penalty(reader, data, f"[{index}]")
        if fpen is not None and _points_unfit(fpen.points):
            reader.problems.append(Problem(f"[{index}].points", _("at most %(max)s, with at most 3 decimals") % {
                "max": MAX_POINTS}))
        parsed.append(fpen)
    if reader.problems:
        raise Invalid(list(reader.problems))
    with transaction.atomic():
        Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
        facts = load_facts(tournament)
        first = len(facts.penalties)
        after = dataclasses.replace(facts, penalties=facts.penalties + tuple(parsed))
        _refuse_problems(_penalty_problems(tournament, facts, after, first, len(parsed)))
        stages = {stage.key: stage for stage in Stage.objects.filter(tournament=tournament)}
        teams: dict[tuple[str | None, str], Team | None] = {}
        nicks = {fpen.player for fpen in parsed if fpen.player}
        players = {player.nick: player for player in Player.objects.filter(nick__in=nicks)}
        games = {(key, number): pk for key, number, pk in Game.objects.filter(stage__tournament=tournament)
                 .values_list("stage__key", "number", "pk")}
        last = Penalty.objects.filter(tournament=tournament).order_by("-order").values_list("order", flat=True).first()
        order = (last + 1) if last is not None else 0
        rows = []
        for offset, fpen in enumerate(parsed):
            stage = stages.get(fpen.stage) if fpen.stage else None
            if fpen.team and (fpen.stage, fpen.team) not in teams:
                teams[(fpen.stage, fpen.team)] = team_named(tournament, stage, fpen.team)
            rows.append(Penalty(
                tournament=tournament, order=order + offset, stage=stage,
                game_id=games.get((stage.key, fpen.game)) if stage is not None and fpen.game else None,
                team=teams.get((fpen.stage, fpen.team)) if fpen.team else None,
                player=players.get(fpen.player) if fpen.player else None, kind=fpen.kind, code=fpen.code or "",
                points=fpen.points, decided_at=fpen.decided_at, text=fpen.text))
        with audit.muted():
            created = Penalty.objects.bulk_create(rows, batch_size=1000)
        audit.record_created(tournament, created, user=user)
        mark_changed(tournament.pk)
    return created


def _penalty_problems(tournament: Tournament, before: F.TournamentFacts, after: F.TournamentFacts, first: int,
                      count: int) -> list[Problem]:
    """The problems ``count`` new penalties (from ``penalties[first]``) bring, each at ``[i]`` of its item;
    a new problem elsewhere at its own path (as ``judge`` finds them for one)."""
    old, problems = _problems_before_and_after(tournament, before, after)
    out = []
    for problem in dict.fromkeys(problems):
        match = _PENALTY_INDEX.match(problem.path)
        index = int(match.group(1)) - first if match else -1
        if 0 <= index < count:
            out.append(Problem(f"[{index}]{problem.path[match.end():]}", problem.message))
        elif problem not in old:
            out.append(problem)
    return out


_PENALTY_INDEX = re.compile(r"^penalties\[(\d+)\]")


def withdraw_penalty(user, penalty: Penalty) -> None:
    """The penalty is deleted; the standings recompute."""
    _require_judge(user, penalty.tournament, penalty.stage.key if penalty.stage_id else None)
    with transaction.atomic():
        Penalty.objects.select_for_update().filter(pk=penalty.pk).first()
        penalty.delete()


# --- decisions ---


def record_decision(user, data: Any) -> Decision:
    """A judge's, commission's or committee's decision as a fact: the interchange decision object plus
    ``tournament``, judged by the ruleset with the decision in place (e.g. CB-15's grounds)."""
    data = as_object(data)
    tournament = tournament_of(data)
    stage_key = data.get("stage")
    if not can_record_decisions(user, tournament, stage_key if isinstance(stage_key, str) else None):
        raise NotAllowed(_("Only the stage's judges (its commission) or the curator record a decision: a "
                           "technical result, a replay, a disqualification (FL-0, GP-23, CB-15, CB-16)."))
    data.setdefault("decided_at", timezone.now().isoformat())
    data.setdefault("by", user.get_username())
    with transaction.atomic():
        Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
        index = (Decision.objects.filter(tournament=tournament).order_by("-index").values_list(
            "index", flat=True).first() or 0) + 1
        reader = Reader()
        fdecision = parse_decision(reader, data, "", index)
        if reader.problems or fdecision is None:
            raise Invalid(strip_prefix(reader.problems, ""))
        facts = load_facts(tournament)
        after = dataclasses.replace(facts, decisions=facts.decisions + (fdecision,))
        _refuse_problems(judge(tournament, facts, after, f"decisions[{len(facts.decisions)}]"))
        stage = Stage.objects.filter(tournament=tournament, key=fdecision.stage).first() if fdecision.stage else None
        return Decision.objects.create(
            tournament=tournament, index=index, kind=fdecision.kind, stage=stage,
            game=Game.objects.filter(stage=stage, number=fdecision.game).first() if stage and fdecision.game else None,
            code=fdecision.code or "", outcome=fdecision.outcome, team=team_named(tournament, stage, fdecision.team),
            player=Player.objects.filter(nick=fdecision.player).first() if fdecision.player else None,
            order=list(fdecision.order), reason=fdecision.reason, decided_at=fdecision.decided_at,
            published_at=fdecision.published_at, by=fdecision.by or "", text=fdecision.text, author=user)


# --- rosters ---


def _roster_team(tournament: Tournament, stage: Stage | None, name: str) -> Team:
    """The team ``name`` as the stage sees it (the tournament's teams without a stage), or a refusal."""
    teams = _teams_of(tournament, stage) if stage is not None else {
        t.name: t for t in Team.objects.filter(tournament=tournament, stage__isnull=True)}
    team = teams.get(name or "")
    if team is None:
        raise refuse("team", _("choose the team to add the player to") if not name else
                     _("%(team)s is not a team of this stage") % {"team": name})
    return team


def _roster_refusal(tournament: Tournament, team: Team, player: Player) -> Invalid | None:
    """Why ``player`` may not join ``team``'s roster: another roster of the tournament holds them (one roster a
    player, ``tournaments.rosters``), they left this one, or they sit on the appeal jury (CHGK-11)."""
    left = RosterEntry.objects.filter(team=team, player=player, left_at__isnull=False).values_list(
        "left_at", flat=True).first()
    if left is not None:
        return refuse("player", _("%(nick)s left the roster of %(team)s at %(time)s") % {
            "nick": player.nick, "team": team.name, "time": _local_text(left, tournament)})
    other = rosters.roster_conflict(team, player.pk)
    if other is not None:
        return refuse("player", rosters.roster_conflict_message(player.nick, other))
    juror = grants.juror_conflict(tournament, player)
    return refuse("player", juror) if juror is not None else None


def _family_refusal(team: Team, player: Player, participant: Participant | None) -> Invalid | None:
    """Why the tournament cannot record ``player`` as a member of ``team``'s family: it records another one."""
    if participant is None or participant.family_id in (None, team.family_id):
        return None
    return refuse("player", _("%(nick)s is recorded in this tournament as a member of the family %(family)s, not "
                              "of %(team)s") % {"nick": player.nick, "family": participant.family.name,
                                                "team": team.family.name})


@_database_guard
def add_to_roster(user, tournament: Tournament, stage: Stage | None, team_name: str, nick: str, *,
                  family_member: bool = False) -> RosterEntry:
    """Put the player ``nick`` on the roster of the team ``team_name`` of ``stage`` (a team of the tournament, or
    of the stage's own draw) and among the tournament's participants; a nick the portal does not know yet becomes
    a new player. The organizers' act (``spec/roles.md``); refused when another roster of the tournament holds
    the player, they left this roster, or they sit on its appeal jury (CHGK-11). A player already on the roster
    is left as they are. ``family_member``: the team is a family's, and the tournament records the player as a
    member of that family (``Participant.family``, what FL-3 reads besides the site's memberships; refused when it
    records another family). One transaction; each row written is in the history with ``user``."""
    if not has_role(user, tournament, Role.ORGANIZER):
        raise NotAllowed(Problem("", _("Only the tournament's organizers add players to its rosters.")))
    nick = (nick or "").strip()
    if not nick:
        raise refuse("player", _("name the player to add"))
    if len(nick) > Player._meta.get_field("nick").max_length:
        raise refuse("player", _("a nick has at most %(max)d characters") % {
            "max": Player._meta.get_field("nick").max_length})
    team = _roster_team(tournament, stage, team_name)
    with transaction.atomic():
        team = Team.objects.select_for_update(of=("self",)).select_related("family").get(pk=team.pk)
        family_member = family_member and team.family_id is not None
        player = Player.objects.filter(nick=nick).first()
        participant = Participant.objects.filter(tournament=tournament, player=player).select_related(
            "family").first() if player is not None else None
        if family_member and player is not None:
            refusal = _family_refusal(team, player, participant)
            if refusal is not None:
                raise refusal
        current = RosterEntry.objects.filter(team=team, player=player, left_at__isnull=True).first() if (
            player is not None) else None
        if current is not None and (not family_member or participant is None or participant.family_id is not None):
            return current
        if current is None:
            refusal = _roster_refusal(tournament, team, player) if player is not None else None
            if refusal is not None:
                raise refusal
        written: list[Any] = []
        changed: list[tuple[Any, dict[str, Any]]] = []
        with audit.muted():
            if player is None:
                player = Player.objects.create(nick=nick)
                written.append(player)
            entry = current
            if entry is None:
                order = (team.roster.aggregate(m=Max("order"))["m"] or 0) + 1
                entry = RosterEntry.objects.create(team=team, player=player, order=order, joined_at=timezone.now())
                written.append(entry)
            family = team.family if family_member else None
            if participant is None:
                last = Participant.objects.filter(tournament=tournament).aggregate(m=Max("order"))["m"]
                written.append(Participant.objects.create(tournament=tournament, player=player,
                                                          order=(last or 0) + 1, family=family))
            elif family is not None and participant.family_id is None:
                before = audit.snapshot(participant)
                participant.family = family
                participant.save(update_fields=["family"])
                changed.append((participant, before))
        for row in written:
            audit.record("create", row, None, audit.snapshot(row), user=user)
        for row, before in changed:
            audit.record_change("update", row, before, audit.snapshot(row), user=user)
    return entry


@_database_guard
def add_team(user, tournament: Tournament, name: str, *, family_name: str | None = None) -> Team:
    """A team of the tournament (not of a stage's own draw) named ``name``, last in its order. ``family_name``:
    the team is that family's (a family league's teams are its families, FL-1): the family, created when the
    portal has none of that name, is linked to the team and listed among the tournament's families. A team of
    that name already there is kept as it is (linked to the family when it had none). The organizers' act
    (``spec/roles.md``); refused when the team is another family's. One transaction; each row written is in the
    history with ``user``."""
    if not has_role(user, tournament, Role.ORGANIZER):
        raise NotAllowed(Problem("", _("Only the tournament's organizers add teams to it.")))
    name = (name or "").strip()
    family_name = (family_name or "").strip() or None
    if not name:
        raise refuse("team", _("name the team"))
    for value, model in ((name, Team), (family_name, Family)):
        limit = model._meta.get_field("name").max_length
        if value is not None and len(value) > limit:
            raise refuse("team", _("a name has at most %(max)d characters: %(name)s") % {"max": limit,
                                                                                         "name": value})
    with transaction.atomic():
        Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
        team = Team.objects.filter(tournament=tournament, stage__isnull=True, name=name).select_related(
            "family").first()
        if team is not None and family_name and team.family_id is not None and team.family.name != family_name:
            raise refuse("team", _("%(team)s is the team of the family %(family)s") % {
                "team": team.name, "family": team.family.name})
        written: list[Any] = []
        changed: list[tuple[Any, dict[str, Any]]] = []
        with audit.muted():
            family = Family.objects.filter(name=family_name).first() if family_name else None
            if family_name and family is None:
                family = Family.objects.create(name=family_name)
                written.append(family)
            if team is None:
                last = Team.objects.filter(tournament=tournament, stage__isnull=True).aggregate(m=Max("order"))["m"]
                team = Team.objects.create(tournament=tournament, name=name, order=(last or 0) + 1, family=family)
                written.append(team)
            elif family is not None and team.family_id is None:
                before = audit.snapshot(team)
                team.family = family
                team.save(update_fields=["family"])
                changed.append((team, before))
            if family is not None and not TournamentFamily.objects.filter(tournament=tournament,
                                                                          family=family).exists():
                last = TournamentFamily.objects.filter(tournament=tournament).aggregate(m=Max("order"))["m"]
                written.append(TournamentFamily.objects.create(tournament=tournament, family=family,
                                                               order=(last or 0) + 1))
        for row in written:
            audit.record("create", row, None, audit.snapshot(row), user=user)
        for row, before in changed:
            audit.record_change("update", row, before, audit.snapshot(row), user=user)
    return team


def set_captain(user, team: Team, nick: str) -> Team:
    """The player ``nick`` of the team's roster becomes its captain (a roster file names them). The organizers'
    act, as the roster's (``accounts.permissions.can_manage_team``: a ChGK captain hands over captaincy on the
    team's own page, CHGK-2..CHGK-4): ``tournaments.grants.set_captain``, in the history with ``user``."""
    return grants.set_captain(user, team, nick)[0]


# --- the rules a tournament is computed under ---


def rules_outdated(tournament: Tournament) -> dict[str, tuple[Any, Any]]:
    """``{constant: (frozen value, the code's value)}`` where the code's rules differ from the tournament's,
    with ``"ruleset_version"`` among them when the code's version is newer (design principle 8)."""
    ruleset = rulesets.get(tournament.ruleset)
    changed: dict[str, tuple[Any, Any]] = differences(tournament.rules, ruleset.rule_constants)
    if tournament.ruleset_version != ruleset.version:
        changed = {"ruleset_version": (tournament.ruleset_version, ruleset.version), **changed}
    return changed


def adopt_current_rules(user, tournament: Tournament) -> dict[str, tuple[Any, Any]]:
    """An organizer's explicit, logged action: recompute the tournament under the code's current ruleset version
    and rule constants (design principle 8). Returns what changed; nothing is written when nothing did."""
    if not has_role(user, tournament, Role.ORGANIZER):
        raise NotAllowed(_("Only the tournament's organizers may recompute it under the current rules."))
    ruleset = rulesets.get(tournament.ruleset)
    with transaction.atomic():
        locked = Tournament.objects.select_for_update().get(pk=tournament.pk)
        changed = rules_outdated(locked)
        if not changed:
            return {}
        before = {"ruleset_version": locked.ruleset_version, "rules": locked.rules}
        after = {"ruleset_version": ruleset.version, "rules": frozen(ruleset.rule_constants)}
        Tournament.objects.filter(pk=locked.pk).update(**after)
        audit.record("rules", locked, before, after, user=user)
        mark_changed(locked.pk)
    tournament.refresh_from_db(fields=["ruleset_version", "rules", "facts_version", "head_version"])
    return changed


def delete_tournaments(user, tournaments: Sequence[Tournament]) -> int:
    """Delete tournaments with everything they hold (stages, teams, games and seats, tours, appeals, tables); the
    number deleted. Only their organizers may. Each deletion stays in the history (its entry keeps the slug).

    The games and tours go set-wise (``tournaments.purge``): the ORM's delete would build a league's 150,000
    seats one by one, and the seats protect the teams from it (the admin could not delete a tournament with
    games)."""
    ids = sorted(t.pk for t in tournaments)
    with transaction.atomic():
        locked = list(Tournament.objects.select_for_update().filter(pk__in=ids).order_by("pk"))
        for tournament in locked:
            if not has_role(user, tournament, Role.ORGANIZER):
                raise NotAllowed(_("Only the tournament's organizers may delete it."))
        for tournament in locked:
            audit.record("delete", tournament, {"slug": tournament.slug, "name": tournament.name}, None, user=user)
        with bulk_change():
            purge.delete_games_and_tours([t.pk for t in locked])
            Tournament.objects.filter(pk__in=[t.pk for t in locked]).delete()
    return len(locked)
