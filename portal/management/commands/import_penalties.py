"""``import_penalties FILE --tournament SLUG [--games games.txt [--line NAME=STAGE]...] [--dry-run] --user NAME``.

A penalty file, one penalty a line ``game:clan:nick:reason:points`` as ``penalties.txt``: a judge's
penalty (``штраф`` or another reason, FL-18) is recorded with its points; a no-show (``неявка``) is read as the
rules read it, the portal detecting it from the game (FL-15.1, or FL-10's absent teams of a game not held, 0.1
each by FL-16). Each line's game is the tournament's game linked to that log, else the one the stage list
``--games`` places it at (the n-th game of the lines that go into a stage is its game n; ``--line`` maps a line to
a stage, else the i-th line goes into the i-th stage). The judges' and the curator's act, not the organizers'
(FL-0). The dry run prints each line with what it would do as JSON and writes nothing; without it the file is one
transaction (``tournaments.sources.penalty_import``). A refusal names the line; nothing of a refused file is
written.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from portal import hooks
from portal.management.commands.import_game_log import acting_user, pairs, tournament_named
from rulesets.errors import Refused
from tournaments.sources.files import as_text, read_file, refuse_in_command
from tournaments.sources.penalty_import import import_penalties, read_penalties


class Command(BaseCommand):
    help = "Read a penalty file (game:clan:nick:reason:points a line) into a tournament; --dry-run prints it."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", help="the penalty file")
        parser.add_argument("--tournament", required=True, help="tournament slug")
        parser.add_argument("--games", help="the stage list (Этап1:id,id,... a line) that places the games")
        parser.add_argument("--line", action="append", metavar="NAME=STAGE",
                            help="the stage a line of the stage list goes into (repeatable; default: by position)")
        parser.add_argument("--dry-run", action="store_true", help="print what would be done as JSON, write nothing")
        parser.add_argument("--user", help="the acting user's username (required to write; the audit names it)")

    def handle(self, *args, file: str, tournament: str, games: str | None, line, dry_run: bool,
               user: str | None, **options) -> None:
        lines = pairs(line, "--line")
        try:
            text = as_text(read_file(file))
            stage_list = as_text(read_file(games)) if games else None
        except Refused as exc:
            raise CommandError(exc.message) from exc
        row = tournament_named(tournament)
        if dry_run:
            plan = read_penalties(row, text, stage_list=stage_list, lines=lines)
            self.stdout.write(json.dumps(plan.as_json(), ensure_ascii=False, indent=2))
            refuse_in_command(self.stderr, plan.problems)
            return
        acting = acting_user(user)
        try:
            plan = import_penalties(acting, row, text, stage_list=stage_list, lines=lines,
                                    game_problems=hooks.game_problems)
        except Refused as exc:
            refuse_in_command(self.stderr, exc.located())
            raise
        self.stdout.write(json.dumps(plan.as_json(), ensure_ascii=False, indent=2))
