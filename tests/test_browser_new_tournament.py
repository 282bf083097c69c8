"""In a real browser (headless Debian chromium): a new tournament is run from its creation to its first table
through the portal's own pages alone, never the Django admin (roles.md: the admin is for staff).

The organizer creates the tournament from its ruleset, adds its stage on the structure page, brings in the teams
from the organizers' own roster file, enters the first results (a batch of real game logs for the family league,
the answers grid of a tour for the ChGK season, one game typed into the game form for the class-balanced stages once
their schedule is published, tour 1's game of a Grand Prix stage once its registered players are drawn into teams) and
reads the standings, where the teams stand with their points.
Every file is a real one of ``tests/data/real/`` (see its SOURCE.md).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from accounts.models import Player
from tests.browser import BROWSER
from tests.factories import UserFactory
from tournaments.models import Game, GameStatus, Mask, Participant, RosterEntry, Seat, Stage, Team, Tournament

pytestmark = [*BROWSER, pytest.mark.django_db(transaction=True)]

REAL = Path(__file__).resolve().parent / "data" / "real" / "mafiaonline"
CUP = REAL / "family_cup_2016"
CUP_LOGS = [REAL / "logs" / f"{n}.html" for n in (3624027, 3624161, 3624224, 3624505)]
CHGK_TEAMS = "team,player,captain\nSignum,Anna,yes\nSignum,Boris,\nRotor,Vera,yes\nRotor,Gleb,\nTigers,Dana,yes\n"
CB_TEAMS = [f"Clan {n:02d}" for n in range(1, 15)]  # CB-1: stage 1 has 14 teams
CB_ROSTERS = "team,player,captain\n" + "".join(f"{team},{team.replace('Clan ', 'Nick')},yes\n" for team in CB_TEAMS)


def create(page, base: str, ruleset: str, name: str, slug: str, settings: dict[str, str] | None = None) -> None:
    """The creation page: the ruleset chosen from its list, the name and address typed, every setting left at its
    default but those of ``settings`` (typed into the ruleset's settings fieldset); the portal answers with the new
    tournament's dashboard."""
    page.goto(f"{base}/accounts/dashboard/new/")
    with page.expect_navigation():
        page.click(f'li[data-ruleset="{ruleset}"] a')
    page.fill("input[name=name]", name)
    page.fill("input[name=slug]", slug)
    for key, value in (settings or {}).items():
        page.fill(f"fieldset.ruleset-settings [name=setting_{key}]", value)
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


def refusals(page) -> str:
    """What the page says, for an assertion's message: its refusals name the rule."""
    return page.locator("main").inner_text()


def fill_seat(page, index: int, nick: str, team: str, role: str, stats: str = "") -> None:
    page.fill(f"input[name=seat-{index}-player]", nick)
    page.select_option(f"select[name=seat-{index}-team]", team)
    page.select_option(f"select[name=seat-{index}-role]", role)
    if stats:
        page.fill(f"input[name=seat-{index}-stats]", stats)


def test_a_new_class_balanced_tournament_runs_from_its_published_schedule_to_its_first_table(live_server,
                                                                                            page_factory):
    """CB-2 (results are refused until the stage's table is published: the schedule page generates it from a public
    seed and publishes it), CB-1 and CB-3 (a stage-1 game of 7 players, one a team, each with a stat sum of its
    class), CB-8..CB-10's points table (a civilian win is 1.5 to each civilian seat's team, nothing to the mafia's):
    14 clans from a CSV roster, game 1 of the published table entered by hand, the table read."""
    base, slug = live_server.url, "cb-new"
    page = page_factory(1280, "en", UserFactory(is_staff=True))
    create(page, base, "class_balanced", "Class Cup", slug)
    add_stage(page, base, slug, "stage-1")
    import_rosters(page, base, slug, text=CB_ROSTERS)
    assert set(Team.objects.filter(tournament__slug=slug).values_list("name", flat=True)) == set(CB_TEAMS)

    page.goto(f"{base}/t/{slug}/stage-1/games/new/")  # CB-2: before the table is published, a result is refused
    for index, team in enumerate(CB_TEAMS[:7]):
        fill_seat(page, index, team.replace("Clan ", "Nick"), team, "civilian", "300")
    page.select_option("select[name=outcome]", "civilians")
    with page.expect_navigation():
        page.click("form.game-entry button[type=submit]")
    assert "CB-2" in page.locator(".entry-errors").inner_text(), refusals(page)
    assert not Game.objects.filter(stage__tournament__slug=slug).exists()

    page.goto(f"{base}/t/{slug}/stages/stage-1/schedule/")
    page.fill("input[name=seed]", "class-cup-1")
    with page.expect_navigation():
        page.click("button[name=generate]")
    assert Game.objects.filter(stage__tournament__slug=slug, status=GameStatus.SCHEDULED).count() == 48, \
        refusals(page)
    with page.expect_navigation():
        page.click("button[name=publish]")
    assert "results are accepted from now on (CB-2)" in refusals(page), refusals(page)
    assert Stage.objects.get(tournament__slug=slug, key="stage-1").published_at is not None

    game = Game.objects.get(stage__tournament__slug=slug, number=1)
    teams = list(game.scheduled_teams)
    assert len(teams) == 7
    page.goto(f"{base}/t/{slug}/stage-1/games/1/enter/")
    roles = ["mafia", "mafia", "civilian", "civilian", "civilian", "civilian", "civilian"]
    for index, (team, role) in enumerate(zip(teams, roles, strict=True)):
        fill_seat(page, index, team.replace("Clan ", "Nick"), team, role, str(160 + 40 * index))  # classes C, B, A
    page.select_option("select[name=status]", "played")
    page.select_option("select[name=outcome]", "civilians")
    with page.expect_navigation():
        page.click("form.game-entry button[type=submit]")
    assert "saved=1" in page.url, refusals(page)
    assert Seat.objects.filter(game=game).count() == 7

    rows = standings_rows(page, base, slug)
    assert len(rows) == 14
    points = {cells[1]: cells[2] for cells in (row.split("\t") for row in rows)}
    assert points == {team: "1.5" if team in teams[2:] else "0" for team in CB_TEAMS}, rows
    assert "/admin/" not in page.content()


GP_NICKS = [f"Gp{n:02d}" for n in range(1, 13)]


def test_a_new_grand_prix_stage_runs_from_its_seeded_draw_to_its_first_table_gp2_gp8_gp9_gp11_gp14(live_server,
                                                                                             page_factory):
    """GP-2 (registration opens once the stage's conditions are published), GP-5 and GP-7/GP-8 (12 registered
    players, by `players_per_stage`=12, drawn with a public seed into teams T01 and T02 of 6, two from each basket),
    GP-9 (tour 1's game seats exactly one remaining player of each team), GP-11 and GP-14 (a civilians' clean win:
    1.5 to the civilian, the mafia player eliminated): the table then lists both teams with their points."""
    base, slug = live_server.url, "gp-new"
    for level, nick in enumerate(GP_NICKS, start=1):
        Player.objects.create(nick=nick, level=level)
    page = page_factory(1280, "en", UserFactory(is_staff=True))
    create(page, base, "elimination_gp", "Grand Prix", slug, {"players_per_stage": "12"})
    add_stage(page, base, slug, "qualifying-1")

    page.goto(f"{base}/t/{slug}/gp/qualifying-1/registration/")
    conditions = page.locator("form:has(input[name=action][value=conditions])")
    conditions.locator("textarea[name=commission]").fill("Judge One, Judge Two")
    conditions.locator("textarea[name=game_times]").fill("Daily at 20:00")
    conditions.locator("textarea[name=prize_fund]").fill("1: 50 mf")
    conditions.locator("select[name=extra_indicator]").select_option("points")
    with page.expect_navigation():
        conditions.locator("button[type=submit]").click()
    with page.expect_navigation():
        page.click("form:has(input[name=action][value=open]) button[type=submit]")
    assert "Registration is open (GP-2)." in refusals(page), refusals(page)
    for nick in GP_NICKS:
        page.fill("form:has(button[value=register]) input[name=nick]", nick)
        with page.expect_navigation():
            page.click('form:has(button[value=register]) button[name=action][value="register"]')
        assert f"{nick} is registered." in refusals(page), refusals(page)

    page.goto(f"{base}/t/{slug}/gp/qualifying-1/draw/")
    page.fill("input[name=seed]", "gp-new-1")
    with page.expect_navigation():
        page.click('button[name=action][value="draw"]')
    assert "with the seed gp-new-1 (GP-8)" in refusals(page), refusals(page)
    teams: dict[str, list[str]] = {}
    for team, nick in RosterEntry.objects.filter(team__tournament__slug=slug).order_by("team__order", "order") \
            .values_list("team__name", "player__nick"):
        teams.setdefault(team, []).append(nick)
    assert sorted(teams) == ["T01", "T02"] and all(len(nicks) == 6 for nicks in teams.values()), teams
    assert Participant.objects.filter(tournament__slug=slug).count() == 12

    page.goto(f"{base}/t/{slug}/qualifying-1/games/new/")  # GP-9: two players of a team in one tour are refused
    page.fill("input[name=number]", "1")
    page.fill("input[name=round]", "1")
    for index, nick in enumerate(teams["T01"][:2] + teams["T02"][:2]):
        fill_seat(page, index, nick, "T01" if index < 2 else "T02", "civilian" if index < 2 else "mafia")
    page.select_option("select[name=status]", "played")
    page.select_option("select[name=outcome]", "civilians")
    with page.expect_navigation():
        page.click("form.game-entry button[type=submit]")
    problems = " ".join(page.locator("[id^=seat-problems]").all_inner_texts())
    assert "a second player of team T01 in game 1: a team sends one player a tour (GP-9)" in problems, refusals(page)
    assert "a second player of team T02" in problems, refusals(page)
    assert not Game.objects.filter(stage__tournament__slug=slug).exists()

    page.goto(f"{base}/t/{slug}/qualifying-1/games/new/")  # one remaining player of each team: tour 1 is saved
    page.fill("input[name=number]", "1")
    page.fill("input[name=round]", "1")
    civilian, mafia = teams["T01"][0], teams["T02"][0]
    fill_seat(page, 0, civilian, "T01", "civilian")
    fill_seat(page, 1, mafia, "T02", "mafia")
    page.select_option("select[name=status]", "played")
    page.select_option("select[name=outcome]", "civilians")
    with page.expect_navigation():
        page.click("form.game-entry button[type=submit]")
    assert "saved=1" in page.url, refusals(page)
    assert Seat.objects.filter(game__stage__tournament__slug=slug, game__number=1).count() == 2

    rows = standings_rows(page, base, slug)  # GP-11: the mafia player is out; GP-14: 1.5 to the civilian
    assert "/admin/" not in page.content()
    table = {cells[1]: (cells[2], cells[3]) for cells in (row.split("\t") for row in rows)}
    assert table == {"T01": ("1.5", "6"), "T02": ("0", "5")}, rows
    players = {cells[1]: cells[2:] for cells in (row.split("\t") for row in
                                                 page.locator("table.players-table tbody tr").all_inner_texts())}
    assert set(players) == set(GP_NICKS), players
    assert players[civilian] == ["T01", "1.5", "1", "in play"], players
    assert players[mafia] == ["T02", "0", "1", "eliminated"], players
