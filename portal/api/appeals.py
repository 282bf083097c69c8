"""REST API of decisions and appeals: public fields to read; decisions, appeals and verdicts to write.

A ChGK appeal's appealing team is shown to the committee and hidden from
everyone else (the jury included) while the verdict is pending (CHGK-20):
``team``, ``appellant`` and ``filed_by`` are null and ``team_hidden`` true,
unless the reader is staff or holds the tournament's ``organizer`` or
``curator`` role (and is not on its jury;
``accounts.permissions.can_see_hidden_appellant``). Filtering by team never
reveals a hidden appellant either.
"""

from __future__ import annotations

from collections import defaultdict

import django_filters as df
from django.db.models import Exists, OuterRef, Prefetch, Q
from django.utils.translation import gettext_lazy as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_field, extend_schema_view
from rest_framework import mixins, serializers, status, viewsets
from rest_framework.decorators import action
from rest_framework.response import Response

from accounts.models import Role, TournamentRole
from accounts.permissions import can_see_hidden_appellant
from appeals.services import verdict_given_late
from portal.api import appeal_writes as api_writes
from portal.api.common import ApiPagination, WellFormedInput, ZonedDateTimeField
from portal.api.filters import IntegerFilter, StrictFilterSet, UtcDateTimeRangeFilter
from portal.api.serializers import PenaltySerializer
from tournaments import commands
from tournaments.models import Appeal, AppealKind, Decision, DecisionKind, Penalty, Team, Verdict

CHGK_KINDS = (AppealKind.REMOVAL, AppealKind.ACCEPT_ANSWER)
HIDDEN = Q(kind__in=CHGK_KINDS, verdict__isnull=True)


class ViewerRoles:
    """The reader's roles in every tournament, read once per request (one query)."""

    def __init__(self, user):
        self.user = user
        self._loaded = False

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        roles: dict[int, set[str]] = defaultdict(set)
        if self.user is not None and self.user.is_authenticated and not self.user.is_staff:
            for tournament_id, role in TournamentRole.objects.filter(user=self.user).values_list(
                    "tournament_id", "role"):
                roles[tournament_id].add(role)
        self.roles = roles

    def sees_appellant(self, tournament) -> bool:
        if self.user is None or not self.user.is_authenticated:
            return False
        self._load()
        cache = getattr(self.user, "_tournament_roles", None)
        if cache is None:
            cache = self.user._tournament_roles = {}
        cache.setdefault(tournament.pk, set(self.roles.get(tournament.pk, set())))
        return can_see_hidden_appellant(self.user, tournament)

    def privileged_tournaments(self) -> list[int] | None:
        """Tournaments whose hidden appellants the reader sees (None: all, for staff)."""
        if self.user is not None and self.user.is_authenticated and self.user.is_staff:
            return None
        self._load()
        return [tid for tid, roles in self.roles.items()
                if roles & {Role.ORGANIZER, Role.CURATOR} and Role.JURY not in roles]


class DecisionFilter(StrictFilterSet):
    tournament = df.CharFilter(field_name="tournament__slug", label=_("tournament slug"))
    stage = df.CharFilter(field_name="stage__key", label=_("stage key"))
    kind = df.ChoiceFilter(field_name="kind", choices=DecisionKind.choices, label=_("kind"))
    team = df.CharFilter(field_name="team__name", label=_("team name"))
    player = df.CharFilter(field_name="player__nick", label=_("player nick"))
    game = IntegerFilter(field_name="game__number", label=_("game number"))
    decided = UtcDateTimeRangeFilter(field_name="decided_at", label=_("decided at (range)"))
    published = UtcDateTimeRangeFilter(field_name="published_at", label=_("published at (range)"))

    class Meta:
        model = Decision
        fields = ["tournament", "stage", "kind", "team", "player", "game", "decided", "published"]


VERDICT_CHOICES = [*Verdict.choices, ("pending", _("pending"))]


class AppealFilter(StrictFilterSet):
    tournament = df.CharFilter(field_name="tournament__slug", label=_("tournament slug"))
    stage = df.CharFilter(field_name="stage__key", label=_("stage key"))
    kind = df.ChoiceFilter(field_name="kind", choices=AppealKind.choices, label=_("kind"))
    status = df.ChoiceFilter(method="filter_status", choices=VERDICT_CHOICES, label=_("verdict or pending"))
    tour = IntegerFilter(field_name="tour__number", label=_("tour number"))
    decision = IntegerFilter(field_name="decision__index", label=_("decision number"))
    team = df.CharFilter(method="filter_team", label=_("appealing team (hidden appellants excepted)"))
    filed = UtcDateTimeRangeFilter(field_name="filed_at", label=_("filed at (range)"))

    class Meta:
        model = Appeal
        fields = ["tournament", "stage", "kind", "status", "tour", "decision", "team", "filed"]

    def filter_status(self, queryset, name, value):
        if value == "pending":
            return queryset.filter(verdict__isnull=True)
        return queryset.filter(verdict=value)

    def filter_team(self, queryset, name, value):
        matches = Q(team__name=value) | Q(appellant=value)
        privileged = ViewerRoles(getattr(self.request, "user", None)).privileged_tournaments()
        if privileged is None:
            return queryset.filter(matches)
        return queryset.filter(matches & (~HIDDEN | Q(tournament_id__in=privileged)))


class DecisionSerializer(serializers.ModelSerializer):
    tournament = serializers.CharField(source="tournament.slug", read_only=True)
    stage = serializers.CharField(source="stage.key", default=None, allow_null=True, read_only=True)
    game = serializers.IntegerField(source="game.number", default=None, allow_null=True, read_only=True)
    team = serializers.CharField(source="team.name", default=None, allow_null=True, read_only=True)
    player = serializers.CharField(source="player.nick", default=None, allow_null=True, read_only=True)
    decided_at = ZonedDateTimeField("tournament")
    published_at = ZonedDateTimeField("tournament")

    class Meta:
        model = Decision
        fields = ["id", "tournament", "index", "kind", "stage", "game", "code", "outcome", "team", "player", "order",
                  "reason", "decided_at", "published_at", "by", "text"]


class AppealSerializer(serializers.ModelSerializer):
    tournament = serializers.CharField(source="tournament.slug", read_only=True)
    stage = serializers.CharField(source="stage.key", default=None, allow_null=True, read_only=True)
    tour = serializers.IntegerField(source="tour.number", default=None, allow_null=True, read_only=True)
    decision = serializers.IntegerField(source="decision.index", default=None, allow_null=True, read_only=True)
    penalty = serializers.IntegerField(source="penalty_id", default=None, allow_null=True, read_only=True,
                                       help_text="FL-19: the id of the appealed judge's penalty (/api/v1/penalties/)")
    team = serializers.SerializerMethodField()
    team_hidden = serializers.SerializerMethodField()
    appellant = serializers.SerializerMethodField(
        help_text="who appeals, as filed; hidden like `team` (CHGK-20)")
    filed_by = serializers.SerializerMethodField(
        help_text="the player (or account) who filed it (CHGK-20); hidden like `team`")
    question_removed = serializers.SerializerMethodField(
        help_text="CHGK-21: another appeal's removal of the same question was upheld; this one changes nothing")
    credited_teams = serializers.SerializerMethodField()
    filed_at = ZonedDateTimeField("tournament")
    verdict_at = ZonedDateTimeField("tournament")
    given_late = serializers.SerializerMethodField(
        help_text="CHGK-18: the verdict was given after 23:59 of D+9 (at or after 00:00 of D+10)")
    replacement = serializers.SerializerMethodField(
        help_text="FL-19: the changed decision a partly upheld appeal put in the appealed decision's place")

    class Meta:
        model = Appeal
        fields = ["id", "tournament", "order", "kind", "stage", "tour", "question", "team", "team_hidden", "answer",
                  "argument", "decision", "penalty", "appellant", "filed_by", "filed_at", "verdict",
                  "verdict_reasons", "verdict_at", "given_late", "question_removed", "replacement",
                  "credited_teams", "standings_change"]

    @extend_schema_field(serializers.BooleanField())
    def get_given_late(self, obj: Appeal) -> bool:
        return verdict_given_late(obj)

    @extend_schema_field(serializers.BooleanField())
    def get_question_removed(self, obj: Appeal) -> bool:
        return bool(getattr(obj, "question_removed", False))

    @extend_schema_field({"type": "object", "nullable": True, "additionalProperties": True})
    def get_replacement(self, obj: Appeal) -> dict | None:
        if obj.verdict != Verdict.PARTLY:
            return None
        if obj.penalty_id is not None:
            try:
                return PenaltySerializer(obj.replacement_penalty).data
            except Penalty.DoesNotExist:
                return None
        if obj.decision_id is None:
            return None
        try:
            decision = obj.replacement
        except Decision.DoesNotExist:
            return None
        return DecisionSerializer(decision).data

    def _hidden(self, obj: Appeal) -> bool:
        if obj.kind not in CHGK_KINDS or obj.verdict is not None:
            return False
        viewer: ViewerRoles | None = self.context.get("viewer")
        return viewer is None or not viewer.sees_appellant(obj.tournament)

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_team(self, obj: Appeal) -> str | None:
        if obj.team is None or self._hidden(obj):
            return None
        return obj.team.name

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_appellant(self, obj: Appeal) -> str | None:
        return None if self._hidden(obj) else obj.appellant

    @extend_schema_field(serializers.CharField(allow_null=True))
    def get_filed_by(self, obj: Appeal) -> str | None:
        user = obj.filed_by
        if user is None or self._hidden(obj):
            return None
        player = getattr(user, "player", None)
        return player.nick if player is not None else user.get_username()

    @extend_schema_field(serializers.BooleanField())
    def get_team_hidden(self, obj: Appeal) -> bool:
        return self._hidden(obj)

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_credited_teams(self, obj: Appeal) -> list[str]:
        return [team.name for team in obj.credited_teams.all()]


DECISION_EXAMPLE = {"id": 2, "tournament": "cb-spring-2015", "index": 1, "kind": "technical_result",
                    "stage": "stage-2", "game": 7, "code": "FP-4", "outcome": "civilians", "team": None,
                    "player": None, "order": [], "reason": None, "decided_at": "2015-03-12T20:00:00+03:00",
                    "published_at": "2015-03-12T21:00:00+03:00", "by": "Tiberi", "text": "..."}
APPEAL_EXAMPLE = {"id": 3, "tournament": "mubk-spring", "order": 0, "kind": "accept_answer", "stage": "season",
                  "tour": 1, "question": 3, "team": None, "team_hidden": True, "answer": "...", "argument": "...",
                  "decision": None, "penalty": None, "appellant": None, "filed_by": None,
                  "filed_at": "2013-03-02T20:00:00+04:00", "verdict": None, "verdict_reasons": "", "verdict_at": None,
                  "given_late": False, "question_removed": False, "replacement": None, "credited_teams": [],
                  "standings_change": []}


@extend_schema_view(
    list=extend_schema(
        summary="List decisions",
        description="Decisions of judges, commissions and committees as facts (who, when, on which grounds), "
                    "paginated with `count`. Filters: `tournament` (slug), `stage` (key), `kind`, `team`, `player`, "
                    "`game` (number), `decided_after`/`decided_before`, `published_after`/`published_before`.",
        examples=[OpenApiExample("A page of decisions", value=DECISION_EXAMPLE, response_only=True)],
    ),
    retrieve=extend_schema(
        summary="One decision", description="One decision, with the same fields as in the list.",
        examples=[OpenApiExample("A technical result", value=DECISION_EXAMPLE, response_only=True)],
    ),
)
class DecisionViewSet(WellFormedInput, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = DecisionSerializer
    filterset_class = DecisionFilter
    pagination_class = ApiPagination
    queryset = Decision.objects.filter(replacement_for=None).select_related(  # a changed decision shows on its appeal
        "tournament", "stage", "game", "team", "player").order_by("tournament_id", "index", "id")

    @extend_schema(
        summary="Record a decision",
        description="A judge's, commission's or committee's decision: the interchange format's decision object "
                    "plus `tournament` (slug); judged by the ruleset with the decision in place (e.g. a technical "
                    "result only on the grounds CB-15 allows). Judges, the curator and organizers only.",
        request=OpenApiTypes.OBJECT, responses={201: DecisionSerializer},
        examples=[OpenApiExample("A technical result", request_only=True, value={
            "tournament": "cb-example", "stage": "stage-1", "game": 7, "kind": "technical_result",
            "code": "FP-4", "outcome": "civilians", "decided_at": "2015-03-12T20:00:00+03:00"})],
    )
    def create(self, request, *args, **kwargs):
        decision = commands.record_decision(request.user, request.data)
        return Response(self.get_serializer(self.get_queryset().get(pk=decision.pk)).data,
                        status=status.HTTP_201_CREATED)


@extend_schema_view(
    list=extend_schema(
        summary="List appeals",
        description="Appeals with their public fields, paginated with `count`. A pending ChGK appeal hides its "
                    "appealing team (`team`, `appellant` and `filed_by` null, `team_hidden` true) from everyone but "
                    "staff and the tournament's organizers and curators, never from the jury (CHGK-20); "
                    "`question_removed` says the question's removal was upheld (CHGK-21). Filters: `tournament` (slug), `stage` (key), "
                    "`kind`, `status` (`accepted`, `rejected`, `pending`), `tour`, `decision`, `team`, "
                    "`filed_after`/`filed_before`.",
        examples=[OpenApiExample("A page of appeals", value=APPEAL_EXAMPLE, response_only=True)],
    ),
    retrieve=extend_schema(
        summary="One appeal", description="One appeal, with the same fields (and the same hiding) as in the list.",
        examples=[OpenApiExample("A pending ChGK appeal", value=APPEAL_EXAMPLE, response_only=True)],
    ),
)
class AppealViewSet(WellFormedInput, mixins.CreateModelMixin, viewsets.ReadOnlyModelViewSet):
    serializer_class = AppealSerializer
    filterset_class = AppealFilter
    pagination_class = ApiPagination
    queryset = Appeal.objects.select_related(
        "tournament", "stage", "tour__stage", "team", "decision", "replacement__tournament", "replacement__stage",
        "replacement__game", "replacement__team", "replacement__player", "filed_by__player",
        "replacement_penalty__tournament", "replacement_penalty__stage", "replacement_penalty__game",
        "replacement_penalty__team", "replacement_penalty__player").prefetch_related(
        Prefetch("credited_teams", queryset=Team.objects.order_by("name", "id")),
    ).annotate(question_removed=Exists(Appeal.objects.filter(  # CHGK-21: the question's removal was upheld
        tour_id=OuterRef("tour_id"), question=OuterRef("question"), kind=AppealKind.REMOVAL,
        verdict=Verdict.ACCEPTED).exclude(pk=OuterRef("pk")))).order_by("tournament_id", "order", "id")

    def get_serializer_context(self):
        context = super().get_serializer_context()
        context["viewer"] = ViewerRoles(getattr(self.request, "user", None))
        return context

    @extend_schema(
        summary="File an appeal",
        description="ChGK: `kind` (`removal` or `accept_answer`), `tour`, `question`, `answer`, `argument`; only "
                    "the team's captain files (CHGK-20), from 00:00 of D until 23:59:59 of D+3 (CHGK-18). Mafia: "
                    "`decision` (its number), `team`, `appellant`, `argument`, from the decision's publication for "
                    "72 h (GP-23, FL-19) or 48 h (CB-17); a family league penalty with `penalty` (its id, FL-19); a "
                    "detected violation with `stage`, `game`, `violation` and `player` (FL-15, FL-19). One appeal "
                    "per team, target and kind. A refused appeal is stored nowhere; the refusal names the rule (and "
                    "the deadline or the earlier appeal): 403 for a user who may not file (not the captain or a "
                    "delegate in ChGK, not a participant of the team in Mafia), 400 for the rest.",
        request=OpenApiTypes.OBJECT, responses={201: AppealSerializer},
        examples=[OpenApiExample("A ChGK dual", request_only=True, value={
            "tournament": "mubk-spring", "kind": "accept_answer", "tour": 1, "question": 6,
            "answer": "Лобачевский", "argument": "..."})],
    )
    def create(self, request, *args, **kwargs):
        appeal = api_writes.create_appeal(request.user, request.data)
        return Response(self.get_serializer(self.get_queryset().get(pk=appeal.pk)).data,
                        status=status.HTTP_201_CREATED)

    @extend_schema(
        summary="Record the verdict",
        description="`verdict` (`accepted`, `rejected`, `partly`), `reasons`, and for an accepted answer the "
                    "`credited_teams` (CHGK-22); `partly` (Mafia only) carries `replacement`, the changed "
                    "decision (an interchange decision object) that takes the appealed one's place, or for an "
                    "appeal against a penalty the changed penalty (an interchange penalty object; its stage, game, "
                    "team and player are the appealed one's unless given) (FL-19). An accepted appeal against a "
                    "penalty annuls it. Only the appeal's deciders (roles.md): the jury in ChGK (CHGK-18), the "
                    "curator in FL and GP (FL-19, GP-23), the judge of the appeal's stage or the curator in CB "
                    "(CB-17); anyone else 403 naming the rule. The standings recompute.",
        request=OpenApiTypes.OBJECT, responses={200: AppealSerializer},
        examples=[OpenApiExample("Upheld", request_only=True, value={
            "verdict": "accepted", "reasons": "the answer is as precise", "credited_teams": ["Vega"]})],
    )
    @action(detail=True, methods=["post"])
    def verdict(self, request, pk=None):
        appeal = api_writes.record_verdict(request.user, self.get_object(), request.data)
        return Response(self.get_serializer(self.get_queryset().get(pk=appeal.pk)).data)
