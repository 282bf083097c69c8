"""A tournament's rulebook: the scoring, the tie-break order and a short text for every rule code its pages cite.

Each format home writes its ruleset's texts (``formats/<key>/rules.py``, translatable ``gettext_lazy``
strings, a sentence or two per rule from the spec) and hands them to the portal as ``FormatHome.rulebook``;
the portal shows them at ``/t/SLUG/rules/`` with one anchor per code (``#FL-15.3``) and links every code a
page shows to its anchor (``portal.rulebook.link_codes``). The fair-play catalogue FP-1..FP-12, which two
Mafia rulesets share (CB-15..CB-17, FL-6, FL-18), is written once here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from django.utils.translation import gettext_lazy as _

# A rule code as the rulesets write it: CB-7, GP-15a, FL-15.3, CHGK-18, FP-11.
CODE = re.compile(r"\b(?:CHGK|CB|GP|FL|FP)-\d+[a-z]?(?:\.\d+)?\b")


@dataclass(frozen=True)
class Rule:
    """One rule: its code and what it says, in a sentence or two (translatable)."""

    code: str
    text: str


@dataclass(frozen=True)
class Section:
    title: str
    rules: tuple[Rule, ...]


@dataclass(frozen=True)
class Rulebook:
    """What ``/t/SLUG/rules/`` explains: how points are scored, the tie-break order, the rules by section."""

    scoring: tuple[str, ...]
    tie_breaks: tuple[str, ...]
    sections: tuple[Section, ...]
    codes: frozenset[str] = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "codes", frozenset(r.code for s in self.sections for r in s.rules))

    def anchor(self, code: str) -> str | None:
        """The anchor a code links to: itself, or the rule it is part of (GP-15.3 -> GP-15, GP-15a -> GP-15)."""
        if code in self.codes:
            return code
        parent = re.sub(r"(?:[a-z]|\.\d+)$", "", code)
        while parent != code:
            if parent in self.codes:
                return parent
            code, parent = parent, re.sub(r"(?:[a-z]|\.\d+)$", "", parent)
        return None


FAIR_PLAY = Section(_("Fair play (FP-1..FP-12)"), (
    Rule("FP-1", _("Gaining an advantage by means outside the game, such as passing the character to someone "
                   "else or using bugs.")),
    Rule("FP-2", _("Telling one's own or a partner's role in the common chat when it is not a reasonable "
                   "tactic.")),
    Rule("FP-3", _("Passing valuable game information outside the common chat or in an invisible private "
                   "message (the mafia may talk among themselves).")),
    Rule("FP-4", _("Unmotivated negligent actions or inaction against the game's logic that caused the side's "
                   "loss, a draw or an OMON.")),
    Rule("FP-5", _("The same negligence without causing a loss or a draw.")),
    Rule("FP-6", _("A violation of FP-3 or FP-5 recognised by the site's ethics service.")),
    Rule("FP-7", _("No participation and no sign of activity while in the game.")),
    Rule("FP-8", _("Contacting players of the game outside the common chat, or anyone else, about the running "
                   "game.")),
    Rule("FP-9", _("Oaths, words of honour, bets, threats, extortion.")),
    Rule("FP-10", _("Proving one's role or state by means outside the game.")),
    Rule("FP-11", _("Insulting a player or a team; obscene language, veiled or slang.")),
    Rule("FP-12", _("Unsporting behaviour: a deliberate no-show, jailing for reasons outside the game.")),
))
