"""``/api/v1/``: a player's career across tournaments and the site-wide Mafia ranking by role.

- ``GET players/ID/career/``: what the player's page shows (``portal.careers``): the player's Mafia figures by
  role over the whole career, and every tournament of any format the player is on a roster of, newest first, a
  page at a time (``?page=``, 20 a page), each with the player's teams, table rows, awards and, for a ChGK
  season, the team's season history (place, points, and per tour its role, place, points and correct answers);
- ``GET players/rankings/``: the site-wide ranking of one role (``?role=``, none: every role) over a period
  (``?from=``, ``?to=``, YYYY-MM-DD, both included) of the players with at least ``?min_games=`` games (5),
  paginated (``?page=``, ``?page_size=`` up to 200). The formula is ``portal.careers``'s docstring, and the
  rules page's.

A refused parameter is a 400 naming it (``{"errors": [{"path": "from", "message": ...}]}``).
"""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from django.urls import re_path
from django.utils.translation import gettext
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Player
from formats import registry
from portal import careers
from portal.api.common import ApiPagination, WellFormedInput
from rulesets.base import Problem
from rulesets.errors import Invalid
from tournaments.models import RoleChoice

TOURNAMENTS_PAGE = 20


class RoleFiguresSerializer(serializers.Serializer):
    role = serializers.ChoiceField(choices=RoleChoice.choices, allow_null=True,
                                   help_text="the role; null: every role together")
    side = serializers.CharField(allow_null=True, help_text="civilians, mafia or maniac; null for every role")
    games = serializers.IntegerField(help_text="played games with an outcome")
    wins = serializers.IntegerField(help_text="those the role's side won")
    win_rate = serializers.FloatField(allow_null=True, help_text="wins / games, rounded to 4 decimals")


class CareerTeamSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    stage = serializers.CharField(allow_null=True, help_text="the stage's key where teams are drawn per stage")
    captain = serializers.BooleanField(help_text="the player is its captain")


class CareerResultSerializer(serializers.Serializer):
    stage = serializers.CharField(allow_null=True)
    rank = serializers.IntegerField(allow_null=True)
    points = serializers.FloatField(allow_null=True)
    games = serializers.IntegerField(allow_null=True)
    status = serializers.CharField(allow_null=True)


class CareerAwardSerializer(serializers.Serializer):
    stage = serializers.CharField(allow_null=True)
    place = serializers.IntegerField(allow_null=True)
    team = serializers.CharField(allow_null=True)
    team_award = serializers.BooleanField(help_text="the award is the team's (the player is on its roster)")
    items = serializers.ListField(child=serializers.CharField(), help_text="cups and medals the player receives")
    prize = serializers.FloatField(allow_null=True)
    currency = serializers.CharField(allow_null=True)


class SeasonTourSerializer(serializers.Serializer):
    tour = serializers.IntegerField()
    role = serializers.CharField(allow_null=True, help_text="played or host (CHGK-7)")
    place = serializers.CharField(allow_null=True, help_text='the tour place, "2-3" when shared (CHGK-13)')
    points = serializers.FloatField(allow_null=True)
    correct = serializers.IntegerField(allow_null=True)


class SeasonHistorySerializer(serializers.Serializer):
    team = serializers.CharField()
    rank = serializers.IntegerField(allow_null=True)
    points = serializers.FloatField(allow_null=True)
    status = serializers.CharField(allow_null=True)
    hosted_tour = serializers.IntegerField(allow_null=True)
    tours = SeasonTourSerializer(many=True)


class CareerTournamentSerializer(serializers.Serializer):
    slug = serializers.CharField()
    name = serializers.CharField()
    ruleset = serializers.CharField()
    starts_on = serializers.DateField(allow_null=True)
    teams = CareerTeamSerializer(many=True)
    results = CareerResultSerializer(many=True, help_text="the player's table rows, a stage each")
    awards = CareerAwardSerializer(many=True)
    season = SeasonHistorySerializer(many=True, help_text="a ChGK season: the team's season history")


CAREER_EXAMPLE = {
    "player": {"id": 9, "nick": "Majesty", "full_name": ""},
    "roles": [{"role": "civilian", "side": "civilians", "games": 12, "wins": 7, "win_rate": 0.5833},
              {"role": "don", "side": "mafia", "games": 3, "wins": 2, "win_rate": 0.6667}],
    "total": {"role": None, "side": None, "games": 15, "wins": 9, "win_rate": 0.6},
    "tournaments": {"count": 2, "next": None, "previous": None, "results": [
        registry.example("career_tournament"),
        registry.example("career_season"),
    ]},
}

RANKING_EXAMPLE = {
    "period": {"role": "don", "from": "2016-01-01", "to": "2016-12-31", "min_games": 5},
    "count": 3, "next": None, "previous": None, "results": [
        {"place": 1, "place_label": "1", "player": {"id": 9, "nick": "Majesty"}, "games": 6, "wins": 5,
         "win_rate": 0.8333},
        {"place": 2, "place_label": "2-3", "player": {"id": 12, "nick": "Anna"}, "games": 5, "wins": 3,
         "win_rate": 0.6},
        {"place": 2, "place_label": "2-3", "player": {"id": 3, "nick": "Boris"}, "games": 5, "wins": 3,
         "win_rate": 0.6}]}


class TournamentPages(ApiPagination):
    page_size = TOURNAMENTS_PAGE
    page_size_query_param = None


class PlayerCareerView(WellFormedInput, APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="players_career",
        summary="A player's career across tournaments",
        description=(
            "What the player's page shows: the player's Mafia figures by role over the whole career (`roles`: "
            "games, wins and win rate of each role played, counting the played games with an outcome of the "
            "tournaments that are not drafts; `total`: every role together), and every tournament of any format "
            "the player is on a roster of, newest first, 20 a page (`?page=`): the player's teams, the player's "
            "table rows (`results`, a stage each), the awards of the player and of the player's teams, and for a "
            "ChGK season the team's season history (`season`: its place and points, and each tour's role, place, "
            "points and correct answers)."),
        parameters=[OpenApiParameter("id", OpenApiTypes.INT, OpenApiParameter.PATH, description="the player's id"),
                    OpenApiParameter("page", OpenApiTypes.INT, description="the page of tournaments (from 1)")],
        responses={200: inline_serializer("PlayerCareer", {
            "player": inline_serializer("CareerPlayer", {"id": serializers.IntegerField(),
                                                         "nick": serializers.CharField(),
                                                         "full_name": serializers.CharField()}),
            "roles": RoleFiguresSerializer(many=True),
            "total": RoleFiguresSerializer(),
            "tournaments": inline_serializer("CareerTournamentPage", {
                "count": serializers.IntegerField(), "next": serializers.URLField(allow_null=True),
                "previous": serializers.URLField(allow_null=True),
                "results": CareerTournamentSerializer(many=True)}),
        })},
        examples=[OpenApiExample("A career", response_only=True, value=CAREER_EXAMPLE)],
    )
    def get(self, request, pk: str):
        player = get_object_or_404(Player, pk=int(pk))
        pages = TournamentPages()
        shown = pages.paginate_queryset(careers.tournaments_of(player), request, view=self)
        roles = careers.role_figures(player.pk)
        return Response({
            "player": {"id": player.pk, "nick": player.nick, "full_name": player.full_name},
            "roles": [figures.as_json() for figures in roles],
            "total": careers.total_of(roles).as_json(),
            "tournaments": {"count": pages.page.paginator.count, "next": pages.get_next_link(),
                            "previous": pages.get_previous_link(),
                            "results": [item.as_json() for item in careers.career(player, shown or [])]},
        })


def _period(request) -> careers.Period:
    """The ranking's choices of the query; a parameter given empty is refused (leave it out to choose nothing),
    as the schema's types say, where the page's form reads an empty field as no choice."""
    empty = [name for name in careers.RankingForm.base_fields.keys() | {"from", "to"}
             if name in request.query_params and request.query_params[name] == ""]
    if empty:
        raise Invalid([Problem(name, gettext("is empty: leave the parameter out to choose nothing"))
                       for name in sorted(empty)])
    form = careers.RankingForm(request.query_params)
    if not form.is_valid():
        raise Invalid([Problem(name, message) for name, message in form.problems()])
    return form.period


class RoleRankingView(WellFormedInput, APIView):
    permission_classes = [AllowAny]

    @extend_schema(
        operation_id="players_rankings",
        summary="The site-wide Mafia ranking by role over a period",
        description=(
            "The players of one role (`role`; none: every role) ranked over the games dated from `from` to `to` "
            "(YYYY-MM-DD, both included; either may be left out). A game counts when it was played and its "
            "outcome is recorded, in a tournament that is not a draft; its date is the day of its scheduled time "
            "(the site's time zone), or the first day of its tournament when it has none. A win is a game the "
            "role's side won (civilians: civilian, commissar, sergeant, doctor; mafia: mafia, don; maniac); a "
            "draw is nobody's win. Win rate = wins / games; only players with at least `min_games` games (5 "
            "unless given) are ranked. Order: the higher win rate first, then more wins; players equal in both "
            "share the place (`place` is its first, `place_label` e.g. `2-3`) and are listed by nick, then id. "
            "A date that is not one, a period that ends before it starts, an unknown role, a minimum outside "
            "1..10000 or a parameter given empty (leave it out instead) is a 400 naming the parameter."),
        parameters=[
            OpenApiParameter("role", str, enum=list(careers.ROLES), description="the role (none: every role)"),
            OpenApiParameter("from", OpenApiTypes.DATE, description="the first day of the period"),
            OpenApiParameter("to", OpenApiTypes.DATE, description="the last day of the period"),
            OpenApiParameter("min_games", {"type": "integer", "minimum": 1, "maximum": careers.MAX_MIN_GAMES},
                             description="the fewest games a ranked player has (1..10000; default 5)"),
            OpenApiParameter("page", {"type": "integer", "minimum": 1}, description="the page (from 1)"),
            OpenApiParameter("page_size", {"type": "integer", "minimum": 1}, description="rows a page (at most 200)"),
        ],
        responses={200: inline_serializer("RoleRanking", {
            "period": inline_serializer("RankingPeriod", {
                "role": serializers.ChoiceField(choices=RoleChoice.choices, allow_null=True),
                "from": serializers.DateField(allow_null=True), "to": serializers.DateField(allow_null=True),
                "min_games": serializers.IntegerField()}),
            "count": serializers.IntegerField(), "next": serializers.URLField(allow_null=True),
            "previous": serializers.URLField(allow_null=True),
            "results": inline_serializer("RankedPlayer", {
                "place": serializers.IntegerField(), "place_label": serializers.CharField(),
                "player": inline_serializer("RankedPlayerName", {"id": serializers.IntegerField(),
                                                                 "nick": serializers.CharField()}),
                "games": serializers.IntegerField(), "wins": serializers.IntegerField(),
                "win_rate": serializers.FloatField()}, many=True),
        })},
        examples=[OpenApiExample("A ranking", response_only=True, value=RANKING_EXAMPLE)],
    )
    def get(self, request):
        period = _period(request)
        pages = ApiPagination()
        rows = pages.paginate_queryset(careers.ranking(period), request, view=self) or []
        return Response({"period": period.as_json(), "count": pages.page.paginator.count,
                         "next": pages.get_next_link(), "previous": pages.get_previous_link(),
                         "results": [row.as_json() for row in rows]})


urlpatterns = [
    re_path(r"^players/rankings/$", RoleRankingView.as_view(), name="api-role-rankings"),
    re_path(r"^players/(?P<pk>[^/.]+)/career/$", PlayerCareerView.as_view(), name="api-player-career"),
]
