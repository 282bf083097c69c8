"""``import_tournament FILE [--replace]``: load an interchange document (spec/interchange.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from tournaments.importer import ImportRefused, decode, import_document


class Command(BaseCommand):
    help = "Import a tournament-portal/1 JSON document; prints the new tournament's slug."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", help="path of the JSON document ('-' for standard input)")
        parser.add_argument("--replace", action="store_true", help="replace a tournament with the same slug")

    def handle(self, *args, file: str, replace: bool, **options) -> None:
        try:
            # the document is handed over, not kept here: the importer lets it go once parsed, and its text is
            # gone once decoded (issue 45: together half of a 10,000-game league's peak memory)
            tournament = import_document(self.document(file), replace=replace)
        except ImportRefused as exc:
            for problem in exc.problems:
                self.stderr.write(str(problem))
            raise CommandError(f"import refused: {len(exc.problems)} problem(s); nothing was changed") from exc
        self.stdout.write(tournament.slug)

    @staticmethod
    def document(file: str) -> Any:
        """The decoded document of ``file`` ('-': standard input); ``ImportRefused`` when it is not JSON."""
        try:
            raw = sys.stdin.read() if file == "-" else Path(file).read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {file}: {exc}") from exc
        return decode(raw)
