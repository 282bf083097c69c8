"""Demo documents built in code (seeded): a realistic ChGK season with the usual incidents."""

from __future__ import annotations

import datetime as dt
from typing import Any

from tournaments.synthetic import chgk_season


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
