"""``import_tournament FILE [FILE ...] [--replace]``: load interchange documents (spec/interchange.md).

Several files are imported in one transaction, in their order: all of them or, when any is refused, none
(each problem printed with its file's name); the slug of each is printed on a line.
"""

from __future__ import annotations

import contextlib
import sys
from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from tournaments.importer import ImportRefused, decode, import_document


class Command(BaseCommand):
    help = "Import tournament-portal/1 JSON documents (several: all or none); prints each new tournament's slug."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", nargs="+", help="path of a JSON document ('-' for standard input)")
        parser.add_argument("--replace", action="store_true", help="replace a tournament with the same slug")

    def handle(self, *args, file: list[str] | str, replace: bool, **options) -> None:
        files = [file] if isinstance(file, str) else list(file)
        slugs = []
        # one file as before: its own transaction (import_document's); several: one transaction for them all
        with transaction.atomic() if len(files) > 1 else contextlib.nullcontext():
            for name in files:
                try:
                    # the document is handed over, not kept here: the importer lets it go once parsed, and its text
                    # is gone once decoded (together half of a 10,000-game league's peak memory)
                    tournament = import_document(self.document(name), replace=replace)
                except ImportRefused as exc:
                    where = f"{name}: " if len(files) > 1 else ""
                    for problem in exc.problems:
                        self.stderr.write(f"{where}{problem}")
                    raise CommandError(f"{where}import refused: {len(exc.problems)} problem(s); nothing was "
                                       "changed") from exc
                slugs.append(tournament.slug)
        for slug in slugs:
            self.stdout.write(slug)

    @staticmethod
    def document(file: str) -> Any:
        """The decoded document of ``file`` ('-': standard input); ``ImportRefused`` when it is not JSON."""
        try:
            raw = sys.stdin.read() if file == "-" else Path(file).read_bytes()
        except OSError as exc:
            raise CommandError(f"cannot read {file}: {exc}") from exc
        return decode(raw)
