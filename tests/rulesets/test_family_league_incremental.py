"""After a change of the facts the family league is judged incrementally
(``rulesets.family_league.ledger``); the standings must always equal the ones computed from scratch.

The edits are those a portal makes: one game's result saved again (the other games keep their objects, as the
loader's game cache hands them), a game added or removed, now and then a change the ledger cannot bound (the
settings, a decision). The tournaments are small but dense in what the incremental path must get right: a
low FL-5 game limit (2..4 games) with few players per team, foreign and ineligible players, two players of a
team in one game, fake passports (FL-6), not held games with absent teams (FL-10), timeouts with several
``game_days`` (the common denominator, FL-14), both FL-17 fine counters, and two stages (FL-5 counts across
them).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import random

from hypothesis import given, settings
from hypothesis import strategies as st

from rulesets.facts import Decision, Game, Group, Seat, Stage, Team, TournamentFacts
from rulesets.family_league import ledger
from rulesets.family_league.standings import standings_of
from rulesets.interchange import export_standings
from scoring.serialize import standings_details

NOW = dt.datetime(2015, 1, 1, tzinfo=dt.UTC)
TEAMS = [f"Fam{i:02d}" for i in range(1, 6)]
GROUPS = {"A": TEAMS[:3], "B": TEAMS[3:]}
ROLES = ("civilian", "civilian", "commissar", "doctor", "mafia", "don", "maniac")
START = dt.datetime(2014, 9, 1, 19, tzinfo=dt.UTC)


def _seat(rng: random.Random, teams: list[str], game_days: int | None) -> Seat:
    team = rng.choice(teams if rng.random() < 0.9 else TEAMS)  # now and then a team of another group (FL-15.4)
    roll = rng.random()
    if roll < 0.8:
        player = f"{team}-p{rng.randint(1, 3)}"
    elif roll < 0.9:
        player = f"{rng.choice(TEAMS)}-p1"  # another team's player (FL-15.2)
    else:
        player = "stranger"
    role = rng.choice(ROLES)
    timed_out = rng.random() < 0.2
    days = rng.randint(0, game_days or 0) if timed_out else game_days
    return Seat(player=player, team=team, role=role, timed_out=timed_out, days_played=days,
                maniac_kills=rng.randint(0, 3) if role == "maniac" else 0, fake_passport=rng.random() < 0.05)


def _game(rng: random.Random, number: int, group: str | None) -> Game:
    teams = GROUPS[group] if group else TEAMS
    status = rng.choice(("played", "played", "played", "played", "technical", "not_held", "scheduled"))
    when = START + dt.timedelta(hours=3 * number)
    if status == "not_held":
        return Game(number=number, status=status, group=group, scheduled_at=when,
                    absent_teams=tuple(rng.sample(teams, rng.randint(0, len(teams)))))
    if status == "scheduled":
        return Game(number=number, status=status, group=group, scheduled_at=when)
    game_days = rng.choice((None, 2, 3, 5))
    seats, seen = [], set()
    for _ in range(rng.randint(0, len(teams) + 1)):
        seat = _seat(rng, teams, game_days)
        if seat.player not in seen:  # one seat per player and game (the ruleset refuses a second)
            seen.add(seat.player)
            seats.append(seat)
    return Game(number=number, status=status, group=group, scheduled_at=when, game_days=game_days,
                outcome=rng.choice(("civilians", "mafia", "maniac", "draw")), seats=tuple(seats))


def _facts(rng: random.Random) -> TournamentFacts:
    qualifying = tuple(_game(rng, n, rng.choice(tuple(GROUPS))) for n in range(1, rng.randint(2, 8)))
    final = tuple(_game(rng, n, None) for n in range(1, rng.randint(2, 8)))
    return TournamentFacts(
        slug=f"incremental-{rng.random()}", name="incremental", ruleset="family_league",
        timezone="Europe/Moscow", starts_on=dt.date(2014, 9, 1),
        settings={"max_games_per_player": rng.randint(2, 4), "fine_counter": rng.choice(("team", "tournament"))},
        teams=tuple(Team(name=t, captain=f"{t}-p1", players=(f"{t}-p1", f"{t}-p2", f"{t}-p3")) for t in TEAMS),
        stages=(Stage(key="qualifying", groups=tuple(Group(name=g, teams=tuple(t)) for g, t in GROUPS.items()),
                      games=qualifying),
                Stage(key="final", groups=(Group(name="Ф", teams=tuple(TEAMS)),), games=final)),
    )


def _edit(rng: random.Random, facts: TournamentFacts) -> TournamentFacts:
    """One change of the facts; the games it does not touch keep their objects."""
    roll = rng.random()
    if roll < 0.06:
        return dataclasses.replace(facts, settings={**facts.settings,
                                                     "max_games_per_player": rng.randint(2, 4)})
    if roll < 0.1:
        stage = rng.choice(facts.stages)
        if not stage.games:
            return facts
        decision = Decision(index=len(facts.decisions) + 1, kind="technical_result", stage=stage.key,
                            game=rng.choice(stage.games).number, outcome="mafia")
        return dataclasses.replace(facts, decisions=(*facts.decisions, decision))
    index = rng.randrange(len(facts.stages))
    stage = facts.stages[index]
    games = list(stage.games)
    group = (lambda: rng.choice(tuple(GROUPS))) if stage.key == "qualifying" else (lambda: None)
    if roll < 0.25 or not games:
        number = max((g.number for g in games), default=0) + 1
        games.insert(rng.randint(0, len(games)), _game(rng, number, group()))  # the loader's order is not play's
    elif roll < 0.35:
        games.pop(rng.randrange(len(games)))
    else:
        position = rng.randrange(len(games))
        games[position] = _game(rng, games[position].number, games[position].group)
    stages = list(facts.stages)
    stages[index] = dataclasses.replace(stage, games=tuple(games))
    return dataclasses.replace(facts, stages=tuple(stages))


def _tables(facts: TournamentFacts, analysis: ledger.LeagueAnalysis) -> list:
    out = [[v.as_dict() for v in analysis.violations], analysis.seats, analysis.denominator]
    for stage_key in ("qualifying", "final", None):
        computed = standings_of(facts, stage_key, NOW, analysis)
        out.append((export_standings(facts, computed), standings_details(computed)))
    return out


@settings(max_examples=40, deadline=None)
@given(st.randoms(use_true_random=False), st.integers(5, 15))
def test_incremental_tables_equal_the_tables_from_scratch_on_random_edits(rng: random.Random, edits: int):
    """(FL-5, FL-10, FL-13..FL-17): the ledger updated edit after edit gives, after every edit,
    the violations, seats and tables (every stage and the latest) computed from scratch."""
    _follow_edits(rng, edits)


def _follow_edits(rng: random.Random, edits: int) -> int:
    """Edit random facts ``edits`` times, comparing the kept ledger with one from scratch after each edit;
    returns how many edits the ledger followed incrementally."""
    facts = _facts(rng)
    kept = ledger.Ledger(facts)
    updated = 0
    for _ in range(edits):
        facts = _edit(rng, facts)
        if kept.update(facts):
            updated += 1
        else:
            kept = ledger.Ledger(facts)
        assert _tables(facts, kept.analysis()) == _tables(facts, ledger.analyse_from_scratch(facts))
    return updated


def test_most_edits_of_random_leagues_are_followed_incrementally():
    """The property test above runs the incremental path (a few random edit sequences may
    legitimately rebuild at every edit: a new game_days, a settings change)."""
    updated = sum(_follow_edits(random.Random(seed), 15) for seed in range(8))
    assert updated > 8 * 15 / 2


def test_a_saved_result_is_judged_incrementally_and_a_settings_change_is_not():
    """A changed game is judged again alone; a change the ledger cannot bound rebuilds it."""
    rng = random.Random(7)
    facts = _facts(rng)
    kept = ledger.Ledger(facts)
    stage = facts.stages[1]
    changed = dataclasses.replace(stage.games[0], outcome="draw" if stage.games[0].outcome != "draw" else "mafia")
    edited = dataclasses.replace(facts, stages=(facts.stages[0], dataclasses.replace(
        stage, games=(changed, *stage.games[1:]))))
    untouched = {n: r for n, r in kept.records[0].items()}
    assert kept.update(edited)
    assert all(kept.records[0][n] is record for n, record in untouched.items())  # the other stage: not judged
    assert kept.records[1][changed.number].game is changed
    assert not kept.update(dataclasses.replace(edited, settings={**edited.settings, "fine_counter": "tournament"
                                                                 if edited.settings["fine_counter"] == "team"
                                                                 else "team"}))


def test_the_kept_ledger_follows_the_tournament_through_analyse():
    """``analyse`` keeps one ledger per tournament and updates it; its tables are the scratch ones."""
    rng = random.Random(11)
    ledger.forget()
    facts = _facts(rng)
    ledger.analyse(facts)
    for _ in range(10):
        facts = _edit(rng, facts)
        assert _tables(facts, ledger.analyse(facts)) == _tables(facts, ledger.analyse_from_scratch(facts))
    ledger.forget()


def test_an_analysis_handed_out_keeps_its_tables_when_the_ledger_moves_on():
    """An update copies the sums it writes (a recompute of the same tournament in another thread
    may still be reading the analysis it was given): the earlier analysis gives the same tables afterwards."""
    rng = random.Random(5)
    facts = _facts(rng)
    kept = ledger.Ledger(facts)
    first = kept.analysis()
    before = _tables(facts, first)
    for _ in range(12):
        kept.update(_edit(rng, kept.facts))
    assert _tables(facts, first) == before


def _sums_as_dicts(sums: ledger.StageSums) -> tuple:
    return (dict(sums.units), dict(sums.seats), dict(sums.points), dict(sums.mafia), dict(sums.uncounted))


@settings(max_examples=60, deadline=None)
@given(st.randoms(use_true_random=False))
def test_the_one_pass_build_adds_the_seats_judging_and_adding_each_game_would(rng: random.Random):
    """(FL-13..FL-15, FL-20): the ledger's build adds a plainly scoring game's seats while it
    judges them, and takes them away again when a later seat of the game turns out not to score plainly (a
    foreign or second player, a fake passport); its sums equal adding every judged game afterwards."""
    facts = _facts(rng)
    for _ in range(rng.randint(0, 6)):
        facts = _edit(rng, facts)
    built = ledger.Ledger(facts)
    for records, sums in zip(built.records, built.sums):
        again = ledger.StageSums()
        for record in records.values():
            again.add(record)
        assert _sums_as_dicts(sums) == _sums_as_dicts(again)


def test_a_game_whose_last_seat_is_foreign_keeps_only_the_sums_of_its_judged_seats():
    """(FL-15.2, FL-15.4): the first seats of a game are added in the one pass, the foreign last
    seat sends the game to the seat-by-seat judgement, and no seat is counted twice or left with an empty entry."""
    seats = (Seat(player="Fam01-p1", team="Fam01", role="mafia", days_played=3),
             Seat(player="Fam02-p1", team="Fam02", role="civilian", days_played=3),
             Seat(player="Fam03-p1", team="Fam03", role="don", days_played=3),
             Seat(player="stranger", team="Fam04", role="doctor", days_played=3))
    game = Game(number=1, status="played", outcome="mafia", group="A", seats=seats, game_days=3,
                scheduled_at=START)
    facts = dataclasses.replace(_facts(random.Random(1)), stages=(
        Stage(key="qualifying", groups=tuple(Group(name=g, teams=tuple(t)) for g, t in GROUPS.items()),
              games=(game,)),))
    sums = ledger.Ledger(facts).sums[0]
    assert set(sums.units) == {"Fam01", "Fam02", "Fam03"} and set(sums.team_mafia()) == {"Fam01", "Fam02", "Fam03", "Fam04"}
    assert {team for team, units in sums.team_mafia().items() if units} == {"Fam01", "Fam03"}
    assert set(sums.seats) == set(sums.points) == set(sums.mafia) == {
        ("Fam01-p1", "Fam01"), ("Fam02-p1", "Fam02"), ("Fam03-p1", "Fam03"), ("stranger", "Fam04")}
    assert sums.seats[("stranger", "Fam04")] == 1 and sums.points[("stranger", "Fam04")] == 0
    assert sums.uncounted == {("stranger", "Fam04"): 1}


def test_forgetting_one_tournament_drops_its_ledger_and_last_analysis_only():
    """``forget(slug)`` (a forced recompute) drops that tournament's kept ledger and, when the last
    analysis is that tournament's, the analysis too; another tournament's ledger stays."""
    ledger.forget()
    rng = random.Random(21)
    first = _facts(rng)
    other = dataclasses.replace(_facts(rng), slug=f"{first.slug}-other")
    ledger.analyse(other)
    ledger.analyse(first)
    kept_other = ledger._kept.ledgers[other.slug]
    ledger.forget(first.slug)
    assert first.slug not in ledger._kept.ledgers and ledger._kept.last is None
    assert ledger._kept.ledgers[other.slug] is kept_other
    ledger.analyse(first)
    ledger.forget(other.slug)
    assert other.slug not in ledger._kept.ledgers and ledger._kept.last[0] is first
    ledger.forget()


def _figures(analysis: ledger.LeagueAnalysis) -> dict:
    return {(key, team): rounds.of(team) for key, rounds in analysis.rounds.items() for team in TEAMS}


def _with_game(facts: TournamentFacts, stage_index: int, game: Game, replace: bool) -> TournamentFacts:
    stage = facts.stages[stage_index]
    games = [g for g in stage.games if not (replace and g.number == game.number)] + [game]
    stages = list(facts.stages)
    stages[stage_index] = dataclasses.replace(stage, games=tuple(games))
    return dataclasses.replace(facts, stages=tuple(stages))


def test_the_figures_per_round_are_carried_over_an_update_and_written_only_where_games_changed():
    """(FL-13, FL-14): after a saved result, and after a new game, the analysis holds each team's
    figures per game already (the earlier lists copied, the judged and the new games' positions written), equal
    to the figures from scratch; the analysis handed out before keeps its own lists."""
    rng = random.Random(3)
    facts = _facts(rng)
    kept = ledger.Ledger(facts)
    first = kept.analysis()
    before = {key: list(figures) for key, figures in _figures(first).items()}
    final = facts.stages[1]
    played = next(g for g in final.games if g.status == "played")
    changed = dataclasses.replace(played, outcome="draw" if played.outcome != "draw" else "mafia")
    new = _game(rng, max(g.number for g in final.games) + 1, None)
    for edited in (_with_game(facts, 1, changed, replace=True), _with_game(_with_game(
            facts, 1, changed, replace=True), 1, new, replace=False)):
        assert kept.update(edited)
        analysis = kept.analysis()
        assert set(analysis.rounds["final"]._by_team) == set(TEAMS)  # carried over, not built when read
        assert _figures(analysis) == _figures(ledger.analyse_from_scratch(edited))
        assert _tables(edited, analysis) == _tables(edited, ledger.analyse_from_scratch(edited))
    assert {key: list(figures) for key, figures in _figures(first).items()} == before
    assert len(analysis.rounds["final"].of(TEAMS[0])) == len(final.games) + 1
