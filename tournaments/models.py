"""Facts of a tournament: who plays, what was scheduled, what happened.

Derived results (places, points, awards) are never stored here: they live in
``scoring.StandingsSnapshot`` and are recomputed from these facts.
"""

from __future__ import annotations

import contextlib
import datetime as dt

from django.conf import settings
from django.db import models
from django.urls import reverse
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

import rulesets
from accounts.models import Family, Player
from rulesets import facts as F
from rulesets.rules import frozen


class TournamentStatus(models.TextChoices):
    DRAFT = "draft", _("draft")
    REGISTRATION = "registration", _("registration open")
    RUNNING = "running", _("running")
    FINISHED = "finished", _("finished")


class Tournament(models.Model):
    slug = models.SlugField(_("slug"), max_length=100, unique=True)
    name = models.CharField(_("name"), max_length=200)
    ruleset = models.CharField(_("ruleset"), max_length=40, choices=rulesets.choices)  # a callable: no migration per format
    ruleset_version = models.PositiveIntegerField(_("ruleset version"), default=1)
    settings = models.JSONField(_("ruleset settings"), default=dict, blank=True)
    rules = models.JSONField(
        _("rule constants"), default=dict, blank=True, editable=False,
        help_text=_("The ruleset's rule constants as they were when the tournament was created (or when an "
                    "organizer last adopted the current rules); the tables are computed under them."))
    timezone = models.CharField(_("time zone"), max_length=64, default="Europe/Moscow")
    starts_on = models.DateField(_("starts on"), null=True, blank=True)
    ends_on = models.DateField(_("ends on"), null=True, blank=True)
    registration_deadline = models.DateTimeField(_("registration deadline"), null=True, blank=True)
    room = models.CharField(_("game room"), max_length=200, blank=True)
    status = models.CharField(_("status"), max_length=20, choices=TournamentStatus.choices,
                              default=TournamentStatus.RUNNING)
    facts_version = models.PositiveBigIntegerField(_("facts version"), default=1)
    head_version = models.PositiveBigIntegerField(
        _("facts version outside the games"), default=1, editable=False,
        help_text=_("Bumped by every change of facts that is not a change of one game (tournaments.changes)."))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["-starts_on", "name"]
        verbose_name = _("tournament")
        verbose_name_plural = _("tournaments")

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs) -> None:
        """A new tournament freezes its ruleset's version and rule constants (design principle 8)."""
        if self._state.adding and not self.rules:
            with contextlib.suppress(rulesets.UnknownRuleset):  # an unknown key is refused by the field's choices
                chosen = rulesets.get(self.ruleset)
                self.rules = frozen(chosen.rule_constants)
                self.ruleset_version = chosen.version
        super().save(*args, **kwargs)

    def get_absolute_url(self) -> str:
        return reverse("tournament", args=[self.slug])


class Stage(models.Model):
    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="stages",
                                   verbose_name=_("tournament"))
    key = models.CharField(_("key"), max_length=40)
    order = models.PositiveIntegerField(_("order"), default=0)
    seed = models.CharField(_("public draw seed"), max_length=100, blank=True)
    published_at = models.DateTimeField(_("schedule published at"), null=True, blank=True)

    class Meta:
        ordering = ["tournament", "order"]
        verbose_name = _("stage")
        verbose_name_plural = _("stages")
        constraints = [models.UniqueConstraint(fields=["tournament", "key"], name="unique_stage_key")]

    def __str__(self) -> str:
        return f"{self.tournament} / {self.key}"


class Team(models.Model):
    """A team of a tournament; ``stage`` is set where teams are drawn per stage (elimination_gp)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="teams",
                                   verbose_name=_("tournament"))
    stage = models.ForeignKey(Stage, null=True, blank=True, on_delete=models.CASCADE, related_name="teams",
                              verbose_name=_("stage"))
    name = models.CharField(_("name"), max_length=100)
    order = models.PositiveIntegerField(_("order"), default=0)
    captain = models.ForeignKey(Player, null=True, blank=True, on_delete=models.SET_NULL, related_name="captained",
                                verbose_name=_("captain"))
    family = models.ForeignKey(Family, null=True, blank=True, on_delete=models.SET_NULL, related_name="teams",
                               verbose_name=_("family"))
    league = models.CharField(_("league"), max_length=10, default="none",
                              choices=[(k, k) for k in F.LEAGUES])
    home_university = models.BooleanField(_("host-university team"), default=False)
    players = models.ManyToManyField(Player, through="RosterEntry", related_name="teams", verbose_name=_("players"))

    class Meta:
        ordering = ["tournament", "stage", "order", "name"]
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        constraints = [
            models.UniqueConstraint(fields=["tournament", "name"], condition=models.Q(stage__isnull=True),
                                    name="unique_team_name"),
            models.UniqueConstraint(fields=["stage", "name"], condition=models.Q(stage__isnull=False),
                                    name="unique_stage_team_name"),
        ]

    def __str__(self) -> str:
        return self.name


class RosterEntry(models.Model):
    """A player on a team's roster, dated (one captain per team: ``Team.captain``)."""

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="roster", verbose_name=_("team"))
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="roster_entries",
                               verbose_name=_("player"))
    order = models.PositiveIntegerField(_("order"), default=0)
    joined_at = models.DateTimeField(_("joined at"), null=True, blank=True)
    left_at = models.DateTimeField(_("left at"), null=True, blank=True)

    class Meta:
        ordering = ["team", "order"]
        verbose_name = _("roster entry")
        verbose_name_plural = _("roster entries")
        constraints = [models.UniqueConstraint(fields=["team", "player"], name="unique_roster_player")]

    def __str__(self) -> str:
        return f"{self.player} ({self.team})"


class Participant(models.Model):
    """A player's facts as this tournament records them (level, disqualification, family)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="participants",
                                   verbose_name=_("tournament"))
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="participations",
                               verbose_name=_("player"))
    order = models.PositiveIntegerField(_("order"), default=0)
    level = models.PositiveIntegerField(_("level"), null=True, blank=True)
    disqualified = models.BooleanField(_("disqualified"), default=False)
    banned = models.BooleanField(_("banned"), default=False)
    family = models.ForeignKey(Family, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("family"))

    class Meta:
        ordering = ["tournament", "order"]
        verbose_name = _("participant")
        verbose_name_plural = _("participants")
        constraints = [models.UniqueConstraint(fields=["tournament", "player"], name="unique_participant")]

    def __str__(self) -> str:
        return str(self.player)


class TournamentFamily(models.Model):
    """A family taking part, in the order the tournament lists them."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="families",
                                   verbose_name=_("tournament"))
    family = models.ForeignKey(Family, on_delete=models.CASCADE, verbose_name=_("family"))
    order = models.PositiveIntegerField(_("order"), default=0)

    class Meta:
        ordering = ["tournament", "order"]
        verbose_name = _("tournament family")
        verbose_name_plural = _("tournament families")
        constraints = [models.UniqueConstraint(fields=["tournament", "family"], name="unique_tournament_family")]

    def __str__(self) -> str:
        return str(self.family)


class Group(models.Model):
    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="groups", verbose_name=_("stage"))
    name = models.CharField(_("name"), max_length=20)
    order = models.PositiveIntegerField(_("order"), default=0)
    teams = models.ManyToManyField(Team, through="GroupTeam", related_name="groups", verbose_name=_("teams"))

    class Meta:
        ordering = ["stage", "order"]
        verbose_name = _("group")
        verbose_name_plural = _("groups")
        constraints = [models.UniqueConstraint(fields=["stage", "name"], name="unique_group_name")]

    def __str__(self) -> str:
        return self.name


class GroupTeam(models.Model):
    group = models.ForeignKey(Group, on_delete=models.CASCADE, verbose_name=_("group"))
    team = models.ForeignKey(Team, on_delete=models.CASCADE, verbose_name=_("team"))
    order = models.PositiveIntegerField(_("order"), default=0)

    class Meta:
        ordering = ["group", "order"]
        verbose_name = _("group team")
        verbose_name_plural = _("group teams")
        constraints = [models.UniqueConstraint(fields=["group", "team"], name="unique_group_team")]

    def __str__(self) -> str:
        return f"{self.team} in {self.group}"


class GameStatus(models.TextChoices):
    SCHEDULED = "scheduled", _("scheduled")
    PLAYED = "played", _("played")
    NOT_HELD = "not_held", _("not held")
    ANNULLED = "annulled", _("annulled (replay)")
    TECHNICAL = "technical", _("technical result")


class Outcome(models.TextChoices):
    CIVILIANS = "civilians", _("civilians win")
    MAFIA = "mafia", _("mafia win")
    MANIAC = "maniac", _("maniac wins")
    DRAW = "draw", _("draw")


class RoleChoice(models.TextChoices):
    CIVILIAN = "civilian", _("civilian")
    COMMISSAR = "commissar", _("commissar")
    SERGEANT = "sergeant", _("sergeant")
    DOCTOR = "doctor", _("doctor")
    MAFIA = "mafia", _("mafia")
    DON = "don", _("don")
    MANIAC = "maniac", _("maniac")


class Game(models.Model):
    """A Mafia game (партия) as recorded by an organizer (mafia_glossary.md)."""

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="games", verbose_name=_("stage"))
    number = models.PositiveIntegerField(_("number"))
    group = models.ForeignKey(Group, null=True, blank=True, on_delete=models.SET_NULL, related_name="games",
                              verbose_name=_("group"))
    group_label = models.CharField(_("group label"), max_length=20, blank=True)
    round = models.PositiveIntegerField(_("round / tour"), null=True, blank=True)
    room_comment = models.CharField(_("room comment (FL-9)"), max_length=200, blank=True)
    scheduled_at = models.DateTimeField(_("scheduled at"), null=True, blank=True)
    status = models.CharField(_("status"), max_length=12, choices=GameStatus.choices, default=GameStatus.PLAYED)
    outcome = models.CharField(_("outcome"), max_length=12, choices=Outcome.choices, null=True, blank=True)
    omon = models.BooleanField(_("OMON"), default=False)
    game_days = models.PositiveIntegerField(_("game days"), null=True, blank=True)
    link = models.CharField(_("log link"), max_length=500, blank=True)
    absent_teams = models.ManyToManyField(Team, blank=True, related_name="absences", verbose_name=_("absent teams"))
    scheduled_teams = models.JSONField(_("teams the schedule gives this game (CB-5)"), default=list, blank=True)
    scheduled_classes = models.JSONField(_("classes the schedule gives each team (CB-6)"), default=dict,
                                         blank=True)
    version = models.PositiveIntegerField(_("version"), default=1)
    revision = models.PositiveBigIntegerField(
        _("facts revision"), default=0, editable=False,
        help_text=_("Bumped by every change of the game, its seats or its absent teams (tournaments.changes)."))
    result_recorded_at = models.DateTimeField(
        _("result first recorded at"), null=True, blank=True, editable=False,
        help_text=_("When the game first got a result (FL-19: the window for appealing the violations the portal "
                    "detects in it runs from here); editing the game later does not move it."))
    violations_published = models.JSONField(
        _("detected violations published after the result"), default=list, blank=True, editable=False,
        help_text=_("FL-19: a later change of the result that creates a new violation publishes it then: "
                    "[{team, kind, player, at}]; the others are published with the result."))
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    updated_by = models.CharField(_("updated by"), max_length=150, blank=True)

    class Meta:
        ordering = ["stage", "number"]
        verbose_name = _("game")
        verbose_name_plural = _("games")
        constraints = [models.UniqueConstraint(fields=["stage", "number"], name="unique_game_number")]

    def __str__(self) -> str:
        return f"{self.stage.key} #{self.number}"

    def save(self, *args, **kwargs) -> None:
        """The first save with a result (any status but ``scheduled``) records when (FL-19), by any path: the
        result forms, the API, the admin. The importer sets it itself (bulk_create saves nothing)."""
        if self.result_recorded_at is None and self.status != GameStatus.SCHEDULED:
            self.result_recorded_at = timezone.now()
            if kwargs.get("update_fields") is not None:
                kwargs["update_fields"] = {*kwargs["update_fields"], "result_recorded_at"}
        super().save(*args, **kwargs)

    def violation_published_at(self, team: str | None, kind: str, player: str | None) -> dt.datetime | None:
        """When the detected violation was published (FL-19): at the change that created it, or with the result."""
        for entry in self.violations_published or ():
            if entry["kind"] == kind and entry.get("player") == player and (team is None or entry["team"] == team):
                return dt.datetime.fromisoformat(entry["at"])
        return self.result_recorded_at


class Seat(models.Model):
    """One player's place in a game; a player has at most one seat in a game."""

    # no index of its own: ``unique_seat_player`` (game, player) serves every lookup by game, and a league's
    # import COPYs 150,000 seats into one index fewer
    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="seats", verbose_name=_("game"),
                             db_index=False)
    order = models.PositiveIntegerField(_("order joined"), default=0)
    # indexed with the game (``seat_player_game``): a player's games across the site are found and counted in it
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="seats", verbose_name=_("player"),
                               db_index=False)
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="seats", verbose_name=_("team"))
    role = models.CharField(_("role"), max_length=12, choices=RoleChoice.choices)
    stats = models.PositiveIntegerField(_("stats"), null=True, blank=True)
    timed_out = models.BooleanField(_("timed out"), default=False)
    days_played = models.PositiveIntegerField(_("days played"), null=True, blank=True)
    maniac_kills = models.PositiveIntegerField(_("maniac kills"), default=0)
    in_final_phase = models.BooleanField(_("in the last day/night"), default=False)
    fake_passport = models.BooleanField(_("fake passport"), default=False)

    class Meta:
        ordering = ["game", "order"]
        verbose_name = _("seat")
        verbose_name_plural = _("seats")
        constraints = [models.UniqueConstraint(fields=["game", "player"], name="unique_seat_player")]
        indexes = [models.Index(fields=["player", "game"], name="seat_player_game")]

    def __str__(self) -> str:
        return f"{self.player} ({self.role})"


class NoShowElimination(models.Model):
    """GP-10: the player the seeded draw eliminated for a team that sent nobody."""

    game = models.ForeignKey(Game, on_delete=models.CASCADE, related_name="no_show_eliminations",
                             verbose_name=_("game"))
    team = models.ForeignKey(Team, on_delete=models.CASCADE, verbose_name=_("team"))
    player = models.ForeignKey(Player, on_delete=models.PROTECT, verbose_name=_("player"))

    class Meta:
        verbose_name = _("no-show elimination")
        verbose_name_plural = _("no-show eliminations")
        constraints = [models.UniqueConstraint(fields=["game", "team"], name="unique_no_show_team")]

    def __str__(self) -> str:
        return f"{self.player} ({self.team}), game {self.game_id}"


class Tour(models.Model):
    """A ChGK tour (тур), hosted by one team (the duty team, CHGK-7)."""

    stage = models.ForeignKey(Stage, on_delete=models.CASCADE, related_name="tours", verbose_name=_("stage"))
    number = models.PositiveIntegerField(_("number"))
    host = models.ForeignKey(Team, null=True, blank=True, on_delete=models.SET_NULL, related_name="hosted_tours",
                             verbose_name=_("host"))
    played_on = models.DateField(_("played on"), null=True, blank=True)
    questions = models.PositiveIntegerField(_("questions"), default=8)
    absent = models.ManyToManyField(Team, blank=True, related_name="missed_tours", verbose_name=_("absent teams"))
    version = models.PositiveIntegerField(_("version"), default=1)
    updated_at = models.DateTimeField(_("updated at"), auto_now=True)
    updated_by = models.CharField(_("updated by"), max_length=150, blank=True)

    class Meta:
        ordering = ["stage", "number"]
        verbose_name = _("tour")
        verbose_name_plural = _("tours")
        constraints = [models.UniqueConstraint(fields=["stage", "number"], name="unique_tour_number")]

    def __str__(self) -> str:
        return f"{self.stage.tournament} / tour {self.number}"


class Mask(models.Model):
    """A team's answers in a tour: one of ``1 0 X ?`` per question."""

    tour = models.ForeignKey(Tour, on_delete=models.CASCADE, related_name="masks", verbose_name=_("tour"))
    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="masks", verbose_name=_("team"))
    mask = models.CharField(_("mask"), max_length=100)
    order = models.PositiveIntegerField(_("order"), default=0)
    site_position = models.FloatField(_("the rating site's position"), null=True, blank=True,
                                      help_text=_("as the rating-site file gave it; the tour page shows "
                                                  "it beside the portal's place when they differ"))

    class Meta:
        ordering = ["tour", "order"]
        verbose_name = _("answer mask")
        verbose_name_plural = _("answer masks")
        constraints = [models.UniqueConstraint(fields=["tour", "team"], name="unique_tour_mask")]

    def __str__(self) -> str:
        return f"{self.team}: {self.mask}"


class Question(models.Model):
    """A question of a tour with its author's answer and sources (CHGK-8)."""

    tour = models.ForeignKey(Tour, on_delete=models.CASCADE, related_name="question_set", verbose_name=_("tour"))
    number = models.PositiveIntegerField(_("number"))
    text = models.TextField(_("text"), blank=True)
    answer = models.TextField(_("answer"), blank=True)
    accepted_answers = models.TextField(_("accepted answers"), blank=True)
    comment = models.TextField(_("comment"), blank=True)
    sources = models.TextField(_("sources"), blank=True)
    authors = models.CharField(_("authors"), max_length=300, blank=True)
    by_host = models.BooleanField(_("written by the host"), default=True)

    class Meta:
        ordering = ["tour", "number"]
        verbose_name = _("question")
        verbose_name_plural = _("questions")
        constraints = [models.UniqueConstraint(fields=["tour", "number"], name="unique_question_number")]

    def __str__(self) -> str:
        return f"{self.tour} Q{self.number}"


class Penalty(models.Model):
    """A judge's fair-play ruling (FL-18) with its point deduction."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="penalties",
                                   verbose_name=_("tournament"))
    order = models.PositiveIntegerField(_("order"), default=0)
    stage = models.ForeignKey(Stage, null=True, blank=True, on_delete=models.CASCADE, verbose_name=_("stage"))
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("game"))
    team = models.ForeignKey(Team, null=True, blank=True, on_delete=models.CASCADE, verbose_name=_("team"))
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, verbose_name=_("player"))
    kind = models.CharField(_("kind"), max_length=30, default="fair_play")
    code = models.CharField(_("rule code"), max_length=20, blank=True)
    points = models.DecimalField(_("points"), max_digits=8, decimal_places=3)
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    published_at = models.DateTimeField(
        _("published at"), null=True, blank=True,
        help_text=_("When the penalty was published; its FL-19 appeal window runs from here (the decision time when "
                    "left empty)."))
    text = models.TextField(_("text"), blank=True)
    replacement_for = models.OneToOneField(
        "tournaments.Appeal", null=True, blank=True, on_delete=models.CASCADE, related_name="replacement_penalty",
        verbose_name=_("replaces the penalty of the appeal"),
        help_text=_("The changed penalty a partly upheld appeal records (FL-19): it takes the appealed penalty's "
                    "place."))

    class Meta:
        ordering = ["tournament", "order"]
        verbose_name = _("penalty")
        verbose_name_plural = _("penalties")
        constraints = [models.CheckConstraint(condition=models.Q(points__gt=0), name="penalty_points_positive")]

    def __str__(self) -> str:
        return f"{self.kind} {self.code} -{self.points}"


class Withdrawal(models.Model):
    """A team leaving the season (CHGK-17)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="withdrawals",
                                   verbose_name=_("tournament"))
    team = models.ForeignKey(Team, on_delete=models.CASCADE, verbose_name=_("team"))
    at = models.DateTimeField(_("at"))

    class Meta:
        ordering = ["tournament", "at"]
        verbose_name = _("withdrawal")
        verbose_name_plural = _("withdrawals")
        constraints = [models.UniqueConstraint(fields=["tournament", "team"], name="unique_withdrawal")]

    def __str__(self) -> str:
        return f"{self.team} withdrew {self.at:%Y-%m-%d}"


class FilingDelegation(models.Model):
    """CHGK-20: while the captain is temporarily absent, a player of the team files its appeals for a stated period.

    Given by the captain or the organizer; kept with who gave it and when.
    """

    team = models.ForeignKey(Team, on_delete=models.CASCADE, related_name="delegations", verbose_name=_("team"))
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="filing_delegations",
                               verbose_name=_("delegated player"))
    starts_at = models.DateTimeField(_("from"))
    ends_at = models.DateTimeField(_("until"))
    granted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+", verbose_name=_("given by"))
    granted_at = models.DateTimeField(_("given at"))

    class Meta:
        ordering = ["team", "starts_at"]
        verbose_name = _("filing delegation")
        verbose_name_plural = _("filing delegations")
        constraints = [models.CheckConstraint(condition=models.Q(ends_at__gt=models.F("starts_at")),
                                              name="delegation_ends_after_it_starts")]

    def __str__(self) -> str:
        return f"{self.player} for {self.team}: {self.starts_at:%Y-%m-%d %H:%M} - {self.ends_at:%Y-%m-%d %H:%M}"


class AuditEntry(models.Model):
    """Who changed which fact, when, from what to what."""

    tournament = models.ForeignKey(Tournament, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="audit_entries", verbose_name=_("tournament"))
    tournament_slug = models.CharField(_("tournament slug"), max_length=100, blank=True)
    user = models.ForeignKey("accounts.User", null=True, blank=True, on_delete=models.SET_NULL,
                             verbose_name=_("user"))
    username = models.CharField(_("user name"), max_length=150, blank=True)
    at = models.DateTimeField(_("at"), auto_now_add=True, db_index=True)
    action = models.CharField(_("action"), max_length=32)
    model = models.CharField(_("model"), max_length=60)
    object_id = models.CharField(_("object id"), max_length=40, blank=True)
    object_repr = models.CharField(_("object"), max_length=200, blank=True)
    before = models.JSONField(_("before"), null=True, blank=True)
    after = models.JSONField(_("after"), null=True, blank=True)

    class Meta:
        ordering = ["-at", "-id"]
        verbose_name = _("audit entry")
        verbose_name_plural = _("audit trail")
        indexes = [models.Index(fields=["model", "object_id"])]

    def __str__(self) -> str:
        return f"{self.at:%Y-%m-%d %H:%M} {self.username or '-'} {self.action} {self.model} {self.object_repr}"


class PrizePayment(models.Model):
    """A prize of the standings' awards marked paid by the committee or the stage commission (GP-22, GP-22a)."""

    tournament = models.ForeignKey("tournaments.Tournament", on_delete=models.CASCADE, related_name="prize_payments",
                                   verbose_name=_("tournament"))
    stage_key = models.CharField(_("stage"), max_length=40)
    place = models.PositiveIntegerField(_("place"))
    team_name = models.CharField(_("team"), max_length=100, blank=True)
    player_nick = models.CharField(_("player"), max_length=100, blank=True)
    amount_mf = models.PositiveIntegerField(_("amount, mf"))
    paid_at = models.DateTimeField(_("paid at"))
    paid_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                related_name="+", verbose_name=_("marked paid by"))

    class Meta:
        ordering = ["tournament", "stage_key", "place", "player_nick", "team_name"]
        verbose_name = _("prize payment")
        verbose_name_plural = _("prize payments")
        constraints = [models.UniqueConstraint(fields=["tournament", "stage_key", "place", "team_name", "player_nick"],
                                               name="unique_prize_payment")]

    def __str__(self) -> str:
        who = self.player_nick or self.team_name
        return f"{self.stage_key} #{self.place} {who}: {self.amount_mf} mf"


# Decisions and appeals are facts too (design.md principle 2): the loader reads them with the rest.


class DecisionKind(models.TextChoices):
    TECHNICAL_RESULT = "technical_result", _("technical result")
    REPLAY = "replay", _("replay")
    DISQUALIFICATION = "disqualification", _("disqualification")
    TIE_BREAK = "tie_break", _("order of tied rows")
    QUALIFY = "qualify", _("qualification pick")


class Decision(models.Model):
    """A decision as a fact: who took it, when, on which grounds, and what it changes."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="decisions",
                                   verbose_name=_("tournament"))
    index = models.PositiveIntegerField(_("number"))
    kind = models.CharField(_("kind"), max_length=20, choices=DecisionKind.choices)
    stage = models.ForeignKey(Stage, null=True, blank=True, on_delete=models.CASCADE, verbose_name=_("stage"))
    game = models.ForeignKey(Game, null=True, blank=True, on_delete=models.SET_NULL, verbose_name=_("game"))
    code = models.CharField(_("grounds (rule or FP code)"), max_length=30, blank=True)
    outcome = models.CharField(_("awarded outcome"), max_length=12, choices=Outcome.choices, null=True, blank=True)
    team = models.ForeignKey(Team, null=True, blank=True, on_delete=models.CASCADE, verbose_name=_("team"))
    player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.PROTECT, verbose_name=_("player"))
    order = models.JSONField(_("order of tied rows"), default=list, blank=True)
    reason = models.TextField(_("reason"), blank=True, null=True)
    decided_at = models.DateTimeField(_("decided at"), null=True, blank=True)
    published_at = models.DateTimeField(_("published at"), null=True, blank=True)
    by = models.CharField(_("decided by"), max_length=150, blank=True)
    text = models.TextField(_("text"), blank=True)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                               verbose_name=_("recorded by"))
    replacement_for = models.OneToOneField(
        "tournaments.Appeal", null=True, blank=True, on_delete=models.CASCADE, related_name="replacement",
        verbose_name=_("replaces the decision of the appeal"),
        help_text=_("The changed decision a partly upheld appeal records (FL-19): it takes the appealed decision's "
                    "place and number."))

    class Meta:
        ordering = ["tournament", "index"]
        verbose_name = _("decision")
        verbose_name_plural = _("decisions")
        constraints = [models.UniqueConstraint(fields=["tournament", "index"], name="unique_decision_index",
                                               condition=models.Q(replacement_for__isnull=True))]

    def __str__(self) -> str:
        return f"#{self.index} {self.get_kind_display()}"


class AppealKind(models.TextChoices):
    REMOVAL = "removal", _("removal of a question")
    ACCEPT_ANSWER = "accept_answer", _("acceptance of an answer")
    DECISION = "decision", _("appeal against a decision")
    VIOLATION = "violation", _("appeal against a detected violation")
    PENALTY = "penalty", _("appeal against a penalty")


class Verdict(models.TextChoices):
    ACCEPTED = "accepted", _("upheld")
    REJECTED = "rejected", _("rejected")
    PARTLY = "partly", _("partly upheld")


class Appeal(models.Model):
    """An appeal: ChGK (CHGK-18..CHGK-23) or against a Mafia decision (GP-23, FL-19, CB-17)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="appeals",
                                   verbose_name=_("tournament"))
    order = models.PositiveIntegerField(_("order"), default=0)
    kind = models.CharField(_("kind"), max_length=20, choices=AppealKind.choices)
    stage = models.ForeignKey(Stage, null=True, blank=True, on_delete=models.CASCADE, verbose_name=_("stage"))
    tour = models.ForeignKey(Tour, null=True, blank=True, on_delete=models.CASCADE, verbose_name=_("tour"))
    question = models.PositiveIntegerField(_("question"), null=True, blank=True)
    team = models.ForeignKey(Team, null=True, blank=True, on_delete=models.CASCADE, related_name="appeals",
                             verbose_name=_("appealing team"))
    answer = models.TextField(_("team's answer"), blank=True, null=True)
    argument = models.TextField(_("argument"), blank=True)
    decision = models.ForeignKey(Decision, null=True, blank=True, on_delete=models.CASCADE,
                                 related_name="appeals", verbose_name=_("decision"))
    game = models.ForeignKey("tournaments.Game", null=True, blank=True, on_delete=models.CASCADE,
                             related_name="violation_appeals", verbose_name=_("game"))
    violation = models.CharField(_("violation (FL-15)"), max_length=30, blank=True)
    violating_player = models.ForeignKey(Player, null=True, blank=True, on_delete=models.CASCADE,
                                         related_name="violation_appeals", verbose_name=_("player"))
    penalty = models.ForeignKey("tournaments.Penalty", null=True, blank=True, on_delete=models.CASCADE,
                                related_name="appeals", verbose_name=_("penalty"))
    appellant = models.CharField(_("appellant"), max_length=150, blank=True, null=True)
    filed_at = models.DateTimeField(_("filed at"))
    filed_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="appeals_filed", verbose_name=_("filed by"))
    verdict = models.CharField(_("verdict"), max_length=10, choices=Verdict.choices, null=True, blank=True)
    verdict_reasons = models.TextField(_("reasons"), blank=True)
    verdict_at = models.DateTimeField(_("verdict at"), null=True, blank=True)
    credited_teams = models.ManyToManyField(Team, blank=True, related_name="credited_by_appeals",
                                            verbose_name=_("teams credited"))
    standings_change = models.JSONField(_("standings change"), default=list, blank=True)
    standings_before = models.JSONField(
        _("standings when the verdict was given"), null=True, blank=True, editable=False,
        help_text=_("The stored table of the appeal's stage at the verdict; the recompute that includes the verdict "
                    "turns it into the standings change."))

    class Meta:
        ordering = ["tournament", "order"]
        verbose_name = _("appeal")
        verbose_name_plural = _("appeals")

    def __str__(self) -> str:
        return f"{self.get_kind_display()} ({self.filed_at:%Y-%m-%d})"


# Webhooks: an organizer's subscription of a URL to a tournament's events, and each message sent to it.


class WebhookEvent(models.TextChoices):
    RESULT_SAVED = "result.saved", _("result saved")
    RESULT_CORRECTED = "result.corrected", _("result corrected")
    STANDINGS_CHANGED = "standings.changed", _("standings changed")
    SCHEDULE_CHANGED = "schedule.changed", _("schedule changed")
    APPEAL_FILED = "appeal.filed", _("appeal filed")
    APPEAL_DECIDED = "appeal.decided", _("appeal decided")
    TOURNAMENT_PUBLISHED = "tournament.published", _("tournament published")


class WebhookSubscription(models.Model):
    """A URL that receives the tournament's events it names, signed with its secret (Standard Webhooks)."""

    tournament = models.ForeignKey(Tournament, on_delete=models.CASCADE, related_name="webhooks",
                                   verbose_name=_("tournament"))
    url = models.CharField(_("URL"), max_length=500)
    events = models.JSONField(_("events"), default=list)
    secret = models.CharField(_("signing secret"), max_length=100, editable=False,
                              help_text=_("Standard Webhooks' whsec_ form: the key, base64."))
    active = models.BooleanField(_("active"), default=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+", verbose_name=_("created by"))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)

    class Meta:
        ordering = ["tournament", "pk"]
        verbose_name = _("webhook subscription")
        verbose_name_plural = _("webhook subscriptions")

    def __str__(self) -> str:
        return self.url[:200]


class DeliveryStatus(models.TextChoices):
    PENDING = "pending", _("not delivered yet")
    DELIVERED = "delivered", _("delivered")
    FAILED = "failed", _("failed")


class WebhookDelivery(models.Model):
    """One message to one subscription: its attempts, until a 2xx answer or 24 hours of retries."""

    subscription = models.ForeignKey(WebhookSubscription, on_delete=models.CASCADE, related_name="deliveries",
                                     verbose_name=_("subscription"))
    event = models.CharField(_("event"), max_length=40, choices=WebhookEvent.choices)
    msg_id = models.CharField(_("message id"), max_length=40, unique=True)
    payload = models.JSONField(_("payload"))
    status = models.CharField(_("status"), max_length=10, choices=DeliveryStatus.choices,
                              default=DeliveryStatus.PENDING)
    attempts = models.PositiveIntegerField(_("attempts"), default=0)
    last_response_code = models.PositiveSmallIntegerField(_("last response code"), null=True, blank=True)
    last_error = models.CharField(_("last error"), max_length=300, blank=True)
    next_attempt_at = models.DateTimeField(_("next attempt at"), null=True, blank=True)
    retry_from = models.DateTimeField(_("retried from"),
                                      help_text=_("The retries run for 24 hours from here: the message's creation, "
                                                  "or the last time it was sent again by hand."))
    created_at = models.DateTimeField(_("created at"), auto_now_add=True)
    last_attempt_at = models.DateTimeField(_("last attempt at"), null=True, blank=True)
    delivered_at = models.DateTimeField(_("delivered at"), null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]
        verbose_name = _("webhook delivery")
        verbose_name_plural = _("webhook deliveries")
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="webhook_delivery_due"),
                   models.Index(fields=["subscription", "-created_at"], name="webhook_delivery_log")]

    def __str__(self) -> str:
        return f"{self.event} {self.msg_id}"
