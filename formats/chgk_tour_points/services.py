"""ChGK season setup services: applications and admission (CHGK-1, CHGK-5), the hosting draw (CHGK-7),
a tour's pack (CHGK-8, CHGK-9) and the checklists (CHGK-11).

The rules themselves are the pure functions of ``rulesets.chgk_tour_points.season``;
this module reads and writes the rows they need. Refusals raise ``Refused``
with the rules' problems (each names its rule code).
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
import zoneinfo
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from accounts.models import Player, Role
from accounts.permissions import confirmed_player_of, has_role
from accounts.zones import moment_text
from formats.chgk_tour_points.models import ApplicationStatus, ChgkApplication, ChgkChecklistDone, ChgkHostingWish
from rulesets.base import Problem
from rulesets.chgk_tour_points import KEY
from rulesets.chgk_tour_points import season as rules
from rulesets.errors import Conflict, Invalid, NotAllowed, NotFound
from tournaments import audit
from tournaments.models import Question, RosterEntry, Stage, Team, Tour, Tournament, TournamentStatus
from tournaments.rosters import roster_conflict_message
from tournaments.structure import registration_is_open

SEASON_STAGE = "season"
FAR_FUTURE = dt.datetime(9999, 1, 1, tzinfo=dt.UTC)


class Refused(Invalid):
    """An action the rules refuse; ``problems`` name the field and the rule code."""

    def __init__(self, problems: Sequence[Problem | str]):
        super().__init__(list(problems))


def split_names(raw: str) -> list[str]:
    """Names one per line (or separated by commas / semicolons), blanks dropped."""
    return [name.strip() for name in re.split(r"[\n,;]+", raw or "") if name.strip()]


def season_stage(tournament: Tournament, create: bool = True) -> Stage:
    """The season's stage (key ``season``, else the first); created when a write needs it, unsaved on reads."""
    stage = Stage.objects.filter(tournament=tournament, key=SEASON_STAGE).first()
    if stage is None:
        stage = Stage.objects.filter(tournament=tournament).order_by("order").first()
    if stage is None:
        stage = Stage(tournament=tournament, key=SEASON_STAGE)
        if create:
            stage.save()
    stage.tournament = tournament
    return stage


# ---------------------------------------------------------------- applications and admission (CHGK-1, CHGK-5)

APPLY_ACTION = "chgk_apply"  # audit actions (``AuditEntry.action``, at most 32 characters)
ADMIT_ACTION = "chgk_admit"
REFUSE_ACTION = "chgk_refuse"


class ApplicationNotAllowed(Refused, NotAllowed):
    """The acting user may not file or decide this application (403)."""


class ApplicationDecided(Refused, Conflict):
    """The application is already admitted or refused (409)."""


def require_season(tournament: Tournament) -> Tournament:
    """``tournament`` when it is a ChGK season; else a refusal: it takes no ChGK applications."""
    if tournament.ruleset != KEY:
        raise NotFound([Problem("", _("%(tournament)s is not a ChGK season.") % {"tournament": tournament.name})])
    return tournament


def may_decide(user, tournament: Tournament) -> bool:
    """The organizing committee admits and refuses applications (CHGK-5): the organizers and the curator."""
    return has_role(user, tournament, Role.ORGANIZER, Role.CURATOR)


def decide_refusal(tournament: Tournament) -> ApplicationNotAllowed:
    return ApplicationNotAllowed([Problem("", _("Only the organizers of %(tournament)s admit or refuse its "
                                                "applications (CHGK-5).") % {"tournament": tournament.name})])


def as_rule(application: ChgkApplication) -> rules.Application:
    return rules.Application(team=application.team_name, filed_at=application.filed_at,
                             captain=application.captain or None, players=tuple(application.players),
                             home_university=application.home_university, league=application.league,
                             played_tournaments=tuple(split_names(application.played_tournaments)))


def application_state(application: ChgkApplication) -> dict:
    """What the audit trail keeps of a new application: its contents and where it stands (a decision keeps
    only what it changes)."""
    return {"team_name": application.team_name, "captain": application.captain, "players": application.players,
            "home_university": application.home_university, "league": application.league,
            "status": application.status, "refusal_reason": application.refusal_reason,
            "team": application.team_id}


def applications_open(tournament: Tournament, now: dt.datetime | None = None) -> bool:
    """A captain applies while the season takes registrations (status "registration open"), until its
    deadline if it has one (CHGK-1)."""
    return registration_is_open(tournament, now)


def _closed_problem(tournament: Tournament, now: dt.datetime) -> Problem | None:
    if applications_open(tournament, now):
        return None
    deadline = tournament.registration_deadline
    if tournament.status == TournamentStatus.REGISTRATION and deadline is not None:
        return Problem("", _("Applications to %(tournament)s closed at %(deadline)s (CHGK-1).") % {
            "tournament": tournament.name, "deadline": moment_text(deadline, tournament.timezone)})
    return Problem("", _("%(tournament)s does not take applications now: its registration is not open "
                         "(CHGK-1).") % {"tournament": tournament.name})


def _listed_elsewhere(tournament: Tournament, names: Sequence[str]) -> list[Problem]:
    """A player is on one team of the season: on an admitted team's roster or in another pending application."""
    wanted = set(names)
    problems: list[Problem] = []
    seen: set[str] = set()
    rostered = (Team.objects.filter(tournament=tournament, stage__isnull=True, roster__player__nick__in=wanted)
                .order_by("order", "pk").values_list("roster__player__nick", "name"))
    for nick, team_name in rostered:
        if nick not in seen:
            seen.add(nick)
            problems.append(Problem("players", roster_conflict_message(nick, Team(name=team_name))))
    pending = ChgkApplication.objects.filter(tournament=tournament, status=ApplicationStatus.PENDING,
                                             team__isnull=True).values_list("team_name", "players")
    for team_name, players in pending:
        for nick in sorted(wanted.intersection(players) - seen):
            seen.add(nick)
            problems.append(Problem("players", _("%(player)s is already listed in the application of %(team)s: "
                                                 "a player applies with one team of the season (CHGK-1).")
                                    % {"player": nick, "team": team_name}))
    return problems


@transaction.atomic
def file_application(tournament: Tournament, *, team_name: str, captain: str, players: Sequence[str],
                     home_university: bool, league: str, played_tournaments: str = "",
                     filed_at: dt.datetime | None = None, user=None,
                     captain_player: Player | None = None) -> ChgkApplication:
    """Record a team's application after ``check_application`` (CHGK-1, CHGK-2), audited.

    ``captain_player``: the captain files it from the season's page; then it is refused unless the
    registration is open (``applications_open``). An organizer recording a paper application may record a late one: it queues
    after the teams with priority (CHGK-5).
    """
    Tournament.objects.select_for_update().filter(pk=tournament.pk).first()  # one application at a time
    application = ChgkApplication(tournament=tournament, team_name=team_name.strip(), captain=captain.strip(),
                                  players=[p.strip() for p in players], home_university=home_university,
                                  league=league, played_tournaments=played_tournaments.strip(),
                                  filed_at=filed_at or timezone.now(), captain_player=captain_player,
                                  filed_by=user if getattr(user, "is_authenticated", False) else None)
    problems: list[Problem] = []
    closed = _closed_problem(tournament, application.filed_at) if captain_player is not None else None
    if closed is not None:
        problems.append(closed)
    problems += rules.check_application(as_rule(application))
    too_long = [name for name in [application.team_name, application.captain, *application.players] if len(name) > 100]
    if too_long:
        problems.append(Problem("players", _("A name is longer than 100 characters: %(name)s (CHGK-1).") % {
            "name": too_long[0][:100]}))
    if ChgkApplication.objects.filter(tournament=tournament, team_name=application.team_name).exists():
        problems.append(Problem("team", _("%(team)s has already applied (CHGK-1).") % {
            "team": application.team_name}))
    problems += _listed_elsewhere(tournament, application.players)
    if problems:
        raise Refused(problems)
    application.save()
    audit.record(APPLY_ACTION, application, None, application_state(application), user=user)
    return application


def apply_as_captain(user, tournament: Tournament, *, team_name: str, players: Sequence[str],
                     home_university: bool, league: str, played_tournaments: str = "",
                     now: dt.datetime | None = None) -> ChgkApplication:
    """A signed-in player applies for a team from the season's page and is its captain (CHGK-1).

    The checks are ``file_application``'s, with the deadline; the captain is the user's confirmed player.
    """
    player = confirmed_player_of(user)
    if player is None:
        raise ApplicationNotAllowed([Problem("", _("Only a signed-in player whose account is confirmed applies "
                                                   "for a team; the captain is one of its players (CHGK-1)."))])
    names = [player.nick, *[name for name in players if name.strip() != player.nick]]
    return file_application(tournament, team_name=team_name, captain=player.nick, players=names,
                            home_university=home_university, league=league, played_tournaments=played_tournaments,
                            filed_at=now, user=user, captain_player=player)


def deadline_of(tournament: Tournament) -> dt.datetime:
    return tournament.registration_deadline or FAR_FUTURE


@dataclass(frozen=True)
class QueueRow:
    entry: rules.QueueEntry
    application: ChgkApplication


def season_applications(tournament: Tournament) -> list[ChgkApplication]:
    """Every application of the season with its team, in one query."""
    return list(ChgkApplication.objects.filter(tournament=tournament).select_related("team"))


def queue(tournament: Tournament, limit: int | None,
          applications: Sequence[ChgkApplication] | None = None) -> list[QueueRow]:
    """The admission queue (CHGK-5) with its applications, in one query; a refused application is not in it."""
    if applications is None:
        applications = season_applications(tournament)
    waiting = [a for a in applications if a.status != ApplicationStatus.REFUSED]
    by_name = {a.team_name: a for a in waiting}
    entries = rules.admission_queue([as_rule(a) for a in waiting], deadline_of(tournament), limit)
    return [QueueRow(entry, by_name[entry.team]) for entry in entries]


def _is_pending(application: ChgkApplication) -> bool:
    return application.status == ApplicationStatus.PENDING and application.team_id is None


@transaction.atomic
def admit(tournament: Tournament, limit: int | None, user=None) -> list[Team]:
    """Create the ``Team`` and ``RosterEntry`` rows of every admitted application not yet admitted (CHGK-5)."""
    Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
    rows = [row for row in queue(tournament, limit) if row.entry.admitted and _is_pending(row.application)]
    return _create_teams(tournament, [row.application for row in rows], user)


def _create_teams(tournament: Tournament, applications: Sequence[ChgkApplication], user) -> list[Team]:
    if not applications:
        return []
    names = {name for application in applications for name in application.players}
    players = {p.nick: p for p in Player.objects.filter(nick__in=names)}
    missing = [Player(nick=name, full_name=name) for name in sorted(names - set(players))]
    for player in missing:
        player.save()
        players[player.nick] = player
    taken = set(Team.objects.filter(tournament=tournament, stage__isnull=True).values_list("name", flat=True))
    order = Team.objects.filter(tournament=tournament).count()
    created: list[Team] = []
    now = timezone.now()
    for application in applications:
        if application.team_name in taken:
            raise Refused([Problem("team", _("A team named %(team)s already plays in this tournament (CHGK-5).")
                                   % {"team": application.team_name})])
        order += 1
        captain = application.captain_player or players.get(application.captain)
        team = Team.objects.create(tournament=tournament, name=application.team_name, order=order,
                                   league=application.league, home_university=application.home_university,
                                   captain=captain)
        for index, name in enumerate(application.players):
            player = captain if captain is not None and name == application.captain else players[name]
            RosterEntry.objects.create(team=team, player=player, order=index, joined_at=now)
        application.team = team
        application.status = ApplicationStatus.ADMITTED
        application.decided_at = now
        application.decided_by = user if getattr(user, "is_authenticated", False) else None
        application.save(update_fields=["team", "status", "decided_at", "decided_by"])
        audit.record(ADMIT_ACTION, application, {"status": ApplicationStatus.PENDING.value, "team": None},
                     {"status": application.status, "team": team.pk}, user=user)
        created.append(team)
    return created


def _locked_pending(tournament: Tournament, application_id: int) -> ChgkApplication:
    """The application, locked for the decision; refused when it is not the season's or already decided."""
    Tournament.objects.select_for_update().filter(pk=tournament.pk).first()
    application = ChgkApplication.objects.select_for_update().filter(tournament=tournament, pk=application_id).first()
    if application is None:
        raise NotFound([Problem("application", _("No such application in %(tournament)s.")
                                % {"tournament": tournament.name})])
    if application.status == ApplicationStatus.REFUSED:
        raise ApplicationDecided([Problem("application", _("The application of %(team)s is already refused "
                                                           "(CHGK-5).") % {"team": application.team_name})])
    if not _is_pending(application):
        raise ApplicationDecided([Problem("application", _("%(team)s is already admitted (CHGK-5).")
                                          % {"team": application.team_name})])
    return application


@transaction.atomic
def admit_application(user, tournament: Tournament, application_id: int, limit: int | None = None) -> Team:
    """Admit one application, as the queue would (CHGK-5): only one within the first ``limit`` of the queue."""
    if not may_decide(user, tournament):
        raise decide_refusal(tournament)
    application = _locked_pending(tournament, application_id)
    row = next(row for row in queue(tournament, limit) if row.application.pk == application.pk)
    if not row.entry.admitted:
        raise Refused([Problem("application", _(
            "%(team)s is number %(position)s in the queue and the limit is %(limit)s teams: first the "
            "host-university teams that applied before the deadline, then all others, each group in order of "
            "application time (CHGK-5).") % {"team": application.team_name, "position": row.entry.position,
                                              "limit": limit})])
    return _create_teams(tournament, [application], user)[0]


@transaction.atomic
def refuse_application(user, tournament: Tournament, application_id: int, reason: str) -> ChgkApplication:
    """Refuse one pending application with the reason its captain reads on the season's page (CHGK-5)."""
    if not may_decide(user, tournament):
        raise decide_refusal(tournament)
    application = _locked_pending(tournament, application_id)
    reason = (reason or "").strip()
    if not reason:
        raise Refused([Problem("reason", _("Give the reason of the refusal: the team's captain reads it "
                                           "(CHGK-5)."))])
    application.status = ApplicationStatus.REFUSED
    application.refusal_reason = reason
    application.decided_at = timezone.now()
    application.decided_by = user
    application.save(update_fields=["status", "refusal_reason", "decided_at", "decided_by"])
    audit.record(REFUSE_ACTION, application, {"status": ApplicationStatus.PENDING.value, "refusal_reason": ""},
                 {"status": application.status, "refusal_reason": reason}, user=user)
    return application


def applications_of(user, tournament: Tournament,
                    applications: Sequence[ChgkApplication]) -> list[ChgkApplication]:
    """The applications among ``applications`` that ``user`` filed or captains."""
    if not getattr(user, "is_authenticated", False):
        return []
    player = confirmed_player_of(user)
    return [a for a in applications
            if a.filed_by_id == user.pk or (player is not None and a.captain_player_id == player.pk)]


# ---------------------------------------------------------------- hosting draw (CHGK-7)

def parse_wish_items(raw: str) -> list[int | str]:
    """Tour numbers and ISO dates, separated by commas or spaces; anything else is refused."""
    items: list[int | str] = []
    for token in re.split(r"[\s,;]+", raw or ""):
        if not token:
            continue
        if token.isdigit():
            items.append(int(token))
            continue
        try:
            items.append(dt.date.fromisoformat(token).isoformat())
        except ValueError:
            raise Refused([Problem("wish", _("%(item)s is neither a tour number nor a date YYYY-MM-DD (CHGK-7).")
                                   % {"item": token})]) from None
    return items


def _wish_values(items: Iterable[int | str]) -> frozenset[int | dt.date]:
    return frozenset(dt.date.fromisoformat(i) if isinstance(i, str) else int(i) for i in items)


def save_wish(team: Team, prefers: str, cannot: str) -> ChgkHostingWish:
    wish, _created = ChgkHostingWish.objects.update_or_create(
        team=team, defaults={"prefers": parse_wish_items(prefers), "cannot": parse_wish_items(cannot)})
    return wish


def season_teams(tournament: Tournament) -> list[Team]:
    return list(Team.objects.filter(tournament=tournament).select_related("hosting_wish").order_by("order", "name"))


def parse_dates(raw: str) -> list[dt.date]:
    dates = []
    for token in re.split(r"[\s,;]+", raw or ""):
        if token:
            try:
                dates.append(dt.date.fromisoformat(token))
            except ValueError:
                raise Refused([Problem("dates", _("%(item)s is not a date YYYY-MM-DD (CHGK-7).")
                                       % {"item": token})]) from None
    return dates


def new_seed() -> str:
    return secrets.token_hex(8)


def draw(tournament: Tournament, seed: str, dates: Sequence[dt.date] = ()) -> list[Tour]:
    """Draw the hosting order with ``seed`` and the teams' wishes (CHGK-7), then schedule the tours."""
    teams = season_teams(tournament)
    wishes = {}
    for team in teams:
        wish = getattr(team, "hosting_wish", None)
        if wish is not None:
            wishes[team.name] = rules.HostingWish(_wish_values(wish.prefers), _wish_values(wish.cannot))
    order = rules.draw_hosting_order([t.name for t in teams], seed, wishes, dates=list(dates) or None)
    return schedule(tournament, order, dates, seed=seed)


@transaction.atomic
def schedule(tournament: Tournament, order: Sequence[str], dates: Sequence[dt.date] = (),
             seed: str | None = None) -> list[Tour]:
    """Create or update the scheduled tours: tour k hosted by ``order[k - 1]`` (CHGK-7), in one transaction.

    ``seed`` is stored on the season stage when the order was drawn; an order
    fixed by hand keeps the stage's seed but the page says it was fixed.
    """
    teams = {t.name: t for t in Team.objects.filter(tournament=tournament)}
    problems: list[Problem] = []
    if sorted(order) != sorted(teams) or len(set(order)) != len(order):
        problems.append(Problem("order", _("The hosting order names every team of the season exactly once (CHGK-7).")))
    if dates and len(dates) != len(order):
        problems.append(Problem("dates", _("Give one date per tour: %(count)s dates for %(tours)s tours (CHGK-7).")
                                % {"count": len(dates), "tours": len(order)}))
    stage = season_stage(tournament)
    existing = {t.number: t for t in Tour.objects.filter(stage=stage).prefetch_related("masks")}
    if any(t.masks.all() for t in existing.values()):
        problems.append(Problem("order", _("Results are already entered for a tour; the hosting order can no "
                                           "longer be drawn (CHGK-7).")))
    if problems:
        raise Refused(problems)
    if seed is not None:
        stage.seed = seed
        stage.save(update_fields=["seed"])
    questions = int((tournament.settings or {}).get("questions_per_tour", 8))
    tours = []
    for number, name in enumerate(order, start=1):
        tour = existing.pop(number, None) or Tour(stage=stage, number=number, questions=questions)
        tour.host = teams[name]
        if dates:
            tour.played_on = dates[number - 1]
        tour.save()
        tours.append(tour)
    for tour in existing.values():
        tour.delete()
    return tours


def parse_order(raw: str) -> list[str]:
    """An order typed by hand: one team per line, optionally "3. Team" or "3: Team"."""
    return [re.sub(r"^\s*\d+\s*[.:)]\s*", "", line).strip() for line in (raw or "").splitlines() if line.strip()]


# ---------------------------------------------------------------- a tour's pack (CHGK-8, CHGK-9)

QUESTION_FIELDS = ("text", "answer", "accepted_answers", "comment", "sources", "authors")


def questions_public(tournament: Tournament, tour: Tour) -> bool:
    """Everybody sees a tour's pack from the day after the tour (CHGK-18 publishes it by D+1); before that
    only the organizers do, so the pack does not leak before it is played."""
    if tour.played_on is None:
        return False
    return timezone.localdate(timezone=zoneinfo.ZoneInfo(tournament.timezone)) > tour.played_on


def tour_of(tournament: Tournament, number: int) -> Tour | None:
    return (Tour.objects.filter(stage__tournament=tournament, number=number)
            .select_related("host", "stage").first())


def pack_problems(tournament: Tournament, tour: Tour, questions: Sequence[dict]) -> list[Problem]:
    """``check_question`` for each question and ``check_pack`` against the host's league (CHGK-9).

    Co-authors: the authors of host-written questions who are not on the
    host's roster; none may play for another team or sit on the appeal jury.
    """
    problems: list[Problem] = []
    for q in questions:
        problems += rules.check_question(q["number"], split_names(q["authors"]), split_names(q["sources"]))
    if tour.host is None:
        return problems + [Problem("host", _("The tour has no host yet; draw the hosting order first (CHGK-7)."))]
    roster = RosterEntry.objects.filter(team__tournament=tournament).values_list("team_id", "player__nick")
    host_players = {nick for team_id, nick in roster if team_id == tour.host_id}
    other_players = {nick for team_id, nick in roster if team_id != tour.host_id}
    jury = set(Player.objects.filter(user__tournament_roles__tournament=tournament,
                                     user__tournament_roles__role=Role.JURY).values_list("nick", flat=True))
    co_authors: list[str] = []
    for q in questions:
        if q["by_host"]:
            co_authors += [a for a in split_names(q["authors"]) if a not in host_players and a not in co_authors]
    host_written = sum(1 for q in questions if q["by_host"])
    return problems + rules.check_pack(tour.host.league, host_written, co_authors, other_players, jury)


@transaction.atomic
def save_pack(tournament: Tournament, tour: Tour, questions: Sequence[dict]) -> None:
    """Save the whole pack, or nothing if a rule refuses it (CHGK-8, CHGK-9)."""
    problems = pack_problems(tournament, tour, questions)
    if problems:
        raise Refused(problems)
    existing = {q.number: q for q in Question.objects.filter(tour=tour)}
    for q in questions:
        question = existing.pop(q["number"], None) or Question(tour=tour, number=q["number"])
        for name in QUESTION_FIELDS:
            setattr(question, name, q[name])
        question.by_host = q["by_host"]
        question.save()
    for question in existing.values():
        question.delete()


# ---------------------------------------------------------------- checklists (CHGK-11)

@dataclass(frozen=True)
class ChecklistRow:
    tour: Tour
    item: rules.ChecklistItem
    done_at: dt.datetime | None
    overdue: bool


def checklists(tournament: Tournament, now: dt.datetime | None = None) -> list[ChecklistRow]:
    """Every scheduled tour's checklist items with due dates, done marks and overdue flags, in two queries."""
    now = now or timezone.now()
    tours = list(Tour.objects.filter(stage__tournament=tournament, played_on__isnull=False)
                 .select_related("host").order_by("played_on", "number"))
    done: dict[int, dict[str, dt.datetime]] = {}
    for tour_id, key, at in ChgkChecklistDone.objects.filter(tour__in=tours).values_list("tour_id", "key", "done_at"):
        done.setdefault(tour_id, {})[key] = at
    rows = []
    for tour in tours:
        items = rules.checklist(tour.played_on, tournament.timezone)
        marks = done.get(tour.pk, {})
        overdue = {item.key for item in rules.overdue_items(items, set(marks), now)}
        rows += [ChecklistRow(tour, item, marks.get(item.key), item.key in overdue) for item in items]
    return rows


def close_played_checklists(tournament: Tournament) -> int:
    """A season entered after it was played (the demo, an archive): every checklist item of a tour whose masks
    are in is done, at the time it was due (CHGK-11), so nothing of a past season reads as overdue.

    Returns how many items it marked; items already marked keep their time."""
    played = list(Tour.objects.filter(stage__tournament=tournament, played_on__isnull=False, masks__isnull=False)
                  .distinct())
    have = set(ChgkChecklistDone.objects.filter(tour__in=played).values_list("tour_id", "key"))
    marks = [ChgkChecklistDone(tour=tour, key=item.key, done_at=item.due)
             for tour in played for item in rules.checklist(tour.played_on, tournament.timezone)
             if (tour.pk, item.key) not in have]
    ChgkChecklistDone.objects.bulk_create(marks)
    return len(marks)


def mark_done(tour: Tour, key: str, done: bool = True) -> None:
    keys = {item.key for item in rules.checklist(dt.date(2000, 1, 1))}
    if key not in keys:
        raise Refused([Problem("key", _("Unknown checklist item (CHGK-11)."))])
    if done:
        ChgkChecklistDone.objects.get_or_create(tour=tour, key=key, defaults={"done_at": timezone.now()})
    else:
        ChgkChecklistDone.objects.filter(tour=tour, key=key).delete()
