"""Players across tournaments, and the site-wide Mafia ranking by role.

- a player's page and ``GET /api/v1/players/ID/career/`` show every tournament of any format the player took
  part in, the player's games and awards, the player's Mafia figures by role (games, wins, win rate; the roles are
  the games' seats) and, for a ChGK season, the team's season history (its place and points, per tour its role,
  place, points and correct answers), as the snapshots and the seats have them;
- ``/players/rankings/`` and ``GET /api/v1/players/rankings/`` rank the players of a role over a period by
  ``portal.careers``'s formula (win rate, then wins; equal records share the place, listed by nick), which the
  rules page states; bad dates, roles or minimums are refused naming the parameter;
- both pages stay within 8 queries whatever the site's size, in Russian and in English;
- hypothesis: the order of ``portal.careers.ranked`` is the formula's for any figures, and the ranking read from
  the database is the formula applied to the seats, whatever they are.
"""

from __future__ import annotations

import datetime as dt
from fractions import Fraction

import jsonschema
import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone, translation
from drf_spectacular.generators import SchemaGenerator
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from accounts.models import Player
from portal import careers
from portal.api.careers import CAREER_EXAMPLE, RANKING_EXAMPLE
from portal.views.careers import RANKING_PAGE
from rulesets.facts import SIDE_OF_ROLE
from scoring.models import StandingsSnapshot
from scoring.services import recompute
from tests.conftest import example
from tests.test_api_schema import response_schema
from tests.test_site_query_counts import CHGK_STAR, MAFIA_STAR, grow
from tournaments.demo import demo_documents
from tournaments.importer import import_document
from tournaments.models import (
    Game,
    GameStatus,
    RosterEntry,
    Seat,
    Stage,
    Team,
    Tournament,
    TournamentStatus,
)

pytestmark = pytest.mark.django_db

LIMIT = 8  # every page of the site within 8 queries
API = "/api/v1"
LANGUAGES = ("ru", "en")


def translated(text: str, language: str, context: str | None = None) -> str:
    with translation.override(language):
        return str(translation.pgettext(context, text) if context else translation.gettext(text))


@pytest.fixture(scope="module")
def schema() -> dict:
    return SchemaGenerator().get_schema(request=None, public=True)


@pytest.fixture
def spec_site() -> dict[str, Tournament]:
    """The four spec examples, tables computed; the family league's best player also on a ChGK team."""
    out = {}
    for key in ("family_league", "class_balanced", "elimination_gp", "chgk_tour_points"):
        tournament = import_document(example(key))
        recompute(tournament.pk, force=True)
        out[key] = tournament
    return out


def busiest(tournament: Tournament) -> Player:
    """The player with the most seats in the tournament (ties: the first nick)."""
    seats = {}
    for seat in Seat.objects.filter(game__stage__tournament=tournament).select_related("player"):
        seats.setdefault(seat.player, 0)
        seats[seat.player] += 1
    return max(sorted(seats, key=lambda p: p.nick), key=lambda p: seats[p])


def on_chgk_team(player: Player, season: Tournament) -> Team:
    team = Team.objects.filter(tournament=season, hosted_tours__isnull=False).order_by("name").first()
    RosterEntry.objects.create(team=team, player=player, order=99)
    return team


def counted(seat: Seat) -> bool:
    game = seat.game
    return (game.status == GameStatus.PLAYED and game.outcome is not None
            and game.stage.tournament.status != TournamentStatus.DRAFT)


def by_hand(player: Player) -> dict[str, tuple[int, int]]:
    """The player's (games, wins) per role, straight from the seats: the formula, points 1-3."""
    out: dict[str, tuple[int, int]] = {}
    for seat in Seat.objects.filter(player=player).select_related("game__stage__tournament"):
        if counted(seat):
            games, wins = out.get(seat.role, (0, 0))
            out[seat.role] = (games + 1, wins + (SIDE_OF_ROLE[seat.role] == seat.game.outcome))
    return out


# --- the player's page and career ---------------------------------------------------------------------------


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_players_page_shows_every_format_the_roles_and_the_chgk_season(client, spec_site, language):
    league, season = spec_site["family_league"], spec_site["chgk_tour_points"]
    player = busiest(league)
    team = on_chgk_team(player, season)
    client.cookies["django_language"] = language
    html = client.get(f"/players/{player.pk}/").content.decode()
    assert f"/t/{league.slug}/" in html and f"/t/{season.slug}/" in html  # a Mafia league and a ChGK season
    assert translated("Mafia results by role", language) in html and translated("ChGK seasons", language) in html
    figures = {f.role: f for f in careers.role_figures(player.pk)}
    assert {role: (f.games, f.wins) for role, f in figures.items()} == by_hand(player)
    section = html[html.index('aria-labelledby="roles-heading"'):]
    section = section[:section.index("</section>")]
    for role, f in figures.items():
        assert f"?role={role}" in section and f'<td class="num">{f.games}</td><td class="num">{f.wins}</td>' in section
    table = StandingsSnapshot.objects.get(tournament=season, stage_key="season")
    row = next(r for r in table.details["teams"] if r["team"] == team.name)
    history = html[html.index('aria-labelledby="seasons-heading"'):]
    for number, place in zip(table.details["details"]["tour_numbers"], row["details"]["place_by_round"],
                             strict=True):
        assert f'/t/{season.slug}/tours/{number}/' in history
        assert f"<td>{place if place else '—'}</td>" in history


def test_the_api_career_is_what_the_page_shows_and_conforms_to_its_schema(client, spec_site, schema):
    league, season = spec_site["family_league"], spec_site["chgk_tour_points"]
    player = busiest(league)
    team = on_chgk_team(player, season)
    answer = client.get(f"{API}/players/{player.pk}/career/")
    assert answer.status_code == 200
    body = answer.json()
    career_schema = response_schema(schema, "/api/v1/players/{id}/career/")
    jsonschema.validate(body, career_schema)
    jsonschema.validate(CAREER_EXAMPLE, career_schema)  # the documented example is of the documented shape
    assert body["player"] == {"id": player.pk, "nick": player.nick, "full_name": player.full_name}
    assert {r["role"]: (r["games"], r["wins"]) for r in body["roles"]} == by_hand(player)
    total = body["total"]
    assert total["games"] == sum(g for g, _w in by_hand(player).values()) and total["role"] is None
    assert total["win_rate"] == round(total["wins"] / total["games"], 4)
    tournaments = {t["slug"]: t for t in body["tournaments"]["results"]}
    assert set(tournaments) == {league.slug, season.slug} and body["tournaments"]["count"] == 2
    mine = tournaments[league.slug]
    assert mine["teams"][0]["name"] == RosterEntry.objects.get(player=player, team__tournament=league).team.name
    assert mine["results"] and mine["results"][0]["stage"]
    awards = StandingsSnapshot.objects.get(tournament=league, stage_key="final").export["awards"]
    assert [a["place"] for a in mine["awards"]] == [a["place"] for a in awards if a["team"] == mine["teams"][0]["name"]]
    chgk = tournaments[season.slug]
    [history] = chgk["season"]
    export_row = next(r for r in StandingsSnapshot.objects.get(tournament=season, stage_key="season").export["teams"]
                      if r["team"] == team.name)
    assert (history["team"], history["rank"], history["points"]) == (team.name, export_row["rank"],
                                                                      export_row["points"])
    assert [t["role"] for t in history["tours"]].count("host") == 1 and len(history["tours"]) == 2
    assert chgk["results"][0]["rank"] == export_row["rank"]  # the player's result in a ChGK season: the team's


def test_the_career_of_an_unknown_or_malformed_player_is_a_404(client):
    assert client.get(f"{API}/players/987654/career/").status_code == 404
    answer = client.get(f"{API}/players/abc/career/")
    assert answer.status_code == 404 and "abc" in answer.json()["detail"]
    assert client.get(f"{API}/players/1/career/?page=9").status_code == 404


@pytest.mark.parametrize("language", LANGUAGES)
def test_player_and_ranking_pages_stay_within_8_queries_as_the_site_grows(client, django_assert_max_num_queries,
                                                                         language):
    tournaments: list = []
    counts: dict[int, dict[str, int]] = {}
    client.cookies["django_language"] = language
    for size in (3, 12):
        grow(tournaments, size)
        mafia, chgk = (Player.objects.get(nick=n).pk for n in (MAFIA_STAR, CHGK_STAR))
        RosterEntry.objects.get_or_create(team=Team.objects.filter(tournament__ruleset="chgk_tour_points").first(),
                                          player_id=mafia, defaults={"order": 50})
        paths = [f"/players/{mafia}/", f"/players/{chgk}/", f"/players/{mafia}/?tournaments_page=2&page=2",
                 "/players/rankings/", "/players/rankings/?role=don&min_games=1",
                 "/players/rankings/?from=2014-01-01&to=2014-12-31&min_games=1&page=2"]
        counts[size] = {}
        for path in paths:
            client.get(path)  # warm
            with django_assert_max_num_queries(LIMIT), CaptureQueriesContext(connection) as captured:
                response = client.get(path)
            assert response.status_code == 200, (path, response.content[:300])
            counts[size][path] = len(captured)
    assert all(counts[12][path] <= counts[3][path] for path in counts[3]), counts
    html = client.get("/players/rankings/").content.decode()
    assert translated("Site-wide ranking by role", language) in html


def test_the_navigation_and_the_players_page_link_the_ranking(client, spec_site):
    html = client.get("/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert 'href="/players/rankings/"' in html
    player = busiest(spec_site["family_league"])
    assert 'href="/players/rankings/?role=' in client.get(f"/players/{player.pk}/").content.decode()


# --- the ranking ----------------------------------------------------------------------------------------------


def reference(role: str, start: dt.date | None = None, end: dt.date | None = None,
              min_games: int = 1) -> list[tuple[str, int, int]]:
    """The ranking by the formula, from the seats in Python: (nick, games, wins) in order."""
    zone = timezone.get_default_timezone()
    figures: dict[Player, list[int]] = {}
    for seat in Seat.objects.select_related("player", "game__stage__tournament"):
        if not counted(seat) or (role and seat.role != role):
            continue
        day = (timezone.localtime(seat.game.scheduled_at, zone).date() if seat.game.scheduled_at
               else seat.game.stage.tournament.starts_on)
        if (start or end) and (day is None or (start and day < start) or (end and day > end)):
            continue
        games_wins = figures.setdefault(seat.player, [0, 0])
        games_wins[0] += 1
        games_wins[1] += SIDE_OF_ROLE[seat.role] == seat.game.outcome
    rows = [(p, g, w) for p, (g, w) in figures.items() if g >= min_games]
    rows.sort(key=lambda r: (-Fraction(r[2], r[1]), -r[2], r[0].nick.casefold(), r[0].nick, r[0].pk))
    return [(p.nick, g, w) for p, g, w in rows]


@pytest.mark.parametrize("role", ["", *careers.ROLES])
def test_the_ranking_of_each_role_is_the_formula_applied_to_the_seats(client, spec_site, schema, role):
    query = "?min_games=1&page_size=200" + (f"&role={role}" if role else "")
    body = client.get(f"{API}/players/rankings/{query}").json()
    jsonschema.validate(body, response_schema(schema, "/api/v1/players/rankings/"))
    assert [(r["player"]["nick"], r["games"], r["wins"]) for r in body["results"]] == reference(role)
    assert body["count"] == len(reference(role)) and body["period"]["role"] == (role or None)
    html = client.get(f"/players/rankings/{query}", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    for nick, _games, _wins in reference(role)[:RANKING_PAGE]:
        assert f">{nick}</a>" in html


def test_the_documented_ranking_example_is_of_the_documented_shape(schema):
    jsonschema.validate(RANKING_EXAMPLE, response_schema(schema, "/api/v1/players/rankings/"))


def test_the_period_counts_the_days_of_the_games_from_and_to_both_included(client, spec_site):
    league = spec_site["family_league"]
    games = list(Game.objects.filter(stage__tournament=league).order_by("scheduled_at"))
    first_day = timezone.localtime(games[0].scheduled_at).date()
    for start, end in [(first_day, first_day), (first_day + dt.timedelta(days=1), None), (None, first_day),
                       (dt.date(2015, 3, 3), dt.date(2015, 3, 3)), (dt.date(2015, 3, 2), dt.date(2015, 3, 2))]:
        query = "?min_games=1&page_size=200" + (f"&from={start}" if start else "") + (f"&to={end}" if end else "")
        body = client.get(f"{API}/players/rankings/{query}").json()
        assert [(r["player"]["nick"], r["games"], r["wins"]) for r in body["results"]] == reference(
            "", start, end), (start, end)
    # a game without a scheduled time is dated by its tournament's first day
    Game.objects.filter(stage__tournament=league).update(scheduled_at=None)
    day = league.starts_on
    inside = client.get(f"{API}/players/rankings/?min_games=1&page_size=200&from={day}&to={day}").json()
    outside = client.get(f"{API}/players/rankings/?min_games=1&page_size=200&to={day - dt.timedelta(days=1)}").json()
    league_players = set(Seat.objects.filter(game__stage__tournament=league).values_list("player__nick", flat=True))
    assert league_players <= {r["player"]["nick"] for r in inside["results"]}
    assert not league_players & {r["player"]["nick"] for r in outside["results"]}


def test_a_draft_tournament_and_a_game_not_played_do_not_count(client, spec_site):
    league = spec_site["family_league"]
    player = busiest(league)
    before = {f.role: f.games for f in careers.role_figures(player.pk)}
    game = Game.objects.filter(stage__tournament=league, seats__player=player).order_by("number").first()
    role = game.seats.get(player=player).role
    Game.objects.filter(pk=game.pk).update(status=GameStatus.ANNULLED)
    assert {f.role: f.games for f in careers.role_figures(player.pk)}.get(role, 0) == before[role] - 1
    Tournament.objects.filter(pk=league.pk).update(status=TournamentStatus.DRAFT)
    nicks = {r["player"]["nick"] for r in client.get(f"{API}/players/rankings/?min_games=1&page_size=200").json()[
        "results"]}
    assert player.nick not in nicks and careers.role_figures(player.pk) == []


@pytest.mark.parametrize(("query", "field", "message"), [
    ("from=2016-13-01", "from", "A date is written YYYY-MM-DD, e.g. 2016-07-04."),
    ("to=04.07.2016", "to", "A date is written YYYY-MM-DD, e.g. 2016-07-04."),
    ("from=2016-07-05&to=2016-07-04", "to", "The period ends before it starts: 2016-07-04 is before 2016-07-05."),
    ("role=werewolf", "role", "werewolf is not a role: civilian, commissar, sergeant, doctor, mafia, don or maniac."),
    ("min_games=0", "min_games", "The minimum number of games is at least 1."),
    ("min_games=many", "min_games", "The minimum number of games is a whole number."),
])
def test_a_bad_choice_is_refused_naming_the_parameter(client, spec_site, query, field, message):
    with translation.override("en"):
        answer = client.get(f"{API}/players/rankings/?{query}", HTTP_ACCEPT_LANGUAGE="en")
    assert answer.status_code == 400 and answer.json() == {"errors": [{"path": field, "message": message}]}
    page = client.get(f"/players/rankings/?{query}", HTTP_ACCEPT_LANGUAGE="en")
    html = page.content.decode()
    assert page.status_code == 400 and f'id="{field}-error"' in html
    assert message.replace("'", "&#x27;") in html and 'class="role-ranking"' not in html


def test_the_api_refuses_an_empty_parameter_where_the_pages_form_reads_no_choice(client, spec_site):
    with translation.override("en"):
        answer = client.get(f"{API}/players/rankings/?role=&to=", HTTP_ACCEPT_LANGUAGE="en")
    assert answer.status_code == 400 and [e["path"] for e in answer.json()["errors"]] == ["role", "to"]
    assert "leave the parameter out" in answer.json()["errors"][0]["message"]
    page = client.get("/players/rankings/?role=&from=&to=&min_games=", HTTP_ACCEPT_LANGUAGE="en")
    assert page.status_code == 200 and 'class="role-ranking"' in page.content.decode()


def test_a_bad_date_is_refused_in_russian_too(client):
    page = client.get("/players/rankings/?from=вчера", HTTP_ACCEPT_LANGUAGE="ru")
    assert page.status_code == 400
    assert translated("A date is written YYYY-MM-DD, e.g. 2016-07-04.", "ru") in page.content.decode()
    assert translated("A date is written YYYY-MM-DD, e.g. 2016-07-04.", "ru") != (
        "A date is written YYYY-MM-DD, e.g. 2016-07-04.")


def test_dates_at_the_ends_of_the_calendar_are_an_open_period_not_a_failure(client, spec_site):
    everyone = client.get(f"{API}/players/rankings/?min_games=1&page_size=200").json()["count"]
    answer = client.get(f"{API}/players/rankings/?min_games=1&page_size=200&from=0001-01-01&to=9999-12-31")
    assert answer.status_code == 200 and answer.json()["count"] == everyone


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_rules_page_of_a_mafia_tournament_states_the_ranking_formula(client, spec_site, language):
    client.cookies["django_language"] = language
    html = client.get(f"/t/{spec_site['family_league'].slug}/rules/").content.decode()
    assert 'id="role-ranking"' in html and 'href="/players/rankings/"' in html
    with translation.override(language):
        for paragraph in careers.ranking_rules():
            assert paragraph.replace("'", "&#x27;") in html
    assert 'id="role-ranking"' not in client.get(f"/t/{spec_site['chgk_tour_points'].slug}/rules/").content.decode()
    ranking = client.get("/players/rankings/").content.decode()
    assert translated("How the ranking is computed", language) in ranking


# --- the demo -------------------------------------------------------------------------------------------------


@pytest.fixture
def demo_loaded() -> list[Tournament]:
    """What ``manage.py demo`` loads (``tournaments.demo``): the spec's examples and the seeded seasons."""
    out = []
    for document in demo_documents():
        tournament = import_document(document)
        recompute(tournament.pk, force=True)
        out.append(tournament)
    return out


def test_the_demo_rankings_and_careers_agree_with_its_seats(client, demo_loaded, django_assert_max_num_queries):
    for role in ("", "civilian", "don", "maniac"):
        with django_assert_max_num_queries(LIMIT):
            page = client.get(f"/players/rankings/?role={role}", HTTP_ACCEPT_LANGUAGE="ru")
        assert page.status_code == 200
        body = client.get(f"{API}/players/rankings/?min_games=5&page_size=200" + (f"&role={role}" if role else ""))
        assert [(r["player"]["nick"], r["games"], r["wins"]) for r in body.json()["results"]] == reference(
            role, min_games=5)
    seasons = [t for t in demo_loaded if not careers.is_mafia(t.ruleset)]
    captain = Team.objects.filter(tournament=seasons[-1]).select_related("captain").order_by("name").first().captain
    with django_assert_max_num_queries(LIMIT):
        html = client.get(f"/players/{captain.pk}/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert translated("ChGK seasons", "ru") in html and f"/t/{seasons[-1].slug}/tours/1/" in html
    league = next(t for t in demo_loaded if t.slug == "demo-family-league")
    player = busiest(league)
    with django_assert_max_num_queries(LIMIT):
        html = client.get(f"/players/{player.pk}/", HTTP_ACCEPT_LANGUAGE="ru").content.decode()
    assert translated("Mafia results by role", "ru") in html and f"/t/{league.slug}/" in html
    assert {f.role: (f.games, f.wins) for f in careers.role_figures(player.pk)} == by_hand(player)


# --- hypothesis: the order ------------------------------------------------------------------------------------

@st.composite
def player_figures(draw) -> list[careers.Figures]:
    rows = []
    for index in range(draw(st.integers(0, 14))):
        games = draw(st.integers(1, 12))
        rows.append(careers.Figures(index + 1, draw(st.sampled_from(["anna", "Anna", "boris", "Вера", "gleb", "Ёж"])),
                                    games, draw(st.integers(0, games))))
    return rows


@given(rows=player_figures(), min_games=st.integers(1, 8))
@settings(max_examples=300, deadline=None)
def test_ranked_follows_the_formula_for_any_figures(rows, min_games):
    ranking = careers.ranked(rows, min_games)
    assert {r.player_id for r in ranking} == {r.player_id for r in rows if r.games >= min_games}
    for ahead, behind in zip(ranking, ranking[1:], strict=False):
        rate_a, rate_b = Fraction(ahead.wins, ahead.games), Fraction(behind.wins, behind.games)
        assert rate_a > rate_b or (rate_a == rate_b and ahead.wins >= behind.wins)  # point 5: rate, then wins
        if (rate_a, ahead.wins) == (rate_b, behind.wins):  # a shared place, listed by nick, then id
            assert ahead.place == behind.place
            assert (ahead.nick.casefold(), ahead.nick, ahead.player_id) < (
                behind.nick.casefold(), behind.nick, behind.player_id)
        else:
            assert ahead.place < behind.place
    for row in ranking:
        better = [r for r in ranking if (Fraction(r.wins, r.games), r.wins) > (row.win_rate, row.wins)]
        same = [r for r in ranking if (r.win_rate, r.wins) == (row.win_rate, row.wins)]
        assert row.place == 1 + len(better)
        assert row.place_label == (f"{row.place}-{row.place + len(same) - 1}" if len(same) > 1 else str(row.place))
    assert careers.ranked(list(reversed(rows)), min_games) == ranking  # the input's order does not matter


OUTCOMES = ("civilians", "mafia", "maniac", "draw")
seat_plans = st.lists(st.lists(st.tuples(st.sampled_from(careers.ROLES), st.sampled_from(OUTCOMES),
                                         st.sampled_from([GameStatus.PLAYED, GameStatus.PLAYED, GameStatus.ANNULLED]),
                                         st.integers(0, 40)), min_size=1, max_size=6), min_size=1, max_size=6)


@given(plan=seat_plans, role=st.sampled_from(["", *careers.ROLES]), min_games=st.integers(1, 3),
       start=st.one_of(st.none(), st.integers(0, 40)), length=st.integers(0, 40))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                 HealthCheck.too_slow])
def test_the_ranking_read_from_the_database_is_the_formula_for_any_seats(db, plan, role, min_games, start, length):
    """Random players, each with seats of random roles in games of random outcomes, statuses and days: the
    ranking ``portal.careers.ranking`` reads is the reference computed from the seats by the formula."""
    first = dt.date(2020, 1, 1)
    with transaction.atomic():
        tournament = Tournament.objects.create(slug="hyp", name="Hyp", ruleset="family_league", starts_on=first)
        stage = Stage.objects.create(tournament=tournament, key="final")
        team = Team.objects.create(tournament=tournament, name="T")
        zone = timezone.get_default_timezone()
        number = 0
        for index, seats in enumerate(plan):
            player = Player.objects.create(nick=f"p{index % 3}{'x' * index}")
            for seat_role, outcome, status, day in seats:
                number += 1
                when = dt.datetime.combine(first + dt.timedelta(days=day), dt.time(23, 30), zone)
                game = Game.objects.create(stage=stage, number=number, status=status, outcome=outcome,
                                           scheduled_at=when if day % 5 else None)
                Seat.objects.create(game=game, player=player, team=team, role=seat_role)
        period = careers.Period(role, first + dt.timedelta(days=start) if start is not None else None,
                                first + dt.timedelta(days=start + length) if start is not None else None, min_games)
        got = [(r.nick, r.games, r.wins) for r in careers.ranking(period)]
        assert got == reference(role, period.start, period.end, min_games)
        transaction.set_rollback(True)
