"""Ruleset ``elimination_gp``: the elimination Grand Prix (spec ``elimination_gp.md``, seed 000).

Five qualifying stages and a final, each with 54 players drawn into 9 teams
of 6; every tour each remaining team sends one remaining player to the
tour's game and the losers of a clean win are out (GP-9..GP-13). The team
ranking (GP-15), the player table (GP-15a), the finalists (GP-16..GP-19) and
the final's places and prizes (GP-20..GP-22) are computed here from the
facts; the seeded draws live in ``rulesets.elimination_gp.draw``, the registration
rules in ``.registration``, the tour-by-tour replay in ``.process`` and the
finalists in ``.finalists``.

Interpretations where the spec is silent (each also in the function that
applies it): a maniac seat is on neither side, a clean win of the civilians
or the mafia eliminates every seat not on the winning side (the seed's "all
losing players", the maniac included), a ``maniac`` outcome eliminates
nobody; points follow the recorded outcome, "wins" (GP-17, GP-21) are clean
wins, except that GP-21 counts a draw or OMON as a mafia win; a ``not_held`` game still eliminates one player of each absent team
(GP-10), ``scheduled`` and ``annulled`` games eliminate nobody; the default
extra indicator is ``points``; a stage's table is ``final`` when every stage
of the document is over, nothing is scheduled, no appeal is pending and no
GP-23 window is open.
"""

from __future__ import annotations

import datetime as dt
from fractions import Fraction
from typing import Any

from rulesets import mafia
from rulesets.base import Award, Problem, Ranked, RulesetError, Standings, round2
from rulesets.elimination_gp.draw import default_seed, draw_no_show, draw_teams, make_baskets
from rulesets.elimination_gp.finalists import (
    FINAL_STAGE,
    Finalist,
    StageFinalists,
    commissar_wins,
    committee_picks,
    extra_indicator_of,
    final_places,
    mafia_wins_gp21,
    prize_awards,
    stage_finalists,
    suggestions,
)
from rulesets.elimination_gp.process import (
    SIDES,
    StageRun,
    player_rows,
    points_table,
    rank_players,
    rank_teams,
    run_stage,
    team_rows,
)
from rulesets.elimination_gp.registration import stage_roster
from rulesets.elimination_gp.rules import rules_of
from rulesets.facts import OUTCOMES, Appeal, Decision, TournamentFacts
from rulesets.messages import Text
from rulesets.messages import text as _

__all__ = [
    "KEY", "VERSION", "STAGE_KEYS", "DEFAULT_SETTINGS", "validate_settings", "validate", "compute",
    "appeal_deadline", "decision_deadline", "verdict_due", "seat_points", "suggest_committee_picks",
    "draw_teams", "draw_no_show", "make_baskets", "stage_roster",
]

KEY = "elimination_gp"
VERSION = 1
QUALIFYING_KEYS = tuple(f"qualifying-{n}" for n in range(1, 6))
STAGE_KEYS: tuple[str, ...] = (*QUALIFYING_KEYS, FINAL_STAGE)
EXTRA_INDICATORS = ("commissar_wins", "commissar_points", "mafia_wins", "mafia_points", "civilian_points",
                    "points", "custom")
BASKET_ORDERS = ("level", "manual")
DEFAULT_POINTS_TABLE: dict[str, dict[str, float | int]] = {
    "civilians": {"civilians": 1.5, "mafia": 0, "maniac": 0, "draw": 0.5},
    "mafia": {"civilians": 0, "mafia": 4, "maniac": 0, "draw": 3},
    "maniac": {"civilians": 0, "mafia": 0, "maniac": 0, "draw": 0},
}
DEFAULT_SETTINGS: dict[str, Any] = {
    "qualifying_stages": 5,
    "players_per_stage": 54,
    "basket_order": "level",
    "omon_elimination_from_tour": 21,
    "teams_out_to_finish": 3,
    "points_table": DEFAULT_POINTS_TABLE,
    "extra_indicator": "points",
    "winning_team_finalists": 6,
    "extra_indicator_finalists": 4,
    "committee_finalists": 4,
    "final_prizes": [300, 200, 100, 50, 30, 20],
    "stage_prizes": {},
}
POSITIVE_INTS = ("qualifying_stages", "players_per_stage", "omon_elimination_from_tour", "teams_out_to_finish")
COUNTS = ("winning_team_finalists", "extra_indicator_finalists", "committee_finalists")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (int, float)):
        return value == value and abs(value) != float("inf")
    if isinstance(value, str):
        try:
            Fraction(value)
        except (ValueError, ZeroDivisionError):
            return False
        return True
    return False


def _prize_list_problems(value: Any, path: str) -> list[Problem]:
    if not isinstance(value, list) or not all(_is_int(v) and v >= 0 for v in value):
        return [Problem(path, _("must be a list of whole mf amounts, 0 or more (GP-22)"))]
    return []


def _stage_prizes_problems(value: Any) -> list[Problem]:
    """GP-22a: ``{"qualifying-1": [{"place": 1, "amount": 100}, ...]}``; a stage left out has no prizes."""
    if not isinstance(value, dict):
        return [Problem("stage_prizes", _("must be an object of stage key: list of {place, amount}"))]
    problems = []
    for stage, prizes in value.items():
        path = f"stage_prizes.{stage}"
        if stage not in QUALIFYING_KEYS:
            problems.append(Problem(path, _("%(value)s is not a qualifying stage (GP-22a)", value=repr(stage))))
            continue
        if not isinstance(prizes, list):
            problems.append(Problem(path, _("must be a list of {place, amount} (GP-22a)")))
            continue
        places = set()
        for i, prize in enumerate(prizes):
            ok = (isinstance(prize, dict) and set(prize) == {"place", "amount"} and _is_int(prize["place"])
                  and prize["place"] >= 1 and _is_int(prize["amount"]) and prize["amount"] >= 0)
            if not ok:
                problems.append(Problem(f"{path}[{i}]", _("must be {place: 1 or more, amount: whole mf} (GP-22a)")))
            elif prize["place"] in places:
                problems.append(Problem(f"{path}[{i}].place", _("place %(place)s is listed twice (GP-22a)",
                                                                   place=prize["place"])))
            else:
                places.add(prize["place"])
    return problems


def _not_an_indicator(value: Any) -> Text:
    return _("%(value)s is not one of %(options)s (GP-17)", value=repr(value), options=", ".join(EXTRA_INDICATORS))


def _extra_indicator_problems(value: Any) -> list[Problem]:
    """GP-17: one indicator for every stage, or one per qualifying stage (``{"qualifying-1": "mafia_wins"}``):
    each stage's host family picks its own before registration (GP-2)."""
    if isinstance(value, dict):
        problems = [Problem(f"extra_indicator.{key}", _("%(value)s is not a qualifying stage (GP-17)", value=repr(key)))
                    for key in value if key not in QUALIFYING_KEYS]
        return problems + [Problem(f"extra_indicator.{key}", _not_an_indicator(indicator))
                           for key, indicator in value.items() if indicator not in EXTRA_INDICATORS]
    if value not in EXTRA_INDICATORS:
        return [Problem("extra_indicator", _not_an_indicator(value))]
    return []


def _points_table_problems(value: Any) -> list[Problem]:
    if not isinstance(value, dict):
        return [Problem("points_table", _("must be an object of side: {outcome: points} (GP-14)"))]
    problems = []
    for side, row in value.items():
        if side not in SIDES:
            problems.append(Problem(f"points_table.{side}", _("unknown side; sides are %(sides)s (GP-14)",
                                                               sides=", ".join(SIDES))))
            continue
        if not isinstance(row, dict):
            problems.append(Problem(f"points_table.{side}", _("must be an object of outcome: points (GP-14)")))
            continue
        for outcome, points in row.items():
            path = f"points_table.{side}.{outcome}"
            if outcome not in OUTCOMES:
                problems.append(Problem(path, _("unknown outcome; outcomes are %(outcomes)s (GP-14)",
                                                 outcomes=", ".join(OUTCOMES))))
            elif not _is_number(points):
                problems.append(Problem(path, _("%(value)s is not a number of points (GP-14)", value=repr(points))))
    return problems


def validate_settings(settings: dict) -> list[Problem]:
    """Unknown settings and bad values are refused; paths are relative to ``tournament.settings``."""
    problems = [Problem(key, _("unknown setting")) for key in sorted(set(settings) - set(DEFAULT_SETTINGS))]
    for key in POSITIVE_INTS:
        if key in settings and not (_is_int(settings[key]) and settings[key] >= 1):
            problems.append(Problem(key, _("%(value)s must be a whole number, 1 or more", value=repr(settings[key]))))
    for key in COUNTS:
        if key in settings and not (_is_int(settings[key]) and settings[key] >= 0):
            problems.append(Problem(key, _("%(value)s must be a whole number, 0 or more", value=repr(settings[key]))))
    if _is_int(settings.get("qualifying_stages")) and settings["qualifying_stages"] > len(QUALIFYING_KEYS):
        problems.append(Problem("qualifying_stages", _("at most %(count)s qualifying stages (GP-1)",
                                                        count=len(QUALIFYING_KEYS))))
    if "basket_order" in settings and settings["basket_order"] not in BASKET_ORDERS:
        problems.append(Problem("basket_order", _("%(value)s is not one of level, manual (GP-7)",
                                                   value=repr(settings["basket_order"]))))
    if "extra_indicator" in settings:
        problems += _extra_indicator_problems(settings["extra_indicator"])
    if "points_table" in settings:
        problems += _points_table_problems(settings["points_table"])
    if "final_prizes" in settings:
        problems += _prize_list_problems(settings["final_prizes"], "final_prizes")
    if "stage_prizes" in settings:
        problems += _stage_prizes_problems(settings["stage_prizes"])
    return problems


def _settings(facts: TournamentFacts) -> dict[str, Any]:
    return {**DEFAULT_SETTINGS, **(facts.settings or {})}


class _Series:
    """The replays of every stage of the document, computed once per call."""

    def __init__(self, facts: TournamentFacts):
        self.facts = facts
        self.settings = _settings(facts)
        self.table = points_table(self.settings, DEFAULT_POINTS_TABLE)
        self.disqualified_players = mafia.disqualified_players(facts)
        self._runs: dict[str, StageRun] = {}
        self._ranked: dict[str, list[Ranked[str]]] = {}
        self._finalists: dict[str, tuple[StageFinalists, dict[str, Any]]] = {}

    def disqualified_teams(self, stage: str) -> set[str]:
        """Teams named by a disqualification decision in force for the stage (or for no stage)."""
        return {d.team for d in mafia.active_decisions(self.facts)
                if d.kind == "disqualification" and d.team and d.stage in (None, stage)}

    def run(self, key: str) -> StageRun:
        if key not in self._runs:
            stage = self.facts.stage(key)
            assert stage is not None
            self._runs[key] = run_stage(self.facts, stage, self.settings, self.table)
        return self._runs[key]

    def ranked(self, key: str) -> list[Ranked[str]]:
        if key not in self._ranked:
            self._ranked[key] = rank_teams(self.run(key), self.disqualified_teams(key))
        return self._ranked[key]

    def finalists(self, key: str) -> tuple[StageFinalists, dict[str, Any]]:
        if key not in self._finalists:
            self._finalists[key] = stage_finalists(self.facts, self.run(key), self.ranked(key), self.settings,
                                                   self.disqualified_teams(key), self.disqualified_players)
        return self._finalists[key]

    def qualifying_keys(self) -> list[str]:
        return [s.key for s in self.facts.stages if s.key != FINAL_STAGE]

    def qualified_from(self) -> dict[str, str]:
        """The qualifying stage each finalist qualified from (GP-16..GP-18; the first one in order of play)."""
        out: dict[str, str] = {}
        for key in self.qualifying_keys():
            for finalist in self.finalists(key)[0].finalists:
                if finalist.rule != "GP-19":
                    out.setdefault(finalist.player, key)
        return out

    def series_finalists(self) -> list[Finalist]:
        """Every finalist of the series and why: the stages' (GP-16..GP-18), then the committee's (GP-19)."""
        out: list[Finalist] = []
        seen: set[str] = set()
        for key in self.qualifying_keys():
            for finalist in self.finalists(key)[0].finalists:
                if finalist.player not in seen:
                    seen.add(finalist.player)
                    out.append(finalist)
        return out + committee_picks(self.facts, seen)

    def qualifying_totals(self) -> tuple[dict[str, Fraction], dict[str, int]]:
        """Points and games of every player over all the document's qualifying stages."""
        points: dict[str, Fraction] = {}
        games: dict[str, int] = {}
        for key in self.qualifying_keys():
            run = self.run(key)
            for player, value in run.points().items():
                points[player] = points.get(player, Fraction(0)) + value
            for player, count in run.games_played().items():
                games[player] = games.get(player, 0) + count
        return points, games

    def qualifying_average(self, player: str) -> Fraction:
        """GP-21: average points per game in the stage the player qualified from, else over all qualifying games."""
        stage = self.qualified_from().get(player)
        if stage is not None:
            run = self.run(stage)
            points, games = run.points().get(player, Fraction(0)), run.games_played().get(player, 0)
        else:
            totals, counts = self.qualifying_totals()
            points, games = totals.get(player, Fraction(0)), counts.get(player, 0)
        return points / games if games else Fraction(0)

    def over_everywhere(self) -> bool:
        return all(self.run(stage.key).over for stage in self.facts.stages)


def validate(facts: TournamentFacts) -> list[Problem]:
    """The ruleset's refusals: GP-1 stage count, GP-3 level 0, GP-9..GP-13 tour by tour, GP-23 late appeals."""
    problems: list[Problem] = []
    settings = _settings(facts)
    allowed = set(QUALIFYING_KEYS[: int(settings["qualifying_stages"])]) | {FINAL_STAGE}
    levels = {p.nick: p.level for p in facts.players}
    series = _Series(facts)
    for si, stage in enumerate(facts.stages):
        if stage.key not in allowed:
            problems.append(Problem(f"stages[{si}].key", _("the series has %(count)s qualifying stages (GP-1)",
                                                           count=settings["qualifying_stages"])))
        seen: dict[str, str] = {}
        for ti, team in enumerate(stage.teams):
            for pi, player in enumerate(team.players):
                path = f"stages[{si}].teams[{ti}].players[{pi}]"
                if player in seen:
                    problems.append(Problem(path, _("%(player)s is already on team %(team)s in this stage (GP-8)",
                                                     player=player, team=seen[player])))
                seen.setdefault(player, team.name)
                if stage.key != FINAL_STAGE and levels.get(player) == 0:
                    problems.append(Problem(path, _("%(player)s is a level 0 player and may not play a stage (GP-3)",
                                                     player=player)))
        problems += series.run(stage.key).problems
    problems += mafia.late_appeal_problems(facts, rules_of(facts).appeal_hours, "decided_at", "GP-23")
    return problems


def decision_deadline(facts: TournamentFacts, decision: Decision) -> dt.datetime | None:
    """GP-23: a decision may be appealed within 72 hours of the moment it was taken (``decided_at``)."""
    return mafia.decision_deadline(decision, rules_of(facts).appeal_hours, "decided_at")


def appeal_deadline(facts: TournamentFacts, appeal: Appeal) -> dt.datetime | None:
    """GP-23: the last moment to file ``appeal``: the deadline of the decision it is against."""
    decision = mafia.appealed_decision(facts, appeal)
    return None if decision is None else decision_deadline(facts, decision)


def verdict_due(facts: TournamentFacts, appeal: Appeal) -> dt.datetime | None:
    """Mafia rulesets set no verdict deadline."""
    return None


def is_final(facts: TournamentFacts, series: _Series, now: dt.datetime) -> bool:
    """Interchange ``final``: every stage of the document over (GP-13), nothing scheduled, no appeal
    pending and no GP-23 window open at ``now``."""
    if not facts.stages or not series.over_everywhere():
        return False
    if any(g.status == "scheduled" for stage in facts.stages for g in mafia.effective_games(facts, stage)):
        return False
    if mafia.any_pending_appeal(facts):
        return False
    return not mafia.appeal_window_open(facts, rules_of(facts).appeal_hours, "decided_at", now)


def _figure(value: Any) -> Any:
    return round2(value) if isinstance(value, Fraction) else value


def _qualifying_stage(series: _Series, run: StageRun) -> tuple[dict[str, str], dict[str, dict], dict, list | None]:
    """Statuses, player details, standings details and awards of a qualifying stage (GP-16..GP-18, GP-22a)."""
    finalists, figures = series.finalists(run.key)
    reasons = {f.player: f.reason for f in finalists.finalists}
    statuses = {player: "qualified" for player in reasons if player in run.team_of}
    details = {p: {"extra_indicator": _figure(figures.get(p)), "qualified": reasons.get(p)} for p in run.team_of}
    extra = {
        "extra_indicator": extra_indicator_of(series.settings, run.key),
        "finalists": [f.as_dict() for f in finalists.finalists],
        "vacancies": finalists.vacancies,
        "open_places": finalists.open_places,
    }
    prizes = series.settings.get("stage_prizes", {}).get(run.key)
    awards = None
    if prizes:
        amounts = [0] * max(p["place"] for p in prizes)
        for prize in prizes:
            amounts[prize["place"] - 1] = prize["amount"]
        placed = [e for e in rank_players(run) if e.rank <= len(amounts)]
        awards = prize_awards(placed, amounts, run.team_of, 0)
    return statuses, details, extra, awards


def _vacancy_notes(finalists: StageFinalists) -> list[Text]:
    """Plain words for the committee: places GP-16 and GP-17 left open, and who is tied for them."""
    notes = []
    for vacancy in finalists.vacancies:
        if vacancy["tied"]:
            notes.append(_("%(rule)s: %(places)s place(s) left to the committee: %(players)s tied across the cut "
                           "(GP-18)", rule=vacancy["rule"], places=vacancy["places"],
                           players=", ".join(vacancy["tied"])))
        else:
            notes.append(_("%(rule)s: %(places)s place(s) left to the committee (GP-18)", rule=vacancy["rule"],
                           places=vacancy["places"]))
    return notes


def _final_stage(series: _Series, run: StageRun) -> tuple[dict[str, str], dict[str, dict], dict, list[Award]]:
    """Places 1..6, statuses and prizes of the final (GP-20..GP-22).

    The final's winners exist once it is over (GP-15), so before that there
    are no places and the award list is empty.
    """
    prizes = list(series.settings["final_prizes"])
    placed: list[Ranked[str]] = []
    if run.over:
        placed = final_places(series.facts, run, series.ranked(run.key), series.qualifying_average,
                              series.disqualified_teams(run.key), series.disqualified_players, len(prizes))
    statuses = {e.item: "winner" for e in placed}
    mafia_wins, commissar = mafia_wins_gp21(run), commissar_wins(run)
    details = {p: {"mafia_wins": mafia_wins[p], "commissar_wins": commissar[p],
                   "qualifying_average": round2(series.qualifying_average(p))} for p in run.team_of}
    extra = {"places": [{"place": e.rank, "player": e.item, "team": run.team_of.get(e.item)} for e in placed]}
    return statuses, details, extra, prize_awards(placed, prizes, run.team_of,
                                                  rules_of(series.facts).medal_places)


def compute(facts: TournamentFacts, stage_key: str | None, now: dt.datetime) -> Standings:
    """The standings of ``stage_key`` (``None``: the latest stage of the document)."""
    if stage_key is not None and stage_key not in STAGE_KEYS:
        raise RulesetError([Problem("stage", _("unknown stage %(key)s", key=repr(stage_key)))])
    if not facts.stages:
        return Standings(stage=stage_key or STAGE_KEYS[0], final=False, teams=[], players=[],
                         details={"rounds": []})
    stage = facts.stage(stage_key) if stage_key else facts.stages[-1]
    if stage is None:
        raise RulesetError([Problem("stage", _("the document has no stage '%(stage)s'", stage=stage_key))])
    series = _Series(facts)
    run = series.run(stage.key)
    disqualified = series.disqualified_teams(stage.key)
    teams = team_rows(run, series.ranked(stage.key), disqualified)
    if stage.key == FINAL_STAGE:
        statuses, player_details, extra, awards = _final_stage(series, run)
    else:
        statuses, player_details, extra, awards = _qualifying_stage(series, run)
    players = player_rows(run, rank_players(run), statuses, player_details)
    series_finalists = series.series_finalists()
    totals, _games = series.qualifying_totals()
    details = {
        "rounds": [f"Tour {tour}" for tour in run.rounds],
        "tours": list(run.rounds),
        "over": run.over,
        "over_after_tour": run.over_after,
        "teams_out": dict(run.teams_out),
        "eliminations": [e.as_dict() for e in run.eliminations],
        "seed": run.seed,
        "drawn": run.drawn,
        "series_finalists": [f.as_dict() for f in series_finalists],
        "committee_suggestions": suggestions(totals, {f.player for f in series_finalists}
                                             | series.disqualified_players,
                                             int(series.settings["committee_finalists"])),
        **extra,
    }
    seed = stage.seed if stage.seed is not None else (run.seed if run.drawn else None)
    notes = [] if stage.key == FINAL_STAGE else _vacancy_notes(series.finalists(stage.key)[0])
    return Standings(stage=stage.key, final=is_final(facts, series, now), teams=teams, players=players,
                     awards=awards, seed=seed, notes=notes, details=details)


def seat_points(facts: TournamentFacts, stage_key: str) -> dict[tuple[int, str], tuple[Fraction, str]]:
    """GP-14: (game number, player) -> (points the seat earned, reason) for the stage's counted games."""
    stage = facts.stage(stage_key)
    if stage is None:
        return {}
    run = _Series(facts).run(stage.key)
    return {(r.game.number, r.seat.player): (r.points, r.reason) for r in run.seats}


def suggest_committee_picks(facts: TournamentFacts, n: int | None = None) -> list[dict[str, Any]]:
    """GP-19: the best players by points across the qualifying stages who have not qualified (ties at the cut kept)."""
    series = _Series(facts)
    count = int(series.settings["committee_finalists"]) if n is None else n
    totals, _games = series.qualifying_totals()
    excluded = {f.player for f in series.series_finalists()} | series.disqualified_players
    return suggestions(totals, excluded, count)


def no_show_seed(facts: TournamentFacts, stage_key: str) -> str:
    """The public seed of a stage's GP-10 draws: the stage's stored seed, else slug/stage."""
    stage = facts.stage(stage_key)
    return stage.seed if stage is not None and stage.seed else default_seed(facts.slug, stage_key)


def qualified_players(facts: TournamentFacts) -> dict[str, str]:
    """Every finalist of the series and the reason (for GP-3: they may not register again)."""
    return {f.player: f.reason for f in _Series(facts).series_finalists()}
