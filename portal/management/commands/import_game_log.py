"""``import_game_log LOG.html --tournament SLUG --stage KEY --game N [--dry-run]``: a mafiaonline.ru game log.

The dry run prints the game object of the interchange (spec/interchange.md, "Mafia game") the log gives
game N of the stage, and writes nothing; it needs only the tournament (its rosters give each seat's team).
Without it the game is saved through ``tournaments.commands.record_game`` / ``update_game`` with the format's
own refusals (``portal.hooks.game_problems``), exactly as a game typed in the entry form: this is why the
command lives in ``portal`` (``tournaments`` cannot reach the format hooks).
"""

from __future__ import annotations

import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from portal import hooks
from rulesets.errors import Refused
from tournaments.models import Stage, Tournament
from tournaments.sources.files import as_text, read_file, refuse_in_command
from tournaments.sources.game_log_import import import_game_log, read_game_log, unknown_problems


def pairs(values: list[str], option: str) -> dict[str, str]:
    """``NAME=VALUE`` options as a dict (the name may hold spaces; the last ``=`` splits)."""
    out = {}
    for value in values or []:
        name, sep, rest = value.rpartition("=")
        if not sep or not name.strip():
            raise CommandError(f"{option} takes NAME=VALUE, not {value!r}")
        out[name.strip()] = rest.strip()
    return out


def tournament_named(slug: str) -> Tournament:
    """The tournament of ``--tournament``, or the command's error."""
    row = Tournament.objects.filter(slug=slug).first()
    if row is None:
        raise CommandError(f"unknown tournament {slug!r}")
    return row


def stage_named(tournament: Tournament, key: str) -> Stage:
    """The stage of ``--stage`` in the tournament, or the command's error."""
    stage = Stage.objects.filter(tournament=tournament, key=key).first()
    if stage is None:
        raise CommandError(f"tournament {tournament.slug} has no stage {key!r}")
    return stage


def acting_user(username: str | None):
    """The user of ``--user``, who the audit names; required to write."""
    if not username:
        raise CommandError("--user USERNAME is required to write (the audit names who entered the result)")
    acting = get_user_model().objects.filter(username=username).first()
    if acting is None:
        raise CommandError(f"unknown user {username!r}")
    return acting


class Command(BaseCommand):
    help = "Read a mafiaonline.ru game log (\"Лог партии\") as game N of a stage; --dry-run prints it as JSON."

    def add_arguments(self, parser) -> None:
        parser.add_argument("log", help="the saved log page (HTML)")
        parser.add_argument("--tournament", required=True, help="tournament slug (its rosters give the teams)")
        parser.add_argument("--stage", required=True, help="stage key")
        parser.add_argument("--game", type=int, required=True, help="the game's number in the stage")
        parser.add_argument("--dry-run", action="store_true", help="print the game object, write nothing")
        parser.add_argument("--team", action="append", metavar="NICK=TEAM",
                            help="the team of a player no roster of the stage holds (repeatable)")
        parser.add_argument("--stats", action="append", metavar="NICK=STATS",
                            help="a player's stats, which the log does not show (where the ruleset needs them, CB-3; repeatable)")
        parser.add_argument("--user", help="the acting user's username (required to write; the audit names it)")

    def handle(self, *args, log: str, tournament: str, stage: str, game: int, dry_run: bool, team, stats,
               user: str | None, **options) -> None:
        chosen = pairs(team, "--team")
        try:
            stats_of = {nick: {"stats": int(value)} for nick, value in pairs(stats, "--stats").items()}
        except ValueError as exc:
            raise CommandError("--stats takes NICK=NUMBER") from exc
        try:
            text = as_text(read_file(log))
        except Refused as exc:
            raise CommandError(exc.message) from exc
        row = tournament_named(tournament)
        stage_row = stage_named(row, stage)
        if dry_run:
            result = read_game_log(row, stage_row, game, text, chosen)
            self._refuse_if(result.problems)
            if stats_of and result.game:
                result.game["seats"] = [{**s, **stats_of.get(s["player"], {})} for s in result.game["seats"]]
            for problem in unknown_problems(result):
                self.stderr.write(f"to assign: {problem}")
            if result.new_players:
                self.stderr.write("not known to the portal yet (put them on a roster first, e.g. from the entry "
                                  "form's preview): " + ", ".join(result.new_players))
            self.stderr.write("not in the log (add them in the entry form): " + ", ".join(result.not_in_log))
            self.stdout.write(json.dumps(result.game, ensure_ascii=False, indent=2))
            return
        acting = acting_user(user)
        try:
            saved = import_game_log(acting, tournament, stage, game, text, chosen=chosen,
                                    game_problems=hooks.game_problems, seat_values=stats_of)
        except Refused as exc:
            self._refuse_if(exc.located())
            raise
        self.stdout.write(f"{row.slug} {stage} game {saved.number}: {saved.link}")

    def _refuse_if(self, problems) -> None:
        refuse_in_command(self.stderr, problems)
