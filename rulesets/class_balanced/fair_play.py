"""The fair-play catalogue FP-1..FP-12 and the grounds of the judge's decisions (CB-15, CB-16).

Every judge's decision cites one of these codes or ``technical`` (a technical
failure of the site or of a player).
"""

from __future__ import annotations

from rulesets.messages import text as _

TECHNICAL = "technical"

FAIR_PLAY: dict[str, str] = {
    "FP-1": "gaining an advantage by means outside the game (passing the character to someone else, using bugs)",
    "FP-2": "telling one's own or a partner's role in the common chat when it is not a reasonable tactic",
    "FP-3": "passing valuable game information outside the common chat or in an invisible private message",
    "FP-4": "unmotivated negligent actions or inaction that caused the side's loss or a draw, or caused an OMON",
    "FP-5": "unmotivated negligent actions or inaction that did not cause a loss or a draw",
    "FP-6": "a violation of FP-3 or FP-5 recognised by the site's ethics service",
    "FP-7": "no participation and no sign of activity while in the game",
    "FP-8": "contacting players of the game outside the common chat, or anyone else about the running game",
    "FP-9": "oaths, words of honour, bets, threats, extortion",
    "FP-10": "proving one's role or state by means outside the game",
    "FP-11": "insulting a player or team, obscene language, veiled or slang",
    "FP-12": "unsporting behaviour: deliberate no-show, jailing for reasons outside the game",
}

DECISION_CODES: tuple[str, ...] = (*FAIR_PLAY, TECHNICAL)
# interchange (Decisions): a decision may also cite the rule itself, CB-15 for a technical result, CB-16 for a replay.
RULE_CODES: tuple[str, ...] = ("CB-15", "CB-16")
KNOWN_CODES: tuple[str, ...] = (*DECISION_CODES, *RULE_CODES)
KNOWN_CODES_TEXT = _("FP-1..FP-12, technical, CB-15 or CB-16")
# A committee's order of tied rows (CB-11) is no judge's ruling: its code, if any, is not judged; every other
# decision must cite one of KNOWN_CODES.
UNCODED_KINDS: tuple[str, ...] = ("tie_break",)

# CB-15: a technical result ("mathematical victory") on FP-4 or a technical failure of the site or a player.
TECHNICAL_RESULT_GROUNDS: tuple[str, ...] = ("FP-4", TECHNICAL)
# CB-16: a replay on FP-1, FP-2, FP-3 or a technical failure of the site.
REPLAY_GROUNDS: tuple[str, ...] = ("FP-1", "FP-2", "FP-3", TECHNICAL)

GROUNDS_BY_KIND: dict[str, tuple[tuple[str, ...], str]] = {
    "technical_result": (TECHNICAL_RESULT_GROUNDS, "CB-15"),
    "replay": (REPLAY_GROUNDS, "CB-16"),
}
