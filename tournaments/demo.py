"""Demo documents built in code (seeded): a realistic ChGK season with the usual incidents."""

from __future__ import annotations

import datetime as dt
import json
import random
from pathlib import Path
from typing import Any

from rulesets import family_league
from rulesets.interchange import parse_document
from tournaments.synthetic import chgk_season, class_balanced_tournament

DEMO_DATA = Path(__file__).resolve().parent / "demo_data"
RECORDED_AFTER = dt.timedelta(hours=3)  # a game's result is in three hours after it was scheduled


def demo_documents() -> list[dict[str, Any]]:
    """The documents the demo loads: the spec's worked examples and the seeded seasons, each as an archive."""
    documents = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(DEMO_DATA.glob("*.json"))]
    documents += [demo_chgk_season(), demo_family_league(), demo_class_balanced()]
    return [as_archive(document) for document in documents]


def as_archive(document: dict[str, Any]) -> dict[str, Any]:
    """``document`` as a tournament entered after it was played: a game's result (played or not held) was recorded three hours
    after it was scheduled, not when the demo is loaded, so appeal windows run from the game's own date (FL-19)
    and a finished league is final."""
    for stage in document.get("stages") or []:
        for game in stage.get("games") or []:
            if game.get("status", "played") != "scheduled" and game.get("scheduled_at") \
                    and not game.get("result_recorded_at"):
                at = dt.datetime.fromisoformat(game["scheduled_at"]) + RECORDED_AFTER
                game["result_recorded_at"] = at.isoformat()
    return document


def demo_chgk_season() -> dict[str, Any]:
    """A 12-team season: ties, a withdrawal, a removed question and an accepted dual (CHGK-17, -21, -22)."""
    document = chgk_season(teams=12, tours=12, seed=2013, slug="demo-chgk-season")
    document["tournament"]["name"] = "Гран-при МУБК (демо)"
    tours = document["stages"][0]["tours"]
    third = tours[2]
    teams = sorted(third["masks"])
    document["appeals"] = [
        {"stage": "season", "tour": 3, "question": 5, "team": teams[0], "kind": "removal",
         "filed_at": _filed(third["played_on"]), "verdict": "accepted"},
        {"stage": "season", "tour": 4, "question": 2, "team": sorted(tours[3]["masks"])[1],
         "kind": "accept_answer", "answer": "Лобачевский", "filed_at": _filed(tours[3]["played_on"]),
         "verdict": "accepted", "credited_teams": sorted(tours[3]["masks"])[1:3]},
    ]
    withdrawing = sorted(tours[-1]["masks"])[0]
    document["withdrawals"] = [{"team": withdrawing, "at": f"{tours[-1]['played_on']}T23:00:00+03:00"}]
    return document


def _filed(played_on: str) -> str:
    day = dt.date.fromisoformat(played_on) + dt.timedelta(days=1)
    return f"{day.isoformat()}T18:00:00+03:00"


def demo_family_league() -> dict[str, Any]:
    """18 families: two qualifying groups of 9 and a final of the top 5 of each (FL-7..FL-12).

    Seeded incidents: timeouts (FL-14), one violation of each kind (FL-15), a
    judge's fair-play penalty (FL-18) and two finalists whose seats mirror each
    other in every final game, so that they share a place (FL-12, FL-21).
    """

    rng = random.Random(2014)
    names = [f"Семья {i:02d}" for i in range(1, 19)]
    groups = {"1": names[:9], "2": names[9:]}
    document: dict[str, Any] = {
        "format": "tournament-portal/1",
        "tournament": {"slug": "demo-family-league", "name": "Турнирные Мастера (демо)", "ruleset": "family_league",
                       "timezone": "Europe/Moscow", "starts_on": "2014-09-01"},
        "teams": [{"name": n, "captain": f"{n}-1", "players": [f"{n}-{j}" for j in range(1, 7)]} for n in names],
        "stages": [{"key": "qualifying", "groups": [{"name": g, "teams": t} for g, t in groups.items()],
                    "games": []}],
    }
    games = document["stages"][0]["games"]
    start = dt.datetime(2014, 9, 1, 19, 0, tzinfo=dt.timezone(dt.timedelta(hours=4)))
    number = 0
    for index in range(20):
        for group, teams in groups.items():
            number += 1
            when = start + dt.timedelta(days=(index // 2) + 2 * ((index // 2) // 5), hours=3 * (index % 2),
                                        minutes=5 * (int(group) - 1))
            games.append(_family_game(rng, number, group, index // 2 + 1, when, teams))
    first = games[4]["seats"]
    first.append({**first[0], "player": first[0]["player"][:-1] + "6", "role": "civilian"})
    games[6]["seats"][1]["team"] = groups["2"][0]
    games[6]["seats"][1]["player"] = f"{groups['2'][0]}-5"
    games[8]["seats"][2]["fake_passport"] = True
    games[10]["seats"].pop(3)
    games.append({"number": number + 1, "group": "1", "round": 11, "status": "not_held",
                  "scheduled_at": (start + dt.timedelta(days=14)).isoformat(), "absent_teams": [groups["1"][5]]})
    document["penalties"] = [{"stage": "qualifying", "game": 12, "team": games[11]["seats"][0]["team"],
                              "player": games[11]["seats"][0]["player"], "kind": "fair_play", "code": "FP-11",
                              "points": "0.3", "decided_at": "2014-09-10T12:00:00+04:00",
                              "text": "Оскорбление игрока в общем чате"}]
    qualifying = family_league.compute(parse_document(document), "qualifying", dt.datetime(2014, 9, 20,
                                                                                           tzinfo=dt.UTC))
    finalists = [row.team for row in qualifying.teams if row.status == "advanced"]
    final_games = []
    final_start = start + dt.timedelta(days=16)
    for index in range(20):
        when = final_start + dt.timedelta(days=(index // 2) + 2 * ((index // 2) // 5), hours=3 * (index % 2))
        game = _family_game(rng, 100 + index, "Ф", index // 2 + 1, when, finalists)
        twin, mirror = game["seats"][0], game["seats"][1]
        game["seats"][1] = {**twin, "player": f"{mirror['team']}-{rng.randint(1, 6)}", "team": mirror["team"]}
        final_games.append(game)
    document["stages"].append({"key": "final", "groups": [{"name": "Ф", "teams": finalists}],
                               "games": final_games})
    return document


def _family_game(rng, number: int, group: str, day: int, when: dt.datetime, teams: list[str]) -> dict[str, Any]:
    roles = ["don", "mafia", "commissar", "doctor", "maniac"] + ["civilian"] * (len(teams) - 5)
    rng.shuffle(roles)
    outcome = rng.choice(["civilians", "civilians", "mafia", "mafia", "draw", "maniac"])
    days = rng.randint(2, 7)
    seats = []
    for team, role in zip(teams, roles):
        timed_out = rng.random() < 0.06
        seats.append({"player": f"{team}-{rng.randint(1, 5)}", "team": team, "role": role,
                      "timed_out": timed_out, "days_played": rng.randint(0, days - 1) if timed_out else days,
                      "maniac_kills": rng.randint(0, 4) if role == "maniac" else 0,
                      "in_final_phase": rng.random() < 0.5})
    return {"number": number, "group": group, "round": day, "scheduled_at": when.isoformat(), "status": "played",
            "outcome": outcome, "game_days": days, "seats": seats}


def demo_class_balanced() -> dict[str, Any]:
    """A complete three-stage tournament on the generated CB-5/CB-6 tables (CB-1..CB-14)."""
    document = class_balanced_tournament(seed=2015, stages=3, slug="demo-class-balanced")
    document["tournament"]["name"] = "Классовый кубок (демо)"
    return document
