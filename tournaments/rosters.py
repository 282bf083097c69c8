"""One roster a player: a player is on one team's roster of a tournament (of a stage, where teams are per stage).

The interchange parser refuses a document that puts a player on two rosters (``rulesets.interchange``); the
portal's roster edits (the admin's roster inline, a ChGK captain's additions, a family's application) ask
``roster_conflict`` before they add an entry. A ChGK legionnaire who helps another team in one tour is recorded
in that tour's line-up (CHGK-4), not on a second roster. Teams drawn per stage (the elimination Grand Prix,
GP-8) are judged within their stage: the same player may play several stages of a series.
"""

from __future__ import annotations

from django.utils.translation import gettext

from tournaments.models import Team


def roster_conflict(team: Team, player_id: int | None) -> Team | None:
    """The other team of ``team``'s tournament (and stage, or none) whose roster holds the player, if any."""
    if player_id is None or team.tournament_id is None:
        return None
    others = Team.objects.filter(tournament_id=team.tournament_id, stage_id=team.stage_id,
                                 roster__player_id=player_id)
    if team.pk is not None:
        others = others.exclude(pk=team.pk)
    return others.order_by("order", "pk").first()


def roster_conflict_message(nick: str, other: Team) -> str:
    return gettext("%(player)s is already on the roster of %(team)s: a player is on one team's roster of a "
                   "tournament (a ChGK legionnaire is recorded in a tour's line-up, CHGK-4).") % {
        "player": nick, "team": other.name}
