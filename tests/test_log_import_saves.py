"""A real mafiaonline.ru game log saves from the entry form.

The preview of a log lists the nicks the portal does not know and offers "add to the roster" under each such
seat; the save adds the ticked players to their teams' rosters and records the game in one transaction
(``tournaments.commands.add_to_roster``, ``record_game``); a family-league stage with several groups takes the
game's group (FL-8) from a select the log's teams fill in. The logs and clans are the real ones of
``tests/data/real/mafiaonline/`` (a copy of ``shared/real-data/mafiaonline/``, see its SOURCE.md).
"""

from __future__ import annotations

from html.parser import HTMLParser
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import translation

from accounts.models import Player, Role, TournamentRole
from rulesets.base import Problem
from rulesets.errors import Invalid
from tests.factories import RoleFactory, UserFactory
from tournaments import commands
from tournaments.importer import import_document
from tournaments.models import AuditEntry, Game, Participant, RosterEntry, Tournament

pytestmark = pytest.mark.django_db

REAL = Path(__file__).resolve().parent / "data" / "real" / "mafiaonline"
LOGS = REAL / "logs"
LOG = 3624027  # Family Cup 2016, stage 1: 16 players of 16 clans
NEW = {"Melancholia": "Братство Чатца", "Vera": "Hot Fuzz", "Asmodeus": "Boardwalk Empire"}  # not imported yet


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


def clans(name: str, leave_out: frozenset[str] = frozenset()) -> list[dict]:
    """The clans of ``teams.txt`` as interchange teams, without the players ``leave_out`` names."""
    teams = []
    for line in (REAL / name / "teams.txt").read_text(encoding="utf-8").splitlines():
        if ":" in line:
            clan, players = line.split(":", 1)
            nicks = [n for n in dict.fromkeys(n.strip() for n in players.split(",") if n.strip()) if n not in leave_out]
            teams.append({"name": clan.strip(), "captain": nicks[0], "players": nicks})
    return teams


def league(slug: str, teams: list[dict], groups: list[dict]) -> Tournament:
    return import_document({
        "format": "tournament-portal/1",
        "tournament": {"slug": slug, "name": slug, "ruleset": "family_league", "timezone": "Europe/Moscow",
                       "starts_on": "2016-07-04"},
        "teams": teams, "stages": [{"key": "qualifying", "groups": groups, "games": []}]})


@pytest.fixture
def cup() -> Tournament:
    """The Family Cup 2016 with its 16 clans in one group, three players of log 3624027 not imported."""
    teams = clans("family_cup_2016", frozenset(NEW))
    return league("family-cup-2016", teams, [{"name": "1", "teams": [t["name"] for t in teams]}])


@pytest.fixture
def interclan() -> Tournament:
    """The interclan 2016 (18 clans) in two groups of nine: A holds the clans of its game 3665747 (FL-8)."""
    teams = clans("interclan_2016")
    in_game = {"Ночные снайперы", "Черная Бухта", "Упийцы", "Боги Мафии", "Палата номер шесть", "Hot Fuzz",
               "Gangsta Girls", "Vendetta", "La eMe Familia"}
    names = [t["name"] for t in teams]
    return league("interclan-2016", teams, [{"name": "A", "teams": [n for n in names if n in in_game]},
                                            {"name": "B", "teams": [n for n in names if n not in in_game]}])


def organizer_of(tournament: Tournament, role: str = Role.ORGANIZER) -> Client:
    user = UserFactory()
    RoleFactory(user=user, tournament=tournament, role=role)
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


class _EntryForm(HTMLParser):
    """What a browser would post from the game entry form (``form.game-entry``) as the page shows it."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.data: dict[str, str] = {}
        self._inside = False
        self._select: str | None = None
        self._first: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self._inside = "game-entry" in a.get("class", "").split()
        if not self._inside:
            return
        if tag == "input" and a.get("name"):
            if a.get("type") != "checkbox" or "checked" in a:
                self.data[a["name"]] = a.get("value", "")
        elif tag == "select":
            self._select, self._first = a.get("name"), None
        elif tag == "option" and self._select:
            if self._first is None:
                self._first = a.get("value", "")
                self.data.setdefault(self._select, self._first)
            if "selected" in a:
                self.data[self._select] = a.get("value", "")

    def handle_endtag(self, tag: str) -> None:
        if tag == "form":
            self._inside = False
        elif tag == "select":
            self._select = None


def form_of(page) -> dict[str, str]:
    parser = _EntryForm()
    parser.feed(page.content.decode())
    return parser.data


def preview(client: Client, tournament: Tournament, log: int):
    upload = SimpleUploadedFile(f"{log}.html", (LOGS / f"{log}.html").read_bytes(), "text/html")
    return client.post(f"/t/{tournament.slug}/qualifying/games/new/", {"log_import": "1", "log_file": upload})


def seat_index(data: dict[str, str], nick: str) -> int:
    return next(int(k.split("-")[1]) for k, v in data.items() if k.endswith("-player") and v == nick)


def tick(data: dict[str, str], nicks: dict[str, str]) -> dict[str, str]:
    """The organizer ticks "add to the roster" for each nick and chooses its clan."""
    for nick, team in nicks.items():
        i = seat_index(data, nick)
        data[f"seat-{i}-add"] = "1"
        data[f"seat-{i}-add_team"] = team
    return data


def test_preview_lists_the_nicks_the_portal_does_not_know_with_add_to_roster_unticked(cup):
    client = organizer_of(cup)
    page = preview(client, cup, LOG)
    assert page.status_code == 200
    text = page.content.decode()
    assert "Not known to the portal yet" in text
    listed = text[text.index('class="new-players"'):]
    listed = listed[:listed.index("</ul>")]
    assert all(nick in listed for nick in NEW) and "Хоккинг" not in listed  # a rostered nick is not listed
    data = form_of(page)
    for nick in NEW:
        i = seat_index(data, nick)
        assert f"add {nick} to the roster of" in text
        assert f"seat-{i}-add" not in data  # no team named: not ticked, a team to choose
        assert data[f"seat-{i}-add_team"] == ""
    assert "On no team of the stage" not in text  # the new nicks are listed once, as new
    assert not Player.objects.filter(nick__in=NEW).exists() and Game.objects.count() == 0


def test_real_log_saves_once_add_to_roster_is_ticked_creating_players_roster_entries_and_seats(cup):
    client = organizer_of(cup)
    data = tick(form_of(preview(client, cup, LOG)), NEW)
    saved = client.post(f"/t/{cup.slug}/qualifying/games/new/", data)
    assert saved.status_code == 302, saved.content.decode()[:3000]
    game = Game.objects.get(stage__tournament=cup, number=1)
    assert game.link == f"http://mafiaonline.ru/log/{LOG}" and game.seats.count() == 16
    for nick, team in NEW.items():
        player = Player.objects.get(nick=nick)
        entry = RosterEntry.objects.get(player=player, team__tournament=cup)
        assert entry.team.name == team and entry.left_at is None and entry.joined_at is not None
        assert Participant.objects.filter(tournament=cup, player=player).exists()
        assert game.seats.get(player=player).team.name == team
        history = AuditEntry.objects.get(model="tournaments.RosterEntry", object_id=str(entry.pk), action="create")
        assert history.user is not None and history.tournament_id == cup.pk


def test_unticking_one_new_nick_saves_nothing_and_refuses_naming_it_at_its_seat(cup):
    client = organizer_of(cup)
    data = tick(form_of(preview(client, cup, LOG)), NEW)
    i = seat_index(data, "Vera")
    del data[f"seat-{i}-add"]
    page = client.post(f"/t/{cup.slug}/qualifying/games/new/", data)
    assert page.status_code == 400
    text = page.content.decode()
    problems = text[text.index(f'id="seat-problems-{i}"'):]
    problems = problems[:problems.index("</tr>")]
    assert "Vera is not known to the portal yet" in problems and "add to the roster" in problems
    assert Game.objects.count() == 0
    assert not Player.objects.filter(nick__in=NEW).exists()  # the ticked ones were not added either
    assert not RosterEntry.objects.filter(player__nick__in=NEW).exists()
    again = form_of(page)  # the form comes back as posted: the others still ticked, Vera offered again
    assert f"seat-{i}-add" not in again and all(f"seat-{seat_index(again, n)}-add" in again for n in NEW if n != "Vera")


def test_a_roster_addition_refused_saves_nothing_and_says_why_at_the_seat(cup):
    """Vera ticked for Hot Fuzz while her seat names another team: refused in words at her seat, nothing saved."""
    client = organizer_of(cup)
    data = tick(form_of(preview(client, cup, LOG)), NEW)
    i = seat_index(data, "Vera")
    data[f"seat-{i}-team"] = "Упийцы"
    page = client.post(f"/t/{cup.slug}/qualifying/games/new/", data)
    assert page.status_code == 400
    text = page.content.decode()
    problems = text[text.index(f'id="seat-problems-{i}"'):]
    assert "Vera plays for Упийцы in this seat but would join the roster of Hot Fuzz" in problems[:problems.index("</tr>")]
    assert Game.objects.count() == 0 and not Player.objects.filter(nick__in=NEW).exists()
    # the form comes back with the seat's team known: "add Vera to Упийцы's roster", still ticked
    assert "add Vera to Упийцы’s roster" in text and form_of(page).get(f"seat-{i}-add") == "1"


def test_only_an_organizer_adds_to_a_roster_a_judge_is_refused_at_the_seat_and_nothing_saved(cup):
    client = organizer_of(cup, Role.JUDGE)
    page = client.post(f"/t/{cup.slug}/qualifying/games/new/", tick(form_of(preview(client, cup, LOG)), NEW))
    assert page.status_code == 403
    assert "Only the tournament&#x27;s organizers add players to its rosters." in page.content.decode()
    assert Game.objects.count() == 0 and not Player.objects.filter(nick__in=NEW).exists()


def test_fl_8_two_groups_the_group_is_filled_from_the_log_refused_at_the_field_without_it(interclan):
    client = organizer_of(interclan)
    page = preview(client, interclan, 3665747)
    text = page.content.decode()
    assert '<select id="f-group" name="group" required>' in text
    data = form_of(page)
    assert data["group"] == "A"  # every seat's clan is in group A
    url = f"/t/{interclan.slug}/qualifying/games/new/"
    refused = client.post(url, {**data, "group": ""})
    assert refused.status_code == 400
    body = refused.content.decode()
    field = body[body.index('id="f-group-problems"'):]
    assert "names its group (FL-8)" in field[:field.index("</span>")]
    assert Game.objects.count() == 0
    saved = client.post(url, data)
    assert saved.status_code == 302, saved.content.decode()[:3000]
    game = Game.objects.get(stage__tournament=interclan, number=1)
    assert game.group.name == "A" and game.seats.count() == 9


def test_a_saved_imported_log_is_judged_by_the_formats_game_problems(cup, monkeypatch):
    """The entry form's save and the API's import pass the format's refusals (portal.hooks)."""
    monkeypatch.setattr("portal.hooks.game_problems", lambda stage, game, row: [
        Problem("link", "the format refuses this game (TEST-1)")])
    client = organizer_of(cup)
    page = client.post(f"/t/{cup.slug}/qualifying/games/new/", tick(form_of(preview(client, cup, LOG)), NEW))
    assert page.status_code == 400 and "TEST-1" in page.content.decode()
    html = (LOGS / "3624161.html").read_text(encoding="utf-8")
    api = client.post(f"/api/v1/tournaments/{cup.slug}/stages/qualifying/games/2/import-log/", {"html": html},
                      content_type="application/json")
    assert api.status_code == 400 and "TEST-1" in str(api.json())
    assert Game.objects.count() == 0 and not Player.objects.filter(nick__in=NEW).exists()


def test_preview_page_queries_are_bounded(cup, django_assert_max_num_queries):
    client = organizer_of(cup)
    preview(client, cup, LOG)  # warm the session and the caches of the first request
    with django_assert_max_num_queries(20):  # 17 with 16 seats: none per seat
        page = preview(client, cup, LOG)
    assert page.status_code == 200


def test_add_to_roster_refuses_a_player_of_another_roster_of_the_tournament(cup):
    """One roster a player (tournaments.rosters): the command refuses, naming the other team."""
    user = UserFactory()
    TournamentRole.objects.create(user=user, tournament=cup, role=Role.ORGANIZER)
    stage = cup.stages.get()
    with pytest.raises(Invalid, match="already on the roster of Упийцы"):
        commands.add_to_roster(user, cup, stage, "Hot Fuzz", "гребля")
    entry = commands.add_to_roster(user, cup, stage, "Hot Fuzz", "Vera")
    assert entry.team.name == "Hot Fuzz" and commands.add_to_roster(user, cup, stage, "Hot Fuzz", "Vera") == entry
