"""A season from the organizers' own files, on the real Family Cup 2016.

The clans of ``teams.txt`` become the rosters (``import_rosters``), the game logs go into a stage in a batch,
placed by ``games.txt`` (``import_game_logs``), and ``penalties.txt`` gives the judges' penalties and the
no-shows as FL-10, FL-15.1 and FL-16 read them (``import_penalties``); each as a management command (``--dry-run``
prints JSON and writes nothing), an API endpoint and a page with a preview, all through ``tournaments.commands``.
The files are the real ones of ``tests/data/real/mafiaonline/`` (see its SOURCE.md).
"""

from __future__ import annotations

import datetime as dt
import html
import json
import re
from io import StringIO
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import CommandError, call_command
from django.test import Client
from django.utils import translation
from drf_spectacular.generators import SchemaGenerator

import rulesets
from accounts.models import Family, Player, Role, TournamentRole
from formats.family_league.services import warnings_for
from rulesets.errors import Invalid, NotAllowed
from tests.factories import RoleFactory, UserFactory
from tournaments import commands
from tournaments.importer import import_document
from tournaments.loader import load_facts
from tournaments.models import (
    AuditEntry,
    Game,
    Participant,
    Penalty,
    RosterEntry,
    Team,
    Tournament,
    TournamentFamily,
)
from tournaments.sources.log_batch import REFUSED, SAVED, LogFile, import_log_batch, read_log_batch
from tournaments.sources.penalty_file import JUDGE, NO_SHOW, parse_penalties
from tournaments.sources.penalty_import import import_penalties, read_penalties
from tournaments.sources.roster_file import parse_rosters
from tournaments.sources.roster_import import import_rosters
from tournaments.sources.stage_list import parse_stage_list, placement

pytestmark = pytest.mark.django_db

REAL = Path(__file__).resolve().parent / "data" / "real" / "mafiaonline"
CUP = REAL / "family_cup_2016"
LOGS = REAL / "logs"
TEAMS = (CUP / "teams.txt").read_text(encoding="utf-8")
GAMES = (CUP / "games.txt").read_text(encoding="utf-8")
PENALTIES = (CUP / "penalties.txt").read_text(encoding="utf-8")
CUP_LOGS = (3624027, 3624161, 3624224, 3624505)  # stage 1 of the cup: games 4, 5, 6 and 15 of games.txt
OTHER_LOGS = (3665747, 3674589, 3675036, 3675433)  # the interclan 2016: on no line of the cup's list
API = "/api/v1"


@pytest.fixture(autouse=True)
def _english():
    with translation.override("en"):
        yield


def clan_nicks() -> dict[str, list[str]]:
    """The clans of teams.txt as the file spells them, read independently of the importer."""
    out = {}
    for line in TEAMS.splitlines():
        clan, _sep, rest = line.partition(":")
        out[clan.strip()] = list(dict.fromkeys(n.strip() for n in rest.split(",") if n.strip()))
    return out


def empty_cup(games: int = 0, not_held: tuple[int, ...] = ()) -> Tournament:
    """The Family Cup 2016 as a family league with no teams yet and one stage of ``games`` scheduled games (the
    three stages of games.txt one after the other: 15 each)."""
    return import_document({
        "format": "tournament-portal/1",
        "tournament": {"slug": "family-cup-2016", "name": "Семейный кубок 2016", "ruleset": "family_league",
                       "timezone": "Europe/Moscow", "starts_on": "2016-07-04"},
        "teams": [], "stages": [{"key": "qualifying", "games": [
            {"number": n, "status": "not_held" if n in not_held else "scheduled"} for n in range(1, games + 1)]}]})


def user_with(tournament: Tournament, *roles: str):
    user = UserFactory()
    for role in roles:
        RoleFactory(user=user, tournament=tournament, role=role)
    return user


def client_of(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def run(*args) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*args, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


def logs(*numbers: int) -> list[LogFile]:
    return [LogFile(f"{n}.html", (LOGS / f"{n}.html").read_text(encoding="utf-8")) for n in numbers]


def with_rosters(tournament: Tournament) -> Tournament:
    import_rosters(user_with(tournament, Role.ORGANIZER), tournament, TEAMS, families=True)
    return tournament


# --- the parsers, pure --------------------------------------------------------------------------------------


def test_the_clan_list_of_the_cup_reads_as_16_clans_with_their_players():
    teams, problems = parse_rosters(TEAMS)
    assert problems == []
    expected = clan_nicks()
    assert [t.name for t in teams] == list(expected) and len(teams) == 16
    assert {t.name: [p.nick for p in t.players] for t in teams} == expected
    assert "Русская Мафия" in expected and "Кукуруза" in expected["Gangsta Girls"]  # "Русская Мафия :", "a,b"


def test_csv_rosters_with_a_header_and_a_captain():
    teams, problems = parse_rosters("team,player,captain\nVendetta,fedanet,\nVendetta,Odesitka,yes\n"
                                    "Hot Fuzz,Vera,1\n", name="rosters.csv")
    assert problems == []
    assert [(t.name, t.captain, [p.nick for p in t.players]) for t in teams] == [
        ("Vendetta", "Odesitka", ["fedanet", "Odesitka"]), ("Hot Fuzz", "Vera", ["Vera"])]
    _teams, problems = parse_rosters("Vendetta;fedanet;maybe\nVendetta;Odesitka;1\nVendetta;Luksera;1\n")
    assert [p.message for p in problems] == [
        "line 1: fedanet: the third column marks the captain (1, yes, captain) or is empty, not 'maybe'",
        "line 3: Vendetta has two captains: Odesitka and Luksera"]


def test_the_stage_list_places_each_game_by_its_position():
    lines, problems = parse_stage_list(GAMES)
    assert problems == [] and [(line.name, len(line.games)) for line in lines] == [
        ("Этап1", 15), ("Этап2", 15), ("Этап3", 15)]
    places, problems = placement(lines, ["qualifying"])
    assert problems == [] and places[3624027].number == 4 and places[3624505].number == 15
    assert 3628180 not in places  # Этап2 goes into a second stage, which the cup does not have
    places, _problems = placement(lines, ["qualifying"], {"Этап1": "qualifying", "Этап2": "qualifying",
                                                          "Этап3": "qualifying"})
    assert places[3628180].number == 16 and places[3629887].number == 45
    _lines, problems = parse_stage_list("Этап1: 1, 2, x\nЭтап2: 2\n")
    assert [p.message for p in problems] == ["line 1: 'x' is not a game number",
                                             "line 2: game 2 is already in Этап1 (line 1)",
                                             "line 2: Этап2 names no games"]


def test_the_penalty_file_tells_judges_penalties_from_no_shows():
    lines, problems = parse_penalties(PENALTIES)
    assert problems == [] and len(lines) == 12
    assert [line.kind for line in lines] == [JUDGE] * 8 + [NO_SHOW] * 4
    fedanet = lines[0]
    assert (fedanet.game, fedanet.team, fedanet.player, fedanet.reason, str(fedanet.points)) == (
        3624161, "Vendetta", "fedanet", "штраф", "0.8")
    assert lines[5].reason == "аннулироварие за партию (нарушение регламента)" and lines[5].kind == JUDGE
    assert lines[8].player is None and lines[8].team == "True Criminals"
    _lines, problems = parse_penalties("3624161:Vendetta:fedanet:штраф:-1\nx:Vendetta: :неявка:0.1\n"
                                       "1:Vendetta:fedanet:неявка:0.1\n1:Vendetta\n")
    assert [p.message for p in problems] == [
        "line 1: penalty points are more than 0 and at most 99999.999, with at most 3 decimals, not -1",
        "line 2: 'x' is not a game number",
        "line 3: a no-show is the clan's: the line names no player, not fedanet",
        "line 4: a line is “game:clan:nick:reason:points”, not '1:Vendetta'"]


# --- 1. rosters ---------------------------------------------------------------------------------------------


def test_teams_txt_gives_the_16_teams_with_their_players_and_reuses_the_nicks_the_portal_knows():
    cup = empty_cup()
    known = {nick: Player.objects.create(nick=nick).pk for nick in ("Vera", "Melancholia", "fedanet")}
    organizer = user_with(cup, Role.ORGANIZER)
    plan = import_rosters(organizer, cup, TEAMS)
    expected = clan_nicks()
    teams = list(Team.objects.filter(tournament=cup).order_by("order"))
    assert [t.name for t in teams] == list(expected)
    for team in teams:
        assert list(team.roster.order_by("order").values_list("player__nick", flat=True)) == expected[team.name]
    assert {nick: Player.objects.get(nick=nick).pk for nick in known} == known, "a known nick is reused"
    total = sum(len(nicks) for nicks in expected.values())
    assert Player.objects.count() == total and Participant.objects.filter(tournament=cup).count() == total
    assert plan.summary == {"teams": 16, "new_teams": 16, "players": total, "new_players": total - 3,
                            "known_players": 3, "already_on_roster": 0}
    entries = AuditEntry.objects.filter(tournament=cup, action="create")
    assert entries.filter(model="tournaments.Team").count() == 16
    assert entries.filter(model="tournaments.RosterEntry").count() == total
    assert set(entries.filter(model__in=("tournaments.Team", "tournaments.RosterEntry", "tournaments.Participant",
                                         "accounts.Player")).values_list("username", flat=True)) == {
        organizer.username}
    # the same file again changes nothing: every player is on the roster already
    again = import_rosters(organizer, cup, TEAMS)
    assert again.summary["already_on_roster"] == total and RosterEntry.objects.count() == total


def test_the_clans_as_a_family_leagues_families_satisfy_fl_3():
    cup = empty_cup()
    Family.objects.create(name="Vendetta")  # a family the portal knows is reused
    import_rosters(user_with(cup, Role.ORGANIZER), cup, TEAMS, families=True)
    assert TournamentFamily.objects.filter(tournament=cup).count() == 16 and Family.objects.count() == 16
    team = Team.objects.select_related("family").get(tournament=cup, name="Vendetta")
    assert team.family.name == "Vendetta"
    assert set(Participant.objects.filter(tournament=cup, player__roster_entries__team=team).values_list(
        "family__name", flat=True)) == {"Vendetta"}
    assert [w for w in warnings_for(cup) if w.reason == "membership"] == [], "FL-3: each player of its family"


def test_csv_names_the_captain():
    cup = empty_cup()
    import_rosters(user_with(cup, Role.ORGANIZER), cup, "team,player,captain\nVendetta,fedanet,\n"
                                                         "Vendetta,Odesitka,captain\n", name="v.csv")
    assert Team.objects.get(tournament=cup, name="Vendetta").captain.nick == "Odesitka"


def test_a_bad_line_is_refused_naming_the_line_and_the_nick_and_nothing_is_written():
    cup = empty_cup()
    organizer = user_with(cup, Role.ORGANIZER)
    with pytest.raises(Invalid) as refused:
        import_rosters(organizer, cup, TEAMS + "\nHot Fuzz 2: Vera, Новичок\n")
    assert [p.message for p in refused.value.problems] == [
        "line 17: Vera is already in Hot Fuzz (line 11): a player is on one team's roster"]
    assert refused.value.problems[0].path == "lines[16]"
    # a roster of the tournament that holds a nick already: the line and the nick are named
    other = commands.add_team(organizer, cup, "Старая команда")
    commands.add_to_roster(organizer, cup, None, other.name, "Envy")
    with pytest.raises(Invalid) as refused:
        import_rosters(organizer, cup, TEAMS)
    assert [p.message for p in refused.value.problems] == [
        "line 4: Envy is already on the roster of Старая команда: a player is on one team's roster of a "
        "tournament (a ChGK legionnaire is recorded in a tour's line-up, CHGK-4)."]
    assert list(Team.objects.filter(tournament=cup).values_list("name", flat=True)) == ["Старая команда"]
    assert Player.objects.count() == 1 and RosterEntry.objects.count() == 1


def test_import_rosters_dry_run_prints_json_and_writes_nothing():
    cup = empty_cup()
    Player.objects.create(nick="Vera")
    audit = AuditEntry.objects.count()
    out, _err = run("import_rosters", str(CUP / "teams.txt"), "--tournament", cup.slug, "--families", "--dry-run")
    plan = json.loads(out)
    assert plan["written"] is False and plan["teams"] == 16 and plan["known_players"] == 1
    hot_fuzz = next(team for team in plan["rosters"] if team["name"] == "Hot Fuzz")
    assert hot_fuzz["team"] == "new" and hot_fuzz["family"] == "Hot Fuzz" and hot_fuzz["line"] == 11
    assert {"nick": "Vera", "line": 11, "player": "known", "roster": "new", "captain": False} in hot_fuzz["players"]
    assert Team.objects.count() == 0 and Player.objects.count() == 1 and AuditEntry.objects.count() == audit
    with pytest.raises(CommandError, match="--user"):
        run("import_rosters", str(CUP / "teams.txt"), "--tournament", cup.slug)
    organizer = user_with(cup, Role.ORGANIZER)
    out, _err = run("import_rosters", str(CUP / "teams.txt"), "--tournament", cup.slug, "--user",
                    organizer.username)
    assert json.loads(out)["written"] is True and Team.objects.filter(tournament=cup).count() == 16


def test_only_an_organizer_imports_rosters():
    cup = empty_cup()
    for role in (Role.JUDGE, Role.CURATOR, Role.PLAYER):
        with pytest.raises(NotAllowed):
            import_rosters(user_with(cup, role), cup, TEAMS)
    upload = SimpleUploadedFile("teams.txt", TEAMS.encode(), "text/plain")
    answer = client_of(user_with(cup, Role.JUDGE)).post(f"{API}/tournaments/{cup.slug}/import-rosters/",
                                                        {"file": upload})
    assert answer.status_code == 403 and Team.objects.count() == 0


# --- 2. game logs in a batch --------------------------------------------------------------------------------


def test_a_batch_placed_by_games_txt_saves_the_logs_it_can_and_says_why_it_refused_the_others():
    cup = with_rosters(empty_cup())
    organizer = user_with(cup, Role.ORGANIZER)
    stage = cup.stages.get()
    batch = import_log_batch(organizer, cup, stage, logs(*CUP_LOGS, *OTHER_LOGS), stage_list=GAMES,
                             game_problems=None)
    assert batch.placed_by == "list" and batch.lines == ["Этап1"]
    assert [(e.site_number, e.number, e.status) for e in batch.of(SAVED)] == [
        (3624027, 4, SAVED), (3624161, 5, SAVED), (3624224, 6, SAVED), (3624505, 15, SAVED)]
    assert {e.site_number: [p.message for p in e.problems] for e in batch.of(REFUSED)} == {
        n: [f"game {n} is not on the stage list"] for n in OTHER_LOGS}
    games = {g.number: g for g in Game.objects.filter(stage=stage)}
    assert sorted(games) == [4, 5, 6, 15]
    assert games[4].link.endswith("/log/3624027") and games[4].seats.count() == 16
    assert games[5].seats.count() == 15, "3624161: True Criminals did not come (FL-15.1)"
    report = batch.as_json()
    assert (report["saved"], report["refused"], report["written"]) == (4, 4, True)
    # the same batch again changes the games the logs already are, and adds none
    again = import_log_batch(organizer, cup, stage, logs(*CUP_LOGS), stage_list=GAMES, game_problems=None)
    assert [e.update for e in again.of(SAVED)] == [True] * 4 and Game.objects.filter(stage=stage).count() == 4


def test_without_a_stage_list_a_log_is_placed_by_its_own_game_number_and_a_refused_one_says_why():
    cup = with_rosters(empty_cup())
    stage = cup.stages.get()
    batch = import_log_batch(user_with(cup, Role.ORGANIZER), cup, stage,
                             [*logs(3624027, 3665747), LogFile("notes.html", "<html>hello</html>"),
                              *logs(3624027)], game_problems=None)
    saved, interclan, notes, twice = batch.entries
    assert (saved.status, saved.number) == (SAVED, 3624027)
    assert interclan.status == REFUSED and "Flur is on no team of the stage: choose the team" in [
        p.message for p in interclan.problems]
    assert notes.status == REFUSED and "not a mafiaonline.ru game log" in notes.problems[0].message
    assert twice.status == REFUSED and twice.problems[0].message == (
        "the log of game 3624027 is already in this batch (3624027.html)")
    assert list(Game.objects.filter(stage=stage).values_list("number", flat=True)) == [3624027]


def test_a_nick_assigned_a_team_joins_its_roster_and_the_log_is_saved():
    cup = with_rosters(empty_cup())
    stage = cup.stages.get()
    teams = {"wasp": "Hot Fuzz", "Flur": "Hot Fuzz", "Remedios_Perfect": "Vendetta"}
    dry = read_log_batch(cup, stage, logs(3665747), teams=teams)
    assert dry.entries[0].status == "ready" and dry.entries[0].joining == teams
    assert not Player.objects.filter(nick="wasp").exists()
    batch = import_log_batch(user_with(cup, Role.ORGANIZER), cup, stage, logs(3665747), teams=teams,
                             game_problems=None)
    assert batch.entries[0].status == SAVED, batch.entries[0].problems
    assert RosterEntry.objects.filter(team__name="Hot Fuzz", player__nick="wasp").exists()


@pytest.mark.django_db(transaction=True)
def test_a_batch_is_recomputed_once_though_each_log_is_its_own_transaction(monkeypatch):
    """Each log commits on its own (a refused one undoes nothing of the others); the recompute each commit asks
    for waits for the end of the batch, and is enqueued once (``tournaments.changes.one_recompute``)."""
    cup = with_rosters(empty_cup())
    calls = []
    monkeypatch.setattr("tournaments.changes.enqueue_recompute", calls.append)
    before = Tournament.objects.get(pk=cup.pk).facts_version
    batch = import_log_batch(user_with(cup, Role.ORGANIZER), cup, cup.stages.get(),
                             logs(3624027, 3665747, 3624161, 3624224, 3624505), stage_list=GAMES, game_problems=None)
    assert [e.status for e in batch.entries] == [SAVED, REFUSED, SAVED, SAVED, SAVED]
    assert Game.objects.filter(stage__tournament=cup).count() == 4
    assert Tournament.objects.get(pk=cup.pk).facts_version >= before + 4, "every game moved the facts version"
    assert calls == [cup.pk], "one recompute for the batch"
    # one log alone, outside a batch, is enqueued at its commit as before
    calls.clear()
    commands.add_to_roster(user_with(cup, Role.ORGANIZER), cup, None, "Vendetta", "Новичок")
    assert calls == [cup.pk]


def test_import_game_logs_dry_run_prints_the_plan_as_json_and_writes_nothing(tmp_path):
    cup = with_rosters(empty_cup())
    folder = tmp_path / "logs"
    folder.mkdir()
    for number in (*CUP_LOGS, 3665747):
        (folder / f"{number}.html").write_bytes((LOGS / f"{number}.html").read_bytes())
    audit = AuditEntry.objects.count()
    out, err = run("import_game_logs", str(folder), "--tournament", cup.slug, "--stage", "qualifying",
                   "--games", str(CUP / "games.txt"), "--dry-run")
    report = json.loads(out)
    assert (report["ready"], report["refused"], report["written"]) == (4, 1, False)
    assert [(g["file"], g["number"], g["status"]) for g in report["games"]] == [
        ("3624027.html", 4, "ready"), ("3624161.html", 5, "ready"), ("3624224.html", 6, "ready"),
        ("3624505.html", 15, "ready"), ("3665747.html", None, "refused")]
    assert "3665747.html: refused: game 3665747 is not on the stage list" in err
    assert Game.objects.count() == 0 and AuditEntry.objects.count() == audit
    organizer = user_with(cup, Role.ORGANIZER)
    out, _err = run("import_game_logs", str(folder), "--tournament", cup.slug, "--stage", "qualifying",
                    "--games", str(CUP / "games.txt"), "--user", organizer.username)
    assert json.loads(out)["saved"] == 4 and Game.objects.count() == 4


# --- 3. penalties -------------------------------------------------------------------------------------------

ALL_LINES = {"Этап1": "qualifying", "Этап2": "qualifying", "Этап3": "qualifying"}  # the cup's 45 games in a row


def position_in_the_cup() -> dict[int, int]:
    """The site's game -> its number among the 45 games of games.txt, read independently of the importer."""
    games = [int(n) for line in GAMES.splitlines() for n in line.partition(":")[2].split(",") if n.strip()]
    return {game: i for i, game in enumerate(games, 1)}


@pytest.fixture
def season() -> Tournament:
    """The cup with its rosters, its 45 games scheduled (game 28, the site's 3628679, not held) and the four logs
    of its first stage recorded."""
    cup = with_rosters(empty_cup(games=45, not_held=(28,)))
    batch = import_log_batch(user_with(cup, Role.ORGANIZER), cup, cup.stages.get(), logs(*CUP_LOGS),
                             stage_list=GAMES, lines=list(ALL_LINES), game_problems=None)
    assert len(batch.of(SAVED)) == 4
    return cup


def test_penalties_txt_gives_the_judges_penalties_and_the_no_shows_as_fl_10_and_fl_16_read_them(season):
    judge = user_with(season, Role.JUDGE)
    plan = import_penalties(judge, season, PENALTIES, stage_list=GAMES, lines=ALL_LINES, game_problems=None)
    at = position_in_the_cup()
    assert [(row["line"], row["number"], row["action"]) for row in plan.rows] == [
        (1, 5, "record"), (2, 2, "record"), (3, at[3625029], "record"), (4, at[3625639], "record"),
        (5, at[3627123], "record"), (6, at[3627767], "record"), (7, at[3628727], "record"),
        (8, at[3630181], "record"),
        (9, 5, "detected"), (10, at[3624976], "pending"), (11, 28, "absent"), (12, at[3630950], "pending")]
    penalties = list(Penalty.objects.filter(tournament=season).select_related("game", "team", "player"))
    assert [(p.game.number, p.team.name, p.player.nick, p.kind, str(p.points), p.text) for p in penalties] == [
        (5, "Vendetta", "fedanet", "fair_play", "0.800", "штраф"),
        (2, "Gangsta Girls", "Envy", "fair_play", "1.700", "штраф"),
        (at[3625029], "Vendetta", "Odesitka", "fair_play", "4.000", "штраф"),
        (at[3625639], "Лига Выдающихся Мафиози", "Lion", "fair_play", "0.400", "штраф"),
        (at[3627123], "La eMe Familia", "Шери", "fair_play", "1.600", "штраф"),
        (at[3627767], "Лига Выдающихся Мафиози", "Хоккинг", "fair_play", "0.100",
         "аннулироварие за партию (нарушение регламента)"),
        (at[3628727], "La eMe Familia", "красивый милашка", "fair_play", "2.200", "штраф"),
        (at[3630181], "Ночные снайперы", "Микроша", "fair_play", "0.200", "штраф")]
    assert AuditEntry.objects.filter(model="tournaments.Penalty", username=judge.username).count() == 8
    assert list(Game.objects.get(stage__tournament=season, number=28).absent_teams.values_list(
        "name", flat=True)) == ["Лига Выдающихся Мафиози"]
    # the no-shows as the rules read them: FL-15.1 in a played game, FL-10 in one not held, 0.1 each (FL-16)
    facts = load_facts(season)
    ruleset = rulesets.get(season.ruleset)
    detect = ruleset.appeal_policy.game_violations
    assert ("True Criminals", "no_show", None) in detect(facts, "qualifying", 5)
    assert ("Лига Выдающихся Мафиози", "no_show", None) in detect(facts, "qualifying", 28)
    table = ruleset.compute(facts, "qualifying", dt.datetime(2016, 8, 1, tzinfo=dt.UTC))
    charged = {row.team: sorted((p["code"], p["game"], p["points"]) for p in row.details["penalties"])
               for row in table.teams if row.details["penalties"]}
    assert charged == {
        "Vendetta": [("FL-18", 5, 0.8), ("FL-18", at[3625029], 4.0)],
        "Gangsta Girls": [("FL-18", 2, 1.7)],
        "Лига Выдающихся Мафиози": [("FL-10", 28, 0.1), ("FL-18", at[3625639], 0.4), ("FL-18", at[3627767], 0.1)],
        "La eMe Familia": [("FL-18", at[3627123], 1.6), ("FL-18", at[3628727], 2.2)],
        "Ночные снайперы": [("FL-18", at[3630181], 0.2)],
        "True Criminals": [("FL-15.1", 5, 0.1)]}
    # the same file again records nothing twice
    again = import_penalties(judge, season, PENALTIES, stage_list=GAMES, lines=ALL_LINES, game_problems=None)
    assert [row["action"] for row in again.rows] == ["recorded"] * 8 + ["detected", "pending", "detected",
                                                                        "pending"]
    assert Penalty.objects.filter(tournament=season).count() == 8


def test_a_refused_penalty_line_is_named_and_nothing_of_the_file_is_written(season):
    judge = user_with(season, Role.CURATOR)
    wrong = PENALTIES + "\n3624161:Vendetta:Vera:штраф:1\n3624027:Hot Fuzz: :неявка:0.1\n9999:Vendetta: :штраф:1\n"
    with pytest.raises(Invalid) as refused:
        import_penalties(judge, season, wrong, stage_list=GAMES, lines=ALL_LINES, game_problems=None)
    assert [p.message for p in refused.value.problems] == [
        "line 13: Vera plays for Hot Fuzz, not Vendetta",
        "line 14: Hot Fuzz played in game 3624027 (Vera): it is not a no-show",
        "line 15: game 9999 is not in the portal: import its log, or give the stage list that places it"]
    assert Penalty.objects.count() == 0
    assert not Game.objects.get(stage__tournament=season, number=28).absent_teams.exists()
    with pytest.raises(Invalid) as refused:
        import_penalties(judge, season, "3624161:True Criminals: :неявка:0.5\n", game_problems=None)
    assert refused.value.problems[0].message.startswith("line 1: a no-show costs 0.1 (FL-16), not 0.5")


def test_penalties_are_the_judges_and_the_curators_not_the_organizers(season):
    """spec/roles.md: a penalty is recorded by the stage's judge or the curator; not the organizer (FL-0)."""
    for role in (Role.ORGANIZER, Role.PLAYER):
        with pytest.raises(NotAllowed):
            import_penalties(user_with(season, role), season, PENALTIES, stage_list=GAMES, lines=ALL_LINES,
                             game_problems=None)
    organizer = client_of(user_with(season, Role.ORGANIZER))
    answer = organizer.post(f"{API}/tournaments/{season.slug}/import-penalties/",
                            {"text": PENALTIES, "stage_list": GAMES}, content_type="application/json")
    assert answer.status_code == 403 and "organizers do not" in answer.json()["detail"]
    assert Penalty.objects.count() == 0
    curator = client_of(user_with(season, Role.CURATOR))
    answer = curator.post(f"{API}/tournaments/{season.slug}/import-penalties/",
                          {"file": SimpleUploadedFile("penalties.txt", PENALTIES.encode()),
                           "stage_list": SimpleUploadedFile("games.txt", GAMES.encode()),
                           "lines": "Этап1=qualifying, Этап2=qualifying, Этап3=qualifying"})
    assert answer.status_code == 201, answer.content
    assert answer.json()["counts"] == {"record": 8, "detected": 1, "pending": 2, "absent": 1}
    assert Penalty.objects.count() == 8


def test_a_judge_of_another_stage_is_refused_each_line_of_this_one(season):
    """FL-0: a judge whose role names stages rules on those only (``TournamentRole.stages``)."""
    elsewhere = UserFactory()
    TournamentRole.objects.create(user=elsewhere, tournament=season, role=Role.JUDGE, stages=["final"])
    plan = read_penalties(season, PENALTIES, stage_list=GAMES, lines=ALL_LINES, user=elsewhere)
    assert len(plan.forbidden) == 12 and plan.forbidden[0].message == (
        "line 1: only the judges of the stage qualifying or the curator rule on its penalties (FL-0)")
    with pytest.raises(NotAllowed):
        import_penalties(elsewhere, season, PENALTIES, stage_list=GAMES, lines=ALL_LINES, game_problems=None)
    here = UserFactory()
    TournamentRole.objects.create(user=here, tournament=season, role=Role.JUDGE, stages=["qualifying"])
    assert import_penalties(here, season, PENALTIES, stage_list=GAMES, lines=ALL_LINES,
                            game_problems=None).written
    assert Penalty.objects.count() == 8


def test_import_penalties_dry_run_prints_json_and_writes_nothing(season):
    judge = user_with(season, Role.JUDGE)
    audit = AuditEntry.objects.count()
    args = ["import_penalties", str(CUP / "penalties.txt"), "--tournament", season.slug, "--games",
            str(CUP / "games.txt"), *[f"--line={line}={stage}" for line, stage in ALL_LINES.items()]]
    out, _err = run(*args, "--dry-run")
    plan = json.loads(out)
    assert plan["written"] is False and plan["counts"] == {"record": 8, "detected": 1, "pending": 2, "absent": 1}
    assert plan["penalties"][0] == {"line": 1, "game": 3624161, "stage": "qualifying", "number": 5,
                                    "team": "Vendetta", "player": "fedanet", "kind": "judge", "reason": "штраф",
                                    "points": "0.8", "action": "record"}
    assert Penalty.objects.count() == 0 and AuditEntry.objects.count() == audit
    out, _err = run(*args, "--user", judge.username)
    assert json.loads(out)["written"] is True and Penalty.objects.count() == 8


# --- the API ------------------------------------------------------------------------------------------------


def test_the_api_imports_rosters_as_a_file_or_as_json_with_a_dry_run():
    cup = empty_cup()
    api = client_of(user_with(cup, Role.ORGANIZER))
    url = f"{API}/tournaments/{cup.slug}/import-rosters/"
    dry = api.post(f"{url}?dry_run=true", {"text": TEAMS, "families": True}, content_type="application/json")
    assert dry.status_code == 200 and dry.json()["teams"] == 16 and Team.objects.count() == 0
    bad = api.post(url, {"text": "Vendetta: fedanet\nHot Fuzz: fedanet\n"}, content_type="application/json")
    assert bad.status_code == 400 and bad.json()["errors"] == [
        {"path": "lines[1]", "message": "line 2: fedanet is already in Vendetta (line 1): a player is on one "
                                        "team's roster"}]
    written = api.post(url, {"file": SimpleUploadedFile("teams.txt", TEAMS.encode())})
    assert written.status_code == 201 and written.json()["written"] is True
    assert Team.objects.filter(tournament=cup).count() == 16
    assert client_of(user_with(cup, Role.PLAYER)).post(url, {"text": TEAMS},
                                                       content_type="application/json").status_code == 403


def test_the_api_takes_a_batch_of_logs_as_files_and_reports_each():
    cup = with_rosters(empty_cup())
    url = f"{API}/tournaments/{cup.slug}/stages/qualifying/import-logs/"
    files = [SimpleUploadedFile(f"{n}.html", (LOGS / f"{n}.html").read_bytes(), "text/html")
             for n in (3624027, 3665747)]
    answer = client_of(user_with(cup, Role.ORGANIZER)).post(url, {
        "logs": files, "stage_list": SimpleUploadedFile("games.txt", GAMES.encode())})
    assert answer.status_code == 201, answer.content
    report = answer.json()
    assert [(g["site_number"], g["number"], g["status"]) for g in report["games"]] == [
        (3624027, 4, "saved"), (3665747, None, "refused")]
    assert report["games"][1]["problems"] == [{"path": "number", "message": "game 3665747 is not on the stage list"}]
    outsider = client_of(user_with(cup, Role.PLAYER)).post(url, {"logs": [], "stage_list": GAMES},
                                                           content_type="application/json")
    assert outsider.status_code == 403
    dry = client_of(user_with(cup, Role.JUDGE)).post(f"{url}?dry_run=1", {
        "logs": [{"name": "a.html", "html": (LOGS / "3624161.html").read_text(encoding="utf-8")}],
        "stage_list": GAMES}, content_type="application/json")
    assert dry.status_code == 200 and dry.json()["games"][0]["status"] == "ready"
    assert Game.objects.filter(stage__tournament=cup).count() == 1


def test_the_api_schema_documents_the_three_imports():
    paths = SchemaGenerator().get_schema(request=None, public=True)["paths"]
    for path in ("/api/v1/tournaments/{slug}/import-rosters/", "/api/v1/tournaments/{slug}/import-penalties/",
                 "/api/v1/tournaments/{slug}/stages/{stage_key}/import-logs/"):
        operation = paths[path]["post"]
        assert operation["summary"] and operation["description"] and {"400", "403", "404"} <= set(
            operation["responses"])


# --- the pages ----------------------------------------------------------------------------------------------


def form_fields(page) -> dict[str, list[str]]:
    """The hidden and text fields the page's form posts again (the preview carries what it read)."""
    html = page.content.decode()
    fields: dict[str, list[str]] = {}
    for name, value in re.findall(r'<input type="hidden" name="([a-z_]+)" value="([^"]*)"', html):
        fields.setdefault(name, []).append(value)
    for name, value in re.findall(r'<textarea[^>]* name="([a-z_]+)"[^>]*>(.*?)</textarea>', html, re.S):
        fields.setdefault(name, []).append(value)
    return fields


def unescape(value: str) -> str:
    return html.unescape(value)


def test_the_roster_page_previews_then_imports(django_assert_max_num_queries):
    cup = empty_cup()
    Player.objects.create(nick="Vera")
    client = client_of(user_with(cup, Role.ORGANIZER))
    url = f"/t/{cup.slug}/import/rosters/"
    with django_assert_max_num_queries(12):
        assert client.get(url).status_code == 200
    with django_assert_max_num_queries(16):
        page = client.post(url, {"action": "preview", "file": SimpleUploadedFile("teams.txt", TEAMS.encode())})
    text = page.content.decode()
    assert page.status_code == 200 and "Preview: nothing is saved yet" in text
    assert 'data-team="Hot Fuzz"' in text and "known to the portal: reused" in text
    assert Team.objects.count() == 0
    carried = unescape(form_fields(page)["text"][0])
    assert carried.strip() == TEAMS.strip()
    page = client.post(url, {"action": "import", "text": carried, "families": "1"})
    assert page.status_code == 200 and "Teams imported: 16." in page.content.decode()
    assert Team.objects.filter(tournament=cup, family__isnull=False).count() == 16
    refused = client.post(url, {"action": "import", "text": "Новая: Vera\n"})
    assert refused.status_code == 400
    assert "line 1: Vera is already on the roster of Hot Fuzz" in unescape(refused.content.decode())
    assert client_of(user_with(cup, Role.JUDGE)).get(url).status_code == 403


def test_the_game_log_page_previews_the_batch_carries_the_logs_and_imports_them(
        django_assert_max_num_queries):
    cup = with_rosters(empty_cup())
    client = client_of(user_with(cup, Role.ORGANIZER))
    url = f"/t/{cup.slug}/import/games/"
    with django_assert_max_num_queries(12):
        assert client.get(url).status_code == 200
    uploads = [SimpleUploadedFile(f"{n}.html", (LOGS / f"{n}.html").read_bytes(), "text/html")
               for n in (*CUP_LOGS, 3665747)]
    with django_assert_max_num_queries(60):
        page = client.post(url, {"action": "preview", "stage": "qualifying", "logs": uploads, "stage_list": GAMES})
    text = unescape(page.content.decode())
    assert page.status_code == 200 and "will be saved as a new game" in text
    assert "game 3665747 is not on the stage list" in text and Game.objects.count() == 0
    fields = form_fields(page)
    assert fields["carried_name"] == [f"{n}.html" for n in (*CUP_LOGS, 3665747)]
    page = client.post(url, {"action": "import", "stage": "qualifying", "stage_list": GAMES,
                             "carried_name": fields["carried_name"],
                             "carried_html": [unescape(t) for t in fields["carried_html"]]})
    assert page.status_code == 200 and "Games saved: 4; logs refused: 1." in page.content.decode()
    assert sorted(Game.objects.filter(stage__tournament=cup).values_list("number", flat=True)) == [4, 5, 6, 15]
    assert client_of(user_with(cup, Role.PLAYER)).get(url).status_code == 403
    # without a stage list a log goes by its own number; a seat's refusal names the seat and its nick
    page = client.post(url, {"action": "preview", "stage": "qualifying", "logs": [
        SimpleUploadedFile("3665747.html", (LOGS / "3665747.html").read_bytes(), "text/html")]})
    assert "game 3665747, seat 5 (wasp): team: wasp is on no team of the stage: choose the team" in unescape(
        page.content.decode())


def test_the_penalty_page_is_the_judges_and_shows_what_each_line_does(season, django_assert_max_num_queries):
    client = client_of(user_with(season, Role.JUDGE))
    url = f"/t/{season.slug}/import/penalties/"
    with django_assert_max_num_queries(12):
        assert client.get(url).status_code == 200
    lines = "Этап1=qualifying, Этап2=qualifying, Этап3=qualifying"
    with django_assert_max_num_queries(40):
        page = client.post(url, {"action": "preview", "text": PENALTIES, "stage_list": GAMES, "lines": lines})
    text = unescape(page.content.decode())
    assert page.status_code == 200 and text.count("a judge's penalty to record (FL-18)") == 8
    assert 'data-line="9" data-action="detected"' in text and 'data-line="11" data-action="absent"' in text
    page = client.post(url, {"action": "import", "text": PENALTIES, "stage_list": GAMES, "lines": lines})
    assert page.status_code == 200 and Penalty.objects.count() == 8
    assert client_of(user_with(season, Role.ORGANIZER)).get(url).status_code == 403


def test_the_dashboard_links_each_import_its_reader_may_use():
    cup = empty_cup()
    organizer = client_of(user_with(cup, Role.ORGANIZER)).get(f"/accounts/dashboard/{cup.slug}/").content.decode()
    assert f"/t/{cup.slug}/import/rosters/" in organizer and f"/t/{cup.slug}/import/games/" in organizer
    assert f"/t/{cup.slug}/import/penalties/" not in organizer, "penalties are not the organizer's (FL-0)"
    judge = client_of(user_with(cup, Role.JUDGE)).get(f"/accounts/dashboard/{cup.slug}/").content.decode()
    assert f"/t/{cup.slug}/import/penalties/" in judge and f"/t/{cup.slug}/import/rosters/" not in judge


def test_the_single_log_command_shares_the_tournament_and_user_options():
    """``import_game_log`` and the three new commands read ``--tournament`` and ``--user`` alike."""
    cup = with_rosters(empty_cup())
    with pytest.raises(CommandError, match="unknown tournament"):
        run("import_game_log", str(LOGS / "3624027.html"), "--tournament", "nope", "--stage", "qualifying",
            "--game", "1", "--dry-run")
    with pytest.raises(CommandError, match="unknown user"):
        run("import_game_log", str(LOGS / "3624027.html"), "--tournament", cup.slug, "--stage", "qualifying",
            "--game", "1", "--user", "nobody")
    out, _err = run("import_game_log", str(LOGS / "3624027.html"), "--tournament", cup.slug, "--stage",
                    "qualifying", "--game", "1", "--user", user_with(cup, Role.ORGANIZER).username)
    assert out.strip().endswith("/log/3624027") and Game.objects.filter(stage__tournament=cup).count() == 1
    for command in ("import_rosters", "import_penalties"):
        with pytest.raises(CommandError, match="unknown tournament"):
            run(command, str(CUP / "teams.txt"), "--tournament", "nope", "--dry-run")
