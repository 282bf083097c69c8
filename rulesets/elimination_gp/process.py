"""The elimination process of one Grand Prix stage, tour by tour (GP-9..GP-15a).

``run_stage`` replays a stage's effective games (technical results and
replays applied) in order of tour (``round``) then game number, and records
who was eliminated, when and why, the points of every seat, and the problems
a document would be refused for. ``validate`` reports those problems;
``compute`` is lenient and goes on past them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rulesets.base import Criterion, PlayerRow, Problem, Ranked, TeamRow, competition_rank, round2, to_fraction
from rulesets.elimination_gp.draw import default_seed, draw_no_show
from rulesets.facts import OUTCOMES, Game, Seat, Stage, TournamentFacts
from rulesets.mafia import effective_games
from rulesets.messages import Text
from rulesets.messages import text as _

SIDES = ("civilians", "mafia", "maniac")
CLEAN_WIN_OUTCOMES = ("civilians", "mafia")
COUNTED_STATUSES = ("played", "technical", "scheduled")

# Why a seat earns its points (GP-14): the outcome for the seat's side, one message each, made once.
SEAT_REASONS: dict[tuple[str, str], Text] = {
    ("win", "civilians"): _("civilians win"),
    ("win", "mafia"): _("mafia win"),
    ("win", "maniac"): _("maniac win"),
    ("loss", "civilians"): _("civilians loss"),
    ("loss", "mafia"): _("mafia loss"),
    ("loss", "maniac"): _("maniac loss"),
    ("draw", "civilians"): _("draw as civilians"),
    ("draw", "mafia"): _("draw as mafia"),
    ("draw", "maniac"): _("draw as maniac"),
}
OMON_SEAT_REASONS: dict[tuple[str, str], Text] = {
    key: _("%(reason)s (OMON)", reason=reason) for key, reason in SEAT_REASONS.items()
}
# Why the losers of a clean win are out (GP-11), one message per winning side.
LOST_CLEAN_WIN: dict[str, Text] = {
    "civilians": _("lost a clean civilians win"),
    "mafia": _("lost a clean mafia win"),
}
# A scoring game without an outcome (GP-11), one message per scoring status.
NEEDS_OUTCOME: dict[str, Text] = {
    "played": _("a played game needs an outcome (GP-11)"),
    "technical": _("a technical game needs an outcome (GP-11)"),
}


def points_table(settings: Mapping[str, Any], defaults: Mapping[str, Mapping[str, Any]]) -> dict[tuple[str, str], Fraction]:
    """GP-14: points per (side, outcome): the default table overlaid with the setting's entries."""
    table = {(side, outcome): to_fraction(defaults.get(side, {}).get(outcome, 0)) for side in SIDES for outcome in OUTCOMES}
    for side, row in (settings.get("points_table") or {}).items():
        for outcome, value in row.items():
            table[(side, outcome)] = to_fraction(value)
    return table


def is_omon(game: Game) -> bool:
    """GP-12: a game ended by OMON is one with outcome ``draw`` or the ``omon`` flag (glossary)."""
    return game.omon or game.outcome == "draw"


@dataclass(frozen=True)
class Elimination:
    """One player out of the stage: when, by which game, and by which rule."""

    player: str
    team: str
    tour: int
    game: int
    rule: str
    reason: str

    def as_dict(self) -> dict[str, Any]:
        return {"player": self.player, "team": self.team, "tour": self.tour, "game": self.game,
                "rule": self.rule, "reason": self.reason}


@dataclass(frozen=True)
class SeatResult:
    """The points a seat earned (GP-14) and why."""

    game: Game
    seat: Seat
    team: str
    points: Fraction
    reason: str


@dataclass
class StageRun:
    """Everything the replay of one stage found."""

    key: str
    index: int
    seed: str
    teams: dict[str, tuple[str, ...]]
    team_of: dict[str, str]
    remaining: dict[str, list[str]]
    eliminations: list[Elimination] = field(default_factory=list)
    teams_out: dict[str, int] = field(default_factory=dict)
    over_after: int | None = None
    rounds: list[int] = field(default_factory=list)
    remaining_after: dict[int, dict[str, int]] = field(default_factory=dict)
    seats: list[SeatResult] = field(default_factory=list)
    games: list[Game] = field(default_factory=list)
    drawn: bool = False
    problems: list[Problem] = field(default_factory=list)

    @property
    def over(self) -> bool:
        return self.over_after is not None

    @property
    def eliminated(self) -> dict[str, Elimination]:
        return {e.player: e for e in self.eliminations}

    def points(self) -> dict[str, Fraction]:
        """GP-14: each player's points over the stage's counted seats."""
        totals = {player: Fraction(0) for player in self.team_of}
        for result in self.seats:
            totals[result.seat.player] = totals.get(result.seat.player, Fraction(0)) + result.points
        return totals

    def games_played(self) -> dict[str, int]:
        """GP-15a: seats in scoring games."""
        counts = {player: 0 for player in self.team_of}
        for result in self.seats:
            counts[result.seat.player] = counts.get(result.seat.player, 0) + 1
        return counts

    def team_points(self) -> dict[str, Fraction]:
        """GP-14: a team's points are the sum of its players' points."""
        totals = {team: Fraction(0) for team in self.teams}
        for result in self.seats:
            totals[result.team] = totals.get(result.team, Fraction(0)) + result.points
        return totals


def seat_reason(game: Game, seat: Seat) -> Text:
    """The reason for a seat's points, e.g. "mafia win", "draw as civilians" or "maniac loss (OMON)"."""
    side = seat.side
    if game.outcome == "draw":
        result = "draw"
    elif game.outcome == side:
        result = "win"
    else:
        result = "loss"
    known = (OMON_SEAT_REASONS if game.omon else SEAT_REASONS).get((result, side))
    if known is not None:
        return known
    text = _side_reason(result, side)
    return _("%(reason)s (OMON)", reason=text) if game.omon else text


def _side_reason(result: str, side: str) -> Text:
    """The reason for a seat of a side the table above does not know (every side of ``SIDES`` is there)."""
    if result == "draw":
        return _("draw as %(side)s", side=side)
    if result == "win":
        return _("%(side)s win", side=side)
    return _("%(side)s loss", side=side)


class _Replay:
    """The mutable state of one replay (see ``run_stage``)."""

    def __init__(self, facts: TournamentFacts, stage: Stage, index: int, settings: Mapping[str, Any],
                 table: Mapping[tuple[str, str], Fraction]):
        teams = {team.name: tuple(team.players) for team in stage.teams}
        team_of: dict[str, str] = {}
        for team, players in teams.items():
            for player in players:
                team_of.setdefault(player, team)
        self.run = StageRun(key=stage.key, index=index, seed=stage.seed or default_seed(facts.slug, stage.key),
                            teams=teams, team_of=team_of,
                            remaining={team: list(players) for team, players in teams.items()})
        self.omon_from = int(settings["omon_elimination_from_tour"])
        self.teams_to_finish = int(settings["teams_out_to_finish"])
        self.table = table
        self.path = f"stages[{index}]"

    def fail(self, path: str, message: Text) -> None:
        self.run.problems.append(Problem(path, message))

    def team_out(self, team: str) -> bool:
        return team in self.run.teams_out or not self.run.remaining.get(team)

    def eliminate(self, player: str, game: Game, rule: str, reason: Text) -> None:
        team = self.run.team_of.get(player)
        if team is None or player not in self.run.remaining[team]:
            return
        self.run.remaining[team].remove(player)
        self.run.eliminations.append(Elimination(player, team, game.round or 0, game.number, rule, reason))

    def play_tour(self, tour: int, games: list[tuple[int, Game]]) -> None:
        counted = [position for position, (_index, g) in enumerate(games) if g.status in COUNTED_STATUSES]
        for position in counted[1:]:
            index, game = games[position]
            first = games[counted[0]][1]
            self.fail(f"{self.path}.games[{index}].round",
                      _("game %(number)s: tour %(tour)s already has game %(first)s; one game a tour (GP-9)",
                        number=game.number, tour=tour, first=first.number))
        for index, game in games:
            self.play_game(index, game)
        self.run.rounds.append(tour)
        self.end_tour(tour)

    def play_game(self, index: int, game: Game) -> None:
        path = f"{self.path}.games[{index}]"
        if game.status in ("scheduled", "annulled"):
            return
        seated = self.check_seats(path, game) if game.scores else set()
        absent = self.absent_teams(path, game, seated)
        if game.scores and game.seats:
            for team in self.run.teams:
                if not self.team_out(team) and team not in seated and team not in absent:
                    self.fail(f"{path}.seats", _("game %(number)s: team %(team)s is still in the tournament but "
                                                 "has no seat and is not in absent_teams (GP-9)",
                                                 number=game.number, team=team))
        self.eliminate_no_shows(path, game, absent)
        if game.scores:
            self.score(path, game)
            self.eliminate_losers(game)

    def check_seats(self, path: str, game: Game) -> set[str]:
        """GP-9: one remaining player of each remaining team; refusals name the seat."""
        seated: set[str] = set()
        eliminated = self.run.eliminated
        for si, seat in enumerate(game.seats):
            spath = f"{path}.seats[{si}]"
            if seat.team not in self.run.teams:
                continue
            if seat.player not in self.run.teams[seat.team]:
                self.fail(f"{spath}.player", _("%(player)s is not a player of team %(team)s in this stage (GP-9)",
                                               player=seat.player, team=seat.team))
            elif seat.player in eliminated:
                out = eliminated[seat.player]
                self.fail(f"{spath}.player", _("%(player)s was eliminated in tour %(tour)s (game %(game)s, "
                                               "%(rule)s) and may not play a later game (GP-9)",
                                               player=seat.player, tour=out.tour, game=out.game, rule=out.rule))
            elif seat.team in self.run.teams_out:
                self.fail(f"{spath}.team", _("team %(team)s is out of the tournament since tour %(tour)s (GP-13)",
                                             team=seat.team, tour=self.run.teams_out[seat.team]))
            if seat.team in seated:
                self.fail(f"{spath}.team", _("a second player of team %(team)s in game %(number)s: "
                                             "a team sends one player a tour (GP-9)", team=seat.team,
                                             number=game.number))
            seated.add(seat.team)
        return seated

    def absent_teams(self, path: str, game: Game, seated: set[str]) -> list[str]:
        """GP-10: the teams that sent nobody (listed, or named in ``no_show_eliminated`` without a seat)."""
        absent: list[str] = []
        for ai, team in enumerate(game.absent_teams):
            if team not in self.run.teams or team in absent:
                continue
            if team in seated:
                self.fail(f"{path}.absent_teams[{ai}]", _("team %(team)s is absent but has a seat in game %(number)s",
                                                          team=team, number=game.number))
                continue
            if self.team_out(team):
                self.fail(f"{path}.absent_teams[{ai}]", _("team %(team)s is out of the tournament and plays no "
                                                          "more games (GP-13)", team=team))
                continue
            absent.append(team)
        for team, _player in game.no_show_eliminated:
            if team in absent or team not in self.run.teams:
                continue
            self.fail(f"{path}.no_show_eliminated.{team}",
                      _("team %(team)s is not in the game's absent_teams (GP-10)", team=team))
            if team not in seated and not self.team_out(team):
                absent.append(team)
        return absent

    def eliminate_no_shows(self, path: str, game: Game, absent: list[str]) -> None:
        """GP-10: one remaining player of each absent team is out (recorded, or drawn with the stage's seed)."""
        recorded = dict(game.no_show_eliminated)
        for team in absent:
            remaining = self.run.remaining[team]
            player = recorded.get(team)
            if player is not None and player not in remaining:
                self.fail(f"{path}.no_show_eliminated.{team}",
                          _("%(player)s is not a remaining player of team %(team)s (GP-10)", player=player, team=team))
                player = None
            if player is None:
                player = draw_no_show(remaining, self.run.seed, game.round or 0, team)
                self.run.drawn = True
                reason = _("team %(team)s absent: drawn with seed %(seed)s", team=team, seed=self.run.seed)
            else:
                reason = _("team %(team)s absent", team=team)
            self.eliminate(player, game, "GP-10", reason)

    def score(self, path: str, game: Game) -> None:
        """GP-14: every seat earns the points table's entry for its side and the outcome."""
        if game.outcome is None:
            self.fail(f"{path}.outcome", NEEDS_OUTCOME.get(game.status)
                      or _("a %(status)s game needs an outcome (GP-11)", status=game.status))
            return
        self.run.games.append(game)
        for seat in game.seats:
            team = self.run.team_of.get(seat.player, seat.team)
            points = self.table.get((seat.side, game.outcome), Fraction(0))
            self.run.seats.append(SeatResult(game, seat, team, points, seat_reason(game, seat)))

    def eliminate_losers(self, game: Game) -> None:
        """GP-11, GP-12: losers of a clean win are out; after OMON only the civilians, from tour 21 on."""
        if game.outcome is None:
            return
        if is_omon(game):
            if (game.round or 0) >= self.omon_from:
                for seat in game.seats:
                    if seat.side == "civilians":
                        self.eliminate(seat.player, game, "GP-12",
                                       _("civilians of an OMON game in tour %(tour)s", tour=game.round))
            return
        if game.outcome not in CLEAN_WIN_OUTCOMES:
            return
        for seat in game.seats:
            if seat.side != game.outcome:
                self.eliminate(seat.player, game, "GP-11", LOST_CLEAN_WIN[game.outcome])

    def end_tour(self, tour: int) -> None:
        """GP-13: teams with nobody left are out; 3 or more out and the stage is over."""
        for team in self.run.teams:
            if team not in self.run.teams_out and not self.run.remaining[team]:
                self.run.teams_out[team] = tour
        self.run.remaining_after[tour] = {team: len(players) for team, players in self.run.remaining.items()}
        if len(self.run.teams_out) >= self.teams_to_finish:
            self.run.over_after = tour


def run_stage(facts: TournamentFacts, stage: Stage, settings: Mapping[str, Any],
              table: Mapping[tuple[str, str], Fraction]) -> StageRun:
    """GP-9..GP-13: replay the stage tour by tour (``round``, then game number)."""
    index = next(i for i, s in enumerate(facts.stages) if s.key == stage.key)
    replay = _Replay(facts, stage, index, settings, table)
    games = effective_games(facts, stage)
    by_tour: dict[int, list[tuple[int, Game]]] = {}
    for gi, game in enumerate(games):
        if game.round is None:
            replay.fail(f"{replay.path}.games[{gi}].round",
                        _("game %(number)s has no tour number (GP-9)", number=game.number))
            continue
        by_tour.setdefault(game.round, []).append((gi, game))
    for tour in sorted(by_tour):
        tour_games = sorted(by_tour[tour], key=lambda item: item[1].number)
        if replay.run.over:
            for gi, game in tour_games:
                replay.fail(f"{replay.path}.games[{gi}]",
                            _("game %(number)s in tour %(tour)s: the stage was over after tour %(over)s "
                              "and takes no more games (GP-13)", number=game.number, tour=tour,
                              over=replay.run.over_after))
            continue
        replay.play_tour(tour, tour_games)
    return replay.run


def worst_player_criteria(size: int, points: Mapping[str, Fraction], teams: Mapping[str, tuple[str, ...]]
                          ) -> list[Criterion[str]]:
    """GP-15.3: the worst player's points (all players, the eliminated included), then the second-worst,
    ... up to the second-best. A smaller team lacks the places it has no player for and ranks lower there."""
    ordered = {team: sorted(points.get(p, Fraction(0)) for p in players) for team, players in teams.items()}

    def kth(k: int):
        def value(team: str) -> tuple[int, Fraction]:
            values = ordered[team]
            return (1, values[k]) if k < len(values) - 1 else (0, Fraction(0))
        return value
    return [Criterion(f"worst_player_{k + 1}", kth(k)) for k in range(max(0, size - 1))]


def rank_teams(run: StageRun, disqualified: set[str]) -> list[Ranked[str]]:
    """GP-15: remaining players, team points, then the worst players; equal on all, the rank is shared."""
    points = run.points()
    team_points = run.team_points()
    size = max((len(players) for players in run.teams.values()), default=0)
    chain: list[Criterion[str]] = []
    if disqualified & set(run.teams):
        chain.append(Criterion("disqualified", lambda team: team not in disqualified))
    chain += [
        Criterion("remaining_players", lambda team: len(run.remaining[team])),
        Criterion("points", lambda team: team_points[team]),
        *worst_player_criteria(size, points, run.teams),
    ]
    return competition_rank(run.teams, chain, name=lambda team: team)


def team_rows(run: StageRun, ranked: list[Ranked[str]], disqualified: set[str]) -> list[TeamRow]:
    """GP-15: the team table with statuses and the chart figures."""
    points = run.points()
    team_points = run.team_points()
    by_round: dict[str, dict[int, Fraction]] = {team: {} for team in run.teams}
    for result in run.seats:
        tour = result.game.round or 0
        by_round.setdefault(result.team, {})
        by_round[result.team][tour] = by_round[result.team].get(tour, Fraction(0)) + result.points
    rows = []
    for entry in ranked:
        team = entry.item
        if team in disqualified:
            status = "disqualified"
        elif run.over and entry.rank == 1:
            status = "winner"
        elif not run.remaining[team]:
            status = "eliminated"
        else:
            status = "active"
        rows.append(TeamRow(
            team=team, points=team_points[team], rank=entry.rank, status=status,
            tiebreaks={"remaining_players": len(run.remaining[team])}, separated_by=entry.separated_by,
            details={
                "points_by_round": [round2(by_round[team].get(t, Fraction(0))) for t in run.rounds],
                "remaining_by_round": [run.remaining_after[t][team] for t in run.rounds],
                "remaining": list(run.remaining[team]),
                "players": list(run.teams[team]),
                "worst_players": [round2(v) for v in sorted(points.get(p, Fraction(0)) for p in run.teams[team])],
                "out_after_tour": run.teams_out.get(team),
            },
        ))
    return rows


def rank_players(run: StageRun) -> list[Ranked[str]]:
    """GP-15a: every player of the stage by points; equal points share the rank, in name order."""
    points = run.points()
    return competition_rank(run.team_of, [Criterion("points", lambda p: points[p])], name=lambda p: p)


def player_rows(run: StageRun, ranked: list[Ranked[str]], statuses: Mapping[str, str],
                details: Mapping[str, dict[str, Any]]) -> list[PlayerRow]:
    """GP-15a: the player table; ``statuses`` overrides active/eliminated (qualified, winner)."""
    points = run.points()
    games = run.games_played()
    eliminated = run.eliminated
    rows = []
    for entry in ranked:
        player = entry.item
        out = eliminated.get(player)
        status = statuses.get(player) or ("eliminated" if out else "active")
        extra = {"eliminated": out.as_dict() if out else None, **details.get(player, {})}
        rows.append(PlayerRow(player=player, team=run.team_of[player], points=points[player], games=games[player],
                              rank=entry.rank, status=status, details=extra))
    return rows
