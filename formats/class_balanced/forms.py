"""The form of a class_balanced stage's schedule page: generate with a public seed, or publish (CB-2)."""

from django import forms
from django.utils.translation import gettext_lazy as _


class PressedButton(forms.HiddenInput):
    """A submit button posts its name with an empty value: pressed is whether the name is in the POST."""

    def value_from_datadict(self, data, files, name) -> bool:
        return name in data


class ScheduleForm(forms.Form):
    publish = forms.BooleanField(required=False, widget=PressedButton)
    seed = forms.CharField(label=_("Seed"), max_length=60, required=False,
                           error_messages={"max_length": _("The seed is at most %(limit_value)d characters long.")})

    def clean(self):
        data = super().clean()
        if not data.get("publish") and "seed" in data and not data["seed"]:
            self.add_error("seed", _("Give the public seed of the draw."))
        return data
