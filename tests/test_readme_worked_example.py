"""README.md's worked example, a season from the organizers' files, runs as written.

The commands are read from the README's section "Worked example: a season from the organizers' files" (its ``sh``
block: continuation lines joined, comments dropped, split as the shell splits them, globs expanded from the
project's folder), so the README and this test cannot drift apart. Each runs through ``call_command`` from the
project's folder, its commit's jobs run (the recompute), and the test then checks the tables they leave: the cup's
clans, rosters, games and penalties, the season's tour places against the rating site's official positions, and a
player's career. The files are ``../shared/real-data/`` as the README names them; where that folder is missing
(another checkout) their byte-identical copies in ``tests/data/real/`` stand in. A bad file is refused with its
line or path and nothing of it is saved.
"""

from __future__ import annotations

import glob
import json
import re
import shlex
from fractions import Fraction
from io import StringIO
from pathlib import Path

import pytest
from django.core.management import CommandError, call_command
from django.utils import translation

from accounts.models import Family, Player
from portal import careers
from scoring.models import StandingsSnapshot
from tournaments.models import AuditEntry, Game, GameStatus, Mask, Penalty, RosterEntry, Seat, Team, Tour, Tournament

pytestmark = pytest.mark.django_db
COMMITTED = pytest.mark.django_db(transaction=True)

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
HEADING = "### Worked example: a season from the organizers' files"
SHARED = "../shared/real-data/"
COPIES = "tests/data/real/"
PYTHON = [".venv/bin/python", "manage.py"]
CUP, SEASON = "family-cup-2016", "kineshma-cup-2017"


def section() -> str:
    """The README's worked example, from its heading to the next one."""
    text = README.read_text(encoding="utf-8")
    start = text.index(HEADING)
    return text[start:_end(text, start)]


def _end(text: str, start: int) -> int:
    """Where the section ends: the next heading outside a code block."""
    inside = False
    offset = start + len(HEADING)
    for line in text[offset:].splitlines(keepends=True):
        if line.startswith("```"):
            inside = not inside
        elif not inside and line.startswith("#"):
            return offset
        offset += len(line)
    return len(text)


def readme_commands() -> list[list[str]]:
    """The README block's commands, each as its words (``manage.py`` and its arguments)."""
    block = re.search(r"```sh\n(.*?)```", section(), re.S)
    assert block, "the worked example's sh block"
    joined = re.sub(r"\\\n\s*", " ", block.group(1))
    return [words for words in (shlex.split(line, comments=True) for line in joined.splitlines()) if words]


def real_data() -> str:
    """The prefix the files are read under: the README's, or the copies."""
    if (ROOT / SHARED).is_dir():
        return SHARED
    if (ROOT / COPIES).is_dir():
        return COPIES
    pytest.skip("neither ../shared/real-data/ nor tests/data/real/ is here")
    return ""


def arguments(words: list[str], prefix: str) -> list[str]:
    """A command's arguments as the shell hands them over: the files under ``prefix``, globs expanded."""
    out = []
    for word in words:
        if word.startswith(SHARED):
            word = prefix + word[len(SHARED):]
        if any(c in word for c in "*?["):
            found = sorted(glob.glob(word))
            assert found, f"{word} matches no file"
            out += found
        else:
            out.append(word)
    return out


def run(words: list[str]) -> tuple[str, str]:
    out, err = StringIO(), StringIO()
    call_command(*words, stdout=out, stderr=err)
    return out.getvalue(), err.getvalue()


@pytest.fixture
def worked_example(monkeypatch, django_user_model):
    """The README's commands run in order from the project's folder, as ``admin`` (the README's superuser); the
    tests that use it commit (``transaction=True``), so each command's commit runs its jobs (the recompute) as
    in production."""
    monkeypatch.chdir(ROOT)
    django_user_model.objects.create_superuser("admin", "admin@example.org", "pw-admin-123456")
    prefix = real_data()
    outputs = []
    for words in readme_commands():
        assert words[:2] == PYTHON, words
        outputs.append(run(arguments(words[2:], prefix)))
    return prefix, outputs


def clans(prefix: str) -> dict[str, list[str]]:
    """teams.txt read independently of the importer: clan -> its nicks, as the file spells them."""
    out = {}
    for line in (ROOT / prefix / "mafiaonline/family_cup_2016/teams.txt").read_text(encoding="utf-8").splitlines():
        clan, _sep, rest = line.partition(":")
        out[clan.strip()] = list(dict.fromkeys(n.strip() for n in rest.split(",") if n.strip()))
    return out


def official_positions(prefix: str) -> dict[str, Fraction]:
    """The rating site's own positions of the Кубок Кинешмы 2017 (column-oriented v1 list), by team name."""
    rows = json.loads((ROOT / prefix / "chgk/rating-v1/rosolimo_get_tourn_4441.json").read_text(encoding="utf-8"))
    return {rows["current_name"][k]: Fraction(str(rows["position"][k])) for k in rows["idteam"]}


def average(place: str) -> Fraction:
    """A portal place as the site writes it: "4-5" shares places 4 and 5, the site's 4.5 (CHGK-13)."""
    first, _sep, last = place.partition("-")
    return (Fraction(first) + Fraction(last or first)) / 2


# --- the block itself ---------------------------------------------------------------------------------------------


def test_the_worked_example_is_at_most_five_commands_of_the_portal_on_the_real_files():
    commands = readme_commands()
    assert 1 <= len(commands) <= 5, commands
    assert [words[2] for words in commands] == [
        "import_tournament", "import_rosters", "import_game_logs", "import_penalties", "import_rating_results"]
    named = {word for words in commands for word in words if word.startswith("../")}
    assert named and all(word.startswith(SHARED) for word in named)  # the real paths, from the project's folder
    prefix = real_data()
    for words in commands:
        for word in arguments(words[2:], prefix):
            if "/" in word and not word.startswith("--"):
                assert (ROOT / word).exists(), word


# --- what the commands leave ------------------------------------------------------------------------------------


@COMMITTED
def test_the_readme_commands_give_the_whole_family_cup(worked_example):
    prefix, outputs = worked_example
    cup = Tournament.objects.get(slug=CUP)
    expected = clans(prefix)
    teams = {t.name: t for t in Team.objects.filter(tournament=cup).select_related("family")}
    assert len(expected) == 16 and set(teams) == set(expected)
    assert all(t.family is not None and t.family.name == name for name, t in teams.items())
    assert Family.objects.filter(teams__tournament=cup).distinct().count() == 16
    for name, nicks in expected.items():
        roster = RosterEntry.objects.filter(team=teams[name]).values_list("player__nick", flat=True)
        assert set(nicks) <= set(roster), name  # a log may add a nick no clan list holds (--team), never drop one
    games = Game.objects.filter(stage__tournament=cup)
    assert games.count() == 45
    played = games.filter(status=GameStatus.PLAYED)
    assert sorted(played.values_list("number", flat=True)) == [4, 5, 6, 15]  # 3624027, -161, -224, -505
    assert all(g.outcome and g.seats.count() >= 7 for g in played)
    report = json.loads(outputs[2][0])
    assert report["saved"] == 4 and report["refused"] == 0 and [row["number"] for row in report["games"]] == [4, 5, 6, 15]
    plan = json.loads(outputs[3][0])
    assert plan["written"] is True and plan["counts"] == {"record": 8, "detected": 1, "pending": 3}
    penalties = Penalty.objects.filter(tournament=cup)
    assert penalties.count() == 8 and sorted(str(p.points) for p in penalties) == sorted(
        ["0.800", "1.700", "4.000", "0.400", "1.600", "0.100", "2.200", "0.200"])
    assert AuditEntry.objects.filter(tournament=cup, username="admin").exists()
    table = StandingsSnapshot.objects.get(tournament=cup, stage_key="qualifying")
    assert {row["team"] for row in table.export["teams"]} == set(expected)
    assert table.facts_version == Tournament.objects.get(pk=cup.pk).facts_version  # computed after the last write


@COMMITTED
def test_the_readme_commands_give_a_chgk_season_whose_tour_places_are_the_sites(worked_example):
    prefix, outputs = worked_example
    season = Tournament.objects.get(slug=SEASON)
    official = official_positions(prefix)
    assert set(Team.objects.filter(tournament=season).values_list("name", flat=True)) == set(official)
    tour = Tour.objects.get(stage__tournament=season, number=1)
    assert tour.questions == 36
    masks = {m.team.name: m for m in Mask.objects.filter(tour=tour).select_related("team")}
    assert set(masks) == set(official) and all(len(m.mask) == 36 and m.mask[14] == "X" for m in masks.values())
    assert {name: Fraction(str(m.site_position)) for name, m in masks.items()} == official
    assert outputs[4][0].strip() == f"{SEASON} tour 1: 11 masks, 0 appeals" and "place differs" not in outputs[4][1]
    table = StandingsSnapshot.objects.get(tournament=season, stage_key="season")
    places = {row["team"]: average(row["details"]["place_by_round"][0]) for row in table.details["teams"]}
    assert places == official  # the portal's tour places (CHGK-13) are the site's official positions
    assert places["Фордевинд"] == places["Тюрьма для хомячка"] == Fraction(9, 2)
    ranks = {row["team"]: row["rank"] for row in table.export["teams"]}
    # one tour: the season's table goes as the tour (its own tie-breaks, CHGK-14, order the teams the tour ties)
    by_rank = sorted(official, key=lambda team: ranks[team])
    assert [official[team] for team in by_rank] == sorted(official.values()) and by_rank[0] == "Movie 37"


@COMMITTED
def test_a_cup_players_career_shows_the_cup_and_the_roles_of_the_logs(worked_example, client):
    cup = Tournament.objects.get(slug=CUP)
    seat = Seat.objects.filter(game__stage__tournament=cup).select_related("player", "game").order_by("pk").first()
    player = seat.player
    seats = Seat.objects.filter(player=player, game__status=GameStatus.PLAYED)
    figures = {f.role: f for f in careers.role_figures(player.pk)}
    assert sum(f.games for f in figures.values()) == seats.count()
    page = client.get(f"/players/{player.pk}/", HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200
    html = page.content.decode()
    assert f"/t/{CUP}/" in html and "Mafia results by role" in html
    career = client.get(f"/api/v1/players/{player.pk}/career/").json()
    assert [t["slug"] for t in career["tournaments"]["results"]] == [CUP]
    assert {r["role"]: r["games"] for r in career["roles"]} == {role: f.games for role, f in figures.items()}


# --- bad files: the line or the path, and nothing saved ---------------------------------------------------------


def test_a_refused_document_of_command_1_names_its_file_and_saves_neither(monkeypatch, tmp_path):
    monkeypatch.chdir(ROOT)
    first = readme_commands()[0]
    broken = tmp_path / "season.json"
    document = json.loads((ROOT / "docs/worked-example/kineshma-cup-2017.json").read_text(encoding="utf-8"))
    document["teams"][0].pop("players")
    broken.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    err = StringIO()
    with pytest.raises(CommandError) as refused:
        call_command(*first[2:-1], str(broken), stdout=StringIO(), stderr=err)
    assert str(broken) in str(refused.value) and f"{broken}: teams[0].players: is required" in err.getvalue()
    assert not Tournament.objects.exists()  # the cup of the same command is not saved either


def test_a_refused_roster_line_of_command_2_is_named_and_nothing_of_the_file_is_saved(
        monkeypatch, tmp_path, django_user_model):
    monkeypatch.chdir(ROOT)
    django_user_model.objects.create_superuser("admin", "admin@example.org", "pw-admin-123456")
    commands = readme_commands()
    call_command(*commands[0][2:], stdout=StringIO())
    prefix = real_data()
    teams = (ROOT / prefix / "mafiaonline/family_cup_2016/teams.txt").read_text(encoding="utf-8")
    broken = tmp_path / "teams.txt"
    broken.write_text(teams.rstrip("\n") + "\nНовый клан: Новичок, fedanet\n", encoding="utf-8")  # fedanet: Vendetta
    words = [str(broken) if w.endswith("teams.txt") else w for w in arguments(commands[1][2:], prefix)]
    err = StringIO()
    with translation.override("en"), pytest.raises(CommandError):
        call_command(*words, stdout=StringIO(), stderr=err)
    assert re.fullmatch(r"lines\[16\]: line 17: fedanet is already in Vendetta \(line \d+\): .*\n", err.getvalue()), (
        err.getvalue())
    assert not Team.objects.filter(tournament__slug=CUP).exists()
    assert not Player.objects.filter(nick__in=["fedanet", "Новичок"]).exists()
