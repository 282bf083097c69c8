"""A mafiaonline.ru game log as a game of a stage: the seats' teams from the rosters, the write (issue 18).

``read_game_log`` turns the page (``tournaments.sources.mafiaonline_log``) into
the interchange game object the entry form, the command and the API show as a
preview: the portal's game number, each seat's team from the stage's rosters by
nick (a nick no roster holds is listed for the organizer to assign), and what
the log cannot tell (``stats``, which class_balanced needs). ``import_game_log``
writes it through ``tournaments.commands.record_game`` (or ``update_game`` for a
game already scheduled), so a log is judged, audited and recomputed exactly as
the same game typed in the entry form.

The game keeps the log's link (``Game.link``, ``https://mafiaonline.ru/log/N``),
which names the site's game number: a log of another game than the one the
portal's game already links to is refused, and so is a log another game of the
stage already holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q
from django.utils.translation import gettext as _

from rulesets.errors import Invalid, NotFound, Problem
from tournaments import commands
from tournaments.models import Game, RosterEntry, Stage, Tournament
from tournaments.sources.mafiaonline_log import assign_teams, log_number, parse_game_log

NOT_IN_THE_LOG = ("stats", "fake_passport")  # what the organizer adds (CB-3 needs stats in class_balanced)


@dataclass
class LogImport:
    """The game a log gives a stage, before it is saved."""

    game: dict[str, Any] | None
    site_number: int | None = None
    unknown: list[str] = field(default_factory=list)  # nicks on no roster of the stage
    problems: list[Problem] = field(default_factory=list)  # refusals: nothing can be saved
    not_in_log: tuple[str, ...] = NOT_IN_THE_LOG

    def as_json(self) -> dict[str, Any]:
        return {"game": self.game, "site_number": self.site_number, "unknown_players": self.unknown,
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


def read_game_log(tournament: Tournament, stage: Stage, number: int, text: str,
                  chosen: dict[str, str] | None = None) -> LogImport:
    """The game object of stage ``stage``'s game ``number`` that the log ``text`` gives (see the module)."""
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
    return LogImport(game=game, site_number=site_number, unknown=unknown, problems=problems)


def unknown_problems(result: LogImport) -> list[Problem]:
    """A refusal for each seat whose team is still unknown."""
    return [Problem(f"seats[{i}].team", _("%(nick)s is on no team of the stage: choose the team") % {
        "nick": seat["player"]}) for i, seat in enumerate(result.game["seats"]) if seat["team"] is None] if (
        result.game) else []


def import_game_log(user, tournament_slug: str, stage_key: str, number: int, text: str, *,
                    chosen: dict[str, str] | None = None, game_problems: commands.GameProblems | None = None,
                    seat_values: dict[str, dict[str, Any]] | None = None) -> Game:
    """Record the log as game ``number`` of the stage: ``record_game``, or ``update_game`` if it exists.

    ``chosen``: nick -> team for the nicks no roster holds; ``seat_values``: nick -> what the log cannot tell
    (``{"stats": 300}``). Refused (``Invalid``, nothing saved) when the page
    is not a whole game log, is another game's log, or a seat has no team; then as a typed game would be.
    """
    tournament = Tournament.objects.filter(slug=tournament_slug).first()
    if tournament is None:
        raise NotFound(_("unknown tournament %(slug)r") % {"slug": tournament_slug})
    commands.require_result_entry(user, tournament)
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
