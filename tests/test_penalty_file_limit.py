"""Issue 48, item 6 (found by the fuzz test): a penalty file of 10,000 lines is refused at once, in words, instead
of judging every line with the tournament's facts for minutes; a tour number past what the database stores is a
refusal, not an OverflowError."""

from __future__ import annotations

from django.utils.translation import override

from tournaments.sources.penalty_file import MAX_LINES, parse_penalties


def test_issue_48_a_penalty_file_over_the_line_limit_is_refused_naming_the_limit():
    line = "3628679:Clan:nick:штраф:-1"
    with override("en"):
        lines, problems = parse_penalties("\n".join([line] * (MAX_LINES + 1)))
    assert lines == [] and len(problems) == 1
    assert str(MAX_LINES) in problems[0].message and "split" in problems[0].message


def test_issue_48_a_penalty_file_at_the_limit_is_read():
    line = "3624161:Vendetta:fedanet:штраф:0.8"  # the 2016 family cup's first line
    lines, problems = parse_penalties("\n".join([line] * MAX_LINES) + "\n\n")
    assert problems == [] and len(lines) == MAX_LINES
