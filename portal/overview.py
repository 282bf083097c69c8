"""What "my tournaments" shows a logged-in player, in a fixed number of queries.

Teams the player is on (their registrations), games and tours to come with
times in the viewer's zone (``User.timezone``) and the tournament's zone
beside, appeals the user filed with the verdict's due date, and the awards of
the latest stored standings (read from the snapshots, never recomputed).
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db.models import Q

from accounts.permissions import player_of
from accounts.zones import zone_of
from appeals.services import verdict_due
from formats import registry
from rulesets import facts as F
from scoring.models import StandingsSnapshot
from tournaments.models import Appeal, Game, GameStatus, RosterEntry

LIMIT = 50


@dataclass
class Moment:
    """A moment shown in the viewer's zone, with the tournament's zone beside when it differs."""

    at: dt.datetime
    viewer_zone: str
    tournament_zone: str

    @property
    def local(self) -> dt.datetime:
        return self.at.astimezone(zone_of(self.viewer_zone))

    @property
    def at_tournament(self) -> dt.datetime | None:
        if self.tournament_zone == self.viewer_zone:
            return None
        return self.at.astimezone(zone_of(self.tournament_zone))


def overview(user, now: dt.datetime) -> dict:
    viewer_zone = getattr(user, "timezone", "") or "Europe/Moscow"
    player = player_of(user)
    data = {"player": player, "viewer_zone": viewer_zone, "entries": [], "games": [], "tours": [], "awards": []}
    if player is not None:
        entries = list(RosterEntry.objects.filter(player=player).select_related(
            "team__tournament", "team__stage", "team__captain").order_by(
            "-team__tournament__starts_on", "team__tournament__name", "team__stage__order")[:100])
        data["entries"] = entries
        data["games"] = _games(player, entries, now, viewer_zone)
        data["awards"] = _awards(player, entries)
        data["stage_registrations"] = []
        for home in registry.homes():
            data.update(home.player_items(player, entries, now, viewer_zone))
    data["appeals"] = _appeals(user, viewer_zone)
    return data


def _games(player, entries, now, viewer_zone) -> list[dict]:
    """Scheduled games to come of the player's current teams: seated, in their group, or in their stage."""
    current = [e for e in entries if e.left_at is None]
    if not current:
        return []
    team_ids = {e.team_id for e in current}
    whole_tournament = {e.team.tournament_id for e in current if e.team.stage_id is None}
    stages = {e.team.stage_id for e in current if e.team.stage_id is not None}
    mine = (Q(seats__player=player) | Q(group__teams__in=team_ids)
            | Q(group__isnull=True, stage__tournament__in=whole_tournament) | Q(group__isnull=True, stage__in=stages))
    games = Game.objects.filter(mine, stage__tournament__in={e.team.tournament_id for e in current},
                                status=GameStatus.SCHEDULED, scheduled_at__gte=now).distinct().select_related(
        "stage__tournament").order_by("scheduled_at", "pk")[:LIMIT]
    return [{"game": game, "tournament": game.stage.tournament,
             "when": Moment(game.scheduled_at, viewer_zone, game.stage.tournament.timezone)} for game in games]


def _due(appeal: Appeal) -> dt.datetime | None:
    """The verdict's due date from the facts a deadline needs (the tour and the zone), not the whole tournament."""
    tour = appeal.tour
    if tour is None:
        return None
    tournament = appeal.tournament
    facts = F.TournamentFacts(
        slug=tournament.slug, name=tournament.name, ruleset=tournament.ruleset, timezone=tournament.timezone,
        settings=dict(tournament.settings), rules=dict(tournament.rules),
        stages=(F.Stage(key=tour.stage.key, tours=(F.Tour(number=tour.number, host=None, questions=tour.questions,
                                                          played_on=tour.played_on),)),))
    return verdict_due(tournament, appeal, facts)


def _appeals(user, viewer_zone) -> list[dict]:
    appeals = Appeal.objects.filter(filed_by=user).select_related("tournament", "tour__stage", "decision").order_by(
        "-filed_at")[:LIMIT]
    out = []
    for appeal in appeals:
        due = _due(appeal) if appeal.verdict is None else None
        out.append({"appeal": appeal, "due": Moment(due, viewer_zone, appeal.tournament.timezone) if due else None,
                    "filed": Moment(appeal.filed_at, viewer_zone, appeal.tournament.timezone)})
    return out


def _awards(player, entries) -> list[dict]:
    teams: dict[int, set[str]] = {}
    tournaments = {}
    for entry in entries:
        teams.setdefault(entry.team.tournament_id, set()).add(entry.team.name)
        tournaments[entry.team.tournament_id] = entry.team.tournament
    out = []
    for tid, export in StandingsSnapshot.objects.filter(tournament_id__in=list(tournaments), stage_key="").values_list(
            "tournament_id", "export"):
        for award in (export or {}).get("awards") or []:
            if award.get("player") == player.nick or (award.get("player") is None and award.get("team") in teams[tid]):
                out.append({"tournament": tournaments[tid], "award": award, "final": bool(export.get("final"))})
    return out
