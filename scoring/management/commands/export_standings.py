"""``export_standings SLUG [--stage KEY]``: print the standings export document."""

from __future__ import annotations

import json

from django.core.management.base import BaseCommand, CommandError

from rulesets.base import RulesetError
from scoring.services import current_export
from tournaments.models import Tournament


class Command(BaseCommand):
    help = "Print the tournament-portal/standings/1 document of a tournament."

    def add_arguments(self, parser) -> None:
        parser.add_argument("slug")
        parser.add_argument("--stage", default=None, help="the table as it stood after this stage")

    def handle(self, *args, slug: str, stage: str | None, **options) -> None:
        tournament = Tournament.objects.filter(slug=slug).first()
        if tournament is None:
            raise CommandError(f"no tournament {slug!r}")
        if stage is not None and not tournament.stages.filter(key=stage).exists():
            keys = ", ".join(tournament.stages.values_list("key", flat=True)) or "none"
            raise CommandError(f"tournament {slug!r} has no stage {stage!r} (stages: {keys})")
        try:
            document = current_export(tournament, stage)
        except RulesetError as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(json.dumps(document, ensure_ascii=False, indent=1))
