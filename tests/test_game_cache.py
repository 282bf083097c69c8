"""The loader's game cache (tournaments.game_cache): only changed games are read again, and the facts never differ.

The goal: "a new game adds to running totals without reloading the whole tournament".
"""

from __future__ import annotations

import random

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts.models import Family, Player
from scoring.models import StandingsSnapshot
from scoring.services import current_export, recompute
from tests.conftest import example
from tournaments import game_cache
from tournaments.importer import import_document
from tournaments.loader import load_facts
from tournaments.models import (
    Decision,
    Game,
    GameStatus,
    Participant,
    Penalty,
    Seat,
    Stage,
    Team,
    Tournament,
    Withdrawal,
)
from tournaments.synthetic import mafia_league

pytestmark = pytest.mark.django_db


def fresh(tournament: Tournament):
    """The facts read from scratch, bypassing the cache."""
    tournament.refresh_from_db()
    game_cache.forget(tournament.pk)
    facts = load_facts(tournament)
    game_cache.forget(tournament.pk)
    return facts


def cached(tournament: Tournament):
    tournament.refresh_from_db()
    return load_facts(tournament)


def seat_reads(queries) -> list[str]:
    return [q["sql"] for q in queries if 'FROM "tournaments_seat"' in q["sql"]]


def test_a_changed_seat_reads_only_its_game_again():
    tournament = import_document(mafia_league(30, seed=3))
    cached(tournament)
    seat = Seat.objects.filter(game__stage__tournament=tournament, game__number=7).order_by("order").first()
    seat.role = "don" if seat.role != "don" else "civilian"
    seat.save()
    with CaptureQueriesContext(connection) as ctx:
        facts = cached(tournament)
    reads = seat_reads(ctx.captured_queries)
    assert len(reads) == 1 and (" IN (" in reads[0] or " = ANY(" in reads[0])  # by game id (tournaments/lookups.py)
    assert facts == fresh(tournament)
    assert facts.stages[0].game(7).seats[0].role == seat.role


def test_unchanged_games_read_no_seat_at_all():
    tournament = import_document(mafia_league(12, seed=4))
    cached(tournament)
    with CaptureQueriesContext(connection) as ctx:
        facts = cached(tournament)
    assert seat_reads(ctx.captured_queries) == []
    assert facts == fresh(tournament)


@pytest.mark.django_db(transaction=True)
def test_a_new_game_is_added_and_the_table_equals_a_full_recompute():
    """FL-13: the new game's seats count; the stored table equals the one computed from scratch."""
    tournament = import_document(mafia_league(20, seed=5))
    stage = Stage.objects.get(tournament=tournament)
    teams = {t.name: t for t in Team.objects.filter(tournament=tournament)}
    game = Game.objects.create(stage=stage, number=21, status=GameStatus.PLAYED, outcome="mafia", game_days=3,
                               group=stage.groups.first(), group_label=stage.groups.first().name)
    for order, name in enumerate(sorted(teams)):
        player = Player.objects.get(nick=f"{name}-p1")
        Seat.objects.create(game=game, order=order, player=player, team=teams[name],
                            role="mafia" if order < 3 else "civilian", days_played=3)
    snapshot = StandingsSnapshot.objects.get(tournament=tournament, stage_key="")
    tournament.refresh_from_db()
    assert snapshot.facts_version == tournament.facts_version
    assert snapshot.export == current_export(tournament)
    game_cache.forget()
    assert recompute(tournament.pk, force=True)
    assert StandingsSnapshot.objects.get(tournament=tournament, stage_key="").export == snapshot.export


def test_a_renamed_team_reloads_every_game():
    tournament = import_document(mafia_league(10, seed=6))
    cached(tournament)
    team = Team.objects.get(tournament=tournament, name="Fam03")
    team.name = "Renamed"
    team.save()
    facts = cached(tournament)
    assert facts == fresh(tournament)
    assert {s.team for g in facts.stages[0].games for s in g.seats} >= {"Renamed"}


def test_a_renamed_player_changes_every_seat_of_theirs():
    tournament = import_document(mafia_league(10, seed=7))
    cached(tournament)
    before = Tournament.objects.get(pk=tournament.pk).facts_version
    player = Player.objects.get(nick="Fam02-p1")
    player.nick = "Renamed-p1"
    player.save()
    facts = cached(tournament)
    assert Tournament.objects.get(pk=tournament.pk).facts_version > before
    assert facts == fresh(tournament)
    assert not any(s.player == "Fam02-p1" for g in facts.stages[0].games for s in g.seats)


def test_a_deleted_game_is_gone():
    tournament = import_document(mafia_league(10, seed=8))
    cached(tournament)
    Game.objects.get(stage__tournament=tournament, number=4).delete()
    facts = cached(tournament)
    assert facts == fresh(tournament)
    assert facts.stages[0].game(4) is None


def test_absent_teams_and_statuses_of_a_game_are_read_again():
    tournament = import_document(example("family_league"))
    cached(tournament)
    game = Game.objects.filter(stage__tournament=tournament).order_by("-number").first()
    game.status = GameStatus.NOT_HELD
    game.outcome = None
    game.save()
    game.seats.all().delete()
    game.absent_teams.add(Team.objects.filter(tournament=tournament).first())
    facts = cached(tournament)
    assert facts == fresh(tournament)


def test_random_edits_through_the_orm_never_make_the_cache_differ():
    """Thirty random edits of seats, games and teams: after each, the cached facts equal a fresh read."""
    rng = random.Random(11)
    tournament = import_document(mafia_league(25, seed=9))
    stage = Stage.objects.get(tournament=tournament)
    for _step in range(30):
        cached(tournament)
        games = list(Game.objects.filter(stage=stage))
        game = rng.choice(games)
        action = rng.choice(["role", "kills", "outcome", "delete_seat", "absent", "new_game", "rename_team",
                             "penalty", "renumber", "level", "withdraw", "delete_game"])
        seats = list(game.seats.order_by("order"))
        if action == "role" and seats:
            seat = rng.choice(seats)
            seat.role = rng.choice(["civilian", "mafia", "don", "doctor", "commissar"])
            seat.save()
        elif action == "kills" and seats:
            seat = rng.choice(seats)
            seat.role, seat.maniac_kills = "maniac", rng.randint(0, 4)
            seat.save()
        elif action == "outcome":
            game.outcome = rng.choice(["civilians", "mafia", "maniac", "draw"])
            game.save()
        elif action == "delete_seat" and seats:
            rng.choice(seats).delete()
        elif action == "absent":
            game.absent_teams.add(rng.choice(list(Team.objects.filter(tournament=tournament))))
        elif action == "new_game":
            Game.objects.create(stage=stage, number=max(g.number for g in games) + 1, status=GameStatus.SCHEDULED,
                                group=game.group, group_label=game.group_label)
        elif action == "rename_team":
            team = rng.choice(list(Team.objects.filter(tournament=tournament)))
            team.name = f"{team.name}x"
            team.save()
        elif action == "penalty":
            Penalty.objects.create(tournament=tournament, stage=stage, game=game, points=1, kind="fair_play",
                                   team=rng.choice(list(Team.objects.filter(tournament=tournament))))
        elif action == "renumber":  # the penalties naming the game name its new number
            game.number = max(g.number for g in games) + 1
            game.save()
        elif action == "level":
            participant = rng.choice(list(Participant.objects.filter(tournament=tournament)))
            participant.level = rng.randint(1, 5)
            participant.save()
        elif action == "withdraw":
            Withdrawal.objects.update_or_create(
                tournament=tournament, team=rng.choice(list(Team.objects.filter(tournament=tournament))),
                defaults={"at": game.scheduled_at or tournament.created_at})
        elif action == "delete_game":
            game.delete()
        assert cached(tournament) == fresh(tournament), action


def game_header_reads(queries) -> list[str]:
    return [q["sql"] for q in queries if 'FROM "tournaments_game"' in q["sql"] and '"revision"' in q["sql"]]


def test_a_saved_result_reads_the_headers_of_the_changed_games_only():
    """A changed game's revision is the tournament's new facts version, so the loader asks for
    the games above the cached revision (and counts the games) instead of reading every game's header."""
    tournament = import_document(mafia_league(30, seed=12))
    cached(tournament)
    game = Game.objects.get(stage__tournament=tournament, number=9)
    game.outcome = "draw" if game.outcome != "draw" else "mafia"
    game.save()
    tournament.refresh_from_db()
    assert Game.objects.get(pk=game.pk).revision == tournament.facts_version
    with CaptureQueriesContext(connection) as ctx:
        facts = cached(tournament)
    headers = game_header_reads(ctx.captured_queries)
    assert len(headers) == 1 and '"revision" >' in headers[0]
    assert len(seat_reads(ctx.captured_queries)) == 1
    assert facts == fresh(tournament) and facts.stages[0].game(9).outcome == game.outcome


def test_a_game_moved_to_another_stage_is_listed_in_its_new_stage():
    """A changed game's header names its stage: a game moved to another stage of the tournament is listed there,
    in the loader's order (stage, then id)."""
    tournament = import_document(mafia_league(12, seed=13))
    qualifying = Stage.objects.create(tournament=tournament, key="qualifying", order=0)
    for number in (5, 8):  # 5 is read in its new stage from scratch, 8 joins it through the cache
        cached(tournament)
        game = Game.objects.get(stage__tournament=tournament, number=number)
        game.stage = qualifying
        game.save()
        facts = cached(tournament)
        assert facts == fresh(tournament)
    assert [g.number for g in facts.stage("qualifying").games] == [5, 8]


def test_a_game_removed_without_a_change_mark_is_noticed_by_the_count():
    """The loader counts the tournament's games: one removed behind the portal's back (no signal, no version)
    makes it read everything again rather than keep the game."""
    tournament = import_document(mafia_league(12, seed=14))
    cached(tournament)
    game = Game.objects.get(stage__tournament=tournament, number=3)
    with connection.cursor() as cursor:
        for table, column in ((Seat._meta.db_table, "game_id"), (Game.absent_teams.through._meta.db_table,
                                                                 "game_id"), (Game._meta.db_table, "id")):
            cursor.execute(f'DELETE FROM "{table}" WHERE "{column}" = %s', [game.pk])
    facts = cached(tournament)
    assert facts.stages[0].game(3) is None and facts == fresh(tournament)


CONTEXT_TABLES = ("tournaments_stage", "tournaments_team", "tournaments_rosterentry", "tournaments_groupteam",
                  "tournaments_participant", "tournaments_tournamentfamily", "tournaments_penalty",
                  "tournaments_decision", "tournaments_appeal", "tournaments_appeal_credited_teams",
                  "tournaments_withdrawal")


def context_reads(queries) -> list[str]:
    return [q["sql"] for q in queries if any(f'FROM "{table}"' in q["sql"] for table in CONTEXT_TABLES)]


def test_a_saved_result_reads_none_of_the_rest_of_the_facts():
    """Stages, teams, rosters, groups, participants, families, penalties, decisions, appeals and
    withdrawals change only with head_version; after a saved result the loader reads none of their tables."""
    tournament = import_document(example("family_league"))
    cached(tournament)
    game = Game.objects.filter(stage__tournament=tournament).order_by("number").last()
    game.outcome = "draw" if game.outcome != "draw" else "mafia"
    game.save()
    with CaptureQueriesContext(connection) as ctx:
        facts = cached(tournament)
    assert context_reads(ctx.captured_queries) == []
    assert facts == fresh(tournament)
    with CaptureQueriesContext(connection) as ctx:
        fresh(tournament)
    assert len(context_reads(ctx.captured_queries)) >= 8  # the count above would see them


def test_a_renumbered_game_is_renumbered_in_the_penalty_and_decision_that_name_it():
    """FL-16 penalties and GP-style decisions name their game by number: a game read again at another number
    makes the loader read them again, though only the game's revision changed."""
    tournament = import_document(mafia_league(12, seed=15))
    stage = Stage.objects.get(tournament=tournament)
    game = Game.objects.get(stage=stage, number=5)
    team = Team.objects.filter(tournament=tournament).first()
    Penalty.objects.create(tournament=tournament, stage=stage, game=game, team=team, points=1, kind="fair_play")
    Decision.objects.create(tournament=tournament, index=1, kind="replay", stage=stage, game=game)
    head = Tournament.objects.get(pk=tournament.pk).head_version
    cached(tournament)
    game.number = 40
    game.save()
    assert Tournament.objects.get(pk=tournament.pk).head_version == head  # a game's own change
    facts = cached(tournament)
    assert facts == fresh(tournament)
    assert [p.game for p in facts.penalties] == [40] and [d.game for d in facts.decisions] == [40]


def test_a_deleted_game_leaves_its_penalty_without_a_game():
    """The penalty's game is set to null by the deletion (no signal of the penalty's own): the game is gone from
    the games read, so the penalties are read again."""
    tournament = import_document(mafia_league(12, seed=16))
    stage = Stage.objects.get(tournament=tournament)
    game = Game.objects.get(stage=stage, number=6)
    Penalty.objects.create(tournament=tournament, stage=stage, game=game, points=1, kind="fair_play",
                           team=Team.objects.filter(tournament=tournament).first())
    cached(tournament)
    game.delete()
    facts = cached(tournament)
    assert facts == fresh(tournament) and [p.game for p in facts.penalties] == [None]


@pytest.mark.parametrize("change", ["rename", "head", "delete"])
def test_a_family_renamed_given_another_head_or_deleted_changes_the_facts_that_name_it(change):
    """FL-20, FL-21: teams, participants and the tournament's families name a family; its change marks every
    such tournament changed (a recompute, and the loader reads them again)."""
    tournament = import_document(example("family_league"))
    cached(tournament)
    before = Tournament.objects.get(pk=tournament.pk).facts_version
    family = Family.objects.filter(teams__tournament=tournament).distinct().first()
    if change == "rename":
        family.name = f"{family.name} (renamed)"
        family.save()
    elif change == "head":
        family.head = Player.objects.exclude(pk=family.head_id).first()
        family.save()
    else:
        family.delete()
    assert Tournament.objects.get(pk=tournament.pk).facts_version > before
    facts = cached(tournament)
    assert facts == fresh(tournament)
    if change == "rename":
        assert family.name in {t.family for s in facts.stages for t in s.teams} | {t.family for t in facts.teams}


def test_an_unchanged_family_saved_again_changes_nothing():
    tournament = import_document(example("family_league"))
    before = Tournament.objects.get(pk=tournament.pk).facts_version
    Family.objects.filter(teams__tournament=tournament).distinct().first().save()
    assert Tournament.objects.get(pk=tournament.pk).facts_version == before


def test_an_instance_read_before_a_change_loads_the_facts_after_it():
    """The caches are keyed on the tournament's head_version as the database has it: a caller holding an instance
    read before a change (a view, a command) still gets the facts after it."""
    tournament = import_document(mafia_league(10, seed=17))
    load_facts(tournament)
    team = Team.objects.get(tournament=tournament, name="Fam01")
    team.name = "Renamed"
    team.save()
    facts = load_facts(tournament)  # the same instance, its head_version older than the database's
    assert "Renamed" in {t.name for t in facts.stages[0].teams} | {t.name for t in facts.teams}
    assert facts == fresh(tournament)


def test_a_forced_recompute_drops_the_kept_ledger_before_it_reads_the_facts(monkeypatch):
    """``recompute(force=True)`` drops the family league's kept ledger with the loader's games, before
    the facts are read (every game judged anew; the previous version released before the next is built); a
    recompute after a saved result keeps and updates it."""
    from rulesets.family_league import ledger
    from scoring import services

    tournament = import_document(mafia_league(30, seed=3))
    recompute(tournament.pk, force=True)
    kept_at_load = []
    load = services.load_consistent

    def watched(tournament_id):
        kept_at_load.append(ledger._kept.ledgers.get(tournament.slug))
        return load(tournament_id)

    monkeypatch.setattr(services, "load_consistent", watched)
    kept = ledger._kept.ledgers[tournament.slug]
    game = Game.objects.get(stage__tournament=tournament, number=5)
    game.outcome = "draw" if game.outcome != "draw" else "mafia"
    game.save()
    assert recompute(tournament.pk)
    assert kept_at_load == [kept] and ledger._kept.ledgers[tournament.slug] is kept
    assert recompute(tournament.pk, force=True)
    assert kept_at_load == [kept, None] and ledger._kept.ledgers[tournament.slug] is not kept
