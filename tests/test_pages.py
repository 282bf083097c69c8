"""Public pages: every page in Russian and English, read from snapshots, bounded queries."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from django.core.cache import cache
from django.utils import timezone

from accounts.models import Player
from portal.views.chart import build_chart, draw_chart
from portal.views.standings import place_labels
from scoring.chart import sample_indexes
from scoring.figures import store_figures
from scoring.models import StandingsSnapshot
from scoring.serialize import page_summary
from scoring.services import compute_all, next_recheck, store
from tournaments.demo import demo_chgk_season
from tournaments.importer import import_document
from tournaments.loader import load_facts
from tournaments.models import Appeal, Game, Seat, Team, Tour, Tournament
from tournaments.synthetic import chgk_season, mafia_league

pytestmark = pytest.mark.django_db

DEMO = Path(__file__).resolve().parent.parent / "tournaments" / "demo_data"
LANGUAGES = ("ru", "en")

# The same limits hold for the demo's small tournaments and for generated large ones.
HOME_QUERIES = 4
TOURNAMENT_QUERIES = 10
SCHEDULE_QUERIES = 6
GAME_QUERIES = 32  # a cold cache loads the facts once (a fixed number of queries) for the seats' points
TOUR_QUERIES = 32
TEAM_QUERIES = 32
PLAYER_QUERIES = 7


def demo(key: str) -> dict:
    return json.loads((DEMO / f"{key}.json").read_text(encoding="utf-8"))


def load(document: dict) -> Tournament:
    """Import a document and store its snapshots, as the on-commit recompute job would."""
    return recompute(import_document(document))


def recompute(tournament: Tournament) -> Tournament:
    """Store the snapshots and figures of the tournament's current facts, as the recompute job would.

    (``scoring.services.recompute`` itself sets the isolation level of a new transaction, which
    PostgreSQL refuses inside the transaction a test runs in; the steps are the same.)
    """
    tournament = Tournament.objects.get(pk=tournament.pk)
    facts, now = load_facts(tournament), timezone.now()
    store(tournament, compute_all(facts, now), now, next_recheck(facts, now))
    store_figures(Tournament.objects.get(pk=tournament.pk), facts)
    return Tournament.objects.get(pk=tournament.pk)


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


@pytest.fixture
def chgk() -> Tournament:
    return load(demo("chgk_tour_points"))


@pytest.fixture
def league() -> Tournament:
    return load(demo("family_league"))


@pytest.fixture
def grand_prix() -> Tournament:
    return load(demo("elimination_gp"))


@pytest.fixture
def classes() -> Tournament:
    return load(demo("class_balanced"))


@pytest.fixture
def season() -> Tournament:
    return load(demo_chgk_season())


def get(client, url: str, language: str = "ru", status: int = 200):
    client.cookies["django_language"] = language
    response = client.get(url)
    assert response.status_code == status, (url, response.status_code)
    return response


def text(response) -> str:
    return response.content.decode()


def section(html: str, heading_id: str) -> str:
    """The HTML of the <section> labelled by ``heading_id``."""
    start = html.index(f'aria-labelledby="{heading_id}"')
    return html[start:html.index("</section>", start)]


# ------------------------------------------------------------------ home


@pytest.mark.parametrize("language", LANGUAGES)
def test_home_lists_current_tournaments_with_ruleset_dates_and_status(client, chgk, league, language):
    html = text(get(client, "/", language))
    assert chgk.name in html and league.name in html
    assert f'href="/t/{chgk.slug}/"' in html
    if language == "ru":
        assert "Текущие турниры" in html and "идёт" in html and "7 февраля 2013" in html
    else:
        assert "Current tournaments" in html and "running" in html and "7 February 2013" in html


def test_home_lists_finished_tournaments_as_recent_and_hides_drafts(client, chgk, league):
    Tournament.objects.filter(pk=chgk.pk).update(status="finished")
    Tournament.objects.filter(pk=league.pk).update(status="draft")
    html = text(get(client, "/"))
    assert chgk.name in section(html, "recent-heading")
    assert league.name not in html


# ------------------------------------------------------------------ tournament page


@pytest.mark.parametrize("language", LANGUAGES)
def test_tournament_page_shows_the_snapshot_standings_with_links_to_teams(client, chgk, language):
    html = text(get(client, chgk.get_absolute_url(), language))
    vega = Team.objects.get(tournament=chgk, name="Vega")
    assert f'href="/t/{chgk.slug}/teams/{vega.pk}/"' in html
    assert ("15,5" if language == "ru" else "15.5") in html
    assert ("предварительная" if language == "ru" else "preliminary") in section(html, "standings-heading")


def test_tournament_page_reads_the_snapshot_and_never_computes_standings(client, chgk, monkeypatch):
    import dataclasses

    import rulesets

    def refuse(*args, **kwargs):
        raise AssertionError("a page computed standings")

    monkeypatch.setitem(rulesets._REGISTRY, "chgk_tour_points",
                        dataclasses.replace(rulesets.get("chgk_tour_points"), compute=refuse))
    snapshot = StandingsSnapshot.objects.get(tournament=chgk, stage_key="")
    snapshot.export["teams"][0]["points"] = 99.25
    snapshot.save()
    assert "99,25" in text(get(client, chgk.get_absolute_url()))


def test_shared_places_are_shown_as_ranges(client, chgk):
    snapshot = StandingsSnapshot.objects.get(tournament=chgk, stage_key="")
    ranks = [1, 2, 2, 4, 5, 5, 5, 8]
    for row, rank in zip(snapshot.export["teams"], ranks):
        row["rank"] = rank
    snapshot.save()
    places = re.findall(r'<td class="place"[^>]*>([^<]+)</td>', text(get(client, chgk.get_absolute_url())))
    assert places == ["1", "2-3", "2-3", "4", "5-7", "5-7", "5-7", "8"]


def test_place_labels_make_ranges_only_for_shared_ranks():
    assert place_labels([1, 2, 2, 4]) == ["1", "2-3", "2-3", "4"]
    assert place_labels([1, 1]) == ["1-2", "1-2"]
    assert place_labels([]) == []


@pytest.mark.parametrize("language, expected", [("ru", "верные ответы"), ("en", "correct answers")])
def test_the_tie_break_that_separated_a_row_is_named_in_a_column_and_tooltip(client, chgk, language, expected):
    snapshot = StandingsSnapshot.objects.get(tournament=chgk, stage_key="")
    snapshot.details["teams"][3]["separated_by"] = "correct_answers"
    snapshot.summary = page_summary(snapshot.details)  # as scoring.services.store keeps them together
    snapshot.save()
    html = text(get(client, chgk.get_absolute_url(), language))
    rows = section(html, "standings-heading").split("<tr")
    felidae = next(r for r in rows if ">Felidae<" in r)
    assert f'<td class="separated">{expected}</td>' in felidae
    assert expected in re.search(r'<td class="place" title="([^"]*)"', felidae).group(1)


def test_elimination_standings_name_the_weakest_player_criterion(client, grand_prix):
    html = text(get(client, grand_prix.get_absolute_url(), "en"))
    assert "players still in the game" in html
    assert "points of the team&#x27;s weakest player no. 2" in html


@pytest.mark.parametrize("language, word", [("ru", "обновляется"), ("en", "updating")])
def test_standings_say_updating_when_the_facts_are_newer_than_the_snapshot(client, chgk, language, word):
    Tournament.objects.filter(pk=chgk.pk).update(facts_version=chgk.facts_version + 1)
    html = text(get(client, chgk.get_absolute_url(), language))
    assert word in html
    assert f'data-live="/t/{chgk.slug}/standings/version/"' in html  # live.js swaps the new table in


def test_standings_say_updating_when_the_last_recompute_failed(client, chgk):
    StandingsSnapshot.objects.filter(tournament=chgk).update(stale=True, error="boom")
    assert "обновляется" in text(get(client, chgk.get_absolute_url()))


@pytest.mark.parametrize("language, word", [("ru", "окончательная"), ("en", "final")])
def test_standings_say_final_when_the_export_is_final(client, grand_prix, language, word):
    assert StandingsSnapshot.objects.get(tournament=grand_prix, stage_key="").export["final"] is True
    html = text(get(client, grand_prix.get_absolute_url(), language))
    assert '<span class="badge standings-final"' in html
    assert word in section(html, "standings-heading")


def test_a_tournament_without_a_snapshot_yet_still_shows_a_page(client, chgk):
    StandingsSnapshot.objects.filter(tournament=chgk).delete()
    html = text(get(client, chgk.get_absolute_url()))
    assert "ещё не рассчитана" in html


def test_the_chart_draws_one_line_per_team_as_inline_svg(client, chgk):
    html = text(get(client, chgk.get_absolute_url()))
    svg = html[html.index("<svg"):html.index("</svg>")]
    assert svg.count("<polyline") == 8
    assert "Тур 1" in svg and "Тур 2" in svg
    assert "," not in re.search(r'y1="([^"]+)"', svg).group(1)  # coordinates are never localized


def test_a_long_league_chart_is_sampled_to_a_fixed_size():
    chart = build_chart([("A", [1] * 5000), ("B", [0.5] * 5000)], [str(i) for i in range(1, 5001)])
    assert chart.sampled and chart.rounds == 5000
    assert len(chart.lines[0].points.split()) <= 61
    assert chart.lines[0].total == 5000
    assert sample_indexes(10, 60) == list(range(10))


def _build_chart_before_the_summary(series, rounds):
    """``portal.views.chart.build_chart`` as it was before the chart was sampled at store time (verbatim)."""
    from portal.views.chart import (
        PALETTE,
        Chart,
        Line,
        Tick,
        _nice_step,
        _number,
        round_label,
    )
    from scoring.chart import MAX_LINES

    def _cumulative(values: list) -> list[float]:
        total = 0.0
        out = [0.0]
        for value in values:
            total += float(value or 0)
            out.append(round(total, 2))
        return out

    series = [(team, values) for team, values in series if values][:MAX_LINES]
    if not series:
        return None
    count = max(len(values) for _team, values in series)
    if count == 0:
        return None
    cumulative = [(team, _cumulative(values + [0] * (count - len(values)))) for team, values in series]
    low = min(0.0, *(min(c) for _t, c in cumulative))
    high = max(1.0, *(max(c) for _t, c in cumulative))
    step = _nice_step(high - low)
    top_value = step * (int(high / step) + (0 if high % step == 0 else 1))
    bottom_value = -step * (int(-low / step) + (0 if low % step == 0 else 1)) if low < 0 else 0.0
    chart = Chart(rounds=count)
    indexes = sample_indexes(count + 1)
    chart.sampled = len(indexes) < count + 1
    span_x = chart.right - chart.left
    span_y = chart.bottom - chart.top

    def x_of(index: int) -> float:
        return round(chart.left + span_x * index / count, 1)

    def y_of(value: float) -> float:
        return round(chart.bottom - span_y * (value - bottom_value) / ((top_value - bottom_value) or 1), 1)

    for number, (team, values) in enumerate(cumulative):
        coords = " ".join(f"{x_of(i)},{y_of(values[i])}" for i in indexes)
        chart.lines.append(Line(team=team, color=PALETTE[number % len(PALETTE)], points=coords, total=values[-1],
                                dash="" if number < len(PALETTE) else "4 3"))
    value = bottom_value
    while value <= top_value + 1e-9:
        chart.y_ticks.append(Tick(y_of(value), _number(round(value, 2)), round(value, 2)))
        value += step
    labels = list(rounds) + [""] * (count - len(rounds))
    for index in sample_indexes(count, 8):
        chart.x_ticks.append(Tick(x_of(index + 1), round_label(labels[index])))
    return chart


def _league_details(teams: int, rounds: int, seed: int = 1) -> dict:
    """Snapshot details shaped like family_league's: per-round points (with penalties) and the rounds' labels."""
    import random

    rng = random.Random(seed)
    return {
        "teams": [{"team": f"Team {t}", "rank": t + 1, "group": "A" if t % 3 else "B", "separated_by": None,
                   "details": {"points_by_round": [round(rng.choice([0, 0, 1, 1.5, 2.25, -0.5, 0.4]), 2)
                                                   for _ in range(rounds - (t % 4))],
                               "games": rounds, "seat_points": 1.5, "penalties": []}}
                  for t in range(teams)],
        "players": [],
        "notes": ["a note"],
        "details": {"rounds": [str(n) for n in range(1, rounds + 1)], "violations": []},
    }


def _svg(chart) -> str:
    from django.template.loader import render_to_string

    return render_to_string("tournaments/_chart.html", {"chart": chart, "chart_id": "x", "chart_title": "t"})


@pytest.mark.parametrize("teams, rounds", [(15, 10_000), (30, 2_500), (8, 12), (3, 1)])
def test_the_chart_drawn_from_the_stored_summary_is_the_chart_drawn_from_every_round(teams, rounds):
    """The page draws the chart sampled at store time; same data, same SVG as before the summary."""
    details = _league_details(teams, rounds)
    groups = dict.fromkeys(row["group"] for row in details["teams"])  # the page lists them group by group
    series = [(row["team"], row["details"]["points_by_round"])
              for group in groups for row in details["teams"] if row["group"] == group]
    before = _build_chart_before_the_summary(series, details["details"]["rounds"])
    stored = json.loads(json.dumps(page_summary(details)))  # as the JSON column gives it back
    after = draw_chart(stored["chart"])
    assert after == before
    assert _svg(after) == _svg(before)
    assert build_chart(series, details["details"]["rounds"]) == before
    if rounds > 60:
        assert before.sampled and len(json.dumps(stored)) < 20_000


@pytest.mark.parametrize("missing", [0.0, 0.3, 1.0])
def test_a_chart_with_missing_rounds_and_falling_totals_is_the_chart_drawn_from_every_round(missing):
    """A round without a figure (``None``, as a ChGK team's tour it did not play) counts 0, and a line that falls
    below 0 (penalties) keeps its least total: the totals are added without looking for ``None`` first and their
    extremes are read from a sorted copy; the SVG is the one drawn from every round before."""
    import random

    rng = random.Random(7)
    details = _league_details(6, 700)
    for row in details["teams"]:
        values = row["details"]["points_by_round"]
        row["details"]["points_by_round"] = [None if rng.random() < missing else value - 0.6 for value in values]
    series = [(row["team"], row["details"]["points_by_round"])
              for group in dict.fromkeys(r["group"] for r in details["teams"])
              for row in details["teams"] if row["group"] == group]
    before = _build_chart_before_the_summary(series, details["details"]["rounds"])
    stored = json.loads(json.dumps(page_summary(details)))
    assert stored["chart"]["low"] < 0 or missing == 1.0
    assert draw_chart(stored["chart"]) == before


def test_the_page_summary_keeps_the_rows_without_their_per_round_lists():
    details = _league_details(15, 10_000)
    summary = page_summary(details)
    assert [row["team"] for row in summary["teams"]] == [row["team"] for row in details["teams"]]
    assert summary["teams"][0]["details"] == {"games": 10_000, "seat_points": 1.5, "penalties": []}
    assert summary["chart"]["rounds"] == 10_000 and len(summary["chart"]["indexes"]) <= 61
    assert summary["notes"] == ["a note"] and summary["still_in"] is None and summary["class_balance"] is None
    assert page_summary({}) == {"version": 1, "teams": [], "notes": [], "chart": None, "class_balance": None,
                                "still_in": None}


@pytest.mark.parametrize("key", ["chgk_tour_points", "family_league", "class_balanced", "elimination_gp"])
def test_a_snapshot_stored_before_the_summary_still_renders_the_same_page(client, key):
    def page() -> str:
        html = text(get(client, tournament.get_absolute_url(), "en"))
        return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "", html)

    tournament = load(demo(key))
    stored = page()
    assert StandingsSnapshot.objects.filter(tournament=tournament, summary__isnull=True).count() == 0
    StandingsSnapshot.objects.filter(tournament=tournament).update(summary=None)
    assert page() == stored


def test_stage_tables_are_linked_and_an_unknown_stage_is_404(client, league):
    html = text(get(client, league.get_absolute_url()))
    assert '?stage=final' in html
    assert "Финал" in text(get(client, league.get_absolute_url() + "?stage=final"))
    get(client, league.get_absolute_url() + "?stage=nonsense", status=404)


def test_rows_with_a_group_are_shown_group_by_group(client, league):
    snapshot = StandingsSnapshot.objects.get(tournament=league, stage_key="")
    for index, row in enumerate(snapshot.export["teams"]):
        row["group"] = "A" if index % 2 == 0 else "B"
        row["rank"] = index // 2 + 1
    snapshot.save()
    html = text(get(client, league.get_absolute_url()))
    assert "Группа A" in html and "Группа B" in html
    assert html.count('<table class="standings-table">') == 2


def test_the_stage_structure_lists_groups_and_their_teams(client, league):
    html = section(text(get(client, league.get_absolute_url(), "en")), "structure-heading")
    assert "Group Ф" in html and "6 games" in html
    assert html.count(f'href="/t/{league.slug}/teams/') == Team.objects.filter(tournament=league).count()


@pytest.mark.parametrize("language", LANGUAGES)
def test_pending_appeals_are_listed_without_the_appealing_team(client, language):
    document = demo("chgk_tour_points")
    document["appeals"] = [{"stage": "season", "tour": 2, "question": 3, "team": "Rotor", "kind": "removal",
                            "filed_at": "2013-02-22T20:00:00+04:00"}]
    tournament = load(document)
    html = section(text(get(client, tournament.get_absolute_url(), language)), "appeals-heading")
    appeal = Appeal.objects.get(tournament=tournament)
    assert f'href="/appeals/{appeal.pk}/"' in html
    assert ("тур 2, вопрос 3" if language == "ru" else "tour 2, question 3") in html
    assert "Rotor" not in html


def test_awards_are_shown_with_prize_and_cup(client, league):
    html = section(text(get(client, league.get_absolute_url())), "awards-heading")
    assert "золотой кубок" in html and "6000" in html and "мф" in html


def test_the_players_table_appears_when_the_export_ranks_players(client, grand_prix):
    html = section(text(get(client, grand_prix.get_absolute_url())), "players-heading")
    player = Player.objects.get(nick="GP07-p5")
    assert f'href="/players/{player.pk}/"' in html


def test_the_best_player_appears_when_the_export_names_one(client, classes):
    html = text(get(client, classes.get_absolute_url(), "en"))
    assert "Best player" in html


def test_export_links_point_at_the_api(client, league):
    html = text(get(client, league.get_absolute_url() + "?stage=final"))
    base = f"/api/v1/tournaments/{league.slug}"
    assert f'href="{base}/standings/?stage=final"' in html
    assert f'href="{base}/standings/?format=csv&amp;stage=final"' in html
    assert f'href="{base}/standings/?format=xlsx&amp;stage=final"' in html
    assert f'href="{base}/schedule.ics"' in html


# ------------------------------------------------------------------ game page


def game_url(game: Game) -> str:
    return f"/t/{game.stage.tournament.slug}/{game.stage.key}/games/{game.number}/"


@pytest.mark.parametrize("language, reason, role", [("ru", "победа мирных", "комиссар"),
                                                    ("en", "civilians win", "commissar")])
def test_game_page_shows_seats_in_join_order_with_points_and_why(client, league, language, reason, role):
    game = Game.objects.select_related("stage__tournament").get(stage__tournament=league, number=2)
    html = text(get(client, game_url(game), language))
    seats = section(html, "seats-heading")
    nicks = list(Seat.objects.filter(game=game).order_by("order").values_list("player__nick", flat=True))
    positions = [seats.index(f">{nick}</a>") for nick in nicks]
    assert positions == sorted(positions)
    assert reason in seats and role in seats
    assert ("1,5" if language == "ru" else "1.5") in seats


def test_game_page_explains_a_timeout(client, league):
    game = Game.objects.select_related("stage__tournament").get(stage__tournament=league, number=1)
    html = text(get(client, game_url(game), "en"))
    assert "timeout: 0 of 2 days" in html


def test_game_page_lists_the_penalties_of_that_game(client, league):
    game = Game.objects.select_related("stage__tournament").get(stage__tournament=league, number=3)
    html = section(text(get(client, game_url(game))), "penalties-heading")
    assert "FL-15.1" in html and "0,1" in html


def test_game_page_shows_recorded_penalties_where_the_ruleset_lists_none(client, classes):
    from tournaments.models import Penalty

    game = Game.objects.select_related("stage__tournament").filter(stage__tournament=classes).first()
    Penalty.objects.create(tournament=classes, stage=game.stage, game=game, team=game.seats.first().team,
                           kind="fair_play", code="FP-9", points="0.5", text="insults")
    html = section(text(get(client, game_url(game))), "penalties-heading")
    assert "FP-9" in html and "insults" in html


def test_game_seat_points_are_read_from_the_database_never_computed_in_the_request(client, league, monkeypatch):
    """design.md principle 3: the page reads the seat points the recompute stored in the database; the request
    never runs the ruleset, and no process's cache is needed (it is emptied before each request)."""
    import dataclasses

    import rulesets

    game = Game.objects.select_related("stage__tournament").get(stage__tournament=league, number=2)
    stored = rulesets.get(league.ruleset)

    def computed_in_the_request(*args, **kwargs):
        raise AssertionError("seat points computed inside a request")

    monkeypatch.setitem(rulesets._REGISTRY, league.ruleset,
                        dataclasses.replace(stored, seat_points=computed_in_the_request))
    cache.clear()
    response = get(client, game_url(game), "en")
    assert response.context["has_points"] and not response.context["figures"].pending
    assert any(seat.points is not None for seat in response.context["seats"])


def test_updating_is_shown_only_while_a_recompute_of_the_new_version_is_queued_or_running(client, league):
    """design.md principle 3: the figures lag the facts; "updating" is true only while a recompute waits or runs."""
    from scoring.models import RecomputeRun
    from scoring.tasks import QUEUED_KEY

    game = Game.objects.get(stage__tournament=league, number=2)
    notice = 'data-live-pending hidden'
    assert notice in get(client, game_url(game), "en").content.decode()
    Tournament.objects.filter(pk=league.pk).update(facts_version=league.facts_version + 1)
    lagging = get(client, game_url(game), "en")
    assert not lagging.context["figures"].pending and lagging.context["has_points"], "nothing queued: no claim"
    cache.set(QUEUED_KEY.format(league.pk), 1, 60)
    queued = get(client, game_url(game), "en")
    assert queued.context["figures"].pending and notice not in queued.content.decode()
    cache.clear()
    run = RecomputeRun.objects.create(tournament=league, facts_version=league.facts_version + 1,
                                      started_at=timezone.now())
    assert get(client, game_url(game), "en").context["figures"].pending, "a running recompute"
    RecomputeRun.objects.filter(pk=run.pk).update(finished_at=timezone.now())
    assert not get(client, game_url(game), "en").context["figures"].pending


def test_unknown_games_and_stages_are_404(client, league):
    get(client, f"/t/{league.slug}/final/games/999/", status=404)
    get(client, f"/t/{league.slug}/qualifying/games/1/", status=404)
    get(client, "/t/nope/final/games/1/", status=404)


# ------------------------------------------------------------------ tour page


@pytest.mark.parametrize("language", LANGUAGES)
def test_tour_page_marks_removed_questions_accepted_answers_and_the_host(client, season, language):
    tour3 = Tour.objects.select_related("host").get(stage__tournament=season, number=3)
    html = text(get(client, f"/t/{season.slug}/tours/3/", language))
    matrix = section(html, "matrix-heading")
    assert 'class="q removed"' in matrix and "mark-removed" in matrix
    assert tour3.host.name in matrix and "host-row" in matrix
    html4 = text(get(client, f"/t/{season.slug}/tours/4/", language))
    assert "mark-credited" in section(html4, "matrix-heading")
    assert ("Рейтинг вопроса" if language == "ru" else "Question rating") in matrix


def test_tour_page_hides_the_team_of_a_pending_appeal_and_marks_the_disputed_answer(client):
    document = demo("chgk_tour_points")
    tour = document["stages"][0]["tours"][1]
    team = sorted(tour["masks"])[0]
    tour["masks"][team] = "?" + tour["masks"][team][1:]
    document["appeals"] = [{"stage": "season", "tour": 2, "question": 1, "team": team, "kind": "accept_answer",
                            "answer": "Lobachevsky", "filed_at": "2013-02-22T20:00:00+04:00"}]
    tournament = load(document)
    html = text(get(client, f"/t/{tournament.slug}/tours/2/"))
    appeals = section(html, "tour-appeals-heading")
    assert "ожидает решения" in appeals and team not in appeals
    assert "mark-disputed" in section(html, "matrix-heading")


def test_tour_page_shows_places_as_ranges_and_points(client, chgk):
    html = section(text(get(client, f"/t/{chgk.slug}/tours/1/")), "matrix-heading")
    places = re.findall(r'<td class="place">([^<]+)</td>', html)
    assert places and all(re.fullmatch(r"\d+(-\d+)?", p) for p in places)


def test_unknown_tours_are_404(client, chgk, league):
    get(client, f"/t/{chgk.slug}/tours/99/", status=404)
    get(client, f"/t/{league.slug}/tours/1/", status=404)


# ------------------------------------------------------------------ team page


@pytest.mark.parametrize("language", LANGUAGES)
def test_team_page_shows_roster_with_captain_games_points_and_fines(client, league, language):
    team = Team.objects.get(tournament=league, name="Fam01")
    html = text(get(client, f"/t/{league.slug}/teams/{team.pk}/", language))
    roster = section(html, "roster-heading")
    assert roster.count("<li>") == team.roster.count()
    assert ("капитан" if language == "ru" else "captain") in roster
    games = section(html, "games-heading")
    game = Game.objects.select_related("stage__tournament").get(stage__tournament=league, number=1)
    assert f'href="{game_url(game)}"' in games
    penalties = section(html, "penalties-heading")
    assert "FL-15.1" in penalties and ("мф" if language == "ru" else "mf") in penalties
    assert "<svg" in section(html, "rounds-heading")


def test_chgk_team_page_lists_tours_with_places_and_links(client, chgk):
    team = Team.objects.get(tournament=chgk, name="Vega")
    html = section(text(get(client, f"/t/{chgk.slug}/teams/{team.pk}/")), "rounds-heading")
    assert f'href="/t/{chgk.slug}/tours/1/"' in html and "Тур 1" in html


def test_a_team_of_another_tournament_is_404(client, chgk, league):
    other = Team.objects.filter(tournament=league).first()
    get(client, f"/t/{chgk.slug}/teams/{other.pk}/", status=404)
    get(client, f"/t/{chgk.slug}/teams/999999/", status=404)


def test_links_lead_from_standings_to_team_to_game(client, league):
    html = text(get(client, league.get_absolute_url()))
    team_url = re.search(rf'href="(/t/{league.slug}/teams/\d+/)"', section(html, "standings-heading")).group(1)
    team_html = text(get(client, team_url))
    game_url_ = re.search(rf'href="(/t/{league.slug}/final/games/\d+/)"', team_html).group(1)
    assert "seats-heading" in text(get(client, game_url_))


# ------------------------------------------------------------------ player page


@pytest.mark.parametrize("language", LANGUAGES)
def test_player_page_lists_tournaments_games_and_awards(client, league, language):
    player = Player.objects.get(nick="Fam06-p1")
    html = text(get(client, f"/players/{player.pk}/", language))
    assert league.name in section(html, "tournaments-heading")
    assert f'/t/{league.slug}/final/games/' in section(html, "games-heading")
    awards = section(html, "awards-heading")
    assert ("золотой кубок" if language == "ru" else "gold cup") in awards


def test_player_page_shows_the_players_rank_where_the_export_ranks_players(client, grand_prix):
    player = Player.objects.get(nick="GP07-p5")
    html = section(text(get(client, f"/players/{player.pk}/", "en")), "tournaments-heading")
    assert "qualified for the final" in html


def test_unknown_player_is_404(client):
    get(client, "/players/999999/", status=404)


# ------------------------------------------------------------------ schedule


@pytest.mark.parametrize("language", LANGUAGES)
def test_schedule_shows_times_in_the_tournament_zone_with_the_zone_named(client, league, language):
    Tournament.objects.filter(pk=league.pk).update(timezone="Asia/Yekaterinburg")
    html = text(get(client, f"/t/{league.slug}/schedule/", language))
    assert "Asia/Yekaterinburg" in html
    assert "21:00" in html  # 2014-09-01T19:00+04:00 is 21:00 in Yekaterinburg (UTC+6 then)
    assert f'href="/api/v1/tournaments/{league.slug}/schedule.ics"' in html
    game = Game.objects.select_related("stage__tournament").get(stage__tournament=league, number=1)
    assert f'href="{game_url(game)}"' in html


def test_chgk_schedule_lists_tours(client, chgk):
    html = text(get(client, f"/t/{chgk.slug}/schedule/", "en"))
    assert f'href="/t/{chgk.slug}/tours/2/"' in html and "Tour 2" in html


def test_unknown_tournament_is_404(client):
    assert "Страница не найдена" in text(get(client, "/t/no-such-tournament/", status=404))
    get(client, "/t/no-such-tournament/schedule/", status=404)


# ------------------------------------------------------------------ every page


def every_url(tournament: Tournament) -> list[str]:
    urls = ["/", tournament.get_absolute_url(), f"/t/{tournament.slug}/schedule/"]
    game = Game.objects.select_related("stage__tournament").filter(stage__tournament=tournament).first()
    if game:
        urls.append(game_url(game))
    tour = Tour.objects.filter(stage__tournament=tournament).first()
    if tour:
        urls.append(f"/t/{tournament.slug}/tours/{tour.number}/")
    team = Team.objects.filter(tournament=tournament).first()
    urls.append(f"/t/{tournament.slug}/teams/{team.pk}/")
    urls.append(f"/players/{team.roster.first().player_id}/")
    return urls


@pytest.mark.parametrize("language", LANGUAGES)
def test_every_page_has_lang_viewport_switcher_and_scrolling_tables(client, chgk, league, language):
    for url in every_url(chgk) + every_url(league):
        html = text(get(client, url, language))
        assert f'<html lang="{language}">' in html
        assert '<meta name="viewport" content="width=device-width, initial-scale=1">' in html
        assert 'action="/i18n/setlang/"' in html and 'name="language" value="en"' in html
        for match in re.finditer(r"<table", html):
            opened = html.rfind('<div class="table-scroll">', 0, match.start())
            assert opened != -1 and html.rfind("</div>", opened, match.start()) == -1, url


def test_pages_pass_the_content_security_policy(client, chgk, league):
    for url in every_url(chgk) + every_url(league):
        response = get(client, url)
        assert "script-src 'self'" in response["Content-Security-Policy"]
        html = text(response)
        assert re.findall(r"<script(?![^>]*\bsrc=)[^>]*>", html) == [], url
        assert not re.search(r"\son[a-z]+\s*=", html), url


def test_the_stylesheet_makes_table_wrappers_scroll():
    css = (Path(__file__).resolve().parent.parent / "static" / "css" / "portal.css").read_text()
    assert re.search(r"\.table-scroll\s*\{[^}]*overflow-x:\s*auto", css)


def test_switching_the_language_keeps_the_page(client, chgk):
    response = client.post("/i18n/setlang/", {"language": "en", "next": chgk.get_absolute_url()})
    assert response.status_code == 302 and response["Location"] == chgk.get_absolute_url()
    html = client.get(chgk.get_absolute_url()).content.decode()
    assert '<html lang="en">' in html and "Standings" in html
    client.post("/i18n/setlang/", {"language": "ru", "next": "/"})
    assert '<html lang="ru">' in client.get("/").content.decode()


def test_a_signed_in_user_finds_their_pages_in_the_header(client, chgk, django_user_model):
    user = django_user_model.objects.create_user("reader", password="a-long-password-1")
    client.force_login(user)
    html = text(get(client, chgk.get_absolute_url()))
    assert 'href="/accounts/my/"' in html and 'action="/accounts/logout/"' in html
    client.logout()
    assert 'href="/accounts/login/?next=' in text(get(client, chgk.get_absolute_url()))


def test_russian_is_the_default_language(client, chgk):
    html = client.get(chgk.get_absolute_url()).content.decode()
    assert '<html lang="ru">' in html and "Турнирная таблица" in html


# ------------------------------------------------------------------ bounded queries


LARGE = {
    "chgk": ("chgk_tour_points", lambda: chgk_season(teams=30, seed=5, slug="large-chgk")),
    "mafia": ("family_league", lambda: mafia_league(games=300, teams=15, seed=11, slug="large-league")),
}


def page_limits(tournament: Tournament) -> list[tuple[str, int]]:
    """Every page of a tournament with its query limit (the same whatever the tournament's size)."""
    team = Team.objects.filter(tournament=tournament).first()
    pages = [
        ("/", HOME_QUERIES),
        (tournament.get_absolute_url(), TOURNAMENT_QUERIES),
        (tournament.get_absolute_url() + "?stage=" + tournament.stages.first().key, TOURNAMENT_QUERIES),
        (f"/t/{tournament.slug}/schedule/", SCHEDULE_QUERIES),
        (f"/t/{tournament.slug}/teams/{team.pk}/", TEAM_QUERIES),
        (f"/players/{team.roster.first().player_id}/", PLAYER_QUERIES),
    ]
    game = Game.objects.select_related("stage__tournament").filter(stage__tournament=tournament).last()
    if game:
        pages.append((game_url(game), GAME_QUERIES))
    if Tour.objects.filter(stage__tournament=tournament, number=2).exists():
        pages.append((f"/t/{tournament.slug}/tours/2/", TOUR_QUERIES))
    return pages


@pytest.mark.parametrize("kind", ["chgk", "mafia"])
def test_pages_run_the_same_bounded_queries_for_small_and_large_tournaments(
        client, django_assert_max_num_queries, kind):
    small_key, large_document = LARGE[kind]
    small, large = load(demo(small_key)), load(large_document())
    assert Game.objects.filter(stage__tournament=large).count() + Tour.objects.filter(
        stage__tournament=large).count() > 5 * (Game.objects.filter(stage__tournament=small).count()
                                                + Tour.objects.filter(stage__tournament=small).count())
    for tournament in (small, large):
        for language in LANGUAGES:
            client.cookies["django_language"] = language
            for url, limit in page_limits(tournament):
                cache.clear()  # the cold path: a game's or tour's figures are computed once per facts version
                with django_assert_max_num_queries(limit):
                    assert client.get(url).status_code == 200, url


@pytest.mark.parametrize("key", ["class_balanced", "elimination_gp"])
def test_other_rulesets_pages_stay_within_the_same_limits(client, django_assert_max_num_queries, key):
    tournament = load(demo(key))
    limits = [HOME_QUERIES, TOURNAMENT_QUERIES, SCHEDULE_QUERIES, GAME_QUERIES, TEAM_QUERIES, PLAYER_QUERIES]
    for url, limit in zip(every_url(tournament), limits):
        cache.clear()
        with django_assert_max_num_queries(limit):
            assert client.get(url).status_code == 200


@pytest.mark.django_db
def test_cb_7_tournament_page_shows_classes_still_owed(client):
    from scoring.services import recompute
    from tests.conftest import example
    from tournaments.importer import import_document

    tournament = import_document(example("class_balanced"))
    recompute(tournament.pk, force=True)
    page = client.get(f"/t/{tournament.slug}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Classes played and still owed (CB-7)" in page
    assert "can still balance" in page


@pytest.mark.django_db
def test_gp_13_stage_page_shows_who_is_still_in_after_every_tour(client):
    from scoring.services import recompute
    from tests.conftest import example
    from tournaments.importer import import_document

    tournament = import_document(example("elimination_gp"))
    recompute(tournament.pk, force=True)
    page = client.get(f"/t/{tournament.slug}/", HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "Players still in after each tour" in page
    assert "GP07-p3, GP07-p4, GP07-p5, GP07-p6" in page
