"""``import_game_logs LOG_OR_FOLDER... --tournament SLUG --stage KEY [--games games.txt [--line NAME]...]
[--team NICK=TEAM]... [--dry-run] --user NAME``: many mafiaonline.ru game logs into one stage.

Each log (a file, or every ``.html`` of a folder) is placed by the stage list ``--games`` (the format of
``games.txt``, ``Этап1:id,id,...``: the n-th game of the lines that go into the stage is its game n; ``--line``
names those lines, else the line at the stage's position), or without one by the game number in the log. Each
log is saved in its own transaction through ``record_game`` / ``update_game`` with the format's refusals
(``portal.hooks.game_problems``), exactly as the entry form saves a game; a refused log is reported with its
reason and the others are saved; the stage is recomputed once for the batch
(``tournaments.sources.log_batch``). ``--team`` assigns a nick no roster holds to a team, whose roster it joins.

Prints the batch's report as JSON (each log: its file, the site's game, its number in the stage, ``saved`` /
``ready`` / ``refused`` and why); the dry run writes nothing.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from portal import hooks
from portal.management.commands.import_game_log import acting_user, pairs, stage_named, tournament_named
from rulesets.errors import Refused
from tournaments.messages import render
from tournaments.sources.files import as_text, read_file, refuse_in_command
from tournaments.sources.log_batch import REFUSED, import_log_batch, log_files, read_log_batch


class Command(BaseCommand):
    help = "Read many mafiaonline.ru game logs into a stage, placed by a stage list; --dry-run prints the plan."

    def add_arguments(self, parser) -> None:
        parser.add_argument("logs", nargs="+", help="the saved log pages (HTML), or folders holding them")
        parser.add_argument("--tournament", required=True, help="tournament slug")
        parser.add_argument("--stage", required=True, help="stage key")
        parser.add_argument("--games", help="the stage list (Этап1:id,id,... a line) that places the logs")
        parser.add_argument("--line", action="append", metavar="NAME",
                            help="a line of the stage list that goes into the stage (repeatable; default: the "
                                 "line at the stage's position)")
        parser.add_argument("--team", action="append", metavar="NICK=TEAM",
                            help="the team of a player no roster of the stage holds; they join it (repeatable)")
        parser.add_argument("--dry-run", action="store_true", help="print the plan as JSON, write nothing")
        parser.add_argument("--user", help="the acting user's username (required to write; the audit names it)")

    def handle(self, *args, logs: list[str], tournament: str, stage: str, games: str | None, line, team,
               dry_run: bool, user: str | None, **options) -> None:
        chosen = pairs(team, "--team")
        stage_list = None
        if games:
            try:
                stage_list = as_text(read_file(games))
            except Refused as exc:
                raise CommandError(exc.message) from exc
        row = tournament_named(tournament)
        stage_row = stage_named(row, stage)
        files = log_files(logs)
        if dry_run:
            batch = read_log_batch(row, stage_row, files, stage_list=stage_list, lines=line, teams=chosen)
        else:
            acting = acting_user(user)
            try:
                batch = import_log_batch(acting, row, stage_row, files, stage_list=stage_list, lines=line,
                                         teams=chosen, game_problems=hooks.game_problems)
            except Refused as exc:
                refuse_in_command(self.stderr, exc.located())
                raise
        self.stdout.write(json.dumps(batch.as_json(), ensure_ascii=False, indent=2))
        refuse_in_command(self.stderr, batch.problems)
        for entry in batch.of(REFUSED):
            self.stderr.write(f"{entry.file}: refused: " + "; ".join(render(p.message) for p in entry.problems))
