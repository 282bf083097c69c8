"""Load a whole tournament's facts in a fixed number of queries.

The number of queries does not depend on the number of games, seats, tours
or teams (a test holds it): every table is read once, as plain tuples, and
the ``rulesets.facts`` dataclasses are assembled in memory. The games a
process read last are kept (``tournaments.game_cache``): of a large league only
the games that changed since are read again.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import defaultdict
from dataclasses import replace
from itertools import groupby
from operator import itemgetter

from django.db import connection
from django.db.models import Q

import rulesets
from accounts.models import Player
from rulesets import facts as F
from tournaments import game_cache
from tournaments.fact_fields import SEAT
from tournaments.models import (
    Appeal,
    Decision,
    Game,
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

STALE_GAMES_READ_BY_ID = 500  # more changed games than this: read the whole tournament
# a partly upheld appeal with no changed decision recorded (a ChGK appeal, a detected violation) changes the facts
# as an accepted one; against a Mafia decision it carries the changed decision that replaces it (FL-19)
FACT_VERDICT = {"partly": "accepted"}
# a seat's row as the loader reads it: its game, the keys of its player and team, its role, then the rest of its
# values (``tournaments.fact_fields.SEAT``)
SEAT_VALUES = tuple(name for name in SEAT.values if name != "role")
SEAT_READ = ("game_id", "player_id", "team_id", "role", *SEAT_VALUES)


def _seats_reader():
    """``seats(rows, nick, team_name, role_of)``: the ``F.Seat`` of each of one game's ``SEAT_READ`` rows, the
    nicks and team names by key, one string per role (``role_of``). Built from ``SEAT_VALUES`` once, as a
    comprehension that unpacks each row into names (a league is 10^5 seats: a fifth faster than by index)."""
    values = ", ".join(SEAT_VALUES)
    scope = {"seat": F.seat_maker(("player", "team", "role", *SEAT_VALUES))}
    exec(f"def seats(rows, nick, team_name, role_of):\n"  # noqa: S102 - see the docstring
         f"    return [seat(nick[player_id], team_name[team_id], role_of(role, role), {values})\n"
         f"            for _game, player_id, team_id, role, {values} in rows]\n", scope)
    return scope["seats"]


_seats = _seats_reader()


def load_facts(tournament: Tournament, *, current: bool = False) -> F.TournamentFacts:
    """The facts of ``tournament``, exactly as the interchange parser would build them.

    The games and the rest of the facts a process read last are reused while they have not changed
    (``tournaments.game_cache``): after a saved result only the changed games are read. ``current``: the
    instance was read in the caller's transaction, so its ``head_version`` is the database's; otherwise the
    tournament's key is read first (an instance read before a change would find the facts of before)."""
    tid = tournament.pk
    key = game_cache.tournament_key(tournament) if current else Tournament.objects.filter(pk=tid).values_list(
        *game_cache.KEY_FIELDS).first()
    context = game_cache.cached_context(tid, key)
    kept = context is not None
    if context is None:
        context = _read_context(tournament, key)
    games_by_stage, games, read, every = _load_games(tid, key, context.team_name)
    if kept and not context.holds(read, games if every else None):  # a game moved or went: its rows name it
        context, kept = _read_context(tournament, key), False
    if not kept:
        context = replace(context, positions={gid: (header[1], header[game_cache.HEADER_NUMBER])
                                              for gid, (header, _game) in games.items()})
        game_cache.remember_context(tid, context)
    stage_facts = tuple(
        F.Stage(key=key, teams=context.team_facts.get(sid, ()), groups=context.groups.get(sid, ()),
                games=tuple(games_by_stage.get(sid, ())), tours=context.tours.get(sid, ()), seed=seed or None)
        for sid, key, seed in context.stages
    )
    return F.TournamentFacts(
        slug=tournament.slug, name=tournament.name, ruleset=tournament.ruleset, timezone=tournament.timezone,
        starts_on=tournament.starts_on, settings=dict(tournament.settings), rules=dict(tournament.rules),
        players=context.players, families=context.families, teams=context.team_facts.get(None, ()),
        stages=stage_facts, penalties=context.penalties, decisions=context.decisions, appeals=context.appeals,
        withdrawals=context.withdrawals, waived_violations=context.waived,
    )


def _read_context(tournament: Tournament, key: tuple) -> game_cache.CachedContext:
    """Every fact of the tournament but its games (the games' positions are the caller's to fill in)."""
    tid = tournament.pk
    stages = tuple(Stage.objects.filter(tournament_id=tid).order_by("order").values_list("id", "key", "seed"))
    stage_key = {sid: key for sid, key, _ in stages}
    teams = list(Team.objects.filter(tournament_id=tid).order_by("order", "id").values_list(
        "id", "stage_id", "name", "captain__nick", "family__name", "league", "home_university"))
    team_name = {row[0]: row[2] for row in teams}
    roster: dict[int, list[str]] = defaultdict(list)
    left: dict[int, list[tuple[str, dt.datetime]]] = defaultdict(list)
    for team_id, nick, left_at in RosterEntry.objects.filter(team__tournament_id=tid).order_by(
            "order", "id").values_list("team_id", "player__nick", "left_at"):
        roster[team_id].append(nick)
        if left_at is not None:
            left[team_id].append((nick, left_at))
    team_facts: dict[int | None, list[F.Team]] = defaultdict(list)
    for team_id, stage_id, name, captain, family, league, home in teams:
        team_facts[stage_id].append(F.Team(name=name, captain=captain, players=tuple(roster[team_id]),
                                           league=league, home_university=home, family=family,
                                           left_at=tuple(left.get(team_id, ()))))

    groups: dict[int, list[tuple[str, list[str]]]] = defaultdict(list)
    group_index: dict[int, list[str]] = {}
    for group_id, stage_id, gname, team_id in GroupTeam.objects.filter(group__stage__tournament_id=tid).order_by(
            "group__order", "group_id", "order", "id").values_list("group_id", "group__stage_id", "group__name",
                                                                    "team_id"):
        if group_id not in group_index:
            group_index[group_id] = []
            groups[stage_id].append((gname, group_index[group_id]))
        group_index[group_id].append(team_name[team_id])
    # only a ruleset that plays tours has them (ChGK); the others' three queries are saved
    tours = _load_tours(tid, team_name) if rulesets.get(tournament.ruleset).rounds == "tours" else {}

    players = tuple(
        F.Player(nick=nick, level=level, disqualified=dq, family=family, banned=banned)
        for nick, level, dq, family, banned in Participant.objects.filter(tournament_id=tid).order_by(
            "order", "id").values_list("player__nick", "level", "disqualified", "family__name", "banned")
    )
    family_rows = TournamentFamily.objects.filter(tournament_id=tid).order_by("order", "id").values_list(
        "family__name", "family__head__nick")
    families = tuple(F.Family(name=name, head=head) for name, head in family_rows)
    # the penalties as the judges gave them (an appeal's verdict is applied on top by the ruleset, FL-19); the
    # changed penalty a partly upheld appeal records is that appeal's, in the appealed penalty's place
    penalty_index: dict[int, int] = {}  # penalty id -> its 1-based index in ``penalties``
    penalty_list: list[F.Penalty] = []
    changed_penalties: dict[int, F.Penalty] = {}  # appeal id -> the changed penalty its partly verdict records
    for (pk, stage_id, team_id, kind, points, game_number, player, code, decided_at, published_at, text,
         replacement_for) in Penalty.objects.filter(tournament_id=tid).order_by("order", "id").values_list(
            "id", "stage_id", "team_id", "kind", "points", "game__number", "player__nick", "code", "decided_at",
            "published_at", "text", "replacement_for_id"):
        penalty = F.Penalty(stage=stage_key.get(stage_id), team=team_name.get(team_id), kind=kind, points=points,
                            game=game_number, player=player, code=code or None, decided_at=decided_at, text=text,
                            published_at=published_at)
        if replacement_for is not None:
            changed_penalties[replacement_for] = penalty
        else:
            penalty_list.append(penalty)
            penalty_index[pk] = len(penalty_list)
    penalties = tuple(penalty_list)
    decision_rows = list(Decision.objects.filter(tournament_id=tid).order_by("index", "id").values_list(
        "id", "index", "kind", "stage_id", "game__number", "code", "outcome", "team_id", "player__nick", "order",
        "reason", "decided_at", "published_at", "by", "text", "replacement_for_id"))
    decision_index = {row[0]: row[1] for row in decision_rows if row[-1] is None}
    decisions: list[F.Decision] = []
    replacements: dict[int, F.Decision] = {}  # appeal id -> the changed decision its partly verdict records
    for (_id, index, kind, stage_id, game, code, outcome, team_id, player, order, reason, decided_at, published_at,
         by, text, replacement_for) in decision_rows:
        decision = F.Decision(index=index, kind=kind, stage=stage_key.get(stage_id), game=game, code=code or None,
                              outcome=outcome, team=team_name.get(team_id), player=player, order=tuple(order or ()),
                              reason=reason, decided_at=decided_at, published_at=published_at, by=by or None,
                              text=text)
        if replacement_for is None:
            decisions.append(decision)
        else:
            replacements[replacement_for] = decision
    credited: dict[int, list[str]] = defaultdict(list)
    through = Appeal.credited_teams.through
    for appeal_id, team_id in through.objects.filter(appeal__tournament_id=tid).order_by("id").values_list(
            "appeal_id", "team_id"):
        credited[appeal_id].append(team_name[team_id])
    replacements.update(changed_penalties)
    appeals = tuple(
        F.Appeal(kind="penalty" if penalty_id in penalty_index else kind, filed_at=filed_at,
                 stage=stage_key.get(stage_id), tour=tour, question=question, team=team_name.get(team_id),
                 answer=answer, verdict=verdict if aid in replacements else FACT_VERDICT.get(verdict, verdict),
                 credited_teams=tuple(credited.get(aid, ())),
                 decision=None if penalty_id in penalty_index else decision_index.get(decision_id),
                 appellant=appellant, replacement=replacements.get(aid), decided_at=verdict_at,
                 penalty=penalty_index.get(penalty_id))
        for aid, kind, filed_at, stage_id, tour, question, team_id, answer, verdict, decision_id, appellant,
        verdict_at, penalty_id in Appeal.objects.filter(tournament_id=tid).order_by("order", "id").values_list(
            "id", "kind", "filed_at", "stage_id", "tour__number", "question", "team_id", "answer", "verdict",
            "decision_id", "appellant", "verdict_at", "penalty_id")
    )
    waived = tuple(
        F.WaivedViolation(stage=stage_key.get(stage_id, ""), game=game, team=team_name.get(team_id, ""),
                          kind=violation, player=player)
        for stage_id, game, team_id, violation, player in Appeal.objects.filter(
            tournament_id=tid, kind="violation", verdict="accepted").order_by("order", "id")
        .values_list("game__stage_id", "game__number", "team_id", "violation", "violating_player__nick")
    )
    withdrawals = tuple(
        F.Withdrawal(team=team_name[team_id], at=at)
        for team_id, at in Withdrawal.objects.filter(tournament_id=tid).order_by("at", "id").values_list(
            "team_id", "at")
    )
    return game_cache.CachedContext(
        key=key, stages=stages, team_name=team_name,
        team_facts={sid: tuple(items) for sid, items in team_facts.items()},
        groups={sid: tuple(F.Group(name=n, teams=tuple(t)) for n, t in items) for sid, items in groups.items()},
        tours={sid: tuple(items) for sid, items in tours.items()}, players=players, families=families,
        penalties=penalties, decisions=tuple(decisions), appeals=appeals, waived=waived, withdrawals=withdrawals,
        positions={},
    )


def plain_rows(queryset) -> list[tuple]:
    """The rows of a ``values_list`` queryset of plain columns (numbers, text, booleans, times; a JSON column comes
    as its text on PostgreSQL, decoded on SQLite).

    On PostgreSQL the compiled query runs on the cursor directly: psycopg already gives these columns their
    Python types, and Django's per-row iteration was a third of reading a league's 150,000 seats.
    Elsewhere (SQLite stores booleans as integers) the queryset converts them as usual.
    """
    if connection.vendor != "postgresql":
        return list(queryset)
    sql, params = queryset.query.sql_with_params()
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall()


def _load_games(tid: int, key: tuple, team_name: dict[int, str],
                ) -> tuple[dict[int, list[F.Game]], dict[int, tuple[tuple, F.Game]], list[tuple], bool]:
    """Every game of the tournament, read again only where it changed since the cached read
    (``tournaments.game_cache``): the games whose revision is above the cached ones, and their count.

    Returns the games by stage id, every game by id with its header, the headers read now, and whether those
    are every game's."""
    entry = game_cache.cached(tid, key)
    keep: dict[int, tuple[tuple, F.Game]] | None = None
    read: list[tuple] = []
    if entry is not None:
        read = plain_rows(Game.objects.filter(stage__tournament_id=tid, revision__gt=entry.revision).order_by(
            "stage_id", "id").values_list(*game_cache.HEADER_FIELDS))
        if len(read) <= STALE_GAMES_READ_BY_ID:
            keep = _merged(tid, key, entry, read, team_name, Game.objects.filter(stage__tournament_id=tid).count())
    every = keep is None
    if keep is None:
        read = plain_rows(Game.objects.filter(stage__tournament_id=tid).order_by("stage_id", "id").values_list(
            *game_cache.HEADER_FIELDS))
        fresh = _read_games(Q(game__stage__tournament_id=tid), Q(stage__tournament_id=tid), team_name)
        keep = {row[0]: (row, fresh[row[0]]) for row in read}
        game_cache.remember(tid, key, keep)
    games: dict[int, list[F.Game]] = defaultdict(list)
    for header, game in keep.values():
        games[header[1]].append(game)
    return games, keep, read, every


def _merged(tid: int, key: tuple, entry: game_cache.CachedGames, changed: list[tuple],
            team_name: dict[int, str], count: int) -> dict[int, tuple[tuple, F.Game]] | None:
    """The cached games with the changed ones read again, in the loader's order (stage, id); None when games
    were removed since (fewer games than the cached and the new ones)."""
    games = entry.games
    if not changed:
        return games if count == len(games) else None
    new = sum(row[0] not in games for row in changed)
    if count != len(games) + new:
        return None
    ids = [row[0] for row in changed]
    fresh = _read_games(Q(game_id__any_of=ids), Q(pk__any_of=ids), team_name)
    keep = dict(games)
    moved = new > 0  # a new game, or one moved to another stage
    for row in changed:
        if not moved and keep[row[0]][0][1] != row[1]:
            moved = True
        keep[row[0]] = (row, fresh[row[0]])
    if moved:  # the loader's order again
        keep = dict(sorted(keep.items(), key=lambda item: (item[1][0][1], item[0])))
    game_cache.remember(tid, key, keep, max(entry.revision, *(row[game_cache.HEADER_REVISION] for row in changed)))
    return keep


def _read_games(by_game: Q, own: Q, team_name: dict[int, str]) -> dict[int, F.Game]:
    seats: dict[int, list[F.Seat]] = {}
    rows = plain_rows(Seat.objects.filter(by_game).order_by("game_id", "order").values_list(*SEAT_READ))
    # the nicks by id (the server joins no player per seat), one string per nick and role: a ruleset hashes
    # each seat's
    nick = dict(Player.objects.filter(pk__any_of={row[1] for row in rows}).values_list("pk", "nick")) if rows else {}
    role_of = {}.setdefault
    for game_id, game_rows in groupby(rows, key=itemgetter(0)):
        seats[game_id] = _seats(game_rows, nick, team_name, role_of)
    absent: dict[int, list[str]] = defaultdict(list)
    through = Game.absent_teams.through
    for game_id, team_id in through.objects.filter(by_game).order_by("id").values_list("game_id", "team_id"):
        absent[game_id].append(team_name[team_id])
    no_shows: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for game_id, team_id, nick in NoShowElimination.objects.filter(by_game).order_by("id").values_list(
            "game_id", "team_id", "player__nick"):
        no_shows[game_id].append((team_name[team_id], nick))
    games: dict[int, F.Game] = {}
    for row in plain_rows(Game.objects.filter(own).order_by().values_list(  # by id below: no Game.Meta ordering
            "id", "number", "status", "outcome", "group_label", "round", "scheduled_at", "omon", "game_days", "link",
            "result_recorded_at", "violations_published")):
        gid, number, status, outcome, group, rnd, scheduled_at, omon, game_days, link, recorded_at, published = row
        if isinstance(published, str):  # PostgreSQL's jsonb text, as plain_rows reads it; mostly "[]"
            published = json.loads(published) if published != "[]" else ()
        games[gid] = F.Game(
            number=number, status=status, outcome=outcome, group=group or None, round=rnd,
            scheduled_at=scheduled_at, omon=omon, game_days=game_days, link=link or None,
            absent_teams=tuple(absent.get(gid, ())), no_show_eliminated=tuple(no_shows.get(gid, ())),
            seats=tuple(seats.get(gid, ())), result_recorded_at=recorded_at,
            violations_published=tuple((v["team"], v["kind"], v.get("player"), dt.datetime.fromisoformat(v["at"]))
                                       for v in published or ()),
        )
    return games


def _load_tours(tid: int, team_name: dict[int, str]) -> dict[int, list[F.Tour]]:
    masks: dict[int, list[tuple[str, str]]] = defaultdict(list)
    for tour_id, team_id, mask in Mask.objects.filter(tour__stage__tournament_id=tid).order_by(
            "tour_id", "order", "id").values_list("tour_id", "team_id", "mask"):
        masks[tour_id].append((team_name[team_id], mask))
    absent: dict[int, list[str]] = defaultdict(list)
    through = Tour.absent.through
    for tour_id, team_id in through.objects.filter(tour__stage__tournament_id=tid).order_by("id").values_list(
            "tour_id", "team_id"):
        absent[tour_id].append(team_name[team_id])
    tours: dict[int, list[F.Tour]] = defaultdict(list)
    for tour_id, stage_id, number, host_id, played_on, questions in Tour.objects.filter(
            stage__tournament_id=tid).order_by("stage_id", "id").values_list(
            "id", "stage_id", "number", "host_id", "played_on", "questions"):
        tours[stage_id].append(F.Tour(number=number, host=team_name.get(host_id), questions=questions,
                                      played_on=played_on, masks=tuple(masks.get(tour_id, ())),
                                      absent=tuple(absent.get(tour_id, ()))))
    return tours
