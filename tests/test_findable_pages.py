"""Pages people look for and did not find: the rulebook and its rule links, the ChGK season grid,
penalty markers in the standings, player rankings, search across tournaments and the live standings' version.

Every page reads stored snapshots (never a computation on the request) in a bounded number of queries.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse
from django.utils import translation

from accounts.models import Player
from formats import registry
from formats.rulebook import CODE
from portal.rulebook import link_codes
from scoring.models import StandingsSnapshot
from scoring.tasks import QUEUED_KEY
from tests.test_pages import recompute
from tournaments.importer import import_document
from tournaments.models import Penalty, Stage, Team, Tournament, TournamentStatus

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "tournaments" / "demo_data"
LANGUAGES = ("ru", "en")
RULEBOOK_QUERIES = 3
GRID_QUERIES = 4
RANKING_QUERIES = 7  # with the header's shown status (portal.table_status)
SEARCH_QUERIES = 3
VERSION_QUERIES = 3
TOURNAMENT_QUERIES = 10  # tests/test_pages.py holds the same limit


def demo(key: str) -> dict:
    return json.loads((DEMO / f"{key}.json").read_text(encoding="utf-8"))


def load(key: str) -> Tournament:
    return recompute(import_document(demo(key)))


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def get(client: Client, url: str, language: str = "en"):
    client.cookies["django_language"] = language
    return client.get(url, HTTP_ACCEPT_LANGUAGE=language)


def translated(text: str, language: str) -> str:
    with translation.override(language):
        return str(translation.gettext(text))


# --- the rulebook -----------------------------------------------------------------------------------------


def _cited_codes(key: str) -> set[str]:
    """Every rule code the ruleset's package and its home's code cite (what their pages can show)."""
    codes: set[str] = set()
    for folder in (ROOT / "rulesets" / key, ROOT / "formats" / key):
        for path in folder.rglob("*.py"):
            if "tests" in path.parts or "migrations" in path.parts:
                continue
            codes |= set(CODE.findall(path.read_text(encoding="utf-8")))
    prefix = {"chgk_tour_points": "CHGK-", "family_league": "FL-", "class_balanced": "CB-",
              "elimination_gp": "GP-"}[key]
    return {code for code in codes if code.startswith((prefix, "FP-"))}


@pytest.mark.parametrize("key", ["chgk_tour_points", "class_balanced", "elimination_gp", "family_league"])
def test_every_rule_code_a_ruleset_cites_has_its_explanation_in_the_rulebook(key):
    """Every code shown (CB-7, GP-17, FL-15.3, CHGK-18 ...) links to the rules page: none is missing."""
    book = registry.get(key).rulebook
    assert book is not None
    missing = sorted(code for code in _cited_codes(key) if book.anchor(code) is None)
    assert not missing, f"{key}: no rulebook text for {missing}"


@pytest.mark.parametrize("key", ["family_league", "class_balanced", "chgk_tour_points", "elimination_gp"])
@pytest.mark.parametrize("language", LANGUAGES)
def test_rules_page_explains_scoring_tie_breaks_and_has_an_anchor_per_code(client, django_assert_max_num_queries,
                                                                           key, language):
    tournament = import_document(demo(key))
    book = registry.for_tournament(tournament).rulebook
    with django_assert_max_num_queries(RULEBOOK_QUERIES):
        response = get(client, reverse("tournament-rulebook", args=[tournament.slug]), language)
    assert response.status_code == 200
    html = response.content.decode()
    assert f'<html lang="{language}">' in html
    for rule in book.sections[0].rules + book.sections[-1].rules:
        assert f'id="{rule.code}"' in html
    assert html.count('class="rule"') == len(book.codes)
    with translation.override(language):
        assert str(book.scoring[0]).split("(")[0].strip()[:40] in html.replace("&#x27;", "'")
        assert str(book.sections[0].rules[0].text)[:30] in html.replace("&#x27;", "'")
    assert translated("Order of the table", language) in html
    assert reverse("tournament-rulebook", args=[tournament.slug]) in get(
        client, tournament.get_absolute_url(), language).content.decode()  # linked from the header


def test_rule_links_link_known_codes_to_their_anchor_and_escape_the_text():
    """FL-15.3 -> #FL-15.3; a part of a rule (GP-15.3) -> its rule; an unknown code or another format's stays text."""
    league = Tournament.objects.create(slug="fl-links", name="FL", ruleset="family_league")
    gp = Tournament.objects.create(slug="gp-links", name="GP", ruleset="elimination_gp")
    html = str(link_codes("<b>two_players</b> (FL-15.3), CB-7, FL-99 and FP-11", league))
    assert "&lt;b&gt;two_players&lt;/b&gt;" in html
    assert '<a class="rule-link" href="/t/fl-links/rules/#FL-15.3">FL-15.3</a>' in html
    assert '<a class="rule-link" href="/t/fl-links/rules/#FP-11">FP-11</a>' in html
    assert "CB-7</a>" not in html and "FL-99</a>" not in html
    assert 'href="/t/gp-links/rules/#GP-15">GP-15.3</a>' in str(link_codes("GP-15.3", gp))
    assert 'href="/t/gp-links/rules/#GP-15a">GP-15a</a>' in str(link_codes("GP-15a", gp))


def test_game_page_links_the_violations_rule_codes_to_the_rulebook(client):
    """A violation on the game page (``two_players (FL-15.3)``) links its code to the rules page."""
    league = load("family_league")
    html = get(client, reverse("game", args=[league.slug, "final", 4])).content.decode()
    assert f'href="/t/{league.slug}/rules/#FL-15.3"' in html


# --- penalty markers --------------------------------------------------------------------------------------


def test_fl_standings_row_shows_its_penalty_with_the_deduction_and_a_link_to_the_game(
        client, django_assert_max_num_queries):
    """FL-15.3, FL-16: Fam03's detected violation in game 4 costs 0.1 points; the row shows −0.1, linked."""
    league = load("family_league")
    with django_assert_max_num_queries(TOURNAMENT_QUERIES):
        html = get(client, league.get_absolute_url(), "ru").content.decode()
    row = re.search(r'<tr class="status-[a-z]+">(?:(?!</tr>).)*Fam03(?:(?!</tr>).)*</tr>', html, re.S).group(0)
    assert 'class="penalty-marker"' in row
    assert f'href="/t/{league.slug}/final/games/4/"' in row
    assert "−0,1" in row  # the page's language writes the decimal comma
    clean = re.search(r'<tr class="status-[a-z]+">(?:(?!</tr>).)*Fam06(?:(?!</tr>).)*</tr>', html, re.S).group(0)
    assert "penalty-marker" not in clean


def test_cb_penalty_is_stored_in_the_row_and_marked_in_the_standings(client):
    """A class_balanced penalty deducted from a team (CB ruleset) shows as a marker in that team's row."""
    cb = load("class_balanced")
    team = Team.objects.filter(tournament=cb, stage__isnull=True).order_by("name").first()
    stage = Stage.objects.get(tournament=cb, key="stage-1")
    Penalty.objects.create(tournament=cb, stage=stage, team=team, kind="fair_play", code="FP-11", points=2)
    cb = recompute(cb)
    snapshot = StandingsSnapshot.objects.get(tournament=cb, stage_key="")
    row = next(r for r in snapshot.details["teams"] if r["team"] == team.name)
    assert row["details"]["penalties"][0]["code"] == "FP-11"
    assert row["details"]["penalties"][0]["points"] == 2
    html = get(client, cb.get_absolute_url()).content.decode()
    marked = re.search(rf'<tr class="status-[a-z]+">(?:(?!</tr>).)*>{re.escape(team.name)}<(?:(?!</tr>).)*</tr>',
                       html, re.S).group(0)
    assert 'class="penalty-marker"' in marked and "−2" in marked
    assert f'href="/t/{cb.slug}/rules/#FP-11"' in marked  # no game: the marker links the rule


# --- the ChGK season grid ---------------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_chgk_season_grid_shows_each_teams_place_and_points_per_tour(client, django_assert_max_num_queries,
                                                                      language):
    """CHGK-12, CHGK-16: teams by tours, each cell the stored tour place and tour points."""
    chgk = load("chgk_tour_points")
    snapshot = StandingsSnapshot.objects.get(tournament=chgk, stage_key="")
    with django_assert_max_num_queries(GRID_QUERIES):
        response = get(client, reverse("chgk-grid", args=[chgk.slug]), language)
    html = response.content.decode()
    assert response.status_code == 200
    tours = snapshot.details["details"]["tour_numbers"]
    teams = snapshot.export["teams"]
    assert html.count('class="grid-cell') == len(teams) * len(tours)
    first = snapshot.details["teams"][0]
    cell = re.search(rf'>{re.escape(first["team"])}</a></th>\s*<td class="grid-cell[^>]*>(.*?)</td>', html, re.S)
    assert f'<span class="grid-place">{first["details"]["place_by_round"][0]}</span>' in cell.group(1)
    assert translated("Season grid", language) in html
    assert reverse("chgk-grid", args=[chgk.slug]) in get(client, chgk.get_absolute_url(), language).content.decode()


def test_chgk_grid_marks_the_hosted_tour():
    """CHGK-7: the tour a team hosted is marked, not scored."""
    from formats.chgk_tour_points.grid import grid_rows

    export = {"teams": [{"team": "A", "rank": 1, "points": 10}]}
    details = {"details": {"tour_numbers": [1, 2]}, "teams": [{"team": "A", "details": {
        "role_by_round": ["host", "played"], "place_by_round": [None, "1"], "points_by_round": [0, 10],
        "correct_by_round": [None, 5]}}]}
    rows = grid_rows(export, details, {"A": 7})
    assert [c["role"] for c in rows[0]["cells"]] == ["host", "played"]
    assert rows[0]["cells"][1] == {"tour": 2, "role": "played", "place": "1", "points": 10, "correct": 5}
    assert rows[0]["team_pk"] == 7


# --- player rankings --------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_family_league_player_rankings_from_the_snapshot_with_player_links(client, django_assert_max_num_queries,
                                                                            language):
    league = load("family_league")
    players = StandingsSnapshot.objects.get(tournament=league, stage_key="").details["details"]["players"]
    with django_assert_max_num_queries(RANKING_QUERIES):
        response = get(client, reverse("family-players", args=[league.slug]), language)
    html = response.content.decode()
    assert html.count("<tr") - 1 == len(players)
    top = Player.objects.get(nick=players[0]["player"])
    assert f'href="/players/{top.pk}/"' in html
    assert translated("Player rankings", language) in html
    assert reverse("family-players", args=[league.slug]) in get(client, league.get_absolute_url()).content.decode()


def test_class_balanced_rankings_link_the_best_player_and_rank_by_average(client, django_assert_max_num_queries):
    """CB-14: the best player (stored in the export) is linked; eligible players come first, by average."""
    cb = load("class_balanced")
    snapshot = StandingsSnapshot.objects.get(tournament=cb, stage_key="")
    rows = snapshot.details["details"]["players"]
    assert rows and all(set(r) >= {"player", "team", "points", "games", "average", "eligible", "rank"} for r in rows)
    eligible = [r for r in rows if r["eligible"]]
    assert [r["average"] for r in eligible] == sorted((r["average"] for r in eligible), reverse=True)
    assert rows[:len(eligible)] == eligible
    best = snapshot.export.get("best_player") or []
    assert sorted(r["player"] for r in eligible if r["rank"] == 1) == sorted(best)
    with django_assert_max_num_queries(RANKING_QUERIES):
        html = get(client, reverse("cb-players", args=[cb.slug])).content.decode()
    for nick in best:
        assert f'href="/players/{Player.objects.get(nick=nick).pk}/">{nick}</a>' in html
    assert html.count("<tr") - 1 == len(rows)


def test_rankings_of_another_format_are_not_found(client):
    chgk = import_document(demo("chgk_tour_points"))
    assert client.get(reverse("family-players", args=[chgk.slug])).status_code == 404
    assert client.get(reverse("cb-players", args=[chgk.slug])).status_code == 404


# --- search -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_search_finds_players_and_teams_whatever_the_case_with_links(client, django_assert_max_num_queries,
                                                                      language):
    league = import_document(demo("family_league"))
    tiger = Player.objects.create(nick="Тигровая Лилия")
    team = Team.objects.filter(tournament=league).order_by("name").first()
    with django_assert_max_num_queries(SEARCH_QUERIES):
        html = get(client, reverse("search") + "?q=тигровая", language).content.decode()
    assert f'href="/players/{tiger.pk}/"' in html
    html = get(client, reverse("search") + f"?q={team.name.lower()}", language).content.decode()
    assert f'href="/t/{league.slug}/teams/{team.pk}/"' in html
    nothing = get(client, reverse("search") + "?q=zzz-nobody", language).content.decode()
    assert translated("No player found.", language) in nothing and translated("No team found.", language) in nothing
    assert 'name="q"' in get(client, "/", language).content.decode()  # the box in the site header


def test_search_is_bounded_and_skips_draft_tournaments(client, django_assert_max_num_queries):
    from portal.views.search import LIMIT

    Player.objects.bulk_create([Player(nick=f"Bulk-{i:03d}") for i in range(LIMIT + 10)])
    draft = Tournament.objects.create(slug="draft-one", name="Draft", ruleset="family_league",
                                      status=TournamentStatus.DRAFT)
    Team.objects.create(tournament=draft, name="Bulk team")
    with django_assert_max_num_queries(SEARCH_QUERIES):
        html = get(client, reverse("search") + "?q=BULK").content.decode()
    assert len(re.findall(r'href="/players/\d+/"', html)) == LIMIT  # the players found (the menu links the rankings)
    assert "Only the first" in html
    assert "Bulk team" not in html
    short = get(client, reverse("search") + "?q=B").content.decode()
    assert "Type at least 2 characters." in short and not re.search(r'href="/players/\d+/"', short)


# --- live standings ---------------------------------------------------------------------------------------


def test_standings_version_says_pending_until_the_table_catches_up(client, django_assert_max_num_queries):
    """Principle 3: the page can say "updating" honestly: stale, behind the facts, or a job queued."""
    league = load("family_league")
    url = reverse("standings-version", args=[league.slug])
    with django_assert_max_num_queries(VERSION_QUERIES):
        data = client.get(url).json()
    assert data["pending"] is False
    assert data["snapshot_version"] == data["facts_version"] == league.facts_version
    assert data["stamp"].startswith(f"{league.facts_version}@")
    assert client.get(url).headers["Cache-Control"].startswith("max-age=0")
    StandingsSnapshot.objects.filter(tournament=league).update(stale=True)
    assert client.get(url).json()["pending"] is True
    StandingsSnapshot.objects.filter(tournament=league).update(stale=False)
    Tournament.objects.filter(pk=league.pk).update(facts_version=league.facts_version + 1)
    assert client.get(url).json()["pending"] is True
    Tournament.objects.filter(pk=league.pk).update(facts_version=league.facts_version)
    cache.set(QUEUED_KEY.format(league.pk), 1, 60)
    assert client.get(url).json()["pending"] is True
    cache.delete(QUEUED_KEY.format(league.pk))
    assert client.get(url + "?stage=final").json()["snapshot_version"] == league.facts_version
    assert client.get(url + "?stage=nope").json() == {**client.get(url + "?stage=nope").json(),
                                                     "snapshot_version": None, "pending": True}


def test_standings_page_carries_the_live_hooks(client):
    """live.js polls the URL in data-live and compares data-live-stamp with the version's stamp."""
    league = load("family_league")
    html = get(client, league.get_absolute_url()).content.decode()
    stamp = client.get(reverse("standings-version", args=[league.slug])).json()["stamp"]
    assert f'data-live="/t/{league.slug}/standings/version/"' in html
    assert f'data-live-stamp="{stamp}"' in html
    assert "js/live.js" in html
    assert "data-live-pending hidden" in html
