"""A rating-site response as one tour of a ChGK season: team matching, appeals, places, the write.

``read_rating_results`` matches the site's teams (``tournaments.sources.chgk_rating``)
to the season's teams by name (case, ``ё`` and spacing aside) or by the
organizer's ``mapping`` (the site's team id or name -> a season team, ``""`` to
skip it); a name two teams of the file share (a synchron) is matched only by
the site's team id. It gives the interchange tour object (masks as the game
jury marked them, ``X`` kept), the controversials as the tour's appeals
(``A`` accepted and credited to every team that gave the answer, CHGK-22; ``D``
rejected), and the portal's own tour places beside the site's ``position``:
CHGK-13's shared places averaged (``rulesets.chgk_tour_points.tours``) over the
masks with the verdicts applied (CHGK-21, CHGK-22). A place the masks cannot
give (a shoot-out) is the one expected difference.

``import_rating_results`` writes it: the tour's question count from the masks,
the masks through ``tournaments.commands.record_tour_masks`` (versioned, judged
by the ruleset, audited, recomputed), and each controversial as an appeal with
its verdict, judged by the ruleset with the appeal in place (CHGK-18's deadline,
CHGK-20, CHGK-22) as an imported document's appeals are. The verdicts are the
official site's appeal jury's, recorded as facts by the organizer: the portal's
own filing (the captain, CHGK-20) and deciding (its jury, CHGK-18) paths of
``appeals.services`` are for appeals the portal's jury hears.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections import Counter
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from rulesets import facts as F
from rulesets.chgk_tour_points import KEY
from rulesets.chgk_tour_points.tours import apply_verdicts, average_place, correct_answers, shared_places
from rulesets.errors import Invalid, NotFound, Problem
from rulesets.interchange import MAX_INT
from tournaments import commands
from tournaments.loader import load_facts
from tournaments.models import Appeal, AppealKind, Mask, Stage, Team, Tour, Tournament
from tournaments.sources.chgk_rating import parse_rating_results

SEASON = "season"
SKIP = ""


def normalised(name: str) -> str:
    """A team name as matching compares it: case, ``ё``/``е``, quotes and spacing aside."""
    return " ".join(name.casefold().replace("ё", "е").replace("«", "").replace("»", "").replace('"', "").split())


def as_number(value: Fraction | None) -> int | float | None:
    """A place for JSON: ``3`` or ``2.5``."""
    if value is None:
        return None
    return int(value) if value.denominator == 1 else float(value)


@dataclass
class RatingImport:
    """A tour the response gives, before it is saved."""

    tour: dict[str, Any] | None
    appeals: list[dict[str, Any]] = field(default_factory=list)
    places: list[dict[str, Any]] = field(default_factory=list)
    unmatched: list[dict[str, Any]] = field(default_factory=list)  # site teams with no season team
    skipped: list[dict[str, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def differences(self) -> list[dict[str, Any]]:
        """The teams whose portal place is not the site's position (a shoot-out, or a question of the masks)."""
        return [p for p in self.places if p["site_position"] is not None and p["place"] != p["site_position"]]

    def as_json(self) -> dict[str, Any]:
        """The dry run's document: the tour, its appeals and the places (``--dry-run``)."""
        return {"tour": self.tour, "appeals": self.appeals, "places": self.places}

    def report(self) -> dict[str, Any]:
        return {**self.as_json(), "differences": self.differences, "unmatched": self.unmatched,
                "skipped": self.skipped, "problems": [{"path": p.path, "message": p.message} for p in self.problems]}


def season_of(tournament: Tournament) -> Stage:
    if tournament.ruleset != KEY:
        raise Invalid(Problem("tournament", _("%(slug)s is not a ChGK season: rating results go into ChGK tours") % {
            "slug": tournament.slug}))
    stage = Stage.objects.filter(tournament=tournament, key=SEASON).first()
    if stage is None:
        raise Invalid(Problem("tournament", _("%(slug)s has no season stage") % {"slug": tournament.slug}))
    return stage


def _season_teams(tournament: Tournament, stage: Stage) -> list[str]:
    return list(Team.objects.filter(tournament=tournament).filter(stage__isnull=True).order_by(
        "order", "name").values_list("name", flat=True)) + list(
        Team.objects.filter(tournament=tournament, stage=stage).order_by("order", "name").values_list("name", flat=True))


def _match(site_teams: list[dict[str, Any]], season: list[str], mapping: dict[str, str],
           problems: list[Problem]) -> list[str | None]:
    """The season team of each site team (None: unmatched, ``SKIP``: skipped by the organizer)."""
    by_name = {}
    for name in season:
        by_name.setdefault(normalised(name), []).append(name)
    shared = Counter(normalised(t["name"]) for t in site_teams)
    mapped = {str(k).strip(): v for k, v in mapping.items()}
    out: list[str | None] = []
    for team in site_teams:
        keys = [str(team["site_id"])] if team["site_id"] is not None else []
        if shared[normalised(team["name"])] == 1:
            keys += team["names"]
        chosen = next((mapped[k] for k in keys if k in mapped), None)
        if chosen is not None:
            if chosen != SKIP and chosen not in season:
                problems.append(Problem(f"map.{keys[0]}", _("%(team)s is not a team of the season") % {
                    "team": chosen}))
                chosen = None
            out.append(chosen)
            continue
        found = None
        if shared[normalised(team["name"])] == 1:
            for name in team["names"]:
                candidates = by_name.get(normalised(name), [])
                if len(candidates) == 1:
                    found = candidates[0]
                    break
        out.append(found)
    used = Counter(t for t in out if t)
    for i, name in enumerate(out):
        if name and used[name] > 1:
            problems.append(Problem(f"teams[{i}]", _("two teams of the file are matched to %(team)s; map them by "
                                                     "the site's team id") % {"team": name}))
    return out


def read_rating_results(tournament: Tournament, number: int, data: Any, mapping: dict[str, str] | None = None,
                        skip_unmatched: bool = False, *, root: str = "", host: str | None = None,
                        played_on: dt.date | None = None) -> RatingImport:
    """Tour ``number`` of the season as the response ``data`` gives it (see the module's docstring); ``root``: the
    path of the response in what was sent (``"results"`` in the API's body), before each problem's path.

    A tour the season does not have yet is created by the import with ``host`` (a season team,
    CHGK-7) and ``played_on`` as the organizer gives them; for an existing tour they must agree with it."""
    stage = season_of(tournament)
    parsed, problems = parse_rating_results(data, root)
    if parsed is None:
        return RatingImport(tour=None, problems=problems)
    if not 1 <= number <= MAX_INT:
        return RatingImport(tour=None, problems=[Problem("tour", _("a tour's number is 1 or more"))])
    tour_row = Tour.objects.select_related("host").filter(stage=stage, number=number).first()
    season = _season_teams(tournament, stage)
    if tour_row is not None:
        problems.extend(_disagreements(tour_row, host, played_on))
        host = tour_row.host.name if tour_row.host_id else host
        played_on = tour_row.played_on or played_on
    if host is not None and host not in season:
        problems.append(Problem("host", _("%(team)s is not a team of the season") % {"team": host}))
        host = None
    matched = _match(parsed["teams"], season, mapping or {}, problems)
    result = RatingImport(tour=None, problems=problems)
    masks: dict[str, str] = {}
    for team, name in zip(parsed["teams"], matched, strict=True):
        row = {"site_id": team["site_id"], "name": team["name"], "site_position": as_number(team["site_position"])}
        if name is None:
            (result.skipped if skip_unmatched else result.unmatched).append(row)
        elif name == SKIP:
            result.skipped.append(row)
        elif name == host:
            result.skipped.append({**row, "team": name, "reason": _("the tour's host has no mask (CHGK-7)")})
        else:
            masks[name] = team["mask"]
    for row in result.unmatched:
        problems.append(Problem(f"teams.{row['name']}", _(
            "%(team)s (site id %(id)s) is not a team of the season: map it to a team or skip it") % {
            "team": row["name"], "id": row["site_id"]}))
    tour: dict[str, Any] = {"number": number}
    if host is not None:
        tour["host"] = host
    if played_on is not None:
        tour["played_on"] = played_on.isoformat()
    tour["questions"] = parsed["questions"]
    tour["masks"] = masks
    absent = [name for name in season if name not in masks and name != host]
    if absent:
        tour["absent"] = absent
    result.tour = tour
    team_of_index = dict(enumerate(matched))
    credited: dict[int, list[str]] = {}
    pending: list[int] = []
    for c in parsed["controversials"]:
        teams = [team_of_index[i] for i in c["teams"] if team_of_index.get(i) in masks]
        if not teams:
            continue
        appeal: dict[str, Any] = {"stage": SEASON, "tour": number, "question": c["question"], "team": teams[0],
                                  "kind": "accept_answer", "answer": c["answer"],
                                  "filed_at": c["filed_at"] or timezone.now().isoformat()}
        if c["verdict"] is not None:
            appeal["verdict"] = c["verdict"]
        if c["verdict"] == "accepted":
            appeal["credited_teams"] = teams
            credited.setdefault(c["question"], []).extend(teams)
        elif c["verdict"] is None:
            pending.append(c["question"])
        result.appeals.append(appeal)
    effective = apply_verdicts(masks, parsed["questions"], (), credited, pending)
    places = shared_places({name: correct_answers(mask) for name, mask in effective.items()})
    site_position = {name: as_number(team["site_position"])
                     for team, name in zip(parsed["teams"], matched, strict=True) if name in masks}
    result.places = [{"team": name, "place": as_number(average_place(*places[name])),
                      "site_position": site_position[name]} for name in masks]
    result.places.sort(key=lambda p: (p["place"], p["team"]))
    return result


def _disagreements(tour: Tour, host: str | None, played_on: dt.date | None) -> list[Problem]:
    """An existing tour's host and date stay as the season has them: options that differ are refused (an option
    fills in what the tour does not have yet)."""
    problems = []
    if host is not None and tour.host_id and tour.host.name != host:
        problems.append(Problem("host", _("tour %(number)d is hosted by %(team)s; change the host on the season's "
                                          "structure page") % {"number": tour.number, "team": tour.host.name}))
    if played_on is not None and tour.played_on is not None and tour.played_on != played_on:
        problems.append(Problem("played_on", _("tour %(number)d is played on %(date)s") % {
            "number": tour.number, "date": tour.played_on.isoformat()}))
    return problems


def _moment(value: str) -> dt.datetime:
    try:
        moment = dt.datetime.fromisoformat(value)
    except (TypeError, ValueError) as exc:
        raise Invalid(Problem("appeals.filed_at", _("not a date and time: %(value)r") % {"value": value})) from exc
    return moment if moment.tzinfo is not None else timezone.make_aware(moment)


def import_rating_results(user, tournament_slug: str, number: int, data: Any, *, mapping: dict[str, str] | None = None,
                          skip_unmatched: bool = False, root: str = "", host: str | None = None,
                          played_on: dt.date | None = None) -> RatingImport:
    """Write tour ``number``'s masks and appeals from the response, creating the tour when the season has none of
    that number, and keep the site's position of each team beside the portal's place; all or nothing
    (``Invalid`` otherwise)."""
    tournament = Tournament.objects.filter(slug=tournament_slug).first()
    if tournament is None:
        raise NotFound(_("unknown tournament %(slug)r") % {"slug": tournament_slug})
    commands.require_result_entry(user, tournament, SEASON)  # a ChGK season's tours are its one stage's
    result = read_rating_results(tournament, number, data, mapping, skip_unmatched, root=root, host=host,
                                 played_on=played_on)
    if result.problems:
        raise Invalid(result.problems)
    stage = season_of(tournament)
    with transaction.atomic():
        tour = Tour.objects.select_for_update().filter(stage=stage, number=number).first()
        if tour is None:
            tour = _new_tour(user, stage, result.tour)
        _fill_in(user, tour, result.tour)
        commands.record_tour_masks(user, tour.pk, {"masks": result.tour["masks"], "version": tour.version})
        tour.refresh_from_db()
        _store_site_positions(tour, result.places)
        _record_appeals(user, tournament, tour, result.appeals)
    return result


def _new_tour(user, stage: Stage, tour: dict[str, Any]) -> Tour:
    """The tour the file brings, with the organizer's host and date; the row's save is in the
    history (``tournaments.audit``)."""
    host = Team.objects.filter(tournament=stage.tournament, name=tour["host"]).first() if tour.get("host") else None
    played_on = dt.date.fromisoformat(tour["played_on"]) if tour.get("played_on") else None
    return Tour.objects.create(stage=stage, number=tour["number"], host=host, played_on=played_on,
                               questions=tour["questions"], updated_by=user.get_username())


def _fill_in(user, tour: Tour, given: dict[str, Any]) -> None:
    """The file's question count, and the host and date the tour did not have yet."""
    changed = []
    if tour.questions != given["questions"]:
        tour.questions, changed = given["questions"], [*changed, "questions"]
    if tour.host_id is None and given.get("host"):
        tour.host, changed = Team.objects.get(tournament=tour.stage.tournament, name=given["host"]), [*changed, "host"]
    if tour.played_on is None and given.get("played_on"):
        tour.played_on, changed = dt.date.fromisoformat(given["played_on"]), [*changed, "played_on"]
    if changed:
        tour.updated_by = user.get_username()
        tour.save()


def _store_site_positions(tour: Tour, places: list[dict[str, Any]]) -> None:
    """Each team's position on the rating site, shown on the tour page where it differs from the portal's."""
    position = {p["team"]: p["site_position"] for p in places}
    rows = list(Mask.objects.filter(tour=tour).select_related("team"))
    for row in rows:
        row.site_position = position.get(row.team.name)
    Mask.objects.bulk_update(rows, ["site_position"])


def _record_appeals(user, tournament: Tournament, tour: Tour, appeals: list[dict[str, Any]]) -> None:
    """Each controversial as an appeal of the tour with the site's verdict, judged with it in place."""
    teams = {t.name: t for t in Team.objects.filter(tournament=tournament)}
    existing = set(Appeal.objects.filter(tour=tour).values_list("question", "answer"))
    for data in appeals:
        if (data["question"], data["answer"]) in existing:
            continue  # the same controversial imported before
        filed_at = _moment(data["filed_at"])
        verdict = data.get("verdict")
        fappeal = F.Appeal(kind=AppealKind.ACCEPT_ANSWER, filed_at=filed_at, stage=SEASON, tour=tour.number,
                           question=data["question"], team=data["team"], answer=data["answer"], verdict=verdict,
                           credited_teams=tuple(data.get("credited_teams", ())),
                           decided_at=timezone.now() if verdict else None)
        facts = load_facts(tournament)
        after = dataclasses.replace(facts, appeals=facts.appeals + (fappeal,))
        problems = commands.judge(tournament, facts, after, f"appeals[{len(facts.appeals)}]")
        if problems:
            raise Invalid([Problem(f"appeals.{data['question']}.{p.path}".rstrip("."), p.message)
                           for p in problems])
        order = (Appeal.objects.filter(tournament=tournament).order_by("-order").values_list(
            "order", flat=True).first() or 0) + 1
        appeal = Appeal.objects.create(
            tournament=tournament, order=order, kind=AppealKind.ACCEPT_ANSWER, stage=tour.stage, tour=tour,
            question=data["question"], team=teams[data["team"]], answer=data["answer"],
            appellant=data["team"], filed_at=filed_at, filed_by=user, verdict=verdict,
            verdict_reasons=_("the rating site's verdict") if verdict else "",
            verdict_at=fappeal.decided_at)
        if fappeal.credited_teams:
            appeal.credited_teams.set([teams[name] for name in fappeal.credited_teams])
