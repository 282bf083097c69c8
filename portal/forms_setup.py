"""The form of a new tournament: its own facts, and one field per setting of its ruleset.

A setting's field is typed as its default is (``setting_field``): a whole number, a tick box, a text, a list of
numbers or texts separated by commas, and JSON for a table (an object, a list of objects). The form only reads
the values; ``tournaments.setup.create_tournament`` judges them by the ruleset's own validation, and ``refuse``
puts each of its problems beside the field it is about.
"""

from __future__ import annotations

import datetime as dt
import zoneinfo
from collections.abc import Iterable
from typing import Any

from django import forms
from django.utils import timezone as django_timezone
from django.utils.translation import gettext_lazy as _

import rulesets
from accounts.forms import timezone_choices
from formats import registry
from rulesets.base import Problem
from tournaments.setup import DEFAULT_ZONE, MAX_ROOM, MAX_SLUG, form_settings, suggest_slug

PREFIX = "setting_"
FIELDS = ("name", "slug", "timezone", "starts_on", "ends_on", "registration_deadline", "room")


def ruleset_choices() -> list[tuple[str, str]]:
    return [(key, registry.label(key)) for key in rulesets.keys()]


class _ListField(forms.CharField):
    """A list of scalars typed as comma-separated text; items are whole numbers when the default's are."""

    def __init__(self, *, numbers: bool, **kwargs: Any):
        self.numbers = numbers
        super().__init__(**kwargs)

    def prepare_value(self, value: Any) -> Any:
        return ", ".join(str(item) for item in value) if isinstance(value, list) else value

    def to_python(self, value: Any) -> list[Any]:
        text = super().to_python(value)
        items = [item.strip() for item in text.split(",")] if text.strip() else []
        return [_number_or_text(item) if self.numbers else item for item in items]


def _number_or_text(item: str) -> int | str:
    """A whole number as a number; anything else as written, for the ruleset to refuse in its words."""
    try:
        return int(item)
    except ValueError:
        return item


class _OptionalTextField(forms.CharField):
    """A setting whose default is ``null``: left empty, it stays ``null``."""

    def to_python(self, value: Any) -> str | None:
        text = super().to_python(value)
        return text or None


def setting_field(default: Any) -> forms.Field:
    """The field of one setting, typed as its default is."""
    help_text = _("Default: %(value)s") % {"value": _shown(default)}
    if isinstance(default, bool):
        return forms.BooleanField(required=False, initial=default, help_text=help_text)
    if isinstance(default, int):
        return forms.IntegerField(initial=default, help_text=help_text)
    if isinstance(default, str):
        return forms.CharField(required=False, initial=default, max_length=1000, help_text=help_text)
    if default is None:
        return _OptionalTextField(required=False, max_length=1000, help_text=help_text)
    if isinstance(default, list) and default and all(isinstance(v, str) for v in default):
        return _ListField(numbers=False, required=False, initial=default,
                          help_text=_("Separated by commas. %(default)s") % {"default": help_text})
    if isinstance(default, list) and default and all(isinstance(v, int) and not isinstance(v, bool) for v in default):
        return _ListField(numbers=True, required=False, initial=default,
                          help_text=_("Whole numbers separated by commas. %(default)s") % {"default": help_text})
    return forms.JSONField(required=False, initial=default, widget=forms.Textarea(attrs={"rows": 3, "cols": 60}),
                           help_text=_("JSON. %(default)s") % {"default": help_text})


def _shown(value: Any) -> str:
    if value is None:
        return _("none")
    if isinstance(value, bool):
        return str(_("yes") if value else _("no"))
    if isinstance(value, list) and all(isinstance(v, (int, str)) and not isinstance(v, bool) for v in value):
        return ", ".join(str(v) for v in value) if value else "[]"
    if isinstance(value, (dict, list)):
        return forms.JSONField().prepare_value(value)
    return str(value)


class TournamentCreateForm(forms.Form):
    """A new tournament of ``ruleset`` (chosen before: its settings decide the fields)."""

    ruleset = forms.ChoiceField(label=_("ruleset"), choices=ruleset_choices, widget=forms.HiddenInput)
    name = forms.CharField(label=_("name"), max_length=200)
    slug = forms.CharField(label=_("slug"), max_length=MAX_SLUG, required=False,
                           help_text=_("The tournament's address: /t/SLUG/. Latin letters, digits, '-' and '_'; left "
                                       "empty, it is made from the name."))
    timezone = forms.ChoiceField(label=_("time zone"), choices=timezone_choices, initial=DEFAULT_ZONE,
                                 help_text=_("Deadlines and game times are counted in this zone."))
    starts_on = forms.DateField(label=_("starts on"), required=False,
                                widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"))
    ends_on = forms.DateField(label=_("ends on"), required=False,
                              widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"))
    registration_deadline = forms.DateTimeField(
        label=_("registration deadline"), required=False,
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        help_text=_("In the tournament's time zone."))
    room = forms.CharField(label=_("game room"), max_length=MAX_ROOM, required=False)

    def __init__(self, ruleset_key: str, *args: Any, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self.ruleset_key = ruleset_key
        self.fields["ruleset"].initial = ruleset_key
        self.setting_keys = list(form_settings(ruleset_key))
        for key, default in form_settings(ruleset_key).items():
            field = setting_field(default)
            field.label = key  # the setting's name in the ruleset's spec, as the rules page shows it
            self.fields[PREFIX + key] = field

    def fact_fields(self) -> list[forms.BoundField]:
        return [self[name] for name in FIELDS]

    def setting_fields(self) -> list[forms.BoundField]:
        return [self[PREFIX + key] for key in self.setting_keys]

    def clean_ruleset(self) -> str:
        if self.cleaned_data["ruleset"] != self.ruleset_key:
            raise forms.ValidationError(_("The ruleset changed while the form was filled in; choose it again."))
        return self.cleaned_data["ruleset"]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean()
        moment = cleaned.get("registration_deadline")
        zone_name = cleaned.get("timezone") or DEFAULT_ZONE
        if isinstance(moment, dt.datetime):  # typed as a time of the tournament's zone, not the reader's
            naive = django_timezone.make_naive(moment) if django_timezone.is_aware(moment) else moment
            cleaned["registration_deadline"] = naive.replace(tzinfo=zoneinfo.ZoneInfo(zone_name))
        return cleaned

    def arguments(self) -> dict[str, Any]:
        """The keyword arguments of ``create_tournament`` (a valid form only)."""
        data = self.cleaned_data
        return {
            "name": data["name"], "slug": data["slug"] or suggest_slug(data["name"]), "ruleset": self.ruleset_key,
            "timezone": data["timezone"], "starts_on": data["starts_on"], "ends_on": data["ends_on"],
            "registration_deadline": data["registration_deadline"], "room": data["room"],
            "settings": {key: data[PREFIX + key] for key in self.setting_keys},
        }

    def refuse(self, problems: Iterable[Problem]) -> None:
        """Each problem beside its field (``settings.KEY...`` beside the setting's), the rest above the form."""
        for problem in problems:
            field, message = self._field_of(problem)
            self.add_error(field, message)

    def _field_of(self, problem: Problem) -> tuple[str | None, str]:
        path, message = problem.path, str(problem.message)
        if path in FIELDS:
            return path, message
        if path.startswith("settings."):
            rest = path.removeprefix("settings.")
            key = rest.split(".", 1)[0].split("[", 1)[0]
            if key in self.setting_keys:
                inner = rest[len(key):].lstrip(".")
                return PREFIX + key, f"{inner}: {message}" if inner else message
        return None, f"{path}: {message}" if path else message


class RulesetForm(forms.Form):
    """The ruleset a new tournament is created under (the first step of the page)."""

    ruleset = forms.ChoiceField(choices=rulesets.choices)
