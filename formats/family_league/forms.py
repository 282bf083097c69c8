"""Forms of the family league pages' POSTs: the head's application (FL-1..FL-3), a stage's calendar (FL-9), the
group draw (FL-8) and a family's join requests (FL-1, FL-4). The field names are those the templates post."""

from django import forms
from django.core.exceptions import ValidationError
from django.utils.translation import gettext_lazy as _

from accounts.forms import UNKNOWN_ACTION

SEED_ERRORS = {"required": _("Give the public seed of the draw."),
               "max_length": _("The seed is at most %(limit_value)d characters long.")}


class IdListField(forms.Field):
    """The ids of the checked boxes of one name, as whole numbers."""

    widget = forms.MultipleHiddenInput
    default_error_messages = {"invalid": _("Unknown player.")}

    def to_python(self, value) -> list[int]:
        if not value:
            return []
        try:
            return [int(item) for item in value]
        except (TypeError, ValueError):
            raise ValidationError(self.error_messages["invalid"], code="invalid") from None


class ApplyForm(forms.Form):
    family = forms.IntegerField(label=_("Family"), min_value=1, required=False,
                                error_messages={"invalid": _("Unknown family."), "min_value": _("Unknown family.")})
    players = IdListField(label=_("Current members of the family"), required=False)


class CalendarForm(forms.Form):
    starts_on = forms.DateField(label=_("First day of the stage"), required=False, input_formats=["%Y-%m-%d"],
                                error_messages={"invalid": _("Give the first day as a date YYYY-MM-DD.")})


class GroupsForm(forms.Form):
    seed = forms.CharField(label=_("Seed"), max_length=60, error_messages=SEED_ERRORS)


class FamilyActionForm(forms.Form):
    """A button of a family's page; the head's accept and refuse name the join request."""

    action = forms.ChoiceField(choices=[(key, key) for key in ("request", "withdraw", "leave", "accept", "refuse")],
                               error_messages=UNKNOWN_ACTION)
    membership = forms.IntegerField(min_value=1, required=False,
                                    error_messages={"invalid": _("Unknown join request."),
                                                    "min_value": _("Unknown join request.")})

    def clean(self):
        data = super().clean()
        if data.get("action") in ("accept", "refuse") and "membership" in data and data["membership"] is None:
            self.add_error("membership", _("Unknown join request."))
        return data
