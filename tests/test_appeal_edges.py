"""Appeals that hold at every edge (``spec/roles.md``, "Appeals at their edges"): each edge at the
instant before and after it, and each through the filing form, the API and the import.

A filing surface takes the appeal as the interchange writes it; the form and the API file it as the appellant's
captain or player at the appeal's ``filed_at`` (the clock is set to it), the import imports a document holding it.
Appeals that come ``earlier`` are filed the same way first (and decided through the service when they carry a
verdict). A refusal stores nothing: no appeal through the form or the API, no tournament through the import.
"""

from __future__ import annotations

import copy
import datetime as dt
import html
import re
import zoneinfo
from dataclasses import dataclass
from decimal import Decimal

import pytest
from django.core import mail
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from accounts.models import Role
from appeals.services import decide, verdict_overdue
from appeals.tasks import digest_rows
from scoring.services import current_export
from tests.conftest import example
from tests.factories import RoleFactory, UserFactory, user_playing_as
from tournaments.importer import ImportRefused, import_document
from tournaments.models import Appeal, Penalty, Team, Tournament

pytestmark = pytest.mark.django_db
MSK = zoneinfo.ZoneInfo("Europe/Moscow")
API = "/api/v1"
SURFACES = ("form", "api", "import")
INSTANT = dt.timedelta(microseconds=1)
LATER = dt.datetime(2030, 1, 1, tzinfo=dt.UTC)

# ChGK example: tour 2 played on Thursday 21 February 2013 (D) in Moscow (+04:00 then), hosted by Signum
D = dt.datetime(2013, 2, 21, 0, 0, tzinfo=MSK)
D_PLUS_10 = dt.datetime(2013, 3, 3, 0, 0, tzinfo=MSK)
# family league example: the judge's FP-11 penalty of Fam07 (0.3 points, game 5), decided at 10:00 on 4 September
PENALTY_AT = dt.datetime(2014, 9, 4, 10, 0, tzinfo=MSK)
DECIDED = dt.datetime(2014, 9, 9, 12, 0, tzinfo=MSK)
PUBLISHED = dt.datetime(2014, 9, 9, 14, 0, tzinfo=MSK)


def with_role(tournament, role):
    user = UserFactory()
    RoleFactory(user=user, tournament=tournament, role=role)
    return user


def api(user=None) -> APIClient:
    client = APIClient(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        client.force_authenticate(user)
    return client


def browser(user=None) -> Client:
    client = Client(HTTP_ACCEPT_LANGUAGE="en")
    if user is not None:
        client.force_login(user)
    return client


def chgk_document() -> dict:
    """The ChGK example with no appeal on tour 2 (its removal by Lynx left out)."""
    document = example("chgk_tour_points")
    document["appeals"] = [a for a in document["appeals"] if a["tour"] != 2]
    return document


def chgk_appeal(team: str = "Rotor", kind: str = "removal", question: int = 3, at: dt.datetime = D, **extra) -> dict:
    return {"stage": "season", "tour": 2, "question": question, "team": team, "kind": kind,
            "filed_at": at.isoformat(), **extra}


def league_document(decision: bool = False) -> dict:
    """The family league example (its penalty 1: Fam07's FP-11 in game 5), with a technical result of game 6
    decided at 12:00 and published at 14:00 on 9 September when ``decision``."""
    document = example("family_league")
    if decision:
        document["decisions"] = [{"stage": "final", "game": 6, "kind": "technical_result", "outcome": "civilians",
                                  "decided_at": DECIDED.isoformat(), "published_at": PUBLISHED.isoformat()}]
    return document


def penalty_appeal(at: dt.datetime, team: str = "Fam07", **extra) -> dict:
    return {"stage": "final", "penalty": 1, "appellant": team, "team": team, "kind": "penalty",
            "filed_at": at.isoformat(), **extra}


def decision_appeal(at: dt.datetime, team: str = "Fam01", **extra) -> dict:
    return {"stage": "final", "decision": 1, "appellant": team, "team": team, "kind": "decision",
            "filed_at": at.isoformat(), **extra}


@dataclass
class Filed:
    accepted: bool
    text: str
    tournament: Tournament | None
    appeal: Appeal | None = None


def filer(tournament: Tournament, team_name: str):
    """The captain (ChGK, CHGK-20) or a player (Mafia) of the team, as a user."""
    team = Team.objects.get(tournament=tournament, name=team_name)
    if tournament.ruleset == "chgk_tour_points":
        return user_playing_as(team.captain.nick)
    return user_playing_as(team.roster.order_by("order").last().player.nick)


def payload(tournament: Tournament, appeal: dict) -> dict:
    """The interchange appeal as the form and the API take it."""
    data = {"argument": appeal.get("argument", "the ruling is wrong")}
    if appeal["kind"] in ("removal", "accept_answer"):
        data.update(tour=appeal["tour"], question=appeal["question"], kind=appeal["kind"])
        if appeal.get("answer"):
            data["answer"] = appeal["answer"]
    elif appeal["kind"] == "penalty":
        data.update(penalty=Penalty.objects.filter(tournament=tournament, replacement_for=None).order_by(
            "order", "id")[appeal["penalty"] - 1].pk, appellant=appeal["appellant"])
    elif appeal["kind"] == "violation":
        data.update(stage=appeal["stage"], game=appeal["game"], violation=appeal["violation"],
                    player=appeal["player"], appellant=appeal["team"])
    else:
        data.update(decision=appeal["decision"], appellant=appeal["appellant"])
    return data


def _file_live(surface: str, monkeypatch, tournament: Tournament, appeal: dict) -> Filed:
    at = dt.datetime.fromisoformat(appeal["filed_at"])
    monkeypatch.setattr(timezone, "now", lambda: at)
    user = filer(tournament, appeal["team"])
    before = set(Appeal.objects.filter(tournament=tournament).values_list("pk", flat=True))
    data = payload(tournament, appeal)
    if surface == "form":
        response = browser(user).post(f"/appeals/t/{tournament.slug}/file/", data)
        if response.status_code == 302:
            text = ""
        else:
            assert response.status_code == 200, response.content.decode()[:2000]
            found = re.search(r'<p class="error" role="alert">(.*?)</p>', response.content.decode(), re.S)
            text = html.unescape(found.group(1)) if found else ""
    else:
        response = api(user).post(f"{API}/appeals/", {"tournament": tournament.slug, **data}, format="json")
        assert response.status_code in (201, 400), response.content
        text = "; ".join(e["message"] for e in response.json().get("errors", [])) if response.status_code == 400 \
            else ""
    new = Appeal.objects.filter(tournament=tournament).exclude(pk__in=before)
    accepted = not text
    assert new.count() == (1 if accepted else 0), "a refused appeal stores nothing"
    return Filed(accepted, text, tournament, new.first())


def file(surface: str, monkeypatch, document: dict, appeal: dict, earlier: tuple[dict, ...] = ()) -> Filed:
    """File ``appeal`` after the ``earlier`` ones through ``surface``."""
    if surface == "import":
        doc = copy.deepcopy(document)
        doc["appeals"] = [*doc.get("appeals", []), *earlier, appeal]
        try:
            tournament = import_document(doc)
        except ImportRefused as exc:
            assert not Tournament.objects.filter(slug=doc["tournament"]["slug"]).exists(), "nothing is stored"
            return Filed(False, str(exc), None)
        return Filed(True, "", tournament, Appeal.objects.filter(tournament=tournament).order_by("-order").first())
    tournament = import_document(document)
    for first in earlier:
        filed = _file_live(surface, monkeypatch, tournament, {k: v for k, v in first.items()
                                                              if k not in ("verdict", "decided_at")})
        assert filed.accepted, filed.text
        if first.get("verdict"):
            decider = with_role(tournament, Role.JURY if tournament.ruleset == "chgk_tour_points" else Role.CURATOR)
            decide(filed.appeal, decider, first["verdict"], reasons="as the rules say",
                   now=dt.datetime.fromisoformat(first["decided_at"]))
    return _file_live(surface, monkeypatch, tournament, appeal)


# --- no appeal before the tour is played (CHGK-18) or before the decision's publication ----------------------


@pytest.mark.parametrize("surface", SURFACES)
def test_chgk_18_no_appeal_before_00_00_of_d_and_one_from_it(surface, monkeypatch):
    refused = file(surface, monkeypatch, chgk_document(), chgk_appeal(at=D - INSTANT))
    assert not refused.accepted and "CHGK-18" in refused.text and "before tour 2 was played" in refused.text
    assert "00:00 of its day" in refused.text
    accepted = file(surface, monkeypatch, chgk_document() | {"tournament": {
        **chgk_document()["tournament"], "slug": "from-d"}}, chgk_appeal(at=D))
    assert accepted.accepted, accepted.text


def test_chgk_18_the_tour_page_offers_appeals_from_00_00_of_d_not_before(monkeypatch):
    tournament = import_document(chgk_document())
    captain = filer(tournament, "Rotor")
    monkeypatch.setattr(timezone, "now", lambda: D - INSTANT)
    page = browser(captain).get(f"/t/{tournament.slug}/tours/2/").content.decode()
    assert "kind=accept_answer" not in page and 'class="appeal-start"' not in page
    assert "Appeals on this tour's questions open at 21 February 2013, 00:00 (Europe/Moscow, CHGK-18)" in (
        html.unescape(page))
    assert "closed at" not in page
    monkeypatch.setattr(timezone, "now", lambda: D)
    page = browser(captain).get(f"/t/{tournament.slug}/tours/2/").content.decode()
    assert 'class="appeal-start"' in page and "You file for Rotor (CHGK-20)." in page


@pytest.mark.parametrize("surface", ("form", "api"))
def test_chgk_18_a_tour_not_played_yet_takes_no_appeal(surface, monkeypatch):
    """Tour 2 without a date and without results: no appeal on its questions (the import refuses the team, which
    has no mask in it: CHGK-20)."""
    document = chgk_document()
    tour = document["stages"][0]["tours"][1]
    tour.pop("played_on")
    tour.pop("masks")
    refused = file(surface, monkeypatch, document, chgk_appeal(at=D))
    assert not refused.accepted and "has not been played yet" in refused.text and "CHGK-18" in refused.text


@pytest.mark.parametrize("surface", SURFACES)
def test_fl_19_no_appeal_before_the_decisions_publication_and_one_at_it(surface, monkeypatch):
    refused = file(surface, monkeypatch, league_document(decision=True), decision_appeal(PUBLISHED - INSTANT))
    assert not refused.accepted and "before decision 1 was published" in refused.text and "FL-19" in refused.text
    document = league_document(decision=True)
    document["tournament"]["slug"] = "at-publication"
    accepted = file(surface, monkeypatch, document, decision_appeal(PUBLISHED))
    assert accepted.accepted, accepted.text


# --- FL-19: a judge's penalty is appealable like any decision -------------------------------------------------


@pytest.mark.parametrize("surface", SURFACES)
def test_fl_19_a_penalty_is_appealable_from_its_publication_not_before(surface, monkeypatch):
    refused = file(surface, monkeypatch, league_document(), penalty_appeal(PENALTY_AT - INSTANT))
    assert not refused.accepted and "before penalty 1 was published" in refused.text and "FL-19" in refused.text
    document = league_document()
    document["tournament"]["slug"] = "penalty-published"
    accepted = file(surface, monkeypatch, document, penalty_appeal(PENALTY_AT))
    assert accepted.accepted, accepted.text
    assert accepted.appeal.kind == "penalty" and accepted.appeal.penalty.code == "FP-11"


@pytest.mark.parametrize("surface", SURFACES)
def test_fl_19_a_penalty_is_appealable_until_72_hours_after_its_publication_not_after(surface, monkeypatch):
    closes = PENALTY_AT + dt.timedelta(hours=72)
    refused = file(surface, monkeypatch, league_document(), penalty_appeal(closes + INSTANT))
    assert not refused.accepted and "FL-19" in refused.text
    document = league_document()
    document["tournament"]["slug"] = "penalty-in-time"
    accepted = file(surface, monkeypatch, document, penalty_appeal(closes))
    assert accepted.accepted, accepted.text


@pytest.mark.parametrize("surface", SURFACES)
def test_fl_19_a_penalty_window_runs_from_its_published_at_when_given(surface, monkeypatch):
    """``published_at`` (roles.md), defaulting to ``decided_at``: published a day later, the window moves."""
    document = league_document()
    published = PENALTY_AT + dt.timedelta(days=1)
    document["penalties"][0]["published_at"] = published.isoformat()
    refused = file(surface, monkeypatch, document, penalty_appeal(published - INSTANT))
    assert not refused.accepted and "before penalty 1 was published" in refused.text
    document["tournament"]["slug"] = "penalty-published-later"
    accepted = file(surface, monkeypatch, document, penalty_appeal(published + dt.timedelta(hours=72)))
    assert accepted.accepted, accepted.text


def points_of(tournament, team: str = "Fam07") -> float:
    return next(r["points"] for r in current_export(tournament, now=LATER)["teams"] if r["team"] == team)


def league_without_the_penalty(points: str | None = None) -> Tournament:
    """The example as if the judge had given no penalty (or one of ``points``): the table an appeal must give."""
    document = league_document()
    document["tournament"]["slug"] = "direct"
    if points is None:
        document["penalties"] = []
    else:
        document["penalties"][0]["points"] = points
    return import_document(document)


def decide_through(surface: str, appeal: Appeal, verdict: str, replacement: dict | None = None):
    curator = with_role(appeal.tournament, Role.CURATOR)
    if surface == "form":
        data = {"verdict": verdict, "reasons": "the log shows no insult"}
        data.update({f"replacement-{key}": value for key, value in (replacement or {}).items()})
        response = browser(curator).post(f"/appeals/{appeal.pk}/verdict/", data)
        assert response.status_code == 302, response.content.decode()[:3000]
    else:
        body = {"verdict": verdict, "reasons": "the log shows no insult"}
        if replacement:
            body["replacement"] = replacement
        response = api(curator).post(f"{API}/appeals/{appeal.pk}/verdict/", body, format="json")
        assert response.status_code == 200, response.content
        return response.json()
    return None


@pytest.mark.parametrize("surface", SURFACES)
def test_fl_19_an_upheld_penalty_appeal_annuls_the_penalty_and_the_standings_recompute(surface, monkeypatch):
    appeal = penalty_appeal(PENALTY_AT + dt.timedelta(hours=1))
    if surface == "import":
        filed = file(surface, monkeypatch, league_document(), {**appeal, "verdict": "accepted"})
    else:
        filed = file(surface, monkeypatch, league_document(), appeal)
        before = points_of(filed.tournament)
        decide_through(surface, filed.appeal, "accepted")
        assert points_of(filed.tournament) == pytest.approx(before + 0.3)
    assert filed.accepted, filed.text
    assert points_of(filed.tournament) == points_of(league_without_the_penalty())
    assert Appeal.objects.get(pk=filed.appeal.pk).verdict == "accepted"


@pytest.mark.parametrize("surface", SURFACES)
def test_fl_19_a_partly_upheld_penalty_appeal_replaces_it_with_the_changed_penalty(surface, monkeypatch):
    appeal = penalty_appeal(PENALTY_AT + dt.timedelta(hours=1))
    if surface == "import":
        changed = {"stage": "final", "game": 5, "team": "Fam07", "player": "Fam07-p2", "kind": "fair_play",
                   "code": "FP-11", "points": "0.1", "decided_at": "2014-09-06T10:00:00+04:00"}
        filed = file(surface, monkeypatch, league_document(), {**appeal, "verdict": "partly", "replacement": changed})
    else:
        filed = file(surface, monkeypatch, league_document(), appeal)
        shown = decide_through(surface, filed.appeal, "partly", {"points": "0.1"})
        if shown is not None:
            assert shown["replacement"]["points"] == "0.100" and shown["penalty"] == filed.appeal.penalty_id
    assert filed.accepted, filed.text
    stored = Penalty.objects.get(replacement_for=filed.appeal)
    assert stored.points == Decimal("0.1") and stored.team.name == "Fam07" and stored.game.number == 5
    assert points_of(filed.tournament) == points_of(league_without_the_penalty("0.1"))
    page = browser().get(f"/appeals/{filed.appeal.pk}/").content.decode()
    assert "Changed penalty" in page and "replaces the appealed penalty, FL-19" in page


def test_fl_19_the_verdict_form_on_a_penalty_offers_partly_with_the_changed_penalty(monkeypatch):
    filed = file("form", monkeypatch, league_document(), penalty_appeal(PENALTY_AT + dt.timedelta(hours=1)))
    form = browser(with_role(filed.tournament, Role.CURATOR)).get(
        f"/appeals/{filed.appeal.pk}/verdict/").content.decode()
    assert 'value="partly"' in form and 'name="replacement-points"' in form
    assert "FP-11" in form[form.index('class="ruled-on"'):], "the verdict form names the appealed penalty"


def test_fl_19_a_partly_verdict_on_a_penalty_without_the_changed_penalty_is_refused(monkeypatch):
    filed = file("api", monkeypatch, league_document(), penalty_appeal(PENALTY_AT + dt.timedelta(hours=1)))
    curator = with_role(filed.tournament, Role.CURATOR)
    refused = api(curator).post(f"{API}/appeals/{filed.appeal.pk}/verdict/", {"verdict": "partly", "reasons": "x"},
                                format="json")
    assert refused.status_code == 400 and "FL-19" in refused.content.decode()
    zero = api(curator).post(f"{API}/appeals/{filed.appeal.pk}/verdict/", {
        "verdict": "partly", "reasons": "x", "replacement": {"points": "0"}}, format="json")
    assert zero.status_code == 400 and "positive" in zero.content.decode()
    assert Appeal.objects.get(pk=filed.appeal.pk).verdict is None
    assert not Penalty.objects.filter(replacement_for__isnull=False).exists()


def test_fl_19_the_game_page_offers_the_appeal_of_a_judges_penalty():
    tournament = import_document(league_document())
    page = browser().get(f"/t/{tournament.slug}/final/games/5/").content.decode()
    penalty = Penalty.objects.get(tournament=tournament)
    assert f"?penalty={penalty.pk}" in page
    filing = browser(filer(tournament, "Fam07")).get(f"/appeals/t/{tournament.slug}/file/?penalty={penalty.pk}")
    assert filing.status_code == 200 and "FP-11" in filing.content.decode()


# --- one appeal per team, target and kind ------------------------------------------------------------------


@pytest.mark.parametrize("surface", SURFACES)
@pytest.mark.parametrize("verdict", [None, "rejected"])
def test_chgk_19_one_appeal_per_team_question_and_kind_the_second_refused_naming_the_first(surface, verdict,
                                                                                          monkeypatch):
    first = chgk_appeal(at=D + dt.timedelta(hours=12))
    if verdict:
        first.update(verdict=verdict, decided_at=(D + dt.timedelta(days=2)).isoformat())
    second = chgk_appeal(at=D + dt.timedelta(days=3))
    refused = file(surface, monkeypatch, chgk_document(), second, earlier=(first,))
    assert not refused.accepted and "CHGK-19" in refused.text
    assert "Rotor has already asked for the removal of question 3 of tour 2" in refused.text
    named = "appeals[1]" if surface == "import" else "appeal no. "
    assert named in refused.text, "the refusal names the earlier appeal"
    if surface != "import":
        assert "(Europe/Moscow)" in refused.text


@pytest.mark.parametrize("surface", SURFACES)
def test_chgk_19_the_same_team_files_the_other_kind_and_other_teams_file_their_own(surface, monkeypatch):
    first = chgk_appeal(at=D + dt.timedelta(hours=12))
    other_kind = chgk_appeal(kind="accept_answer", answer="Гаусс", at=D + dt.timedelta(days=1))
    other_team = chgk_appeal(team="Felidae", at=D + dt.timedelta(days=2))
    accepted = file(surface, monkeypatch, chgk_document(), other_team, earlier=(first, other_kind))
    assert accepted.accepted, accepted.text
    assert Appeal.objects.filter(tournament=accepted.tournament, tour__number=2, question=3).count() == 3


@pytest.mark.parametrize("surface", SURFACES)
def test_fl_19_the_same_appellant_appeals_a_decision_once(surface, monkeypatch):
    first = decision_appeal(PUBLISHED + dt.timedelta(hours=1))
    refused = file(surface, monkeypatch, league_document(decision=True), decision_appeal(
        PUBLISHED + dt.timedelta(hours=2)), earlier=(first,))
    assert not refused.accepted and "Fam01 has already appealed decision 1" in refused.text
    assert "FL-19" in refused.text
    document = league_document(decision=True)
    document["tournament"]["slug"] = "other-family"
    accepted = file(surface, monkeypatch, document, decision_appeal(PUBLISHED + dt.timedelta(hours=2), team="Fam02"),
                    earlier=(first,))
    assert accepted.accepted, accepted.text


@pytest.mark.parametrize("surface", SURFACES)
def test_fl_19_the_same_appellant_appeals_a_penalty_once(surface, monkeypatch):
    first = penalty_appeal(PENALTY_AT + dt.timedelta(hours=1))
    refused = file(surface, monkeypatch, league_document(), penalty_appeal(PENALTY_AT + dt.timedelta(hours=2)),
                   earlier=(first,))
    assert not refused.accepted and "Fam07 has already appealed penalty 1" in refused.text
    assert "FL-19" in refused.text


def league_with_a_violation() -> tuple[dict, str]:
    """Game 1 with a second seat of Fam01 (FL-15.3), its result recorded at 21:00 on 1 September."""
    document = example("family_league")
    game = document["stages"][0]["games"][0]
    first = next(s for s in game["seats"] if s["team"] == "Fam01")
    violator = "Fam01-p4" if first["player"] != "Fam01-p4" else "Fam01-p1"
    game["seats"].append({**first, "player": violator, "role": "civilian"})
    game["result_recorded_at"] = "2014-09-01T21:00:00+04:00"
    return document, violator


@pytest.mark.parametrize("surface", ("form", "api"))
def test_fl_19_a_family_appeals_one_detected_violation_once(surface, monkeypatch):
    """The interchange has no appeal of a detected violation (it is the portal's own, FL-15): form and API."""
    document, violator = league_with_a_violation()
    appeal = {"kind": "violation", "stage": "final", "game": 1, "violation": "two_players", "player": violator,
              "team": "Fam01", "filed_at": "2014-09-02T10:00:00+04:00"}
    refused = file(surface, monkeypatch, document, {**appeal, "filed_at": "2014-09-02T11:00:00+04:00"},
                   earlier=(appeal,))
    assert not refused.accepted and "Fam01 has already appealed the violation" in refused.text
    assert "FL-19" in refused.text and "appeal no. " in refused.text


@pytest.mark.parametrize("surface", ("form", "api"))
def test_fl_19_no_appeal_of_a_detected_violation_before_its_result_was_recorded(surface, monkeypatch):
    document, violator = league_with_a_violation()
    appeal = {"kind": "violation", "stage": "final", "game": 1, "violation": "two_players", "player": violator,
              "team": "Fam01", "filed_at": "2014-09-01T20:59:59.999999+04:00"}
    refused = file(surface, monkeypatch, document, appeal)
    assert not refused.accepted and "no appeal before its publication (FL-19)" in refused.text
    document["tournament"]["slug"] = "at-the-result"
    accepted = file(surface, monkeypatch, document, {**appeal, "filed_at": "2014-09-01T21:00:00+04:00"})
    assert accepted.accepted, accepted.text


# --- only a team that played the tour (CHGK-7, CHGK-10) ------------------------------------------------------


@pytest.mark.parametrize("surface", SURFACES)
def test_chgk_7_the_host_of_a_tour_cannot_appeal_its_questions(surface, monkeypatch):
    refused = file(surface, monkeypatch, chgk_document(), chgk_appeal(team="Signum", at=D + dt.timedelta(hours=1)))
    assert not refused.accepted and "Signum did not play tour 2" in refused.text
    assert "CHGK-7" in refused.text and "CHGK-20" in refused.text


@pytest.mark.parametrize("surface", SURFACES)
def test_chgk_10_a_team_absent_from_the_tour_cannot_appeal_its_questions(surface, monkeypatch):
    document = chgk_document()
    tour = document["stages"][0]["tours"][1]
    del tour["masks"]["Delirium"]
    tour["absent"] = ["Delirium"]
    refused = file(surface, monkeypatch, document, chgk_appeal(team="Delirium", at=D + dt.timedelta(hours=1)))
    assert not refused.accepted and "Delirium did not play tour 2 and cannot appeal its questions" in refused.text


# --- CHGK-21: once a removal is upheld, no new appeal on the question -----------------------------------------

UPHELD = D + dt.timedelta(days=5)


def upheld_removal() -> dict:
    return chgk_appeal(team="Felidae", at=D + dt.timedelta(hours=10), verdict="accepted",
                       decided_at=UPHELD.isoformat())


@pytest.mark.parametrize("surface", SURFACES)
def test_chgk_21_no_new_appeal_on_a_question_once_its_removal_is_upheld(surface, monkeypatch):
    """Filed at the verdict's instant or later: refused; the window itself is still open (D+3 has not passed
    in this document: the verdict is dated within it)."""
    document = chgk_document()
    early_verdict = D + dt.timedelta(days=2)
    removal = {**upheld_removal(), "decided_at": early_verdict.isoformat()}
    refused = file(surface, monkeypatch, document, chgk_appeal(kind="accept_answer", answer="Гаусс",
                                                               at=early_verdict), earlier=(removal,))
    assert not refused.accepted and "was removed when" in refused.text and "CHGK-21" in refused.text
    document["tournament"]["slug"] = "before-the-verdict"
    accepted = file(surface, monkeypatch, document, chgk_appeal(kind="accept_answer", answer="Гаусс",
                                                                at=early_verdict - INSTANT), earlier=(removal,))
    assert accepted.accepted, accepted.text


@pytest.mark.parametrize("surface", SURFACES)
def test_chgk_21_a_pending_appeal_on_a_removed_question_is_shown_question_removed_and_changes_nothing(
        surface, monkeypatch):
    removal = {**upheld_removal(), "decided_at": (D + dt.timedelta(days=2)).isoformat()}
    dual = chgk_appeal(kind="accept_answer", answer="Гаусс", at=D + dt.timedelta(days=1))
    if surface == "import":
        filed = file(surface, monkeypatch, chgk_document(), removal, earlier=(dual,))
    else:
        tournament = import_document(chgk_document())
        dual_filed = _file_live(surface, monkeypatch, tournament, dual)
        removal_filed = _file_live(surface, monkeypatch, tournament, {k: v for k, v in removal.items()
                                                                      if k not in ("verdict", "decided_at")})
        decide(removal_filed.appeal, with_role(tournament, Role.JURY), "accepted", reasons="two answers",
               now=dt.datetime.fromisoformat(removal["decided_at"]))
        filed = Filed(True, "", tournament, dual_filed.appeal)
    assert filed.accepted, filed.text
    tournament = filed.tournament
    pending = Appeal.objects.get(tournament=tournament, kind="accept_answer", tour__number=2)
    jury = with_role(tournament, Role.JURY)
    assert api(jury).get(f"{API}/appeals/{pending.pk}/").json()["question_removed"] is True
    assert "question removed" in browser(jury).get(f"/appeals/{pending.pk}/").content.decode()
    assert "question removed" in browser(jury).get(f"/appeals/{pending.pk}/verdict/").content.decode()
    before = current_export(tournament, now=LATER)["teams"]
    decide(pending, jury, "accepted", reasons="a dual", now=D + dt.timedelta(days=8))
    after = current_export(tournament, now=LATER)["teams"]
    assert [(r["team"], r["points"]) for r in after] == [(r["team"], r["points"]) for r in before]


# --- CHGK-18: overdue from 00:00 of D+10 exactly; every time with its zone -----------------------------------


@pytest.mark.parametrize("surface", SURFACES)
def test_chgk_18_overdue_from_00_00_of_d_plus_10_not_before(surface, monkeypatch):
    filed = file(surface, monkeypatch, chgk_document(), chgk_appeal(at=D + dt.timedelta(days=1)))
    assert filed.accepted, filed.text
    appeal = Appeal.objects.select_related("tournament", "tour__stage").get(pk=filed.appeal.pk)
    half_a_second_before = D_PLUS_10 - dt.timedelta(milliseconds=500)
    assert verdict_overdue(appeal, D_PLUS_10 - INSTANT) is False
    assert verdict_overdue(appeal, D_PLUS_10) is True
    jury = with_role(filed.tournament, Role.JURY)
    client = browser(jury)
    monkeypatch.setattr(timezone, "now", lambda: half_a_second_before)
    queue = client.get("/appeals/queue/").content.decode()
    assert f"/appeals/{appeal.pk}/verdict/" in queue and "<strong>overdue</strong>" not in queue
    assert 'class="overdue"' not in queue
    assert "2 March 2013, 23:59</time> (Europe/Moscow)" in queue, "the due time carries its zone"
    assert "22 February 2013, 00:00</time> (Europe/Moscow)" in queue, "so does the filing time"
    assert "overdue" not in client.get(f"/appeals/{appeal.pk}/").content.decode()
    assert "OVERDUE" not in digest_rows(half_a_second_before)[filed.tournament.pk][0]
    monkeypatch.setattr(timezone, "now", lambda: D_PLUS_10)
    queue = client.get("/appeals/queue/").content.decode()
    assert 'class="overdue"' in queue and "<strong>overdue</strong>" in queue
    assert "overdue" in client.get(f"/appeals/{appeal.pk}/").content.decode()
    line = digest_rows(D_PLUS_10)[filed.tournament.pk][0]
    assert "OVERDUE" in line and "(Europe/Moscow)" in line


def test_chgk_18_the_queue_shows_each_time_in_its_tournaments_zone(monkeypatch):
    """A tournament in Berlin: the queue's times are Berlin's, named so."""
    document = chgk_document()
    document["tournament"]["timezone"] = "Europe/Berlin"
    berlin_d = dt.datetime(2013, 2, 21, 0, 0, tzinfo=zoneinfo.ZoneInfo("Europe/Berlin"))
    filed = file("api", monkeypatch, document, chgk_appeal(at=berlin_d + dt.timedelta(hours=20)))
    client = browser(with_role(filed.tournament, Role.JURY))
    queue = client.get("/appeals/queue/").content.decode()
    assert "21 February 2013, 20:00</time> (Europe/Berlin)" in queue
    assert "2 March 2013, 23:59</time> (Europe/Berlin)" in queue


# --- CHGK-20: the jury never learns the appealing team ------------------------------------------------------


@pytest.mark.django_db(transaction=True)  # the mails go out on commit
@pytest.mark.parametrize("surface", SURFACES)
def test_chgk_20_a_juror_never_sees_the_appellant_in_the_api_pages_or_mail(surface, monkeypatch):
    appeal_doc = chgk_appeal(at=D + dt.timedelta(days=1), appellant="Rotor")
    if surface == "import":
        filed = file(surface, monkeypatch, chgk_document(), appeal_doc)
        jury = with_role(filed.tournament, Role.JURY)
    else:
        tournament = import_document(chgk_document())
        jury = with_role(tournament, Role.JURY)  # on the jury before the appeal comes in: it is told of it
        mail.outbox.clear()
        filed = _file_live(surface, monkeypatch, tournament, appeal_doc)
    assert filed.accepted, filed.text
    appeal, tournament = filed.appeal, filed.tournament
    assert appeal.appellant == "Rotor", "every filed appeal records its appellant"
    shown = api(jury).get(f"{API}/appeals/{appeal.pk}/").json()
    assert shown["team_hidden"] is True
    assert (shown["team"], shown["appellant"], shown["filed_by"]) == (None, None, None)
    listed = api(jury).get(f"{API}/appeals/?tournament={tournament.slug}").json()["results"]
    assert "Rotor" not in str([a for a in listed if a["id"] == appeal.pk])
    assert api(jury).get(f"{API}/appeals/?team=Rotor&tournament={tournament.slug}").json()["count"] == 0
    for url in (f"/appeals/{appeal.pk}/", f"/appeals/{appeal.pk}/verdict/", "/appeals/queue/"):
        page = browser(jury).get(url).content.decode()
        assert "Rotor" not in page[page.index("<main"):], url
    tour_page = browser(jury).get(f"/t/{tournament.slug}/tours/2/").content.decode()
    row = tour_page[tour_page.index('id="question-3"'):]
    assert "Rotor" not in row[:row.index("</tr>")], "the tour's list of appeals hides the team too"
    curator = with_role(tournament, Role.CURATOR)
    seen = api(curator).get(f"{API}/appeals/{appeal.pk}/").json()
    assert (seen["team"], seen["appellant"], seen["team_hidden"]) == ("Rotor", "Rotor", False)
    if surface != "import":
        assert seen["filed_by"] == "Rotor captain"
        jury_mail = [m for m in mail.outbox if jury.email in m.to]
        assert jury_mail, "the jury is told of the appeal"
        for message in jury_mail:
            assert appeal.filed_by.email not in message.to + message.cc + message.bcc
            assert "Rotor" not in message.subject + message.body
            assert "(Europe/Moscow)" in message.body, "the mail's time carries its zone"
        assert any(m.to == [appeal.filed_by.email] for m in mail.outbox), "the filer gets a receipt of their own"
    decide(appeal, jury, "rejected", reasons="the question is correct", now=D + dt.timedelta(days=4))
    after = api(jury).get(f"{API}/appeals/{appeal.pk}/").json()
    assert (after["team"], after["appellant"], after["team_hidden"]) == ("Rotor", "Rotor", False)


# --- the appeal page shows the argument -------------------------------------------------------------------


@pytest.mark.parametrize("surface", SURFACES)
def test_chgk_20_the_appeal_page_shows_the_appellants_argument(surface, monkeypatch):
    argument = "Вопрос допускает второй ответ: см. БСЭ, т. 3"
    appeal = chgk_appeal(at=D + dt.timedelta(days=1), argument=argument)
    if surface == "import":
        appeal.pop("argument")
        filed = file(surface, monkeypatch, chgk_document(), appeal)
        Appeal.objects.filter(pk=filed.appeal.pk).update(argument=argument)  # the interchange carries no argument
    else:
        filed = file(surface, monkeypatch, chgk_document(), appeal)
    page = browser().get(f"/appeals/{filed.appeal.pk}/").content.decode()
    assert "Argument" in page and argument in html.unescape(page)
    verdict = browser(with_role(filed.tournament, Role.JURY)).get(f"/appeals/{filed.appeal.pk}/verdict/")
    assert argument in html.unescape(verdict.content.decode())


def test_fl_19_a_penalty_appeal_is_refused_where_the_rules_appeal_only_decisions(monkeypatch):
    """class_balanced appeals decisions only (CB-17): the import refuses ``kind: penalty`` and the API a
    penalty target."""
    document = example("class_balanced")
    document["penalties"] = [{"stage": "stage-1", "team": "CB01", "kind": "fair_play", "code": "FP-9",
                              "points": "1", "decided_at": "2015-03-12T20:00:00+03:00"}]
    with pytest.raises(ImportRefused, match="appeals\\[0\\].kind"):
        import_document({**document, "appeals": [{"penalty": 1, "kind": "penalty", "appellant": "CB01",
                                                  "filed_at": "2015-03-12T21:00:00+03:00"}]})
    tournament = import_document(document)
    penalty = Penalty.objects.get(tournament=tournament)
    user = filer(tournament, "CB01")
    refused = api(user).post(f"{API}/appeals/", {"tournament": tournament.slug, "penalty": penalty.pk,
                                                 "argument": "x"}, format="json")
    assert refused.status_code == 400 and "FL-19" in refused.content.decode()
    assert not Appeal.objects.exists()


def test_every_time_of_the_appeal_page_carries_its_zone(monkeypatch):
    filed = file("api", monkeypatch, chgk_document(), chgk_appeal(at=D + dt.timedelta(days=1)))
    decide(filed.appeal, with_role(filed.tournament, Role.JURY), "rejected", reasons="correct",
           now=D + dt.timedelta(days=4))
    page = browser().get(f"/appeals/{filed.appeal.pk}/").content.decode()
    times = re.findall(r"<time [^>]*>[^<]*</time>([^<]{0,30})", page)
    assert len(times) >= 3 and all("Europe/Moscow" in after for after in times), times


def test_fl_19_the_api_names_the_appealed_penalty(monkeypatch):
    """A penalty appeal's target is in the API: the penalty's id (``/api/v1/penalties/``), no decision."""
    filed = file("api", monkeypatch, league_document(), penalty_appeal(PENALTY_AT + dt.timedelta(hours=1)))
    shown = api().get(f"{API}/appeals/{filed.appeal.pk}/").json()
    assert shown["kind"] == "penalty" and shown["penalty"] == Penalty.objects.get(
        tournament=filed.tournament, replacement_for=None).pk
    assert shown["decision"] is None and shown["team_hidden"] is False and shown["appellant"] == "Fam07"
