"""Design principle 8: rule constants are frozen with the tournament like its settings; a
change of one in code does not change an existing tournament's table; recomputing under the current rules is
an organizer's explicit, logged action."""

from __future__ import annotations

import dataclasses
import json
from fractions import Fraction
from pathlib import Path
from types import MappingProxyType

import pytest
from django.urls import reverse

import rulesets
from accounts.models import Role
from rulesets.errors import NotAllowed
from rulesets.rules import differences, frozen, resolved
from scoring.services import current_export, recompute
from tests.factories import RoleFactory, UserFactory
from tests.rulesets.test_appeal_windows_and_verdicts import league
from tournaments.commands import adopt_current_rules, rules_outdated
from tournaments.importer import import_document
from tournaments.models import AuditEntry, Tournament

PINNED = json.loads((Path(__file__).parent / "data" / "rule_versions.json").read_text(encoding="utf-8"))


def _fl_points(document: dict) -> dict[str, float]:
    return {row["team"]: row["points"] for row in document["teams"]}


@pytest.fixture
def release_newer_rules(monkeypatch):
    """Call it to make the code what a later release would be: FL-15 at 0.2 a violation, ruleset version 2."""

    def release() -> None:
        current = rulesets.get("family_league")
        constants = MappingProxyType({**current.rule_constants, "violation_points": Fraction(1, 5)})
        monkeypatch.setitem(rulesets._REGISTRY, "family_league",  # noqa: SLF001 - the test is a new release
                            dataclasses.replace(current, version=current.version + 1, rule_constants=constants))
        monkeypatch.setattr("rulesets.family_league.rules.CONSTANTS", constants)

    return release


@pytest.mark.parametrize("key", rulesets.keys())
def test_principle_8_a_new_tournament_freezes_its_ruleset_version_and_rule_constants(db, key):
    tournament = Tournament.objects.create(slug=f"new-{key}".replace("_", "-"), name=key, ruleset=key)
    ruleset = rulesets.get(key)
    tournament.refresh_from_db()
    assert tournament.ruleset_version == ruleset.version
    assert tournament.rules == frozen(ruleset.rule_constants)
    assert rules_outdated(tournament) == {}


@pytest.mark.parametrize("key", rulesets.keys())
def test_principle_8_a_released_versions_constants_never_change_in_code(key):
    """Changing a rule constant needs a new ruleset version: tests/data/rule_versions.json pins the released ones."""
    ruleset = rulesets.get(key)
    assert frozen(ruleset.rule_constants) == PINNED[key][str(ruleset.version)], (
        f"{key}'s rule constants differ from version {ruleset.version}'s: bump its VERSION and pin the new ones")


def test_principle_8_a_key_the_tournament_did_not_freeze_takes_the_codes_value():
    assert resolved({"appeal_hours": 48, "unknown": 1}, {"appeal_hours": 72, "fine_base": 25}) == {
        "appeal_hours": 48, "fine_base": 25}
    assert differences({"appeal_hours": 48}, {"appeal_hours": 72}) == {"appeal_hours": (48, 72)}


def test_principle_8_fl_15_a_changed_violation_points_in_code_keeps_an_existing_table(db, release_newer_rules):
    """FL-15's 0.1 point stays with the tournament created under it, however the code changes later."""
    tournament = import_document(league())
    before = _fl_points(current_export(tournament, None))
    release_newer_rules()  # the code now says 0.2 a violation; the tournament froze 0.1
    recompute(tournament.pk, force=True)
    tournament.refresh_from_db()
    assert _fl_points(current_export(tournament, None)) == before
    assert rules_outdated(tournament) == {"ruleset_version": (1, 2), "violation_points": ("1/10", "1/5")}


@pytest.fixture
def organizer(db):
    return UserFactory(username="org")


def test_principle_8_fl_15_adopting_the_current_rules_recomputes_and_is_logged(db, release_newer_rules, organizer):
    tournament = import_document(league())
    RoleFactory(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    before = _fl_points(current_export(tournament, None))
    release_newer_rules()
    changed = adopt_current_rules(organizer, tournament)
    assert changed["violation_points"] == ("1/10", "1/5")
    tournament = Tournament.objects.get(pk=tournament.pk)
    assert tournament.ruleset_version == 2 and tournament.rules["violation_points"] == "1/5"
    after = _fl_points(current_export(tournament, None))
    assert after["Fam01"] == pytest.approx(before["Fam01"] - 0.1)  # its FL-15.3 violation now costs 0.2
    assert {team: points for team, points in after.items() if team != "Fam01"} == {
        team: points for team, points in before.items() if team != "Fam01"}
    entry = AuditEntry.objects.get(tournament=tournament, action="rules")
    assert entry.username == "org"
    assert entry.before["ruleset_version"] == 1 and entry.after["rules"]["violation_points"] == "1/5"
    assert adopt_current_rules(organizer, tournament) == {}  # nothing left to adopt, nothing logged again
    assert AuditEntry.objects.filter(tournament=tournament, action="rules").count() == 1


def test_principle_8_only_an_organizer_adopts_the_current_rules(db, release_newer_rules):
    tournament = import_document(league())
    judge = UserFactory(username="judge")
    RoleFactory(user=judge, tournament=tournament, role=Role.JUDGE)
    release_newer_rules()
    with pytest.raises(NotAllowed):
        adopt_current_rules(judge, tournament)
    assert Tournament.objects.get(pk=tournament.pk).rules["violation_points"] == "1/10"


def test_principle_8_the_rules_page_shows_the_differences_and_adopts_on_confirmation(
        client, db, release_newer_rules, organizer):
    tournament = import_document(league())
    RoleFactory(user=organizer, tournament=tournament, role=Role.ORGANIZER)
    release_newer_rules()
    client.force_login(organizer)
    url = reverse("tournament-rules", args=[tournament.slug])
    page = client.get(url).content.decode()
    assert 'data-constant="violation_points"' in page and "1/5" in page
    dashboard = client.get(reverse("dashboard", args=[tournament.slug])).content.decode()
    assert url in dashboard  # the dashboard points the organizer to it
    unconfirmed = client.post(url, {})
    assert unconfirmed.status_code == 200
    assert Tournament.objects.get(pk=tournament.pk).ruleset_version == 1
    done = client.post(url, {"confirm": "on"})
    assert done.status_code == 302
    assert Tournament.objects.get(pk=tournament.pk).rules["violation_points"] == "1/5"
    assert "version 1 to 2" in client.get(url, HTTP_ACCEPT_LANGUAGE="en").content.decode()
    assert "с версии 1 на версию 2" in client.get(url, HTTP_ACCEPT_LANGUAGE="ru").content.decode()


def test_principle_8_the_rules_page_is_refused_to_a_player(client, db):
    tournament = import_document(league())
    player = UserFactory(username="player")
    client.force_login(player)
    assert client.get(reverse("tournament-rules", args=[tournament.slug])).status_code == 403
    assert client.post(reverse("tournament-rules", args=[tournament.slug]), {"confirm": "on"}).status_code == 403
