"""``import_rosters FILE --tournament SLUG [--format auto|clans|csv] [--families] [--dry-run] --user NAME``.

A roster file: the clan list of mafiaonline.ru tournaments (``Clan:nick, nick, ...``, one clan a
line, as ``teams.txt``) or CSV (``team,player[,captain]``) into the tournament's teams; with ``--families`` the
clans are families (a family league's teams). Players the portal knows are reused by nick, new nicks become
players. The dry run prints, as JSON, every team and player with what the import would do (``new``, ``known``,
``on_roster``) and the refusals, and writes nothing; without it the file is written through
``tournaments.commands`` (``add_team``, ``add_to_roster``, ``set_captain``) in one transaction, audited with the
user, recomputed once (``tournaments.sources.roster_import``). A refusal names the line and the nick; nothing of
a refused file is written.
"""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from portal.management.commands.import_game_log import acting_user, tournament_named
from rulesets.errors import Refused
from tournaments.sources.files import as_text, read_file, refuse_in_command
from tournaments.sources.roster_file import KINDS
from tournaments.sources.roster_import import import_rosters, read_rosters


class Command(BaseCommand):
    help = "Read a roster file (clan list or CSV) into a tournament's teams; --dry-run prints it as JSON."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", help="the roster file: Clan:nick, nick, ... a line, or CSV team,player[,captain]")
        parser.add_argument("--tournament", required=True, help="tournament slug")
        parser.add_argument("--format", choices=KINDS, default="auto", help="the file's format (auto: by its lines)")
        parser.add_argument("--families", action="store_true",
                            help="the clans are families: each team is its family's (a family league)")
        parser.add_argument("--dry-run", action="store_true", help="print what would be done as JSON, write nothing")
        parser.add_argument("--user", help="the acting user's username (required to write; the audit names it)")

    def handle(self, *args, file: str, tournament: str, format: str, families: bool, dry_run: bool,
               user: str | None, **options) -> None:
        try:
            text = as_text(read_file(file))
        except Refused as exc:
            raise CommandError(exc.message) from exc
        row = tournament_named(tournament)
        if dry_run:
            plan = read_rosters(row, text, kind=format, name=file, families=families)
            self.stdout.write(json.dumps(plan.as_json(), ensure_ascii=False, indent=2))
            refuse_in_command(self.stderr, plan.problems)
            return
        acting = acting_user(user)
        try:
            plan = import_rosters(acting, row, text, kind=format, name=file, families=families)
        except Refused as exc:
            refuse_in_command(self.stderr, exc.located())
            raise
        self.stdout.write(json.dumps(plan.as_json(), ensure_ascii=False, indent=2))
