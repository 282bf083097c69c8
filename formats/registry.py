"""The format registry: what each format's home offers the rest of the portal.

A format home (``formats/<key>/``) is a Django app holding one format's models,
services, forms, views, URLs, admin, templates and tests. Its ``home.py``
builds one ``FormatHome`` and its ``AppConfig.ready()`` registers it here. The
site-wide pages and the API never compare a ruleset key: they ask
``for_tournament(tournament)`` for the links, dashboard items and player-page
items of the tournament's format, and include every home's URLs.

A tournament whose ruleset has no home (there is none today) gets an empty
``FormatHome``: its pages show only what every format shares.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlencode

from django.urls import reverse

from formats.rulebook import Rulebook
from tournaments import labels


def is_signed_in(user: Any) -> bool:
    """Whether ``user`` is a signed-in reader (an anonymous one, or none, is not)."""
    return bool(getattr(user, "is_authenticated", False))


@dataclass(frozen=True)
class Link:
    """A link a page shows: its (translated) label and its URL.

    ``allowed(user)`` is the permission check of the view the link opens: a page shows the link only to a reader
    it lets through (no link that ends in a refusal); ``None``: everyone may follow it.
    """

    label: str
    url: str
    signed_in: bool = False  # shown to signed-in readers only
    allowed: Callable[[Any], bool] | None = None

    def shown_to(self, user: Any) -> bool:
        """Whether ``user`` may follow the link: signed in where it asks so, and let through by ``allowed``."""
        if self.signed_in and not is_signed_in(user):
            return False
        return self.allowed is None or bool(self.allowed(user))


@dataclass(frozen=True)
class DashboardItem:
    """One thing in a tournament that needs a person now, with where to fix it."""

    section: str
    key: str
    text: str
    url: str
    rule: str = ""
    due: dt.datetime | None = None
    overdue: bool = False


def admin_url(name: str, *args: Any, **query: Any) -> str:
    """The admin page ``name`` (``app_model_action``), with a query string of initial values."""
    url = reverse(f"admin:{name}", args=args)
    return f"{url}?{urlencode(query)}" if query else url


@dataclass(frozen=True)
class StageRegistration:
    """How a format whose registration opens and closes per stage (GP-2, GP-5) acts on one stage, as the
    structure page and its API use it: ``open``/``close`` a stage's registration, whether it ``is_open``, the
    page players register on (``url_name``) and the rules cited."""

    open: Callable[..., Any]
    close: Callable[..., Any]
    is_open: Callable[[Any], bool]
    url_name: str
    rule: str


def _no_links(tournament: Any, user: Any) -> list[Link]:
    return []


def _no_items(tournament: Any, now: dt.datetime, pending_appeals: list) -> list[DashboardItem]:
    return []


def _no_rule(stage_key: str) -> str:
    return ""


def _no_problems(stage: Any, game: Any, row: Any) -> list:
    return []


def _no_calendar(tournament: Any, stage_key: str | None) -> bytes | None:
    return None


def _nothing(*args: Any) -> dict[str, Any]:
    return {}


def _no_page(tournament: Any, kind: str, stage_key: str | None) -> str | None:
    return None


def _no_archive(tournament: Any) -> None:
    return None


def _no_steps(tournament: Any, now: dt.datetime) -> list[DashboardItem]:
    return []


@dataclass(frozen=True)
class FormatHome:
    """What one format adds to the shared pages.

    - ``key``: the ruleset key the home serves; ``urls``: the dotted path of its
      URL module (included at the site root), ``None`` for none;
    - ``label``: the format's name as the pages say it (translated); ``stage_names``:
      the name of each of its stage keys (the pages never show a key);
    - ``examples``: the format's examples in the REST API's documentation, by name
      (``example(name)``: the first home that has one), and ``"tiebreaks"``, the
      tie-break figures its tables carry, as the standings schema describes them;
    - ``stage_registration``: how a stage's registration opens and closes where the
      format registers per stage (``StageRegistration``), ``None`` where it registers
      per tournament (``tournaments.structure``);
    - ``tournament_links(tournament, user)``: the links of the tournament's
      header the reader may follow (registration, calendars, setup pages);
    - ``dashboard_items(tournament, now, pending_appeals)``: the organizer
      dashboard's items of the format (checklists, eligibility, schedules, ...);
    - ``player_items(player, entries, now, viewer_zone)``: what "my tournaments"
      adds for a player (keys of the page's context);
    - ``prize_rule(stage_key)``: the rule code a stage's prizes are paid under;
    - ``game_problems(stage, game, row)``: the format's refusals of a Mafia game
      being recorded (``game``: its facts; ``row``: the stored game, with what
      the schedule gave it; ``rulesets.base.Problem``, paths from the game);
    - ``game_entry_context(tournament, stage_key)``: what the game entry form
      shows beside the seats (keys of the page's context);
    - ``schedule_ics(tournament, stage_key)``: the format's own iCalendar feed of
      the schedule (FL-9), ``None`` for the shared one;
    - ``rulebook``: the texts of ``/t/SLUG/rules/`` (``formats.rulebook.Rulebook``), ``None`` for none;
    - ``decision_url(tournament, kind, stage_key)``: the format's own page where the committee records a
      decision of ``kind`` for a stage (GP-18's vacancies, ties), ``None`` for the admin's;
    - ``next_steps(tournament, now)``: the dashboard's "what to do next" of the format (section ``next``), each
      linking to the page that does it (open a stage's registration, publish a schedule);
    - ``archive(tournament)``: close what a tournament entered after it was played has done by its own dates
      (the ChGK checklists of its played tours), so that a past season reads as finished (the demo uses it).
    """

    key: str
    urls: str | None = None
    label: Any = ""
    stage_names: Mapping[str, Any] = field(default_factory=dict)
    stage_registration: StageRegistration | None = None
    examples: Mapping[str, Any] = field(default_factory=dict)
    tournament_links: Callable[[Any, Any], list[Link]] = _no_links
    dashboard_items: Callable[[Any, dt.datetime, list], list[DashboardItem]] = _no_items
    player_items: Callable[..., dict[str, Any]] = _nothing
    prize_rule: Callable[[str], str] = _no_rule
    game_problems: Callable[[Any, Any, Any], list] = _no_problems
    game_entry_context: Callable[[Any, str], dict[str, Any]] = _nothing
    schedule_ics: Callable[[Any, str | None], bytes | None] = _no_calendar
    decision_url: Callable[[Any, str, str | None], str | None] = _no_page
    rulebook: Rulebook | None = None
    archive: Callable[[Any], None] = _no_archive
    next_steps: Callable[[Any, dt.datetime], list[DashboardItem]] = _no_steps


_HOMES: dict[str, FormatHome] = {}


def register(home: FormatHome) -> FormatHome:
    """Register ``home`` under its key (a second home for one key is a mistake)."""
    if home.key in _HOMES and _HOMES[home.key] is not home:
        raise ValueError(f"a format home for {home.key!r} is already registered")
    _HOMES[home.key] = home
    labels.name_stages(home.stage_names)
    return home


def get(key: str) -> FormatHome:
    """The home of ruleset ``key``; an empty one where none is registered."""
    return _HOMES.get(key) or FormatHome(key=key)


def for_tournament(tournament: Any) -> FormatHome:
    return get(tournament.ruleset)


def example(name: str) -> Any:
    """The REST documentation's example ``name`` from the first home that has one (the shared API modules name no
    format: their examples come from the homes)."""
    for home in _HOMES.values():
        if name in home.examples:
            return home.examples[name]
    raise LookupError(f"no format home has the API example {name!r}")


def examples(name: str) -> list[Any]:
    """Every home's example ``name``, in the order the homes were registered."""
    return [home.examples[name] for home in _HOMES.values() if name in home.examples]


def label(key: str) -> str:
    """The format's name in the active language; a key no home names is shown as it is."""
    return str(get(key).label or key)


def homes() -> Iterable[FormatHome]:
    return tuple(_HOMES.values())
