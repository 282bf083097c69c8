"""Forms of the ChGK pages' POSTs: the season's setup (applications and admission, the hosting draw, a tour's
pack, the checklists: CHGK-1, CHGK-5, CHGK-7..CHGK-11) and a captain's team page (CHGK-2..CHGK-4)."""

from django import forms
from django.utils.translation import gettext_lazy as _

from accounts.forms import UNKNOWN_ACTION
from formats.chgk_tour_points.services import QUESTION_FIELDS, split_names
from rulesets.facts import LEAGUES


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


class DelegationForm(forms.Form):
    """CHGK-20: a player of the team files its appeals while the captain is away, for a stated period."""

    player = forms.TypedChoiceField(label=_("player"), coerce=int)
    starts_at = forms.DateTimeField(label=_("from"), widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))
    ends_at = forms.DateTimeField(label=_("until"), widget=forms.DateTimeInput(attrs={"type": "datetime-local"}))

    def __init__(self, *args, entries=(), captain_id=None, **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["player"].choices = [(e.player_id, e.player.nick) for e in entries if e.player_id != captain_id]

    def clean(self):
        cleaned = super().clean()
        if cleaned.get("starts_at") and cleaned.get("ends_at") and cleaned["ends_at"] <= cleaned["starts_at"]:
            self.add_error("ends_at", _("The delegation must end after it starts (CHGK-20)."))
        return cleaned


class LineUpForm(forms.Form):
    line_up = forms.CharField(label=_("line-up: one player per line, an empty line at each break"),
                              widget=forms.Textarea(attrs={"rows": 8}))


# --------------------------------------------------------------------------- the season's setup


def _choices(*keys: str) -> list[tuple[str, str]]:
    return [(key, key) for key in keys]


class AdmitForm(forms.Form):
    """CHGK-5: admit the teams of the queue within the limit (none: every team)."""

    limit = forms.IntegerField(label=_("Team limit"), min_value=1, required=False,
                               error_messages={"invalid": _("The team limit is a whole number from 1."),
                                               "min_value": _("The team limit is a whole number from 1.")})


class ApplicationForm(forms.Form):
    """CHGK-1: a team's application as the organizers enter it; the rules check the names and their number."""

    team_name = forms.CharField(label=_("Team name"), max_length=100, required=False)
    captain = forms.CharField(label=_("Captain's full name"), max_length=100, required=False)
    players = forms.CharField(label=_("Players' full names, one per line"), required=False)
    home_university = forms.BooleanField(label=_("All players study or studied at the host university"),
                                         required=False)
    league = forms.ChoiceField(label=_("League in the city championship"), choices=_choices(*LEAGUES),
                               required=False, error_messages={"invalid_choice": _("Choose a league of the list.")})
    played_tournaments = forms.CharField(label=_("Tournaments whose questions the team has already played"),
                                         required=False)

    def clean_players(self) -> list[str]:
        return split_names(self.cleaned_data["players"])

    def clean_league(self) -> str:
        return self.cleaned_data["league"] or "none"


class CaptainApplicationForm(ApplicationForm):
    """CHGK-1: a signed-in player applies for a team from the season's page and is its captain."""

    team_name = forms.CharField(label=_("Team name"), max_length=100,
                                error_messages={"required": _("The application names the team (CHGK-1).")})
    players = forms.CharField(label=_("The other players' full names, one per line"), required=False)

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        del self.fields["captain"]


class DecisionForm(forms.Form):
    """CHGK-5: admit one application (within the limit of the queue) or refuse it with a reason."""

    application = forms.IntegerField(min_value=1, error_messages={
        "required": _("Choose an application of the season."), "invalid": _("Choose an application of the season."),
        "min_value": _("Choose an application of the season.")})
    reason = forms.CharField(label=_("Reason of the refusal"), max_length=1000, required=False,
                             error_messages={"max_length": _("The reason is at most %(limit_value)d characters long.")})
    limit = AdmitForm.base_fields["limit"]


class HostingForm(forms.Form):
    """CHGK-7: a team's wish, the order fixed by hand, or the draw by lot (the default action)."""

    action = forms.ChoiceField(choices=_choices("draw", "wish", "by_hand"), required=False,
                               error_messages=UNKNOWN_ACTION)
    team = forms.IntegerField(label=_("Team"), min_value=1, required=False,
                              error_messages={"invalid": _("Choose a team of the season."),
                                              "min_value": _("Choose a team of the season.")})
    prefers = forms.CharField(label=_("Prefers (tour numbers or dates YYYY-MM-DD)"), required=False)
    cannot = forms.CharField(label=_("Cannot (tour numbers or dates YYYY-MM-DD)"), required=False)
    order = forms.CharField(label=_("Hosts, one team per line in tour order"), required=False)
    dates = forms.CharField(label=_("Tour dates, one per line in tour order (optional)"), required=False)
    seed = forms.CharField(label=_("Seed (empty: a new random seed)"), max_length=100, required=False,
                           error_messages={"max_length": _("The seed is at most %(limit_value)d characters long.")})

    def clean_action(self) -> str:
        return self.cleaned_data["action"] or "draw"

    def clean(self):
        data = super().clean()
        if data.get("action") == "wish" and "team" in data and data["team"] is None:
            self.add_error("team", _("Choose a team of the season."))
        return data


class PackForm(forms.Form):
    """CHGK-8, CHGK-9: the tour's questions, ``q<number>-<field>`` each, and who wrote each."""

    def __init__(self, *args, count: int, **kwargs):
        super().__init__(*args, **kwargs)
        self.count = count
        labels = {"text": _("Text"), "answer": _("Answer"), "accepted_answers": _("Accepted answers"),
                  "comment": _("Comment"), "sources": _("Sources"), "authors": _("Authors")}
        for number in range(1, count + 1):
            for name in QUESTION_FIELDS:
                self.fields[f"q{number}-{name}"] = forms.CharField(
                    label=labels.get(name, name), required=False, max_length=300 if name == "authors" else None)
            self.fields[f"q{number}-origin"] = forms.ChoiceField(
                label=_("Origin"), choices=_choices("host", "committee"), required=False,
                error_messages={"invalid_choice": _("A question is written by the host or given by the committee.")})

    def rows(self) -> list[dict]:
        """The questions as ``services.save_pack`` takes them; when the form is invalid, as posted, with each
        question's errors (``errors``) to show beside it."""
        valid = self.is_valid()
        rows = []
        for number in range(1, self.count + 1):
            names = [f"q{number}-{name}" for name in (*QUESTION_FIELDS, "origin")]
            values = {name: (self.cleaned_data[name] if valid else (self[name].value() or "").strip())
                      for name in names}
            row = {name: values[f"q{number}-{name}"] for name in QUESTION_FIELDS}
            row["number"] = number
            row["by_host"] = (values[f"q{number}-origin"] or "host") == "host"
            if not valid:
                row["errors"] = [f"{self.fields[name].label}: {error}" for name in names
                                 for error in self.errors.get(name, [])]
            rows.append(row)
        return rows


class ChecklistForm(forms.Form):
    """CHGK-11: mark one item of a tour's checklist done (``done=1``) or open again (``done=0``)."""

    tour = forms.IntegerField(label=_("Tour"), min_value=1,
                              error_messages={"required": _("Choose a tour of the season."),
                                              "invalid": _("Choose a tour of the season."),
                                              "min_value": _("Choose a tour of the season.")})
    key = forms.CharField(label=_("Item"), max_length=60,
                          error_messages={"required": _("Unknown checklist item (CHGK-11).")})
    done = forms.TypedChoiceField(label=_("Status"), choices=[("1", "1"), ("0", "0")], coerce=lambda v: v == "1",
                                  error_messages={"required": _("Mark the item done or open it again."),
                                                  "invalid_choice": _("Mark the item done or open it again.")})
