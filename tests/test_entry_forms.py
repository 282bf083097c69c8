"""Result entry forms: the tour grid and the Mafia game form, over the API's write services."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.test import Client

from accounts.models import Role, TournamentRole
from scoring.models import StandingsSnapshot
from scoring.services import recompute
from tests.conftest import example
from tournaments.importer import import_document
from tournaments.models import Game, Mask, Team, Tour, Tournament
from tournaments.synthetic import chgk_season, mafia_league

pytestmark = pytest.mark.django_db

TOUR_ENTRY_QUERIES = 12  # session, user, roles, tournament, tour, teams, masks, absent: fixed, whatever the size
GAME_ENTRY_QUERIES = 14  # the same, plus seats, absent teams, nicks and the snapshot


@pytest.fixture(autouse=True)
def _empty_cache():
    cache.clear()
    yield
    cache.clear()


def imported(document: dict) -> Tournament:
    """Import and compute the snapshots (on_commit never fires inside a test transaction)."""
    tournament = import_document(document)
    recompute(tournament.pk, force=True)
    return Tournament.objects.get(pk=tournament.pk)


def user_with_role(tournament, django_user_model, name="organizer", role=Role.ORGANIZER):
    user = django_user_model.objects.create_user(name, password=f"pw-{name}-123456")
    TournamentRole.objects.create(user=user, tournament=tournament, role=role)
    return user


def english(user=None) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        client.force_login(user)
    return client


@pytest.fixture
def chgk() -> Tournament:
    return imported(example("chgk_tour_points"))


@pytest.fixture
def league() -> Tournament:
    return imported(example("family_league"))


@pytest.fixture
def tour(chgk) -> Tour:
    return Tour.objects.select_related("host", "stage").filter(stage__tournament=chgk).order_by("number").first()


def masks_of(tour: Tour) -> dict[str, str]:
    return dict(Mask.objects.filter(tour=tour).values_list("team__name", "mask"))


def grid_post(tour: Tour, masks: dict[str, str], version: int, absent=()) -> dict[str, str]:
    teams = dict(Team.objects.filter(tournament=tour.stage.tournament).values_list("name", "pk"))
    data = {"version": str(version)}
    for name, pk in teams.items():
        if tour.host_id == pk:
            continue
        data[f"mask-{pk}"] = masks.get(name, "")
        if name in absent:
            data[f"absent-{pk}"] = "1"
    return data


def tour_url(tour: Tour) -> str:
    return f"/t/{tour.stage.tournament.slug}/tours/{tour.number}/enter/"


# --- the tour grid ---


def test_tour_grid_shows_every_team_with_its_mask_and_a_cell_per_question(chgk, tour, django_user_model):
    user = user_with_role(chgk, django_user_model)
    response = english(user).get(tour_url(tour))
    assert response.status_code == 200
    html = response.content.decode()
    for team, mask in masks_of(tour).items():
        assert f'value="{mask}"' in html and team in html
    assert html.count('class="cell"') == len(masks_of(tour)) * tour.questions
    assert html.count('class="col-toggle"') == tour.questions
    assert "js/entry.js" in html and "<script>" not in html and "onclick" not in html


def test_tour_page_links_to_the_grid_only_for_those_who_may_enter_results(chgk, tour, django_user_model):
    page = f"/t/{chgk.slug}/tours/{tour.number}/"
    assert tour_url(tour) not in english().get(page).content.decode()
    judge = user_with_role(chgk, django_user_model, "judge", Role.JUDGE)
    assert tour_url(tour) in english(judge).get(page).content.decode()


def test_saving_the_grid_changes_the_masks_and_the_standings(chgk, tour, django_user_model):
    user = user_with_role(chgk, django_user_model)
    before = StandingsSnapshot.objects.get(tournament=chgk, stage_key="").export
    masks = masks_of(tour)
    masks = {team: "1" * tour.questions for team in masks}
    response = english(user).post(tour_url(tour), grid_post(tour, masks, tour.version))
    assert response.status_code == 302 and response["Location"].endswith("?saved=1")
    assert masks_of(tour) == masks
    tour.refresh_from_db()
    assert tour.version == 2 and tour.updated_by == "organizer"
    recompute(chgk.pk)
    after = StandingsSnapshot.objects.get(tournament=chgk, stage_key="").export
    assert after != before
    assert "Saved" in english(user).get(response["Location"]).content.decode()


def test_a_typed_mask_may_hold_spaces_and_a_lowercase_x(chgk, tour, django_user_model):
    user = user_with_role(chgk, django_user_model)
    masks = {team: "1 0 " + "0" * (tour.questions - 3) + "x" for team in masks_of(tour)}
    response = english(user).post(tour_url(tour), grid_post(tour, masks, tour.version))
    assert response.status_code == 302
    assert set(masks_of(tour).values()) == {"10" + "0" * (tour.questions - 3) + "X"}


def test_an_absent_team_has_no_mask(chgk, tour, django_user_model):
    user = user_with_role(chgk, django_user_model)
    masks = masks_of(tour)
    team = sorted(masks)[0]
    response = english(user).post(tour_url(tour), grid_post(tour, masks, tour.version, absent=[team]))
    assert response.status_code == 302
    assert team not in masks_of(tour) and len(masks_of(tour)) == len(masks) - 1
    html = english(user).get(tour_url(tour)).content.decode()
    pk = Team.objects.get(tournament=chgk, name=team).pk
    assert f'name="absent-{pk}" value="1" class="absent-toggle" checked' in html


def test_a_bad_mask_is_refused_naming_the_team_and_the_question(chgk, tour, django_user_model):
    user = user_with_role(chgk, django_user_model)
    masks = masks_of(tour)
    before = dict(masks)
    team = sorted(masks)[0]
    masks[team] = "10a" + "0" * (tour.questions - 3)
    response = english(user).post(tour_url(tour), grid_post(tour, masks, tour.version))
    assert response.status_code == 400
    html = response.content.decode()
    pk = Team.objects.get(tournament=chgk, name=team).pk
    problems = html.split(f'id="problems-{pk}"')[1].split("</tr>")[0]
    assert team in problems and "question 3" in problems
    assert f'value="{masks[team]}"' in html  # what was typed stays in the form
    assert masks_of(tour) == before


def test_a_mask_of_the_wrong_length_is_refused_next_to_its_team(chgk, tour, django_user_model):
    user = user_with_role(chgk, django_user_model)
    masks = masks_of(tour)
    team = sorted(masks)[-1]
    masks[team] = "1"
    response = english(user).post(tour_url(tour), grid_post(tour, masks, tour.version))
    assert response.status_code == 400
    pk = Team.objects.get(tournament=chgk, name=team).pk
    problems = response.content.decode().split(f'id="problems-{pk}"')[1].split("</tr>")[0]
    assert f"1 marks for {tour.questions} questions" in problems


def test_an_empty_mask_of_a_team_not_marked_absent_is_refused(chgk, tour, django_user_model):
    user = user_with_role(chgk, django_user_model)
    masks = masks_of(tour)
    team = sorted(masks)[0]
    masks[team] = ""
    response = english(user).post(tour_url(tour), grid_post(tour, masks, tour.version))
    assert response.status_code == 400
    assert "the mask is empty" in response.content.decode()
    assert team in masks_of(tour)


def test_a_stale_grid_is_refused_naming_who_changed_the_tour(chgk, tour, django_user_model):
    user = user_with_role(chgk, django_user_model)
    other = user_with_role(chgk, django_user_model, "colleague")
    masks = masks_of(tour)
    first = {team: "0" * tour.questions for team in masks}
    assert english(other).post(tour_url(tour), grid_post(tour, first, 1)).status_code == 302
    response = english(user).post(tour_url(tour), grid_post(tour, masks, 1))
    assert response.status_code == 409
    html = response.content.decode()
    assert "changed by colleague at" in html and "reload" in html and chgk.timezone in html
    assert masks_of(tour) == first


def test_outsiders_may_not_open_or_post_the_grid(client, chgk, tour, django_user_model):
    outsider = django_user_model.objects.create_user("outsider", password="pw-outsider-123456")
    assert english(outsider).get(tour_url(tour)).status_code == 403
    assert english(outsider).post(tour_url(tour), grid_post(tour, {}, tour.version)).status_code == 403
    elsewhere = imported(example("family_league"))
    organizer_elsewhere = user_with_role(elsewhere, django_user_model, "elsewhere")
    assert english(organizer_elsewhere).get(tour_url(tour)).status_code == 403
    anonymous = english().get(tour_url(tour))
    assert anonymous.status_code == 302 and "/accounts/login/" in anonymous["Location"]


def test_the_grid_runs_the_same_queries_for_a_small_and_a_large_season(chgk, tour, django_user_model,
                                                                       django_assert_max_num_queries):
    user = user_with_role(chgk, django_user_model)
    large = imported(chgk_season(teams=40, tours=12))
    large_user = user_with_role(large, django_user_model, "large")
    large_tour = Tour.objects.filter(stage__tournament=large).order_by("number").first()
    for who, item in ((user, tour), (large_user, large_tour)):
        client = english(who)
        with django_assert_max_num_queries(TOUR_ENTRY_QUERIES):
            assert client.get(tour_url(item)).status_code == 200


# --- the game form ---


def game_url(game: Game) -> str:
    return f"/t/{game.stage.tournament.slug}/{game.stage.key}/games/{game.number}/enter/"


def game_post(game: Game, version: int, **changes) -> dict[str, str]:
    """The form as the page fills it in for ``game``."""
    data = {"version": str(version), "number": str(game.number), "status": game.status,
            "outcome": game.outcome or "", "game_days": "" if game.game_days is None else str(game.game_days),
            "round": "" if game.round is None else str(game.round), "link": game.link}
    if game.omon:
        data["omon"] = "1"
    seats = list(game.seats.select_related("player", "team").order_by("order"))
    data["seat_count"] = str(len(seats) + 1)
    for i, s in enumerate(seats):
        data.update({f"seat-{i}-player": s.player.nick, f"seat-{i}-team": s.team.name, f"seat-{i}-role": s.role,
                     f"seat-{i}-stats": "" if s.stats is None else str(s.stats),
                     f"seat-{i}-days_played": "" if s.days_played is None else str(s.days_played),
                     f"seat-{i}-maniac_kills": str(s.maniac_kills)})
        for flag in ("timed_out", "in_final_phase", "fake_passport"):
            if getattr(s, flag):
                data[f"seat-{i}-{flag}"] = "1"
    data[f"seat-{len(seats)}-player"] = ""  # an empty row is left out
    data.update(changes)
    return data


@pytest.fixture
def game(league) -> Game:
    return Game.objects.select_related("stage__tournament").get(stage__tournament=league, number=1)


def test_game_form_shows_the_game_and_its_seats(league, game, django_user_model):
    user = user_with_role(league, django_user_model)
    response = english(user).get(game_url(game))
    assert response.status_code == 200
    html = response.content.decode()
    for seat in game.seats.select_related("player"):
        assert f'value="{seat.player.nick}"' in html
    assert f'name="version" value="{game.version}"' in html
    assert game_url(game) in english(user).get(f"/t/{league.slug}/{game.stage.key}/games/1/").content.decode()


def test_editing_a_game_saves_it_through_the_versioned_write(league, game, django_user_model):
    user = user_with_role(league, django_user_model)
    seats = game.seats.count()
    response = english(user).post(game_url(game), game_post(game, game.version, outcome="mafia"))
    assert response.status_code == 302, response.content.decode()[:2000]
    game.refresh_from_db()
    assert game.outcome == "mafia" and game.version == 2 and game.updated_by == "organizer"
    assert game.seats.count() == seats
    assert game.scheduled_at is not None  # what the form does not show is kept


def test_a_new_game_is_created_with_its_seats(league, game, django_user_model):
    user = user_with_role(league, django_user_model)
    data = game_post(game, 0, number="7", round="4")
    data.pop("version")
    response = english(user).post(f"/t/{league.slug}/{game.stage.key}/games/new/", data)
    assert response.status_code == 302, response.content.decode()[:2000]
    created = Game.objects.get(stage=game.stage, number=7)
    assert created.version == 1 and created.seats.count() == game.seats.count()
    assert response["Location"].endswith("/games/7/enter/?saved=1")


def test_a_bad_seat_is_refused_with_the_rulesets_message_next_to_its_row(league, game, django_user_model):
    user = user_with_role(league, django_user_model)
    response = english(user).post(game_url(game), game_post(game, game.version, **{"seat-2-stats": "999"}))
    assert response.status_code == 400
    html = response.content.decode()
    problems = html.split('id="seat-problems-2"')[1].split("</tr>")[0]
    assert "999 is outside 150..450" in problems and "Seat 3" in problems
    game.refresh_from_db()
    assert game.version == 1


def test_an_unknown_role_is_refused_by_the_interchange_rules(league, game, django_user_model):
    user = user_with_role(league, django_user_model)
    response = english(user).post(game_url(game), game_post(game, game.version, **{"seat-0-role": "sheriff"}))
    assert response.status_code == 400
    assert 'id="seat-problems-0"' in response.content.decode()


def test_a_stale_game_form_is_refused_naming_who_changed_it(league, game, django_user_model):
    user = user_with_role(league, django_user_model)
    other = user_with_role(league, django_user_model, "colleague")
    assert english(other).post(game_url(game), game_post(game, 1, outcome="mafia")).status_code == 302
    response = english(user).post(game_url(game), game_post(game, 1, outcome="draw"))
    assert response.status_code == 409
    assert "changed by colleague at" in response.content.decode()
    game.refresh_from_db()
    assert game.outcome == "mafia"


def test_outsiders_may_not_open_the_game_form(league, game, django_user_model):
    outsider = django_user_model.objects.create_user("outsider", password="pw-outsider-123456")
    assert english(outsider).get(game_url(game)).status_code == 403
    assert english(outsider).post(game_url(game), game_post(game, 1)).status_code == 403
    assert english().get(game_url(game)).status_code == 302


def test_elimination_gp_game_form_shows_who_is_still_in(django_user_model):
    grand_prix = imported(example("elimination_gp"))
    user = user_with_role(grand_prix, django_user_model)
    game = Game.objects.select_related("stage__tournament").filter(stage__tournament=grand_prix).order_by(
        "stage__order", "number").first()
    response = english(user).get(game_url(game))
    assert response.status_code == 200
    html = response.content.decode()
    assert "Still in the stage" in html
    export = StandingsSnapshot.objects.get(tournament=grand_prix, stage_key=game.stage.key).export
    active = [p["player"] for p in export["players"] if p["status"] == "active"]
    assert active and all(player in html for player in active)


def test_the_game_form_runs_the_same_queries_for_a_small_and_a_large_league(league, game, django_user_model,
                                                                           django_assert_max_num_queries):
    user = user_with_role(league, django_user_model)
    large = imported(mafia_league(games=60))
    large_user = user_with_role(large, django_user_model, "large")
    large_game = Game.objects.select_related("stage__tournament").filter(stage__tournament=large).order_by(
        "stage__order", "number").first()
    for who, item in ((user, game), (large_user, large_game)):
        client = english(who)
        with django_assert_max_num_queries(GAME_ENTRY_QUERIES):
            assert client.get(game_url(item)).status_code == 200


def test_a_judge_enters_results_but_a_captain_may_not(chgk, tour, django_user_model):
    """Results are the organizers', judges' and curator's (accounts.permissions.can_enter_results)."""
    judge = user_with_role(chgk, django_user_model, "judge", Role.JUDGE)
    masks = {team: "0" * tour.questions for team in masks_of(tour)}
    response = english(judge).post(tour_url(tour), grid_post(tour, masks, tour.version))
    assert response.status_code == 302
    assert masks_of(tour) == masks
    captain = user_with_role(chgk, django_user_model, "captain", Role.CAPTAIN)
    assert english(captain).get(tour_url(tour)).status_code == 403
