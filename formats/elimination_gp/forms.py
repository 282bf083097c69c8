"""Forms of the Grand Prix pages' POSTs: a stage's registration and conditions (GP-2..GP-6), its baskets and
draw (GP-7, GP-8). The field names are those the templates post."""

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.forms import UNKNOWN_ACTION
from rulesets.elimination_gp.standings import EXTRA_INDICATORS
from tournaments.models import DecisionKind, Outcome


def _choices(*keys: str) -> list[tuple[str, str]]:
    return [(key, key) for key in keys]


class RegistrationForm(forms.Form):
    """The registration page: register, invite or withdraw a player (the organizers name one by nick), or set the
    stage's conditions and open registration (GP-2)."""

    action = forms.ChoiceField(choices=_choices("register", "invite", "withdraw", "conditions", "open", "close"),
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


# --- the committee's decisions of one stage (GP-16..GP-19, GP-21) ---

TIE_BREAK_PLACES = 10
QUALIFY_SCOPES = (("vacancy", _("fills a vacancy of this stage (GP-18)")),
                  ("pick", _("the committee's own pick or replacement for the final (GP-19)")))


class QualifyForm(forms.Form):
    """A ``qualify`` decision: a player of the stage goes to the final (interchange "Decisions": player, reason)."""

    player = forms.ChoiceField(label=_("Player"))
    scope = forms.ChoiceField(label=_("Grounds"), choices=QUALIFY_SCOPES, initial="vacancy")
    reason = forms.CharField(label=_("Reason"), max_length=1000, widget=forms.Textarea(attrs={"rows": 3}))

    def __init__(self, *args, players: list[str] = (), **kwargs):
        super().__init__(*args, prefix="qualify", **kwargs)
        self.fields["player"].choices = [("", "—"), *[(nick, nick) for nick in players]]


class TieBreakForm(forms.Form):
    """A ``tie_break`` decision: the committee's order of tied rows of the stage (GP-16 and GP-17 ties across the
    cut, GP-17 ``custom`` ranking, GP-21's last step); places left empty are ignored."""

    reason = forms.CharField(label=_("Reason"), max_length=1000, required=False,
                             widget=forms.Textarea(attrs={"rows": 2}))

    def __init__(self, *args, players: list[str] = (), tied: list[str] = (), **kwargs):
        super().__init__(*args, prefix="tie", **kwargs)
        choices = [("", "—"), *[(nick, nick) for nick in players]]
        count = max(len(tied), 2) if tied else TIE_BREAK_PLACES
        for index in range(count):
            self.fields[f"place_{index + 1}"] = forms.ChoiceField(
                label=_("Place %(number)s") % {"number": index + 1}, choices=choices, required=False,
                initial=tied[index] if index < len(tied) else "")
        self.order_fields([f"place_{i + 1}" for i in range(count)] + ["reason"])

    def order(self) -> list[str]:
        return [self.cleaned_data[name] for name in self.fields if name.startswith("place_")
                and self.cleaned_data.get(name)]

    def clean(self):
        data = super().clean()
        order = self.order()
        if len(order) < 2:
            raise forms.ValidationError(_("Name at least two players in the committee's order."))
        if len(set(order)) != len(order):
            raise forms.ValidationError(_("Each player appears once in the committee's order."))
        return data


class GameDecisionForm(forms.Form):
    """A technical result or a replay of one game of the stage (interchange "Decisions")."""

    kind = forms.ChoiceField(label=_("Kind"), choices=[(k, label) for k, label in DecisionKind.choices
                                                       if k in ("technical_result", "replay")])
    game = forms.ChoiceField(label=_("Game"))
    outcome = forms.ChoiceField(label=_("Awarded outcome"), required=False,
                                choices=[("", "—"), *Outcome.choices])
    code = forms.CharField(label=_("Grounds (rule or FP code)"), max_length=30, required=False)
    text = forms.CharField(label=_("Text"), max_length=10000, required=False, widget=forms.Textarea(attrs={"rows": 3}))

    def __init__(self, *args, games: list[int] = (), **kwargs):
        super().__init__(*args, prefix="game", **kwargs)
        self.fields["game"].choices = [("", "—"), *[(str(n), str(n)) for n in games]]
