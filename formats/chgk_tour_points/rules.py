"""The ChGK season's rulebook (``/t/SLUG/rules/``): CHGK-1..CHGK-23 in a sentence or two each, from the spec."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from formats.rulebook import Rule, Rulebook, Section

RULEBOOK = Rulebook(
    scoring=(
        _("In each tour the playing teams are ordered by correct answers; teams with at least one get points "
          "by their place: 10, 8, 6, 5, 4, 3, 2, 1 with 8 to 12 teams in the season, 15, 12, 10, 8, 7, 6, 5, "
          "4, 3, 2, 1 with 13 or more (CHGK-12)."),
        _("Teams with equal answers share their places and each gets the average of their points (CHGK-13). "
          "A team's season points are the sum of its tour points."),
    ),
    tie_breaks=(
        _("Total points (CHGK-15)."),
        _("Total correct answers over all tours."),
        _("Total rating sum of the questions answered (CHGK-14)."),
        _("Teams still equal share the place."),
    ),
    sections=(
        Section(_("Teams and rosters"), (
            Rule("CHGK-1", _("A team has a captain, who plays for it, and at most 10 players; its application "
                             "names every player and the team's league.")),
            Rule("CHGK-2", _("The first application lists at least 4 players; a team may add at most 6 more "
                             "during the season.")),
            Rule("CHGK-3", _("A player may be replaced only before playing any tour; a replacement is not an "
                             "addition.")),
            Rule("CHGK-4", _("At most 6 players at the table at once; the tour's line-up lists everyone who "
                             "played any part of it.")),
            Rule("CHGK-5", _("The committee may limit the number of teams: host-university teams first, then "
                             "the others, in order of application.")),
            Rule("CHGK-6", _("A team may withdraw at any time (CHGK-17).")),
        )),
        Section(_("Tours"), (
            Rule("CHGK-7", _("Each team hosts exactly one tour and does not play in it; the hosting order is "
                             "drawn by lot.")),
            Rule("CHGK-8", _("A tour has 8 questions, each with its answer, accepted answers, comment, sources "
                             "and authors.")),
            Rule("CHGK-9", _("The number of host-written questions depends on the host's league; no co-author "
                             "may play for another team or sit on the appeal jury.")),
            Rule("CHGK-10", _("A team that does not come to a tour it should play counts 0 correct answers in "
                              "it.")),
            Rule("CHGK-11", _("Checklists of the committee and the host, each item with a due date; overdue "
                              "items are flagged.")),
        )),
        Section(_("Tour points"), (
            Rule("CHGK-12", _("Teams get points by their place in the tour; teams with no correct answer get "
                              "0.")),
            Rule("CHGK-13", _("Teams with equal answers share their places and the average of their points, "
                              "kept exact.")),
            Rule("CHGK-14", _("A question's rating is the number of teams that played the tour and did not "
                              "answer it, plus one; a team's rating sum adds the ratings of its answers.")),
        )),
        Section(_("Season standings"), (
            Rule("CHGK-15", _("Teams are ranked by points, then correct answers, then rating sum; teams still "
                              "equal share the place.")),
            Rule("CHGK-16", _("The table is preliminary until every appeal of every tour played has a "
                              "verdict.")),
        )),
        Section(_("Withdrawal"), (
            Rule("CHGK-17", _("A team that withdraws before playing half the tours leaves the table and its "
                              "answers are removed; otherwise it stays, marked withdrawn.")),
        )),
        Section(_("Appeals"), (
            Rule("CHGK-18", _("Appeals on a tour played on day D are accepted until 23:59 of D+3; the jury "
                              "gives its verdicts by 23:59 of D+9.")),
            Rule("CHGK-19", _("Two kinds of appeal: removal of an incorrect question, and acceptance of a "
                              "different answer.")),
            Rule("CHGK-20", _("Only the captain files an appeal, or a player the captain delegated for a "
                              "stated period.")),
            Rule("CHGK-21", _("A removed question counts for nobody and is shown as X in the answer masks.")),
            Rule("CHGK-22", _("An accepted answer credits the appealing team and every team the jury names "
                              "with the same answer.")),
            Rule("CHGK-23", _("Verdicts with their reasons are public once given; the table is recomputed "
                              "after each.")),
        )),
    ),
)
