"""The Swiss league's format home: its name, its stage's name and its rules on the pages."""

from __future__ import annotations

from django.utils.translation import gettext_lazy

from formats.registry import FormatHome
from formats.rulebook import Rule, Rulebook, Section
from tests.fifth_format.ruleset import KEY, STAGE

RULEBOOK = Rulebook(
    scoring=(gettext_lazy("A seat on the winning side scores 1 point, a seat of a drawn game 0.5 (SW-1)."),),
    tie_breaks=(gettext_lazy("Points, then wins; teams equal on both share the place (SW-2)."),),
    sections=(Section(gettext_lazy("Swiss league (SW-1..SW-3)"), (
        Rule("SW-1", gettext_lazy("A seat on the winning side scores 1 point; a drawn game 0.5 a seat.")),
        Rule("SW-2", gettext_lazy("Teams rank by points, then by wins.")),
        Rule("SW-3", gettext_lazy("A decision may be appealed to the curator within 24 hours.")))),),
)

HOME = FormatHome(key=KEY, label=gettext_lazy("Swiss Mafia league"), stage_names={STAGE: gettext_lazy("Swiss rounds")},
                  rulebook=RULEBOOK, examples={"tiebreaks": "swiss_mafia `wins`"})
