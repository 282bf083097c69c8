"""``/api/v1/tournaments/SLUG/roles/``: who holds which role of a tournament, granted and revoked by its organizers
(``spec/roles.md``), as the page ``/accounts/dashboard/SLUG/roles/`` does.

- ``GET``: the tournament's own roles (organizer, judge with its stages, curator, jury ...), its teams' captains and
  its families' heads;
- ``POST``: a grant. ``{"role": "judge", "user": USERNAME, "stages": [KEY, ...]}`` for a role of the tournament (a
  judge's stages replace those its role named; none: every stage); ``{"role": "captain", "team": NAME_OR_ID,
  "player": NICK}`` names a team's captain; ``{"role": "family_head", "family": NAME_OR_ID, "player": NICK}`` a
  family's head. 201 with the grant; 200 when it was held as it is already;
- ``DELETE ?role=ROLE&user=USERNAME`` (``&team=`` for a captain, ``&family=`` for a head): the revocation, 200 with
  what was revoked; 404 when it is not held.

Through ``tournaments.grants``: one transaction each, in the tournament's history. Only its organizers and staff
(403 with the rule for anyone else, nothing changed); CHGK-11 refusals and every other one are 400 naming the field.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import re_path
from django.utils.translation import gettext as _
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    PolymorphicProxySerializer,
    extend_schema,
)
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from accounts.models import Family, Role, TournamentRole
from portal.api.common import DETAIL_SCHEMA, ERRORS_SCHEMA, WellFormedInput, local_iso
from portal.api.views import SLUG_PATTERN
from rulesets.errors import Invalid, NotFound, Problem
from tournaments import grants
from tournaments.models import Team, Tournament

KINDS = (*grants.TOURNAMENT_ROLES, Role.CAPTAIN, Role.FAMILY_HEAD)
KEYS = {"role", "user", "stages", "team", "family", "player"}
ROLE_HELP = "one of: " + ", ".join(KINDS)


class RoleGrantSerializer(serializers.Serializer):
    role = serializers.CharField(help_text="the tournament's role: " + ", ".join(grants.TOURNAMENT_ROLES))
    user = serializers.CharField(help_text="the user name")
    player = serializers.CharField(allow_null=True, help_text="the player the user's account claims, if any")
    stages = serializers.ListField(child=serializers.CharField(), help_text="a judge's stage keys; none: every "
                                   "stage (FL-0); always empty for the other roles")
    granted_at = serializers.DateTimeField(help_text="in the tournament's zone")


class CaptainSerializer(serializers.Serializer):
    role = serializers.CharField(help_text="captain")
    team = serializers.CharField()
    team_id = serializers.IntegerField()
    stage = serializers.CharField(allow_null=True, help_text="the stage key of a team drawn for one stage")
    player = serializers.CharField(allow_null=True, help_text="the captain's nick (CHGK-1); null: none")


class FamilyHeadSerializer(serializers.Serializer):
    role = serializers.CharField(help_text="family_head")
    family = serializers.CharField()
    family_id = serializers.IntegerField()
    player = serializers.CharField(allow_null=True, help_text="the head's nick (FL-1, GP-4); null: none")


class RolesSerializer(serializers.Serializer):
    tournament = serializers.CharField(help_text="the tournament's slug")
    roles = RoleGrantSerializer(many=True)
    captains = CaptainSerializer(many=True)
    family_heads = FamilyHeadSerializer(many=True)


class GrantRequestSerializer(serializers.Serializer):
    role = serializers.CharField(help_text=ROLE_HELP)
    user = serializers.CharField(required=False, help_text="a role of the tournament: the user name")
    stages = serializers.ListField(child=serializers.CharField(), required=False,
                                   help_text="a judge's stage keys; none: every stage")
    team = serializers.CharField(required=False, help_text="captain: the team's name or id")
    family = serializers.CharField(required=False, help_text="family_head: the family's name or id")
    player = serializers.CharField(required=False, allow_null=True,
                                   help_text="captain, family_head: the player's nick")


GRANT = PolymorphicProxySerializer(component_name="Grant", resource_type_field_name=None,
                                   serializers=[RoleGrantSerializer, CaptainSerializer, FamilyHeadSerializer])


def role_item(row: TournamentRole, tournament: Tournament) -> dict[str, Any]:
    player = getattr(row.user, "player", None)
    return {"role": row.role, "user": row.user.username, "player": player.nick if player else None,
            "stages": list(row.stages or []), "granted_at": local_iso(row.granted_at, tournament)}


def captain_item(team: Team, captain=None) -> dict[str, Any]:
    captain = captain if captain is not None else team.captain
    return {"role": Role.CAPTAIN.value, "team": team.name, "team_id": team.pk,
            "stage": team.stage.key if team.stage_id else None, "player": captain.nick if captain else None}


def head_item(family: Family, head=None) -> dict[str, Any]:
    head = head if head is not None else family.head
    return {"role": Role.FAMILY_HEAD.value, "family": family.name, "family_id": family.pk,
            "player": head.nick if head else None}


def listing(tournament: Tournament) -> dict[str, Any]:
    held = grants.holders(tournament)
    return {"tournament": tournament.slug, "roles": [role_item(row, tournament) for row in held.roles],
            "captains": [captain_item(team) for team in held.teams],
            "family_heads": [head_item(family) for family in held.families]}


def _body(request) -> Mapping[str, Any]:
    data = request.data
    if not isinstance(data, Mapping):
        raise Invalid(Problem("", _("the body must be a JSON object")))
    unknown = sorted(set(data) - KEYS)
    if unknown:
        raise Invalid([Problem(key, _("unknown field; the fields are %(fields)s") % {
            "fields": ", ".join(sorted(KEYS))}) for key in unknown])
    return data


def _text(value: Any, path: str) -> str | None:
    if value is None or isinstance(value, str):
        return value
    raise Invalid(Problem(path, _("must be a string")))


def _kind(value: Any) -> str:
    if value not in KINDS:
        raise Invalid(Problem("role", _("the role is one of: %(roles)s") % {"roles": ", ".join(KINDS)}))
    return str(value)


ROLES_EXAMPLE = {"tournament": "mubk-spring", "roles": [
    {"role": "organizer", "user": "olga", "player": None, "stages": [], "granted_at": "2013-01-20T12:00:00+04:00"},
    {"role": "judge", "user": "ivan", "player": "Ivan", "stages": ["final"],
     "granted_at": "2013-01-21T10:30:00+04:00"}],
    "captains": [{"role": "captain", "team": "Signum", "team_id": 1, "stage": None, "player": "Signum captain"}],
    "family_heads": []}
FORBIDDEN = OpenApiExample("Not an organizer", response_only=True, status_codes=["403"], value={
    "detail": "Only the organizers of Гран-при МУБК, весна grant and revoke its roles, name the captains of its "
              "teams and the heads of its families (spec/roles.md)."})


class RolesView(WellFormedInput, APIView):
    """The roles of one tournament: read, grant, revoke."""

    permission_classes = [IsAuthenticated]

    def _tournament(self, request, slug: str) -> Tournament:
        tournament = get_object_or_404(Tournament, slug=slug)
        grants.require_organizer(request.user, tournament)
        return tournament

    @extend_schema(
        operation_id="tournaments_roles_list",
        summary="Who holds which role of a tournament",
        description=(
            "The tournament's own roles (organizer, judge with the keys of the stages it judges, none meaning "
            "every stage, curator, jury), its teams' captains and its families' heads (spec/roles.md). Only the "
            "tournament's organizers and staff read it (403 with the rule for anyone else)."),
        responses={200: RolesSerializer, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("The roles", response_only=True, status_codes=["200"], value=ROLES_EXAMPLE),
                  FORBIDDEN],
    )
    def get(self, request, slug: str):
        return Response(listing(self._tournament(request, slug)))

    @extend_schema(
        operation_id="tournaments_roles_grant",
        summary="Grant a role of a tournament",
        description=(
            "`{\"role\": \"judge\", \"user\": USERNAME, \"stages\": [KEY, ...]}` grants a role of the tournament "
            "(organizer, judge, curator, jury): a judge's `stages` replace those its role named (none: every stage; "
            "only a judge's role names stages). `{\"role\": \"captain\", \"team\": NAME_OR_ID, \"player\": NICK}` "
            "names the captain of a team (a player of its current roster, CHGK-1); `{\"role\": \"family_head\", "
            "\"family\": NAME_OR_ID, \"player\": NICK}` the head of a family taking part (FL-1; one who organizes "
            "every tournament the family plays names it). The jury role is refused to a user whose player is on a "
            "roster of the tournament (CHGK-11). One transaction, in the tournament's history: 201 with the grant, "
            "200 when it was held as it is; 400 naming the field; 403 with the rule for anyone but the "
            "tournament's organizers and staff, nothing changed."),
        request=GrantRequestSerializer,
        responses={200: GRANT, 201: GRANT, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("A judge of the final", request_only=True, value={
            "role": "judge", "user": "ivan", "stages": ["final"]}),
                  OpenApiExample("A captain", request_only=True, value={
                      "role": "captain", "team": "Signum", "player": "Signum 2"}),
                  OpenApiExample("Granted", response_only=True, status_codes=["201"], value=ROLES_EXAMPLE["roles"][1]),
                  OpenApiExample("CHGK-11", response_only=True, status_codes=["400"], value={"errors": [{
                      "path": "user", "message": "Signum 2 plays for Signum in this tournament and cannot sit on "
                                                 "its appeal jury (CHGK-11)"}]}), FORBIDDEN],
    )
    def post(self, request, slug: str):
        tournament = self._tournament(request, slug)
        data = _body(request)
        kind = _kind(data.get("role"))
        if kind == Role.CAPTAIN:
            team, changed = grants.set_captain(request.user, grants.team_of(tournament, data.get("team")),
                                               _text(data.get("player"), "player"))
            item = captain_item(team)
        elif kind == Role.FAMILY_HEAD:
            family, changed = grants.set_family_head(request.user, tournament,
                                                     grants.family_of(tournament, data.get("family")),
                                                     _text(data.get("player"), "player"))
            item = head_item(family)
        else:
            row, changed = grants.grant_role(request.user, tournament, _text(data.get("user"), "user"), kind,
                                             data.get("stages"))
            item = role_item(row, tournament)
        return Response(item, status=status.HTTP_201_CREATED if changed else status.HTTP_200_OK)

    @extend_schema(
        operation_id="tournaments_roles_revoke",
        summary="Revoke a role of a tournament",
        description=(
            "`?role=ROLE&user=USERNAME` revokes a role of the tournament; `?role=captain&team=NAME_OR_ID` leaves "
            "the team without a captain, `?role=family_head&family=NAME_OR_ID` the family without a head. Nobody "
            "revokes their own organizer role while nobody else organizes the tournament (400). One transaction, "
            "in the tournament's history: 200 with what was revoked; 404 when it is not held; 403 with the rule "
            "for anyone but the tournament's organizers and staff, nothing changed."),
        parameters=[OpenApiParameter("role", str, required=True, description=ROLE_HELP),
                    OpenApiParameter("user", str, description="a role of the tournament: the user name"),
                    OpenApiParameter("team", str, description="captain: the team's name or id"),
                    OpenApiParameter("family", str, description="family_head: the family's name or id")],
        responses={200: GRANT, 400: ERRORS_SCHEMA, 403: DETAIL_SCHEMA, 404: DETAIL_SCHEMA},
        examples=[OpenApiExample("Revoked", response_only=True, status_codes=["200"], value=ROLES_EXAMPLE["roles"][1]),
                  OpenApiExample("Not held", response_only=True, status_codes=["404"], value={
                      "detail": "ivan holds no curator / committee role in Гран-при МУБК, весна"}), FORBIDDEN],
    )
    def delete(self, request, slug: str):
        tournament = self._tournament(request, slug)
        params = request.query_params
        kind = _kind(params.get("role"))
        if kind == Role.CAPTAIN:
            team = grants.team_of(tournament, params.get("team"))
            captain = team.captain
            if captain is None:
                raise NotFound(_("%(team)s has no captain") % {"team": team.name})
            grants.set_captain(request.user, team, None)
            return Response(captain_item(team, captain))
        if kind == Role.FAMILY_HEAD:
            family = grants.family_of(tournament, params.get("family"))
            head = family.head
            if head is None:
                raise NotFound(_("%(family)s has no head") % {"family": family.name})
            grants.set_family_head(request.user, tournament, family, None)
            return Response(head_item(family, head))
        row = grants.revoke_role(request.user, tournament, params.get("user"), kind)
        return Response(role_item(row, tournament))


urlpatterns = [
    re_path(rf"^tournaments/(?P<slug>{SLUG_PATTERN})/roles/$", RolesView.as_view(), name="api-tournament-roles"),
]
