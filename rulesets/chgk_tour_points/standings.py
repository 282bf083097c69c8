"""Ruleset ``chgk_tour_points``: the ChGK tour-points Grand Prix (``spec/chgk_tour_points.md``).

A season of tours, each hosted by one admitted team (the "duty team", ДК) and
played by all the others; a tour's places turn into points (CHGK-12,
CHGK-13), the season table ranks by points, then correct answers, then rating
sum (CHGK-15). Appeal verdicts change the masks (CHGK-21, CHGK-22) and a
withdrawal may remove a team's answers (CHGK-17).

Season-setup checks (rosters, admission queue, hosting draw, packs,
checklists) live in ``rulesets.chgk_tour_points.season`` and are re-exported by
the package; the tour arithmetic lives in ``rulesets.chgk_tour_points.tours``.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from rulesets.appeal_edges import not_played
from rulesets.base import (
    Criterion,
    Problem,
    RulesetError,
    Standings,
    TeamRow,
    competition_rank,
    end_of_day,
    merge_settings,
    round2,
)
from rulesets.chgk_tour_points.rules import rules_of
from rulesets.chgk_tour_points.season import (  # noqa: F401  (re-exported: the ruleset's public setup checks)
    Application,
    ChecklistItem,
    HostingWish,
    QueueEntry,
    admission_queue,
    check_appeal_filer,
    check_appeal_jury,
    check_application,
    check_line_up,
    check_pack,
    check_question,
    check_roster_change,
    checklist,
    draw_hosting_order,
    host_written_range,
    line_up_players,
    overdue_items,
)
from rulesets.chgk_tour_points.tours import (
    DEFAULT_POINTS_BY_PLACE,
    apply_verdicts,
    correct_answers,
    normalise_points_tables,
    place_label,
    points_table_for,
    question_ratings,
    rating_sum,
    shared_places,
    tour_points,
)
from rulesets.facts import Appeal, Decision, Tour, TournamentFacts
from rulesets.messages import text as _

KEY = "chgk_tour_points"
VERSION = 1
SEASON = "season"
STAGE_KEYS: tuple[str, ...] = (SEASON,)
DEFAULT_SETTINGS: dict[str, Any] = {
    "questions_per_tour": 8,
    "points_by_place": DEFAULT_POINTS_BY_PLACE,
}



# ---------------------------------------------------------------- settings

def validate_settings(settings: dict) -> list[Problem]:
    """Refuse unknown settings and bad values (CHGK-8 ``questions_per_tour``, CHGK-12 ``points_by_place``)."""
    if not isinstance(settings, Mapping):
        return [Problem("", _("settings must be an object"))]
    problems = [
        Problem(key, _("unknown setting %(key)s; chgk_tour_points has %(keys)s", key=repr(key),
                       keys=", ".join(sorted(DEFAULT_SETTINGS))))
        for key in sorted(set(settings) - set(DEFAULT_SETTINGS))
    ]
    if "questions_per_tour" in settings:
        value = settings["questions_per_tour"]
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            problems.append(Problem("questions_per_tour", _(
                "%(value)s is not a positive whole number of questions (CHGK-8)", value=repr(value))))
    if "points_by_place" in settings:
        problems += _points_tables_problems(settings["points_by_place"], "points_by_place")
    return problems


def _points_tables_problems(value: Any, path: str) -> list[Problem]:
    """A list of ``{"min_teams", "points"}`` or an object ``{"8": [...], "13": [...]}`` (CHGK-12)."""
    entries: list[tuple[str, Any, Any]] = []
    problems: list[Problem] = []
    if isinstance(value, Mapping):
        entries = [(f"{path}.{key}", key, points) for key, points in value.items()]
    elif isinstance(value, list):
        for index, entry in enumerate(value):
            epath = f"{path}[{index}]"
            if not isinstance(entry, Mapping) or set(entry) != {"min_teams", "points"}:
                problems.append(Problem(epath, _("must be an object with exactly min_teams and points (CHGK-12)")))
                continue
            entries.append((epath, entry["min_teams"], entry["points"]))
    else:
        return [Problem(path, _("must be a list of {min_teams, points} or an object of min_teams: points (CHGK-12)"))]
    if not entries and not problems:
        problems.append(Problem(path, _("needs at least one points table (CHGK-12)")))
    seen: set[int] = set()
    for epath, minimum, points in entries:
        threshold = _positive_int(minimum)
        if threshold is None:
            problems.append(Problem(epath, _("%(value)s is not a positive whole number of teams (CHGK-12)",
                                             value=repr(minimum))))
        elif threshold in seen:
            problems.append(Problem(epath, _("a table for %(teams)s teams is given twice (CHGK-12)", teams=threshold)))
        else:
            seen.add(threshold)
        problems += _points_list_problems(points, epath if isinstance(value, Mapping) else f"{epath}.points")
    return problems


def _positive_int(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 1 else None
    if isinstance(value, str) and value.isdigit() and int(value) >= 1:
        return int(value)
    return None


def _points_list_problems(points: Any, path: str) -> list[Problem]:
    if not isinstance(points, list) or not points:
        return [Problem(path, _("must be a non-empty list of points by place (CHGK-12)"))]
    values: list[Decimal] = []
    for index, raw in enumerate(points):
        number = _decimal(raw)
        if number is None or number < 0:
            return [Problem(f"{path}[{index}]", _("%(value)s is not a non-negative number of points (CHGK-12)",
                                                  value=repr(raw)))]
        values.append(number)
    for index in range(1, len(values)):
        if values[index] > values[index - 1]:
            return [Problem(f"{path}[{index}]", _("a lower place cannot give more points than a higher one (CHGK-12)"))]
    return []


def _decimal(raw: Any) -> Decimal | None:
    if isinstance(raw, bool) or not isinstance(raw, (int, float, str)):
        return None
    try:
        number = Decimal(repr(raw)) if isinstance(raw, float) else Decimal(raw)
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def _settings(facts: TournamentFacts) -> dict[str, Any]:
    return merge_settings(DEFAULT_SETTINGS, facts.settings)


def season_points_table(facts: TournamentFacts) -> tuple[Fraction, ...]:
    """The points table of the season: chosen by the number of admitted teams, fixed for the season (CHGK-12)."""
    tables = normalise_points_tables(_settings(facts)["points_by_place"])
    return points_table_for(tables, len(facts.teams))


# ---------------------------------------------------------------- dates and deadlines

def _zone(facts: TournamentFacts) -> dt.tzinfo:
    return zoneinfo.ZoneInfo(facts.timezone)


def _local_date(facts: TournamentFacts, moment: dt.datetime) -> dt.date:
    return moment.astimezone(_zone(facts)).date()


def _day_end(facts: TournamentFacts, day: dt.date, days_after: int) -> dt.datetime:
    return end_of_day(day + dt.timedelta(days=days_after), _zone(facts))


def _next_midnight(facts: TournamentFacts, day: dt.date, days_after: int) -> dt.datetime:
    """00:00 of the day after ``day + days_after``: the first moment past a "23:59 of D+k" deadline."""
    return dt.datetime.combine(day + dt.timedelta(days=days_after + 1), dt.time(0, 0), tzinfo=_zone(facts))


def season_tours(facts: TournamentFacts) -> tuple[Tour, ...]:
    stage = facts.stage(SEASON)
    return tuple(sorted(stage.tours, key=lambda t: t.number)) if stage else ()


def _tour(facts: TournamentFacts, number: int | None) -> Tour | None:
    return next((t for t in season_tours(facts) if t.number == number), None)


def _appeal_tour(facts: TournamentFacts, appeal: Appeal) -> Tour | None:
    if appeal.kind not in ("removal", "accept_answer") or appeal.stage not in (None, SEASON):
        return None
    return _tour(facts, appeal.tour)


def questions_due(facts: TournamentFacts, tour: Tour | int) -> dt.datetime | None:
    """The committee publishes a tour's questions by 23:59 of D+1 (CHGK-18)."""
    tour = _tour(facts, tour) if isinstance(tour, int) else tour
    if tour is None or tour.played_on is None:
        return None
    return _day_end(facts, tour.played_on, rules_of(facts).questions_published_days)


def appeal_deadline(facts: TournamentFacts, appeal: Appeal) -> dt.datetime | None:
    """Last moment to file an appeal: 23:59 of D+3 in the tournament's zone (CHGK-18)."""
    tour = _appeal_tour(facts, appeal)
    if tour is None or tour.played_on is None:
        return None
    return _day_end(facts, tour.played_on, rules_of(facts).appeal_days)


def verdict_due(facts: TournamentFacts, appeal: Appeal) -> dt.datetime | None:
    """The appeal jury gives its verdict by 23:59 of D+9 (CHGK-18)."""
    tour = _appeal_tour(facts, appeal)
    if tour is None or tour.played_on is None:
        return None
    return _day_end(facts, tour.played_on, rules_of(facts).verdict_days)


def verdict_overdue(facts: TournamentFacts, appeal: Appeal, now: dt.datetime) -> bool:
    """A verdict still missing after 23:59 of D+9 is flagged as overdue (CHGK-18): from 00:00 of D+10 in the
    tournament's zone, not one instant earlier (23:59:59.5 of D+9 is still in time)."""
    tour = _appeal_tour(facts, appeal)
    if not appeal.pending or tour is None or tour.played_on is None:
        return False
    return now >= _next_midnight(facts, tour.played_on, rules_of(facts).verdict_days)


def appeal_opens(facts: TournamentFacts, appeal: Appeal) -> dt.datetime | None:
    """No appeal before the tour is played: filing opens at 00:00 of D in the tournament's zone (CHGK-18,
    ``roles.md``); None for a tour without a date."""
    tour = _appeal_tour(facts, appeal)
    if tour is None or tour.played_on is None:
        return None
    return dt.datetime.combine(tour.played_on, dt.time(0, 0), tzinfo=_zone(facts))


def decision_deadline(facts: TournamentFacts, decision: Decision) -> dt.datetime | None:
    """ChGK appeals are against questions, never against decisions."""
    return None


def appeal_in_time(facts: TournamentFacts, appeal: Appeal) -> bool:
    """CHGK-18: an appeal is in time at any instant before 00:00 of D+4 in the tournament's zone (fractions of
    a second included). The one comparison of the form, the API and the import."""
    tour = _appeal_tour(facts, appeal)
    if tour is None or tour.played_on is None:
        return True
    return appeal.filed_at < _next_midnight(facts, tour.played_on, rules_of(facts).appeal_days)


def appeal_is_late(facts: TournamentFacts, appeal: Appeal) -> bool:
    """Filed at or after 00:00 of D+4 (any moment of the minute 23:59 of D+3 still counts, CHGK-18)."""
    return not appeal_in_time(facts, appeal)


def verdict_late(facts: TournamentFacts, appeal: Appeal) -> bool:
    """CHGK-18: a verdict given at or after 00:00 of D+10 stays marked "given late"."""
    tour = _appeal_tour(facts, appeal)
    if appeal.pending or appeal.decided_at is None or tour is None or tour.played_on is None:
        return False
    return appeal.decided_at >= _next_midnight(facts, tour.played_on, rules_of(facts).verdict_days)


def appeal_window_open(facts: TournamentFacts, tour: Tour, now: dt.datetime) -> bool:
    """Whether appeals on a played tour may still be filed at ``now`` (CHGK-18)."""
    if tour.played_on is None:
        return False
    return now < _next_midnight(facts, tour.played_on, rules_of(facts).appeal_days)


# ---------------------------------------------------------------- validation

def has_results(tour: Tour) -> bool:
    """A tour has been played once its results (masks or absences) are entered."""
    return bool(tour.masks or tour.absent)


def validate(facts: TournamentFacts) -> list[Problem]:
    """The ruleset's own refusals of a document (CHGK-7, CHGK-8, CHGK-17, CHGK-18, CHGK-20, CHGK-22)."""
    problems: list[Problem] = []
    for si, stage in enumerate(facts.stages):
        if stage.key == SEASON:
            problems += _tour_problems(facts, si)
            problems += _withdrawn_team_problems(facts, si)
    problems += _withdrawal_problems(facts)
    problems += _appeal_problems(facts)
    return problems


def _tour_problems(facts: TournamentFacts, si: int) -> list[Problem]:
    """Hosting (CHGK-7): one tour per admitted team, never played by its host.

    A tour's own ``questions`` count is taken as recorded: ``questions_per_tour``
    (CHGK-8) is the default for new tours, not a reason to refuse a season
    whose tours were played with another count.
    """
    problems: list[Problem] = []
    stage = facts.stages[si]
    hosted: dict[str, int] = {}
    if len(stage.tours) > len(facts.teams):
        problems.append(Problem(f"stages[{si}].tours", _(
            "%(tours)s tours for %(teams)s admitted teams: each team hosts exactly one tour (CHGK-7)",
            tours=len(stage.tours), teams=len(facts.teams))))
    for ti, tour in enumerate(stage.tours):
        path = f"stages[{si}].tours[{ti}]"
        if tour.host is None:
            continue
        if tour.host in hosted:
            problems.append(Problem(f"{path}.host", _(
                "%(team)s already hosts tour %(tour)s; each team hosts exactly one tour (CHGK-7)", team=tour.host,
                tour=hosted[tour.host])))
        else:
            hosted[tour.host] = tour.number
        for ai, team in enumerate(tour.absent):
            if team == tour.host:
                problems.append(Problem(f"{path}.absent[{ai}]", _(
                    "%(team)s hosts tour %(tour)s and does not play in it (CHGK-7)", team=team, tour=tour.number)))
    return problems


def _withdrawal_dates(facts: TournamentFacts) -> dict[str, dt.date]:
    """Local date of each team's (first) withdrawal."""
    dates: dict[str, dt.date] = {}
    for w in facts.withdrawals:
        dates.setdefault(w.team, _local_date(facts, w.at))
    return dates


def _withdrawn_team_problems(facts: TournamentFacts, si: int) -> list[Problem]:
    """A team that withdrew plays no later tour, and a tour it had not hosted yet is removed (CHGK-17)."""
    problems: list[Problem] = []
    left = _withdrawal_dates(facts)
    for ti, tour in enumerate(facts.stages[si].tours):
        if tour.played_on is None:
            continue
        path = f"stages[{si}].tours[{ti}]"
        for team, _mask in tour.masks:
            if team in left and tour.played_on > left[team]:
                problems.append(Problem(f"{path}.masks.{team}", _(
                    "%(team)s withdrew on %(withdrawn_on)s and cannot play tour %(tour)s of %(played_on)s (CHGK-17)",
                    team=team, withdrawn_on=left[team].isoformat(), tour=tour.number,
                    played_on=tour.played_on.isoformat())))
        if tour.host in left and tour.played_on > left[tour.host] and has_results(tour):
            problems.append(Problem(f"{path}.host", _(
                "%(team)s withdrew on %(withdrawn_on)s before hosting tour %(tour)s: a tour it had not hosted yet is "
                "removed from the calendar (CHGK-17)", team=tour.host, withdrawn_on=left[tour.host].isoformat(),
                tour=tour.number)))
    return problems


def _withdrawal_problems(facts: TournamentFacts) -> list[Problem]:
    seen: set[str] = set()
    problems: list[Problem] = []
    for index, w in enumerate(facts.withdrawals):
        if w.team in seen:
            problems.append(Problem(f"withdrawals[{index}].team", _("%(team)s has already withdrawn (CHGK-17)",
                                                                    team=w.team)))
        seen.add(w.team)
    return problems


def _appeal_problems(facts: TournamentFacts) -> list[Problem]:
    """Late appeals (CHGK-18); appellant and credited teams must have played the tour (CHGK-20, CHGK-22)."""
    problems: list[Problem] = []
    for index, appeal in enumerate(facts.appeals):
        path = f"appeals[{index}]"
        tour = _appeal_tour(facts, appeal)
        if tour is None:
            continue
        if appeal_is_late(facts, appeal):
            deadline = appeal_deadline(facts, appeal)
            problems.append(Problem(f"{path}.filed_at", _(
                "appeal on tour %(tour)s question %(question)s filed %(filed_at)s, after the deadline %(deadline)s "
                "(23:59 of D+3, CHGK-18)", tour=tour.number, question=appeal.question,
                filed_at=appeal.filed_at.isoformat(), deadline=deadline.isoformat())))
        played = {team for team, _mask in tour.masks}
        not_playing = not_played(tour, appeal.team) or (
            None if appeal.team is None or appeal.team in played else _(
                "%(team)s did not play tour %(tour)s and cannot appeal its questions (CHGK-20)", team=appeal.team,
                tour=tour.number))
        if not_playing is not None:
            problems.append(Problem(f"{path}.team", not_playing))
        for ci, team in enumerate(appeal.credited_teams):
            if team not in played:
                problems.append(Problem(f"{path}.credited_teams[{ci}]", _(
                    "%(team)s did not play tour %(tour)s and cannot be credited (CHGK-22)", team=team,
                    tour=tour.number)))
    return problems


# ---------------------------------------------------------------- the season, computed

@dataclass(frozen=True)
class WithdrawalEffect:
    """What CHGK-17 does to a withdrawn team."""

    team: str
    at: dt.datetime
    played: int
    below_half: bool
    hosted: bool


@dataclass
class TourResult:
    """A played tour after appeal verdicts and withdrawals (CHGK-10..CHGK-14, CHGK-17, CHGK-21, CHGK-22)."""

    tour: Tour
    masks: dict[str, str]
    absent: tuple[str, ...]
    ratings: list[int | None]
    correct: dict[str, int]
    places: dict[str, tuple[int, int]]
    points: dict[str, Fraction]
    rating_sums: dict[str, int]

    @property
    def number(self) -> int:
        return self.tour.number


@dataclass
class Season:
    teams: tuple[str, ...]
    table: tuple[Fraction, ...]
    withdrawals: dict[str, WithdrawalEffect]
    tours: list[TourResult]
    planned_tours: int
    removed_hosts: tuple[str, ...]
    scheduled: list[Tour] = field(default_factory=list)

    @property
    def left_table(self) -> set[str]:
        return {team for team, w in self.withdrawals.items() if w.below_half}


def withdrawal_effects(facts: TournamentFacts) -> dict[str, WithdrawalEffect]:
    """CHGK-17 for each withdrawn team: played = tours it has a mask in (a missed tour is not played);
    below half when 2 x played < N, N the planned tours (one per admitted team)."""
    played_tours = [t for t in season_tours(facts) if has_results(t)]
    planned = len(facts.teams)
    effects: dict[str, WithdrawalEffect] = {}
    for w in facts.withdrawals:
        if w.team in effects:
            continue
        played = sum(1 for t in played_tours if t.mask_of(w.team) is not None)
        hosted = any(t.host == w.team for t in played_tours)
        effects[w.team] = WithdrawalEffect(w.team, w.at, played, 2 * played < planned, hosted)
    return effects


def _tour_appeals(facts: TournamentFacts, number: int) -> list[Appeal]:
    return [a for a in facts.appeals
            if a.kind in ("removal", "accept_answer") and a.stage in (None, SEASON) and a.tour == number]


def _verdicts(appeals: list[Appeal]) -> tuple[set[int], dict[int, set[str]], set[int]]:
    """Removed questions (CHGK-21), credited teams per question (CHGK-22), questions with a pending appeal."""
    removed: set[int] = set()
    credited: dict[int, set[str]] = {}
    pending: set[int] = set()
    for appeal in appeals:
        if appeal.question is None:
            continue
        if appeal.pending:
            pending.add(appeal.question)
        elif appeal.verdict == "accepted" and appeal.kind == "removal":
            removed.add(appeal.question)
        elif appeal.verdict == "accepted" and appeal.kind == "accept_answer":
            teams = set(appeal.credited_teams) | ({appeal.team} if appeal.team else set())
            credited.setdefault(appeal.question, set()).update(teams)
    return removed, credited, pending


def _absent_teams(facts: TournamentFacts, tour: Tour, withdrawals: dict[str, WithdrawalEffect]) -> tuple[str, ...]:
    """Teams counted as answering 0 (CHGK-10): listed absent, or missing from the results without having left.

    A team that had withdrawn before the tour is no longer in it; a team below
    half is removed from every tour (CHGK-17).
    """
    masked = {team for team, _mask in tour.masks}
    absent: list[str] = []
    for team in facts.teams:
        name = team.name
        if name in masked or name == tour.host:
            continue
        effect = withdrawals.get(name)
        if effect is not None:
            if effect.below_half:
                continue
            left_before = tour.played_on is None or tour.played_on > _local_date(facts, effect.at)
            if left_before and name not in tour.absent:
                continue
        absent.append(name)
    return tuple(absent)


def tour_result(facts: TournamentFacts, tour: Tour, withdrawals: dict[str, WithdrawalEffect],
                table: tuple[Fraction, ...]) -> TourResult:
    """One played tour recomputed: verdicts applied, teams below half removed (CHGK-17, CHGK-21, CHGK-22)."""
    removed, credited, pending = _verdicts(_tour_appeals(facts, tour.number))
    raw = {team: mask for team, mask in tour.masks
           if not (team in withdrawals and withdrawals[team].below_half)}
    masks = apply_verdicts(raw, tour.questions, removed, credited, pending)
    absent = _absent_teams(facts, tour, withdrawals)
    correct = {team: correct_answers(mask) for team, mask in masks.items()}
    correct.update({team: 0 for team in absent})
    ratings = question_ratings(masks.values(), tour.questions)
    return TourResult(
        tour=tour, masks=masks, absent=absent, ratings=ratings, correct=correct,
        places=shared_places(correct), points=tour_points(correct, table),
        rating_sums={team: rating_sum(mask, ratings) for team, mask in masks.items()},
    )


def season(facts: TournamentFacts) -> Season:
    """Every played tour computed, and the calendar after withdrawals (CHGK-7, CHGK-17)."""
    table = season_points_table(facts)
    withdrawals = withdrawal_effects(facts)
    tours = season_tours(facts)
    removed_hosts = tuple(team for team, w in withdrawals.items() if not w.hosted)
    return Season(
        teams=tuple(t.name for t in facts.teams),
        table=table,
        withdrawals=withdrawals,
        tours=[tour_result(facts, t, withdrawals, table) for t in tours if has_results(t)],
        planned_tours=len(facts.teams) - len(removed_hosts),
        removed_hosts=removed_hosts,
        scheduled=[t for t in tours if not has_results(t) and t.host not in removed_hosts],
    )


def tour_table(facts: TournamentFacts, tour_number: int) -> dict[str, Any]:
    """One tour as the pages show it: effective masks, question ratings, correct answers, places, points."""
    tour = _tour(facts, tour_number)
    if tour is None:
        raise RulesetError([Problem("tour", _("there is no tour %(tour)s", tour=tour_number))])
    withdrawals = withdrawal_effects(facts)
    removed_hosts = {team for team, w in withdrawals.items() if not w.hosted}
    base: dict[str, Any] = {
        "number": tour.number, "host": tour.host, "questions": tour.questions,
        "played_on": tour.played_on.isoformat() if tour.played_on else None,
        "played": has_results(tour), "removed_from_calendar": tour.host in removed_hosts and not has_results(tour),
    }
    if not has_results(tour):
        return {**base, "masks": {}, "absent": [], "ratings": [None] * tour.questions, "correct": {},
                "places": {}, "points": {}, "rating_sums": {}, "rows": []}
    result = tour_result(facts, tour, withdrawals, season_points_table(facts))
    places = {team: place_label(*result.places[team]) for team in result.correct}
    rows = sorted(result.correct, key=lambda team: (result.places[team][0], team))
    return {
        **base,
        "masks": dict(result.masks),
        "absent": list(result.absent),
        "ratings": list(result.ratings),
        "correct": dict(result.correct),
        "places": places,
        "points": dict(result.points),
        "rating_sums": dict(result.rating_sums),
        "rows": [{"team": team, "mask": result.masks.get(team), "absent": team in result.absent,
                  "correct": result.correct[team], "place": places[team], "points": result.points[team],
                  "rating_sum": result.rating_sums.get(team, 0)} for team in rows],
    }


# ---------------------------------------------------------------- standings

@dataclass
class _Total:
    team: str
    points: Fraction = Fraction(0)
    correct: int = 0
    rating_sum: int = 0
    by_tour: list[dict[str, Any]] = field(default_factory=list)


RANKING: tuple[Criterion[_Total], ...] = (
    Criterion("points", lambda t: t.points),
    Criterion("correct_answers", lambda t: t.correct),
    Criterion("rating_sum", lambda t: t.rating_sum),
)


def _totals(result: Season) -> list[_Total]:
    """Season totals per team still in the table (CHGK-15); a team below half has left it (CHGK-17)."""
    totals = {team: _Total(team) for team in result.teams if team not in result.left_table}
    for tour in result.tours:
        for team, total in totals.items():
            entry = _tour_entry(tour, team)
            total.by_tour.append(entry)
            if team in tour.correct:
                total.points += tour.points[team]
                total.correct += tour.correct[team]
                total.rating_sum += tour.rating_sums.get(team, 0)
    return list(totals.values())


def _tour_entry(tour: TourResult, team: str) -> dict[str, Any]:
    """What the table shows per team and tour (CHGK-16): answers, place, points, or the hosted tour."""
    if team == tour.tour.host:
        role = "host"
    elif team in tour.masks:
        role = "played"
    elif team in tour.absent:
        role = "absent"
    else:
        role = "out"
    place = tour.places.get(team)
    return {
        "tour": tour.number,
        "role": role,
        "correct": tour.correct.get(team) if role in ("played", "absent") else None,
        "place": place_label(*place) if place else None,
        "points": round2(tour.points.get(team, 0)),
    }


def is_final(facts: TournamentFacts, result: Season, now: dt.datetime) -> bool:
    """CHGK-16: no tour of the calendar left, no appeal pending, no appeal window open at ``now``."""
    if len(result.tours) < result.planned_tours:
        return False
    if any(a.pending for a in facts.appeals):
        return False
    return not any(appeal_window_open(facts, t.tour, now) for t in result.tours)


def compute(facts: TournamentFacts, stage_key: str | None, now: dt.datetime) -> Standings:
    """The season table (CHGK-15, CHGK-16) with tour-by-tour figures in ``details``."""
    if stage_key not in (None, SEASON):
        raise RulesetError([Problem("stage", _("chgk_tour_points has only the stage '%(stage)s', not %(key)s",
                                               stage=SEASON, key=repr(stage_key)))])
    result = season(facts)
    final = is_final(facts, result, now)
    ranked = competition_rank(_totals(result), RANKING, lambda t: t.team)
    rows: list[TeamRow] = []
    for entry in ranked:
        total = entry.item
        if total.team in result.withdrawals:
            status = "withdrawn"
        elif final and entry.rank == 1:
            status = "winner"
        else:
            status = "active"
        rows.append(TeamRow(
            team=total.team, points=total.points, rank=entry.rank, status=status,
            tiebreaks={"correct_answers": total.correct, "rating_sum": total.rating_sum},
            separated_by=entry.separated_by,
            details={
                "points_by_round": [e["points"] for e in total.by_tour],
                "correct_by_round": [e["correct"] for e in total.by_tour],
                "place_by_round": [e["place"] for e in total.by_tour],
                "role_by_round": [e["role"] for e in total.by_tour],
                "hosted_tour": next((t.number for t in season_tours(facts) if t.host == total.team), None),
                "tours_played": sum(1 for e in total.by_tour if e["role"] == "played"),
            },
        ))
    stage = facts.stage(SEASON)
    return Standings(
        stage=SEASON, final=final, teams=rows, seed=None, notes=_notes(facts, result, now, final),
        details=_season_details(facts, result, now, stage.seed if stage else None),
    )


def _notes(facts: TournamentFacts, result: Season, now: dt.datetime, final: bool) -> list[str]:
    """Why the table is still preliminary (CHGK-16), in plain words (messages with parameters)."""
    if final:
        return []
    notes: list[str] = []
    remaining = result.planned_tours - len(result.tours)
    if remaining > 0:
        notes.append(_("Preliminary: %(remaining)s of %(planned)s tours remain to be played (CHGK-16).",
                       remaining=remaining, planned=result.planned_tours))
    pending = sum(1 for a in facts.appeals if a.pending)
    if pending:
        notes.append(_("Preliminary: %(pending)s appeal(s) await a verdict (CHGK-16).", pending=pending))
    if any(appeal_window_open(facts, t.tour, now) for t in result.tours):
        notes.append(_("Preliminary: appeals may still be filed on a played tour (CHGK-18)."))
    return notes


def _season_details(facts: TournamentFacts, result: Season, now: dt.datetime, seed: str | None) -> dict[str, Any]:
    return {
        "rounds": [f"Tour {t.number}" for t in result.tours],
        "tour_numbers": [t.number for t in result.tours],
        "hosts": [t.tour.host for t in result.tours],
        "season_teams": len(result.teams),
        "points_table": [round2(p) for p in result.table],
        "planned_tours": result.planned_tours,
        "tours_played": len(result.tours),
        "scheduled_tours": [t.number for t in result.scheduled],
        "removed_from_calendar": list(result.removed_hosts),
        "left_table": sorted(result.left_table),
        "pending_appeals": sum(1 for a in facts.appeals if a.pending),
        "overdue_verdicts": sum(1 for a in facts.appeals if verdict_overdue(facts, a, now)),
        "appeal_window_open": any(appeal_window_open(facts, t.tour, now) for t in result.tours),
        "hosting_seed": seed,
    }
