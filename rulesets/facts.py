"""Plain data a ruleset works on: the facts of one tournament.

These dataclasses mirror the interchange format (``spec/interchange.md``) one
to one. The same structure is built by the pure interchange parser
(``rulesets.interchange.parse_document``) and by the database loader
(``tournaments.loader.load_facts``), so a ruleset never knows where its facts came
from. No ORM, no clock: the moment "now" is passed to the ruleset explicitly.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import MISSING, dataclass, field
from decimal import Decimal
from typing import Any

SIDE_OF_ROLE: dict[str, str] = {
    "civilian": "civilians",
    "commissar": "civilians",
    "sergeant": "civilians",
    "doctor": "civilians",
    "mafia": "mafia",
    "don": "mafia",
    "maniac": "maniac",
}
ROLES = tuple(SIDE_OF_ROLE)
OUTCOMES = ("civilians", "mafia", "maniac", "draw")
GAME_STATUSES = ("scheduled", "played", "not_held", "annulled", "technical")
SCORING_STATUSES = ("played", "technical")
MASK_CHARS = "10X?"
LEAGUES = ("none", "second", "first", "higher")


@dataclass(frozen=True, slots=True)
class Player:
    nick: str
    level: int | None = None
    disqualified: bool = False
    family: str | None = None
    banned: bool = False


@dataclass(frozen=True, slots=True)
class Family:
    name: str
    head: str | None = None


@dataclass(frozen=True, slots=True)
class Team:
    name: str
    captain: str | None
    players: tuple[str, ...]
    league: str = "none"
    home_university: bool = False
    family: str | None = None
    # (nick, moment) of the players who left the roster (FL-3 removal, FL-4 departure), in roster order;
    # interchange: the team's ``left_at`` object, nick -> aware datetime; the portal: ``RosterEntry.left_at``.
    left_at: tuple[tuple[str, dt.datetime], ...] = ()

    def left_moment(self, nick: str) -> dt.datetime | None:
        for name, moment in self.left_at:
            if name == nick:
                return moment
        return None


@dataclass(frozen=True, slots=True)
class Seat:
    player: str
    team: str
    role: str
    stats: int | None = None
    timed_out: bool = False
    days_played: int | None = None
    maniac_kills: int = 0
    in_final_phase: bool = False
    fake_passport: bool = False

    @property
    def side(self) -> str:
        return SIDE_OF_ROLE[self.role]


@dataclass(frozen=True, slots=True)
class FactField:
    """One field of a fact entity, declared once for every layer: ``name`` is the dataclass attribute, the
    interchange key, the row's column (``tournaments.fact_fields`` maps the references and adds the words), the
    API field and the history key; ``kind`` says how each layer reads and shows it; ``default`` is the dataclass
    field's (``required``: it has none, and the interchange requires the key)."""

    name: str
    kind: str  # one of FIELD_KINDS
    default: Any = None
    required: bool = False


# "name": a player's nick or a team's name (a reference: the row holds its key); "choice": one of a closed list;
# "count": a whole number of at least 0; "flag": true or false
FIELD_KINDS = ("name", "choice", "count", "flag")


def fact_fields(entity: type, **kinds: str) -> tuple[FactField, ...]:
    """The declaration of ``entity``'s fields (``kind`` of each, every field once, in the dataclass's order), the
    defaults read from the dataclass."""
    declared = entity.__dataclass_fields__
    if list(kinds) != list(declared) or not set(kinds.values()) <= set(FIELD_KINDS):
        raise TypeError(f"{entity.__name__}: declare the kind of each field, in order: {', '.join(declared)}")
    return tuple(FactField(name, kind, None if declared[name].default is MISSING else declared[name].default,
                           declared[name].default is MISSING) for name, kind in kinds.items())


# a seat's fields, as every layer knows them: a new seat flag is a field of ``Seat`` and its kind here (and its
# column: ``tournaments.fact_fields``, docs/architecture.md "Adding a fact field")
SEAT_FIELDS = fact_fields(Seat, player="name", team="name", role="choice", stats="count", timed_out="flag",
                          days_played="count", maniac_kills="count", in_final_phase="flag", fake_passport="flag")
SEAT_FLAGS = tuple(f.name for f in SEAT_FIELDS if f.kind == "flag")


def seat_maker(order: tuple[str, ...]) -> Callable[..., Seat]:
    """``Seat(...)`` from positional values in ``order`` (every field of ``Seat`` once), without the frozen
    ``__init__``'s ``object.__setattr__`` per field: three times faster, and a league's loader builds 10^5 seats
   Equal to ``Seat(...)`` in every way; the fields after the last required one may be left out (their
    defaults)."""
    declared = {f.name: f for f in SEAT_FIELDS}
    if sorted(order) != sorted(declared) or len(set(order)) != len(order):
        raise TypeError(f"seat_maker names every field of Seat once, not {order}")
    scope: dict[str, Any] = {"new": object.__new__, "Seat": Seat}
    params, body = [], []
    last_required = max(i for i, name in enumerate(order) if declared[name].required)  # defaults only after it
    for i, name in enumerate(order):
        scope[f"set{i}"] = Seat.__dict__[name].__set__
        field_ = declared[name]
        if i <= last_required:
            params.append(f"v{i}")
        else:
            scope[f"d{i}"] = field_.default
            params.append(f"v{i}=d{i}")
        body.append(f"    set{i}(seat, v{i})")
    source = f"def make_seat({', '.join(params)}) -> Seat:\n    seat = new(Seat)\n" + "\n".join(body) + \
        "\n    return seat\n"
    exec(source, scope)  # noqa: S102 - positional setters, as ``dataclasses`` builds its own ``__init__``
    return scope["make_seat"]


make_seat = seat_maker(tuple(f.name for f in SEAT_FIELDS))


def flagged_seat_maker(leading: tuple[str, ...]) -> Callable[..., Seat | None]:
    """``flagged(get, *values)``: the seat of the ``leading`` fields' values and of every flag (``SEAT_FLAGS``) read
    through ``get`` (a seat object's ``dict.get``), when each flag is true, false or left out (by identity: ``0 ==
    False``, and 0 is no flag); else None. Built once from the flags, each checked inline: the interchange's quick
    reading of a plain seat runs for 10^5 seats (``rulesets.interchange.games._plain_seat``)."""
    flags = [f"f{i}" for i in range(len(SEAT_FLAGS))]
    values = ", ".join(f"v{i}" for i in range(len(leading)))
    checks = " and ".join(f"({f} is None or {f} is True or {f} is False)" for f in flags) or "True"
    source = (f"def flagged(get, {values}):\n"
              + "".join(f"    {f} = get({name!r})\n" for f, name in zip(flags, SEAT_FLAGS))
              + f"    if not ({checks}):\n        return None\n"
              + f"    return make({values}" + "".join(f", {f} is True" for f in flags) + ")\n")
    scope = {"make": seat_maker((*leading, *SEAT_FLAGS))}
    exec(source, scope)  # noqa: S102 - see the docstring
    return scope["flagged"]


@dataclass(frozen=True, slots=True)
class Game:
    number: int
    status: str = "played"
    outcome: str | None = None
    group: str | None = None
    round: int | None = None
    scheduled_at: dt.datetime | None = None
    omon: bool = False
    game_days: int | None = None
    link: str | None = None
    absent_teams: tuple[str, ...] = ()
    no_show_eliminated: tuple[tuple[str, str], ...] = ()
    seats: tuple[Seat, ...] = ()
    # when the game's result was first recorded (interchange ``result_recorded_at``; the portal: the first save
    # with a result): the FL-19 window of the violations the portal detects in it runs from here
    result_recorded_at: dt.datetime | None = None
    # FL-19, portal only (not in the interchange): ``(team, kind, player, at)`` of each violation the portal
    # detected that a change of the result created after ``result_recorded_at``; it was published at ``at``
    violations_published: tuple[tuple[str, str, str | None, dt.datetime], ...] = ()

    def published_at(self, team: str, kind: str, player: str | None) -> dt.datetime | None:
        """When a detected violation of this game was published (FL-19): at its change, or with the result."""
        for v_team, v_kind, v_player, at in self.violations_published:
            if (v_team, v_kind, v_player) == (team, kind, player):
                return at
        return self.result_recorded_at

    @property
    def scores(self) -> bool:
        return self.status in SCORING_STATUSES


@dataclass(frozen=True, slots=True)
class Tour:
    number: int
    host: str | None
    questions: int
    played_on: dt.date | None = None
    masks: tuple[tuple[str, str], ...] = ()
    absent: tuple[str, ...] = ()

    def mask_of(self, team: str) -> str | None:
        for name, mask in self.masks:
            if name == team:
                return mask
        return None


@dataclass(frozen=True, slots=True)
class Group:
    name: str
    teams: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Stage:
    key: str
    teams: tuple[Team, ...] = ()
    groups: tuple[Group, ...] = ()
    games: tuple[Game, ...] = ()
    tours: tuple[Tour, ...] = ()
    seed: str | None = None

    def game(self, number: int) -> Game | None:
        for game in self.games:
            if game.number == number:
                return game
        return None


@dataclass(frozen=True, slots=True)
class Penalty:
    stage: str | None
    team: str | None
    kind: str
    points: Decimal
    game: int | None = None
    player: str | None = None
    code: str | None = None
    decided_at: dt.datetime | None = None
    text: str = ""
    # when the penalty was published (FL-19: its appeal window runs from here); ``decided_at`` when left out
    published_at: dt.datetime | None = None

    @property
    def published(self) -> dt.datetime | None:
        """The moment the penalty was published: ``published_at``, defaulting to ``decided_at`` (FL-19)."""
        return self.published_at or self.decided_at


@dataclass(frozen=True, slots=True)
class Decision:
    """A judge's, commission's or committee's decision (index is 1-based)."""

    index: int
    kind: str
    stage: str | None = None
    game: int | None = None
    code: str | None = None
    outcome: str | None = None
    team: str | None = None
    player: str | None = None
    order: tuple[str, ...] = ()
    reason: str | None = None
    decided_at: dt.datetime | None = None
    published_at: dt.datetime | None = None
    by: str | None = None
    text: str = ""
    annulled: bool = False


@dataclass(frozen=True, slots=True)
class Appeal:
    kind: str
    filed_at: dt.datetime
    stage: str | None = None
    tour: int | None = None
    question: int | None = None
    team: str | None = None
    answer: str | None = None
    verdict: str | None = None
    credited_teams: tuple[str, ...] = ()
    decision: int | None = None
    appellant: str | None = None
    # a ``partly`` verdict: the changed decision (or, for a penalty appeal, the changed penalty) that takes the
    # appealed one's place (FL-19)
    replacement: Decision | Penalty | None = None
    decided_at: dt.datetime | None = None  # when the verdict was given (CHGK-18: "given late" after D+9)
    penalty: int | None = None  # a family league appeal against a penalty: its 1-based index in ``penalties``

    @property
    def pending(self) -> bool:
        return self.verdict is None


@dataclass(frozen=True, slots=True)
class Withdrawal:
    team: str
    at: dt.datetime


@dataclass(frozen=True, slots=True)
class WaivedViolation:
    """A violation the portal detected (FL-15) that an upheld appeal annulled (FL-19).

    Not part of the interchange format: it exists only in the portal, where
    a detected violation can be appealed like a judge's decision.
    """

    stage: str
    game: int
    team: str
    kind: str
    player: str | None = None


@dataclass(frozen=True, slots=True)
class TournamentFacts:
    slug: str
    name: str
    ruleset: str
    timezone: str = "Europe/Moscow"
    starts_on: dt.date | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    players: tuple[Player, ...] = ()
    families: tuple[Family, ...] = ()
    teams: tuple[Team, ...] = ()
    stages: tuple[Stage, ...] = ()
    penalties: tuple[Penalty, ...] = ()
    decisions: tuple[Decision, ...] = ()
    appeals: tuple[Appeal, ...] = ()
    withdrawals: tuple[Withdrawal, ...] = ()
    waived_violations: tuple[WaivedViolation, ...] = ()
    rules: dict[str, Any] = field(default_factory=dict)  # the rule constants frozen with it (rulesets.rules)

    def stage(self, key: str) -> Stage | None:
        for stage in self.stages:
            if stage.key == key:
                return stage
        return None

    def player(self, nick: str) -> Player | None:
        for player in self.players:
            if player.nick == nick:
                return player
        return None
