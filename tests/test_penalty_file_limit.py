"""A season's penalty file is judged and written at once (``tournaments.commands.record_penalties``): thousands
of lines take seconds, not minutes; a file past ``MAX_LINES`` is refused at once, in words; a refusal names the
line of each problem and writes nothing."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.utils.translation import override

from accounts.models import Role
from rulesets.errors import Invalid
from tests import test_season_imports as cup
from tests.test_season_imports import ALL_LINES, GAMES, PENALTIES, user_with
from tournaments import commands
from tournaments.models import AuditEntry, Penalty
from tournaments.sources.penalty_file import MAX_LINES, parse_penalties
from tournaments.sources.penalty_import import import_penalties


def test_a_penalty_file_over_the_line_limit_is_refused_naming_the_limit():
    line = "3628679:Clan:nick:штраф:-1"
    with override("en"):
        lines, problems = parse_penalties("\n".join([line] * (MAX_LINES + 1)))
    assert lines == [] and len(problems) == 1
    assert str(MAX_LINES) in problems[0].message and "split" in problems[0].message


def test_a_penalty_file_at_the_limit_is_read():
    line = "3624161:Vendetta:fedanet:штраф:0.8"  # the 2016 family cup's first line
    lines, problems = parse_penalties("\n".join([line] * MAX_LINES) + "\n\n")
    assert problems == [] and len(lines) == MAX_LINES


@pytest.fixture
def season():
    """The 2016 family cup with its rosters, its 45 games scheduled and the four logs of its first stage."""
    tournament = cup.with_rosters(cup.empty_cup(games=45, not_held=(28,)))
    cup.import_log_batch(user_with(tournament, Role.ORGANIZER), tournament, tournament.stages.get(),
                         cup.logs(*cup.CUP_LOGS), stage_list=GAMES, lines=list(ALL_LINES), game_problems=None)
    return tournament


def distinct_lines(count: int) -> str:
    game, clan, nick, reason, _points = PENALTIES.splitlines()[0].split(":")
    return "\n".join(f"{game}:{clan}:{nick}:{reason}:{(i + 1) / 1000:.3f}" for i in range(count))


@pytest.mark.django_db
def test_fl_18_a_files_judges_penalties_are_judged_together_and_inserted_in_batches(
        season, django_assert_max_num_queries):
    judge = user_with(season, Role.JUDGE)
    with django_assert_max_num_queries(60):
        import_penalties(judge, season, distinct_lines(200), stage_list=GAMES, lines=ALL_LINES, game_problems=None)
    assert Penalty.objects.filter(tournament=season).count() == 200
    assert set(Penalty.objects.values_list("order", flat=True)) == set(range(200))
    entries = AuditEntry.objects.filter(tournament=season, model="tournaments.Penalty", action="create")
    assert entries.count() == 200 and {entry.user for entry in entries[:50]} == {judge}
    assert Penalty.objects.get(order=199).points == Decimal("0.200")


@pytest.mark.django_db
def test_fl_18_a_refused_penalty_of_a_batch_is_named_by_its_item_and_nothing_is_written(season):
    judge = user_with(season, Role.JUDGE)
    good = {"stage": "qualifying", "game": 5, "team": "Vendetta", "kind": "fair_play", "points": "0.5"}
    with pytest.raises(Invalid) as refused:
        commands.record_penalties(judge, season, [good, {**good, "points": "0"}, {**good, "points": "100000"}])
    assert [problem.path for problem in refused.value.problems] == ["[1].points", "[2].points"]
    assert not Penalty.objects.exists()
    other = user_with(season, Role.PLAYER)
    with pytest.raises(commands.NotAllowed):
        commands.record_penalties(other, season, [good])
