"""Every game of a family league judged once, and after a change only what the change can affect.

``analyse`` gives the ``LeagueAnalysis`` of a tournament's facts: each game's judgement (``GameRecord``: its
seats' FL-15 verdicts and FL-13/FL-14 values, its FL-15.1/FL-10 no-shows), the per-stage sums the standings
read (``StageSums``) and every violation with its FL-17 fine. The last ledgers are kept per tournament (the
facts are immutable, and the loader hands the same ``Game`` object again while a game does not change), so the
next facts of the same tournament are judged incrementally (``Ledger.update``):

- a game whose effective ``Game`` object, recorded status or teams differ is judged again;
- FL-5: a seat's verdict depends on how many seats its player had in the earlier scoring games only once that
  count reaches ``max_games_per_player``; a changed game can therefore only change the seats of its players
  from their limit-th seat on, and those are judged again (the players who reach the limit are tracked with the
  positions of their seats);
- FL-17: the fines are numbered again over the whole list of violations (one pass over the games);
- anything else that changed (settings, rules, teams and rosters, players, decisions and appeals, the stages and
  their groups, a ``game_days`` that changes the common denominator, a final whose teams come from its games)
  cannot be bounded: the ledger is built again from scratch.

``tests/rulesets/test_family_league_incremental.py`` checks on random sequences of edits that the incremental
standings equal the ones computed from scratch.
"""

from __future__ import annotations

import copy
import threading
from bisect import bisect_left, insort
from collections import Counter, OrderedDict, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from itertools import chain
from operator import attrgetter
from typing import NamedTuple

from rulesets import mafia
from rulesets.facts import SCORING_STATUSES, SIDE_OF_ROLE, Game, Stage, TournamentFacts
from rulesets.family_league.games import (
    FL15_CODES,
    SCORES,
    Pool,
    SeatJudgement,
    Violation,
    common_denominator,
    disqualification_times,
    fair_play_by_game,
    game_pool,
    in_force,
    number_fines,
    ordered_stages,
    seat_value,
    stage_pools,
)
from rulesets.family_league.rounds import NUMBER, RoundFigures
from rulesets.family_league.rules import rules_of
from rulesets.family_league.settings import PointsTable, setting
from rulesets.messages import Text
from rulesets.messages import text as _

COUNTED = ("scores", "two_players")  # seats that make their player one who played for the team (FL-20)
MAFIA_ROLES = frozenset(role for role, side in SIDE_OF_ROLE.items() if side == "mafia")
PLAYER = attrgetter("player")
REBUILD_SHARE = 0.2  # more changed games than this share of the tournament (and than REBUILD_MIN): build anew
REBUILD_MIN = 32
KEPT_LEDGERS = 4  # tournaments whose ledgers a process keeps


class GameRecord(NamedTuple):
    """One game as judged: ``values[i]`` is seat i's (points, reason, units); ``verdicts`` None when all score."""

    game: Game
    verdicts: tuple[str, ...] | None
    values: tuple[tuple[Fraction, str, int], ...]
    detected: tuple[Violation, ...]  # FL-15 seat violations, then FL-15.1 / FL-10 no-shows (not numbered)


@dataclass
class StageSums:
    """What the standings read of a stage's seats, kept up to date game by game.

    ``units[team][game]``: the units of the team's scoring seat in the game (FL-13, FL-14; the per-round figures
    and FL-16's corrections read them). Per ``(player, team)``: ``seats`` how many seats the player had for the
    team, violating ones too; ``points`` the units of its scoring seats; ``mafia`` of its scoring mafia seats
    (FL-11, FL-12); ``uncounted`` how many seats were ``foreign_player`` or ``ineligible_player`` (they do not
    make the player one who played, FL-20). ``seats``, ``points`` and ``mafia`` hold the same pairs: those with
    a seat. A team's mafia units are its pairs' (``team_mafia``).
    """

    units: dict[str, dict[int, int]] = field(default_factory=lambda: defaultdict(dict))
    seats: Counter[tuple[str, str]] = field(default_factory=Counter)
    points: Counter[tuple[str, str]] = field(default_factory=Counter)
    mafia: Counter[tuple[str, str]] = field(default_factory=Counter)
    uncounted: Counter[tuple[str, str]] = field(default_factory=Counter)
    shared: bool = False  # forked: the inner tables of ``units`` are an earlier analysis's until written (``fork``)
    owned: set[int] = field(default_factory=set, repr=False)  # ids of the inner tables copied since the fork

    def fork(self) -> StageSums:
        """The same sums, for the next facts: the tables copied, each team's inner one when it is first written,
        so that an analysis handed out before (perhaps still read by another thread) keeps what it had."""
        return StageSums(defaultdict(dict, self.units), Counter(self.seats), Counter(self.points),
                         Counter(self.mafia), Counter(self.uncounted), shared=True)

    def team_mafia(self) -> dict[str, int]:
        """Each team's units of its scoring mafia seats (FL-11, FL-12)."""
        out: dict[str, int] = defaultdict(int)
        for (_player, team), units in self.mafia.items():
            out[team] += units
        return out

    def _entries(self, team: str) -> dict[int, int]:
        """The inner table of ``team`` to write into (a copy of its own after a fork)."""
        entries = self.units.get(team)
        if entries is None:
            entries = self.units[team] = {}
            self.owned.add(id(entries))
        elif self.shared and id(entries) not in self.owned:
            entries = self.units[team] = dict(entries)
            self.owned.add(id(entries))
        return entries

    def add(self, record: GameRecord, sign: int = 1) -> None:
        """Add (``sign`` 1) or take away (-1) the record's seats. The ledger's build adds a plainly scoring game
        in the pass that judges it (``Context.plain_values``); this is the seat-by-seat way, for every other
        game and for an update."""
        number = record.game.number
        verdicts = record.verdicts
        for index, (seat, value) in enumerate(zip(record.game.seats, record.values)):
            verdict = verdicts[index] if verdicts is not None else SCORES
            key = (seat.player, seat.team)
            self.seats[key] += sign
            self.points[key] += sign * value[2]
            self.mafia[key] += 0
            if verdict == SCORES:
                if sign > 0:
                    self._entries(seat.team)[number] = value[2]
                elif seat.team in self.units:
                    entries = self._entries(seat.team)
                    entries.pop(number, None)
                    if not entries:
                        del self.units[seat.team]
                if seat.role in MAFIA_ROLES:
                    self.mafia[key] += sign * value[2]
            elif verdict not in COUNTED:
                self.uncounted[key] += sign
                if not self.uncounted[key]:
                    del self.uncounted[key]
            if not self.seats[key]:
                del self.seats[key], self.points[key], self.mafia[key]

    def fold(self, build: StageBuild) -> None:
        """Add the plainly scoring seats the build counted by pair (``Context.plain_values``)."""
        seats, points, mafia = build.seats, build.points, build.mafia
        for key, index in build.pairs.items():
            if seats[index]:
                self.seats[key] += seats[index]
                self.points[key] += points[index]
                self.mafia[key] += mafia[index]


class StageBuild:
    """A stage's plainly scoring seats as the ledger's build adds them in the pass that judges them: each team's
    units per game written straight into the stage's sums, each plain pair's seats, units and mafia units counted
    at the pair's index (a list, not a table of tables: the pass is over a league's 10^5 seats), folded into the
    sums once the stage is built (``StageSums.fold``)."""

    __slots__ = ("sums", "pairs", "seats", "points", "mafia")

    def __init__(self, sums: StageSums, pairs: dict[tuple[str, str], int]):
        self.sums = sums
        self.pairs = pairs
        self.seats = [0] * len(pairs)
        self.points = [0] * len(pairs)
        self.mafia = [0] * len(pairs)


class Context:
    """What judging a game reads besides the game: the table, the rosters, the disqualifications (FL-3..FL-6)."""

    def __init__(self, facts: TournamentFacts):
        self.table = PointsTable(facts.settings)
        self.denominator = common_denominator(facts, self.table)
        self.limit = setting(facts.settings, "max_games_per_player")
        self.rosters = {t.name: frozenset(t.players) for t in facts.teams}
        self.left = {t.name: dict(t.left_at) for t in facts.teams if t.left_at}
        self.team_dq, self.player_dq = disqualification_times(facts)
        self.pair_index = {  # on the roster, never left, never disqualified: only FL-5 and FL-6 apply
            pair: index for index, pair in enumerate(
                (nick, t.name) for t in facts.teams for nick in t.players
                if nick not in self.left.get(t.name, ()) and nick not in self.player_dq)}
        self.rules = rules_of(facts)
        self._values: dict[tuple, tuple[Fraction, str, int]] = {}
        self._plain: dict[tuple, dict[str, tuple[Fraction, str, int]]] = {}
        self._allowed: dict[tuple[str, ...], dict[tuple[str, str], int]] = {}
        self._last_teams: tuple[str, ...] | None = None
        self._last_allowed: dict[tuple[str, str], int] = {}

    def teams_in_game(self, pool: Pool | None, game: Game) -> tuple[str, ...]:
        """The group's teams still in the tournament at the game (FL-15.4)."""
        if pool is None:
            return ()
        if not self.team_dq:
            return pool.teams
        return tuple(t for t in pool.teams if not in_force(self.team_dq, t, game))

    def value(self, seat, game: Game) -> tuple[Fraction, str, int]:
        """``seat_value`` with its units, computed once per kind of seat (a league has few kinds)."""
        key = (seat.role, game.outcome, seat.maniac_kills, seat.timed_out, seat.days_played, game.game_days)
        known = self._values.get(key)
        if known is None:
            points, reason = seat_value(seat, game, self.table)
            known = (points, reason, points.numerator * (self.denominator // points.denominator))
            self._values[key] = known
        return known

    def plain_values(self, game: Game, teams: tuple[str, ...], into: StageBuild | None = None,
                     ) -> tuple[tuple[Fraction, str, int], ...] | None:
        """Every seat's value when every seat scores (its team plays the game, its player is plainly on the
        roster and has no fake passport, one seat per team); None otherwise. A seat's value is looked up by what
        it reads of the seat (the role; the timeout and kills when there are any), per outcome and game_days.

        ``into``: the build of sums not shared with an earlier analysis, to which the seats are added in the same
        pass (the ledger's build: one pass over a league's 10^5 seats instead of two). When None is returned,
        nothing of the game was added: the seats added before the first one that does not plainly score are
        taken away again (``_not_plain``)."""
        if teams is self._last_teams:  # a stage's games mostly share their pool's teams (the same tuple)
            allowed = self._last_allowed
        else:
            allowed = self._allowed.get(teams)
            if allowed is None:
                members = frozenset(teams)
                allowed = self._allowed[teams] = {pair: i for pair, i in self.pair_index.items() if pair[1] in members}
            self._last_teams, self._last_allowed = teams, allowed
        plain = self._plain.get((game.outcome, game.game_days))
        if plain is None:
            plain = self._plain[(game.outcome, game.game_days)] = {}
        if into is None:  # judged alone (an update): counted into sums of its own, which ``judge`` drops
            into = StageBuild(StageSums(), self.pair_index)
        number = game.number
        units, seats, points, mafia = into.sums.units, into.seats, into.points, into.mafia
        out = []
        for seat in game.seats:
            team = seat.team
            index = allowed.get((seat.player, team))
            if index is None or seat.fake_passport:
                return self._not_plain(game, out, into, allowed)
            entries = units[team]
            if number in entries:  # a second seat of the team (FL-15.3)
                return self._not_plain(game, out, into, allowed)
            if seat.timed_out or seat.maniac_kills:
                kind = (seat.role, seat.timed_out, seat.days_played, seat.maniac_kills)
            else:
                kind = seat.role
            known = plain.get(kind)
            if known is None:
                known = plain[kind] = self.value(seat, game)
            out.append(known)
            entries[number] = value = known[2]
            seats[index] += 1
            points[index] += value
            if seat.role in MAFIA_ROLES:
                mafia[index] += value
        return tuple(out)

    @staticmethod
    def _not_plain(game: Game, added: list[tuple[Fraction, str, int]], into: StageBuild,
                   allowed: dict[tuple[str, str], int]) -> None:
        """Take away the game's first seats, which ``plain_values`` added before one that does not plainly score
        (the seat-by-seat judgement adds the game)."""
        number = game.number
        units = into.sums.units
        for seat, known in zip(game.seats, added):
            index = allowed[(seat.player, seat.team)]
            entries = units[seat.team]
            del entries[number]
            if not entries:
                del units[seat.team]
            into.seats[index] -= 1
            into.points[index] -= known[2]
            if seat.role in MAFIA_ROLES:
                into.mafia[index] -= known[2]
        return None

    def unentitled(self, seat, game: Game, earlier: int) -> Text | None:
        """Why the seat's player may not play this game for this team, or None (FL-15.2, FL-3..FL-6)."""
        if seat.player not in self.rosters.get(seat.team, ()):
            return _not_on_roster(seat.player, seat.team)
        if self.left and seat.team in self.left and in_force(self.left[seat.team], seat.player, game):
            return _left_roster(seat.player, seat.team, self.left[seat.team][seat.player].isoformat())
        if self.player_dq and in_force(self.player_dq, seat.player, game):
            return _disqualified(seat.player)
        if seat.fake_passport:
            return _fake_passport(seat.player)
        if earlier >= self.limit:
            return _over_limit(seat.player, earlier, self.limit)
        return None

    def judge(self, stage_key: str, game: Game, recorded: str | None, teams: tuple[str, ...],
              earlier: Sequence[int] | None, into: StageBuild | None = None) -> GameRecord:
        """Judge the game's seats in the order the players joined (FL-15); ``recorded``: the status the game was
        recorded with (before technical results and replays, FL-10); ``earlier[i]``: seat i's player's seats in
        earlier scoring games (None: no player of the game has reached the FL-5 limit); ``into``: the build of
        unshared sums the judged seats are added to."""
        detected: list[Violation] = []
        verdicts: tuple[str, ...] | None = None
        values: tuple[tuple[Fraction, str, int], ...] = ()
        if game.status in SCORING_STATUSES:
            plain = self.plain_values(game, teams, into) if earlier is None else None
            if plain is not None:
                values = plain
                # one seat per team, every seat's team in the game: a team is missing when there are fewer seats
                if recorded != "not_held" and len(game.seats) < len(teams):  # FL-15: not_held: FL-10's no_show
                    detected += _no_shows_of_started_game(stage_key, game, teams, self.rules.violation_points)
            else:
                verdicts, values = self._judge_seats(game, teams, earlier)
                detected += _seat_violations(stage_key, game, verdicts, values, self.rules.violation_points)
                if recorded != "not_held":
                    detected += _no_shows_of_started_game(stage_key, game, teams, self.rules.violation_points)
                if into is not None:
                    into.sums.add(GameRecord(game, verdicts, values, ()))
        if recorded == "not_held":
            detected += _no_shows_of_not_held_game(stage_key, game, teams, self.rules.violation_points)
        return GameRecord(game, verdicts, values, tuple(detected) if detected else ())

    def _judge_seats(self, game: Game, teams: tuple[str, ...], earlier: Sequence[int] | None):
        verdicts: list[str] = []
        values: list[tuple[Fraction, str, int]] = []
        scoring_teams: set[str] = set()
        number = game.number
        zero = Fraction(0)
        for index, seat in enumerate(game.seats):
            problem = None
            if seat.team not in teams:
                verdict, problem = "foreign_player", _not_in_game(seat.team, number)
            elif (problem := self.unentitled(seat, game, earlier[index] if earlier else 0)) is not None:
                verdict = "ineligible_player"
            elif seat.team in scoring_teams:
                verdict, problem = "two_players", _second_player(seat.team, number)
            else:
                verdict = SCORES
                scoring_teams.add(seat.team)
            verdicts.append(verdict)
            if verdict == SCORES:
                values.append(self.value(seat, game))
            else:
                values.append((zero, _violating_seat(verdict, problem, problem.template, tuple(problem.params.items())),
                               0))
        return tuple(verdicts), tuple(values)


# Why a seat scores nothing, and the texts of detected violations (FL-15, FL-10): each made once per set of
# parameters, so that a recompute from scratch gives the same objects again.
_CACHED = 8192


@lru_cache(maxsize=_CACHED, typed=True)
def _not_on_roster(player: str, team: str) -> Text:
    return _("%(player)s is not on %(team)s's roster", player=player, team=team)


@lru_cache(maxsize=_CACHED, typed=True)
def _left_roster(player: str, team: str, at: str) -> Text:
    return _("%(player)s left %(team)s's roster at %(at)s (FL-3, FL-4)", player=player, team=team, at=at)


@lru_cache(maxsize=_CACHED, typed=True)
def _disqualified(player: str) -> Text:
    return _("%(player)s is disqualified", player=player)


@lru_cache(maxsize=_CACHED, typed=True)
def _fake_passport(player: str) -> Text:
    return _("%(player)s used a fake passport (FL-6)", player=player)


@lru_cache(maxsize=_CACHED, typed=True)
def _over_limit(player: str, games: int, limit: int) -> Text:
    return _("%(player)s already played %(games)s games, the limit is %(limit)s (FL-5)", player=player, games=games,
             limit=limit)


@lru_cache(maxsize=_CACHED, typed=True)
def _not_in_game(team: str, number: int) -> Text:
    return _("%(team)s does not take part in game %(number)s", team=team, number=number)


@lru_cache(maxsize=_CACHED, typed=True)
def _second_player(team: str, number: int) -> Text:
    return _("%(team)s already has a player in game %(number)s", team=team, number=number)


@lru_cache(maxsize=_CACHED, typed=True)
def _violating_seat(verdict: str, problem: Text, template: str, params: tuple) -> Text:
    """``two_players (FL-15.3): <why>``; ``template`` and ``params`` are the problem's, so that two problems
    spelt alike but made differently are not taken for one."""
    return _("%(kind)s (%(code)s): %(problem)s", kind=verdict, code=FL15_CODES[verdict], problem=problem)


@lru_cache(maxsize=_CACHED, typed=True)
def _no_player(team: str, number: int) -> Text:
    return _("%(team)s has no player in game %(number)s", team=team, number=number)


@lru_cache(maxsize=_CACHED, typed=True)
def _did_not_come(team: str, number: int) -> Text:
    return _("%(team)s did not come to game %(number)s", team=team, number=number)


def _seat_violations(stage: str, game: Game, verdicts: Sequence[str], values, points: Fraction) -> list[Violation]:
    """A violating seat is one penalty of its team (FL-15)."""
    return [
        Violation(stage=stage, game=game.number, team=seat.team, kind=verdict, code=FL15_CODES[verdict],
                  points=points, player=seat.player, seat=index, text=value[1])
        for index, (seat, verdict, value) in enumerate(zip(game.seats, verdicts, values))
        if verdict != SCORES
    ]


def _no_shows_of_started_game(stage: str, game: Game, teams: tuple[str, ...], points: Fraction) -> list[Violation]:
    """One ``no_show`` per team of a ``played`` or ``technical`` game with no seat at all (FL-15.1)."""
    seated = {s.team for s in game.seats}
    if seated.issuperset(teams):
        return []
    return [
        Violation(stage=stage, game=game.number, team=team, kind="no_show", code="FL-15.1",
                  points=points, text=_no_player(team, game.number))
        for team in teams
        if team not in seated
    ]


def _no_shows_of_not_held_game(stage: str, game: Game, teams: tuple[str, ...], points: Fraction) -> list[Violation]:
    """The teams that did not come to a game that did not start get a ``no_show`` each (FL-10)."""
    return [Violation(stage=stage, game=game.number, team=team, kind="no_show", code="FL-10",
                      points=points, text=_did_not_come(team, game.number))
            for team in dict.fromkeys(game.absent_teams) if team in teams]


@dataclass
class LeagueAnalysis:
    """Everything the games of a tournament give, stage by stage (the sums are the ledger's; a later update of
    the ledger copies what it changes, ``StageSums.fork``)."""

    games: dict[str, tuple[Game, ...]]
    records: dict[str, list[GameRecord]]
    sums: dict[str, StageSums]
    violations: list[Violation]
    denominator: int
    rounds: dict[str, RoundFigures] = field(default_factory=dict)  # each stage's teams' figures per game

    @property
    def seats(self) -> dict[str, list[SeatJudgement]]:
        """Every judged seat, stage by stage, in order of play."""
        out: dict[str, list[SeatJudgement]] = {}
        for stage_key, records in self.records.items():
            seats = out[stage_key] = []
            for record in records:
                game = record.game
                for index, (seat, value) in enumerate(zip(game.seats, record.values)):
                    verdict = record.verdicts[index] if record.verdicts is not None else SCORES
                    seats.append(SeatJudgement(stage_key, game.number, index, seat.player, seat.team,
                                               SIDE_OF_ROLE[seat.role], verdict, value[0], value[1], value[2]))
        return out


def _stage_signature(stage: Stage) -> tuple:
    return stage.key, stage.teams, stage.groups, stage.seed


def _context_signature(facts: TournamentFacts) -> tuple:
    """Every fact a game's judgement reads besides the games (compared by value)."""
    return (facts.settings, facts.rules, facts.teams, facts.players, facts.decisions, facts.appeals,
            tuple(_stage_signature(s) for s in ordered_stages(facts)))


def _pools_from_games(facts: TournamentFacts, stage: Stage) -> bool:
    """A final without groups after a qualifying stage takes its teams from its games (``stage_pools``)."""
    return not stage.groups and stage.key == "final" and facts.stage("qualifying") is not None


def _in_order_of_play(facts: TournamentFacts, stages: Sequence[Stage]) -> list[tuple[Game, ...]]:
    """Each stage's effective games (a replay replaces its game) by number."""
    return [tuple(sorted(mafia.effective_games(facts, stage), key=NUMBER)) for stage in stages]


def _game_days(facts: TournamentFacts) -> Counter[int]:
    return Counter(g.game_days for stage in facts.stages for g in stage.games if g.game_days)


class Ledger:
    """The judged games of one tournament and the sums over them (see the module's docstring)."""

    def __init__(self, facts: TournamentFacts):
        self.facts = facts
        self.signature = _context_signature(facts)
        self.context = Context(facts)
        self.game_days = _game_days(facts)
        self.stages = ordered_stages(facts)
        self.pools = [stage_pools(facts, stage) for stage in self.stages]
        self.records: list[dict[int, GameRecord]] = []
        self.sums: list[StageSums] = []
        self.games: list[tuple[Game, ...]] = []
        self.rounds: list[RoundFigures | None] = [None] * len(self.stages)  # the last analysis's, by stage
        self.judged: dict[int, set[int]] = defaultdict(set)  # stage index -> numbers judged since that analysis
        limit = self.context.limit
        effective = _in_order_of_play(facts, self.stages)
        scoring = [g for games in effective for g in games if g.status in SCORING_STATUSES]
        # a player has one seat per game: with no more scoring games than the limit nobody reaches it (FL-5)
        self.seat_totals: Counter[str] | None = Counter(map(PLAYER, chain.from_iterable(
            g.seats for g in scoring))) if len(scoring) > limit else None
        self.over_limit = {player for player, count in (self.seat_totals or {}).items() if count > limit}
        self.positions: dict[str, list[tuple[int, int]]] = defaultdict(list)  # over-limit players' scoring seats
        earlier: Counter[str] = Counter()
        context = self.context
        judge, teams_in_game, over_limit = context.judge, context.teams_in_game, self.over_limit
        for stage_index, (stage, games) in enumerate(zip(self.stages, effective)):
            recorded = {g.number: g.status for g in stage.games}.get
            sums = StageSums()
            build = StageBuild(sums, context.pair_index)
            records: dict[int, GameRecord] = {}
            pools = self.pools[stage_index]
            for game in games:
                number = game.number
                counts = None
                if over_limit and game.status in SCORING_STATUSES and not over_limit.isdisjoint(
                        s.player for s in game.seats):
                    counts = [earlier[s.player] for s in game.seats]
                    for seat in game.seats:
                        earlier[seat.player] += 1
                        if seat.player in over_limit:
                            self.positions[seat.player].append((stage_index, number))
                records[number] = judge(stage.key, game, recorded(number),
                                        teams_in_game(game_pool(pools, game), game), counts, build)
            sums.fold(build)
            self.records.append(records)
            self.sums.append(sums)
            self.games.append(games)

    def update(self, facts: TournamentFacts) -> bool:
        """Judge again what changed since the facts this ledger holds; False when it cannot be bounded."""
        if facts is self.facts:
            return True
        if _context_signature(facts) != self.signature:
            return False
        if any(_pools_from_games(facts, stage) for stage in self.stages):
            return False
        stages = ordered_stages(facts)
        effective = _in_order_of_play(facts, stages)
        changed: list[tuple[int, int]] = []  # positions of the games judged again
        found: dict[tuple[int, int], Game] = {}  # the new games among them (the others were removed)
        too_many = max(REBUILD_MIN, REBUILD_SHARE * sum(len(r) for r in self.records))
        for stage_index, games in enumerate(effective):
            records = self.records[stage_index]
            added = 0
            for game in games:
                record = records.get(game.number)
                if record is None:
                    added += 1
                elif record.game is game:
                    continue
                elif len(changed) >= too_many:  # every game read anew (a cold cache): build from scratch
                    return False
                changed.append((stage_index, game.number))
                found[(stage_index, game.number)] = game
            if len(records) != len(games) - added:
                numbers = {g.number for g in games}
                changed += [(stage_index, n) for n in records if n not in numbers]
        if not changed:
            self.facts, self.stages, self.games = facts, stages, effective
            return True
        if len(changed) > too_many:
            return False
        days = self._game_days_after(changed, found)
        if set(days) != set(self.game_days) and common_denominator(facts, self.context.table) != (
                self.context.denominator):
            return False
        if self.seat_totals is None and sum(map(len, effective)) > self.context.limit and sum(
                g.status in SCORING_STATUSES for games in effective for g in games) > self.context.limit:
            return False  # the seats were not counted: now a player may reach the FL-5 limit
        self.game_days = days
        again = self._limit_affected(changed, found, effective)
        self.facts, self.stages, self.games = facts, stages, effective
        recorded: dict[int, dict[int, str]] = {}
        removed = set(changed).difference(found)
        judged = sorted(set(changed) | again)
        for stage_index in {position[0] for position in judged}:  # the analysis handed out keeps its sums
            self.sums[stage_index] = self.sums[stage_index].fork()
        for position in judged:
            self.judged[position[0]].add(position[1])
            if position in found:
                game = found[position]
            elif position in removed:
                game = None
            else:  # a game the change did not touch whose FL-5 count did change: the same object
                game = self.records[position[0]][position[1]].game
            self._judge_again(position, game, recorded)
        return True

    def _game_days_after(self, changed: list[tuple[int, int]], found: dict[tuple[int, int], Game]) -> Counter[int]:
        """The games per ``game_days`` once the changed games are replaced (the common denominator's inputs)."""
        days = Counter(self.game_days)
        for position in changed:
            old = self.records[position[0]].get(position[1])
            if old is not None and old.game.game_days:
                days[old.game.game_days] -= 1
            new = found.get(position)
            if new is not None and new.game_days:
                days[new.game_days] += 1
        return +days

    def _scoring_players(self, game: Game | None) -> list[str]:
        return [s.player for s in game.seats] if game is not None and game.status in SCORING_STATUSES else []

    def _limit_affected(self, changed: list[tuple[int, int]], found: dict[tuple[int, int], Game],
                        effective: list[tuple[Game, ...]]) -> set[tuple[int, int]]:
        """FL-5: the games whose seats' counts of earlier seats reach the limit before or after the change."""
        limit = self.context.limit
        if self.seat_totals is None:
            return set()
        moves: list[tuple[tuple[int, int], list[str], list[str]]] = []
        for position in changed:
            old = self.records[position[0]].get(position[1])
            moves.append((position, self._scoring_players(old.game if old is not None else None),
                          self._scoring_players(found.get(position))))
        touched = {player for _position, before, after in moves for player in (*before, *after)}
        affected: set[tuple[int, int]] = set()
        for player in touched:  # the seats at or over the limit before the change
            affected.update(self.positions.get(player, ())[limit:])
        for position, before, after in moves:
            for player in before:
                self.seat_totals[player] -= 1
                if player in self.positions:
                    self.positions[player].remove(position)
            for player in after:
                self.seat_totals[player] += 1
                if player in self.positions:
                    insort(self.positions[player], position)
        for player in touched:
            total = self.seat_totals[player]
            if total <= 0:
                del self.seat_totals[player]
            if total > limit and player not in self.over_limit:
                self.over_limit.add(player)
                self.positions[player] = self._positions_of(player, effective)
            elif total <= limit and player in self.over_limit:
                self.over_limit.discard(player)
                self.positions.pop(player, None)
            affected.update(self.positions.get(player, ())[limit:])  # ... and after it
        return affected

    def _positions_of(self, player: str, effective: list[tuple[Game, ...]]) -> list[tuple[int, int]]:
        return [(index, game.number) for index, games in enumerate(effective) for game in games
                if game.status in SCORING_STATUSES and any(s.player == player for s in game.seats)]

    def _judge_again(self, position: tuple[int, int], game: Game | None, recorded: dict[int, dict[int, str]],
                     ) -> None:
        stage_index, number = position
        records, sums = self.records[stage_index], self.sums[stage_index]
        old = records.pop(number, None)
        if old is not None:
            sums.add(old, -1)
        if game is None:
            return
        stage = self.stages[stage_index]
        status = game.status
        if status in ("technical", "annulled"):  # a technical result or a replay may have changed it
            if stage_index not in recorded:
                recorded[stage_index] = {g.number: g.status for g in stage.games}
            status = recorded[stage_index].get(number)
        counts = None
        if game.status in SCORING_STATUSES and not self.over_limit.isdisjoint(s.player for s in game.seats):
            counts = [bisect_left(self.positions[s.player], position) if s.player in self.positions else 0
                      for s in game.seats]
        record = self.context.judge(stage.key, game, status,
                                    self.context.teams_in_game(game_pool(self.pools[stage_index], game), game),
                                    counts)
        records[number] = record
        sums.add(record)

    def analysis(self) -> LeagueAnalysis:
        """The analysis of the facts the ledger holds: its violations listed in order of play and numbered."""
        facts = self.facts
        violations: list[Violation] = []
        ordered_records: dict[str, list[GameRecord]] = {}
        for stage, games, records in zip(self.stages, self.games, self.records):
            fair_play = fair_play_by_game(facts, stage)
            listed = ordered_records[stage.key] = [records[g.number] for g in games]
            for record in listed:
                if record.detected:
                    violations += _copies(record.detected)
                if fair_play:
                    violations += fair_play.pop(record.game.number, [])
            for rest in fair_play.values():
                violations += rest
        if facts.waived_violations:
            waived = {(w.stage, w.game, w.team, w.kind, w.player) for w in facts.waived_violations}
            violations = [v for v in violations if (v.stage, v.game, v.team, v.kind, v.player) not in waived]
        number_fines(violations, setting(facts.settings, "fine_counter"), self.context.rules)
        denominator = self.context.denominator
        self.rounds = [RoundFigures(games, sums.units, denominator, earlier, self.judged.get(index, ()))
                       for index, (games, sums, earlier) in enumerate(zip(self.games, self.sums, self.rounds))]
        self.judged.clear()
        return LeagueAnalysis(
            games={stage.key: games for stage, games in zip(self.stages, self.games)},
            records=ordered_records,
            sums={stage.key: sums for stage, sums in zip(self.stages, self.sums)},
            violations=violations,
            denominator=denominator,
            rounds={stage.key: rounds for stage, rounds in zip(self.stages, self.rounds)},
        )


def _copies(drafts: Iterable[Violation]) -> list[Violation]:
    """Fresh violations to number (FL-17), so that a kept record's drafts never change."""
    return [copy.copy(v) for v in drafts]


class _Kept:
    """The last ledgers, per tournament, and the analysis of the last facts asked for."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ledgers: OrderedDict[str, Ledger] = OrderedDict()
        self.last: tuple[TournamentFacts, LeagueAnalysis] | None = None


_kept = _Kept()


def analyse(facts: TournamentFacts) -> LeagueAnalysis:
    """Judge every game of the tournament and number every violation's fine (FL-13..FL-18), incrementally when
    the facts are a later version of a tournament judged before.

    Violations annulled by an upheld appeal (FL-19, ``facts.waived_violations``) cost nothing and the later fines
    are numbered without them. The analysis of the same facts object is reused (a recompute asks for it once per
    stage and once for the FL-19 windows).
    """
    with _kept.lock:
        last = _kept.last
        if last is not None and last[0] is facts:
            return last[1]
        ledger = _kept.ledgers.pop(facts.slug, None)
        if ledger is None or not ledger.update(facts):
            ledger = Ledger(facts)
        _kept.ledgers[facts.slug] = ledger
        while len(_kept.ledgers) > KEPT_LEDGERS:
            _kept.ledgers.popitem(last=False)
        analysis = ledger.analysis()
        _kept.last = (facts, analysis)
        return analysis


def analyse_from_scratch(facts: TournamentFacts) -> LeagueAnalysis:
    """The analysis built without any kept ledger (and keeping none): what ``analyse`` must always equal."""
    return Ledger(facts).analysis()


def forget(slug: str | None = None) -> None:
    """Drop the kept ledger of one tournament (and the last analysis when it is that tournament's), or every one:
    the next facts of the tournament are judged from scratch (a forced recompute, ``scoring.services``)."""
    with _kept.lock:
        if slug is None:
            _kept.ledgers.clear()
            _kept.last = None
            return
        _kept.ledgers.pop(slug, None)
        if _kept.last is not None and _kept.last[0].slug == slug:
            _kept.last = None


__all__ = ["GameRecord", "LeagueAnalysis", "Ledger", "StageBuild", "StageSums", "analyse", "analyse_from_scratch", "forget"]
