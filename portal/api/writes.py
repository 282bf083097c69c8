"""Result entry through the API: a game with its seats, a tour's masks, penalties.

Every write is one transaction: the row is locked (``select_for_update``) and
its ``version`` compared with the one the client read (an older one is
refused with 409 "changed by X at T, reload"); the payload is read by the
interchange rules (``rulesets.interchange``: a result entered live is refused
exactly as the same result in an imported document would be), then judged by
the ruleset's ``validate`` on the tournament's facts with the change in place.
Only then is anything written; the model signals bump the facts version and
enqueue the recompute.
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Any

from django.db import DataError, IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext as _
from rest_framework import status
from rest_framework.exceptions import NotFound, PermissionDenied

import rulesets
from accounts.models import Player
from accounts.permissions import can_enter_results, can_record_decisions
from formats import registry
from portal.api.common import local_iso, local_text, strip_prefix
from rulesets import facts as F
from rulesets.base import Problem
from rulesets.interchange import Reader, check_references, parse_game, parse_penalty, parse_tour
from tournaments.loader import load_facts
from tournaments.models import Game, Group, Mask, NoShowElimination, Penalty, Seat, Stage, Team, Tour, Tournament

GAME_WRITE_KEYS = {"tournament", "stage", "version"}
MASKS_WRITE_KEYS = {"masks", "version"}


class WriteRefused(Exception):
    """Nothing was written; ``problems`` say where and why, ``code`` is the HTTP status."""

    def __init__(self, problems: list[Problem], code: int = status.HTTP_400_BAD_REQUEST,
                 extra: dict[str, Any] | None = None):
        self.problems = problems
        self.code = code
        self.extra = extra or {}
        super().__init__("; ".join(str(p) for p in problems))


def _refuse(path: str, message: str, code: int = status.HTTP_400_BAD_REQUEST) -> WriteRefused:
    return WriteRefused([Problem(path, message)], code)


def _conflict(row, tournament) -> WriteRefused:
    message = _("changed by %(user)s at %(time)s, reload") % {
        "user": row.updated_by or _("someone"), "time": local_text(row.updated_at, tournament)}
    return WriteRefused([Problem("version", message)], status.HTTP_409_CONFLICT,
                        {"version": row.version, "updated_by": row.updated_by,
                         "updated_at": local_iso(row.updated_at, tournament)})


def _object(data: Any) -> dict:
    if not isinstance(data, dict):
        raise _refuse("", _("must be an object"))
    return dict(data)


def _check_version(data: dict, row, tournament) -> None:
    version = data.pop("version", None)
    if version is None:
        raise _refuse("version", _("is required: send the version you read"))
    if isinstance(version, bool) or not isinstance(version, int):
        raise _refuse("version", _("must be an integer"))
    if version != row.version:
        raise _conflict(row, tournament)


def _require_judge(user, tournament: Tournament) -> None:
    """Penalties are the judges' and the curator's rulings (FL-0, FL-18); organizers may record them too."""
    if not can_record_decisions(user, tournament):
        raise PermissionDenied(_("Only the tournament's judges, curator or organizers may record penalties."))


def _require_organizer(user, tournament: Tournament) -> None:
    """Results are entered by the organizers, the judges and the curator (accounts.permissions)."""
    if not can_enter_results(user, tournament):
        raise PermissionDenied(_("Only the tournament's organizers, judges and curator may enter its results."))


def _lock(model, pk) -> Any:
    row = model.objects.select_for_update(of=("self",)).filter(pk=pk).select_related("stage__tournament").first()
    if row is None:
        raise NotFound()
    return row


def _database_guard(func):
    """A value the database cannot hold (a negative stat, a number too large) is a refusal, not a crash."""

    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except (IntegrityError, DataError, OverflowError) as exc:
            raise _refuse("", _("the database refused the values: %(error)s") % {"error": exc}) from exc

    wrapper.__doc__ = func.__doc__
    wrapper.__name__ = func.__name__
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
    validate = rulesets.get(tournament.ruleset).validate
    old = set(check_references(before)) | set(validate(before))
    problems = check_references(after) + list(validate(after))
    fresh = [p for p in problems if p.path == prefix or p.path.startswith(prefix + ".")
             or p.path.startswith(prefix + "[") or p not in old]
    return strip_prefix(list(dict.fromkeys(fresh)), prefix)


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


def _parse_game_payload(data: dict) -> F.Game:
    r = Reader()
    game = parse_game(r, data, "")
    if r.problems or game is None:
        raise WriteRefused(strip_prefix(r.problems or [Problem("", _("not a game"))], ""))
    return game


@_database_guard
def create_game(user, data: Any) -> Game:
    """``POST /api/v1/games/``: a new game of a stage, with its seats."""
    data = _object(data)
    slug, stage_key = data.pop("tournament", None), data.pop("stage", None)
    data.pop("version", None)
    tournament = Tournament.objects.filter(slug=slug).first() if isinstance(slug, str) else None
    if tournament is None:
        raise _refuse("tournament", _("unknown tournament %(slug)r") % {"slug": slug})
    _require_organizer(user, tournament)
    stage = Stage.objects.filter(tournament=tournament, key=stage_key).first() if isinstance(stage_key, str) else None
    if stage is None:
        raise _refuse("stage", _("tournament %(slug)s has no stage %(key)r") % {"slug": slug, "key": stage_key})
    fgame = _parse_game_payload(data)
    with transaction.atomic():
        Stage.objects.select_for_update().filter(pk=stage.pk).first()
        if Game.objects.filter(stage=stage, number=fgame.number).exists():
            raise _refuse("number", _("stage %(key)s already has game %(number)d") % {
                "key": stage.key, "number": fgame.number})
        facts = load_facts(tournament)
        after, prefix = _replace_in_stage(facts, stage.key, "games", fgame, None)
        problems = judge(tournament, facts, after, prefix)
        if problems:
            raise WriteRefused(problems)
        game = Game(stage=stage, version=1)
        _write_game(game, stage, fgame, user)
    return game


@_database_guard
def update_game(user, pk: int, data: Any) -> Game:
    """``PUT /api/v1/games/ID/``: the game's new state, with the ``version`` read."""
    data = _object(data)
    with transaction.atomic():
        game = _lock(Game, pk)
        stage = game.stage
        tournament = stage.tournament
        _require_organizer(user, tournament)
        for key, current in (("tournament", tournament.slug), ("stage", stage.key)):
            given = data.pop(key, None)
            if given is not None and given != current:
                raise _refuse(key, _("a game cannot move to another tournament or stage"))
        _check_version(data, game, tournament)
        fgame = _parse_game_payload(data)
        if fgame.number != game.number and Game.objects.filter(stage=stage, number=fgame.number).exists():
            raise _refuse("number", _("stage %(key)s already has game %(number)d") % {
                "key": stage.key, "number": fgame.number})
        facts = load_facts(tournament)
        after, prefix = _replace_in_stage(facts, stage.key, "games", fgame, game.number)
        problems = judge(tournament, facts, after, prefix)
        if problems:
            raise WriteRefused(problems)
        game.version += 1
        _write_game(game, stage, fgame, user)
    return game


def _write_game(game: Game, stage: Stage, fgame: F.Game, user) -> None:
    problems = registry.for_tournament(stage.tournament).game_problems(stage, fgame, game.scheduled_classes or {})
    if problems:
        raise WriteRefused(problems)
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
        Seat(game=game, order=order, player=players[s.player], team=teams[s.team], role=s.role, stats=s.stats,
             timed_out=s.timed_out, days_played=s.days_played, maniac_kills=s.maniac_kills,
             in_final_phase=s.in_final_phase, fake_passport=s.fake_passport)
        for order, s in enumerate(fgame.seats)
    ])
    NoShowElimination.objects.bulk_create([
        NoShowElimination(game=game, team=teams[t], player=players[p]) for t, p in fgame.no_show_eliminated])
    game.absent_teams.set([teams[name] for name in fgame.absent_teams])


# --- a tour's masks ---


@_database_guard
def put_masks(user, pk: int, data: Any) -> Tour:
    """``PUT /api/v1/tours/ID/masks/``: the tour's masks, all of them, with the ``version`` read."""
    data = _object(data)
    with transaction.atomic():
        tour = _lock(Tour, pk)
        tournament = tour.stage.tournament
        _require_organizer(user, tournament)
        unknown = sorted(set(data) - MASKS_WRITE_KEYS)
        if unknown:
            raise WriteRefused([Problem(key, _("unknown key")) for key in unknown])
        _check_version(data, tour, tournament)
        masks = data.get("masks")
        if not isinstance(masks, dict):
            raise _refuse("masks", _("must be an object of team: mask"))
        r = Reader()
        parsed = parse_tour(r, {"number": tour.number, "questions": tour.questions, "masks": masks}, "")
        if r.problems or parsed is None:
            raise WriteRefused(strip_prefix(r.problems, ""))
        facts = load_facts(tournament)
        current = next(t for t in facts.stage(tour.stage.key).tours if t.number == tour.number)
        ftour = dataclasses.replace(current, masks=parsed.masks)
        after, prefix = _replace_in_stage(facts, tour.stage.key, "tours", ftour, tour.number)
        problems = judge(tournament, facts, after, prefix)
        if problems:
            raise WriteRefused(problems)
        _write_masks(tour, parsed.masks)
        tour.version += 1
        tour.updated_by = user.get_username()
        tour.save()
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

MAX_POINTS = Decimal("99999.999")


@_database_guard
def create_penalty(user, data: Any) -> Penalty:
    """``POST /api/v1/penalties/``: a judge's fair-play ruling (FL-18) as a fact."""
    data = _object(data)
    slug = data.pop("tournament", None)
    tournament = Tournament.objects.filter(slug=slug).first() if isinstance(slug, str) else None
    if tournament is None:
        raise _refuse("tournament", _("unknown tournament %(slug)r") % {"slug": slug})
    _require_judge(user, tournament)
    if data.get("decided_at") is None:
        data["decided_at"] = timezone.now().isoformat()
    r = Reader()
    fpen = parse_penalty(r, data, "")
    if r.problems or fpen is None:
        raise WriteRefused(strip_prefix(r.problems, ""))
    if fpen.points > MAX_POINTS or fpen.points != fpen.points.quantize(Decimal("0.001")):
        raise _refuse("points", _("at most %(max)s, with at most 3 decimals") % {"max": MAX_POINTS})
    with transaction.atomic():
        Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
        facts = load_facts(tournament)
        after = dataclasses.replace(facts, penalties=facts.penalties + (fpen,))
        problems = judge(tournament, facts, after, f"penalties[{len(facts.penalties)}]")
        if problems:
            raise WriteRefused(problems)
        stage = Stage.objects.filter(tournament=tournament, key=fpen.stage).first() if fpen.stage else None
        team = _team_named(tournament, stage, fpen.team)
        last = Penalty.objects.filter(tournament=tournament).order_by("-order").values_list("order", flat=True).first()
        penalty = Penalty.objects.create(
            tournament=tournament, order=(last + 1) if last is not None else 0, stage=stage,
            game=Game.objects.filter(stage=stage, number=fpen.game).first() if stage and fpen.game else None,
            team=team, player=Player.objects.filter(nick=fpen.player).first() if fpen.player else None,
            kind=fpen.kind, code=fpen.code or "", points=fpen.points, decided_at=fpen.decided_at, text=fpen.text)
    return penalty


def _team_named(tournament: Tournament, stage: Stage | None, name: str | None) -> Team | None:
    """A team by name, as the importer resolves it: the stage's own draw first, then the tournament's teams."""
    if name is None:
        return None
    teams = Team.objects.filter(tournament=tournament, name=name)
    return ((teams.filter(stage=stage).first() if stage is not None else None)
            or teams.filter(stage__isnull=True).first() or teams.first())


def delete_penalty(user, penalty: Penalty) -> None:
    _require_judge(user, penalty.tournament)
    with transaction.atomic():
        Penalty.objects.select_for_update().filter(pk=penalty.pk).first()
        penalty.delete()
