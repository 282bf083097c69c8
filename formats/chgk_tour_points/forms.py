"""Forms of a ChGK captain's team page: additions, replacements, the captaincy, line-ups (CHGK-2..CHGK-4)."""

from django import forms
from django.utils.translation import gettext_lazy as _


class AddPlayersForm(forms.Form):
    names = forms.CharField(label=_("players to add, one per line"), widget=forms.Textarea(attrs={"rows": 3}))

    def clean_names(self) -> list[str]:
        return [line.strip() for line in self.cleaned_data["names"].splitlines() if line.strip()]


class ReplaceForm(forms.Form):
    old = forms.TypedChoiceField(label=_("player replaced"), coerce=int)
    new = forms.CharField(label=_("replacement"), max_length=100)

    def __init__(self, *args, entries=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["old"].choices = [(e.pk, e.player.nick) for e in entries]


class CaptainForm(forms.Form):
    player = forms.TypedChoiceField(label=_("new captain"), coerce=int)

    def __init__(self, *args, entries=(), captain_id=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["player"].choices = [(e.player_id, e.player.nick) for e in entries if e.player_id != captain_id]


class LineUpForm(forms.Form):
    line_up = forms.CharField(label=_("line-up: one player per line, an empty line at each break"),
                              widget=forms.Textarea(attrs={"rows": 8}))
