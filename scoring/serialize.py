"""JSON-safe figures of a computation that pages show beside the export.

``standings_details`` is what a computation explains and the pages read (``StandingsSnapshot.details``).
``page_summary`` is the small part of it that the tournament page shows (``StandingsSnapshot.summary``):
its size does not grow with the number of games. ``stored_figures`` gives both at once.

A per-round list (``*_by_round``, one value per game of a league) longer than ``ROUNDS_KEPT`` is not stored
(at 10,000 games they were nine tenths of a snapshot and no page lists them): the team's row keeps
instead its sampled chart (``chart``, ``scoring.chart.chart_summary``), which is what the team page draws, and
the round labels are dropped with them. The page summary is computed before, from the whole lists.
"""

from __future__ import annotations

from typing import Any

from rulesets.base import Standings
from rulesets.messages import as_data
from scoring.chart import Cumulated, chart_summary
from tournaments.serialize import jsonable

ROUNDS_KEPT = 200  # longer per-round lists are replaced by their sampled chart when stored


def standings_details(standings: Standings) -> dict[str, Any]:
    """The stored details of a computation (the long per-round lists replaced by their charts)."""
    return stored_figures(standings)[0]


def stored_figures(standings: Standings) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the details to store, the page summary) of a computation."""
    full = _details(standings)
    cumulated: dict[int, Cumulated] = {}  # every team's running totals, computed once for both charts
    summary = page_summary(full, cumulated)
    return _without_long_rounds(full, cumulated), summary


def _details(standings: Standings) -> dict[str, Any]:
    return {
        "teams": [
            {"team": row.team, "rank": row.rank, "group": row.group, "separated_by": row.separated_by,
             "details": _team_figures(row.details)}
            for row in standings.teams
        ],
        "players": [
            {"player": row.player, "rank": row.rank, "details": jsonable(row.details)}
            for row in (standings.players or [])
        ],
        "notes": [as_data(note) for note in standings.notes],
        "details": jsonable(standings.details),
    }


def _team_figures(figures: Any) -> Any:
    """A team row's details made JSON-safe, but for its per-round lists longer than ``ROUNDS_KEPT``: those are
    never stored, only summed into charts (``chart_summary`` adds any numbers), so their 10^4 values per team are
    not looked at one by one."""
    if not isinstance(figures, dict):
        return jsonable(figures)
    return {str(k): v if _long_rounds(k, v) else jsonable(v) for k, v in figures.items()}


def _long_rounds(key: Any, value: Any) -> bool:
    return str(key).endswith(ROUND_LISTS) and isinstance(value, list) and len(value) > ROUNDS_KEPT


def _without_long_rounds(details: dict[str, Any], cumulated: dict[int, Cumulated],
                         ) -> dict[str, Any]:
    extra = details.get("details") if isinstance(details.get("details"), dict) else {}
    rounds = extra.get("rounds") if isinstance(extra.get("rounds"), list) else []
    long_rows = [row for row in details["teams"] if any(_long_rounds(k, v) for k, v in _figures(row).items())]
    if not long_rows and len(rounds) <= ROUNDS_KEPT:
        return details
    teams = []
    for row in details["teams"]:
        figures = _figures(row)
        if row in long_rows:
            kept = {k: v for k, v in figures.items() if not str(k).endswith(ROUND_LISTS)}
            kept["chart"] = chart_summary([(row.get("team"), figures.get("points_by_round") or [])], rounds,
                                          cumulated)
            row = {**row, "details": kept}
        teams.append(row)
    if len(rounds) > ROUNDS_KEPT:
        extra = {k: v for k, v in extra.items() if k != "rounds"}
        extra["rounds_count"] = len(rounds)
    return {**details, "teams": teams, "details": extra}


SUMMARY_VERSION = 1
ROUND_LISTS = "_by_round"  # team details keys ending so hold one value per round (per game in a league)


def page_summary(details: dict[str, Any], cumulated: dict[int, Cumulated] | None = None,
                 ) -> dict[str, Any]:
    """What the tournament page shows of a snapshot's ``details``, with the chart already sampled.

    - ``teams``: each details row (team, rank, group, separated_by) with its ``details`` minus the
      per-round lists (``*_by_round``);
    - ``notes``; ``class_balance`` (class_balanced, CB-7);
    - ``still_in``: players still in per team after each tour (elimination_gp, GP-10..GP-13), or None;
    - ``chart``: ``portal.views.chart.chart_summary`` of the teams' ``points_by_round`` in the order
      the page lists them (group by group), or None.
    Pure: the same details always give the same summary.
    """
    details = details if isinstance(details, dict) else {}
    rows = [row for row in details.get("teams") or [] if isinstance(row, dict)]
    extra = details.get("details") if isinstance(details.get("details"), dict) else {}
    rounds = extra.get("rounds") if isinstance(extra.get("rounds"), list) else []
    teams = []
    for row in rows:
        teams.append({"team": row.get("team"), "rank": row.get("rank"), "group": row.get("group"),
                      "separated_by": row.get("separated_by"),
                      "details": {k: v for k, v in _figures(row).items() if not str(k).endswith(ROUND_LISTS)}})
    by_group: dict[Any, list[dict[str, Any]]] = {}
    for row in rows:
        by_group.setdefault(row.get("group"), []).append(row)
    series = [(row.get("team"), _figures(row).get("points_by_round") or [])
              for group in by_group.values() for row in group]
    return {
        "version": SUMMARY_VERSION,
        "teams": teams,
        "notes": list(details.get("notes") or []),
        "chart": chart_summary(series, rounds, cumulated) if any(values for _team, values in series) else None,
        "class_balance": extra.get("class_balance") or None,
        "still_in": _still_in(rows, rounds),
    }


def _figures(row: dict[str, Any]) -> dict[str, Any]:
    figures = row.get("details")
    return figures if isinstance(figures, dict) else {}


def _still_in(rows: list[dict[str, Any]], rounds: list) -> dict[str, Any] | None:
    """elimination_gp: players still in per team after every tour (a GP stage has a few dozen tours at most)."""
    out = [{"team": row.get("team"), "counts": _figures(row).get("remaining_by_round"),
            "names": _figures(row).get("remaining") or []} for row in rows]
    if not out or all(row["counts"] is None for row in out):
        return None
    return {"tours": rounds, "rows": out}
