"""Statuses that follow the facts (portal.table_status): the tournament is shown finished once
its latest stored table is final, earlier stages' tables are final then, rows agree with the badge, and a
preliminary table says which rule holds it open (FL-19, CHGK-18)."""

from __future__ import annotations

import pytest
from django.test import Client
from django.utils import timezone, translation

from scoring.services import recompute
from tests.conftest import example
from tournaments.demo import demo_class_balanced
from tournaments.importer import import_document
from tournaments.models import TournamentStatus

pytestmark = pytest.mark.django_db


def page(url: str, language: str = "en") -> str:
    client = Client(HTTP_ACCEPT_LANGUAGE=language)
    client.cookies["django_language"] = language
    return client.get(url).content.decode()


def said(language: str, message: str, context: str | None = None) -> str:
    with translation.override(language):
        return translation.pgettext(context, message) if context else translation.gettext(message)


@pytest.fixture
def finished_cup():
    """The demo class_balanced tournament: three stages, all played; its latest table is final (CB-17)."""
    tournament = import_document(demo_class_balanced())
    recompute(tournament.pk, force=True)
    assert tournament.status == TournamentStatus.RUNNING, "nobody set it: the status shown is derived"
    return tournament


@pytest.mark.parametrize("language", ["en", "ru"])
def test_cb_17_a_tournament_whose_latest_table_is_final_is_shown_finished_on_home_and_its_pages(finished_cup,
                                                                                             language):
    home = page("/", language)
    finished = said(language, "finished")
    recent = home[home.index(said(language, "No tournament has finished yet.")) if said(
        language, "No tournament has finished yet.") in home else 0:]
    assert finished_cup.name in home and finished in home
    assert said(language, "No tournament has finished yet.") not in home
    assert f'tournament-{TournamentStatus.FINISHED}' in recent
    header = page(finished_cup.get_absolute_url(), language)
    assert f'tournament-status tournament-{TournamentStatus.FINISHED}">{finished}<' in header


@pytest.mark.parametrize("language", ["en", "ru"])
def test_cb_17_earlier_stage_tables_are_final_when_the_last_is_and_rows_agree_with_the_badge(finished_cup, language):
    for stage in ("stage-1", "stage-3"):
        html = page(f"{finished_cup.get_absolute_url()}?stage={stage}", language)
        assert "badge standings-final" in html, stage
        assert 'class="status-active"' not in html, "no row 'in play' under a final badge"
        assert said(language, "finished", "team status") in html


@pytest.mark.parametrize("language", ["en", "ru"])
def test_fl_19_preliminary_table_names_the_open_appeal_window_with_its_end(language):
    document = example("family_league")
    document["stages"][0]["games"][0]["result_recorded_at"] = timezone.now().isoformat()
    game = document["stages"][0]["games"][0]
    first = next(s for s in game["seats"] if s["team"] == "Fam01")
    game["seats"].append({**first, "player": "Fam01-p4" if first["player"] != "Fam01-p4" else "Fam01-p1",
                          "role": "civilian"})
    tournament = import_document(document)
    recompute(tournament.pk, force=True)
    html = page(tournament.get_absolute_url(), language)
    assert "badge standings-preliminary" in html
    reasons = html[html.index('class="notice open-reasons"'):]
    reasons = reasons[:reasons.index("</ul>")]
    with translation.override(language):
        opening = translation.gettext("An %(rule)s appeal window is open until %(moment)s (%(zone)s).").split("%")[0]
    assert opening in reasons and "FL-19" in reasons and "Europe/Moscow" in reasons
    assert said(language, "Preliminary: games or tours remain, an appeal is pending or an appeal window is still "
                          "open.") not in html
