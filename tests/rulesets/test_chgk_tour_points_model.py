"""Ruleset chgk_tour_points against a deliberately naive second reading of the spec, on random seasons.

``reference_export`` restates CHGK-10..CHGK-17 and CHGK-21/22 as directly as
possible on the raw JSON document (no shared code with the ruleset); random
seasons with absences, disputed answers, jury removals, appeals of every kind
and verdict, and a withdrawal must export the same table.
"""

from __future__ import annotations

import datetime as dt
from fractions import Fraction
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rulesets.base import round2
from tests.rulesets.test_chgk_tour_points import LATE, MSK, NAMES, START, export, season_doc, tour_doc

SMALL = [10, 8, 6, 5, 4, 3, 2, 1]
LARGE = [15, 12, 10, 8, 7, 6, 5, 4, 3, 2, 1]


def _effective_masks(doc: dict[str, Any], tour: dict[str, Any], left: set[str]) -> dict[str, list[str]]:
    masks = {team: list(mask) for team, mask in tour.get("masks", {}).items() if team not in left}
    appeals = [a for a in doc.get("appeals", []) if a["tour"] == tour["number"] and a.get("verdict") == "accepted"]
    for appeal in appeals:
        if appeal["kind"] == "removal":
            for mask in masks.values():
                mask[appeal["question"] - 1] = "X"
    for appeal in appeals:
        if appeal["kind"] == "accept_answer":
            for team in set(appeal["credited_teams"]) | {appeal["team"]}:
                if team in masks and masks[team][appeal["question"] - 1] != "X":
                    masks[team][appeal["question"] - 1] = "1"
    return masks


def reference_export(doc: dict[str, Any], now: dt.datetime) -> tuple[bool, list[tuple]]:
    teams = [t["name"] for t in doc["teams"]]
    n = len(teams)
    table = LARGE if n >= 13 else SMALL
    tours = doc["stages"][0]["tours"]
    played = [t for t in tours if t.get("masks") or t.get("absent")]
    withdrawn = {w["team"] for w in doc.get("withdrawals", [])}
    left = {team for team in withdrawn if 2 * sum(1 for t in played if team in t.get("masks", {})) < n}
    totals = {team: [Fraction(0), 0, 0] for team in teams if team not in left}
    for tour in played:
        masks = _effective_masks(doc, tour, left)
        correct = {team: mask.count("1") for team, mask in masks.items()}
        for team, count in correct.items():
            if count == 0:
                continue
            better = sum(1 for c in correct.values() if c > count)
            equal = sum(1 for c in correct.values() if c == count)
            places = range(better, better + equal)
            totals[team][0] += Fraction(sum(table[p] for p in places if p < len(table)), equal)
            totals[team][1] += count
        for q in range(tour["questions"]):
            if any(mask[q] == "X" for mask in masks.values()):
                continue
            answered = [team for team, mask in masks.items() if mask[q] == "1"]
            for team in answered:
                totals[team][2] += len(masks) - len(answered) + 1
    hosted = {t.get("host") for t in played}
    planned = n - sum(1 for team in withdrawn if team not in hosted)
    windows = [dt.datetime.combine(dt.date.fromisoformat(t["played_on"]) + dt.timedelta(days=4), dt.time(0, 0),
                                   tzinfo=MSK) for t in played]
    final = (len(played) >= planned and all(a.get("verdict") for a in doc.get("appeals", []))
             and all(now >= w for w in windows))
    keys = {team: (-v[0], -v[1], -v[2]) for team, v in totals.items()}
    out = []
    for team in sorted(totals, key=lambda t: (keys[t], t)):
        rank = 1 + sum(1 for other in totals if keys[other] < keys[team])
        status = "withdrawn" if team in withdrawn else ("winner" if final and rank == 1 else "active")
        out.append((rank, team, round2(totals[team][0]), status, totals[team][1], totals[team][2]))
    return final, out


@st.composite
def seasons(draw):
    """A valid random season document and a moment to compute it at."""
    n = draw(st.integers(min_value=2, max_value=14))
    names = NAMES[:n]
    hosts = draw(st.permutations(names))
    withdrawal = None
    if draw(st.booleans()):
        team = draw(st.sampled_from(names))
        after = draw(st.integers(min_value=0, max_value=n))
        if hosts.index(team) >= after:  # it never hosted: its tour goes last and is never played
            hosts = [h for h in hosts if h != team] + [team]
            after = min(after, n - 1)
        withdrawal = (team, after)
    played_count = draw(st.integers(min_value=0, max_value=n - 1 if withdrawal and hosts[-1] == withdrawal[0] else n))
    tours, appeals = [], []
    for number in range(1, n + 1):
        host = hosts[number - 1]
        if number > played_count:
            if draw(st.booleans()):
                tours.append(tour_doc(number, host))
            continue
        removed = draw(st.sets(st.integers(min_value=0, max_value=7), max_size=2))
        masks, absent = {}, []
        for team in names:
            if team == host or (withdrawal and team == withdrawal[0] and number > withdrawal[1]):
                continue
            if draw(st.integers(min_value=0, max_value=9)) == 0:
                absent.append(team)
                continue
            marks = draw(st.lists(st.sampled_from("1100?"), min_size=8, max_size=8))
            masks[team] = "".join("X" if q in removed else m for q, m in enumerate(marks))
        tours.append(tour_doc(number, host, masks, absent=absent))
        filed = set()  # roles.md: one appeal per team, question and kind (a second one is refused)
        for _ in range(draw(st.integers(min_value=0, max_value=2)) if masks else 0):
            appellant = draw(st.sampled_from(sorted(masks)))
            kind = draw(st.sampled_from(["removal", "accept_answer"]))
            verdict = draw(st.sampled_from(["accepted", "rejected", None]))
            question = draw(st.integers(min_value=1, max_value=8))
            if (appellant, question, kind) in filed:
                continue
            filed.add((appellant, question, kind))
            appeal = {"stage": "season", "tour": number, "question": question,
                      "team": appellant, "kind": kind,
                      "filed_at": f"{(START + dt.timedelta(days=7 * number + 3)).isoformat()}T23:59:59+04:00"}
            if verdict:
                appeal["verdict"] = verdict
            if kind == "accept_answer" and verdict == "accepted":
                appeal["credited_teams"] = draw(st.lists(st.sampled_from(sorted(masks)), min_size=1, unique=True))
            appeals.append(appeal)
    withdrawals = None
    if withdrawal:
        day = START + dt.timedelta(days=7 * withdrawal[1] + 1)
        withdrawals = [{"team": withdrawal[0], "at": f"{day.isoformat()}T10:00:00+04:00"}]
    doc = season_doc(names, tours, appeals=appeals, withdrawals=withdrawals)
    moment = draw(st.sampled_from([LATE, dt.datetime.combine(START + dt.timedelta(days=7 * played_count + 3),
                                                             dt.time(23, 0), tzinfo=MSK)]))
    return doc, moment


@settings(max_examples=100, deadline=None)
@given(seasons())
def test_random_seasons_export_what_a_naive_reading_of_the_spec_gives(case):
    doc, now = case
    out = export(doc, now)
    final, expected = reference_export(doc, now)
    assert out["final"] == final
    got = [(r["rank"], r["team"], r["points"], r["status"], r["tiebreaks"]["correct_answers"],
            r["tiebreaks"]["rating_sum"]) for r in out["teams"]]
    assert got == expected
