"""Serializers of the REST API: what a client reads, and the documented shape of what it writes.

Names are the keys, as in the interchange format: a team, player, family or
stage is shown by its name / nick / key. Times are shown in the tournament's
time zone (the ISO offset says which; ``timezone`` names it).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable
from types import SimpleNamespace
from typing import Any

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from accounts.models import Family, Player
from portal.api.common import ZonedDateTimeField, zone_of
from tournaments.fact_fields import SEAT, MappedField
from tournaments.models import (
    Game,
    GameStatus,
    NoShowElimination,
    Outcome,
    Penalty,
    RosterEntry,
    Seat,
    Stage,
    Team,
    Tour,
    Tournament,
)


class TournamentSerializer(serializers.ModelSerializer):
    stages = serializers.SerializerMethodField(help_text="stage keys in order of play")
    registration_deadline = ZonedDateTimeField("self", required=False)

    class Meta:
        model = Tournament
        fields = ["slug", "name", "ruleset", "ruleset_version", "settings", "timezone", "starts_on", "ends_on",
                  "registration_deadline", "room", "status", "facts_version", "stages"]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_stages(self, obj: Tournament) -> list[str]:
        return [stage.key for stage in obj.stages.all()]


class GroupSerializer(serializers.Serializer):
    name = serializers.CharField()
    teams = serializers.ListField(child=serializers.CharField())


class StageSerializer(serializers.ModelSerializer):
    tournament = serializers.CharField(source="tournament.slug", read_only=True)
    published_at = ZonedDateTimeField("tournament")
    groups = serializers.SerializerMethodField()

    class Meta:
        model = Stage
        fields = ["id", "tournament", "key", "order", "seed", "published_at", "groups"]

    @extend_schema_field(GroupSerializer(many=True))
    def get_groups(self, obj: Stage) -> list[dict]:
        return [{"name": group.name, "teams": [gt.team.name for gt in group.groupteam_set.all()]}
                for group in obj.groups.all()]


class RosterEntrySerializer(serializers.ModelSerializer):
    player = serializers.CharField(source="player.nick")
    joined_at = ZonedDateTimeField("team.tournament")
    left_at = ZonedDateTimeField("team.tournament")

    class Meta:
        model = RosterEntry
        fields = ["player", "order", "joined_at", "left_at"]


class TeamSerializer(serializers.ModelSerializer):
    tournament = serializers.CharField(source="tournament.slug", read_only=True)
    stage = serializers.CharField(source="stage.key", default=None, allow_null=True, read_only=True)
    captain = serializers.CharField(source="captain.nick", default=None, allow_null=True, read_only=True)
    family = serializers.CharField(source="family.name", default=None, allow_null=True, read_only=True)
    roster = RosterEntrySerializer(many=True, read_only=True)

    class Meta:
        model = Team
        fields = ["id", "tournament", "stage", "name", "order", "captain", "family", "league", "home_university",
                  "roster"]


class PlayerSerializer(serializers.ModelSerializer):
    class Meta:
        model = Player
        fields = ["id", "nick", "full_name", "level", "disqualified"]


class FamilySerializer(serializers.ModelSerializer):
    head = serializers.CharField(source="head.nick", default=None, allow_null=True, read_only=True)

    class Meta:
        model = Family
        fields = ["id", "name", "head", "official"]


class SeatSerializer(serializers.ModelSerializer):
    player = serializers.CharField(source="player.nick")
    team = serializers.CharField(source="team.name")

    class Meta:
        model = Seat
        fields = ["order", *SEAT.names]


class GameSerializer(serializers.ModelSerializer):
    tournament = serializers.CharField(source="stage.tournament.slug", read_only=True)
    stage = serializers.CharField(source="stage.key", read_only=True)
    group = serializers.SerializerMethodField()
    timezone = serializers.CharField(source="stage.tournament.timezone", read_only=True)
    scheduled_at = ZonedDateTimeField("stage.tournament")
    updated_at = ZonedDateTimeField("stage.tournament")
    result_recorded_at = ZonedDateTimeField("stage.tournament")  # FL-19: the detected violations' window starts
    absent_teams = serializers.SerializerMethodField()
    no_show_eliminated = serializers.SerializerMethodField()
    link = serializers.SerializerMethodField(help_text="the game's log (null: none)")
    seats = SeatSerializer(many=True, read_only=True)

    class Meta:
        model = Game
        fields = ["id", "tournament", "stage", "number", "group", "round", "timezone", "scheduled_at", "status",
                  "outcome", "omon", "game_days", "link", "absent_teams", "no_show_eliminated", "seats", "version",
                  "result_recorded_at", "updated_at", "updated_by"]

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_group(self, obj: Game) -> str | None:
        return obj.group_label or None

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_link(self, obj: Game) -> str | None:
        return obj.link or None

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_absent_teams(self, obj: Game) -> list[str]:
        return sorted(team.name for team in obj.absent_teams.all())

    @extend_schema_field(serializers.DictField(child=serializers.CharField()))
    def get_no_show_eliminated(self, obj: Game) -> dict[str, str]:
        return {row.team.name: row.player.nick for row in obj.no_show_eliminations.all()}


# the game's own columns only: counting the page then joins no stage or tournament (a filter may still join them)
GAME_LIST_FIELDS = ("id", "stage_id", "number", "group_label", "round", "scheduled_at", "status", "outcome", "omon",
                    "game_days", "link", "version", "result_recorded_at", "updated_at", "updated_by")
SEAT_LIST_FIELDS = ("game_id", "order", *SEAT.reads)
SEAT_KEYS = ("order", *SEAT.names)  # SeatSerializer's, of SEAT_LIST_FIELDS after the game's key


def game_rows(games: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """What ``GameSerializer(many=True)`` shows of the games read as ``values(*GAME_LIST_FIELDS)``, in their order,
    the same keys in the same order.

    A page of 50 league games holds 750 seats: through the nested serializers that is some 10,000 field calls
    and 2,000 model instances a request; here the games are plain rows and the seats, absent teams
    and no-show eliminations (GP-10) and the stages (key, tournament, time zone) of the whole page are read with one
    ``values_list()`` each.
    ``tests/test_api_games_list.py`` holds the two outputs equal.
    """
    games = list(games)
    ids = [row["id"] for row in games]
    if not ids:
        return []
    seats: dict[int, list[dict[str, Any]]] = {pk: [] for pk in ids}
    for game_id, *values in Seat.objects.filter(game_id__any_of=ids).order_by("order", "id").values_list(
            *SEAT_LIST_FIELDS):
        seats[game_id].append(dict(zip(SEAT_KEYS, values)))
    absent: dict[int, list[str]] = {pk: [] for pk in ids}
    for game_id, name in Game.absent_teams.through.objects.filter(game_id__any_of=ids).values_list(
            "game_id", "team__name"):
        absent[game_id].append(name)
    no_shows: dict[int, dict[str, str]] = {pk: {} for pk in ids}
    for game_id, team, player in NoShowElimination.objects.filter(game_id__any_of=ids).order_by("id").values_list(
            "game_id", "team__name", "player__nick"):
        no_shows[game_id][team] = player
    stages = {pk: (key, slug, timezone, zone_of(SimpleNamespace(timezone=timezone)))
              for pk, key, slug, timezone in Stage.objects.filter(pk__in={row["stage_id"] for row in games}).values_list(
                  "id", "key", "tournament__slug", "tournament__timezone")}
    out = []
    for row in games:
        stage, tournament, timezone, zone = stages[row["stage_id"]]
        out.append({
            "id": row["id"], "tournament": tournament, "stage": stage,
            "number": row["number"], "group": row["group_label"] or None, "round": row["round"],
            "timezone": timezone, "scheduled_at": _iso(row["scheduled_at"], zone),
            "status": row["status"], "outcome": row["outcome"], "omon": row["omon"], "game_days": row["game_days"],
            "link": row["link"] or None, "absent_teams": sorted(absent[row["id"]]),
            "no_show_eliminated": no_shows[row["id"]], "seats": seats[row["id"]], "version": row["version"],
            "result_recorded_at": _iso(row["result_recorded_at"], zone), "updated_at": _iso(row["updated_at"], zone),
            "updated_by": row["updated_by"],
        })
    return out


def _iso(value: dt.datetime | None, zone: Any) -> str | None:
    return None if value is None else value.astimezone(zone).isoformat()


class TourSerializer(serializers.ModelSerializer):
    tournament = serializers.CharField(source="stage.tournament.slug", read_only=True)
    stage = serializers.CharField(source="stage.key", read_only=True)
    host = serializers.CharField(source="host.name", default=None, allow_null=True, read_only=True)
    updated_at = ZonedDateTimeField("stage.tournament")
    absent = serializers.SerializerMethodField()
    masks = serializers.SerializerMethodField()

    class Meta:
        model = Tour
        fields = ["id", "tournament", "stage", "number", "host", "played_on", "questions", "absent", "masks",
                  "version", "updated_at", "updated_by"]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_absent(self, obj: Tour) -> list[str]:
        return sorted(team.name for team in obj.absent.all())

    @extend_schema_field(serializers.DictField(child=serializers.CharField(), help_text="team: mask"))
    def get_masks(self, obj: Tour) -> dict[str, str]:
        return {mask.team.name: mask.mask for mask in obj.masks.all()}


class PenaltySerializer(serializers.ModelSerializer):
    tournament = serializers.CharField(source="tournament.slug", read_only=True)
    stage = serializers.CharField(source="stage.key", default=None, allow_null=True, read_only=True)
    game = serializers.IntegerField(source="game.number", default=None, allow_null=True, read_only=True)
    team = serializers.CharField(source="team.name", default=None, allow_null=True, read_only=True)
    player = serializers.CharField(source="player.nick", default=None, allow_null=True, read_only=True)
    decided_at = ZonedDateTimeField("tournament")

    class Meta:
        model = Penalty
        fields = ["id", "tournament", "stage", "game", "team", "player", "kind", "code", "points", "decided_at",
                  "text"]


# --- the documented shape of writes (validated by the interchange rules, see tournaments.commands) ---


def _write_field(field: MappedField) -> serializers.Field:
    """A fact field as a write documents it, by its kind (``tournaments.fact_fields``)."""
    if field.kind == "name":
        return serializers.CharField(required=field.fact.required, help_text=field.mapped.help or None)
    if field.kind == "choice":
        return serializers.ChoiceField(choices=field.choices, required=field.fact.required)
    if field.kind == "count":
        return serializers.IntegerField(required=False, allow_null=field.default is None, min_value=0)
    return serializers.BooleanField(required=False)


# a seat as a write sends it, the interchange format's seat object: one field a mapped fact field
SeatWriteSerializer = type("SeatWriteSerializer", (serializers.Serializer,), {
    "__module__": __name__, **{field.name: _write_field(field) for field in SEAT.fields}})


class GameWriteSerializer(serializers.Serializer):
    tournament = serializers.CharField(required=False, help_text="slug (required to create)")
    stage = serializers.CharField(required=False, help_text="stage key (required to create)")
    version = serializers.IntegerField(required=False, help_text="the version read (required to update)")
    number = serializers.IntegerField(min_value=1)
    group = serializers.CharField(required=False, allow_null=True)
    round = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    scheduled_at = serializers.DateTimeField(required=False, allow_null=True)
    status = serializers.ChoiceField(choices=GameStatus.choices, required=False)
    outcome = serializers.ChoiceField(choices=Outcome.choices, required=False, allow_null=True)
    omon = serializers.BooleanField(required=False)
    game_days = serializers.IntegerField(required=False, allow_null=True, min_value=0)
    link = serializers.CharField(required=False, allow_null=True)
    absent_teams = serializers.ListField(child=serializers.CharField(), required=False)
    no_show_eliminated = serializers.DictField(child=serializers.CharField(), required=False)
    seats = SeatWriteSerializer(many=True, required=False)


class MasksWriteSerializer(serializers.Serializer):
    masks = serializers.DictField(child=serializers.CharField(), help_text="team: mask of 1, 0, X and ?")
    version = serializers.IntegerField(help_text="the tour's version read")


class PenaltyWriteSerializer(serializers.Serializer):
    tournament = serializers.CharField(help_text="slug")
    stage = serializers.CharField(required=False, allow_null=True)
    game = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    team = serializers.CharField(required=False, allow_null=True)
    player = serializers.CharField(required=False, allow_null=True)
    kind = serializers.CharField()
    code = serializers.CharField(required=False, allow_null=True)
    points = serializers.DecimalField(max_digits=8, decimal_places=3, coerce_to_string=True)
    decided_at = serializers.DateTimeField(required=False, allow_null=True)
    text = serializers.CharField(required=False, allow_blank=True)


class ImportResultSerializer(serializers.Serializer):
    slug = serializers.CharField()
