from django import forms
from django.contrib.auth.forms import UserCreationForm
from django.utils.translation import gettext_lazy as _

from accounts.models import Player, User


class SignUpForm(UserCreationForm):
    email = forms.EmailField(label=_("email"), required=True)

    class Meta(UserCreationForm.Meta):
        model = User
        fields = ("username", "email")


class ClaimForm(forms.Form):
    """A user claims a player nick (and the full name a ChGK roster uses)."""

    nick = forms.CharField(label=_("nick"), max_length=100)
    full_name = forms.CharField(label=_("full name"), max_length=200, required=False)

    def __init__(self, *args, user=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.user = user

    def clean_nick(self) -> str:
        nick = self.cleaned_data["nick"].strip()
        player = Player.objects.filter(nick=nick).first()
        if player is not None and player.user_id not in (None, self.user.pk):
            raise forms.ValidationError(_("The player %(nick)s is already claimed by another account."),
                                        params={"nick": nick})
        if hasattr(self.user, "player") and self.user.player.nick != nick:
            raise forms.ValidationError(_("Your account already claims %(nick)s: one user, one player."),
                                        params={"nick": self.user.player.nick})
        return nick
