"""The class_balanced rulebook (``/t/SLUG/rules/``): CB-1..CB-17 in a sentence or two each, from the spec."""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from formats.rulebook import FAIR_PLAY, Rule, Rulebook, Section

RULEBOOK = Rulebook(
    scoring=(
        _("Each seat earns points for its team by the stage's table: a civilian 1.5 for a civilians' win and "
          "0.5 for a draw; a mafia player 4 (4.5 in stage 2) for a mafia win and 3 (3.5 in stage 2) for a draw; "
          "the maniac 0.5, 0.4, then 0.3 per kill, plus 2 for a win or 1.5 for a draw (CB-8, CB-9)."),
        _("A timed-out seat earns nothing (CB-10). Points are never reset between stages (CB-1); penalties are "
          "deducted in their stage."),
    ),
    tie_breaks=(
        _("Total points over the stages played (CB-11)."),
        _("During stage 1: mafia wins, then mafia draws."),
        _("From stage 2 on: mafia wins, mafia wins in 13-player games, mafia draws, mafia draws in 13-player "
          "games, maniac wins, points in 13-player games."),
        _("Teams still equal: a public seeded draw, shown beside the table (CB-11)."),
    ),
    sections=(
        Section(_("Stages"), (
            Rule("CB-1", _("Three stages of one week each, with 14, 13 and 10 teams; points are never reset "
                           "between stages.")),
            Rule("CB-2", _("A stage's table is published at least a day before it starts; results are refused "
                           "for a stage whose table is not published.")),
            Rule("CB-3", _("A seat's class comes from the character's stat sum: C 150..250, B 251..350, "
                           "A 351..450.")),
            Rule("CB-4", _("In stage 2 a day turn lasts 3 minutes instead of 2.")),
        )),
        Section(_("Schedules"), (
            Rule("CB-5", _("Stage 1: 48 games of 7 teams; each team plays 24 and every pair of teams meets 11 "
                           "or 12 times.")),
            Rule("CB-6", _("Stage 2: all 13 teams play every game with 4 players of class C, 5 of B and 4 of "
                           "A, as the class table says.")),
            Rule("CB-7", _("Stages 1 and 3: over the stage a team plays as many games in each class (8/8/8); "
                           "a team that ends unbalanced is disqualified.")),
        )),
        Section(_("Points"), (
            Rule("CB-8", _("In stages 2 and 3 the civilians' draw points are paid only if a civilian took part "
                           "in the last day or night.")),
            Rule("CB-9", _("Maniac kill points: 0.5, 0.4, then 0.3 for each further kill; stage 1 has no "
                           "maniac.")),
            Rule("CB-10", _("A timed-out seat earns nothing and counts in no tie-break figure, but the game "
                            "counts as played.")),
        )),
        Section(_("Standings and eliminations"), (
            Rule("CB-11", _("Teams are ranked by total points, then by the tie-break chain of the stage, then "
                            "by a public seeded draw.")),
            Rule("CB-12", _("After stage 1 the last team is out, after stage 2 the last 3; teams out keep "
                            "their rows below the teams still in.")),
            Rule("CB-13", _("Disqualified teams are ranked after all others and get no prize.")),
            Rule("CB-14", _("Best player: the highest average points per game among players with at least 5 "
                            "games of 13 players, 4 of 10 and 4 of 7.")),
        )),
        Section(_("Judge's decisions"), (
            Rule("CB-15", _("Only the judge awards a technical result, on FP-4 or a technical failure.")),
            Rule("CB-16", _("Only the judge orders a replay, on FP-1, FP-2, FP-3 or a technical failure of the "
                            "site; the game is annulled.")),
            Rule("CB-17", _("A judge's decision may be appealed within 48 hours of its publication; a changed "
                            "decision recomputes the table.")),
        )),
        FAIR_PLAY,
    ),
)
