"""``GET /api/v1/games/`` reads a page of games as plain rows (``portal.api.serializers.game_rows``).

Its answer is what the nested ``GameSerializer`` gives (the detail endpoint still uses it), key for key and in the
same order, and it runs the same queries for a page of 5 games and of 50, with their seats.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from portal.api.serializers import GameSerializer
from portal.api.views import GameViewSet
from tournaments.importer import import_document
from tournaments.models import Game
from tournaments.synthetic import class_balanced_tournament, elimination_gp_series, mafia_league

API = "/api/v1"
LIMIT = 8  # every page of the site within 8 queries


def client(number: int = 1) -> APIClient:
    return APIClient(REMOTE_ADDR=f"10.20.0.{number}", HTTP_ACCEPT_LANGUAGE="en")


def every_game(api: APIClient, query: str) -> list[dict]:
    out, url = [], f"{API}/games/?page_size=200&{query}"
    while url:
        body = api.get(url).json()
        out += body["results"]
        url = body["next"]
    return out


@pytest.mark.django_db
def test_games_list_shows_each_game_as_the_game_serializer_does():
    grand_prix = import_document(elimination_gp_series(stages=2, seed=1, slug="gl-gp"))
    import_document(class_balanced_tournament(seed=1, stages=1, slug="gl-cb"))
    league = import_document(mafia_league(games=6, teams=4, seed=1, slug="gl-league"))
    game = Game.objects.filter(stage__tournament=league).order_by("number").first()
    Game.objects.filter(pk=game.pk).update(link="https://mafia.example/log/1", group_label="A",
                                           scheduled_at=dt.datetime(2014, 9, 8, 16, tzinfo=dt.UTC))
    api = client()
    listed = every_game(api, "")
    expected = GameSerializer(GameViewSet.queryset.all(), many=True).data
    assert [g["id"] for g in listed] == [g["id"] for g in expected]
    for mine, theirs in zip(listed, expected):
        assert list(mine) == list(theirs)
        assert [list(seat) for seat in mine["seats"]] == [list(seat) for seat in theirs["seats"]]
        assert mine == {**theirs, "seats": [dict(seat) for seat in theirs["seats"]]}
    assert any(g["absent_teams"] and g["no_show_eliminated"] for g in listed
               if g["tournament"] == grand_prix.slug), "the series has a game with a no-show (GP-10)"
    first = next(g for g in listed if g["id"] == game.pk)
    assert (first["link"], first["group"], first["scheduled_at"]) == (
        "https://mafia.example/log/1", "A", "2014-09-08T20:00:00+04:00")
    assert first == api.get(f"{API}/games/{game.pk}/").json()
    assert every_game(api, f"tournament={grand_prix.slug}&player=GP01-p1") == [
        g for g in listed if g["tournament"] == grand_prix.slug and any(s["player"] == "GP01-p1" for s in g["seats"])]


@pytest.mark.django_db
def test_games_list_runs_the_same_queries_for_a_page_of_5_games_and_of_50(django_assert_max_num_queries):
    import_document(mafia_league(games=60, teams=6, seed=2, slug="gl-big"))
    api = client(2)
    counts = {}
    for size in (5, 50):
        api.get(f"{API}/games/?page_size={size}")  # warm
        with django_assert_max_num_queries(LIMIT), CaptureQueriesContext(connection) as captured:
            body = api.get(f"{API}/games/?page_size={size}&tournament=gl-big").json()
        assert len(body["results"]) == size and all(g["seats"] for g in body["results"])
        counts[size] = len(captured)
    assert counts[5] == counts[50], counts


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["player={nick}", "player=%20{nick}%20", "player={nick}&page=2&page_size=3",
                                   "player=", "player=nobody", "player={nick}&status=played",
                                   "player={nick}&tournament=gl-count-gp"])
def test_the_games_of_a_player_alone_are_counted_on_the_seats(query):
    """?player= alone: the count is the player's seats (one seat a game, unique_seat_player), read with the player's
    id without joining the games, and the games are filtered on that id (PostgreSQL plans with the player's own
    statistics); with any other filter, or a value the filter does not take, the games are
    counted. Either way the answer and the page are the ones the joined filter gives."""
    from django.db.models import Count

    from tournaments.models import Seat

    import_document(elimination_gp_series(stages=2, seed=1, slug="gl-count-gp"))
    import_document(mafia_league(games=6, teams=4, seed=1, slug="gl-count-league"))
    star = Seat.objects.values("player__nick").annotate(games=Count("id")).order_by("-games")[0]["player__nick"]
    api = client(3)
    with CaptureQueriesContext(connection) as captured:
        body = api.get(f"{API}/games/?{query.format(nick=star)}").json()
    params = dict(p.split("=") for p in query.split("&"))
    nick = params["player"].replace("%20", "").format(nick=star)
    games = Game.objects.all()
    if nick:
        games = games.filter(seats__player__nick=nick)
    if "status" in params:
        games = games.filter(status="played")
    if "tournament" in params:
        games = games.filter(stage__tournament__slug="gl-count-gp")
    assert body["count"] == games.count() and (body["count"] > 3 or nick == "nobody")
    size, number = int(params.get("page_size", 50)), int(params.get("page", 1))
    expected = list(games.order_by("stage__tournament_id", "stage__order", "number", "id")
                    .values_list("id", flat=True)[(number - 1) * size:number * size])
    assert [game["id"] for game in body["results"]] == expected
    counts = [q["sql"] for q in captured if "COUNT(" in q["sql"]]
    on_seats = [sql for sql in counts if 'FROM "tournaments_seat"' in sql and '"tournaments_game"' not in sql]
    alone = set(params) <= {"player", "page", "page_size"} and bool(nick)
    assert len(counts) == 1 and bool(on_seats) == alone
    by_id = [q["sql"] for q in captured if q["sql"].startswith('SELECT "tournaments_game"."id"')
             and '"tournaments_seat"."player_id" = ' in q["sql"] and '"accounts_player"' not in q["sql"]]
    assert bool(by_id) == (alone and nick != "nobody")
