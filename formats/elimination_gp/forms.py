"""Forms of the Grand Prix pages' POSTs: a stage's registration and conditions (GP-2..GP-6), its baskets and
draw (GP-7, GP-8). The field names are those the templates post."""

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.forms import UNKNOWN_ACTION
from rulesets.elimination_gp.standings import EXTRA_INDICATORS


def _choices(*keys: str) -> list[tuple[str, str]]:
    return [(key, key) for key in keys]


class RegistrationForm(forms.Form):
    """The registration page: register, invite or withdraw a player (the organizers name one by nick), or set the
    stage's conditions and open registration (GP-2)."""

    action = forms.ChoiceField(choices=_choices("register", "invite", "withdraw", "conditions", "open"),
                               error_messages=UNKNOWN_ACTION)
    nick = forms.CharField(label=_("Player's nick"), max_length=100, required=False)
    new_invitation = forms.CharField(label=_("New invitation replacing a withdrawn invited player (optional)"),
                                     max_length=100, required=False)
    commission = forms.CharField(label=_("stage commission"), required=False)
    game_times = forms.CharField(label=_("game times"), required=False)
    prize_fund = forms.CharField(label=_("prize fund"), required=False)
    extra_indicator = forms.ChoiceField(label=_("extra indicator (GP-17)"), required=False,
                                        choices=[("", "—"), *[(key, key) for key in EXTRA_INDICATORS]])


class DrawForm(forms.Form):
    """The draw page: run the seeded draw (the default action), save the baskets (GP-7 ``manual``) or the teams
    drawn by hand (GP-8)."""

    action = forms.ChoiceField(choices=_choices("draw", "baskets", "by_hand"), required=False,
                               error_messages=UNKNOWN_ACTION)
    seed = forms.CharField(label=_("Seed (leave empty for a random one)"), max_length=100, required=False,
                           error_messages={"max_length": _("The seed is at most %(limit_value)d characters long.")})
    baskets = forms.CharField(label=_("One “nick: basket” per line"), required=False)
    teams = forms.CharField(label=_("teams drawn by hand"), required=False)

    def clean_action(self) -> str:
        return self.cleaned_data["action"] or "draw"

    def clean_teams(self) -> list[list[str]]:
        """One team a line, optionally "Team: ", its players separated by commas."""
        return [[nick.strip() for nick in line.split(":", 1)[-1].split(",") if nick.strip()]
                for line in self.cleaned_data["teams"].splitlines() if line.strip()]
