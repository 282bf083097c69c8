"""Who goes to the Grand Prix final, and the final's places and prizes (GP-16..GP-22a)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from rulesets.base import Award, Criterion, Ranked, competition_rank, floor_mf, round2, tied_groups
from rulesets.elimination_gp.process import StageRun, is_omon
from rulesets.facts import Decision, Game, TournamentFacts
from rulesets.mafia import active_decisions

FINAL_STAGE = "final"
DEFAULT_EXTRA_INDICATOR = "points"
MEDAL = "Grand Prix medal"


@dataclass(frozen=True)
class Finalist:
    """A player qualified for the final and why (GP-16..GP-19)."""

    player: str
    reason: str
    rule: str
    stage: str | None
    note: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {"player": self.player, "reason": self.reason, "rule": self.rule, "stage": self.stage,
                "note": self.note}


@dataclass
class StageFinalists:
    """GP-16..GP-18 for one qualifying stage."""

    stage: str
    finalists: list[Finalist] = field(default_factory=list)
    vacancies: list[dict[str, Any]] = field(default_factory=list)
    open_places: int = 0

    @property
    def players(self) -> set[str]:
        return {f.player for f in self.finalists}


@dataclass(frozen=True)
class Cut:
    """The best ``places`` of a ranked pool; a group tied across the cut stays out."""

    picked: list[str]
    tied: list[str]
    unfilled: int


def extra_indicator_of(settings: Mapping[str, Any], stage_key: str) -> str:
    """The stage's GP-17 indicator: its own where the setting names one per stage, else the series' one."""
    value = settings.get("extra_indicator", DEFAULT_EXTRA_INDICATOR)
    if isinstance(value, Mapping):
        return value.get(stage_key, DEFAULT_EXTRA_INDICATOR)
    return value


def cut(pool: Sequence[str], key: Callable[[str], Any], places: int) -> Cut:
    """Take whole groups of equal ``key`` (larger first) while they fit in ``places`` (GP-16, GP-17)."""
    ranked = competition_rank(pool, [Criterion("key", key)], name=lambda p: p)
    picked: list[str] = []
    tied: list[str] = []
    for group in tied_groups(ranked):
        names = [entry.item for entry in group]
        if len(picked) + len(names) <= places:
            picked += names
            continue
        if len(picked) < places:
            tied = names
        break
    return Cut(picked, tied, places - len(picked))


def clean_win(game: Game, side: str) -> bool:
    """A win of ``side`` not ended by OMON (GP-11); the wins GP-17 and GP-21 count."""
    return game.outcome == side and not is_omon(game)


def indicator_figures(run: StageRun, indicator: str, custom_order: Sequence[str]) -> dict[str, Fraction | int | None]:
    """GP-17: each player's figure of the stage's extra indicator (totals over the stage).

    Points as commissar / mafia (``mafia``, ``don``) / civilians (every
    civilian-side role, the commissar included); wins are clean wins of the
    player's side (as commissar: the civilians won).
    """
    figures: dict[str, Fraction | int | None] = {}
    if indicator == "custom":
        position = {player: index + 1 for index, player in enumerate(custom_order)}
        return {player: position.get(player) for player in run.team_of}
    wins = indicator.endswith("_wins")
    for player in run.team_of:
        figures[player] = 0 if wins else Fraction(0)
    for result in run.seats:
        seat, game = result.seat, result.game
        if indicator == "points":
            counted = True
        elif indicator.startswith("commissar"):
            counted = seat.role == "commissar"
        elif indicator.startswith("mafia"):
            counted = seat.side == "mafia"
        else:
            counted = seat.side == "civilians"
        if not counted:
            continue
        if wins:
            side = "civilians" if indicator == "commissar_wins" else "mafia"
            figures[seat.player] = (figures.get(seat.player) or 0) + (1 if clean_win(game, side) else 0)
        else:
            figures[seat.player] = (figures.get(seat.player) or Fraction(0)) + result.points
    return figures


def custom_order(facts: TournamentFacts, stage: str) -> tuple[str, ...]:
    """GP-17 ``custom``: the commission's own ranking, its latest ``tie_break`` decision for the stage
    (or naming no stage)."""
    orders = [d.order for d in active_decisions(facts) if d.kind == "tie_break" and d.stage in (None, stage)]
    return orders[-1] if orders else ()


def qualify_decisions(facts: TournamentFacts, stage: str | None) -> list[Decision]:
    """``qualify`` decisions in force for a qualifying stage (GP-18) or, with ``None``, for the series (GP-19)."""
    out = []
    for decision in active_decisions(facts):
        if decision.kind != "qualify" or not decision.player:
            continue
        series_wide = decision.stage in (None, FINAL_STAGE)
        if (stage is None and series_wide) or (stage is not None and decision.stage == stage):
            out.append(decision)
    return out


def stage_finalists(facts: TournamentFacts, run: StageRun, ranked_teams: Sequence[Ranked[str]],
                    settings: Mapping[str, Any], disqualified_teams: set[str],
                    disqualified_players: set[str]) -> tuple[StageFinalists, dict[str, Any]]:
    """GP-16..GP-18 for a qualifying stage; also returns each player's extra-indicator figure.

    GP-16 and GP-17 apply once the stage is over; ``qualify`` decisions of the
    stage (GP-18) always count, and so do the committee's series-wide picks
    (GP-19, a decision without a qualifying stage) of this stage's players.
    Disqualified players and teams do not qualify.
    """
    indicator = extra_indicator_of(settings, run.key)
    figures = indicator_figures(run, indicator, custom_order(facts, run.key))
    result = StageFinalists(stage=run.key)
    unfilled = 0
    if run.over:
        points = run.points()
        winners = [e.item for e in ranked_teams if e.rank == 1 and e.item not in disqualified_teams]
        pool = [p for team in winners for p in run.teams[team] if p not in disqualified_players]
        gp16 = cut(pool, lambda p: points[p], int(settings["winning_team_finalists"]))
        result.finalists += [Finalist(p, "winning team", "GP-16", run.key) for p in gp16.picked]
        if gp16.unfilled:
            result.vacancies.append({"rule": "GP-16", "places": gp16.unfilled, "tied": gp16.tied})
        candidates = [p for p in run.team_of if p not in gp16.picked and p not in disqualified_players]
        if indicator == "custom":
            candidates = [p for p in candidates if figures[p] is not None]
            key: Callable[[str], Any] = lambda p: -figures[p]  # noqa: E731
        else:
            key = lambda p: (figures[p], points[p])  # noqa: E731
        gp17 = cut(candidates, key, int(settings["extra_indicator_finalists"]))
        result.finalists += [Finalist(p, "extra indicator", "GP-17", run.key) for p in gp17.picked]
        if gp17.unfilled:
            result.vacancies.append({"rule": "GP-17", "places": gp17.unfilled, "tied": gp17.tied})
        unfilled = gp16.unfilled + gp17.unfilled
    filled = 0
    series_picks = [d for d in qualify_decisions(facts, None) if d.player in run.team_of]
    for decision in qualify_decisions(facts, run.key) + series_picks:
        if decision.player not in result.players:
            rule = "GP-18" if decision.stage == run.key else "GP-19"
            result.finalists.append(Finalist(decision.player, "committee", rule, run.key, decision.reason or ""))
            filled += 1
    result.open_places = max(0, unfilled - filled)
    return result, figures


def committee_picks(facts: TournamentFacts, already: set[str]) -> list[Finalist]:
    """GP-19: the committee's picks and replacements (``qualify`` decisions not tied to a qualifying stage)."""
    picks = []
    for decision in qualify_decisions(facts, None):
        if decision.player not in already and decision.player not in {f.player for f in picks}:
            picks.append(Finalist(decision.player, "committee", "GP-19", None, decision.reason or ""))
    return picks


def suggestions(totals: Mapping[str, Fraction], excluded: set[str], n: int) -> list[dict[str, Any]]:
    """GP-19: the best players by points across the qualifying stages not yet qualified (ties at the cut kept)."""
    pool = [p for p in totals if p not in excluded]
    ranked = competition_rank(pool, [Criterion("points", lambda p: totals[p])], name=lambda p: p)
    return [{"player": e.item, "points": round2(totals[e.item]), "rank": e.rank} for e in ranked if e.rank <= n]


def mafia_wins_gp21(run: StageRun) -> dict[str, int]:
    """GP-21: wins as mafia; a draw or an OMON counts as a mafia win for a mafia player."""
    wins = {player: 0 for player in run.team_of}
    for result in run.seats:
        if result.seat.side == "mafia" and (result.game.outcome == "mafia" or is_omon(result.game)):
            wins[result.seat.player] = wins.get(result.seat.player, 0) + 1
    return wins


def commissar_wins(run: StageRun) -> dict[str, int]:
    """GP-21: wins as commissar (a clean win of the civilians; an OMON counts for the mafia)."""
    wins = {player: 0 for player in run.team_of}
    for result in run.seats:
        if result.seat.role == "commissar" and clean_win(result.game, "civilians"):
            wins[result.seat.player] = wins.get(result.seat.player, 0) + 1
    return wins


def apply_committee_orders(ranked: list[Ranked[str]], orders: Sequence[Sequence[str]]) -> list[Ranked[str]]:
    """GP-21: a committee ``tie_break`` order separates rows still tied (the latest order that names them wins)."""
    out: list[Ranked[str]] = []
    for group in tied_groups(ranked):
        names = [entry.item for entry in group]
        order = next((o for o in reversed(orders) if len(set(o) & set(names)) >= 2), None)
        if len(group) < 2 or order is None:
            out += group
            continue
        listed = [name for name in order if name in names]
        rest = sorted(name for name in names if name not in listed)
        start = group[0].rank
        for offset, name in enumerate(listed):
            out.append(Ranked(name, start + offset, "committee" if offset else group[0].separated_by))
        rest_rank = start + len(listed)
        out += [Ranked(name, rest_rank, "committee" if i == 0 else None) for i, name in enumerate(rest)]
    return out


def final_places(facts: TournamentFacts, run: StageRun, ranked_teams: Sequence[Ranked[str]],
                 qualifying_average: Callable[[str], Fraction], disqualified_teams: set[str],
                 disqualified_players: set[str], places: int) -> list[Ranked[str]]:
    """GP-21: places 1..6 of the Grand Prix: the players of the final's winning team(s).

    Ordered by points, then wins as mafia (draw/OMON counts), then wins as
    commissar, then the average points per game of the qualifying stage the
    player qualified from, then a committee ``tie_break`` decision; rows
    still equal share the place.
    """
    points = run.points()
    mafia = mafia_wins_gp21(run)
    commissar = commissar_wins(run)
    winners = [e.item for e in ranked_teams if e.rank == 1 and e.item not in disqualified_teams]
    pool = [p for team in winners for p in run.teams[team] if p not in disqualified_players]
    averages = {p: qualifying_average(p) for p in pool}
    chain = [
        Criterion("points", lambda p: points[p]),
        Criterion("mafia_wins", lambda p: mafia[p]),
        Criterion("commissar_wins", lambda p: commissar[p]),
        Criterion("qualifying_average", lambda p: averages[p]),
    ]
    ranked = competition_rank(pool, chain, name=lambda p: p)
    orders = [d.order for d in active_decisions(facts) if d.kind == "tie_break" and d.stage in (None, FINAL_STAGE)]
    return [entry for entry in apply_committee_orders(ranked, orders) if entry.rank <= places]


def prize_awards(placed: Sequence[Ranked[str]], prizes: Sequence[int], team_of: Mapping[str, str],
                 medal_places: int) -> list[Award]:
    """GP-22, GP-22a: a prize per place; players sharing a place split the prizes of the places they cover."""
    awards = []
    for group in tied_groups(list(placed)):
        place = group[0].rank
        covered = [prizes[p - 1] if p - 1 < len(prizes) else 0 for p in range(place, place + len(group))]
        prize = floor_mf(Fraction(sum(covered), len(group)))
        items = [MEDAL] if place <= medal_places else []
        for entry in group:
            awards.append(Award(place=place, team=team_of.get(entry.item), player=entry.item, prize=prize,
                                items=list(items)))
    return awards
