"""The family league's rulebook (``/t/SLUG/rules/``): FL-0..FL-21 in a sentence or two each, from the spec."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from formats.rulebook import FAIR_PLAY, Rule, Rulebook, Section

RULEBOOK = Rulebook(
    scoring=(
        _("Only played and technical games score. Each seat earns points by the points table: a civilian 1.5 "
          "for a civilians' win and 0.5 for a draw, a mafia player 4 for a mafia win and 3 for a draw, the "
          "maniac 0.5, 0.4, then 0.3 per kill plus 2 for a win or 1.5 for a draw (FL-13)."),
        _("A team's points in a stage are the sum of its seats' points minus its penalty points; a player who "
          "timed out gets points × days played / game days (FL-14)."),
        _("The final is decided by the points of the final alone (FL-12)."),
    ),
    tie_breaks=(
        _("Points."),
        _("Mafia points: points earned on the mafia side (FL-11, FL-12)."),
        _("In the qualifying stage, at the cut: the curator's decision (FL-11); in the final the teams share "
          "the place and the next place is skipped (FL-12)."),
    ),
    sections=(
        Section(_("Entry"), (
            Rule("FL-0", _("The tournament records its organizers, curator, judges, room and dates; only a "
                           "stage's judges or the curator record penalties, technical results and replays.")),
            Rule("FL-1", _("Any official family may enter; only the family's head submits the application.")),
            Rule("FL-2", _("The tournament runs only with at least 9 families; registration closes at the set "
                           "deadline.")),
            Rule("FL-3", _("Players are checked 24 hours before the first game: a member of the family, not "
                           "banned, not on a blacklist with a player of another participating family.")),
            Rule("FL-4", _("A player who leaves the family is removed from the team at once, but keeps prizes "
                           "and cups after at least one game.")),
            Rule("FL-5", _("A family member plays at most 15 games in the tournament.")),
            Rule("FL-6", _("The fake-passport service is forbidden, and the fair-play rules FP-1..FP-12 "
                           "apply.")),
        )),
        Section(_("Stages and schedule"), (
            Rule("FL-7", _("Two stages, qualifying groups and a final; with fewer than 16 teams there is no "
                           "qualifying stage and the final has 30 games.")),
            Rule("FL-8", _("Qualifying: teams are drawn into groups (2 by default, at most 21 teams each); each "
                           "group plays 20 games.")),
            Rule("FL-9", _("Games are on weekdays at 19:00 and 22:00 in the tournament's time zone; the "
                           "calendar and its iCalendar feed are published.")),
            Rule("FL-10", _("A game that did not start because of no-shows is not held: each absent team gets a "
                            "no-show penalty and the game is replayed.")),
            Rule("FL-11", _("The top 5 teams of each group go to the final; equal points at the cut are "
                            "separated by mafia points, then by the curator.")),
            Rule("FL-12", _("The final is decided by its own points, then mafia points; teams still equal share "
                            "the place (1, 2, 2, 4).")),
        )),
        Section(_("Points"), (
            Rule("FL-13", _("Only played and technical games score; a team's points are its seats' points "
                            "minus its penalty points.")),
            Rule("FL-14", _("A player who timed out gets points × days played / game days; with no game day, "
                            "nothing.")),
        )),
        Section(_("Penalties and fines"), (
            Rule("FL-15", _("Violations the portal detects when a game is entered; the seat earns nothing and "
                            "the game is kept.")),
            Rule("FL-15.1", _("No-show: a team of the game's group has no player in a started game.")),
            Rule("FL-15.2", _("Ineligible player: over the game limit, disqualified, off the roster, with a "
                              "fake passport or otherwise not entitled to play.")),
            Rule("FL-15.3", _("Two players: a team already has a scoring player in this game.")),
            Rule("FL-15.4", _("Foreign player: a player of a team that does not take part in this game.")),
            Rule("FL-16", _("Every penalty of FL-15 costs the team 0.1 points in the stage where it "
                            "happened.")),
            Rule("FL-17", _("Every violation also carries a fine of 25 + 25 × n mf, n its number for the same "
                            "team (50, 75, ...).")),
            Rule("FL-18", _("The judge rules on fair-play violations case by case and sets the point penalty; "
                            "its fine follows FL-17.")),
        )),
        Section(_("Appeals"), (
            Rule("FL-19", _("A judge's decision or a detected violation may be appealed within 72 hours of its "
                            "publication; the curator decides and the table is recomputed.")),
        )),
        Section(_("Prizes"), (
            Rule("FL-20", _("Places 1 to 5 of the final get 6000, 4500, 3500, 2000 and 1000 mf; places 1 to 3 "
                            "also gold, silver and bronze cups for every member who played.")),
            Rule("FL-21", _("Teams sharing a place split the prizes of the places they occupy (by default); "
                            "amounts are rounded down to whole mf.")),
        )),
        FAIR_PLAY,
    ),
)
