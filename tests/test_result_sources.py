"""The pure readers of a mafiaonline.ru game log and of the ChGK rating site's responses,
on every real file of tests/data/real/ (copied from shared/real-data) and on broken inputs."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from django.utils import translation

from rulesets.chgk_tour_points.tours import average_place, shared_places
from tournaments.sources.chgk_rating import decode, parse_rating_results
from tournaments.sources.mafiaonline_log import parse_game_log


@pytest.fixture(autouse=True)
def _english():
    """The refusals are checked in English, whatever language an earlier test left active."""
    with translation.override("en"):
        yield


REAL = Path(__file__).resolve().parent / "data" / "real"
LOGS = REAL / "mafiaonline" / "logs"
CHGK = REAL / "chgk"
ROLE = {"c": "civilian", "K": "commissar", "S": "sergeant", "D": "doctor", "m": "mafia", "B": "don", "X": "maniac"}

# Read by hand from each log: the seat table (nick, role picture) and the host's last lines.
EXPECTED = {
    3624027: (["Melancholia", "Йогурт", "Taurus", "Хоккинг", "Престижиратор", "Маленькая Пакость", "Кот в сапогах",
               "Jasmine", "Shakhtar", "гребля", "Mordekai Rigbi", "Гаврюша", "Vera", "De Mari", "Мальок",
               "Asmodeus"], "ccccDccKccSmBXmc", "civilians", False, 5),
    3624161: (["fedanet", "September", "Антон Городецкий", "Валькирия", "Хоккинг", "Suloj", "European", "Barbie",
               "cherynka", "takotorayaeva", "Alex Bond", "Сова", "Пушиночка", "Miracle-man", "Envy"],
              "ScccmcXDmcccBcK", "civilians", False, 5),
    3624224: (["Антон Городецкий", "Grace_K", "Намико", "Antipups", "Aruchomu", "Jerry Tough", "Mussurana", "Лиса",
               "Arcane", "Anchelotti", "Веро", "Nostra", "Aikeshier", "apaapaapa", "Australlian", "Рыся"],
              "KccDmcBmcccccXcS", "civilians", False, 4),
    3624505: (["klejti", "ФК Мордовия", "Mussurana", "Валькирия", "Гаврюша", "Mordekai Rigbi", "Микроша", "Jasmine",
               "Anchelotti", "Веро", "Lion", "apaapaapa", "Дюдюка", "Кот в сапогах", "takotorayaeva",
               "Маленькая Пакость"], "XccccmKcScBcccmD", "civilians", True, 6),
    3665747: (["Микроша", "Grace_K", "EugenES7", "Мальок", "wasp", "Flur", "Nostra", "Remedios_Perfect", "Aruchomu"],
              "ccccccKmm", "civilians", False, 3),
    3674589: (["kievlala", "raulgonzalez", "Валькирия", "Snoopy", "Inn-Ah", "wasp", "A La Magnifique",
               "Вероника Шевчук", "Веро", "memory"], "ccmKmccccc", "civilians", False, 4),
    3675036: (["cherynka", "Грустника", "Вероника Шевчук", "neos", "Веро", "apaapaapa", "Мальок", "БагирКа",
               "BlueeyesKitten", "Esthetique"], "cmmcKccccc", "civilians", False, 4),
    3675433: (["De Mari", "TaNaRiS", "BlueeyesKitten", "A La Magnifique", "Taurus", "Miracle-man", "Хоккинг", "wasp",
               "Пушиночка", "Валькирия"], "cKcccccmcm", "mafia", False, 5),
}


def log_text(number: int) -> str:
    return (LOGS / f"{number}.html").read_text(encoding="utf-8")


def seat(game: dict, nick: str) -> dict:
    return next(s for s in game["seats"] if s["player"] == nick)


@pytest.mark.parametrize("number", sorted(EXPECTED))
def test_real_log_players_roles_outcome_omon_and_game_days(number):
    """Players in seat order, roles (the boss's son/daughter a civilian), outcome, OMON and FL-14's game days."""
    nicks, roles, outcome, omon, days = EXPECTED[number]
    game, problems = parse_game_log(log_text(number))
    assert problems == []
    assert [s["player"] for s in game["seats"]] == nicks
    assert [s["role"] for s in game["seats"]] == [ROLE[c] for c in roles]
    assert (game["number"], game["status"], game["outcome"], game["omon"], game["game_days"]) == (
        number, "played", outcome, omon, days)
    assert game["link"] == f"http://mafiaonline.ru/log/{number}"
    assert all(s["days_played"] <= game["game_days"] for s in game["seats"])


def test_days_played_counts_the_day_of_ones_own_jailing_and_nights_after_days():
    """3624027: Taurus killed in night 1 (1 day), Shakhtar jailed at the end of day 1 (1), Vera on day 3 (3),
    survivors all 5 days; Хоккинг left after being killed: no time-out."""
    game, _ = parse_game_log(log_text(3624027))
    assert [seat(game, n)["days_played"] for n in ("Taurus", "Shakhtar", "Vera", "Хоккинг", "Asmodeus")] == [
        1, 1, 3, 3, 5]
    assert not any(s["timed_out"] for s in game["seats"])


def test_maniac_kills_are_the_nights_victims_the_maniac_shot():
    """3624224: apaapaapa kills Лиса (night 1) and Arcane (night 2, shot by the mafia too), sleeps in night 3;
    3624505: klejti kills three; 3624161: the maniac dies the night he shoots, his target lives."""
    assert seat(parse_game_log(log_text(3624224))[0], "apaapaapa")["maniac_kills"] == 2
    assert seat(parse_game_log(log_text(3624505))[0], "klejti")["maniac_kills"] == 3
    assert seat(parse_game_log(log_text(3624161))[0], "European")["maniac_kills"] == 0


def test_in_final_phase_is_who_was_in_the_last_day_or_night():
    """3675433 ends in a night (mafia win): Хоккинг, jailed the day before, is not in it; 3665747 ends on a
    day: the jailed Aruchomu took part in it."""
    night, _ = parse_game_log(log_text(3675433))
    assert {s["player"] for s in night["seats"] if s["in_final_phase"]} == {"wasp", "Пушиночка"}
    day, _ = parse_game_log(log_text(3665747))
    assert {s["player"] for s in day["seats"] if s["in_final_phase"]} == {
        "Grace_K", "Мальок", "wasp", "Flur", "Nostra", "Aruchomu"}


def test_riot_police_sets_omon_and_jails_on_a_game_day():
    """3624505: "Рассвирепевший ОМОНОВЕЦ ... Lion будет отправлен в тюрьму" ends the game: omon, a civilians
    win, Lion jailed on the 6th game day."""
    game, _ = parse_game_log(log_text(3624505))
    assert game["omon"] is True and game["outcome"] == "civilians"
    assert seat(game, "Lion")["days_played"] == 6 == game["game_days"]


def test_an_alive_player_leaving_the_game_is_a_time_out():
    text = log_text(3665747).replace(
        "[ОМОНОВЕЦ]  Наступил день. Честные люди ищут мафию.<br>",
        "[ОМОНОВЕЦ]  Наступил день. Честные люди ищут мафию.<br>10:49 [ОМОНОВЕЦ] <b>Flur Воспользовался правом "
        "выйти из партии.</b><br>", 1)
    game, problems = parse_game_log(text)
    assert problems == []
    assert seat(game, "Flur")["timed_out"] is True
    assert seat(game, "Flur")["days_played"] == 1


def test_an_unknown_ending_is_refused_quoting_the_line():
    game, problems = parse_game_log(log_text(3665747).replace("Вся мафия убита.", "Победила дружба."))
    assert [p.path for p in problems] == ["outcome"]
    assert "Игра окончена. Победила дружба." in problems[0].message


@pytest.mark.parametrize("cut", [2000, 20000, -300])
def test_a_truncated_log_is_refused(cut):
    game, problems = parse_game_log(log_text(3624027)[:cut])
    assert game is None and problems
    assert "truncated" in problems[0].message


def test_another_page_of_the_site_is_refused():
    page = "<html><head><title>Мафия онлайн ::: Форум</title></head><body><table><tr><td>x</td></tr></table>" \
           "</body></html>"
    game, problems = parse_game_log(page)
    assert game is None
    assert "not a mafiaonline.ru game log" in problems[0].message


def rating_files() -> list[Path]:
    return [CHGK / "chgkrating_3506_teams_at_tournament.json", CHGK / "questionshub_rating_results_13097.json",
            *sorted((CHGK / "rating-v1").glob("*.json"))]


@pytest.mark.parametrize("path", rating_files(), ids=lambda p: p.stem)
def test_rating_file_masks_and_chgk_13_places_equal_the_official_positions(path):
    """Every real response: the places of CHGK-13 (shared, averaged) from the masks with the verdicts applied
    equal the site's positions, except 3506's places 1 and 2 (a shoot-out the masks do not record)."""
    parsed, problems = parse_rating_results(json.loads(path.read_text(encoding="utf-8")))
    assert problems == []
    correct = {t["name"]: t["site_mask"].count("1") for t in parsed["teams"]}
    places = shared_places(correct)
    differ = sorted(t["name"] for t in parsed["teams"] if average_place(*places[t["name"]]) != t["site_position"])
    if "3506" in path.stem:
        assert differ == sorted(["Большие красные прокариоты", "Ныробская яма"])
    else:
        assert differ == []
    assert {len(t["mask"]) for t in parsed["teams"]} == {parsed["questions"]}


def test_v1_column_oriented_keeps_x_as_a_removed_question():
    data = json.loads((CHGK / "rating-v1" / "rosolimo_get_tourn_4441.json").read_text(encoding="utf-8"))
    parsed, problems = parse_rating_results(data)
    assert problems == [] and parsed["shape"] == "v1-columns" and parsed["questions"] == 36
    assert all(t["mask"][14] == "X" for t in parsed["teams"])
    assert parsed["teams"][0]["site_position"] == Fraction(2)


def test_v2_controversials_give_the_jurys_mask_before_the_appeal():
    """CHGK-22: an accepted controversial is 1 on the site and 0 in the jury's mask; the verdicts A and D."""
    data = json.loads((CHGK / "questionshub_rating_results_13097.json").read_text(encoding="utf-8"))
    parsed, problems = parse_rating_results(data)
    assert problems == [] and parsed["shape"] == "v2"
    xpromt = parsed["teams"][0]
    assert xpromt["site_mask"][2] == "1" and xpromt["mask"][2] == "0"
    assert {c["verdict"] for c in parsed["controversials"]} <= {"accepted", "rejected"}
    q3 = next(c for c in parsed["controversials"] if c["question"] == 3 and c["verdict"] == "accepted")
    assert len(q3["teams"]) > 1  # one appeal, every team that gave the answer credited


@pytest.mark.parametrize("data", [{"format": "tournament-portal/1"}, [{"a": 1}], [], "text", {"mask": [1, 2]}])
def test_a_json_of_another_shape_is_refused(data):
    parsed, problems = parse_rating_results(data)
    assert parsed is None and "not a rating-site results response" in problems[0].message


def test_a_file_that_is_not_json_is_refused():
    assert decode(b"<html>")[0] is None and "not JSON" in decode(b"<html>")[1][0].message
