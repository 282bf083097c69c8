"""The forms of a tournament's structure page: stages, groups, tours, game slots, registration.

A form only reads what was typed; whether it may be done (a key taken, a tour number taken) is the command's
judgement (``tournaments.structure``), refused in words naming the field. Times are typed in the tournament's zone.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Sequence
from typing import Any

from django import forms
from django.utils import timezone
from django.utils.translation import gettext_lazy as _

from accounts.zones import zone_of
from rulesets.interchange import MAX_QUESTIONS

ACTIONS = ("add_stage", "edit_stage", "publish", "delete_stage", "add_group", "rename_group", "delete_group",
           "group_team", "ungroup_team", "add_tour", "edit_tour", "add_game", "open_registration",
           "close_registration", "open_stage_registration", "close_stage_registration", "delete_game")

WHOLE = {"invalid": _("Give a whole number."), "min_value": _("Give a number from %(limit_value)s."),
         "max_value": _("Give a number up to %(limit_value)s.")}


def _choices(rows: Iterable[Any], label: str = "name") -> list[tuple[str, str]]:
    return [(str(row.pk), str(getattr(row, label))) for row in rows]


class StageForm(forms.Form):
    """A stage: one of the ruleset's stage keys, its order of play, the public seed of its draw."""

    key = forms.ChoiceField(label=_("stage key"))
    order = forms.IntegerField(label=_("order"), required=False, min_value=0, max_value=10_000,
                               error_messages=WHOLE)
    seed = forms.CharField(label=_("public draw seed"), required=False, max_length=100)

    def __init__(self, *args: Any, keys: Sequence[str], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["key"].choices = [(key, key) for key in keys]


class StageRefForm(forms.Form):
    """The stage a button acts on."""

    stage = forms.TypedChoiceField(label=_("stage"), coerce=int)

    def __init__(self, *args: Any, stages: Iterable[Any], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["stage"].choices = _choices(stages, "key")


class GameRefForm(forms.Form):
    """The game slot a button acts on."""

    game = forms.TypedChoiceField(label=_("game"), coerce=int)

    def __init__(self, *args: Any, games: Iterable[Any], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["game"].choices = _choices(games, "number")


class GroupForm(StageRefForm):
    """A group of a stage (FL-8): its name."""

    name = forms.CharField(label=_("group name"), max_length=20)


class GroupRefForm(forms.Form):
    """The group a button acts on, and for a rename its new name."""

    group = forms.TypedChoiceField(label=_("group"), coerce=int)
    name = forms.CharField(label=_("group name"), max_length=20, required=False)

    def __init__(self, *args: Any, groups: Iterable[Any], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["group"].choices = _choices(groups)


class GroupTeamForm(forms.Form):
    """A team put in (or taken out of) a group."""

    group = forms.TypedChoiceField(label=_("group"), coerce=int)
    team = forms.TypedChoiceField(label=_("team"), coerce=int)

    def __init__(self, *args: Any, groups: Iterable[Any], teams: Iterable[Any], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["group"].choices = _choices(groups)
        self.fields["team"].choices = _choices(teams)


class TourForm(forms.Form):
    """A ChGK tour: its number, host team (CHGK-7), date and number of questions (CHGK-8)."""

    tour = forms.IntegerField(required=False, widget=forms.HiddenInput)
    stage = forms.TypedChoiceField(label=_("stage"), coerce=int, required=False, empty_value=None)
    number = forms.IntegerField(label=_("tour number"), min_value=1, max_value=10_000, error_messages=WHOLE)
    host = forms.TypedChoiceField(label=_("host team"), coerce=int, required=False, empty_value=None)
    played_on = forms.DateField(label=_("played on"), required=False,
                                widget=forms.DateInput(attrs={"type": "date"}))
    questions = forms.IntegerField(label=_("questions"), required=False, min_value=1, max_value=MAX_QUESTIONS,
                                   error_messages=WHOLE)

    def __init__(self, *args: Any, stages: Iterable[Any], teams: Iterable[Any], **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["stage"].choices = _choices(stages, "key")
        self.fields["host"].choices = [("", "—"), *_choices(teams)]


class ZonedDateTimeField(forms.DateTimeField):
    """A date and time typed in the tournament's zone (``zone``), read as an aware moment."""

    widget = forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M")
    input_formats = ["%Y-%m-%dT%H:%M", "%Y-%m-%dT%H:%M:%S", "%Y-%m-%d %H:%M", "%Y-%m-%d %H:%M:%S"]

    def __init__(self, *args: Any, **kwargs: Any):
        self.zone = "Europe/Moscow"
        super().__init__(*args, **kwargs)

    def to_python(self, value: Any) -> dt.datetime | None:
        moment = super().to_python(value)
        if moment is None:
            return None
        return timezone.make_aware(moment.replace(tzinfo=None), zone_of(self.zone))


class GameSlotForm(forms.Form):
    """A scheduled Mafia game: its stage, number, group and time (in the tournament's zone)."""

    stage = forms.TypedChoiceField(label=_("stage"), coerce=int)
    number = forms.IntegerField(label=_("game number"), min_value=1, max_value=100_000, error_messages=WHOLE)
    group = forms.TypedChoiceField(label=_("group"), coerce=int, required=False, empty_value=None)
    scheduled_at = ZonedDateTimeField(label=_("scheduled at"), required=False)

    def __init__(self, *args: Any, stages: Iterable[Any], groups: Iterable[Any], zone: str, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["stage"].choices = _choices(stages, "key")
        self.fields["group"].choices = [("", "—"), *[(str(g.pk), f"{g.stage.key}: {g.name}") for g in groups]]
        self.fields["scheduled_at"].zone = zone


class RegistrationForm(forms.Form):
    """The tournament's registration deadline (in its zone), for opening registration (FL-2, CHGK-1)."""

    registration_deadline = ZonedDateTimeField(label=_("registration deadline"))

    def __init__(self, *args: Any, zone: str, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.fields["registration_deadline"].zone = zone
