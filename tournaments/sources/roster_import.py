"""A roster file into a tournament's teams, or a family league's families.

``read_rosters`` is the preview (the dry run of the command, the API and the page): the file's teams and players
(``tournaments.sources.roster_file``), each team new or already there, each nick a player the portal knows
(reused: one ``Player`` a nick) or a new one, and every refusal the write would meet, read from the database in
a bounded number of queries: another roster of the tournament holds the nick, the player left this roster, sits
on the appeal jury (CHGK-11), or the tournament records them in another family. ``import_rosters`` writes it
through the commands (``tournaments.commands.add_team``, ``add_to_roster``, ``set_captain``): validated and
audited as one team or player typed in, in one transaction, recomputed once. A refusal names the line and the
nick; nothing of a refused file is written.

``families``: the clans are families (a family league's teams are its families, FL-1): each team is linked to
the family of its name (created when the portal has none) and listed among the tournament's families, and the
tournament records each player as a member of that family (``Participant.family``, which FL-3 reads besides the
site's memberships). The family heads' own membership lists are not changed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from django.db import transaction
from django.utils.translation import gettext as _

from accounts.models import Family, Player, Role, TournamentRole
from accounts.permissions import has_role
from accounts.zones import moment_text
from rulesets.errors import Invalid, NotAllowed, Problem, Refused
from tournaments import commands
from tournaments.messages import render
from tournaments.models import Participant, RosterEntry, Team, Tournament
from tournaments.rosters import roster_conflict_message
from tournaments.sources.files import at_line
from tournaments.sources.roster_file import RosterTeam, parse_rosters

NEW = "new"
KNOWN = "known"  # a player the portal knows, reused
ON_ROSTER = "on_roster"  # already on this team's roster


@dataclass
class RosterPlan:
    """What a roster file does to a tournament: its teams with their players, and the refusals."""

    kind: str
    families: bool
    teams: list[dict[str, Any]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    written: bool = False

    def count(self, key: str, value: str) -> int:
        return sum(1 for team in self.teams for row in team["players"] if row[key] == value)

    @property
    def summary(self) -> dict[str, int]:
        return {"teams": len(self.teams), "new_teams": sum(1 for t in self.teams if t["team"] == NEW),
                "players": sum(len(t["players"]) for t in self.teams), "new_players": self.count("player", NEW),
                "known_players": self.count("player", KNOWN), "already_on_roster": self.count("roster", ON_ROSTER)}

    def as_json(self) -> dict[str, Any]:
        return {"format": self.kind, "families": self.families, "written": self.written, **self.summary,
                "rosters": self.teams,
                "problems": [{"path": p.path, "message": render(p.message)} for p in self.problems]}


def _plan_team(team: RosterTeam, existing: Team | None, families: bool) -> dict[str, Any]:
    family = None
    if families:
        family = existing.family.name if existing is not None and existing.family_id else team.name
    return {"name": team.name, "line": team.line, "team": KNOWN if existing is not None else NEW,
            "family": family, "captain": team.captain, "players": []}


def read_rosters(tournament: Tournament, text: str, *, kind: str = "auto", name: str = "",
                 families: bool = False) -> RosterPlan:
    """The preview of the roster file ``text`` (``name``: its file name, ``.csv`` tells the format)."""
    teams, problems = parse_rosters(text, kind, name)
    plan = RosterPlan(kind=kind, families=families, problems=problems)
    if not teams:
        return plan
    nicks = [row.nick for team in teams for row in team.players]
    players = {p.nick: p for p in Player.objects.filter(nick__in=nicks)}
    existing = {t.name: t for t in Team.objects.filter(tournament=tournament, stage__isnull=True).select_related(
        "family")}
    by_id = {t.pk: t for t in existing.values()}
    entries: dict[str, list[tuple[int, Any]]] = {}
    for nick, team_id, left_at in RosterEntry.objects.filter(
            team__tournament=tournament, team__stage__isnull=True, player__nick__in=nicks).values_list(
            "player__nick", "team_id", "left_at"):
        entries.setdefault(nick, []).append((team_id, left_at))
    jury = set(TournamentRole.objects.filter(tournament=tournament, role=Role.JURY).values_list("user_id", flat=True))
    recorded: dict[str, str] = {}
    named: set[str] = set()
    if families:
        recorded = dict(Participant.objects.filter(tournament=tournament, player__nick__in=nicks,
                                                   family__isnull=False).values_list("player__nick", "family__name"))
        named = {f.name for f in Family.objects.filter(name__in=[t.name for t in teams])}
    for team in teams:
        row_team = existing.get(team.name)
        planned = _plan_team(team, row_team, families)
        if families:
            planned["family_state"] = KNOWN if planned["family"] in named or (
                row_team is not None and row_team.family_id) else NEW
            if row_team is not None and row_team.family_id and row_team.family.name != team.name:
                plan.problems.append(at_line(team.line, _("%(team)s is the team of the family %(family)s") % {
                    "team": team.name, "family": row_team.family.name}))
        for row in team.players:
            player = players.get(row.nick)
            roster = NEW
            for team_id, left_at in entries.get(row.nick, []):
                if row_team is not None and team_id == row_team.pk:
                    if left_at is None:
                        roster = ON_ROSTER
                    else:
                        plan.problems.append(at_line(row.line, _("%(nick)s left the roster of %(team)s at %(time)s")
                                                     % {"nick": row.nick, "team": team.name,
                                                        "time": moment_text(left_at, tournament.timezone)}))
                else:
                    plan.problems.append(at_line(row.line, roster_conflict_message(row.nick, by_id[team_id])))
            if player is not None and player.user_id is not None and player.user_id in jury:
                plan.problems.append(at_line(row.line, _("%(nick)s sits on the appeal jury of this tournament and "
                                                         "cannot play in it (CHGK-11)") % {"nick": row.nick}))
            family = recorded.get(row.nick)
            if families and family is not None and family != planned["family"]:
                plan.problems.append(at_line(row.line, _(
                    "%(nick)s is recorded in this tournament as a member of the family %(family)s, not of "
                    "%(team)s") % {"nick": row.nick, "family": family, "team": planned["family"]}))
            planned["players"].append({"nick": row.nick, "line": row.line, "player": KNOWN if player else NEW,
                                       "roster": roster, "captain": row.captain})
        plan.teams.append(planned)
    return plan


def require_organizer(user, tournament: Tournament) -> None:
    """Rosters are the organizers' (``spec/roles.md``)."""
    if not has_role(user, tournament, Role.ORGANIZER):
        raise NotAllowed(Problem("", _("Only the tournament's organizers add teams and players to its rosters.")))


def _at(line: int, nick: str | None, refused: Refused) -> list[Problem]:
    """A command's refusal at the file's line, naming the nick."""
    return [at_line(line, f"{nick}: {render(p.message)}" if nick else render(p.message)) for p in refused.located()]


def import_rosters(user, tournament: Tournament, text: str, *, kind: str = "auto", name: str = "",
                   families: bool = False) -> RosterPlan:
    """Write the roster file (see the module); ``Invalid`` with every problem, nothing written, when refused."""
    require_organizer(user, tournament)
    plan = read_rosters(tournament, text, kind=kind, name=name, families=families)
    if plan.problems:
        raise Invalid(plan.problems)
    if not plan.teams:
        raise Invalid(Problem("", _("the file names no teams")))
    with transaction.atomic():
        for planned in plan.teams:
            try:
                team = commands.add_team(user, tournament, planned["name"],
                                         family_name=planned["family"] if families else None)
            except Refused as refused:
                if isinstance(refused, NotAllowed):
                    raise
                raise Invalid(_at(planned["line"], None, refused)) from refused
            for row in planned["players"]:
                try:
                    commands.add_to_roster(user, tournament, None, team.name, row["nick"], family_member=families)
                except Refused as refused:
                    if isinstance(refused, NotAllowed):
                        raise
                    raise Invalid(_at(row["line"], row["nick"], refused)) from refused
            if planned["captain"]:
                commands.set_captain(user, team, planned["captain"])
    plan.written = True
    return plan
