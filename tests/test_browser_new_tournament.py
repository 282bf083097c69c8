"""In a real browser (headless Debian chromium): a new tournament is run from its creation to its first table
through the portal's own pages alone, never the Django admin (roles.md: the admin is for staff).

The organizer creates the tournament from its ruleset, adds its stage on the structure page, brings in the teams
from the organizers' own roster file, enters the first results (a batch of real game logs for the family league,
the answers grid of a tour for the ChGK season) and reads the standings, where the teams stand with their points.
Every file is a real one of ``tests/data/real/`` (see its SOURCE.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.browser import BROWSER
from tests.factories import UserFactory
from tournaments.models import Game, Mask, Team, Tournament

pytestmark = [*BROWSER, pytest.mark.django_db(transaction=True)]

REAL = Path(__file__).resolve().parent / "data" / "real" / "mafiaonline"
CUP = REAL / "family_cup_2016"
CUP_LOGS = [REAL / "logs" / f"{n}.html" for n in (3624027, 3624161, 3624224, 3624505)]
CHGK_TEAMS = "team,player,captain\nSignum,Anna,yes\nSignum,Boris,\nRotor,Vera,yes\nRotor,Gleb,\nTigers,Dana,yes\n"


def create(page, base: str, ruleset: str, name: str, slug: str) -> None:
    """The creation page: the ruleset chosen from its list, the name and address typed, every setting left at its
    default; the portal answers with the new tournament's dashboard."""
    page.goto(f"{base}/accounts/dashboard/new/")
    with page.expect_navigation():
        page.click(f'li[data-ruleset="{ruleset}"] a')
    page.fill("input[name=name]", name)
    page.fill("input[name=slug]", slug)
    with page.expect_navigation():
        page.click("form.tournament-new button[type=submit]")
    assert page.url.rstrip("/").endswith(f"/accounts/dashboard/{slug}")


def add_stage(page, base: str, slug: str, key: str) -> None:
    """The structure page, reached from the dashboard's set-up link: the stage added by its key."""
    page.goto(f"{base}/accounts/dashboard/{slug}/structure/")
    page.select_option("select[name=key]", key)
    with page.expect_navigation():
        page.click('button[name=action][value="add_stage"]')


def import_rosters(page, base: str, slug: str, path: Path | None = None, text: str = "", families: bool = False):
    page.goto(f"{base}/t/{slug}/import/rosters/")
    if path is not None:
        page.set_input_files("input[name=file]", str(path))
    else:
        page.fill("textarea[name=text]", text)
    with page.expect_navigation():
        page.click('button[name=action][value="preview"]')
    if families:
        page.check("input[name=families]")
    with page.expect_navigation():
        page.click('button[name=action][value="import"]')


def standings_rows(page, base: str, slug: str) -> list[str]:
    page.goto(f"{base}/t/{slug}/")
    return page.locator("table.standings-table tbody tr").all_inner_texts()


@pytest.mark.parametrize(("ruleset", "stage", "language"), [
    ("family_league", "qualifying", "en"), ("family_league", "qualifying", "ru")])
def test_a_new_mafia_tournament_runs_from_creation_to_its_first_table_through_the_pages(live_server, page_factory,
                                                                                        ruleset, stage, language):
    """On the real Family Cup 2016: 16 clans of teams.txt (FL-3: as families in the family league), the four logs
    of its first stage placed by games.txt, each game's points in the table (FL-9, CB-7)."""
    base, slug = live_server.url, f"cup-{ruleset.replace('_', '-')}-{language}"
    page = page_factory(1280, language, UserFactory(is_staff=True))
    create(page, base, ruleset, "Family Cup 2016", slug)
    add_stage(page, base, slug, stage)
    families = ruleset == "family_league"
    import_rosters(page, base, slug, CUP / "teams.txt", families=families)
    assert Team.objects.filter(tournament__slug=slug, family__isnull=not families).count() == 16

    page.goto(f"{base}/t/{slug}/import/games/")
    page.select_option("select[name=stage]", stage)
    page.set_input_files("input[name=logs]", [str(p) for p in CUP_LOGS])
    page.set_input_files("input[name=stage_list_file]", str(CUP / "games.txt"))
    with page.expect_navigation():
        page.click('button[name=action][value="preview"]')
    assert Game.objects.filter(stage__tournament__slug=slug).count() == 0
    with page.expect_navigation():
        page.click('button[name=action][value="import"]')
    numbers = sorted(Game.objects.filter(stage__tournament__slug=slug).values_list("number", flat=True))
    assert numbers == [4, 5, 6, 15]

    rows = standings_rows(page, base, slug)
    assert len(rows) == 16
    assert "/admin/" not in page.content()
    tournament = Tournament.objects.get(slug=slug)
    names = {team.name for team in Team.objects.filter(tournament=tournament)}
    assert all(any(name in row for name in names) for row in rows)


@pytest.mark.parametrize("language", ["en", "ru"])
def test_a_new_chgk_season_runs_from_creation_to_its_first_table_through_the_pages(live_server, page_factory,
                                                                                   language):
    """CHGK-13 (a tour's points from the answers), CHGK-7 (the tour's host plays out of competition): a season
    created, its teams from a CSV roster, tour 1 added with its host and its answers typed into the grid."""
    base, slug = live_server.url, f"season-{language}"
    page = page_factory(1280, language, UserFactory(is_staff=True))
    create(page, base, "chgk_tour_points", "Spring season", slug)
    add_stage(page, base, slug, "season")
    import_rosters(page, base, slug, text=CHGK_TEAMS)
    assert set(Team.objects.filter(tournament__slug=slug).values_list("name", flat=True)) == {
        "Signum", "Rotor", "Tigers"}

    page.goto(f"{base}/accounts/dashboard/{slug}/structure/")
    page.fill("form:has(button[value=add_tour]) input[name=number]", "1")
    page.fill("form:has(button[value=add_tour]) input[name=questions]", "4")
    page.select_option("form:has(button[value=add_tour]) select[name=host]", label="Tigers")
    with page.expect_navigation():
        page.click('button[name=action][value="add_tour"]')

    page.goto(f"{base}/t/{slug}/tours/1/enter/")
    teams = dict(Team.objects.filter(tournament__slug=slug).values_list("name", "pk"))
    page.fill(f"input[name=mask-{teams['Signum']}]", "1101")
    page.fill(f"input[name=mask-{teams['Rotor']}]", "1000")
    with page.expect_navigation():
        page.click("main form button[type=submit]")
    assert dict(Mask.objects.filter(tour__stage__tournament__slug=slug).values_list("team__name", "mask")) == {
        "Signum": "1101", "Rotor": "1000"}

    rows = standings_rows(page, base, slug)
    assert rows and "Signum" in rows[0]
    assert any("Rotor" in row for row in rows)
    assert "/admin/" not in page.content()
