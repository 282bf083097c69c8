"""A penalty file: the judges' penalties and the no-shows of a tournament. Pure: text in, lines out.

The format of ``tests/data/real/mafiaonline/family_cup_2016/penalties.txt``: one penalty a line,
``game:clan:nick:reason:points`` — the site's game number, the clan, the player (blank for a team's penalty),
the reason and the points deducted (``0.8``; a decimal comma is read too). The reason says what it is, as the
family league's rules read it:

- ``неявка`` (a no-show): the clan had nobody in the game (FL-10, FL-15.1), which costs FL-16's 0.1;
- anything else (``штраф``, "аннулирование за партию (нарушение регламента)", ...): a judge's penalty of the
  points the line gives, which takes the place of FL-16's 0.1 (FL-18); the reason is kept as its text.

A line not of the format, a game or points that are not numbers, non-positive points, or a no-show that names
a player are refused with the line they are on.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal, InvalidOperation

from django.utils.translation import gettext as _

from rulesets.errors import Problem
from tournaments.sources.files import at_line, nul_problem
from tournaments.sources.stage_list import MAX_GAME

NO_SHOW_WORDS = {"неявка", "no-show", "no_show", "no show"}
JUDGE = "judge"  # a judge's penalty (FL-18)
NO_SHOW = "no_show"  # a team's no-show (FL-10, FL-15.1)
MAX_POINTS = Decimal("99999.999")


@dataclass(frozen=True)
class PenaltyLine:
    line: int  # 1-based
    game: int  # the site's game number
    team: str
    player: str | None
    kind: str  # JUDGE or NO_SHOW
    reason: str
    points: Decimal


def _points(raw: str) -> Decimal | None:
    try:
        value = Decimal(raw.strip().replace(",", "."))
    except InvalidOperation:
        return None
    return value if value.is_finite() else None


MAX_LINES = 20_000  # the judges' penalties of a file are judged together (commands.record_penalties); a season has hundreds


def parse_penalties(text: str) -> tuple[list[PenaltyLine], list[Problem]]:
    """The lines of a penalty file and its problems (none: it can be imported). An empty file has no penalties."""
    if not isinstance(text, str):
        return [], [Problem("", _("the file is empty"))]
    if nul_problem(text) is not None:
        return [], [nul_problem(text)]
    rows = text.splitlines()
    filled = sum(1 for raw in rows if raw.strip())
    if filled > MAX_LINES:
        return [], [Problem("", _("the file has %(count)s lines; a penalty file holds at most %(limit)s: split it") % {
            "count": filled, "limit": MAX_LINES})]
    lines: list[PenaltyLine] = []
    problems: list[Problem] = []
    for number, raw in enumerate(rows, 1):
        if not raw.strip():
            continue
        cells = raw.split(":")
        if len(cells) < 5:
            problems.append(at_line(number, _("a line is “game:clan:nick:reason:points”, not %(text)r") % {
                "text": raw.strip()[:80]}))
            continue
        game_text, team, nick, points_text = cells[0].strip(), cells[1].strip(), cells[2].strip(), cells[-1]
        reason = ":".join(cells[3:-1]).strip()
        bad = len(problems)
        if not (game_text.isascii() and game_text.isdigit()) or not 0 < int(game_text) <= MAX_GAME:
            problems.append(at_line(number, _("%(value)r is not a game number") % {"value": game_text[:40]}))
        if not team:
            problems.append(at_line(number, _("the line names no clan")))
        points = _points(points_text)
        if points is None:
            problems.append(at_line(number, _("%(value)r is not a number of points") % {
                "value": points_text.strip()[:40]}))
        elif not 0 < points <= MAX_POINTS or points != points.quantize(Decimal("0.001")):
            problems.append(at_line(number, _("penalty points are more than 0 and at most %(max)s, with at most 3 "
                                              "decimals, not %(value)s") % {"max": MAX_POINTS, "value": points}))
        kind = NO_SHOW if reason.lower() in NO_SHOW_WORDS else JUDGE
        if kind == NO_SHOW and nick:
            problems.append(at_line(number, _("a no-show is the clan's: the line names no player, not %(nick)s")
                                    % {"nick": nick}))
        if not reason:
            problems.append(at_line(number, _("the line gives no reason (штраф, неявка, ...)")))
        if len(problems) > bad or points is None:
            continue
        lines.append(PenaltyLine(number, int(game_text), team, nick or None, kind, reason, points))
    return lines, problems
