import zoneinfo
from collections.abc import Sequence

from django import forms
from django.contrib import messages
from django.contrib.auth.forms import UserCreationForm
from django.utils.text import capfirst
from django.utils.translation import gettext_lazy as _

from accounts.claims import find_player
from accounts.models import Player, User

UNKNOWN_ACTION = {"required": _("Unknown action."), "invalid_choice": _("Unknown action.")}


def form_problems(form: forms.Form) -> list[str]:
    """The errors of a bound form, one line each: "label: error", or the error alone for the form's own
    errors (``clean``) and fields without a label. For pages that answer a POST by redirecting."""
    lines = []
    for name, errors in form.errors.items():
        field = form.fields.get(name)
        label = capfirst(field.label) if field is not None and field.label else ""
        lines += [f"{label}: {error}" if label else str(error) for error in errors]
    return lines


def errors_as_messages(request, form: forms.Form) -> None:
    """Every error of the invalid ``form`` as an error message of the page the POST is redirected to."""
    for line in form_problems(form):
        messages.error(request, line)


class ActionForm(forms.Form):
    """Which button of a page a POST pressed: its ``action``, one of ``actions`` (``default`` when it names none).

    For pages whose buttons post different forms: the action chooses the form that reads the rest.
    """

    action = forms.ChoiceField(required=False, error_messages=UNKNOWN_ACTION)

    def __init__(self, *args, actions: Sequence[str], default: str = "", **kwargs):
        super().__init__(*args, **kwargs)
        self.default = default
        self.fields["action"].choices = [(action, action) for action in actions]

    def clean_action(self) -> str:
        action = self.cleaned_data["action"] or self.default
        if not action:
            raise forms.ValidationError(UNKNOWN_ACTION["required"], code="required")
        return action


# The zones most players of the portal live in, offered first (a 600-entry list is no choice).
COMMON_ZONES = (
    "Europe/Moscow", "Europe/Kaliningrad", "Europe/Samara", "Asia/Yekaterinburg", "Asia/Omsk", "Asia/Novosibirsk",
    "Asia/Krasnoyarsk", "Asia/Irkutsk", "Asia/Yakutsk", "Asia/Vladivostok", "Asia/Magadan", "Asia/Kamchatka",
    "Europe/Minsk", "Europe/Kyiv", "Europe/Chisinau", "Europe/Riga", "Europe/Vilnius", "Europe/Tallinn",
    "Asia/Tbilisi", "Asia/Yerevan", "Asia/Baku", "Asia/Almaty", "Asia/Tashkent", "Asia/Bishkek",
    "Europe/Berlin", "Europe/London", "Asia/Jerusalem", "America/New_York", "UTC",
)
ZONE_REGIONS = ("Europe", "Asia", "America", "Africa", "Australia", "Pacific", "Atlantic", "Indian", "Antarctica")


def timezone_choices() -> list[tuple[str, list[tuple[str, str]]]]:
    """The zones grouped for a select: the common ones first, then every region's, by name (no alias groups)."""
    known = zoneinfo.available_timezones()
    groups: list[tuple[str, list[tuple[str, str]]]] = [
        (str(_("Common zones")), [(name, name) for name in COMMON_ZONES if name in known or name == "UTC"])]
    for region in ZONE_REGIONS:
        names = sorted(name for name in known if name.startswith(f"{region}/") and name not in COMMON_ZONES)
        groups.append((region, [(name, name.removeprefix(f"{region}/").replace("_", " ")) for name in names]))
    return groups


class SignUpForm(UserCreationForm):
    email = forms.EmailField(label=_("email"), required=True,
                             help_text=_("Password reset links are sent to this address."))
    timezone = forms.ChoiceField(label=_("time zone"), choices=timezone_choices, initial="Europe/Moscow",
                                 help_text=_("Times of games and deadlines are shown in this zone."))

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email", "timezone")

    def clean_email(self) -> str:
        email = self.cleaned_data["email"].strip()
        if User.objects.filter(email__iexact=email).exists():
            raise forms.ValidationError(_("An account with this email already exists; reset its password instead."))
        return email


class TimezoneForm(forms.ModelForm):
    timezone = forms.ChoiceField(label=_("time zone"), choices=timezone_choices)

    class Meta:
        model = User
        fields = ("timezone",)


class ClaimForm(forms.Form):
    """A user claims a player nick (and the full name a ChGK roster uses)."""

    nick = forms.CharField(label=_("nick"), max_length=100)
    full_name = forms.CharField(label=_("full name"), max_length=200, required=False,
                                help_text=_("For ChGK: your name as team rosters list it."))

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_nick(self) -> str:
        nick = self.cleaned_data["nick"].strip()
        if not nick:
            raise forms.ValidationError(_("Enter the nick you play under."))
        player = find_player(nick)
        if player is not None and player.user_id not in (None, self.user.pk):
            raise forms.ValidationError(_("The player %(nick)s is already claimed by another account."),
                                        params={"nick": player.nick})
        own = Player.objects.filter(user=self.user).first()
        if own is not None and (player is None or own.pk != player.pk):
            raise forms.ValidationError(_("Your account already claims %(nick)s: one user, one player."),
                                        params={"nick": own.nick})
        return nick


class MergeForm(forms.Form):
    duplicate = forms.CharField(label=_("duplicate player (removed)"), max_length=100)
    target = forms.CharField(label=_("player who remains"), max_length=100)
    confirm = forms.BooleanField(label=_("Every seat, roster, award and membership of the duplicate moves; this "
                                         "cannot be undone."), required=True)

    def _player(self, field: str) -> Player:
        player = find_player(self.cleaned_data[field])
        if player is None:
            raise forms.ValidationError(_("No player %(nick)s."), params={"nick": self.cleaned_data[field]})
        return player

    def clean_duplicate(self) -> Player:
        return self._player("duplicate")

    def clean_target(self) -> Player:
        return self._player("target")

    def clean(self):
        data = super().clean()
        if data.get("duplicate") is not None and data.get("duplicate") == data.get("target"):
            raise forms.ValidationError(_("Name two different players."))
        return data
