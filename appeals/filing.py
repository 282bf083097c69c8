"""Where and whether a reader may file an appeal now: the team they file for and a tour's window.

Read from the stored facts of one tour (never the whole tournament), so a tour page can offer "appeal" on each
question without loading the season:

- CHGK-20: a team's appeals are filed by its captain, or by a player the captain or the organizer delegated
  for a period that includes the moment (``FilingDelegation``); elsewhere by a player of the team's roster;
- CHGK-18: the window is open from 00:00 of D (``appeal_policy.appeal_opens``, ``roles.md``) at any instant
  before 00:00 of D+4 in the tournament's zone, the ruleset's one comparison (``appeal_policy.appeal_in_time``),
  and its last moment is ``appeal_policy.appeal_deadline``.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.utils import timezone

import rulesets
from accounts.permissions import player_of, refuse_to_file
from rulesets import facts as F
from tournaments.models import Team, Tour, Tournament


@dataclass(frozen=True)
class TourWindow:
    """A tour's appeal window at ``now``: open or not, its first and last moments (``not_yet``: it opens later),
    and who the reader files for."""

    open: bool
    deadline: dt.datetime | None
    team: Team | None
    can_file: bool
    opens: dt.datetime | None = None
    not_yet: bool = False


def filing_team(user, tournament: Tournament, now: dt.datetime | None = None) -> Team | None:
    """The team ``user`` files appeals for: the one they captain or, CHGK-20, the one that delegated filing to
    them for a period including ``now``; where any participant files (GP-23, FL-19, CB-17), their team of the
    latest stage."""
    player = player_of(user)
    if player is None:
        return None
    teams = Team.objects.filter(tournament=tournament)
    if rulesets.get(tournament.ruleset).appeal_policy.captain_files:
        moment = now or timezone.now()
        return (teams.filter(captain=player).order_by("pk").first()
                or teams.filter(delegations__player=player, delegations__starts_at__lte=moment,
                                delegations__ends_at__gt=moment).order_by("pk").first())
    return teams.filter(roster__player=player).order_by("-stage__order").first()


def _tour_facts(tournament: Tournament, tour: Tour) -> F.TournamentFacts:
    return F.TournamentFacts(
        slug=tournament.slug, name=tournament.name, ruleset=tournament.ruleset, timezone=tournament.timezone,
        settings=dict(tournament.settings), rules=dict(tournament.rules),
        stages=(F.Stage(key=tour.stage.key, tours=(F.Tour(number=tour.number, host=None, questions=tour.questions,
                                                          played_on=tour.played_on),)),))


def tour_window(user, tournament: Tournament, tour: Tour, now: dt.datetime | None = None) -> TourWindow:
    """Whether appeals on ``tour``'s questions may be filed at ``now`` (CHGK-18) and whether ``user`` may file
    them (CHGK-20). Closed for a tour not played yet and where appeals are not on questions."""
    now = now or timezone.now()
    policy = rulesets.get(tournament.ruleset).appeal_policy
    if not policy.question_kinds or tour.played_on is None:
        return TourWindow(open=False, deadline=None, team=None, can_file=False)
    facts = _tour_facts(tournament, tour)
    probe = F.Appeal(kind=policy.question_kinds[0], filed_at=now, stage=tour.stage.key, tour=tour.number,
                     question=1)
    deadline = policy.appeal_deadline(facts, probe)
    opens = policy.appeal_opens(facts, probe) if policy.appeal_opens is not None else None
    is_open = (opens is None or now >= opens) and (  # roles.md: no appeal before 00:00 of D
        policy.appeal_in_time(facts, probe) if policy.appeal_in_time is not None
        else deadline is None or now <= deadline)
    team = filing_team(user, tournament, now) if is_open else None
    can_file = bool(is_open and team is not None and refuse_to_file(user, tournament, team, now=now) is None)
    return TourWindow(open=is_open, deadline=deadline, team=team, can_file=can_file, opens=opens,
                      not_yet=opens is not None and now < opens)
