"""django-filter filter sets of the REST API (``/api/v1/``).

Every list can be narrowed to one tournament (``?tournament=SLUG``) and, where
it makes sense, to a stage key, a team name, a player nick, a status and a
date range. Names are the keys, as in the interchange format.
"""

from __future__ import annotations

import datetime

import django_filters as df
from django import forms
from django.db.models import Q
from django.utils.translation import gettext_lazy as _

from accounts.models import Family, Player
from tournaments.models import Game, GameStatus, Penalty, Stage, Team, Tour, Tournament, TournamentStatus

MAX_INTEGER = 2**63 - 1  # past what a database column holds, a number matches nothing


class IntegerFilter(df.NumberFilter):
    """A whole number (``?round=0.5`` is refused, as the schema's ``integer`` says); a huge one matches nothing."""

    field_class = forms.IntegerField

    def filter(self, qs, value):
        if value is not None and abs(value) > MAX_INTEGER:
            return qs.none()
        return super().filter(qs, value)


class StrictFilterSet(df.FilterSet):
    """A filter set that refuses an empty value where the schema promises a number, a date or a choice.

    ``?scheduled_before=`` or ``?status=`` is a 400 naming the parameter, not a silently ignored filter; an
    empty text filter (``?team=``) still means "no filter".
    """

    def get_form_class(self):
        base = super().get_form_class()

        def clean(form):
            cleaned = base.clean(form)
            for name, field in form.fields.items():
                if type(field) is forms.CharField:
                    continue
                suffixes = getattr(field.widget, "suffixes", None)
                keys = [f"{name}_{suffix}" for suffix in suffixes] if suffixes else [name]
                for key in keys:
                    if form.data.get(key, None) == "":
                        form.add_error(name, _("%(parameter)s: must not be empty") % {"parameter": key})
            return cleaned

        return type(base.__name__, (base,), {"clean": clean})


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

class TournamentFilter(StrictFilterSet):
    ruleset = df.CharFilter(field_name="ruleset", label=_("ruleset key"))
    status = df.ChoiceFilter(field_name="status", choices=TournamentStatus.choices, label=_("status"))
    starts = df.DateFromToRangeFilter(field_name="starts_on", label=_("starts on (range)"))
    name = df.CharFilter(field_name="name", lookup_expr="icontains", label=_("name contains"))

    class Meta:
        model = Tournament
        fields = ["ruleset", "status", "starts", "name"]


class StageFilter(StrictFilterSet):
    tournament = _tournament_filter()
    key = df.CharFilter(field_name="key", label=_("stage key"))

    class Meta:
        model = Stage
        fields = ["tournament", "key"]


class TeamFilter(StrictFilterSet):
    tournament = _tournament_filter()
    stage = _stage_filter()
    name = df.CharFilter(field_name="name", label=_("team name"))
    player = df.CharFilter(field_name="roster__player__nick", label=_("player nick"), distinct=True)
    family = df.CharFilter(field_name="family__name", label=_("family name"))
    league = df.CharFilter(field_name="league", label=_("league"))

    class Meta:
        model = Team
        fields = ["tournament", "stage", "name", "player", "family", "league"]


class PlayerFilter(StrictFilterSet):
    tournament = _tournament_filter("participations__tournament__slug")
    team = df.CharFilter(field_name="roster_entries__team__name", label=_("team name"), distinct=True)
    family = df.CharFilter(field_name="memberships__family__name", label=_("family name"), distinct=True)
    nick = df.CharFilter(field_name="nick", lookup_expr="icontains", label=_("nick contains"))

    class Meta:
        model = Player
        fields = ["tournament", "team", "family", "nick"]

    def filter_queryset(self, queryset):
        return super().filter_queryset(queryset).distinct()


class FamilyFilter(StrictFilterSet):
    tournament = df.CharFilter(field_name="tournamentfamily__tournament__slug", label=_("tournament slug"),
                               distinct=True)
    name = df.CharFilter(field_name="name", lookup_expr="icontains", label=_("name contains"))

    class Meta:
        model = Family
        fields = ["tournament", "name"]


class GameFilter(StrictFilterSet):
    tournament = _tournament_filter("stage__tournament__slug")
    stage = _stage_filter()
    group = df.CharFilter(field_name="group_label", label=_("group"))
    round = IntegerFilter(field_name="round", label=_("round / tour"))
    number = IntegerFilter(field_name="number", label=_("game number"))
    status = df.ChoiceFilter(field_name="status", choices=GameStatus.choices, label=_("status"))
    team = df.CharFilter(method="filter_team", label=_("team name (seated or absent)"))
    # no DISTINCT: a player has at most one seat in a game (unique_seat_player), so the join repeats no game
    player = df.CharFilter(field_name="seats__player__nick", label=_("player nick"))
    scheduled = UtcDateTimeRangeFilter(field_name="scheduled_at", label=_("scheduled at (range)"))

    class Meta:
        model = Game
        fields = ["tournament", "stage", "group", "round", "number", "status", "team", "player", "scheduled"]

    def filter_team(self, queryset, name, value):
        return queryset.filter(Q(seats__team__name=value) | Q(absent_teams__name=value)).distinct()


class TourFilter(StrictFilterSet):
    tournament = _tournament_filter("stage__tournament__slug")
    stage = _stage_filter()
    number = IntegerFilter(field_name="number", label=_("tour number"))
    host = df.CharFilter(field_name="host__name", label=_("host team"))
    team = df.CharFilter(field_name="masks__team__name", label=_("team with a mask"), distinct=True)
    played = df.DateFromToRangeFilter(field_name="played_on", label=_("played on (range)"))

    class Meta:
        model = Tour
        fields = ["tournament", "stage", "number", "host", "team", "played"]


class PenaltyFilter(StrictFilterSet):
    tournament = _tournament_filter()
    stage = _stage_filter()
    team = df.CharFilter(field_name="team__name", label=_("team name"))
    player = df.CharFilter(field_name="player__nick", label=_("player nick"))
    game = IntegerFilter(field_name="game__number", label=_("game number"))
    kind = df.CharFilter(field_name="kind", label=_("kind"))
    code = df.CharFilter(field_name="code", label=_("rule code"))
    decided = UtcDateTimeRangeFilter(field_name="decided_at", label=_("decided at (range)"))

    class Meta:
        model = Penalty
        fields = ["tournament", "stage", "team", "player", "game", "kind", "code", "decided"]
