"""The references of a document: every name it uses is defined (interchange: names are the keys), and a
``partly`` verdict's replacement is judged in the place of what it replaces (FL-19)."""

from __future__ import annotations

from dataclasses import replace

import rulesets
from rulesets.base import Problem
from rulesets.facts import Appeal, Game, Penalty, Stage, Tour, TournamentFacts
from rulesets.messages import text as _


def _unknown_team(name: str) -> str:
    return _("unknown team %(team)s", team=repr(name))


def _unknown_player(name: str) -> str:
    return _("unknown player %(player)s", player=repr(name))


def check_references(facts: TournamentFacts) -> list[Problem]:
    """Every name a document uses must be defined (interchange: names are the keys)."""
    problems: list[Problem] = []
    players = {p.nick for p in facts.players}
    families = {f.name for f in facts.families}
    top_teams = {t.name for t in facts.teams}
    for i, f in enumerate(facts.families):
        if f.head is not None and f.head not in players:
            problems.append(Problem(f"families[{i}].head", _unknown_player(f.head)))
    for si, stage in enumerate(facts.stages):
        problems += _stage_references(stage, f"stages[{si}]", top_teams | {t.name for t in stage.teams}, players)
    all_teams = top_teams | {t.name for s in facts.stages for t in s.teams}
    for i, p in enumerate(facts.players):
        if p.family is not None and p.family not in families:
            problems.append(Problem(f"players[{i}].family", _("unknown family %(family)s", family=repr(p.family))))
    items = _ItemReferences(facts, players, all_teams, problems)
    items.penalties()
    items.decisions()
    items.appeals()
    for i, w in enumerate(facts.withdrawals):
        if w.team not in all_teams:
            problems.append(Problem(f"withdrawals[{i}].team", _unknown_team(w.team)))
    return problems


def _stage_references(stage: Stage, path: str, teams: set[str], players: set[str]) -> list[Problem]:
    """The names a stage's groups, games and tours use: its teams (``teams``) and the tournament's players."""
    problems: list[Problem] = []
    group_names = {g.name for g in stage.groups}
    for gi, group in enumerate(stage.groups):
        for ti, team in enumerate(group.teams):
            if team not in teams:
                problems.append(Problem(f"{path}.groups[{gi}].teams[{ti}]", _unknown_team(team)))
    for gi, game in enumerate(stage.games):
        gpath = f"{path}.games[{gi}]"
        if game.group is not None and stage.groups and game.group not in group_names:
            problems.append(Problem(f"{gpath}.group", _("unknown group %(group)s", group=repr(game.group))))
        problems += _game_references(game, gpath, teams, players)
    for ti, tour in enumerate(stage.tours):
        problems += _tour_references(tour, f"{path}.tours[{ti}]", teams)
    return problems


def _game_references(game: Game, gpath: str, teams: set[str], players: set[str]) -> list[Problem]:
    """The teams and players a game's absences, no-shows and seats name."""
    problems: list[Problem] = []
    for ti, team in enumerate(game.absent_teams):
        if team not in teams:
            problems.append(Problem(f"{gpath}.absent_teams[{ti}]", _unknown_team(team)))
    for team, player in game.no_show_eliminated:
        if team not in teams:
            problems.append(Problem(f"{gpath}.no_show_eliminated.{team}", _unknown_team(team)))
        elif player not in players:
            problems.append(Problem(f"{gpath}.no_show_eliminated.{team}", _unknown_player(player)))
    for pi, seat in enumerate(game.seats):
        if seat.team not in teams:
            problems.append(Problem(f"{gpath}.seats[{pi}].team", _unknown_team(seat.team)))
        if seat.player not in players:
            problems.append(Problem(f"{gpath}.seats[{pi}].player", _unknown_player(seat.player)))
    return problems


def _tour_references(tour: Tour, tpath: str, teams: set[str]) -> list[Problem]:
    """The teams a tour's host, masks and absences name; the host and an absent team have no mask (CHGK-7)."""
    problems: list[Problem] = []
    if tour.host is not None and tour.host not in teams:
        problems.append(Problem(f"{tpath}.host", _unknown_team(tour.host)))
    for team, _mask in tour.masks:
        if team not in teams:
            problems.append(Problem(f"{tpath}.masks.{team}", _unknown_team(team)))
        elif team == tour.host:
            problems.append(Problem(f"{tpath}.masks.{team}", _("the host has no mask (CHGK-7)")))
        elif team in tour.absent:
            problems.append(Problem(f"{tpath}.masks.{team}", _("an absent team has no mask")))
    for ai, team in enumerate(tour.absent):
        if team not in teams:
            problems.append(Problem(f"{tpath}.absent[{ai}]", _unknown_team(team)))
    return problems


class _ItemReferences:
    """The names the penalties, decisions and appeals use, each problem appended to ``problems``."""

    def __init__(self, facts: TournamentFacts, players: set[str], all_teams: set[str],
                 problems: list[Problem]) -> None:
        self.facts = facts
        self.players = players
        self.all_teams = all_teams
        self.problems = problems
        self.stage_index = {s.key: i for i, s in enumerate(facts.stages)}

    def stage(self, path: str, key: str | None) -> Stage | None:
        """The stage an item names, or None (a problem when it names an unknown one)."""
        if key is None:
            return None
        if key not in self.stage_index:
            self.problems.append(Problem(f"{path}.stage", _("unknown stage %(value)s", value=repr(key))))
            return None
        return self.facts.stages[self.stage_index[key]]

    def penalties(self) -> None:
        problems = self.problems
        for i, pen in enumerate(self.facts.penalties):
            path = f"penalties[{i}]"
            stage = self.stage(path, pen.stage)
            if pen.team is not None and pen.team not in self.all_teams:
                problems.append(Problem(f"{path}.team", _unknown_team(pen.team)))
            if pen.player is not None and pen.player not in self.players:
                problems.append(Problem(f"{path}.player", _unknown_player(pen.player)))
            if stage is not None and pen.game is not None and stage.game(pen.game) is None:
                problems.append(Problem(f"{path}.game", _("stage %(stage)s has no game %(number)s",
                                                          stage=stage.key, number=pen.game)))

    def decisions(self) -> None:
        problems = self.problems
        for i, dec in enumerate(self.facts.decisions):
            path = f"decisions[{i}]"
            stage = self.stage(path, dec.stage)
            if dec.game is not None and stage is None and dec.stage is None:
                problems.append(Problem(f"{path}.stage", _("a decision about a game names its stage")))
            if stage is not None and dec.game is not None and stage.game(dec.game) is None:
                problems.append(Problem(f"{path}.game", _("stage %(stage)s has no game %(number)s",
                                                          stage=stage.key, number=dec.game)))
            if dec.team is not None and dec.team not in self.all_teams:
                problems.append(Problem(f"{path}.team", _unknown_team(dec.team)))
            if dec.player is not None and dec.player not in self.players:
                problems.append(Problem(f"{path}.player", _unknown_player(dec.player)))
            for oi, name in enumerate(dec.order):
                if name not in self.all_teams and name not in self.players:
                    problems.append(Problem(f"{path}.order[{oi}]", _("unknown team or player %(name)s",
                                                                     name=repr(name))))

    def appeals(self) -> None:
        problems = self.problems
        facts = self.facts
        for i, ap in enumerate(facts.appeals):
            path = f"appeals[{i}]"
            stage = self.stage(path, ap.stage)
            if ap.team is not None and ap.team not in self.all_teams:
                problems.append(Problem(f"{path}.team", _unknown_team(ap.team)))
            for ci, team in enumerate(ap.credited_teams):
                if team not in self.all_teams:
                    problems.append(Problem(f"{path}.credited_teams[{ci}]", _unknown_team(team)))
            if ap.kind in ("removal", "accept_answer") and ap.tour is not None:
                self.question(path, ap, stage or (facts.stages[0] if facts.stages else None))
            if ap.kind == "decision" and ap.decision is not None and ap.decision > len(facts.decisions):
                problems.append(Problem(f"{path}.decision", _("there is no decision %(number)s", number=ap.decision)))
            if ap.kind == "penalty" and ap.penalty is not None and ap.penalty > len(facts.penalties):
                problems.append(Problem(f"{path}.penalty", _("there is no penalty %(number)s", number=ap.penalty)))

    def question(self, path: str, ap: Appeal, stage: Stage | None) -> None:
        """A ChGK appeal's tour and question exist (CHGK-20)."""
        tour = next((t for t in stage.tours if t.number == ap.tour), None) if stage else None
        if tour is None:
            self.problems.append(Problem(f"{path}.tour", _("unknown tour %(tour)s", tour=ap.tour)))
        elif ap.question is not None and ap.question > tour.questions:
            self.problems.append(Problem(f"{path}.question", _("tour %(tour)s has %(questions)s questions",
                                                               tour=ap.tour, questions=tour.questions)))


def replacement_problems(facts: TournamentFacts, only: int | None = None) -> list[Problem]:
    """A ``partly`` verdict's changed decision is judged as the decision it replaces would be, in its place.

    The references and the ruleset's refusals of ``decisions[i]`` with the replacement there (a known code,
    CB-15; the stage's judges, FL-0; ...) are reported at ``appeals[j].replacement``. ``only``: just the
    appeal at that position.
    """
    problems: list[Problem] = []
    ruleset = rulesets.get(facts.ruleset)
    for j, appeal in enumerate(facts.appeals):
        if appeal.replacement is None or (only is not None and j != only):
            continue
        if isinstance(appeal.replacement, Penalty):
            problems += _penalty_replacement_problems(facts, j)
            continue
        if appeal.decision is None:
            continue
        position = appeal.decision - 1
        if not 0 <= position < len(facts.decisions):
            continue  # check_references reports the missing decision
        decisions = list(facts.decisions)
        decisions[position] = replace(appeal.replacement, index=appeal.decision)
        others = tuple(replace(a, verdict="rejected", replacement=None) if i == j else a
                       for i, a in enumerate(facts.appeals))
        placed = replace(facts, decisions=tuple(decisions), appeals=others)
        prefix = f"decisions[{position}]"
        for problem in check_references(placed) + list(ruleset.validate(placed)):
            if problem.path == prefix or problem.path.startswith(prefix + ".") or problem.path.startswith(prefix + "["):
                problems.append(Problem(f"appeals[{j}].replacement{problem.path[len(prefix):]}", problem.message))
    return problems


def _penalty_replacement_problems(facts: TournamentFacts, j: int) -> list[Problem]:
    """A ``partly`` verdict's changed penalty (FL-19) is judged as the penalty it replaces would be, in its place;
    its refusals are reported at ``appeals[j].replacement``."""
    appeal = facts.appeals[j]
    position = (appeal.penalty or 0) - 1
    if not 0 <= position < len(facts.penalties) or not isinstance(appeal.replacement, Penalty):
        return []  # check_references reports the missing penalty
    penalties = list(facts.penalties)
    penalties[position] = appeal.replacement
    others = tuple(replace(a, verdict="rejected", replacement=None) if i == j else a
                   for i, a in enumerate(facts.appeals))
    placed = replace(facts, penalties=tuple(penalties), appeals=others)
    prefix = f"penalties[{position}]"
    problems = []
    for problem in check_references(placed) + list(rulesets.get(facts.ruleset).validate(placed)):
        if problem.path == prefix or problem.path.startswith(prefix + ".") or problem.path.startswith(prefix + "["):
            problems.append(Problem(f"appeals[{j}].replacement{problem.path[len(prefix):]}", problem.message))
    return problems
