"""The public, seeded draws of the elimination Grand Prix (GP-7, GP-8, GP-10).

"Random" means reproducible and public (spec README): every draw here is a
pure function of its inputs and a seed string that the portal stores and
shows. The draws rank names by the SHA-256 digest of a short text built from
the seed, so anyone can re-run them by hand with a command-line tool::

    printf '%s' 'SEED|basket 1|Nick' | sha256sum

and sort the names by the hexadecimal digests, smallest first.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from rulesets.messages import text as _

BASKETS = 3
PLAYERS_PER_BASKET_PER_TEAM = 2


def draw_key(text: str) -> str:
    """The hexadecimal SHA-256 digest of ``text`` (UTF-8): the sort key of every draw."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def draw_order(names: Sequence[str], prefix: str) -> list[str]:
    """``names`` sorted by the digest of ``prefix + "|" + name`` (ties, impossible in practice, by name)."""
    return sorted(names, key=lambda name: (draw_key(f"{prefix}|{name}"), name))


def draw_teams(players_by_basket: Sequence[Sequence[str]], seed: str) -> list[list[str]]:
    """GP-8: draw teams with exactly 2 players from each basket.

    With 3 baskets of 18 players this gives 9 teams of 6. How to re-run it by
    hand: for basket number ``b`` (1, 2, 3, as given) compute for every
    player ``sha256("SEED|basket b|NICK")`` (hexadecimal, UTF-8, no newline)
    and sort the basket's players by that digest, smallest first. Team 1
    takes the 1st and 2nd player of every sorted basket, team 2 the 3rd and
    4th, and so on. Each team lists its players basket by basket.
    """
    baskets = [list(basket) for basket in players_by_basket]
    if not baskets:
        return []
    size = len(baskets[0])
    if any(len(basket) != size for basket in baskets) or size % PLAYERS_PER_BASKET_PER_TEAM:
        raise ValueError(_("GP-8: every basket must hold the same even number of players"))
    names = [name for basket in baskets for name in basket]
    if len(set(names)) != len(names):
        raise ValueError(_("GP-8: a player is in two baskets"))
    teams: list[list[str]] = [[] for _team in range(size // PLAYERS_PER_BASKET_PER_TEAM)]
    for number, basket in enumerate(baskets, start=1):
        ordered = draw_order(basket, f"{seed}|basket {number}")
        for index, team in enumerate(teams):
            start = index * PLAYERS_PER_BASKET_PER_TEAM
            team.extend(ordered[start:start + PLAYERS_PER_BASKET_PER_TEAM])
    return teams


def draw_no_show(remaining_players: Sequence[str], seed: str, tour: int, team: str) -> str:
    """GP-10: the remaining player of an absent team who is eliminated.

    The player whose ``sha256("SEED|tour T|TEAM|NICK")`` (hexadecimal, UTF-8,
    no newline) is the smallest. Only the remaining players of the team take
    part, so the result depends on the seed, the tour, the team and who is
    still in, never on the order of the list.
    """
    if not remaining_players:
        raise ValueError(_("GP-10: team %(team)s has no remaining player to draw", team=team))
    return draw_order(remaining_players, f"{seed}|tour {tour}|{team}")[0]


def default_seed(slug: str, stage_key: str) -> str:
    """The seed of a stage that stored none: its tournament slug and stage key."""
    return f"{slug}/{stage_key}"


@dataclass(frozen=True)
class BasketEntry:
    """A roster player as GP-7 sees them."""

    nick: str
    level: int
    registered_at: dt.datetime


def make_baskets(
    players: Sequence[BasketEntry],
    order: str = "level",
    manual: Mapping[str, int] | None = None,
    baskets: int = BASKETS,
) -> list[list[str]]:
    """GP-7: split the stage's players into ``baskets`` equal baskets.

    ``order="level"``: by level, highest first, equal levels by registration
    time (then nick); basket 1 is the strongest. ``order="manual"``: the
    organizer's ``manual`` mapping of nick to basket number (1-based); every
    basket must get the same number of players. Within a basket players come
    in registration order.
    """
    if len(players) % baskets:
        raise ValueError(_("GP-7: %(count)s players cannot be split into %(baskets)s equal baskets", count=len(players),
                           baskets=baskets))
    size = len(players) // baskets
    if order == "level":
        ranked = sorted(players, key=lambda p: (-p.level, p.registered_at, p.nick))
        return [[p.nick for p in ranked[i * size:(i + 1) * size]] for i in range(baskets)]
    if order != "manual":
        raise ValueError(_("GP-7: basket order %(value)s is not level or manual", value=repr(order)))
    manual = manual or {}
    out: list[list[str]] = [[] for _basket in range(baskets)]
    for player in sorted(players, key=lambda p: (p.registered_at, p.nick)):
        number = manual.get(player.nick)
        if number is None or not 1 <= number <= baskets:
            raise ValueError(_("GP-7: %(player)s has no basket 1..%(baskets)s", player=player.nick, baskets=baskets))
        out[number - 1].append(player.nick)
    for number, basket in enumerate(out, start=1):
        if len(basket) != size:
            raise ValueError(_("GP-7: basket %(number)s holds %(count)s players, not %(size)s", number=number,
                               count=len(basket), size=size))
    return out
