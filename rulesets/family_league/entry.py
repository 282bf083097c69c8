"""Entry to the family league: player eligibility (FL-3) and the seeded group draw (FL-8).

Pure functions for the portal's registration pages and its beat job.
"""

from __future__ import annotations

import datetime as dt
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from rulesets.facts import Player, TournamentFacts
from rulesets.messages import text as _

JUDGED_BEFORE_START = dt.timedelta(hours=24)


@dataclass(frozen=True)
class BlacklistEntry:
    """``owner`` put ``target`` on their blacklist (a paid service of the site), from ``since`` on."""

    owner: str
    target: str
    since: dt.datetime | None = None


@dataclass(frozen=True)
class EligibilityWarning:
    """A player of a team who fails a requirement of FL-3."""

    team: str
    player: str
    reason: str
    message: str
    other: str | None = None


def judging_moment(start: dt.datetime) -> dt.datetime:
    """The requirements are judged as they stand 24 hours before the official start (FL-3)."""
    return start - JUDGED_BEFORE_START


def eligibility_problems(
    players: Iterable[Player],
    families: Mapping[str, str],
    blacklist: Iterable[BlacklistEntry | tuple],
    start: dt.datetime | None,
    team_rosters: Mapping[str, Sequence[str]],
) -> list[EligibilityWarning]:
    """Every player of every roster failing FL-3, with the reason.

    ``families`` maps a team to its family (a team not listed is its own
    family); ``blacklist`` holds entries (or ``(owner, target[, since])``
    tuples); an entry made after the judging moment (``start`` - 24 h) does
    not count. Reasons: ``membership`` (not a member of the team's family),
    ``banned`` (barred from official tournaments), ``blacklist`` (on a
    blacklist with another player of any participating team, in either
    direction: both players of the pair are flagged).
    """
    facts = {p.nick: p for p in players}
    team_of: dict[str, list[str]] = {}
    for team, roster in team_rosters.items():
        for nick in roster:
            team_of.setdefault(nick, []).append(team)
    warnings: set[EligibilityWarning] = set()
    for team, roster in team_rosters.items():
        family = families.get(team, team)
        for nick in roster:
            player = facts.get(nick)
            if player is None or player.family != family:
                warnings.add(EligibilityWarning(team, nick, "membership", _(
                    "%(player)s is not a member of the family %(family)s (FL-3)", player=nick, family=family)))
            if player is not None and player.banned:
                warnings.add(EligibilityWarning(team, nick, "banned", _(
                    "%(player)s is banned from official tournaments (FL-3)", player=nick)))
    moment = judging_moment(start) if start is not None else None
    for entry in blacklist:
        item = entry if isinstance(entry, BlacklistEntry) else BlacklistEntry(*entry)
        if item.owner == item.target or item.owner not in team_of or item.target not in team_of:
            continue
        if moment is not None and item.since is not None and item.since > moment:
            continue
        for nick, other in ((item.owner, item.target), (item.target, item.owner)):
            for team in team_of[nick]:
                warnings.add(EligibilityWarning(team, nick, "blacklist", _(
                    "%(player)s and %(other)s are on a blacklist together (FL-3)", player=nick, other=other), other))
    return sorted(warnings, key=lambda w: (w.team, w.player, w.reason, w.other or ""))


def eligibility_from_facts(
    facts: TournamentFacts, blacklist: Iterable[BlacklistEntry | tuple], start: dt.datetime | None
) -> list[EligibilityWarning]:
    """FL-3 warnings for the teams of a tournament's facts."""
    return eligibility_problems(
        facts.players,
        {t.name: t.family or t.name for t in facts.teams},
        blacklist,
        start,
        {t.name: t.players for t in facts.teams},
    )


def can_apply(facts: TournamentFacts, family: str, nick: str) -> bool:
    """Only the family's head submits the application (FL-1)."""
    return any(f.name == family and f.head is not None and f.head == nick for f in facts.families)


def draw_groups(teams: Sequence[str], groups: int, seed: str) -> list[list[str]]:
    """A seeded draw of teams into groups (FL-8), reproducible from the public seed.

    ``teams`` come in seeding order; they are cut into pots of ``groups``
    teams, and each pot is dealt to the groups in an order drawn with the
    seed (one team of each pot per group).
    """
    if groups < 1:
        raise ValueError("groups must be at least 1")
    drawn: list[list[str]] = [[] for _group in range(groups)]
    for pot_index, start in enumerate(range(0, len(teams), groups)):
        pot = list(teams[start:start + groups])
        rng = random.Random(f"{seed}:{pot_index}")
        targets = rng.sample(range(groups), len(pot))
        for team, group in zip(pot, targets):
            drawn[group].append(team)
    return drawn
