"""A player's career across tournaments, and the site-wide Mafia ranking by role.

The player's page (``/players/ID/``) and ``GET /api/v1/players/ID/career/`` read the same things here:

- every tournament the player is on a roster of, in any format, newest first (a page at a time), with the
  player's teams, the player's table rows and awards (and the team's where the award is the team's), and for a
  ChGK season the team's season history: its place and points, and its place, points and role in each tour;
- the player's Mafia figures by role over the whole career (``role_figures``): games, wins and win rate per role.

The site-wide ranking (``/players/rankings/``, ``GET /api/v1/players/rankings/``) ranks the players of one role,
or of every role, over a period. Its formula, which the rules page states in the reader's language
(``RANKING_RULES``):

1. A **game** of a player in a role is a seat of the player in that role (any role when none is chosen) in a
   game with the status *played* and a recorded outcome, of a tournament that is not a draft (a game not held,
   annulled or given a technical result is no game here), dated within the period: a game's date is the day of
   its scheduled time in the site's time zone, or, for a game without one, the first day of its tournament (a
   game with neither is counted only when the period is open at both ends).
2. A **win** is such a game whose outcome is the role's side winning (``rulesets.facts.SIDE_OF_ROLE``): the
   civilians for the civilian, the commissar, the sergeant and the doctor; the mafia for the mafioso and the don;
   the maniac for the maniac. A draw is nobody's win.
3. The **win rate** is wins / games, compared exactly (as fractions).
4. Only players with at least ``min_games`` games (``DEFAULT_MIN_GAMES`` unless the reader chooses) are ranked.
5. Order: the higher win rate first; at an equal win rate, more wins (that is, more games) first. Players equal
   in both share the place (``2-3``); among them the list goes by nick (case aside), then by the player's id.

``ranked`` is that order as a pure function of the figures (its property test: ``tests/test_careers.py``);
``ranking`` reads the figures in one query and ranks them with it.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, NamedTuple

from django import forms
from django.db import connection
from django.db.models import Case, Count, Exists, F, Func, JSONField, OuterRef, Q, QuerySet, Value, When
from django.db.models.fields.json import KeyTransform
from django.db.models.functions import JSONObject
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext_lazy

import rulesets
from accounts.models import Player
from portal.labels import ITEMS, SIDES, TEAM_STATUSES, TOUR_ROLES, label
from portal.views.standings import place_labels
from rulesets.facts import SIDE_OF_ROLE
from scoring.models import StandingsSnapshot
from tournaments.models import GameStatus, RoleChoice, RosterEntry, Seat, Tournament, TournamentStatus

DEFAULT_MIN_GAMES = 5
FIRST_DAY, LAST_DAY = dt.date(1900, 1, 1), dt.date(9000, 1, 1)  # a period beyond them is open at that end
MAX_MIN_GAMES = 10_000
ANY_ROLE = ""
ROLES = tuple(RoleChoice.values)  # the order the pages list them in

RANKING_RULES = (
    _("The site-wide ranking by role ranks the players of one role (or of every role) over a chosen period, "
      "across every Mafia tournament of the site that is not a draft."),
    _("A game counts when it was played and its outcome is recorded (a game not held, annulled or given a "
      "technical result does not) and its date is within the period: the day of its scheduled time, or the "
      "first day of its tournament when it has none."),
    _("A win is a game whose outcome is the role's side winning: the civilians for the civilian, the commissar, "
      "the sergeant and the doctor; the mafia for the mafioso and the don; the maniac for the maniac. A draw is "
      "nobody's win."),
    _("Win rate = wins / games. Only players with at least the minimum number of games (%(games)s unless "
      "chosen) are ranked."),
    _("Order: the higher win rate first; at an equal win rate, more wins first. Players equal in both share "
      "the place and are listed by nick."),
)


def ranking_rules() -> list[str]:
    """The formula as the rules page and the ranking page state it, in the active language."""
    return [str(text) % {"games": DEFAULT_MIN_GAMES} if "%(games)s" in str(text) else str(text)
            for text in RANKING_RULES]


# --- the figures -----------------------------------------------------------------------------------------------


def won() -> Q:
    """A seat whose side won its game (``SIDE_OF_ROLE``; a draw is nobody's win)."""
    by_side: dict[str, list[str]] = {}
    for role, side in SIDE_OF_ROLE.items():
        by_side.setdefault(side, []).append(role)
    condition = Q()
    for side, roles in by_side.items():
        condition |= Q(role__in=roles, game__outcome=side)
    return condition


def counted_seats() -> QuerySet[Seat]:
    """The seats that count as games (formula, point 1): played games with an outcome, no draft tournament."""
    return Seat.objects.filter(game__status=GameStatus.PLAYED, game__outcome__isnull=False).exclude(
        game__stage__tournament__status=TournamentStatus.DRAFT)


def in_period(start: dt.date | None, end: dt.date | None) -> Q:
    """Seats of games dated within ``start``..``end`` (both included; None: open at that end)."""
    start = start if start is not None and start > FIRST_DAY else None  # the calendar's ends: an open period
    end = end if end is not None and end < LAST_DAY else None
    if start is None and end is None:
        return Q()
    zone = timezone.get_default_timezone()
    scheduled, first_day = Q(game__scheduled_at__isnull=False), Q(game__scheduled_at__isnull=True)
    if start is not None:
        scheduled &= Q(game__scheduled_at__gte=dt.datetime.combine(start, dt.time.min, zone))
        first_day &= Q(game__stage__tournament__starts_on__gte=start)
    if end is not None:
        scheduled &= Q(game__scheduled_at__lt=dt.datetime.combine(end + dt.timedelta(days=1), dt.time.min, zone))
        first_day &= Q(game__stage__tournament__starts_on__lte=end)
    return scheduled | first_day


def win_rate(wins: int, games: int) -> Fraction | None:
    return Fraction(wins, games) if games else None


def percent(rate: Fraction | None) -> float | None:
    """A win rate as the pages print it: a percentage with one decimal."""
    return None if rate is None else round(float(rate) * 100, 1)


@dataclass(frozen=True)
class RoleFigures:
    role: str
    games: int
    wins: int

    @property
    def side(self) -> str | None:
        return SIDE_OF_ROLE.get(self.role)

    @property
    def win_rate(self) -> Fraction | None:
        return win_rate(self.wins, self.games)

    @property
    def role_label(self) -> str:
        return str(dict(RoleChoice.choices).get(self.role, self.role)) if self.role else str(_("every role"))

    @property
    def side_label(self) -> str:
        return str(label(SIDES, self.side)) if self.side else ""

    @property
    def percent(self) -> float | None:
        return percent(self.win_rate)

    def as_json(self) -> dict[str, Any]:
        rate = self.win_rate
        return {"role": self.role or None, "side": self.side, "games": self.games, "wins": self.wins,
                "win_rate": None if rate is None else round(float(rate), 4)}


def role_figures(player_id: int) -> list[RoleFigures]:
    """The player's games, wins and win rate in each role played, over the whole career (every period), in the
    order of ``ROLES``; one query."""
    rows = {role: (games, wins) for role, games, wins in counted_seats().filter(player_id=player_id).order_by()
            .values("role").annotate(games=Count("pk"), wins=Count("pk", filter=won()))
            .values_list("role", "games", "wins")}
    return [RoleFigures(role, *rows[role]) for role in ROLES if role in rows]


def total_of(figures: Sequence[RoleFigures]) -> RoleFigures:
    """Every role together (``role`` ``ANY_ROLE``)."""
    return RoleFigures(ANY_ROLE, sum(f.games for f in figures), sum(f.wins for f in figures))


# --- the ranking -----------------------------------------------------------------------------------------------


class Figures(NamedTuple):
    """One player's figures in the ranking's role and period, before ranking."""

    player_id: int
    nick: str
    games: int
    wins: int


@dataclass(frozen=True)
class RankedRow:
    place: int  # 1 + the number of players ranked strictly ahead (a shared place: the first of its places)
    place_label: str  # "3", or "2-3" for a shared place
    player_id: int
    nick: str
    games: int
    wins: int

    @property
    def win_rate(self) -> Fraction:
        return Fraction(self.wins, self.games)

    @property
    def percent(self) -> float | None:
        return percent(self.win_rate)

    def as_json(self) -> dict[str, Any]:
        return {"place": self.place, "place_label": self.place_label,
                "player": {"id": self.player_id, "nick": self.nick}, "games": self.games, "wins": self.wins,
                "win_rate": round(float(self.win_rate), 4)}


def record(row: Figures) -> tuple[Fraction, int]:
    """What decides a place (formula, point 5): the win rate, then the wins; equal records share a place."""
    return Fraction(row.wins, row.games), row.wins


def rank_key(row: Figures) -> tuple:
    """The list's order: the better record first, then by nick (case aside, then as written), then by id."""
    rate, wins = record(row)
    return -rate, -wins, row.nick.casefold(), row.nick, row.player_id


def ranked(rows: Iterable[Figures], min_games: int = DEFAULT_MIN_GAMES) -> list[RankedRow]:
    """The ranking of ``rows`` (formula, points 4-5): players with fewer than ``min_games`` games left out, the
    rest in ``rank_key`` order, each with the place its record shares."""
    eligible = sorted((r for r in rows if r.games >= max(1, min_games)), key=rank_key)
    places: list[int] = []
    for index, row in enumerate(eligible):
        places.append(places[-1] if index and record(eligible[index - 1]) == record(row) else index + 1)
    labels = place_labels(places)
    return [RankedRow(place, text, r.player_id, r.nick, r.games, r.wins)
            for r, place, text in zip(eligible, places, labels, strict=True)]


@dataclass(frozen=True)
class Period:
    """What the ranking is over: a role (``ANY_ROLE``: every role), the dates (None: open) and the minimum."""

    role: str = ANY_ROLE
    start: dt.date | None = None
    end: dt.date | None = None
    min_games: int = DEFAULT_MIN_GAMES

    def as_json(self) -> dict[str, Any]:
        return {"role": self.role or None, "from": self.start.isoformat() if self.start else None,
                "to": self.end.isoformat() if self.end else None, "min_games": self.min_games}


def ranking_figures(period: Period) -> list[Figures]:
    """Every player's games and wins in the period's role and dates, with at least its minimum of games (one
    query)."""
    seats = counted_seats().filter(in_period(period.start, period.end))
    if period.role:
        seats = seats.filter(role=period.role)
    rows = (seats.order_by().values("player_id", "player__nick").annotate(
        games=Count("pk"), wins=Count("pk", filter=won())).filter(games__gte=max(1, period.min_games))
        .values_list("player_id", "player__nick", "games", "wins"))
    return [Figures(*row) for row in rows]


def ranking(period: Period) -> list[RankedRow]:
    """The site-wide ranking of ``period`` (see the module's docstring for the formula)."""
    return ranked(ranking_figures(period), period.min_games)


ISO_DATE = ["%Y-%m-%d"]


class RankingForm(forms.Form):
    """The ranking's choices as GET parameters: ``role``, ``from``, ``to`` (YYYY-MM-DD) and ``min_games``."""

    role = forms.ChoiceField(label=_("Role"), required=False, choices=())
    min_games = forms.IntegerField(
        label=_("At least this many games"), required=False, min_value=1, max_value=MAX_MIN_GAMES,
        error_messages={"invalid": _("The minimum number of games is a whole number."),
                        "min_value": _("The minimum number of games is at least %(limit_value)s."),
                        "max_value": _("The minimum number of games is at most %(limit_value)s.")})

    def __init__(self, data: Any = None, **kwargs: Any) -> None:
        super().__init__(data, **kwargs)
        self.fields["role"].choices = [(ANY_ROLE, _("every role")), *RoleChoice.choices]
        self.fields["role"].error_messages["invalid_choice"] = _(
            "%(value)s is not a role: civilian, commissar, sergeant, doctor, mafia, don or maniac.")
        dates = {"invalid": _("A date is written YYYY-MM-DD, e.g. 2016-07-04.")}
        self.fields["from"] = forms.DateField(label=pgettext_lazy("period", "From"), required=False,
                                              input_formats=ISO_DATE, error_messages=dates,
                                              widget=forms.DateInput(attrs={"type": "date"}))
        self.fields["to"] = forms.DateField(label=pgettext_lazy("period", "To"), required=False,
                                            input_formats=ISO_DATE, error_messages=dates,
                                            widget=forms.DateInput(attrs={"type": "date"}))
        self.order_fields(["role", "from", "to", "min_games"])
        self.fields["min_games"].widget.attrs.update({"min": 1, "max": MAX_MIN_GAMES,
                                                      "placeholder": str(DEFAULT_MIN_GAMES)})

    def clean(self) -> dict[str, Any]:
        data = super().clean()
        start, end = data.get("from"), data.get("to")
        if start and end and start > end:
            self.add_error("to", _("The period ends before it starts: %(to)s is before %(from)s.") % {
                "to": end.isoformat(), "from": start.isoformat()})
        return data

    @property
    def period(self) -> Period:
        """The chosen period (``is_valid()`` first); an empty choice is the default."""
        data = self.cleaned_data
        return Period(data.get("role") or ANY_ROLE, data.get("from"), data.get("to"),
                      data.get("min_games") or DEFAULT_MIN_GAMES)

    def problems(self) -> list[tuple[str, str]]:
        """Each refused parameter with its message, in the form's order."""
        return [(name, str(message)) for name, messages in self.errors.items() for message in messages]


# --- the player's tournaments ----------------------------------------------------------------------------------


def tournaments_of(player: Player) -> QuerySet[Tournament]:
    """Every tournament the player is on a roster of, newest first (any format)."""
    return Tournament.objects.filter(
        pk__in=RosterEntry.objects.filter(player=player).values("team__tournament_id")).only(
        "slug", "name", "ruleset", "starts_on").order_by("-starts_on", "name", "pk")


def _player_elements(column: str, path: tuple[str, ...], nick: str) -> Any:
    """The JSON array at ``path`` of ``column``, on PostgreSQL only its elements whose ``player`` is ``nick``.

    A snapshot's export and details hold every player of the tournament; the player's page needs one row of
    each, so PostgreSQL filters them (``jsonb_path_query_array``) and the rows stay small at any size. Other
    databases read the array at ``path`` (never the whole document); the page filters either way.
    """
    if connection.vendor != "postgresql":
        return _json_at(column, path)
    jsonpath = "$." + ".".join(path) + "[*] ? (@.player == $nick)"
    return Func(F(column), Func(Value(jsonpath), template="(%(expressions)s)::jsonpath"),
                JSONObject(nick=Value(nick)), function="jsonb_path_query_array", output_field=JSONField())


def _team_elements(column: str, path: tuple[str, ...], names: Sequence[str]) -> Any:
    """The JSON array at ``path`` of ``column``, on PostgreSQL only its elements whose ``team`` is one of
    ``names`` (the player's teams; passed as the path's variables, never written into it)."""
    if connection.vendor != "postgresql" or not names:
        return _json_at(column, path)
    test = " || ".join(f"@.team == $t{i}" for i in range(len(names)))
    jsonpath = "$." + ".".join(path) + f"[*] ? ({test})"
    return Func(F(column), Func(Value(jsonpath), template="(%(expressions)s)::jsonpath"),
                JSONObject(**{f"t{i}": Value(name) for i, name in enumerate(names)}),
                function="jsonb_path_query_array", output_field=JSONField())


def _json_at(column: str, path: tuple[str, ...]) -> Any:
    """``column__path`` as a JSON value (Django's key transforms: ``->`` on PostgreSQL, ``json_extract``)."""
    expression: Any = F(column)
    for key in path:
        expression = KeyTransform(key, expression)
    return expression


def _only_for(ids: Sequence[int], expression: Any) -> Any:
    """``expression`` for the snapshots of the tournaments ``ids``, else NULL (nothing read)."""
    if not ids:
        return Value(None, output_field=JSONField())
    return Case(When(tournament_id__in=list(ids), then=expression), default=Value(None), output_field=JSONField())


class PlayerSnapshot(NamedTuple):
    """What the player's page reads of one snapshot."""

    stage_key: str
    rows: list[dict[str, Any]]  # the export's ``players`` (on PostgreSQL only the player's rows)
    lists_players: bool  # the export has a table of players (else the page shows ``details.details.players``)
    awards: list[dict[str, Any]]
    figures: Any  # ``details.details.players`` (on PostgreSQL only the player's)
    cups: Any  # ``details.details.cups`` (on PostgreSQL only the player's; FL-20)
    team_rows: Any = None  # a ChGK season's ``export.teams`` (on PostgreSQL only the player's teams)
    team_details: Any = None  # and its ``details.teams``
    tour_numbers: Any = None  # and its ``details.details.tour_numbers``


def player_snapshots(tournament_ids: list[int], nick: str,
                     seasons: dict[int, list[str]] | None = None) -> dict[int, list[PlayerSnapshot]]:
    """Per tournament: what the page reads of each stage's snapshot, or of the latest where there is none.

    Only what the player's page reads: the export's rows of the player (``players``, and whether it lists
    players at all), its ``awards``, and the player's rows of ``details.details.players`` and ``.cups``; for
    the ChGK seasons of ``seasons`` (tournament id -> the player's team names there) the rows of those teams.
    The latest snapshot of a tournament with stage snapshots is left out (it repeats the last stage). One query.
    """
    by_tournament: dict[int, list] = {}
    if not tournament_ids:
        return by_tournament
    seasons = seasons or {}
    chgk = sorted(seasons)
    names = sorted({name for teams in seasons.values() for name in teams})
    staged = StandingsSnapshot.objects.filter(tournament_id__in=tournament_ids, tournament_id=OuterRef("tournament_id")
                                              ).exclude(stage_key="")  # the ids bound PostgreSQL's hashed subplan
    rows = StandingsSnapshot.objects.filter(tournament_id__in=tournament_ids).exclude(
        Q(stage_key="") & Exists(staged)).values_list(
        "tournament_id", "stage_key", _player_elements("export", ("players",), nick),
        _json_at("export", ("players", "0")), _json_at("export", ("awards",)),
        _player_elements("details", ("details", "players"), nick),
        _player_elements("details", ("details", "cups"), nick),
        _only_for(chgk, _team_elements("export", ("teams",), names)),
        _only_for(chgk, _team_elements("details", ("teams",), names)),
        _only_for(chgk, _json_at("details", ("details", "tour_numbers"))))
    for tid, stage_key, mine, first_player, awards, players, cups, team_rows, team_details, tours in rows:
        by_tournament.setdefault(tid, []).append(PlayerSnapshot(
            stage_key, mine if isinstance(mine, list) else [], first_player is not None,
            awards if isinstance(awards, list) else [], players, cups, team_rows, team_details, tours))
    for tid, items in by_tournament.items():
        staged_items = [item for item in items if item.stage_key]
        by_tournament[tid] = sorted(staged_items or items, key=lambda item: item.stage_key)
    return by_tournament


def items_of(award: dict[str, Any], player: Player, cups: Any) -> list[str]:
    """The cups and medals of an award that this player receives.

    A team's award carries its cups; where the ruleset lists who receives them
    (``details.cups``: FL-20, every family member with at least one game), a
    roster member who never played gets the team's prize line but no cup.
    """
    items = list(award.get("items") or [])
    if award.get("player") is not None or not isinstance(cups, list):
        return items
    mine = {c.get("cup") for c in cups if isinstance(c, dict) and c.get("player") == player.nick
            and c.get("team") == award.get("team")}
    return [item for item in items if item in mine]


def _padded(values: Any, size: int) -> list[Any]:
    values = values if isinstance(values, list) else []
    return (values + [None] * size)[:size]


def _season_of(item: PlayerSnapshot, teams: list[Any]) -> list[dict[str, Any]]:
    """The ChGK season history of the player's teams in one snapshot: place, points and status, and per tour the
    team's role, place, points and correct answers (hosted tours included, CHGK-7)."""
    out = []
    rows = item.team_rows if isinstance(item.team_rows, list) else []
    details = item.team_details if isinstance(item.team_details, list) else []
    numbers = item.tour_numbers if isinstance(item.tour_numbers, list) else []
    for team in teams:
        row = next((r for r in rows if isinstance(r, dict) and r.get("team") == team.name), None)
        if row is None:
            continue
        extra = next((d.get("details") or {} for d in details if isinstance(d, dict) and d.get("team") == team.name),
                     {})
        points = extra.get("points_by_round") or []
        roles, places, correct = (_padded(extra.get(key), len(points))
                                  for key in ("role_by_round", "place_by_round", "correct_by_round"))
        tours = [{"tour": numbers[index] if index < len(numbers) else index + 1, "role": roles[index],
                  "role_label": str(label(TOUR_ROLES, roles[index])) if roles[index] else "",
                  "place": places[index], "points": value, "correct": correct[index]}
                 for index, value in enumerate(points)]
        out.append({"team": team.name, "team_id": team.pk, "stage": item.stage_key, "rank": row.get("rank"),
                    "points": row.get("points"), "status": row.get("status"),
                    "status_label": str(label(TEAM_STATUSES, row.get("status"))) if row.get("status") else "",
                    "hosted_tour": extra.get("hosted_tour"), "tours_played": extra.get("tours_played"),
                    "tours": tours})
    return out


@dataclass
class TournamentCareer:
    """One tournament of the player's career as the page and the API read it."""

    tournament: Tournament
    url: str
    teams: list[dict[str, Any]] = field(default_factory=list)  # {team, captain, url}
    rows: list[dict[str, Any]] = field(default_factory=list)  # the player's table rows (a stage each)
    awards: list[dict[str, Any]] = field(default_factory=list)
    season: list[dict[str, Any]] = field(default_factory=list)  # a ChGK season: the team's history

    @property
    def is_chgk(self) -> bool:
        """A season of tours (ChGK): its table ranks teams, each with its history of tours."""
        return not is_mafia(self.tournament.ruleset)

    def as_json(self) -> dict[str, Any]:
        t = self.tournament
        return {
            "slug": t.slug, "name": t.name, "ruleset": t.ruleset,
            "starts_on": t.starts_on.isoformat() if t.starts_on else None,
            "teams": [{"id": e["team"].pk, "name": e["team"].name,
                       "stage": e["team"].stage.key if e["team"].stage else None, "captain": e["captain"]}
                      for e in self.teams],
            "results": [{"stage": r["stage"] or None, "rank": r.get("rank"), "points": r.get("points"),
                         "games": r.get("games"), "status": r.get("status") or None} for r in self.rows],
            "awards": [{"stage": a["stage"] or None, "place": a.get("place"), "team": a.get("team"),
                        "team_award": a["team_award"], "items": a["items"], "prize": a.get("prize"),
                        "currency": a.get("currency")} for a in self.awards],
            "season": [{"team": s["team"], "rank": s["rank"], "points": s["points"], "status": s["status"],
                        "hosted_tour": s["hosted_tour"],
                        "tours": [{k: tour[k] for k in ("tour", "role", "place", "points", "correct")}
                                  for tour in s["tours"]]} for s in self.season],
        }


def career(player: Player, tournaments: Iterable[Tournament]) -> list[TournamentCareer]:
    """The player's career in ``tournaments`` (a page of ``tournaments_of``), in their order: two queries (the
    player's roster entries there, the snapshots' rows of the player and the player's teams)."""
    shown = {t.pk: TournamentCareer(t, t.get_absolute_url()) for t in tournaments}
    entries = list(RosterEntry.objects.filter(player=player, team__tournament_id__in=list(shown)).select_related(
        "team__stage").order_by("team__stage__order", "team__order", "team__name", "pk"))
    teams_of: dict[int, list[Any]] = {}
    for entry in entries:
        item = shown[entry.team.tournament_id]
        entry.team.tournament = item.tournament
        item.teams.append({"team": entry.team, "captain": entry.team.captain_id == player.pk,
                           "url": reverse("team", args=[item.tournament.slug, entry.team.pk])})
        teams_of.setdefault(entry.team.tournament_id, []).append(entry.team)
    seasons = {tid: [t.name for t in teams] for tid, teams in teams_of.items() if shown[tid].is_chgk}
    snapshots = player_snapshots(list(shown), player.nick, seasons)
    for tid, items in snapshots.items():
        result = shown[tid]
        for item in items:
            names = {t.name for t in teams_of.get(tid, []) if t.stage is None or t.stage.key == item.stage_key}
            for p in item.rows:
                if isinstance(p, dict) and p.get("player") == player.nick:
                    result.rows.append({**p, "stage": item.stage_key,
                                        "status_label": str(label(TEAM_STATUSES, p.get("status")))})
            if not item.lists_players:
                for p in item.figures or []:
                    if isinstance(p, dict) and p.get("player") == player.nick:
                        result.rows.append({**p, "stage": item.stage_key, "rank": None, "status_label": ""})
            for award in item.awards:
                if award.get("player") == player.nick or (award.get("player") is None and award.get("team") in names):
                    given = items_of(award, player, item.cups)
                    result.awards.append({**award, "stage": item.stage_key, "team_award": award.get("player") is None,
                                          "items": given, "items_text": [str(label(ITEMS, i)) for i in given]})
            if result.is_chgk:
                history = _season_of(item, [t for t in teams_of.get(tid, []) if t.name in names])
                result.season.extend(history)
                # a ChGK table ranks teams: the player's result is the team's (no games: the tours are the team's)
                result.rows.extend({"stage": h["stage"], "rank": h["rank"], "points": h["points"], "games": None,
                                    "status": h["status"], "status_label": h["status_label"]} for h in history)
    return list(shown.values())


def is_mafia(ruleset: str) -> bool:
    """Whether the ruleset plays Mafia games (seats and roles), not ChGK tours (``Ruleset.rounds``)."""
    return rulesets.get(ruleset).rounds != "tours"
