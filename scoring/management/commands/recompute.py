"""``recompute [SLUG ...]``: recompute and store standings snapshots now."""

from django.core.management.base import BaseCommand

from scoring.services import recompute
from tournaments.models import Tournament


class Command(BaseCommand):
    help = "Recompute the standings snapshots of the given tournaments (all when none is given)."

    def add_arguments(self, parser) -> None:
        parser.add_argument("slugs", nargs="*")

    def handle(self, *args, slugs: list[str], **options) -> None:
        qs = Tournament.objects.all()
        if slugs:
            qs = qs.filter(slug__in=slugs)
        for tournament in qs:
            recompute(tournament.pk, force=True)
            self.stdout.write(f"{tournament.slug}: recomputed at facts version {tournament.facts_version}")
