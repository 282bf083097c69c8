"""The Grand Prix's rulebook (``/t/SLUG/rules/``): GP-1..GP-23 in a sentence or two each, from the spec."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from formats.rulebook import Rule, Rulebook, Section

RULEBOOK = Rulebook(
    scoring=(
        _("Players earn points per game from the points table: 1.5 to each civilian for a civilians' win, 4 "
          "to each mafia player for a mafia win, 0.5 and 3 for a draw, nothing for a loss (GP-14)."),
        _("A team's points are the sum of its players' points; players whose side loses cleanly are out of "
          "the stage (GP-11)."),
    ),
    tie_breaks=(
        _("Remaining players, more first (GP-15)."),
        _("Team points."),
        _("The points of the team's worst player, then the second-worst, up to its second-best."),
        _("Teams equal on all of these share the rank."),
    ),
    sections=(
        Section(_("Series and stages"), (
            Rule("GP-1", _("A series has 5 qualifying stages and a final, each with exactly 54 players.")),
            Rule("GP-2", _("The host family publishes the commission, game times, prize fund and extra "
                           "indicator before registration opens.")),
        )),
        Section(_("Registration"), (
            Rule("GP-3", _("Any player may register except level 0 players, disqualified players and "
                           "finalists of the series.")),
            Rule("GP-4", _("The host family may invite up to 10 eligible players.")),
            Rule("GP-5", _("The roster is the invited players plus the first players of the queue; the rest "
                           "wait in order of registration.")),
            Rule("GP-6", _("A player who withdraws before the draw is replaced; after the draw nobody is.")),
        )),
        Section(_("Baskets, draw, teams"), (
            Rule("GP-7", _("The 54 players are split into 3 baskets of 18, by level by default.")),
            Rule("GP-8", _("The committee draws 9 teams of 6, two from each basket, with a public seed.")),
        )),
        Section(_("Tours and eliminations"), (
            Rule("GP-9", _("In each tour every team still in sends exactly one remaining player to the tour's "
                           "game.")),
            Rule("GP-10", _("A team that sent nobody loses one remaining player, drawn at random with a public "
                            "seed.")),
            Rule("GP-11", _("After a clean win every player of the losing side is eliminated.")),
            Rule("GP-12", _("After an OMON nobody is eliminated, except from tour 21 on: then its civilians "
                            "are.")),
            Rule("GP-13", _("A team with no remaining players is out; when 3 teams are out after a tour, the "
                            "stage is over.")),
        )),
        Section(_("Points and standings"), (
            Rule("GP-14", _("Players earn points per game from the points table; a team's points are its "
                            "players' sum.")),
            Rule("GP-15", _("Teams are ranked by remaining players, team points, then their players' points "
                            "from the worst up; the team ranked first wins the stage.")),
            Rule("GP-15a", _("The stage's player table ranks every player by points, with games, status and "
                             "the extra indicator.")),
        )),
        Section(_("Who goes to the final"), (
            Rule("GP-16", _("The 6 players of the winning team qualify for the final.")),
            Rule("GP-17", _("The extra indicator, picked by the host family: its 4 best players not yet "
                            "qualified also qualify; ties across the cut leave vacancies.")),
            Rule("GP-18", _("A stage sends up to 10 players to the final; places left are vacancies the "
                            "committee fills.")),
            Rule("GP-19", _("The 50 qualified players are joined by 4 chosen by the committee.")),
        )),
        Section(_("The final"), (
            Rule("GP-20", _("The final is played by the same rules.")),
            Rule("GP-21", _("Places 1 to 6 go to the players of the final's winning team by points, then mafia "
                            "wins, commissar wins and qualifying average.")),
            Rule("GP-22", _("Places 1 to 6 get 300, 200, 100, 50, 30 and 20 mf; places 1 to 3 also a medal.")),
            Rule("GP-22a", _("A qualifying stage's prizes are the host family's, paid by the stage "
                             "commission.")),
        )),
        Section(_("Decisions and appeals"), (
            Rule("GP-23", _("A commission decision may be appealed to the committee within 72 hours of the "
                            "moment it was taken.")),
        )),
    ),
)
