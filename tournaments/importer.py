"""Import of an interchange document (``spec/interchange.md``) into the database.

The document is parsed and judged by the pure parser and the ruleset first;
only a document without a single problem is stored, in one transaction.
The rows that grow with the document (games, seats, roster entries, masks, ...) are written in one bulk
write per table (``tournaments.bulk``: ``COPY`` on PostgreSQL), so an import runs the same few dozen
statements whatever its size; the few rows whose keys the others need (stages, teams, groups, tours) and
the rare ones (penalties, decisions, appeals) go through the ORM.
"""

from __future__ import annotations

import dataclasses
import json
from operator import attrgetter
from typing import Any

from django.conf import settings
from django.db import DataError, IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone

from accounts.models import Family, Player
from rulesets.base import Problem, RulesetError
from rulesets.errors import Conflict, Invalid
from rulesets.facts import Penalty as FactPenalty
from rulesets.facts import TournamentFacts
from rulesets.interchange import MAX_DOCUMENT_DEPTH, nesting_path, parse_document, safe_text
from rulesets.messages import mapped
from tournaments import bulk, game_cache, purge
from tournaments.audit import record
from tournaments.changes import bulk_change, mark_changed
from tournaments.collector import gc_paused
from tournaments.fact_fields import SEAT
from tournaments.models import (
    Appeal,
    Decision,
    Game,
    Group,
    GroupTeam,
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
    Withdrawal,
)

GAME_FIELDS = ("stage_id", "number", "group_id", "group_label", "round", "scheduled_at", "status", "outcome", "omon",
               "game_days", "link", "result_recorded_at")
SEAT_FIELDS = ("game_id", "order", *SEAT.columns)  # the references (player_id, team_id) first, then SEAT.values
_seat_values = attrgetter(*SEAT.values)


class ImportRefused(Invalid):
    """The document was not imported; ``problems`` say where and why."""

    conflict = False

    def __init__(self, problems: list[Problem]):
        # a refused document may hold text that cannot be printed or encoded (a lone surrogate): escape it
        super().__init__([Problem(safe_text(p.path), mapped(p.message, safe_text)) for p in problems])


class ImportConflict(ImportRefused, Conflict):
    """The document's tournament exists and was not to be replaced."""

    conflict = True


def decode(raw: bytes | str) -> Any:
    """Decode JSON text, turning a syntax error into a refusal naming the line (the cyclic collector paused: a
    league's document is 10^5 objects that all stay alive, ``collector``)."""
    try:
        with gc_paused():
            return json.loads(raw)
    except RecursionError as exc:
        text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
        path = nesting_path(text, MAX_DOCUMENT_DEPTH) or ""
        raise ImportRefused([Problem(path, f"nested too deeply: a document nests at most {MAX_DOCUMENT_DEPTH} "
                                           "objects and lists")]) from exc
    except ValueError as exc:  # JSONDecodeError, UnicodeDecodeError, an integer of more than 4,300 digits
        raise ImportRefused([Problem("", f"not valid JSON: {exc}")]) from exc


def import_document(document: Any, *, replace: bool = False, user=None) -> Tournament:
    """Parse, judge and store a document; all or nothing (the cyclic collector paused meanwhile: a league's
    150,000 seats would be scanned by every collection their allocation triggers, ``collector``).

    The document is not kept once parsed: passed without another reference (``import_document(decode(raw))``),
    its 10^5 objects are freed before the writes and the recompute (a third of the command's peak)."""
    with gc_paused():
        try:
            facts = parse_document(document)
        except RulesetError as exc:
            raise ImportRefused(exc.problems) from exc
        except RecursionError as exc:
            raise ImportRefused([Problem("", "the document is nested too deeply")]) from exc
        del document  # the facts hold what is stored: a caller that keeps no reference lets the document go
        try:
            return store_facts(facts, replace=replace, user=user)
        except (DataError, IntegrityError, OverflowError) as exc:
            # the parser bounds every value the database stores; this is the last line, without the SQL text
            raise ImportRefused([Problem("", "the database refused the document; nothing was changed")]) from exc


@transaction.atomic
def store_facts(facts: TournamentFacts, *, replace: bool = False, user=None) -> Tournament:
    """Store parsed facts as a new tournament (replacing one with the same slug when asked)."""
    # game id -> (header, facts) for the loader's cache (``_prime_loader``), when this process recomputes
    primed: dict[int, tuple] | None = {} if settings.CELERY_TASK_ALWAYS_EAGER else None
    with bulk_change():
        tournament, replaced = _store(facts, replace, primed)
    record("replace" if replaced else "import", tournament, None,
           {"slug": tournament.slug, "stages": [s.key for s in facts.stages]}, user=user)
    pk = tournament.pk
    if primed:
        transaction.on_commit(lambda: _remember_primed(pk, primed))  # before the recompute mark_changed queues
    mark_changed(tournament.pk, bump=False)
    return tournament


def _store(facts: TournamentFacts, replace: bool, primed: dict[int, tuple] | None) -> tuple[Tournament, bool]:
    existing = Tournament.objects.select_for_update().filter(slug=facts.slug).first()
    owned = _families_of(existing) if existing is not None else set()
    if existing is not None:
        if not replace:
            raise ImportConflict(
                [Problem("tournament.slug", f"a tournament {facts.slug!r} exists; use --replace to overwrite it")])
        version = existing.facts_version + 1
        purge.delete_games_and_tours([existing.pk])  # set-wise: the ORM would build 160,000 rows
        existing.delete()
    else:
        version = 1
    tournament = Tournament.objects.create(
        slug=facts.slug, name=facts.name, ruleset=facts.ruleset,  # save() freezes its version and rules
        settings=facts.settings, timezone=facts.timezone, starts_on=facts.starts_on, facts_version=version,
    )
    players = _ensure_players(facts)
    families = _ensure_families(facts, players, owned, tournament)
    bulk.insert(Participant, ("tournament_id", "player_id", "order", "level", "disqualified", "banned", "family_id"), [
        (tournament.pk, players[p.nick], i, p.level, p.disqualified, p.banned,
         families[p.family].pk if p.family and p.family in families else None)
        for i, p in enumerate(facts.players)
    ])
    bulk.insert(TournamentFamily, ("tournament_id", "family_id", "order"),
                [(tournament.pk, families[f.name].pk, i) for i, f in enumerate(facts.families)])
    rosters: list[tuple] = []
    top_teams = _create_teams(tournament, None, facts.teams, players, families, rosters)
    stages: dict[str, Stage] = {}
    teams_of_stage: dict[str, dict[str, Team]] = {}
    games_of_stage: dict[str, dict[int, int]] = {}
    tours_of_stage: dict[str, dict[int, Tour]] = {}
    group_teams: list[tuple] = []
    imported_at = timezone.now()
    for order, fstage in enumerate(facts.stages):
        stage = Stage.objects.create(tournament=tournament, key=fstage.key, order=order, seed=fstage.seed or "",
                                     published_at=imported_at)
        stages[fstage.key] = stage
        teams = dict(top_teams)
        teams.update(_create_teams(tournament, stage, fstage.teams, players, families, rosters))
        teams_of_stage[fstage.key] = teams
        created = Group.objects.bulk_create([Group(stage=stage, name=g.name, order=i)
                                             for i, g in enumerate(fstage.groups)])
        groups = {group.name: group for group in created}
        group_teams += [(group.pk, teams[t].pk, i) for group, g in zip(created, fstage.groups)
                        for i, t in enumerate(g.teams)]
        games_of_stage[fstage.key] = _create_games(stage, fstage.games, groups, teams, players, imported_at, primed)
        tours_of_stage[fstage.key] = _create_tours(stage, fstage.tours, teams)
    bulk.insert(RosterEntry, ("team_id", "player_id", "order", "left_at"), rosters)
    bulk.insert(GroupTeam, ("group_id", "team_id", "order"), group_teams)
    all_teams = dict(top_teams)
    for teams in teams_of_stage.values():
        all_teams.update(teams)

    def team_of(name: str | None, stage_key: str | None) -> Team | None:
        if name is None:
            return None
        if stage_key and stage_key in teams_of_stage and name in teams_of_stage[stage_key]:
            return teams_of_stage[stage_key][name]
        return all_teams[name]

    def game_of(stage_key: str | None, number: int | None) -> int | None:
        return games_of_stage[stage_key].get(number) if stage_key and number else None

    def penalty_row(p, order: int, **extra) -> Penalty:
        return Penalty(tournament=tournament, order=order, stage=stages.get(p.stage) if p.stage else None,
                       game_id=game_of(p.stage, p.game), team=team_of(p.team, p.stage),
                       player_id=players[p.player] if p.player else None, kind=p.kind, code=p.code or "",
                       points=p.points, decided_at=p.decided_at, published_at=p.published_at, text=p.text, **extra)

    penalties = Penalty.objects.bulk_create([penalty_row(p, i) for i, p in enumerate(facts.penalties)])
    decisions = Decision.objects.bulk_create([
        Decision(tournament=tournament, index=d.index, kind=d.kind, stage=stages.get(d.stage) if d.stage else None,
                 game_id=game_of(d.stage, d.game), code=d.code or "",
                 outcome=d.outcome, team=team_of(d.team, d.stage), player_id=players[d.player] if d.player else None,
                 order=list(d.order), reason=d.reason, decided_at=d.decided_at, published_at=d.published_at,
                 by=d.by or "", text=d.text)
        for d in facts.decisions
    ])
    for i, a in enumerate(facts.appeals):
        stage_key = a.stage or (facts.stages[0].key if a.kind != "decision" and facts.stages else None)
        appeal = Appeal.objects.create(
            tournament=tournament, order=i, kind=a.kind, stage=stages.get(a.stage) if a.stage else None,
            tour=tours_of_stage[stage_key].get(a.tour) if stage_key and a.tour else None, question=a.question,
            team=team_of(a.team, stage_key), answer=a.answer,
            decision=decisions[a.decision - 1] if a.decision else None, appellant=a.appellant,
            penalty=penalties[a.penalty - 1] if a.kind == "penalty" and a.penalty else None,
            filed_at=a.filed_at, verdict=a.verdict, verdict_at=a.decided_at,
        )
        if a.credited_teams:
            appeal.credited_teams.set([team_of(t, stage_key) for t in a.credited_teams])
        if isinstance(a.replacement, FactPenalty):  # FL-19: the changed penalty of a partly upheld appeal
            penalty_row(a.replacement, penalties[a.penalty - 1].order, replacement_for=appeal).save()
        elif a.replacement is not None:  # FL-19: the changed decision of a partly upheld appeal, in its place
            d = a.replacement
            Decision.objects.create(
                tournament=tournament, index=a.decision, kind=d.kind, stage=stages.get(d.stage) if d.stage else None,
                game_id=game_of(d.stage, d.game), code=d.code or "",
                outcome=d.outcome, team=team_of(d.team, d.stage), player_id=players[d.player] if d.player else None,
                order=list(d.order), reason=d.reason, decided_at=d.decided_at, published_at=d.published_at,
                by=d.by or "", text=d.text, replacement_for=appeal)
    Withdrawal.objects.bulk_create([Withdrawal(tournament=tournament, team=team_of(w.team, None), at=w.at)
                                    for w in facts.withdrawals])
    return tournament, existing is not None


def _ensure_players(facts: TournamentFacts) -> dict[str, int]:
    """The key of each player of the document by nick: the existing ones read, the others created."""
    nicks = [p.nick for p in facts.players]
    found = dict(Player.objects.filter(nick__in=nicks).values_list("nick", "pk"))
    missing = [n for n in nicks if n not in found]
    found.update(zip(missing, bulk.insert(Player, ("nick",), [(n,) for n in missing], ids=True)))
    return found


def _families_of(tournament: Tournament) -> set[int]:
    """The families the tournament uses (its families, teams and participants), read before a replace."""
    return (set(TournamentFamily.objects.filter(tournament=tournament).values_list("family_id", flat=True))
            | set(Team.objects.filter(tournament=tournament, family__isnull=False).values_list("family_id", flat=True))
            | set(Participant.objects.filter(tournament=tournament, family__isnull=False)
                  .values_list("family_id", flat=True)))


def _used_elsewhere(family_ids: set[int], tournament: Tournament) -> set[int]:
    """Of ``family_ids``, those another tournament than ``tournament`` uses."""
    if not family_ids:
        return set()
    others = ~Q(tournament=tournament)
    return (set(TournamentFamily.objects.filter(others, family_id__in=family_ids).values_list("family_id", flat=True))
            | set(Team.objects.filter(others, family_id__in=family_ids).values_list("family_id", flat=True))
            | set(Participant.objects.filter(others, family_id__in=family_ids).values_list("family_id", flat=True)))


def _ensure_families(facts: TournamentFacts, players: dict[str, int], owned: set[int],
                     tournament: Tournament | None = None) -> dict[str, Family]:
    """The document's families: new ones are created with their head; an existing one is reused as it is.

    An import changes only a family it owns: one the tournament it replaces used and no other tournament
    uses. Any other family's head stays (it decides who applies for the family, FL-1); a document that would
    change it is refused at ``families[i].head``.
    """
    names = [f.name for f in facts.families]
    found = {f.name: f for f in Family.objects.filter(name__in=names)}
    Family.objects.bulk_create([Family(name=n, head_id=players[f.head] if f.head else None)
                                for f in facts.families if (n := f.name) not in found])
    families = {f.name: f for f in Family.objects.filter(name__in=names).select_related("head")}
    changes = [(i, fam) for i, fam in enumerate(facts.families)
               if fam.name in found and fam.head is not None and families[fam.name].head_id != players[fam.head]]
    if not changes:
        return families
    foreign = _used_elsewhere({families[fam.name].pk for _, fam in changes}, tournament) if tournament else set()
    problems = []
    for i, fam in changes:
        family = families[fam.name]
        if family.pk in owned and family.pk not in foreign:
            family.head_id = players[fam.head]
            family.save(update_fields=["head"])
            continue
        head = f"head {family.head.nick!r}" if family.head else "no head"
        problems.append(Problem(f"families[{i}].head", (
            f"family {fam.name!r} exists with {head} and is not this tournament's own (another tournament "
            f"uses it, or an earlier import of {facts.slug!r} did not create it): an import does not change its "
            "head; leave head out or give the family's own")))
    if problems:
        raise ImportRefused(problems)
    return families


def _create_teams(tournament: Tournament, stage: Stage | None, teams, players: dict[str, int], families,
                  rosters: list[tuple]) -> dict[str, Team]:
    """The teams, by name; their roster entries are added to ``rosters`` (written at once for every stage)."""
    created = Team.objects.bulk_create([
        Team(tournament=tournament, stage=stage, name=t.name, order=i,
             captain_id=players[t.captain] if t.captain else None,
             family=families.get(t.family) if t.family else None, league=t.league,
             home_university=t.home_university)
        for i, t in enumerate(teams)
    ])
    by_name = {team.name: team for team in created}
    rosters += [(by_name[t.name].pk, players[nick], i, t.left_moment(nick))
                for t in teams for i, nick in enumerate(t.players)]
    return by_name


def _create_games(stage: Stage, games, groups, teams: dict[str, Team], players: dict[str, int],
                  imported_at, primed: dict[int, tuple] | None) -> dict[int, int]:
    """The stage's games (their keys by number), seats, absent teams and no-show eliminations, each table in one
    bulk write. A game with a result keeps the document's ``result_recorded_at``, else the import's own time
    (FL-19; interchange: games)."""
    ids = bulk.insert(Game, GAME_FIELDS, [
        (stage.pk, g.number, groups[g.group].pk if g.group and g.group in groups else None, g.group or "", g.round,
         g.scheduled_at, g.status, g.outcome, g.omon, g.game_days, g.link or "",
         None if g.status == "scheduled" else (g.result_recorded_at or imported_at))
        for g in games
    ], ids=True)
    _prime_loader(stage, ids, games, imported_at, primed)
    team_ids = {name: team.pk for name, team in teams.items()}
    seats = []
    absences = []
    no_shows = []
    for game_id, g in zip(ids, games):
        seats += [(game_id, order, players[s.player], team_ids[s.team], *_seat_values(s))
                  for order, s in enumerate(g.seats)]
        if g.absent_teams:
            absences += [(game_id, team_ids[t]) for t in g.absent_teams]
        if g.no_show_eliminated:
            no_shows += [(game_id, team_ids[t], players[p]) for t, p in g.no_show_eliminated]
    bulk.insert(Seat, SEAT_FIELDS, seats)
    bulk.insert(Game.absent_teams.through, ("game_id", "team_id"), absences)
    bulk.insert(NoShowElimination, ("game_id", "team_id", "player_id"), no_shows)
    return {g.number: game_id for game_id, g in zip(ids, games)}


def _prime_loader(stage: Stage, ids: list[int], games, imported_at, primed: dict[int, tuple] | None) -> None:
    """Once the import commits, the loader's game cache (``tournaments.game_cache``) holds the stage's games as the
    loader would read them back: the recompute the commit triggers in this process then reads the games' headers
    and count, not their 10^5 seats again. The times as the
    database gives them back (in the connection's zone), an empty link as none, the import's own
    ``result_recorded_at`` (``_create_games``); revision 0, every game's default. ``tests/test_bulk_fast_path.py``
    compares them with what the loader reads. Only where the recompute runs in this process (Celery eager: the
    command without a broker, the tests; ``primed`` None otherwise): a web process that queues the job for a
    worker keeps no league in memory for it."""
    if primed is None:
        return
    zone = connection.timezone

    def as_read(moment):
        return moment if moment is None or zone is None else moment.astimezone(zone)

    entries = {
        game_id: ((game_id, stage.pk, 0, g.number, g.status), dataclasses.replace(
            g, group=g.group or None, scheduled_at=as_read(g.scheduled_at), link=g.link or None,
            result_recorded_at=None if g.status == "scheduled" else as_read(g.result_recorded_at or imported_at),
            violations_published=()))
        for game_id, g in zip(ids, games)
    }
    primed.update(entries)


def _remember_primed(tournament_id: int, entries: dict[int, tuple]) -> None:
    """On the import's commit: the primed games into the game cache, under the tournament's key as it is now."""
    if not entries:
        return
    key = Tournament.objects.filter(pk=tournament_id).values_list(*game_cache.KEY_FIELDS).first()
    if key is not None:
        game_cache.remember(tournament_id, key, dict(sorted(entries.items(), key=lambda e: (e[1][0][1], e[0]))))


def _create_tours(stage: Stage, tours, teams: dict[str, Team]) -> dict[int, Tour]:
    created = Tour.objects.bulk_create([
        Tour(stage=stage, number=t.number, host=teams.get(t.host) if t.host else None, played_on=t.played_on,
             questions=t.questions)
        for t in tours
    ])
    by_number = {tour.number: tour for tour in created}
    bulk.insert(Mask, ("tour_id", "team_id", "mask", "order"), [
        (by_number[t.number].pk, teams[team].pk, mask, i) for t in tours for i, (team, mask) in enumerate(t.masks)
    ])
    bulk.insert(Tour.absent.through, ("tour_id", "team_id"),
                [(by_number[t.number].pk, teams[name].pk) for t in tours for name in t.absent])
    return by_number
