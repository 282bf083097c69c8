"""The project's own fuzz test of every way an organizer's file comes in (``tests/fuzzing.py``).

Seeded mutations (types swapped, keys dropped, huge and non-finite numbers, NUL bytes, 5,000 levels of
nesting, a top level that is not an object, wrong encodings, cuts, a line repeated 10,000 times) of the spec
examples and of the real files of ``tests/data/real`` (the rating site's JSON, the mafiaonline.ru logs, the
Family Cup's and the Interclan's ``teams.txt``, ``games.txt``, ``penalties.txt``) go through the readers, the
API (the interchange import, import-log, import-rating, import-rosters, import-logs, import-penalties), the
upload pages (the entry form's log preview, the roster, game-log and penalty pages) and the commands
(``import_tournament``, ``import_rating_results``, ``import_game_log(s)``, ``import_rosters``,
``import_penalties``). None may answer a 500 or print a traceback; an API refusal is ``{"errors": [...]}``, a
page's the site's styled page, a command's ``CommandError``; a refused input (and every dry run and preview)
leaves every table as it was.

``FUZZ_SEED`` and ``FUZZ_CASES`` (the total, shared out in the proportions of ``CASES``) change the run
(``scripts/fuzz_imports --seed N --cases N``); ``FUZZ_CASE`` replays the one case a failure names.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.utils import translation

from accounts.models import Role, TournamentRole
from rulesets.errors import Invalid, Problem
from tests.conftest import EXAMPLES, RULESET_KEYS
from tests.factories import UserFactory
from tests.fuzzing import (
    ACCEPTED,
    REFUSED,
    Case,
    Runner,
    api_outcome,
    case_rng,
    command_outcome,
    json_case,
    page_outcome,
    seed,
    text_case,
)
from tournaments.importer import import_document
from tournaments.models import Tournament
from tournaments.sources.chgk_rating import decode, parse_rating_results
from tournaments.sources.files import as_text
from tournaments.sources.json_input import read_json
from tournaments.sources.log_batch import LogFile, import_log_batch
from tournaments.sources.mafiaonline_log import parse_game_log
from tournaments.sources.penalty_file import parse_penalties
from tournaments.sources.roster_file import KINDS, parse_rosters
from tournaments.sources.roster_import import import_rosters
from tournaments.sources.stage_list import parse_stage_list

pytestmark = pytest.mark.django_db

REAL = Path(__file__).resolve().parent / "data" / "real"
CHGK = REAL / "chgk"
MAFIA = REAL / "mafiaonline"
LOGS = sorted((MAFIA / "logs").glob("*.html"))
CUP_LOGS = ("3624027", "3624161", "3624224", "3624505")  # stage 1 of the cup, on games.txt
RATING_FILES = [CHGK / "chgkrating_3506_teams_at_tournament.json", CHGK / "questionshub_rating_results_13097.json",
                *sorted((CHGK / "rating-v1").glob("*.json"))]
TEAMS = {name: (MAFIA / name / "teams.txt").read_text(encoding="utf-8") for name in ("family_cup_2016",
                                                                                      "interclan_2016")}
GAMES = {name: (MAFIA / name / "games.txt").read_text(encoding="utf-8") for name in TEAMS}
PENALTIES = (MAFIA / "family_cup_2016" / "penalties.txt").read_text(encoding="utf-8")
ALL_LINES = {"Этап1": "qualifying", "Этап2": "qualifying", "Этап3": "qualifying"}
API = "/api/v1/tournaments"
BUDGET_SECONDS = 120  # the whole file, on the shared 2-core machine

CASES = {  # the suite's share of each surface: 1,083 in all
    "reader-json": 240, "reader-rating": 100, "reader-log": 100, "reader-rosters": 70, "reader-penalties": 60,
    "reader-stage-list": 60,
    "api-interchange": 40, "api-import-log": 70, "api-import-rating": 70, "api-import-rosters": 50,
    "api-import-logs": 30, "api-import-penalties": 50,
    "page-log-preview": 20, "page-rosters": 20, "page-game-logs": 15, "page-penalties": 20,
    "cmd-import-tournament": 12, "cmd-import-rating-results": 12, "cmd-import-game-log": 12,
    "cmd-import-game-logs": 8, "cmd-import-rosters": 12, "cmd-import-penalties": 12,
}
SUMMARIES: list[str] = []


def numbers(surface: str) -> Iterator[int]:
    """The case numbers of ``surface``: its share of ``FUZZ_CASES`` (else of ``CASES``), or ``FUZZ_CASE`` alone."""
    only = os.environ.get("FUZZ_CASE")
    if only:
        yield int(only)
        return
    total = int(os.environ.get("FUZZ_CASES") or sum(CASES.values()))
    yield from range(max(1, round(CASES[surface] * total / sum(CASES.values()))))


def read(path: Path) -> Any:
    return json.loads(path.read_text(encoding="utf-8"))


JSON_BASES = {**{f"spec/examples/{key}.json": read(EXAMPLES / f"{key}.json") for key in RULESET_KEYS},
              **{f"chgk/{path.name}": read(path) for path in RATING_FILES}}
LOG_TEXTS = {f"logs/{path.name}": path.read_text(encoding="utf-8") for path in LOGS}
ROSTER_TEXTS = {**{f"{name}/teams.txt": text for name, text in TEAMS.items()},
                "family_cup_2016/teams.csv": "team,player,captain\n" + "".join(
                    f"{clan.strip()},{nick.strip()},{'1' if i == 0 else ''}\n"
                    for clan, _sep, rest in (line.partition(":") for line in TEAMS["family_cup_2016"].splitlines())
                    for i, nick in enumerate(n for n in rest.split(",") if n.strip()))}
STAGE_TEXTS = {f"{name}/games.txt": text for name, text in GAMES.items()}


def pick(rng: random.Random, bases: dict[str, Any]) -> tuple[str, Any]:
    name = rng.choice(sorted(bases))
    return name, bases[name]


def json_of(surface: str, number: int, bases: dict[str, Any] | None = None) -> tuple[random.Random, Case]:
    rng = case_rng(surface, number)
    name, document = pick(rng, bases or JSON_BASES)
    return rng, json_case(surface, number, name, document, rng)


def text_of(surface: str, number: int, bases: dict[str, str]) -> tuple[random.Random, Case]:
    rng = case_rng(surface, number)
    name, text = pick(rng, bases)
    return rng, text_case(surface, number, name, text, rng)


def finish(runner: Runner) -> Runner:
    SUMMARIES.append(runner.summary())
    print(runner.summary())
    return runner


def check_all(*runners: Runner) -> None:
    """Every surface of the test is run before any failure is reported."""
    failed = [runner for runner in runners if runner.failures]
    if failed:
        messages = []
        for runner in failed:
            try:
                runner.check()
            except AssertionError as failure:
                messages.append(str(failure))
        raise AssertionError("\n\n".join(messages))


@pytest.fixture(autouse=True, scope="module")
def _summary() -> Iterator[None]:
    """The run's summary at the end of the module (``scripts/fuzz_imports`` prints it)."""
    started = time.monotonic()
    yield
    total = sum(int(line.split(": ", 1)[1].split(" ", 1)[0]) for line in SUMMARIES)
    print(f"\nfuzz summary, seed {seed()}: {total} cases in {time.monotonic() - started:.1f} s")
    for line in SUMMARIES:
        print(f"  {line}")


@pytest.fixture(autouse=True)
def _english() -> Iterator[None]:
    with translation.override("en"):
        yield


# --- setups -------------------------------------------------------------------------------------------------


@pytest.fixture
def fuzzer(django_user_model):
    """The organizer and judge of every tournament the cases go to (site staff: the interchange import)."""
    return UserFactory(username="fuzzer", is_staff=True)


def client_of(user) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    client.force_login(user)
    return client


def with_roles(tournament: Tournament, user) -> Tournament:
    TournamentRole.objects.bulk_create([TournamentRole(user=user, tournament=tournament, role=role)
                                        for role in (Role.ORGANIZER, Role.JUDGE)])
    return tournament


def cup(user, *, games: int = 0, rosters: bool = False, logs: bool = False) -> Tournament:
    """The Family Cup 2016 as a family league: a stage of ``games`` scheduled games (game 28 not held), its
    clans' rosters from teams.txt, the four logs of its first stage recorded."""
    tournament = with_roles(import_document({
        "format": "tournament-portal/1",
        "tournament": {"slug": "family-cup-2016", "name": "Семейный кубок 2016", "ruleset": "family_league",
                       "timezone": "Europe/Moscow", "starts_on": "2016-07-04"},
        "teams": [], "stages": [{"key": "qualifying", "games": [
            {"number": n, "status": "not_held" if n == 28 else "scheduled"} for n in range(1, games + 1)]}]}), user)
    if rosters:
        import_rosters(user, tournament, TEAMS["family_cup_2016"], families=True)
    if logs:
        import_log_batch(user, tournament, tournament.stages.get(), [
            LogFile(f"{n}.html", (MAFIA / "logs" / f"{n}.html").read_text(encoding="utf-8")) for n in CUP_LOGS],
            stage_list=GAMES["family_cup_2016"], lines=list(ALL_LINES), game_problems=None)
    return tournament


@pytest.fixture
def season(fuzzer) -> Tournament:
    return cup(fuzzer, games=45, rosters=True)


@pytest.fixture
def played_season(fuzzer) -> Tournament:
    return cup(fuzzer, games=45, rosters=True, logs=True)


@pytest.fixture
def empty_cup(fuzzer) -> Tournament:
    return cup(fuzzer)


@pytest.fixture
def chgk_seasons(fuzzer) -> dict[str, Tournament]:
    """A ChGK season of the teams of each rating file, with tour 1 to import into."""
    out = {}
    for i, path in enumerate(RATING_FILES):
        rows = read(path)
        names = (list(rows["current_name"].values()) if isinstance(rows, dict) else [
            r["team"]["name"] if "team" in r else r["current_name"] for r in rows])[:200]  # a season's most
        out[f"chgk/{path.name}"] = with_roles(import_document({
            "format": "tournament-portal/1",
            "tournament": {"slug": f"chgk-fuzz-{i}", "name": f"ChGK {i}", "ruleset": "chgk_tour_points",
                           "timezone": "Europe/Moscow", "starts_on": "2015-11-08"},
            "teams": [{"name": n, "captain": f"cap-{i}-{j}", "players": [f"cap-{i}-{j}"]} for j, n in enumerate(names)],
            "stages": [{"key": "season", "tours": [{"number": 1, "questions": 12}]}]}), fuzzer)
    return out


# --- the readers -----------------------------------------------------------------------------------------------


def problems_are_located(problems: list[Problem]) -> None:
    assert isinstance(problems, list) and problems, problems
    for problem in problems:
        assert isinstance(problem.path, str) and str(problem.message), problem
        str(problem).encode("utf-8")


def readers_refuse(reader: Callable[[Case], tuple[Any, list[Problem]]]) -> Callable[[Case], str]:
    def send(case: Case) -> str:
        value, problems = reader(case)
        if problems:
            problems_are_located(problems)
            return REFUSED
        return ACCEPTED
    return send


def _read_json(case: Case) -> tuple[Any, list[Problem]]:
    try:
        return read_json(case.raw), []
    except Invalid as refused:
        return None, refused.located()


def _read_rating(case: Case) -> tuple[Any, list[Problem]]:
    data, problems = decode(case.raw, root="file")
    if problems:
        return None, problems
    return parse_rating_results(data, root="file")


def test_the_json_reader_and_the_rating_reader_refuse_mutated_json_with_paths():
    """``read_json`` and the rating-site reader, on the mutated spec examples and rating files."""
    done: list[Runner] = []
    for surface, reader, bases in (("reader-json", _read_json, JSON_BASES), ("reader-rating", _read_rating, {
            k: v for k, v in JSON_BASES.items() if k.startswith("chgk/")})):
        runner = Runner(surface)
        for number in numbers(surface):
            runner.run(json_of(surface, number, bases)[1], readers_refuse(reader), database=False)
        done.append(finish(runner))
    check_all(*done)


def test_the_text_file_readers_refuse_mutated_files_with_their_lines():
    """The log, roster, penalty and stage-list readers, on the mutated real files."""
    done: list[Runner] = []
    readers = {
        "reader-log": (LOG_TEXTS, lambda case: parse_game_log(as_text(case.raw))),
        "reader-rosters": (ROSTER_TEXTS, lambda case: parse_rosters(
            as_text(case.raw), KINDS[case.number % len(KINDS)], case.source)),
        "reader-penalties": ({"family_cup_2016/penalties.txt": PENALTIES}, lambda case: parse_penalties(
            as_text(case.raw))),
        "reader-stage-list": (STAGE_TEXTS, lambda case: parse_stage_list(as_text(case.raw))),
    }
    for surface, (bases, reader) in readers.items():
        runner = Runner(surface)
        for number in numbers(surface):
            case = text_of(surface, number, bases)[1]
            runner.run(case, lambda c, reader=reader: _text_reader(reader, c), database=False)
        done.append(finish(runner))
    check_all(*done)


def _text_reader(reader: Callable[[Case], tuple[Any, list[Problem]]], case: Case) -> str:
    value, problems = reader(case)
    if problems:
        problems_are_located(problems)
        return REFUSED
    return ACCEPTED if value is not None else REFUSED


# --- the interchange import -------------------------------------------------------------------------------


def test_mutated_interchange_documents_through_the_api_and_the_command(fuzzer, tmp_path):
    """``POST /api/v1/tournaments/import/`` and ``import_tournament`` on mutated examples."""
    done: list[Runner] = []
    examples = {k: v for k, v in JSON_BASES.items() if k.startswith("spec/")}
    api = client_of(fuzzer)

    def through_api(case: Case) -> str:
        return api_outcome(api.post(f"{API}/import/", data=case.raw, content_type="application/json"))

    def through_command(case: Case) -> str:
        path = tmp_path / f"{case.number}.json"
        path.write_bytes(case.raw)
        return command_outcome("import_tournament", str(path))

    for surface, send in (("api-interchange", through_api), ("cmd-import-tournament", through_command)):
        runner = Runner(surface)
        for number in numbers(surface):
            runner.run(json_of(surface, number, examples)[1], send)
        done.append(finish(runner))
    check_all(*done)


# --- the rating site's results --------------------------------------------------------------------------------


def _tour_number(rng: random.Random) -> int:
    return rng.choice([1] * 8 + [2, 0, 2**31, 10**20])


def test_mutated_rating_files_through_the_api_and_the_command(chgk_seasons, fuzzer, tmp_path):
    """``import-rating`` (JSON and multipart) and ``import_rating_results`` on mutated files."""
    done: list[Runner] = []
    ratings = {k: v for k, v in JSON_BASES.items() if k.startswith("chgk/")}
    api = client_of(fuzzer)
    runner = Runner("api-import-rating")
    for number in numbers(runner.surface):
        rng, case = json_of(runner.surface, number, ratings)
        slug = chgk_seasons[case.source].slug
        dry = rng.random() < 0.5
        url = f"{API}/{slug}/tours/{_tour_number(rng)}/import-rating/" + ("?dry_run=true" if dry else "")
        way = rng.random()
        if way < 0.5:
            body = b'{"results": ' + case.raw + b', "skip_unmatched": true}'
            send = lambda c, url=url, body=body, dry=dry: api_outcome(  # noqa: E731
                api.post(url, data=body, content_type="application/json"), dry_run=dry)
        elif way < 0.7:
            envelope = {"results": ratings[case.source], "map": {}, "skip_unmatched": True}
            case = json_case(runner.surface, number, f"{case.source} in its envelope", envelope, rng)
            send = lambda c, url=url, dry=dry: api_outcome(  # noqa: E731
                api.post(url, data=c.raw, content_type="application/json"), dry_run=dry)
        else:
            send = lambda c, url=url, dry=dry: api_outcome(api.post(url, {  # noqa: E731
                "file": SimpleUploadedFile("results.json", c.raw), "skip_unmatched": "true"}), dry_run=dry)
        runner.run(case, send, writes=not dry)
    done.append(finish(runner))

    runner = Runner("cmd-import-rating-results")
    for number in numbers(runner.surface):
        rng, case = json_of(runner.surface, number, ratings)
        path = tmp_path / f"{number}.json"
        path.write_bytes(case.raw)
        dry = rng.random() < 0.5
        args = ["import_rating_results", str(path), "--tournament", chgk_seasons[case.source].slug, "--tour",
                str(_tour_number(rng)), "--skip-unmatched", *(["--dry-run"] if dry else ["--user", fuzzer.username])]
        runner.run(case, lambda c, args=args: command_outcome(*args), writes=not dry)
    done.append(finish(runner))
    check_all(*done)


# --- one game log ---------------------------------------------------------------------------------------------


def _game_number(rng: random.Random) -> int:
    return rng.choice([*range(1, 46), 0, 2**31, 10**20])


def test_mutated_game_logs_through_the_api_the_entry_form_and_the_command(season, fuzzer, tmp_path):
    """``import-log``, the entry form's "import from game log" box and ``import_game_log``."""
    done: list[Runner] = []
    api = client_of(fuzzer)
    base = f"{API}/{season.slug}/stages/qualifying/games"
    runner = Runner("api-import-log")
    for number in numbers(runner.surface):
        rng, case = text_of(runner.surface, number, LOG_TEXTS)
        dry = rng.random() < 0.5
        url = f"{base}/{_game_number(rng)}/import-log/" + ("?dry_run=true" if dry else "")
        way = rng.random()
        if way < 0.45:
            send = lambda c, url=url, dry=dry: api_outcome(api.post(  # noqa: E731
                url, {"html": c.text()}, content_type="application/json"), dry_run=dry)
        elif way < 0.65:
            envelope = {"html": LOG_TEXTS[case.source], "teams": {"Vera": "Vendetta"}, "stats": {"Vera": 1}}
            case = json_case(runner.surface, number, f"{case.source} in its envelope", envelope, rng)
            send = lambda c, url=url, dry=dry: api_outcome(  # noqa: E731
                api.post(url, data=c.raw, content_type="application/json"), dry_run=dry)
        else:
            send = lambda c, url=url, dry=dry: api_outcome(api.post(url, {  # noqa: E731
                "log": SimpleUploadedFile("log.html", c.raw, "text/html")}), dry_run=dry)
        runner.run(case, send, writes=not dry)
    done.append(finish(runner))

    page = client_of(fuzzer)
    runner = Runner("page-log-preview")
    for number in numbers(runner.surface):
        rng, case = text_of(runner.surface, number, LOG_TEXTS)
        if rng.random() < 0.5:
            send = lambda c: page_outcome(page.post(f"/t/{season.slug}/qualifying/games/new/", {  # noqa: E731
                "log_import": "1", "log_file": SimpleUploadedFile("log.html", c.raw, "text/html")}))
        else:
            send = lambda c: page_outcome(page.post(f"/t/{season.slug}/qualifying/games/new/", {  # noqa: E731
                "log_import": "1", "log_text": c.text()}))
        runner.run(case, send, writes=False)
    done.append(finish(runner))

    runner = Runner("cmd-import-game-log")
    for number in numbers(runner.surface):
        rng, case = text_of(runner.surface, number, LOG_TEXTS)
        path = tmp_path / f"{number}.html"
        path.write_bytes(case.raw)
        dry = rng.random() < 0.5
        args = ["import_game_log", str(path), "--tournament", season.slug, "--stage", "qualifying", "--game",
                str(_game_number(rng)), *(["--dry-run"] if dry else ["--user", fuzzer.username])]
        runner.run(case, lambda c, args=args: command_outcome(*args), writes=not dry)
    done.append(finish(runner))
    check_all(*done)


# --- a batch of game logs -------------------------------------------------------------------------------------


def _batch(rng: random.Random, case: Case, *, mutated_log: bool) -> tuple[list[tuple[str, bytes]], str]:
    """Two logs and the stage list of a batch, one of them the case's."""
    other = rng.choice(sorted(LOG_TEXTS))
    logs = [(other.rsplit("/", 1)[1], LOG_TEXTS[other].encode("utf-8"))]
    if mutated_log:
        logs.insert(rng.randint(0, 1), ("mutated.html", case.raw))
        return logs, GAMES["family_cup_2016"]
    return logs, case.text()


def test_mutated_log_batches_through_the_api_the_page_and_the_command(season, fuzzer, tmp_path):
    """``import-logs``, the batch page and ``import_game_logs``, a mutated log or stage list."""
    done: list[Runner] = []
    bases = {**LOG_TEXTS, **STAGE_TEXTS}
    api = client_of(fuzzer)
    runner = Runner("api-import-logs")
    url = f"{API}/{season.slug}/stages/qualifying/import-logs/"
    for number in numbers(runner.surface):
        rng, case = text_of(runner.surface, number, bases)
        logs, stage_list = _batch(rng, case, mutated_log=case.source.startswith("logs/"))
        dry = rng.random() < 0.5
        target = url + ("?dry_run=true" if dry else "")
        if rng.random() < 0.5:
            body = {"logs": [{"name": name, "html": raw.decode("utf-8", errors="replace")} for name, raw in logs],
                    "stage_list": stage_list, "lines": list(ALL_LINES)}
            response = lambda t=target, b=body: api.post(t, b, content_type="application/json")  # noqa: E731
        else:
            response = lambda t=target, logs=logs, s=stage_list: api.post(t, {  # noqa: E731
                "logs": [SimpleUploadedFile(name, raw, "text/html") for name, raw in logs], "stage_list": s,
                "lines": ",".join(ALL_LINES)})
        runner.run(case, lambda c, r=response, dry=dry: _batch_outcome(r(), dry), writes=not dry)
    done.append(finish(runner))

    page = client_of(fuzzer)
    runner = Runner("page-game-logs")
    for number in numbers(runner.surface):
        rng, case = text_of(runner.surface, number, bases)
        logs, stage_list = _batch(rng, case, mutated_log=case.source.startswith("logs/"))
        action = rng.choice(["preview", "import"])
        send = lambda c, logs=logs, s=stage_list, a=action: page_outcome(  # noqa: E731
            page.post(f"/t/{season.slug}/import/games/", {
                "action": a, "stage": "qualifying", "stage_list": s, "lines": ",".join(ALL_LINES),
                "logs": [SimpleUploadedFile(name, raw, "text/html") for name, raw in logs]}))
        runner.run(case, send, writes=action == "import")
    done.append(finish(runner))

    runner = Runner("cmd-import-game-logs")
    for number in numbers(runner.surface):
        rng, case = text_of(runner.surface, number, bases)
        logs, stage_list = _batch(rng, case, mutated_log=case.source.startswith("logs/"))
        folder = tmp_path / f"batch-{number}"
        folder.mkdir()
        for name, raw in logs:
            (folder / name).write_bytes(raw)
        (tmp_path / f"games-{number}.txt").write_bytes(stage_list.encode("utf-8", errors="replace"))
        if not case.source.startswith("logs/"):
            (tmp_path / f"games-{number}.txt").write_bytes(case.raw)
        dry = rng.random() < 0.5
        args = ["import_game_logs", *(str(folder / name) for name, _raw in logs), "--tournament", season.slug,
                "--stage", "qualifying", "--games", str(tmp_path / f"games-{number}.txt"),
                *(f"--line={line}" for line in ALL_LINES), *(["--dry-run"] if dry else ["--user", fuzzer.username])]
        runner.run(case, lambda c, args=args: command_outcome(*args), writes=not dry)
    done.append(finish(runner))
    check_all(*done)


def _batch_outcome(response, dry: bool) -> str:
    outcome = api_outcome(response, dry_run=dry)
    if outcome == ACCEPTED and not response.json().get("written"):
        return REFUSED  # every log refused: nothing was written
    return outcome


# --- rosters --------------------------------------------------------------------------------------------------


def test_mutated_roster_files_through_the_api_the_page_and_the_command(empty_cup, fuzzer, tmp_path):
    """``import-rosters``, the roster page and ``import_rosters`` on mutated teams.txt and CSV."""
    done: list[Runner] = []
    api = client_of(fuzzer)
    url = f"{API}/{empty_cup.slug}/import-rosters/"
    runner = Runner("api-import-rosters")
    for number in numbers(runner.surface):
        rng, case = text_of(runner.surface, number, ROSTER_TEXTS)
        dry = rng.random() < 0.5
        target = url + ("?dry_run=true" if dry else "")
        kind, families = rng.choice(KINDS), rng.random() < 0.5
        way = rng.random()
        if way < 0.45:
            send = lambda c, t=target, k=kind, f=families, dry=dry: api_outcome(api.post(t, {  # noqa: E731
                "text": c.text(), "format": k, "families": f}, content_type="application/json"), dry_run=dry)
        elif way < 0.65:
            envelope = {"text": ROSTER_TEXTS[case.source], "format": kind, "families": families}
            case = json_case(runner.surface, number, f"{case.source} in its envelope", envelope, rng)
            send = lambda c, t=target, dry=dry: api_outcome(  # noqa: E731
                api.post(t, data=c.raw, content_type="application/json"), dry_run=dry)
        else:
            send = lambda c, t=target, k=kind, f=families, dry=dry: api_outcome(api.post(t, {  # noqa: E731
                "file": SimpleUploadedFile(c.source.rsplit("/", 1)[1], c.raw), "format": k,
                "families": "true" if f else "false"}), dry_run=dry)
        runner.run(case, send, writes=not dry)
    done.append(finish(runner))

    page = client_of(fuzzer)
    runner = Runner("page-rosters")
    for number in numbers(runner.surface):
        rng, case = text_of(runner.surface, number, ROSTER_TEXTS)
        action = rng.choice(["preview", "import"])
        fields = {"action": action, "format": rng.choice(KINDS), **({"families": "1"} if rng.random() < 0.5 else {})}
        if rng.random() < 0.5:
            send = lambda c, f=fields: page_outcome(page.post(f"/t/{empty_cup.slug}/import/rosters/", {  # noqa: E731
                **f, "file": SimpleUploadedFile(c.source.rsplit("/", 1)[1], c.raw)}))
        else:
            send = lambda c, f=fields: page_outcome(page.post(f"/t/{empty_cup.slug}/import/rosters/", {  # noqa: E731
                **f, "text": c.text()}))
        runner.run(case, send, writes=action == "import")
    done.append(finish(runner))

    runner = Runner("cmd-import-rosters")
    for number in numbers(runner.surface):
        rng, case = text_of(runner.surface, number, ROSTER_TEXTS)
        path = tmp_path / f"{number}-{case.source.rsplit('/', 1)[1]}"
        path.write_bytes(case.raw)
        dry = rng.random() < 0.5
        args = ["import_rosters", str(path), "--tournament", empty_cup.slug, "--format", rng.choice(KINDS),
                *(["--families"] if rng.random() < 0.5 else []),
                *(["--dry-run"] if dry else ["--user", fuzzer.username])]
        runner.run(case, lambda c, args=args: command_outcome(*args), writes=not dry)
    done.append(finish(runner))
    check_all(*done)


# --- penalties ------------------------------------------------------------------------------------------------


def test_mutated_penalty_files_through_the_api_the_page_and_the_command(played_season, fuzzer,
                                                                                         tmp_path):
    """``import-penalties``, the penalty page and ``import_penalties``, a mutated penalty file or
    stage list."""
    done: list[Runner] = []
    slug = played_season.slug
    bases = {"family_cup_2016/penalties.txt": PENALTIES, **STAGE_TEXTS}
    lines_text = ", ".join(f"{line}={stage}" for line, stage in ALL_LINES.items())

    def texts(case: Case) -> tuple[bytes, bytes]:
        """The penalty file and the stage list, one of them the case's."""
        if case.source.endswith("penalties.txt"):
            return case.raw, GAMES["family_cup_2016"].encode("utf-8")
        return PENALTIES.encode("utf-8"), case.raw

    api = client_of(fuzzer)
    runner = Runner("api-import-penalties")
    for number in numbers(runner.surface):
        rng, case = text_of(runner.surface, number, bases)
        dry = rng.random() < 0.5
        target = f"{API}/{slug}/import-penalties/" + ("?dry_run=true" if dry else "")
        way = rng.random()
        if way < 0.45:
            send = lambda c, t=target, dry=dry: api_outcome(api.post(t, {  # noqa: E731
                "text": texts(c)[0].decode("utf-8", errors="replace"),
                "stage_list": texts(c)[1].decode("utf-8", errors="replace"), "lines": ALL_LINES},
                content_type="application/json"), dry_run=dry)
        elif way < 0.65:
            envelope = {"text": PENALTIES, "stage_list": GAMES["family_cup_2016"], "lines": ALL_LINES}
            case = json_case(runner.surface, number, "penalties.txt in its envelope", envelope, rng)
            send = lambda c, t=target, dry=dry: api_outcome(  # noqa: E731
                api.post(t, data=c.raw, content_type="application/json"), dry_run=dry)
        else:
            send = lambda c, t=target, dry=dry: api_outcome(api.post(t, {  # noqa: E731
                "file": SimpleUploadedFile("penalties.txt", texts(c)[0]),
                "stage_list": SimpleUploadedFile("games.txt", texts(c)[1]), "lines": lines_text}), dry_run=dry)
        runner.run(case, send, writes=not dry)
    done.append(finish(runner))

    page = client_of(fuzzer)
    runner = Runner("page-penalties")
    for number in numbers(runner.surface):
        rng, case = text_of(runner.surface, number, bases)
        action = rng.choice(["preview", "import"])
        if rng.random() < 0.5:
            send = lambda c, a=action: page_outcome(page.post(f"/t/{slug}/import/penalties/", {  # noqa: E731
                "action": a, "file": SimpleUploadedFile("penalties.txt", texts(c)[0]),
                "stage_list_file": SimpleUploadedFile("games.txt", texts(c)[1]), "lines": lines_text}))
        else:
            send = lambda c, a=action: page_outcome(page.post(f"/t/{slug}/import/penalties/", {  # noqa: E731
                "action": a, "text": texts(c)[0].decode("utf-8", errors="replace"),
                "stage_list": texts(c)[1].decode("utf-8", errors="replace"), "lines": lines_text}))
        runner.run(case, send, writes=action == "import")
    done.append(finish(runner))

    runner = Runner("cmd-import-penalties")
    for number in numbers(runner.surface):
        rng, case = text_of(runner.surface, number, bases)
        penalties, stage_list = texts(case)
        (tmp_path / f"penalties-{number}.txt").write_bytes(penalties)
        (tmp_path / f"games-{number}.txt").write_bytes(stage_list)
        dry = rng.random() < 0.5
        args = ["import_penalties", str(tmp_path / f"penalties-{number}.txt"), "--tournament", slug, "--games",
                str(tmp_path / f"games-{number}.txt"), *(f"--line={line}={stage}" for line, stage in ALL_LINES.items()),
                *(["--dry-run"] if dry else ["--user", fuzzer.username])]
        runner.run(case, lambda c, args=args: command_outcome(*args), writes=not dry)
    done.append(finish(runner))
    check_all(*done)
