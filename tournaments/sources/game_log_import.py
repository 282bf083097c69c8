"""A mafiaonline.ru game log as a game of a stage: the seats' teams from the rosters, the write.

``read_game_log`` turns the page (``tournaments.sources.mafiaonline_log``) into
the interchange game object the entry form, the command and the API show as a
preview: the portal's game number, each seat's team from the stage's rosters by
nick (a nick no roster holds is listed for the organizer to assign), and what
the log cannot tell (``stats``, which class_balanced needs). ``import_game_log``
writes it through ``tournaments.commands.record_game`` (or ``update_game`` for a
game already scheduled), so a log is judged, audited and recomputed exactly as
the same game typed in the entry form.

The log names neither the clans nor the group: a nick the portal does not know (no ``Player``) is listed as
``new_players``, and ``record_adding_players`` (the entry form's save) puts each one the organizer ticked on the
roster of its team (``tournaments.commands.add_to_roster``) and records the game, in one transaction; the group
of a stage with several groups (FL-8) is the one that holds every seat's team, when one does.

The game keeps the log's link (``Game.link``, ``https://mafiaonline.ru/log/N``),
which names the site's game number: a log of another game than the one the
portal's game already links to is refused, and so is a log another game of the
stage already holds.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.db.models import Q
from django.utils.translation import gettext as _

from accounts.models import Player
from rulesets.errors import Conflict, Invalid, NotAllowed, NotFound, Problem, Refused
from tournaments import commands
from tournaments.fact_fields import SEAT
from tournaments.models import Game, GroupTeam, RosterEntry, Stage, Tournament
from tournaments.sources.mafiaonline_log import assign_teams, log_number, parse_game_log

NOT_IN_THE_LOG = SEAT.not_in_log  # what the organizer adds (tournaments.fact_fields: stats, fake passports)


@dataclass
class LogImport:
    """The game a log gives a stage, before it is saved."""

    game: dict[str, Any] | None
    site_number: int | None = None
    unknown: list[str] = field(default_factory=list)  # nicks on no roster of the stage
    new_players: list[str] = field(default_factory=list)  # nicks the portal does not know (no Player)
    problems: list[Problem] = field(default_factory=list)  # refusals: nothing can be saved
    not_in_log: tuple[str, ...] = NOT_IN_THE_LOG

    def as_json(self) -> dict[str, Any]:
        return {"game": self.game, "site_number": self.site_number, "unknown_players": self.unknown,
                "new_players": self.new_players,
                "not_in_log": list(self.not_in_log),
                "problems": [{"path": p.path, "message": p.message} for p in self.problems]}


def roster_teams(tournament: Tournament, stage: Stage) -> dict[str, str]:
    """Nick -> team name over the stage's teams (the tournament's, then the stage's own draw, which wins).

    A nick on two teams of the stage is left out: the organizer chooses.
    """
    entries = RosterEntry.objects.filter(Q(team__stage__isnull=True) | Q(team__stage=stage),
                                         team__tournament=tournament, left_at__isnull=True).values_list(
        "player__nick", "team__name", "team__stage_id")
    by_nick: dict[str, dict[str, bool]] = {}
    for nick, team, stage_id in entries:
        by_nick.setdefault(nick, {})[team] = stage_id is not None
    out = {}
    for nick, teams in by_nick.items():
        own = [t for t, drawn in teams.items() if drawn]
        choices = own or list(teams)
        if len(choices) == 1:
            out[nick] = choices[0]
    return out


def new_nicks(nicks: Iterable[str]) -> list[str]:
    """The nicks no ``Player`` has (the portal does not know them yet), in the order given."""
    nicks = [n for n in dict.fromkeys(nicks) if n]
    known = set(Player.objects.filter(nick__in=nicks).values_list("nick", flat=True)) if nicks else set()
    return [n for n in nicks if n not in known]


def group_of_teams(stage: Stage, teams: Iterable[str | None]) -> str | None:
    """The one group of a stage with several groups that holds every team named (FL-8); None otherwise."""
    named = {t for t in teams if t}
    groups: dict[str, set[str]] = {}
    for group, team in GroupTeam.objects.filter(group__stage=stage).values_list("group__name", "team__name"):
        groups.setdefault(group, set()).add(team)
    if len(groups) < 2 or not named:
        return None
    holding = [g for g, members in groups.items() if named <= members]
    return holding[0] if len(holding) == 1 else None


def read_game_log(tournament: Tournament, stage: Stage, number: int, text: str,
                  chosen: dict[str, str] | None = None) -> LogImport:
    """The game object of stage ``stage``'s game ``number`` that the log ``text`` gives (see the module)."""
    if "\x00" in text:  # no column stores one: refused for the API, the entry form and the command alike
        return LogImport(game=None, problems=[Problem("log", _("%(path)s contains a NUL character") % {
            "path": "log"})])
    parsed, problems = parse_game_log(text)
    if parsed is None:
        return LogImport(game=None, problems=problems)
    site_number = parsed["number"]
    existing = Game.objects.filter(stage=stage, number=number).first()
    linked = log_number(existing.link) if existing is not None else None
    if linked is not None and linked != site_number:
        problems.append(Problem("number", _(
            "this is the log of game %(site)d, but game %(number)d of stage %(stage)s is the site's game "
            "%(linked)d: nothing was saved") % {"site": site_number, "number": number, "stage": stage.key,
                                               "linked": linked}))
    for other in Game.objects.filter(stage=stage).exclude(number=number).exclude(link="").only("number", "link"):
        if log_number(other.link) == site_number:
            problems.append(Problem("link", _("the log of game %(site)d is already game %(other)d of stage "
                                              "%(stage)s") % {"site": site_number, "other": other.number,
                                                              "stage": stage.key}))
    game, unknown = assign_teams(parsed, roster_teams(tournament, stage), chosen)
    game["number"] = number
    if existing is not None:  # what the log does not know is kept as the game has it
        if existing.round is not None:
            game["round"] = existing.round
        if existing.group_label:
            game["group"] = existing.group_label
        if existing.scheduled_at is not None:
            game["scheduled_at"] = existing.scheduled_at.isoformat()
    if not game.get("group"):
        group = group_of_teams(stage, (s["team"] for s in game["seats"]))
        if group is not None:
            game["group"] = group
    return LogImport(game=game, site_number=site_number, unknown=unknown,
                     new_players=new_nicks(s["player"] for s in game["seats"]), problems=problems)


def unknown_problems(result: LogImport) -> list[Problem]:
    """A refusal for each seat whose team is still unknown."""
    return [Problem(f"seats[{i}].team", _("%(nick)s is on no team of the stage: choose the team") % {
        "nick": seat["player"]}) for i, seat in enumerate(result.game["seats"]) if seat["team"] is None] if (
        result.game) else []


def import_game_log(user, tournament_slug: str, stage_key: str, number: int, text: str, *,
                    game_problems: commands.GameProblems | None, chosen: dict[str, str] | None = None,
                    seat_values: dict[str, dict[str, Any]] | None = None) -> Game:
    """Record the log as game ``number`` of the stage: ``record_game``, or ``update_game`` if it exists.

    ``game_problems``: the format's refusals (``portal.hooks.game_problems``, e.g. CB-2, CB-6), which a log is
    judged by as a typed game is; a caller names them (``None`` only for a test of the facts alone).

    ``chosen``: nick -> team for the nicks no roster holds; ``seat_values``: nick -> what the log cannot tell
    (``{"stats": 300}``). Refused (``Invalid``, nothing saved) when the page
    is not a whole game log, is another game's log, or a seat has no team; then as a typed game would be.
    """
    tournament = Tournament.objects.filter(slug=tournament_slug).first()
    if tournament is None:
        raise NotFound(_("unknown tournament %(slug)r") % {"slug": tournament_slug})
    commands.require_result_entry(user, tournament, stage_key)
    stage = Stage.objects.filter(tournament=tournament, key=stage_key).first()
    if stage is None:
        raise Invalid(Problem("stage", _("tournament %(slug)s has no stage %(key)r") % {
            "slug": tournament.slug, "key": stage_key}))
    result = read_game_log(tournament, stage, number, text, chosen)
    problems = result.problems or unknown_problems(result)
    if problems:
        raise Invalid(problems)
    game = result.game
    if seat_values:
        game["seats"] = [{**seat, **seat_values.get(seat["player"], {})} for seat in game["seats"]]
    existing = Game.objects.filter(stage=stage, number=number).first()
    if existing is None:
        return commands.record_game(user, {"tournament": tournament.slug, "stage": stage.key, **game},
                                    game_problems=game_problems)
    return commands.update_game(user, existing.pk, {**game, "version": existing.version},
                                game_problems=game_problems)


def _at_seat(index: int, refused: Refused) -> list[Problem]:
    """A roster addition's problems at its seat (``player`` -> ``seats[i].player``)."""
    return [Problem(f"seats[{index}].{p.path}" if p.path else f"seats[{index}]", p.message)
            for p in refused.located()]


def _additions_problems(user, tournament: Tournament, stage: Stage, seats: list[Any],
                        additions: dict[int, str]) -> tuple[list[Problem], bool]:
    """Add each ticked seat's player to the roster (the seat without a team takes the addition's); the problems
    of the additions and of the unticked new nicks, and whether one was a refusal of the acting user."""
    problems: list[Problem] = []
    forbidden = False
    nicks = {i: seat.get("player") for i, seat in enumerate(seats) if isinstance(seat, dict)}
    new = set(new_nicks(nick for nick in nicks.values() if isinstance(nick, str)))
    for index, nick in nicks.items():
        seat = seats[index]
        if index not in additions:
            if nick in new:
                problems.append(Problem(f"seats[{index}].player", _(
                    "%(nick)s is not known to the portal yet: tick “add to the roster” for this seat (or import "
                    "the roster first)") % {"nick": nick}))
            continue
        team = additions[index] or seat.get("team") or ""
        if seat.get("team") and team != seat["team"]:
            problems.append(Problem(f"seats[{index}].team", _(
                "%(nick)s plays for %(seat)s in this seat but would join the roster of %(team)s: choose one team")
                % {"nick": nick, "seat": seat["team"], "team": team}))
            continue
        seat["team"] = team
        try:
            commands.add_to_roster(user, tournament, stage, team, nick)
        except (Invalid, NotAllowed) as refused:
            forbidden = forbidden or isinstance(refused, NotAllowed)
            problems += _at_seat(index, refused)
    return problems, forbidden


def record_adding_players(user, tournament: Tournament, stage: Stage, game: Game | None, payload: dict[str, Any],
                          additions: dict[int, str], *, game_problems: commands.GameProblems | None,
                          accept_conflicts: bool = False) -> Game:
    """The entry form's save: the players of the seats ``additions`` names (seat index -> team, ``""`` for the
    seat's own) join their team's roster (``commands.add_to_roster``, new nicks become players), then the game is
    recorded (``record_game``) or, for ``game``, changed (``update_game``, ``payload`` with the ``version`` read),
    judged with the format's ``game_problems``. One transaction: when anything is refused nothing is saved, and
    the refusal names every problem at once, each at its seat (``seats[i].player``); a seat whose nick the
    portal does not know and that is not ticked is refused by name. ``accept_conflicts``: the organizer confirmed
    the later games the change puts in conflict (``commands.LaterConflicts``)."""
    payload = {**payload, "seats": [dict(s) if isinstance(s, dict) else s for s in payload.get("seats") or []]}
    with transaction.atomic():
        problems, forbidden = _additions_problems(user, tournament, stage, payload["seats"], additions)
        try:
            if game is None:
                saved = commands.record_game(user, {"tournament": tournament.slug, "stage": stage.key, **payload},
                                             game_problems=game_problems, accept_conflicts=accept_conflicts)
            else:
                saved = commands.update_game(user, game.pk, payload, game_problems=game_problems,
                                             accept_conflicts=accept_conflicts)
        except (Conflict, NotFound):
            raise
        except Refused as refused:
            if not problems:
                raise
            told = {p.path.split(".")[0] for p in problems}  # a seat refused above: who plays in it is told
            problems += [p for p in refused.located() if p.path.split(".")[0] not in told
                         or p.path.partition(".")[2] not in ("", "player", "team")]
        if problems:
            raise (NotAllowed if forbidden else Invalid)(list(dict.fromkeys(problems)))
    return saved
