"""Seeded synthetic tournaments as interchange documents (tests, benchmarks, demo).

One generator per ruleset; each writes a document that
``rulesets.interchange.parse_document`` accepts, and the same seed gives the
same document:

- ``mafia_league(games, teams, seed, groups=1)``: a ``family_league`` final of any size (a 10,000-game league
  has about 150,000 seats with 15 teams), or a qualifying stage of ``groups`` groups;
- ``chgk_season(teams, tours, seed)``: a ``chgk_tour_points`` season (60 teams
  x 60 tours is the issue's large case);
- ``class_balanced_tournament(seed, stages)``: the 14-team ``class_balanced``
  tournament through 1..3 stages, on the tables CB-5..CB-7 demand (drawn by
  ``rulesets.class_balanced.schedule`` when present), the field of each stage
  as the ruleset's cut leaves it (CB-12);
- ``elimination_gp_stage(seed)`` / ``elimination_gp_series(stages, seed)``:
  ``elimination_gp`` qualifying stages of 54 players drawn into 9 teams of 6
  (GP-8), played tour by tour until 3 teams are out (GP-9..GP-13).

``generate(ruleset, size, seed)`` picks the generator by ruleset key
(``benchmarks/generate.py`` is its command line).
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

from rulesets import class_balanced
from rulesets.class_balanced import schedule
from rulesets.elimination_gp.draw import draw_teams
from rulesets.facts import SIDE_OF_ROLE
from rulesets.interchange import parse_document

MSK = dt.timezone(dt.timedelta(hours=3))


def _mafia_roles(count: int, rng: random.Random, maniac: bool) -> list[str]:
    mafia = max(1, count // 4)
    roles = ["don"] + ["mafia"] * (mafia - 1) + ["commissar", "doctor"]
    if maniac and count >= 10:
        roles.append("maniac")
    roles += ["civilian"] * (count - len(roles))
    rng.shuffle(roles)
    return roles[:count]


def mafia_league(games: int, teams: int = 15, seed: int = 1, players_per_team: int = 8,
                 slug: str | None = None, groups: int = 1) -> dict[str, Any]:
    """A family_league stage of ``games`` games, one seat per team of the game's group in each game.

    ``groups == 1``: the final, one group "Ф" of every team. ``groups > 1``: a qualifying stage of that many
    groups ("1", "2", ...; the teams dealt to them in turn), the games going round the groups, each seating
    every team of its group: ``mafia_league(10_000, teams=140, groups=7, players_per_team=100)`` is the big
    league an import is measured on (140 families of 100 players, 7 groups of 20, 200,000 seats).
    """
    rng = random.Random(seed)
    names = [f"Fam{i:02d}" for i in range(1, teams + 1)]
    team_docs = [{"name": n, "captain": f"{n}-p1", "players": [f"{n}-p{j}" for j in range(1, players_per_team + 1)]}
                 for n in names]
    start = dt.datetime(2014, 9, 1, 19, 0, tzinfo=MSK)
    if groups > 1:
        group_names = [str(i) for i in range(1, groups + 1)]
        members = {g: names[i::groups] for i, g in enumerate(group_names)}
    else:
        group_names, members = ["Ф"], {"Ф": names}
    game_docs = []
    for number in range(1, games + 1):
        group = group_names[(number - 1) % len(group_names)]
        seated = members[group]
        roles = _mafia_roles(len(seated), rng, maniac=True)
        outcome = rng.choice(["civilians", "civilians", "mafia", "draw", "maniac"])
        days = rng.randint(1, 7)
        seats = []
        for team, role in zip(seated, roles):
            timed_out = rng.random() < 0.05
            seats.append({
                "player": f"{team}-p{rng.randint(1, players_per_team)}", "team": team, "role": role,
                "stats": rng.randint(150, 450), "timed_out": timed_out,
                "days_played": rng.randint(0, days) if timed_out else days,
                "maniac_kills": rng.randint(0, 4) if role == "maniac" else 0,
                "in_final_phase": rng.random() < 0.5,
            })
        game: dict[str, Any] = {"number": number}
        if groups > 1:
            game["group"] = group
        in_group = (number - 1) // len(group_names) + 1
        game.update({
            "round": (in_group + 1) // 2,
            "scheduled_at": (start + dt.timedelta(hours=3 * in_group, minutes=5 * group_names.index(group))
                             ).isoformat(),
            "status": "played", "outcome": outcome, "game_days": days, "seats": seats,
        })
        game_docs.append(game)
    key = "qualifying" if groups > 1 else "final"
    return {
        "format": "tournament-portal/1",
        "tournament": {"slug": slug or f"synthetic-league-{games}-{seed}", "name": f"Synthetic league {games}",
                       "ruleset": "family_league", "timezone": "Europe/Moscow", "starts_on": "2014-09-01",
                       "settings": {"max_games_per_player": 10 ** 6}},
        "teams": team_docs,
        "stages": [{"key": key, "groups": [{"name": g, "teams": members[g]} for g in group_names],
                    "games": game_docs}],
    }


def chgk_season(teams: int = 12, tours: int | None = None, seed: int = 1, questions: int = 8,
                slug: str | None = None) -> dict[str, Any]:
    """A ChGK season: every team hosts one tour (CHGK-7); ``tours`` defaults to all of them."""
    rng = random.Random(seed)
    names = [f"Team{i:02d}" for i in range(1, teams + 1)]
    strength = {n: rng.uniform(0.15, 0.8) for n in names}
    hosts = names[:]
    rng.shuffle(hosts)
    tour_docs = []
    for number, host in enumerate(hosts[: tours if tours is not None else teams], start=1):
        masks = {}
        for team in names:
            if team == host:
                continue
            masks[team] = "".join("1" if rng.random() < strength[team] else "0" for _ in range(questions))
        tour_docs.append({"number": number, "host": host,
                          "played_on": (dt.date(2013, 2, 7) + dt.timedelta(days=7 * number)).isoformat(),
                          "questions": questions, "masks": masks})
    return {
        "format": "tournament-portal/1",
        "tournament": {"slug": slug or f"synthetic-chgk-{teams}-{seed}", "name": f"Synthetic ChGK {teams}",
                       "ruleset": "chgk_tour_points", "timezone": "Europe/Moscow", "starts_on": "2013-02-07",
                       "settings": {"questions_per_tour": questions}},
        "teams": [{"name": n, "captain": f"{n} captain", "players": [f"{n} captain"] + [f"{n} {j}" for j in
                                                                                        range(2, 6)]}
                  for n in names],
        "stages": [{"key": "season", "tours": tour_docs}],
    }


# --------------------------------------------------------------------------- class_balanced

CB_CLASS_STATS = {"C": (150, 250), "B": (251, 350), "A": (351, 450)}
CB_STAGE_KEYS = ("stage-1", "stage-2", "stage-3")


def _cb_roles(count: int, rng: random.Random, maniac: bool) -> list[str]:
    """Roles of one class_balanced game: about a quarter mafia, commissar, doctor, a maniac in stages 2-3."""
    mafia = max(2, round(count / 4))
    roles = ["don"] + ["mafia"] * (mafia - 1) + ["commissar", "doctor"]
    if maniac:
        roles.append("maniac")
    roles += ["civilian"] * (count - len(roles))
    rng.shuffle(roles)
    return roles


def _cb_game(number: int, when: dt.datetime, seats: list[tuple[str, str, str]], rng: random.Random,
             maniac: bool) -> dict[str, Any]:
    """One played game; ``seats`` are (team, player, class) in the order they joined."""
    roles = _cb_roles(len(seats), rng, maniac)
    outcomes = ["civilians", "civilians", "mafia", "mafia", "draw"] + (["maniac"] if maniac else [])
    outcome = rng.choice(outcomes)
    days = rng.randint(2, 6)
    seat_docs = []
    for (team, player, cls), role in zip(seats, roles):
        low, high = CB_CLASS_STATS[cls]
        timed_out = rng.random() < 0.03
        seat_docs.append({
            "player": player, "team": team, "role": role, "stats": rng.randint(low, high),
            "timed_out": timed_out, "days_played": rng.randint(0, days - 1) if timed_out else days,
            "maniac_kills": rng.randint(0, 4) if role == "maniac" else 0,
            "in_final_phase": rng.random() < 0.5,
        })
    return {"number": number, "round": number, "scheduled_at": when.isoformat(), "status": "played",
            "outcome": outcome, "game_days": days, "seats": seat_docs}


def _balanced_classes(games: int, rng: random.Random) -> list[str]:
    """A team's classes over ``games`` games, the same count of each (CB-7), in a random order."""
    classes = [c for c in ("A", "B", "C") for _ in range(games // 3)]
    rng.shuffle(classes)
    return classes


def _cb_at(starts: dt.datetime, stage_index: int, day: int, order: int) -> dt.datetime:
    """A game's start: the stage's week (CB-1), its day, every 90 minutes from 12:00 MSK."""
    return starts + dt.timedelta(days=7 * stage_index + day, minutes=90 * order)


def _cb_order(days: list[int]) -> list[tuple[int, int]]:
    """(day, order within the day) of games listed day by day."""
    out = []
    for index, day in enumerate(days):
        out.append((day, out[-1][1] + 1 if index and days[index - 1] == day else 0))
    return out


def _cb_tables(stage_index: int, teams: list[str], rng: random.Random) -> list[tuple[int, list[str], dict]]:
    """The published table of a stage (CB-2, CB-5, CB-6): per game, in order of play, its day, its teams and
    the class the table gives each team (stage 2 only), from the portal's own seeded generators.
    """
    seed = rng.randrange(2 ** 32)
    if stage_index == 0:
        return [(day, list(members), {}) for day, members in schedule.generate_stage1(teams, seed).games]
    if stage_index == 1:
        return [(day, list(classes), dict(classes)) for day, classes in schedule.generate_stage2(teams, seed).games]
    return [(day, list(members), {}) for day, members in schedule.generate_stage3_calendar(teams, seed).games]


def _cb_stage(stage_index: int, teams: list[str], players: dict[str, list[str]], rng: random.Random,
              starts: dt.datetime) -> list[dict[str, Any]]:
    """The games of a stage played out on its table: in stages 1 and 3 each team spreads its classes 8/8/8
    over its 24 games (CB-7), in stage 2 it plays the class the table gives it (CB-6); a maniac from stage 2
    on (CB-9)."""
    tables = _cb_tables(stage_index, teams, rng)
    own_classes = {team: _balanced_classes(24, rng) for team in teams} if stage_index != 1 else {}
    played = dict.fromkeys(teams, 0)
    games = []
    for (day, order), (_day, members, table_classes) in zip(_cb_order([t[0] for t in tables]), tables):
        seats = []
        for team in members:
            cls = table_classes[team] if table_classes else own_classes[team][played[team]]
            played[team] += 1
            seats.append((team, rng.choice(players[team]), cls))
        rng.shuffle(seats)
        games.append(_cb_game(len(games) + 1, _cb_at(starts, stage_index, day, order), seats, rng,
                              maniac=stage_index > 0))
    return games


def _cb_still_in(document: dict[str, Any], stage_index: int) -> list[str]:
    """The teams still in after stage ``stage_index`` (0-based), as the ruleset decides (CB-12)."""
    facts = parse_document(document)
    return list(class_balanced.course(facts, stage_index).fields[stage_index + 1])


def class_balanced_tournament(seed: int = 1, stages: int = 3, slug: str | None = None,
                              players_per_team: int = 7) -> dict[str, Any]:
    """A class_balanced tournament of 14 teams played through ``stages`` (1..3) stages (CB-1..CB-7).

    Each stage is played on the table the portal would publish for it (``_cb_tables``: the portal's
    ``rulesets.class_balanced.schedule`` when it is there); every stage is complete and class-balanced,
    so nobody is disqualified; the teams of stages 2 and 3 are those the ruleset keeps after the cut (CB-12).
    """
    if not 1 <= stages <= 3:
        raise ValueError("class_balanced has 3 stages")
    rng = random.Random(seed)
    names = [f"CB{i:02d}" for i in range(1, 15)]
    players = {n: [f"{n}-p{j}" for j in range(1, players_per_team + 1)] for n in names}
    starts = dt.datetime(2015, 3, 2, 12, 0, tzinfo=MSK)
    document: dict[str, Any] = {
        "format": "tournament-portal/1",
        "tournament": {"slug": slug or f"synthetic-cb-{stages}-{seed}", "name": f"Synthetic class-balanced {seed}",
                       "ruleset": "class_balanced", "timezone": "Europe/Moscow", "starts_on": "2015-03-02"},
        "teams": [{"name": n, "captain": players[n][0], "players": players[n]} for n in names],
        "stages": [],
    }
    field = names
    for index in range(stages):
        if index:
            field = _cb_still_in(document, index - 1)
        document["stages"].append({"key": CB_STAGE_KEYS[index],
                                   "games": _cb_stage(index, field, players, rng, starts)})
    return document


# --------------------------------------------------------------------------- elimination_gp

GP_STAGE_KEYS = ("qualifying-1", "qualifying-2", "qualifying-3", "qualifying-4", "qualifying-5")


def _gp_roles(count: int, rng: random.Random) -> list[str]:
    mafia = 2 if count >= 6 else 1
    roles = ["don"] + ["mafia"] * (mafia - 1) + ["commissar"]
    if count >= 6:
        roles.append("doctor")
    roles += ["civilian"] * (count - len(roles))
    rng.shuffle(roles)
    return roles[:count]


def _gp_stage(stage_key: str, stage_number: int, rng: random.Random, starts: dt.datetime,
              omon_from: int = 21, teams_out_to_finish: int = 3) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One stage played out: 54 players, 9 teams of 6 drawn 2 per basket (GP-8), tours until 3 teams are out.

    Returns the stage document and the players list (nick, level). The simulation
    applies GP-9..GP-13 itself, so no eliminated player plays a later game.
    """
    nicks = [f"S{stage_number}P{i:02d}" for i in range(1, 55)]
    levels = {nick: rng.randint(1, 30) for nick in nicks}
    ranked = sorted(nicks, key=lambda n: (-levels[n], n))
    seed_text = f"synthetic-{stage_key}-{rng.randrange(10 ** 9)}"
    drawn = draw_teams([ranked[0:18], ranked[18:36], ranked[36:54]], seed_text)
    team_names = [f"GP{i:02d}" for i in range(1, len(drawn) + 1)]
    remaining = {team: list(players) for team, players in zip(team_names, drawn)}
    out: set[str] = set()
    games = []
    tour = 0
    while len(out) < teams_out_to_finish and tour < 500:
        tour += 1
        in_play = [t for t in team_names if t not in out]
        absent: dict[str, str] = {}
        for team in in_play:
            if len(in_play) - len(absent) > 4 and rng.random() < 0.04:
                absent[team] = rng.choice(remaining[team])
        seated = [(team, rng.choice(remaining[team])) for team in in_play if team not in absent]
        roles = _gp_roles(len(seated), rng)
        outcome = rng.choices(["civilians", "mafia", "draw"], weights=[50, 38, 12])[0]
        omon = outcome == "draw"
        days = rng.randint(2, 7)
        game: dict[str, Any] = {
            "number": tour, "round": tour,
            "scheduled_at": (starts + dt.timedelta(days=tour)).isoformat(),
            "status": "played", "outcome": outcome, "omon": omon, "game_days": days,
            "seats": [{"player": player, "team": team, "role": role} for (team, player), role in zip(seated, roles)],
        }
        if absent:
            game["absent_teams"] = list(absent)
            game["no_show_eliminated"] = dict(absent)
        games.append(game)
        for team, player in absent.items():
            remaining[team].remove(player)
        for (team, player), role in zip(seated, roles):
            side = SIDE_OF_ROLE[role]
            if omon:
                lost = tour >= omon_from and side == "civilians"
            else:
                lost = side != outcome
            if lost:
                remaining[team].remove(player)
        out |= {team for team in in_play if not remaining[team]}
    stage = {"key": stage_key, "seed": seed_text,
             "teams": [{"name": name, "captain": players[0], "players": players}
                       for name, players in zip(team_names, drawn)],
             "games": games}
    return stage, [{"nick": n, "level": levels[n]} for n in nicks]


def elimination_gp_series(stages: int = 1, seed: int = 1, slug: str | None = None) -> dict[str, Any]:
    """An elimination Grand Prix series of ``stages`` (1..5) qualifying stages, each played to its end."""
    if not 1 <= stages <= len(GP_STAGE_KEYS):
        raise ValueError("an elimination_gp series has 1..5 qualifying stages")
    rng = random.Random(seed)
    stage_docs = []
    players: list[dict[str, Any]] = []
    for index in range(stages):
        starts = dt.datetime(2013, 5, 6, 21, 0, tzinfo=MSK) + dt.timedelta(days=60 * index)
        stage, stage_players = _gp_stage(GP_STAGE_KEYS[index], index + 1, rng, starts)
        stage_docs.append(stage)
        players += stage_players
    return {
        "format": "tournament-portal/1",
        "tournament": {"slug": slug or f"synthetic-gp-{stages}-{seed}", "name": f"Synthetic Grand Prix {seed}",
                       "ruleset": "elimination_gp", "timezone": "Europe/Moscow", "starts_on": "2013-05-06",
                       "settings": {"extra_indicator": "points"}},
        "players": players,
        "stages": stage_docs,
    }


def elimination_gp_stage(seed: int = 1, slug: str | None = None) -> dict[str, Any]:
    """One qualifying stage of the elimination Grand Prix: 54 players, 9 teams of 6, tours until 3 teams are out."""
    return elimination_gp_series(stages=1, seed=seed, slug=slug)


# --------------------------------------------------------------------------- by ruleset

RULESET_SIZES: dict[str, str] = {
    "family_league": "games of the final (15 teams, one seat each: about 15 seats a game)",
    "chgk_tour_points": "teams; each hosts one tour, so N teams x N tours",
    "class_balanced": "stages played (1..3) of the 14-team tournament",
    "elimination_gp": "qualifying stages (1..5) of 54 players each",
}
DEFAULT_SIZES = {"family_league": 1000, "chgk_tour_points": 60, "class_balanced": 3, "elimination_gp": 1}


GENERATORS = {
    "family_league": lambda size, seed, slug: mafia_league(games=size, seed=seed, slug=slug),
    "chgk_tour_points": lambda size, seed, slug: chgk_season(teams=size, seed=seed, slug=slug),
    "class_balanced": lambda size, seed, slug: class_balanced_tournament(seed=seed, stages=size, slug=slug),
    "elimination_gp": lambda size, seed, slug: elimination_gp_series(stages=size, seed=seed, slug=slug),
}


def generate(ruleset: str, size: int | None = None, seed: int = 1, slug: str | None = None) -> dict[str, Any]:
    """A synthetic document of ``ruleset``; ``size`` means what ``RULESET_SIZES`` says."""
    size = DEFAULT_SIZES[ruleset] if size is None else size
    generator = GENERATORS.get(ruleset)
    if generator is not None:
        return generator(size, seed, slug)
    raise ValueError(f"unknown ruleset {ruleset!r}; one of {', '.join(RULESET_SIZES)}")
