"""Season setup of the ChGK Grand Prix as pure checks (``spec/chgk_tour_points.md``, CHGK-1..CHGK-11).

Applications and rosters (CHGK-1..CHGK-4), the admission queue (CHGK-5),
the seeded hosting draw (CHGK-7), the host's pack (CHGK-9), the appeal jury
and the checklists with due dates (CHGK-11). Each check returns a list of
``Problem`` naming the thing and the rule; an empty list means accepted.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
import zoneinfo
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from rulesets.base import Problem, end_of_day
from rulesets.facts import LEAGUES
from rulesets.messages import text as _

MAX_ROSTER = 10
MIN_FIRST_APPLICATION = 4
MAX_ADDITIONS = 6
MAX_AT_TABLE = 6
HOST_WRITTEN: dict[str, tuple[int, int]] = {"none": (2, 4), "second": (3, 5), "first": (4, 6), "higher": (5, 7)}


# ---------------------------------------------------------------- applications and rosters

@dataclass(frozen=True)
class Application:
    """A team's application (CHGK-1); ``home_university``: all players study or studied at the host university."""

    team: str
    filed_at: dt.datetime
    captain: str | None = None
    players: tuple[str, ...] = ()
    home_university: bool = False
    league: str = "none"
    played_tournaments: tuple[str, ...] = ()


def check_application(application: Application) -> list[Problem]:
    """CHGK-1, CHGK-2: a named team, a captain among at least 4 and at most 10 players, a known league."""
    problems: list[Problem] = []
    players = list(application.players)
    if not application.team.strip():
        problems.append(Problem("team", _("the application names the team (CHGK-1)")))
    for index, name in enumerate(players):
        if not name.strip():
            problems.append(Problem(f"players[{index}]", _("every player's full name is given (CHGK-1)")))
    if len(set(players)) != len(players):
        problems.append(Problem("players", _("a player is listed twice (CHGK-1)")))
    if len(players) < MIN_FIRST_APPLICATION:
        problems.append(Problem("players", _(
            "the first application lists %(count)s players; at least %(minimum)s are needed (CHGK-2)",
            count=len(players), minimum=MIN_FIRST_APPLICATION)))
    if len(players) > MAX_ROSTER:
        problems.append(Problem("players", _("%(count)s players; a team has at most %(maximum)s (CHGK-1)",
                                             count=len(players), maximum=MAX_ROSTER)))
    if application.captain is None or application.captain not in players:
        problems.append(Problem("captain", _("the captain is one of the team's players (CHGK-1)")))
    if application.league not in LEAGUES:
        problems.append(Problem("league", _("%(league)s is not one of %(leagues)s (CHGK-1)",
                                            league=repr(application.league), leagues=", ".join(LEAGUES))))
    return problems


def check_roster_change(
    roster: Sequence[str],
    *,
    added: Sequence[str] = (),
    replaced: Mapping[str, str] | None = None,
    additions_used: int = 0,
    played: Collection[str] = (),
) -> list[Problem]:
    """An in-season roster change (CHGK-2, CHGK-3).

    ``added``: new players (each uses one of the 6 additions of the season,
    ``additions_used`` already spent). ``replaced``: old player -> new player;
    only a player who has not played any tour yet may be replaced, and a
    replacement does not use an addition. The roster never exceeds 10.
    """
    problems: list[Problem] = []
    current = set(roster)
    replaced = dict(replaced or {})
    if additions_used + len(added) > MAX_ADDITIONS:
        problems.append(Problem("added", _(
            "%(used)s players already added this season and %(count)s more: at most %(maximum)s additions (CHGK-2)",
            used=additions_used, count=len(added), maximum=MAX_ADDITIONS)))
    size = len(current) + len(added)
    if size > MAX_ROSTER:
        problems.append(Problem("added", _("the roster would have %(count)s players; at most %(maximum)s (CHGK-2)",
                                           count=size, maximum=MAX_ROSTER)))
    newcomers = list(added) + list(replaced.values())
    for index, name in enumerate(added):
        if name in current:
            problems.append(Problem(f"added[{index}]", _("%(player)s is already on the roster (CHGK-2)",
                                                         player=name)))
    if len(set(newcomers)) != len(newcomers):
        problems.append(Problem("added", _("a new player is named twice (CHGK-2)")))
    for old, new in replaced.items():
        if old not in current:
            problems.append(Problem(f"replaced.{old}", _("%(player)s is not on the roster (CHGK-3)", player=old)))
        elif old in played:
            problems.append(Problem(f"replaced.{old}", _(
                "%(player)s has already played a tour and cannot be replaced (CHGK-3)", player=old)))
        if new in current:
            problems.append(Problem(f"replaced.{old}", _("%(player)s is already on the roster (CHGK-3)",
                                                         player=new)))
    return problems


def check_line_up(roster: Collection[str], segments: Sequence[Collection[str]]) -> list[Problem]:
    """A tour's line-up (CHGK-4), given as the players at the table between consecutive host breaks.

    Substitutions happen only in the breaks, so each segment is one set of
    players: at most 6 at once, each on the roster. The whole line-up may list
    more than 6.
    """
    problems: list[Problem] = []
    for index, players in enumerate(segments):
        at_table = list(players)
        if len(set(at_table)) > MAX_AT_TABLE:
            problems.append(Problem(f"segments[{index}]", _(
                "%(count)s players at the table at once; at most %(maximum)s (CHGK-4)", count=len(set(at_table)),
                maximum=MAX_AT_TABLE)))
        for name in at_table:
            if name not in roster:
                problems.append(Problem(f"segments[{index}]", _("%(player)s is not on the team's roster (CHGK-4)",
                                                                player=name)))
    return problems


def line_up_players(segments: Iterable[Collection[str]]) -> set[str]:
    """Everyone who played any part of the tour; each has then played for CHGK-3 (CHGK-4)."""
    return {name for players in segments for name in players}


# ---------------------------------------------------------------- admission queue

@dataclass(frozen=True)
class QueueEntry:
    position: int
    team: str
    filed_at: dt.datetime
    priority: bool
    admitted: bool


def admission_queue(applications: Iterable[Application], deadline: dt.datetime,
                    limit: int | None = None) -> list[QueueEntry]:
    """The admission queue (CHGK-5): host-university teams that applied by the deadline first, then all
    others, each group by application time; the first ``limit`` are admitted (``None``: no limit)."""
    def key(app: Application) -> tuple[bool, dt.datetime, str]:
        return (not _has_priority(app, deadline), app.filed_at, app.team)

    ordered = sorted(applications, key=key)
    return [QueueEntry(position=index + 1, team=app.team, filed_at=app.filed_at,
                       priority=_has_priority(app, deadline), admitted=limit is None or index < limit)
            for index, app in enumerate(ordered)]


def _has_priority(application: Application, deadline: dt.datetime) -> bool:
    return application.home_university and application.filed_at <= deadline


# ---------------------------------------------------------------- hosting draw

@dataclass(frozen=True)
class HostingWish:
    """Tours (numbers) or dates a team prefers to host, or cannot host (CHGK-7)."""

    prefers: frozenset[int | dt.date] = field(default_factory=frozenset)
    cannot: frozenset[int | dt.date] = field(default_factory=frozenset)


def draw_hosting_order(
    teams: Iterable[str],
    seed: str | int,
    wishes: Mapping[str, HostingWish | Mapping[str, Iterable[int | dt.date]]] | None = None,
    dates: Sequence[dt.date] | None = None,
    fixed: Mapping[str, int] | None = None,
) -> list[str]:
    """The hosting order drawn by lot (CHGK-7): element k hosts tour k + 1.

    Reproducible from the public ``seed`` (the order of ``teams`` does not
    matter). Wishes are respected where possible: first as few "cannot" as
    possible are broken, then as many "prefers" as possible are met; among
    equally good orders the seed decides. ``dates[k]`` is the date of tour
    k + 1, for wishes given as dates; ``fixed`` pins teams to tours by hand.
    """
    names = sorted(set(teams))
    count = len(names)
    fixed = dict(fixed or {})
    order: list[str | None] = [None] * count
    for team, number in fixed.items():
        if team in names and 1 <= number <= count and order[number - 1] is None:
            order[number - 1] = team
    free_teams = [t for t in names if t not in order]
    free_slots = [k + 1 for k in range(count) if order[k] is None]
    rng = random.Random(int.from_bytes(hashlib.sha256(str(seed).encode()).digest()[:8], "big"))
    rng.shuffle(free_teams)
    rng.shuffle(free_slots)
    resolved = {team: _wish_slots(wish, dates) for team, wish in (wishes or {}).items()}
    size = len(free_teams)
    noise_range = 1000
    unit = (size + 1) * noise_range
    cost = []
    for team in free_teams:
        prefers, cannot = resolved.get(team, (set(), set()))
        row = []
        for slot in free_slots:
            weight = size + 1 if slot in cannot else (0 if slot in prefers else 1)
            row.append(weight * unit + rng.randrange(noise_range))
        cost.append(row)
    for row_index, column in enumerate(_min_cost_assignment(cost)):
        order[free_slots[column] - 1] = free_teams[row_index]
    return [team for team in order if team is not None]


def _wish_slots(wish: HostingWish | Mapping[str, Iterable[int | dt.date]],
                dates: Sequence[dt.date] | None) -> tuple[set[int], set[int]]:
    if isinstance(wish, Mapping):
        wish = HostingWish(frozenset(wish.get("prefers", ())), frozenset(wish.get("cannot", ())))
    date_slot = {day: index + 1 for index, day in enumerate(dates or ())}

    def slots(items: Iterable[int | dt.date]) -> set[int]:
        out: set[int] = set()
        for item in items:
            if isinstance(item, dt.date):
                if item in date_slot:
                    out.add(date_slot[item])
            else:
                out.add(int(item))
        return out

    return slots(wish.prefers), slots(wish.cannot)


def _min_cost_assignment(cost: list[list[int]]) -> list[int]:
    """Hungarian algorithm on a square matrix: the column assigned to each row, total cost minimal."""
    n = len(cost)
    inf = float("inf")
    u = [0.0] * (n + 1)
    v = [0.0] * (n + 1)
    owner = [0] * (n + 1)
    way = [0] * (n + 1)
    for row in range(1, n + 1):
        owner[0] = row
        col0 = 0
        minv = [inf] * (n + 1)
        used = [False] * (n + 1)
        while True:
            used[col0] = True
            row0, delta, col1 = owner[col0], inf, 0
            for col in range(1, n + 1):
                if used[col]:
                    continue
                current = cost[row0 - 1][col - 1] - u[row0] - v[col]
                if current < minv[col]:
                    minv[col], way[col] = current, col0
                if minv[col] < delta:
                    delta, col1 = minv[col], col
            for col in range(n + 1):
                if used[col]:
                    u[owner[col]] += delta
                    v[col] -= delta
                else:
                    minv[col] -= delta
            col0 = col1
            if owner[col0] == 0:
                break
        while col0:
            col1 = way[col0]
            owner[col0] = owner[col1]
            col0 = col1
    assignment = [0] * n
    for col in range(1, n + 1):
        if owner[col]:
            assignment[owner[col] - 1] = col - 1
    return assignment


# ---------------------------------------------------------------- packs and juries

def host_written_range(league: str) -> tuple[int, int]:
    """How many questions the host writes itself, by its league (CHGK-9)."""
    return HOST_WRITTEN[league]


def check_pack(
    host_league: str,
    host_written_count: int,
    co_authors: Iterable[str] = (),
    other_teams_players: Collection[str] = (),
    jury_members: Collection[str] = (),
) -> list[Problem]:
    """CHGK-9: the host-written count fits the host's league; no co-author plays for another team of the
    season or sits on the appeal jury."""
    problems: list[Problem] = []
    if host_league not in HOST_WRITTEN:
        return [Problem("host_league", _("%(league)s is not one of %(leagues)s (CHGK-9)", league=repr(host_league),
                                         leagues=", ".join(LEAGUES)))]
    low, high = host_written_range(host_league)
    if not low <= host_written_count <= high:
        problems.append(Problem("host_written_count", _(
            "%(count)s host-written questions; a host of league %(league)s writes %(low)s..%(high)s (CHGK-9)",
            count=host_written_count, league=host_league, low=low, high=high)))
    for index, name in enumerate(co_authors):
        if name in other_teams_players:
            problems.append(Problem(f"co_authors[{index}]", _(
                "%(player)s plays for another team of the season and cannot co-author the host's questions (CHGK-9)",
                player=name)))
        if name in jury_members:
            problems.append(Problem(f"co_authors[{index}]", _(
                "%(player)s is a member of the appeal jury and cannot co-author the host's questions (CHGK-9)",
                player=name)))
    return problems


def check_question(number: int, authors: Sequence[str], sources: Sequence[str]) -> list[Problem]:
    """Every question names its author(s) and sources (CHGK-9)."""
    problems: list[Problem] = []
    if not [a for a in authors if a.strip()]:
        problems.append(Problem(f"questions[{number - 1}].authors", _("question %(number)s names no author (CHGK-9)",
                                                                      number=number)))
    if not [s for s in sources if s.strip()]:
        problems.append(Problem(f"questions[{number - 1}].sources", _("question %(number)s names no source (CHGK-9)",
                                                                      number=number)))
    return problems


def check_appeal_jury(members: Iterable[str], participating_players: Collection[str]) -> list[Problem]:
    """Members of the appeal jury may not be players of any participating team (CHGK-11)."""
    return [Problem(f"members[{index}]", _(
                "%(player)s plays for a participating team and cannot sit on the appeal jury (CHGK-11)", player=name))
            for index, name in enumerate(members) if name in participating_players]


def check_appeal_filer(team: str, captain: str | None, filer: str, delegates: Collection[str] = ()) -> list[Problem]:
    """Only the team's captain, or a player the captain delegated, files its appeal (CHGK-20)."""
    if filer == captain or filer in delegates:
        return []
    return [Problem("filed_by", _("%(player)s is neither the captain of %(team)s nor delegated by the captain (CHGK-20)",
                                  player=filer, team=team))]


# ---------------------------------------------------------------- checklists

@dataclass(frozen=True)
class ChecklistItem:
    key: str
    owner: str
    text: str
    due: dt.datetime
    rule: str


def checklist(
    played_on: dt.date,
    timezone: str = "Europe/Moscow",
    last_answer_at: dt.datetime | None = None,
    ends_at: dt.datetime | None = None,
) -> list[ChecklistItem]:
    """The committee's, the host's and the appeal jury's items for a tour on ``played_on`` (CHGK-11, CHGK-18).

    Due moments are aware datetimes at 23:59:59 of the due day in the
    tournament's zone; the 10-minute and 24-hour items run from
    ``last_answer_at`` / ``ends_at`` when known, else from the end of the day.
    """
    zone = zoneinfo.ZoneInfo(timezone)

    def day(offset: int) -> dt.datetime:
        return end_of_day(played_on + dt.timedelta(days=offset), zone)

    preliminary = last_answer_at + dt.timedelta(minutes=10) if last_answer_at else day(0)
    final_pack = ends_at + dt.timedelta(hours=24) if ends_at else day(1)
    return [
        ChecklistItem("committee_questions", "committee", _("set of questions to the host"), day(-14), "CHGK-11"),
        ChecklistItem("pack_to_tester", "host", _("pack with authors and sources to a tester"), day(-7), "CHGK-11"),
        ChecklistItem("answer_sheets", "host", _("answer sheets and the tour table for all teams"), day(0),
                      "CHGK-11"),
        ChecklistItem("preliminary_results", "host", _("preliminary results announced"), preliminary, "CHGK-11"),
        ChecklistItem("answers_to_jury", "host", _("teams' answers to the appeal jury's secretary"), day(0),
                      "CHGK-11"),
        ChecklistItem("final_pack", "host", _("final electronic pack (answers, comments, authors, sources)"),
                      final_pack, "CHGK-11"),
        ChecklistItem("questions_published", "committee", _("the tour's questions published"), day(1), "CHGK-18"),
        ChecklistItem("verdicts", "appeal jury", _("verdicts on the tour's appeals"), day(9), "CHGK-18"),
    ]


def overdue_items(items: Iterable[ChecklistItem], done: Collection[str], now: dt.datetime) -> list[ChecklistItem]:
    """Items not done whose due moment has passed (CHGK-11)."""
    return [item for item in items if item.key not in done and now > item.due]
