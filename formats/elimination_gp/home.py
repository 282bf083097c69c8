"""What the Grand Prix home adds to the shared pages (``formats.registry``)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, pgettext_lazy

from accounts.permissions import can_record_decisions
from formats.elimination_gp import services
from formats.elimination_gp.models import StageRegistration
from formats.elimination_gp.rules import RULEBOOK
from formats.elimination_gp.services import roster_of, settings_of
from formats.registry import DashboardItem as Item
from formats.registry import FormatHome, Link
from formats.registry import StageRegistration as PerStageRegistration
from rulesets.elimination_gp import KEY
from rulesets.elimination_gp.finalists import FINAL_STAGE
from scoring.models import StandingsSnapshot
from tournaments.labels import stage_label
from tournaments.models import Tournament


def tournament_links(tournament: Any, user: Any) -> list[Link]:
    """The series' finalists (GP-16..GP-19), each stage's registration (GP-3..GP-6) and, for the committee, each
    stage's committee decisions (GP-18)."""
    links = [Link(_("Finalists"), reverse("gp-finalists", args=[tournament.slug]))]
    for stage in tournament.stages.all():
        links.append(Link(_("Registration: %(stage)s") % {"stage": stage_label(stage.key)},
                          reverse("gp-registration", args=[tournament.slug, stage.key])))
        if can_record_decisions(user, tournament, stage.key):  # the stage's judges and the curator (its view's)
            links.append(Link(_("Committee: %(stage)s") % {"stage": stage_label(stage.key)}, committee_url(tournament, stage.key),
                              signed_in=True))
    return links


def committee_url(tournament: Any, stage_key: str) -> str:
    return reverse("gp-committee", args=[tournament.slug, stage_key])


def decision_url(tournament: Any, kind: str, stage_key: str | None) -> str | None:
    """GP-18, GP-19: the stage's committee page (the qualify or tie-break form), or the final's for a series pick."""
    stage_key = stage_key or FINAL_STAGE
    if not tournament.stages.filter(key=stage_key).exists():
        return None
    anchor = "#tie-break" if kind == "tie_break" else "#qualify"
    return committee_url(tournament, stage_key) + anchor


def _stage_registrations(player) -> list[dict]:
    """Grand Prix stages the player registered for, with their place: invited, by the queue, or waiting (GP-5)."""
    mine = list(StageRegistration.objects.filter(player=player, withdrawn_at__isnull=True).select_related(
        "stage__tournament").order_by("-registered_at")[:20])
    rows = []
    for registration in mine:
        stage = registration.stage
        everyone = list(StageRegistration.objects.filter(stage=stage).select_related("player").order_by(
            "registered_at", "id"))
        roster = roster_of(everyone, settings_of(stage.tournament)["players_per_stage"]).roster
        nick = player.nick
        waiting = roster.waiting.index(nick) + 1 if nick in roster.waiting else None
        rows.append({"stage": stage, "tournament": stage.tournament, "invited": nick in roster.invited,
                     "in_roster": nick in roster.players, "waiting": waiting})
    return rows


def player_items(player: Any, entries: list, now: dt.datetime, viewer_zone: str) -> dict[str, Any]:
    return {"stage_registrations": _stage_registrations(player)}


def prize_rule(stage_key: str) -> str:
    """GP-22 for the final's prizes, GP-22a for a qualifying stage's."""
    return "GP-22" if stage_key == FINAL_STAGE else "GP-22a"


def _still_in(tournament: Tournament, stage_key: str) -> dict[str, Any] | None:
    """Who is still in, per team, as the stage's stored snapshot says (GP-9, GP-10)."""
    snapshot = StandingsSnapshot.objects.filter(tournament=tournament, stage_key=stage_key).only(
        "export", "details", "facts_version").first()
    if snapshot is None:
        return {"teams": [], "pending": True}
    details = (snapshot.details or {}).get("details") or {}
    out = {e.get("player") for e in details.get("eliminations") or []}
    teams_out = details.get("teams_out") or {}
    by_team: dict[str, list[str]] = {}
    for row in (snapshot.export or {}).get("players") or []:
        by_team.setdefault(row.get("team") or "", [])
        if row.get("player") not in out:
            by_team[row.get("team") or ""].append(row.get("player"))
    for team in (snapshot.export or {}).get("teams") or []:
        by_team.setdefault(team.get("team"), [])
    return {
        "teams": [{"team": team, "players": sorted(players), "out_after": teams_out.get(team)}
                  for team, players in sorted(by_team.items()) if team],
        "pending": snapshot.facts_version < tournament.facts_version,
    }


def game_entry_context(tournament: Any, stage_key: str) -> dict[str, Any]:
    return {"still_in": _still_in(tournament, stage_key)}


def next_steps(tournament: Any, now: dt.datetime) -> list[Item]:
    """GP-2: each stage with no game yet whose registration is not open: publish its conditions and open it."""
    stages = tournament.stages.filter(games__isnull=True, conditions__registration_opened_at__isnull=True)
    return [Item("next", f"open:{stage.key}", _("Publish the conditions of %(stage)s and open its registration")
                 % {"stage": stage_label(stage.key)}, reverse("gp-registration", args=[tournament.slug, stage.key]),
                 rule="GP-2")
            for stage in stages.distinct().order_by("order")]


STAGE_NAMES = {
    "qualifying-1": pgettext_lazy("stage", "qualifying stage 1"),
    "qualifying-2": pgettext_lazy("stage", "qualifying stage 2"),
    "qualifying-3": pgettext_lazy("stage", "qualifying stage 3"),
    "qualifying-4": pgettext_lazy("stage", "qualifying stage 4"),
    "qualifying-5": pgettext_lazy("stage", "qualifying stage 5"),
    "final": pgettext_lazy("stage", "final"),
}

# GP-2: a stage's registration opens once its conditions are published; GP-5: it closes on its own, before the
# tournament's deadline, and its invitations close with it.
STAGE_REGISTRATION = PerStageRegistration(open=services.open_registration, close=services.close_registration,
                                          is_open=services.registration_open, url_name="gp-registration",
                                          rule="GP-2, GP-5")

HOME = FormatHome(key=KEY, urls="formats.elimination_gp.urls", tournament_links=tournament_links,
                  label=gettext_lazy("Elimination Grand Prix (Mafia)"), stage_names=STAGE_NAMES,
                  stage_registration=STAGE_REGISTRATION,
                  examples={"tiebreaks": "elimination_gp `remaining_players`"},
                  player_items=player_items, prize_rule=prize_rule,
                  game_entry_context=game_entry_context, rulebook=RULEBOOK, decision_url=decision_url,
                  next_steps=next_steps)
