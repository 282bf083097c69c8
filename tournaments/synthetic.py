"""Seeded synthetic tournaments as interchange documents (tests, benchmarks, demo).

``mafia_league(games, teams, seed)`` builds a family league final of any size
(a 10,000-game league has about 150,000 seats with 15 teams);
``chgk_season(teams, tours, seed)`` a ChGK season. The same seed gives the
same document.
"""

from __future__ import annotations

import datetime as dt
import random
from typing import Any

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
                 slug: str | None = None) -> dict[str, Any]:
    """A family_league final of ``games`` games, one seat per team in each game."""
    rng = random.Random(seed)
    names = [f"Fam{i:02d}" for i in range(1, teams + 1)]
    team_docs = [{"name": n, "captain": f"{n}-p1", "players": [f"{n}-p{j}" for j in range(1, players_per_team + 1)]}
                 for n in names]
    start = dt.datetime(2014, 9, 1, 19, 0, tzinfo=MSK)
    game_docs = []
    for number in range(1, games + 1):
        roles = _mafia_roles(teams, rng, maniac=True)
        outcome = rng.choice(["civilians", "civilians", "mafia", "draw", "maniac"])
        days = rng.randint(1, 7)
        seats = []
        for team, role in zip(names, roles):
            timed_out = rng.random() < 0.05
            seats.append({
                "player": f"{team}-p{rng.randint(1, players_per_team)}", "team": team, "role": role,
                "stats": rng.randint(150, 450), "timed_out": timed_out,
                "days_played": rng.randint(0, days) if timed_out else days,
                "maniac_kills": rng.randint(0, 4) if role == "maniac" else 0,
                "in_final_phase": rng.random() < 0.5,
            })
        game_docs.append({
            "number": number, "round": (number + 1) // 2,
            "scheduled_at": (start + dt.timedelta(hours=3 * number)).isoformat(),
            "status": "played", "outcome": outcome, "game_days": days, "seats": seats,
        })
    return {
        "format": "tournament-portal/1",
        "tournament": {"slug": slug or f"synthetic-league-{games}-{seed}", "name": f"Synthetic league {games}",
                       "ruleset": "family_league", "timezone": "Europe/Moscow", "starts_on": "2014-09-01",
                       "settings": {"max_games_per_player": 10 ** 6}},
        "teams": team_docs,
        "stages": [{"key": "final", "groups": [{"name": "Ф", "teams": names}], "games": game_docs}],
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
