"""The CSV and XLSX standings word their headers, tie-break keys, statuses and award items in the
reader's language, not as raw codes (the JSON export keeps the interchange's codes)."""

from __future__ import annotations

import csv
import io

import pytest
from openpyxl import load_workbook

from scoring.services import recompute
from tests.conftest import example
from tournaments.importer import import_document

pytestmark = pytest.mark.django_db
API = "/api/v1"


@pytest.fixture
def league():
    tournament = import_document(example("family_league"))
    recompute(tournament.pk, force=True)
    return tournament


@pytest.mark.parametrize(("language", "rank", "tiebreak", "status"), [
    ("en", "Rank", "points won on the mafia side", "in play"),
    ("ru", "Место", "очки за игру за мафию", "в игре")])
def test_csv_words_headers_tiebreaks_and_statuses(client, league, language, rank, tiebreak, status):
    response = client.get(f"{API}/tournaments/{league.slug}/standings/?format=csv", HTTP_ACCEPT_LANGUAGE=language)
    rows = list(csv.reader(io.StringIO(response.content.decode("utf-8-sig"))))
    assert rows[0][0] == rank
    assert tiebreak in rows[0] and "mafia_points" not in rows[0]
    cells = {cell for row in rows[1:] for cell in row}
    assert "active" not in cells and status in cells


def test_xlsx_words_statuses_in_russian(client, league):
    response = client.get(f"{API}/tournaments/{league.slug}/standings/?format=xlsx", HTTP_ACCEPT_LANGUAGE="ru")
    rows = list(load_workbook(io.BytesIO(response.content)).worksheets[0].iter_rows(values_only=True))
    cells = {cell for row in rows for cell in row}
    assert "в игре" in cells and "active" not in cells and "mafia_points" not in cells


def test_the_json_export_keeps_the_interchange_codes(client, league):
    export = client.get(f"{API}/tournaments/{league.slug}/standings/", HTTP_ACCEPT_LANGUAGE="ru").json()
    assert {row["status"] for row in export["teams"]} <= {"active", "advanced", "eliminated", "withdrawn",
                                                          "disqualified", "winner"}
    assert "mafia_points" in export["teams"][0]["tiebreaks"]
