"""``import_rating_results FILE --tournament SLUG --tour N [--host TEAM --date YYYY-MM-DD] [--dry-run]``: a
rating-site response as a tour, created when the season has no tour N yet.

The dry run prints ``{"tour": <the interchange tour object>, "appeals": [...], "places": [{"team", "place",
"site_position"}]}`` and writes nothing; it needs only the tournament. Without it the masks go through
``tournaments.commands.record_tour_masks`` and the controversials become the tour's appeals
(``formats.chgk_tour_points.rating_import``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError

from formats.chgk_tour_points.rating_import import import_rating_results, read_rating_results
from rulesets.errors import Refused
from tournaments.models import Tournament
from tournaments.sources.chgk_rating import decode
from tournaments.sources.files import read_file, refuse_in_command


def _date(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"not a date (YYYY-MM-DD): {value!r}") from exc


class Command(BaseCommand):
    help = "Read a rating-site results response (v1 list or v2 results) as tour N; --dry-run prints it as JSON."

    def add_arguments(self, parser) -> None:
        parser.add_argument("file", help="the saved JSON response")
        parser.add_argument("--tournament", required=True, help="tournament slug (its teams are matched)")
        parser.add_argument("--tour", type=int, required=True, help="the tour's number in the season")
        parser.add_argument("--dry-run", action="store_true", help="print the tour, appeals and places; write nothing")
        parser.add_argument("--map", action="append", dest="mapping", metavar="SITE=TEAM",
                            help="a site team (its id or name) -> a season team; an empty TEAM skips it")
        parser.add_argument("--skip-unmatched", action="store_true", help="leave out the teams no season team matches")
        parser.add_argument("--user", help="the acting user's username (required to write; the audit names it)")
        parser.add_argument("--host", help="a new tour's host team (CHGK-7); the tour is created when missing")
        parser.add_argument("--date", dest="played_on", type=_date, help="a new tour's date, YYYY-MM-DD")

    def handle(self, *args, file: str, tournament: str, tour: int, dry_run: bool, mapping, skip_unmatched: bool,
               user: str | None, host: str | None = None, played_on: dt.date | None = None, **options) -> None:
        pairs = mapping or []
        mapping = {}
        for value in pairs:
            site, sep, team = value.rpartition("=")
            if not sep or not site.strip():
                raise CommandError(f"--map takes SITE=TEAM, not {value!r}")
            mapping[site.strip()] = team.strip()
        try:
            raw = read_file(file)
        except Refused as exc:
            raise CommandError(exc.message) from exc
        data, problems = decode(raw)
        self._refuse_if(problems)
        row = Tournament.objects.filter(slug=tournament).first()
        if row is None:
            raise CommandError(f"unknown tournament {tournament!r}")
        try:
            if dry_run:
                result = read_rating_results(row, tour, data, mapping, skip_unmatched, host=host,
                                             played_on=played_on)
                self._refuse_if(result.problems)
                self._differences(result)
                self.stdout.write(json.dumps(result.as_json(), ensure_ascii=False, indent=2))
                return
            if not user:
                raise CommandError("--user USERNAME is required to write (the audit names who entered the result)")
            acting = get_user_model().objects.filter(username=user).first()
            if acting is None:
                raise CommandError(f"unknown user {user!r}")
            result = import_rating_results(acting, tournament, tour, data, mapping=mapping,
                                           skip_unmatched=skip_unmatched, host=host, played_on=played_on)
        except Refused as exc:
            self._refuse_if(exc.located())
            raise
        self._differences(result)
        self.stdout.write(f"{row.slug} tour {tour}: {len(result.tour['masks'])} masks, {len(result.appeals)} appeals")

    def _differences(self, result) -> None:
        for row in result.skipped:
            self.stderr.write(f"skipped: {row['name']} (site id {row['site_id']})")
        for row in result.differences:
            self.stderr.write(f"place differs: {row['team']} portal {row['place']}, site {row['site_position']}")

    def _refuse_if(self, problems) -> None:
        refuse_in_command(self.stderr, problems)
