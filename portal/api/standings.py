"""``GET /api/v1/tournaments/SLUG/standings/``: the stored standings, never computed on a request.

The export document (``tournament-portal/standings/1``) is read from the
tournament's ``StandingsSnapshot`` (``?stage=KEY``: the table after that
stage; without it the latest). When the snapshot is missing or older than the
tournament's facts, a recompute is enqueued and what exists is served
(``X-Standings-Outdated: 1``), or 503 with ``Retry-After`` when nothing does.

Responses carry an ``ETag`` and ``Last-Modified`` from the snapshot and
answer ``If-None-Match`` / ``If-Modified-Since`` with 304. The rendered body
is cached by (tournament, stage, facts version, format) in Django's cache, so
a repeated request costs one small query; a snapshot due for a re-check (an
appeal window closing) is cached only until then.

In front of Django's cache each process keeps the last ``LOCAL_ENTRIES``
rendered bodies (``local_cache``, a bounded LRU) under the same key: a
repeated request of an unchanged table then costs the one query for the
tournament row (which holds the facts version, so an entry can never be served
for a newer version) and no round trip to Redis for the body. An entry keeps
the re-check moment as its expiry. This is a cache of derived data, never the
only copy: any number of processes may run, each with its own.
"""

from __future__ import annotations

import calendar
import hashlib
import json
import logging
import math
from typing import Any

from django.conf import settings
from django.core.cache import cache
from django.http import HttpResponse, HttpResponseNotModified, JsonResponse
from django.utils import timezone
from django.utils.cache import get_conditional_response, quote_etag
from django.utils.http import http_date
from django.utils.translation import get_language
from django.utils.translation import gettext as _
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.renderers import BaseRenderer, JSONRenderer
from rest_framework.views import APIView

from formats import registry
from portal.api.common import DetailSerializer, WellFormedInput
from portal.labels import sheet_words
from scoring.exports import standings_csv, standings_xlsx
from scoring.models import StandingsSnapshot
from tournaments import changes
from tournaments.lru import LRU
from tournaments.models import Stage, Tournament

log = logging.getLogger(__name__)

CACHE_PREFIX = "api-standings"
CACHE_SECONDS = 24 * 3600
LOCAL_ENTRIES = 256  # rendered bodies each process keeps (a few KB each for JSON)
LOCAL_MAX_BODY = 1024 * 1024  # larger bodies (a huge XLSX) are left to Django's cache only
RETRY_AFTER_SECONDS = 5
XLSX_TYPE = "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet"
CONTENT_TYPES = {"json": "application/json", "csv": "text/csv; charset=utf-8", "xlsx": XLSX_TYPE}


class CSVRenderer(BaseRenderer):
    media_type = "text/csv"
    format = "csv"
    charset = "utf-8"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data if isinstance(data, bytes) else json.dumps(data).encode()


class XLSXRenderer(BaseRenderer):
    media_type = XLSX_TYPE
    format = "xlsx"
    charset = None
    render_style = "binary"

    def render(self, data, accepted_media_type=None, renderer_context=None):
        return data if isinstance(data, bytes) else json.dumps(data).encode()


class LocalCache(LRU[str, dict[str, Any]]):
    """The rendered bodies of this process (``tournaments.lru.LRU``); a body over ``LOCAL_MAX_BODY`` is not kept."""

    def __init__(self, max_entries: int = LOCAL_ENTRIES) -> None:
        super().__init__(max_entries)

    def set(self, key: str, entry: dict[str, Any], expires: float = math.inf) -> None:
        if len(entry.get("body") or b"") <= LOCAL_MAX_BODY:
            super().set(key, entry, expires)


local_cache = LocalCache()


def entry_expires(entry: dict[str, Any], now: float) -> float:
    """Until when an entry may be served: its re-check moment, at most ``CACHE_SECONDS`` from now."""
    limit = now + CACHE_SECONDS
    return limit if entry["recheck_at"] is None else min(limit, entry["recheck_at"])


def cache_key(tournament: Tournament, stage_key: str, fmt: str) -> str:
    language = (get_language() or settings.LANGUAGE_CODE) if fmt != "json" else "-"
    created = int(tournament.created_at.timestamp()) if tournament.created_at else 0
    return (f"{CACHE_PREFIX}:{tournament.slug}:{tournament.pk}:{created}:{stage_key}:{tournament.facts_version}:"
            f"{tournament.ruleset_version}:{fmt}:{language}")


def render_body(export: dict[str, Any], fmt: str) -> bytes:
    if fmt == "csv":
        return standings_csv(export, sheet_words(bool(export.get("final"))))
    if fmt == "xlsx":
        return standings_xlsx(export, sheet_words(bool(export.get("final"))))
    return json.dumps(export, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def build_entry(tournament: Tournament, snap: StandingsSnapshot, fmt: str) -> dict[str, Any]:
    """Everything a response needs, small enough to cache."""
    language = (get_language() or "") if fmt != "json" else ""
    tag = hashlib.sha256(
        f"{tournament.pk}:{snap.stage_key}:{snap.facts_version}:{snap.computed_at.isoformat()}:{fmt}:{language}"
        .encode()).hexdigest()[:32]
    return {
        "body": render_body(snap.export, fmt),
        "etag": quote_etag(tag),
        "last_modified": calendar.timegm(snap.computed_at.utctimetuple()),
        "facts_version": snap.facts_version,
        "stale": snap.stale,
        "recheck_at": snap.recheck_at.timestamp() if snap.recheck_at else None,
        "final": bool(snap.export.get("final")) if isinstance(snap.export, dict) else False,
    }


def _enqueue(tournament_id: int) -> None:
    try:
        changes.enqueue_recompute(tournament_id)
    except Exception:  # noqa: BLE001 - a failed recompute keeps the old snapshot (marked stale); serve it
        log.exception("recompute of tournament %s failed", tournament_id)


class StandingsTeamSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="competition ranking (1, 2, 2, 4); within its group where there are groups")
    team = serializers.CharField()
    points = serializers.FloatField(help_text="rounded to 2 decimals")
    status = serializers.CharField(help_text="active, advanced, eliminated, withdrawn, disqualified or winner")
    tiebreaks = serializers.DictField(child=serializers.FloatField(), help_text=(
        "by ruleset: " + "; ".join(registry.examples("tiebreaks"))))
    group = serializers.CharField(required=False, help_text="the team's group, in a stage with groups")


class StandingsPlayerSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    player = serializers.CharField()
    team = serializers.CharField(allow_null=True)
    points = serializers.FloatField()
    games = serializers.IntegerField()
    status = serializers.CharField(help_text="active, eliminated, qualified (for the final) or winner")


class StandingsAwardSerializer(serializers.Serializer):
    place = serializers.IntegerField()
    team = serializers.CharField(allow_null=True)
    player = serializers.CharField(allow_null=True)
    prize = serializers.FloatField()
    currency = serializers.CharField()
    items = serializers.ListField(child=serializers.CharField())


class StandingsSerializer(serializers.Serializer):
    """The export document ``tournament-portal/standings/1`` (spec/interchange.md), the same for every format."""

    format = serializers.CharField(help_text="`tournament-portal/standings/1`")
    tournament = serializers.CharField(help_text="the tournament's slug")
    ruleset = serializers.CharField()
    stage = serializers.CharField(help_text="the stage the table stands after")
    final = serializers.BooleanField(help_text="nothing remains to be played, appealed or decided")
    teams = StandingsTeamSerializer(many=True)
    players = StandingsPlayerSerializer(many=True, required=False,
                                        help_text="where the ruleset ranks or qualifies players")
    awards = StandingsAwardSerializer(many=True, required=False, help_text="where the ruleset gives prizes")
    seed = serializers.CharField(allow_null=True, help_text="the public seed of a random draw that ordered the table")
    best_player = serializers.ListField(child=serializers.CharField(), required=False,
                                        help_text="the best players' nicks, where the ruleset names them (CB-14)")


class StandingsView(WellFormedInput, APIView):
    permission_classes = [AllowAny]
    renderer_classes = [JSONRenderer, CSVRenderer, XLSXRenderer]

    @extend_schema(
        operation_id="tournaments_standings",
        summary="A tournament's standings (export document)",
        description=(
            "The export document `tournament-portal/standings/1` (spec/interchange.md) as stored by the last "
            "recompute: never computed on the request. `?stage=KEY` gives the table as it stood after that stage "
            "(404 for a stage the tournament does not have). `?format=csv` / `?format=xlsx` give the same table "
            "for spreadsheets (teams, then players where the ruleset ranks them). The response has an `ETag` "
            "and `Last-Modified`; send `If-None-Match` to get 304 when nothing changed. While a recompute is "
            "pending the previous table is served with `X-Standings-Outdated: 1`, or 503 with `Retry-After` when "
            "there is none yet."
        ),
        parameters=[
            OpenApiParameter("stage", str, description="stage key (default: the latest stage)"),
            OpenApiParameter("format", str, enum=["json", "csv", "xlsx"], description="the file format"),
        ],
        responses={
            (200, "application/json"): OpenApiResponse(StandingsSerializer, description="the export document"),
            (200, "text/csv"): OpenApiResponse(OpenApiTypes.BINARY, description="teams, then players"),
            (200, XLSX_TYPE): OpenApiResponse(OpenApiTypes.BINARY, description="sheets of teams and players"),
            304: OpenApiResponse(description="not modified since the ETag sent"),
            (404, "application/json"): OpenApiResponse(DetailSerializer, description="no such tournament or stage"),
            (503, "application/json"): OpenApiResponse(DetailSerializer, description="not computed yet; retry after "
                                                                                      "Retry-After"),
        },
        examples=[OpenApiExample("Standings", response_only=True, media_type="application/json", value=registry.example("standings"))],
    )
    def get(self, request, slug: str):
        fmt = getattr(request.accepted_renderer, "format", "json") or "json"
        stage_key = request.query_params.get("stage") or ""
        tournament = Tournament.objects.filter(slug=slug).only(
            "id", "slug", "name", "timezone", "facts_version", "ruleset_version", "created_at").first()
        if tournament is None:
            return JsonResponse({"detail": _("No tournament %(slug)r.") % {"slug": slug}}, status=404)
        key = cache_key(tournament, stage_key, fmt)
        now = timezone.now().timestamp()
        entry = local_cache.get(key, now)
        if entry is None:
            entry = cache.get(key)
            if entry is not None and entry["recheck_at"] is not None and entry["recheck_at"] <= now:
                entry = None
            if entry is not None:
                local_cache.set(key, entry, entry_expires(entry, now))
        outdated = False
        if entry is None:
            if stage_key and not Stage.objects.filter(tournament_id=tournament.pk, key=stage_key).exists():
                keys = list(Stage.objects.filter(tournament_id=tournament.pk).order_by("order").values_list(
                    "key", flat=True))
                return JsonResponse({"detail": _("Tournament %(slug)s has no stage %(key)r (stages: %(keys)s).") % {
                    "slug": slug, "key": stage_key, "keys": ", ".join(keys) or "—"}}, status=404)
            snap = self._snapshot(tournament, stage_key)
            if snap is None:
                response = JsonResponse({"detail": _("The standings are being computed; retry in a few seconds.")},
                                        status=503)
                response["Retry-After"] = str(RETRY_AFTER_SECONDS)
                return response
            entry = build_entry(tournament, snap, fmt)
            outdated = snap.facts_version < tournament.facts_version
            if not outdated and not snap.stale:
                cache.set(key, entry, self._cache_seconds(snap))
                local_cache.set(key, entry, entry_expires(entry, now))
        not_modified = get_conditional_response(request, etag=entry["etag"], last_modified=entry["last_modified"])
        if isinstance(not_modified, HttpResponseNotModified):
            not_modified["ETag"] = entry["etag"]
            not_modified["Last-Modified"] = http_date(entry["last_modified"])
            return not_modified
        if not_modified is not None:  # 412 for an unmet If-Match
            return not_modified
        response = HttpResponse(entry["body"], content_type=CONTENT_TYPES[fmt])
        response["ETag"] = entry["etag"]
        response["Last-Modified"] = http_date(entry["last_modified"])
        response["Cache-Control"] = "no-cache"
        response["Vary"] = "Accept, Accept-Language"
        response["X-Facts-Version"] = str(entry["facts_version"])
        if outdated or entry["stale"]:
            response["X-Standings-Outdated"] = "1"
        if fmt != "json":
            name = f"{tournament.slug}-{stage_key or 'latest'}.{fmt}"
            response["Content-Disposition"] = f'attachment; filename="{name}"'
        return response

    def _snapshot(self, tournament: Tournament, stage_key: str) -> StandingsSnapshot | None:
        """The stored table; a missing or older one enqueues a recompute (eager in development)."""
        query = StandingsSnapshot.objects.filter(tournament_id=tournament.pk, stage_key=stage_key)
        snap = query.first()
        if snap is None or snap.facts_version < tournament.facts_version:
            _enqueue(tournament.pk)
            if settings.CELERY_TASK_ALWAYS_EAGER:
                snap = query.first() or snap
        return snap

    @staticmethod
    def _cache_seconds(snap: StandingsSnapshot) -> int:
        if snap.recheck_at is None:
            return CACHE_SECONDS
        return max(1, min(CACHE_SECONDS, int((snap.recheck_at - timezone.now()).total_seconds())))
