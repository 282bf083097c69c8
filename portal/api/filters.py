"""django-filter filter sets of the REST API (``/api/v1/``).

Every list can be narrowed to one tournament (``?tournament=SLUG``) and, where
it makes sense, to a stage key, a team name, a player nick, a status and a
date range. Names are the keys, as in the interchange format.
"""

from __future__ import annotations

import datetime

import django_filters as df
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from accounts.models import Family, Player
from tournaments.models import Game, GameStatus, Penalty, Stage, Team, Tour, Tournament, TournamentStatus


def _tournament_filter(field_name: str = "tournament__slug") -> df.CharFilter:
    return df.CharFilter(field_name=field_name, label=_("tournament slug"))


def _stage_filter(field_name: str = "stage__key") -> df.CharFilter:
    return df.CharFilter(field_name=field_name, label=_("stage key"))



class UtcDateTimeRangeFilter(df.IsoDateTimeFromToRangeFilter):
    """A date-time range whose bounds are turned to UTC first.

    ISO 8601 allows offsets (``+18:44``) that PostgreSQL refuses; the same
    instant in UTC is always valid, so odd but well-formed input never
    becomes a server error.
    """

    def filter(self, qs, value):
        if value:
            value = slice(_utc(value.start), _utc(value.stop))
        return super().filter(qs, value)


def _utc(moment):
    if moment is None or moment.tzinfo is None:
        return moment
    try:
        return moment.astimezone(datetime.UTC)
    except OverflowError:
        edge = datetime.datetime.min if moment.year < 5000 else datetime.datetime.max
        return edge.replace(tzinfo=datetime.UTC)

class TournamentFilter(df.FilterSet):
    ruleset = df.CharFilter(field_name="ruleset", label=_("ruleset key"))
    status = df.ChoiceFilter(field_name="status", choices=TournamentStatus.choices, label=_("status"))
    starts = df.DateFromToRangeFilter(field_name="starts_on", label=_("starts on (range)"))
    name = df.CharFilter(field_name="name", lookup_expr="icontains", label=_("name contains"))

    class Meta:
        model = Tournament
        fields = ["ruleset", "status", "starts", "name"]


class StageFilter(df.FilterSet):
    tournament = _tournament_filter()
    key = df.CharFilter(field_name="key", label=_("stage key"))

    class Meta:
        model = Stage
        fields = ["tournament", "key"]


class TeamFilter(df.FilterSet):
    tournament = _tournament_filter()
    stage = _stage_filter()
    name = df.CharFilter(field_name="name", label=_("team name"))
    player = df.CharFilter(field_name="roster__player__nick", label=_("player nick"), distinct=True)
    family = df.CharFilter(field_name="family__name", label=_("family name"))
    league = df.CharFilter(field_name="league", label=_("league"))

    class Meta:
        model = Team
        fields = ["tournament", "stage", "name", "player", "family", "league"]


class PlayerFilter(df.FilterSet):
    tournament = _tournament_filter("participations__tournament__slug")
    team = df.CharFilter(field_name="roster_entries__team__name", label=_("team name"), distinct=True)
    family = df.CharFilter(field_name="memberships__family__name", label=_("family name"), distinct=True)
    nick = df.CharFilter(field_name="nick", lookup_expr="icontains", label=_("nick contains"))

    class Meta:
        model = Player
        fields = ["tournament", "team", "family", "nick"]

    def filter_queryset(self, queryset):
        return super().filter_queryset(queryset).distinct()


class FamilyFilter(df.FilterSet):
    tournament = df.CharFilter(field_name="tournamentfamily__tournament__slug", label=_("tournament slug"),
                               distinct=True)
    name = df.CharFilter(field_name="name", lookup_expr="icontains", label=_("name contains"))

    class Meta:
        model = Family
        fields = ["tournament", "name"]


class GameFilter(df.FilterSet):
    tournament = _tournament_filter("stage__tournament__slug")
    stage = _stage_filter()
    group = df.CharFilter(field_name="group_label", label=_("group"))
    round = df.NumberFilter(field_name="round", label=_("round / tour"))
    number = df.NumberFilter(field_name="number", label=_("game number"))
    status = df.ChoiceFilter(field_name="status", choices=GameStatus.choices, label=_("status"))
    team = df.CharFilter(method="filter_team", label=_("team name (seated or absent)"))
    player = df.CharFilter(field_name="seats__player__nick", label=_("player nick"), distinct=True)
    scheduled = UtcDateTimeRangeFilter(field_name="scheduled_at", label=_("scheduled at (range)"))

    class Meta:
        model = Game
        fields = ["tournament", "stage", "group", "round", "number", "status", "team", "player", "scheduled"]

    def filter_team(self, queryset, name, value):
        return queryset.filter(Q(seats__team__name=value) | Q(absent_teams__name=value)).distinct()


class TourFilter(df.FilterSet):
    tournament = _tournament_filter("stage__tournament__slug")
    stage = _stage_filter()
    number = df.NumberFilter(field_name="number", label=_("tour number"))
    host = df.CharFilter(field_name="host__name", label=_("host team"))
    team = df.CharFilter(field_name="masks__team__name", label=_("team with a mask"), distinct=True)
    played = df.DateFromToRangeFilter(field_name="played_on", label=_("played on (range)"))

    class Meta:
        model = Tour
        fields = ["tournament", "stage", "number", "host", "team", "played"]


class PenaltyFilter(df.FilterSet):
    tournament = _tournament_filter()
    stage = _stage_filter()
    team = df.CharFilter(field_name="team__name", label=_("team name"))
    player = df.CharFilter(field_name="player__nick", label=_("player nick"))
    game = df.NumberFilter(field_name="game__number", label=_("game number"))
    kind = df.CharFilter(field_name="kind", label=_("kind"))
    code = df.CharFilter(field_name="code", label=_("rule code"))
    decided = UtcDateTimeRangeFilter(field_name="decided_at", label=_("decided at (range)"))

    class Meta:
        model = Penalty
        fields = ["tournament", "stage", "team", "player", "game", "kind", "code", "decided"]
