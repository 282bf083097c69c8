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
from formats.chgk_tour_points.models import ChgkApplication, ChgkChecklistDone, ChgkHostingWish
from rulesets.base import Problem
from rulesets.chgk_tour_points import season as rules
from rulesets.errors import Invalid
from tournaments.models import Question, RosterEntry, Stage, Team, Tour, Tournament

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

def as_rule(application: ChgkApplication) -> rules.Application:
    return rules.Application(team=application.team_name, filed_at=application.filed_at,
                             captain=application.captain or None, players=tuple(application.players),
                             home_university=application.home_university, league=application.league,
                             played_tournaments=tuple(split_names(application.played_tournaments)))


def file_application(tournament: Tournament, *, team_name: str, captain: str, players: Sequence[str],
                     home_university: bool, league: str, played_tournaments: str = "",
                     filed_at: dt.datetime | None = None) -> ChgkApplication:
    """Record a team's application after ``check_application`` (CHGK-1, CHGK-2)."""
    application = ChgkApplication(tournament=tournament, team_name=team_name.strip(), captain=captain.strip(),
                                  players=[p.strip() for p in players], home_university=home_university,
                                  league=league, played_tournaments=played_tournaments.strip(),
                                  filed_at=filed_at or timezone.now())
    problems = rules.check_application(as_rule(application))
    too_long = [name for name in [application.team_name, application.captain, *application.players] if len(name) > 100]
    if too_long:
        problems.append(Problem("players", _("A name is longer than 100 characters: %(name)s (CHGK-1).") % {
            "name": too_long[0][:100]}))
    if ChgkApplication.objects.filter(tournament=tournament, team_name=application.team_name).exists():
        problems.append(Problem("team", _("%(team)s has already applied (CHGK-1).") % {
            "team": application.team_name}))
    if problems:
        raise Refused(problems)
    application.save()
    return application


def deadline_of(tournament: Tournament) -> dt.datetime:
    return tournament.registration_deadline or FAR_FUTURE


@dataclass(frozen=True)
class QueueRow:
    entry: rules.QueueEntry
    application: ChgkApplication


def queue(tournament: Tournament, limit: int | None) -> list[QueueRow]:
    """The admission queue (CHGK-5) with its applications, in one query."""
    applications = list(ChgkApplication.objects.filter(tournament=tournament).select_related("team"))
    by_name = {a.team_name: a for a in applications}
    entries = rules.admission_queue([as_rule(a) for a in applications], deadline_of(tournament), limit)
    return [QueueRow(entry, by_name[entry.team]) for entry in entries]


@transaction.atomic
def admit(tournament: Tournament, limit: int | None) -> list[Team]:
    """Create the ``Team`` and ``RosterEntry`` rows of every admitted application not yet admitted (CHGK-5)."""
    rows = [row for row in queue(tournament, limit) if row.entry.admitted and row.application.team_id is None]
    if not rows:
        return []
    names = {name for row in rows for name in row.application.players}
    players = {p.nick: p for p in Player.objects.filter(nick__in=names)}
    missing = [Player(nick=name, full_name=name) for name in sorted(names - set(players))]
    for player in missing:
        player.save()
        players[player.nick] = player
    taken = set(Team.objects.filter(tournament=tournament, stage__isnull=True).values_list("name", flat=True))
    order = Team.objects.filter(tournament=tournament).count()
    created: list[Team] = []
    now = timezone.now()
    for row in rows:
        application = row.application
        if application.team_name in taken:
            raise Refused([Problem("team", _("A team named %(team)s already plays in this tournament (CHGK-5).")
                                   % {"team": application.team_name})])
        order += 1
        team = Team.objects.create(tournament=tournament, name=application.team_name, order=order,
                                   league=application.league, home_university=application.home_university,
                                   captain=players.get(application.captain))
        for index, name in enumerate(application.players):
            RosterEntry.objects.create(team=team, player=players[name], order=index, joined_at=now)
        application.team = team
        application.save(update_fields=["team"])
        created.append(team)
    return created


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
