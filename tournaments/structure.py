"""The structure of a tournament, built by its organizers: stages, groups and their teams, ChGK
tours, scheduled Mafia game slots, the schedule's publication and the tournament's registration.

Every command here knows no HTTP and takes the acting ``user`` (``tournaments.commands``' conventions): it is the
organizers' act (``spec/roles.md``: "creates the tournament, its stages, tours and games, publishes schedules"),
refused with ``NotAllowed`` naming the rule for anyone else; it checks its input and refuses in words naming the
field (``Invalid``: ``key``, ``number``, ``name``, ...); it writes in one transaction, the tournament's row locked
so that two organizers cannot both take a key or a number; its rows are in the history with ``user`` (the row
signals are muted and one entry is recorded per row, ``tournaments.audit.record``). A change of facts is followed
by the recompute as every other one is: the fact rows' signals call ``tournaments.changes.mark_changed``, and a
change no signal sees (the tournament's own row, a bulk update of games) calls it itself.

A format's own act on a stage (the Grand Prix's per-stage registration, GP-2) is passed in by the caller
(``run_stage_act``): ``tournaments`` cannot import the format homes.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django.db import models, transaction
from django.db.models import Max
from django.db.models.deletion import Collector, ProtectedError, RestrictedError
from django.utils import timezone
from django.utils.translation import gettext as _

import rulesets
from accounts.models import Role
from accounts.permissions import has_role
from accounts.zones import moment_text
from rulesets.base import Problem
from rulesets.errors import Invalid, NotAllowed
from rulesets.interchange import MAX_QUESTIONS
from tournaments import audit, webhooks
from tournaments.changes import mark_changed
from tournaments.commands import _database_guard
from tournaments.models import (
    Game,
    GameStatus,
    Group,
    GroupTeam,
    Mask,
    Stage,
    Team,
    Tour,
    Tournament,
    TournamentStatus,
)

PUBLISH_DAYS_SETTING = "schedule_published_days_before"  # CB-2: a ruleset that asks for the table in advance
DEFAULT_QUESTIONS = 8  # CHGK-8


def refuse(path: str, message: str) -> Invalid:
    return Invalid(Problem(path, message))


def require_organizer(user, tournament: Tournament) -> None:
    """The organizers (and staff) build a tournament's structure (``spec/roles.md``)."""
    if not has_role(user, tournament, Role.ORGANIZER):
        raise NotAllowed(Problem("", _("Only the organizers of %(tournament)s build its structure: stages, groups, "
                                       "tours, game slots, the schedule's publication and registration "
                                       "(roles.md).") % {"tournament": tournament.name}))


def _lock(tournament: Tournament) -> Tournament:
    return Tournament.objects.select_for_update().get(pk=tournament.pk)


def _settings(tournament: Tournament) -> dict[str, Any]:
    return {**rulesets.get(tournament.ruleset).default_settings, **(tournament.settings or {})}


def _record(action: str, row, before: dict | None, after: dict | None, user) -> None:
    if action == "update":
        audit.record_change(action, row, before, after or {}, user=user)
    else:
        audit.record(action, row, before, after, user=user)


def _dependents(row: models.Model, allowed: tuple[type[models.Model], ...]) -> list[str]:
    """The kinds of rows, other than ``allowed``, that deleting ``row`` would delete or is protected by."""
    collector = Collector(using="default")
    try:
        collector.collect([row])
    except (ProtectedError, RestrictedError) as exc:
        return sorted({str(obj._meta.verbose_name_plural) for obj in exc.args[1]})
    kinds = {model for model, rows in collector.data.items() if rows}
    kinds |= {qs.model for qs in collector.fast_deletes if qs.exists()}
    names = {m._meta.label for m in allowed}
    return sorted({str(m._meta.verbose_name_plural) for m in kinds
                   if m._meta.label not in names and not m._meta.auto_created})


# --- stages ---


def _stage_key(tournament: Tournament, key: Any, *, but: Stage | None = None) -> str:
    keys = rulesets.get(tournament.ruleset).stage_keys
    key = (key or "").strip() if isinstance(key, str) else ""
    if key not in keys:
        raise refuse("key", _("choose one of the stage keys of the ruleset: %(keys)s") % {"keys": ", ".join(keys)})
    taken = Stage.objects.filter(tournament=tournament, key=key)
    if but is not None:
        taken = taken.exclude(pk=but.pk)
    if taken.exists():
        raise refuse("key", _("the tournament already has a stage %(key)s") % {"key": key})
    return key


def _seed(seed: Any) -> str:
    seed = (seed or "").strip() if isinstance(seed, str) else ""
    limit = Stage._meta.get_field("seed").max_length
    if len(seed) > limit:
        raise refuse("seed", _("a public draw seed has at most %(max)d characters") % {"max": limit})
    return seed


def _order(value: Any, path: str = "order") -> int | None:
    if value in (None, ""):
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 10_000:
        raise refuse(path, _("must be a whole number from 0 to 10000"))
    return value


@_database_guard
def add_stage(user, tournament: Tournament, key: Any, *, order: Any = None, seed: Any = "") -> Stage:
    """A new stage of one of the ruleset's stage keys, not yet taken; without ``order``, its place in the ruleset's
    order of play."""
    require_organizer(user, tournament)
    with transaction.atomic():
        tournament = _lock(tournament)
        key = _stage_key(tournament, key)
        seed = _seed(seed)
        order = _order(order)
        if order is None:
            order = rulesets.get(tournament.ruleset).stage_keys.index(key)
        with audit.muted():
            stage = Stage.objects.create(tournament=tournament, key=key, order=order, seed=seed)
        _record("create", stage, None, audit.snapshot(stage), user)
    return stage


def _has_results(stage: Stage) -> bool:
    return stage.games.exists() or stage.tours.exists()


@_database_guard
def update_stage(user, stage: Stage, *, key: Any = None, order: Any = None, seed: Any = None) -> Stage:
    """Change a stage's key (only while it has no games or tours), order or public draw seed; ``None`` keeps it."""
    tournament = stage.tournament
    require_organizer(user, tournament)
    with transaction.atomic():
        tournament = _lock(tournament)
        stage = Stage.objects.select_for_update().get(pk=stage.pk)
        before = audit.snapshot(stage)
        if key is not None and key != stage.key:
            new_key = _stage_key(tournament, key, but=stage)
            if new_key != stage.key and _has_results(stage):
                raise refuse("key", _("stage %(key)s has games or tours: its key no longer changes") % {
                    "key": stage.key})
            stage.key = new_key
        if order is not None:
            stage.order = _order(order)
        if seed is not None:
            stage.seed = _seed(seed)
        with audit.muted():
            stage.save()
        _record("update", stage, before, audit.snapshot(stage), user)
    return stage


def publish_schedule(user, stage: Stage, now: dt.datetime | None = None) -> Stage:
    """Publish the stage's schedule: ``published_at`` is now. A late publication is allowed; the pages flag it
    (``publication_lateness``, CB-2, ``spec/roles.md``)."""
    tournament = stage.tournament
    require_organizer(user, tournament)
    with transaction.atomic():
        _lock(tournament)
        stage = Stage.objects.select_for_update().get(pk=stage.pk)
        if stage.published_at is not None:
            raise refuse("published_at", _("the schedule of stage %(key)s was published on %(time)s") % {
                "key": stage.key, "time": moment_text(stage.published_at, tournament.timezone)})
        if not _has_results(stage):
            raise refuse("published_at", _("stage %(key)s has no games or tours yet: there is no schedule to "
                                           "publish") % {"key": stage.key})
        before = audit.snapshot(stage)
        stage.published_at = now or timezone.now()
        with audit.muted():
            stage.save(update_fields=["published_at"])
        _record("update", stage, before, audit.snapshot(stage), user)
        webhooks.schedule_changed(tournament, stage, "published")
    return stage


def stage_starts_at(stage: Stage) -> dt.datetime | None:
    """When the stage starts: its first scheduled game's time (None without one)."""
    return stage.games.exclude(scheduled_at__isnull=True).order_by("scheduled_at").values_list(
        "scheduled_at", flat=True).first()


def publication_lateness(tournament: Tournament, published_at: dt.datetime | None,
                         starts_at: dt.datetime | None) -> dict[str, int] | None:
    """``{"hours": hours before the start, "required": hours the rules ask for}`` when the stage's schedule was
    published later than the ruleset's setting asks (CB-2: ``schedule_published_days_before`` days); None when it
    was in time, is not published, the stage has no start, or the ruleset asks nothing."""
    days = _settings(tournament).get(PUBLISH_DAYS_SETTING)
    if published_at is None or starts_at is None or not isinstance(days, int) or isinstance(days, bool):
        return None
    if published_at <= starts_at - dt.timedelta(days=days):
        return None
    return {"hours": int((starts_at - published_at).total_seconds() // 3600), "required": days * 24}


def delete_stage(user, stage: Stage) -> None:
    """Delete an empty stage: no games, tours, teams of its own or anything else naming it; its groups go with it."""
    tournament = stage.tournament
    require_organizer(user, tournament)
    with transaction.atomic():
        _lock(tournament)
        stage = Stage.objects.select_for_update().get(pk=stage.pk)
        held = _dependents(stage, (Stage, Group, GroupTeam))
        if held:
            raise refuse("key", _("stage %(key)s is not empty: it holds %(rows)s") % {
                "key": stage.key, "rows": ", ".join(held)})
        before = {**audit.snapshot(stage), "groups": list(stage.groups.order_by("order").values_list("name",
                                                                                                      flat=True))}
        _record("delete", stage, before, None, user)
        with audit.muted():
            stage.delete()
        mark_changed(tournament.pk)


# --- groups ---


def _group_name(stage: Stage, name: Any, *, but: Group | None = None) -> str:
    name = (name or "").strip() if isinstance(name, str) else ""
    limit = Group._meta.get_field("name").max_length
    if not name:
        raise refuse("name", _("name the group"))
    if len(name) > limit:
        raise refuse("name", _("a group's name has at most %(max)d characters") % {"max": limit})
    taken = Group.objects.filter(stage=stage, name=name)
    if but is not None:
        taken = taken.exclude(pk=but.pk)
    if taken.exists():
        raise refuse("name", _("stage %(stage)s already has a group %(name)s") % {"stage": stage.key,
                                                                                  "name": name})
    return name


@_database_guard
def add_group(user, stage: Stage, name: Any) -> Group:
    """A new group of the stage, last in its order."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        _lock(stage.tournament)
        name = _group_name(stage, name)
        order = (Group.objects.filter(stage=stage).aggregate(m=Max("order"))["m"] or 0) + 1
        with audit.muted():
            group = Group.objects.create(stage=stage, name=name, order=order)
        _record("create", group, None, audit.snapshot(group), user)
    return group


@_database_guard
def rename_group(user, group: Group, name: Any) -> Group:
    """A new name of the group; its games are named by it too (their ``group_label``)."""
    stage = group.stage
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        _lock(stage.tournament)
        group = Group.objects.select_for_update().get(pk=group.pk)
        name = _group_name(stage, name, but=group)
        before = audit.snapshot(group)
        group.name = name
        with audit.muted():
            group.save(update_fields=["name"])
        if Game.objects.filter(group=group).update(group_label=name):
            mark_changed(stage.tournament_id)
        _record("update", group, before, audit.snapshot(group), user)
    return group


def delete_group(user, group: Group) -> None:
    """Delete a group no game is played in; its teams leave it."""
    stage = group.stage
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        _lock(stage.tournament)
        group = Group.objects.select_for_update().get(pk=group.pk)
        numbers = list(Game.objects.filter(group=group).order_by("number").values_list("number", flat=True))
        if numbers:
            raise refuse("group", _("games %(numbers)s are played in group %(name)s: move them to another group "
                                    "first") % {"numbers": ", ".join(map(str, numbers)), "name": group.name})
        before = {**audit.snapshot(group), "teams": list(group.teams.order_by("groupteam__order").values_list(
            "name", flat=True))}
        _record("delete", group, before, None, user)
        with audit.muted():
            group.delete()


def stage_teams(stage: Stage) -> list[Team]:
    """The teams a stage's groups may hold: the tournament's teams and the stage's own draw."""
    return list(Team.objects.filter(models.Q(stage__isnull=True) | models.Q(stage=stage),
                                    tournament_id=stage.tournament_id).order_by("stage_id", "order", "name"))


@_database_guard
def put_team_in_group(user, group: Group, team: Team) -> GroupTeam:
    """Put a team of the tournament (or of the stage's own draw) in the group; a team in another group of the
    stage moves (a team is in one group of a stage)."""
    stage = group.stage
    require_organizer(user, stage.tournament)
    if team.tournament_id != stage.tournament_id or team.stage_id not in (None, stage.pk):
        raise refuse("team", _("%(team)s is not a team of stage %(stage)s") % {"team": team.name,
                                                                              "stage": stage.key})
    with transaction.atomic():
        _lock(stage.tournament)
        current = GroupTeam.objects.select_for_update().filter(group__stage=stage, team=team).select_related(
            "group").first()
        if current is not None and current.group_id == group.pk:
            raise refuse("team", _("%(team)s is already in group %(name)s") % {"team": team.name,
                                                                              "name": group.name})
        order = (GroupTeam.objects.filter(group=group).aggregate(m=Max("order"))["m"] or 0) + 1
        with audit.muted():
            if current is not None:
                before = audit.snapshot(current)
                current.group, current.order = group, order
                current.save(update_fields=["group", "order"])
                _record("update", current, before, audit.snapshot(current), user)
                return current
            row = GroupTeam.objects.create(group=group, team=team, order=order)
        _record("create", row, None, audit.snapshot(row), user)
    return row


def remove_team_from_group(user, group: Group, team: Team) -> None:
    """The team leaves the group."""
    require_organizer(user, group.stage.tournament)
    with transaction.atomic():
        _lock(group.stage.tournament)
        row = GroupTeam.objects.select_for_update().filter(group=group, team=team).first()
        if row is None:
            raise refuse("team", _("%(team)s is not in group %(name)s") % {"team": team.name, "name": group.name})
        _record("delete", row, audit.snapshot(row), None, user)
        with audit.muted():
            row.delete()


# --- ChGK tours ---


def _require_rounds(tournament: Tournament, rounds: str, path: str) -> None:
    if rulesets.get(tournament.ruleset).rounds != rounds:
        raise refuse(path, _("the ruleset of %(tournament)s plays games of Mafia, not tours of questions")
                     % {"tournament": tournament.name} if rounds == "tours" else
                     _("the ruleset of %(tournament)s plays tours of questions, not games of Mafia")
                     % {"tournament": tournament.name})


def _whole(value: Any, path: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise refuse(path, _("must be a whole number from %(low)d to %(high)d") % {"low": low, "high": high})
    return value


def _host(tournament: Tournament, host: Team | None) -> Team | None:
    if host is not None and (host.tournament_id != tournament.pk or host.stage_id is not None):
        raise refuse("host", _("%(team)s is not a team of %(tournament)s") % {"team": host.name,
                                                                             "tournament": tournament.name})
    return host


def default_questions(tournament: Tournament) -> int:
    """The questions of a tour as the tournament's settings have it (CHGK-8)."""
    value = _settings(tournament).get("questions_per_tour", DEFAULT_QUESTIONS)
    return value if isinstance(value, int) and not isinstance(value, bool) else DEFAULT_QUESTIONS


def _tour_number(tournament: Tournament, number: Any, *, but: Tour | None = None) -> int:
    number = _whole(number, "number", 1, 10_000)
    taken = Tour.objects.filter(stage__tournament=tournament, number=number)
    if but is not None:
        taken = taken.exclude(pk=but.pk)
    if taken.exists():
        raise refuse("number", _("tour %(number)d is taken: the tournament already has it") % {"number": number})
    return number


def _own_fields(row: Tour | Game) -> dict[str, Any]:
    """A tour's or a game's own fields as the history reads them (related rows by their keys: the page shows
    their names)."""
    return {k: v for k, v in audit.snapshot(row).items() if k not in ("version", "updated_by", "revision")}


@_database_guard
def add_tour(user, stage: Stage, number: Any, *, host: Team | None = None, played_on: dt.date | None = None,
             questions: Any = None) -> Tour:
    """A new ChGK tour of the stage: its number (not taken in the tournament), host team, date and number of
    questions (CHGK-7, CHGK-8); its masks are then entered on ``/t/SLUG/tours/N/enter/``."""
    tournament = stage.tournament
    require_organizer(user, tournament)
    _require_rounds(tournament, "tours", "number")
    with transaction.atomic():
        _lock(tournament)
        number = _tour_number(tournament, number)
        questions = _whole(default_questions(tournament) if questions in (None, "") else questions, "questions",
                           1, MAX_QUESTIONS)
        host = _host(tournament, host)
        with audit.muted():
            tour = Tour.objects.create(stage=stage, number=number, host=host, played_on=played_on,
                                       questions=questions, updated_by=user.get_username())
        _record("create", tour, None, _own_fields(tour), user)
        webhooks.schedule_changed(tournament, stage, "added", tour=tour.number)
    return tour


_KEEP: Any = object()


@_database_guard
def update_tour(user, tour: Tour, *, number: Any = _KEEP, host: Any = _KEEP, played_on: Any = _KEEP,
                questions: Any = _KEEP) -> Tour:
    """Change a tour's number, host, date or number of questions (a field not given is kept). The questions do not
    change once masks are entered (each mask holds one mark a question); the tour's version moves, so a masks form
    opened before is told to reload."""
    tournament = tour.stage.tournament
    require_organizer(user, tournament)
    with transaction.atomic():
        _lock(tournament)
        tour = Tour.objects.select_for_update(of=("self",)).select_related("stage", "host").get(pk=tour.pk)
        before = _own_fields(tour)
        if number is not _KEEP:
            tour.number = _tour_number(tournament, number, but=tour)
        if host is not _KEEP:
            tour.host = _host(tournament, host)
        if played_on is not _KEEP:
            tour.played_on = played_on
        if questions is not _KEEP and questions not in (None, ""):
            questions = _whole(questions, "questions", 1, MAX_QUESTIONS)
            if questions != tour.questions and Mask.objects.filter(tour=tour).exists():
                raise refuse("questions", _("tour %(number)d has masks of %(count)d marks: its number of questions "
                                            "no longer changes") % {"number": tour.number, "count": tour.questions})
            tour.questions = questions
        after = _own_fields(tour)
        if after == before:
            return tour
        tour.version += 1
        tour.updated_by = user.get_username()
        with audit.muted():
            tour.save()
        _record("update", tour, before, after, user)
        webhooks.schedule_changed(tournament, tour.stage, "changed", tour=tour.number)
    return tour


def delete_tour(user, tour: Tour) -> None:
    """Delete a tour with nothing entered: no masks, questions or appeals."""
    tournament = tour.stage.tournament
    require_organizer(user, tournament)
    with transaction.atomic():
        _lock(tournament)
        tour = Tour.objects.select_for_update(of=("self",)).select_related("stage", "host").get(pk=tour.pk)
        held = _dependents(tour, (Tour,))
        if held:
            raise refuse("number", _("tour %(number)d is not empty: it holds %(rows)s") % {
                "number": tour.number, "rows": ", ".join(held)})
        _record("delete", tour, _own_fields(tour), None, user)
        webhooks.schedule_changed(tournament, tour.stage, "removed", tour=tour.number)
        with audit.muted():
            tour.delete()


# --- Mafia game slots ---


@_database_guard
def add_game_slot(user, stage: Stage, number: Any, *, group: Group | None = None,
                  scheduled_at: dt.datetime | None = None) -> Game:
    """A scheduled game of the stage (no result yet): its number (not taken in the stage), group and time; its
    result is then entered on the game's entry page."""
    tournament = stage.tournament
    require_organizer(user, tournament)
    _require_rounds(tournament, "games", "number")
    if group is not None and group.stage_id != stage.pk:
        raise refuse("group", _("group %(name)s is not a group of stage %(stage)s") % {"name": group.name,
                                                                                      "stage": stage.key})
    if scheduled_at is not None and timezone.is_naive(scheduled_at):
        raise refuse("scheduled_at", _("give the time with its zone"))
    with transaction.atomic():
        _lock(tournament)
        number = _whole(number, "number", 1, 100_000)
        if Game.objects.filter(stage=stage, number=number).exists():
            raise refuse("number", _("game %(number)d is taken: stage %(stage)s already has it") % {
                "number": number, "stage": stage.key})
        with audit.muted():
            game = Game.objects.create(stage=stage, number=number, group=group,
                                       group_label=group.name if group else "", scheduled_at=scheduled_at,
                                       status=GameStatus.SCHEDULED, updated_by=user.get_username())
        _record("create", game, None, _own_fields(game), user)
        webhooks.schedule_changed(tournament, stage, "added", game=game.number)
    return game


def delete_game_slot(user, game: Game) -> None:
    """Delete a scheduled game that nothing was entered for: no result, seats, absences, penalties or appeals
    (a played game is corrected or replayed by its stage's judges, never deleted)."""
    tournament = game.stage.tournament
    require_organizer(user, tournament)
    with transaction.atomic():
        _lock(tournament)
        game = Game.objects.select_for_update(of=("self",)).select_related("stage", "group").get(pk=game.pk)
        if game.status != GameStatus.SCHEDULED:
            raise refuse("number", _("game %(number)d has a result: it is corrected, not deleted") % {
                "number": game.number})
        held = _dependents(game, (Game,))
        if held:
            raise refuse("number", _("game %(number)d is not empty: it holds %(rows)s") % {
                "number": game.number, "rows": ", ".join(held)})
        _record("delete", game, _own_fields(game), None, user)
        webhooks.schedule_changed(tournament, game.stage, "removed", game=game.number)
        with audit.muted():
            game.delete()


# --- registration ---


def registration_is_open(tournament: Tournament, now: dt.datetime | None = None) -> bool:
    """Open while the tournament takes registrations and its deadline, if any, has not passed (FL-2, CHGK-1)."""
    now = now or timezone.now()
    deadline = tournament.registration_deadline
    return tournament.status == TournamentStatus.REGISTRATION and (deadline is None or now <= deadline)


def _registration_state(tournament: Tournament) -> dict[str, Any]:
    deadline = tournament.registration_deadline
    return {"status": tournament.status, "registration_deadline": deadline.astimezone(dt.UTC).isoformat()
            if deadline else None}


def open_registration(user, tournament: Tournament, deadline: dt.datetime,
                      now: dt.datetime | None = None) -> Tournament:
    """Open the tournament's registration until ``deadline`` (FL-2, CHGK-1): its status becomes "registration
    open". Refused for a finished tournament and for a deadline that has passed."""
    require_organizer(user, tournament)
    now = now or timezone.now()
    if deadline is None or timezone.is_naive(deadline):
        raise refuse("registration_deadline", _("give the deadline, a date and time"))
    if deadline <= now:
        raise refuse("registration_deadline", _("the deadline %(time)s has passed") % {
            "time": moment_text(deadline, tournament.timezone)})
    with transaction.atomic():
        tournament = _lock(tournament)
        if tournament.status == TournamentStatus.FINISHED:
            raise refuse("status", _("%(tournament)s is finished: its registration does not open") % {
                "tournament": tournament.name})
        before = _registration_state(tournament)
        tournament.status, tournament.registration_deadline = TournamentStatus.REGISTRATION, deadline
        with audit.muted():
            tournament.save(update_fields=["status", "registration_deadline"])
        _record("open", tournament, before, _registration_state(tournament), user)
        mark_changed(tournament.pk)
    return tournament


def close_registration(user, tournament: Tournament, now: dt.datetime | None = None) -> Tournament:
    """Close the tournament's registration now: the deadline becomes now (FL-2, CHGK-5 read it), and a tournament
    taking registrations is running."""
    require_organizer(user, tournament)
    now = now or timezone.now()
    with transaction.atomic():
        tournament = _lock(tournament)
        if not registration_is_open(tournament, now):
            raise refuse("registration_deadline", _("the registration of %(tournament)s is not open") % {
                "tournament": tournament.name})
        before = _registration_state(tournament)
        tournament.registration_deadline = now
        tournament.status = TournamentStatus.RUNNING
        with audit.muted():
            tournament.save(update_fields=["status", "registration_deadline"])
        _record("update", tournament, before, _registration_state(tournament), user)
        mark_changed(tournament.pk)
    return tournament


def run_stage_act(user, stage: Stage, act: Callable[..., Any]) -> Any:
    """A format's own act on a stage (the Grand Prix's ``open_registration``, GP-2), as the organizers' act, in one
    transaction with the tournament locked; the act audits itself."""
    require_organizer(user, stage.tournament)
    with transaction.atomic():
        _lock(stage.tournament)
        return act(stage, user=user)
