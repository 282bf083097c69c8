from django import forms
from django.utils.translation import gettext_lazy as _

from tournaments.models import AppealKind, Verdict


class ChgkAppealForm(forms.Form):
    """CHGK-20: the question is filled in from the tour; the team answers and argues."""

    kind = forms.ChoiceField(label=_("kind"), choices=[(AppealKind.REMOVAL, AppealKind.REMOVAL.label),
                                                       (AppealKind.ACCEPT_ANSWER, AppealKind.ACCEPT_ANSWER.label)])
    answer = forms.CharField(label=_("the team's answer"), required=False, max_length=500)
    argument = forms.CharField(label=_("argument with references"), widget=forms.Textarea, max_length=10000)


class DecisionAppealForm(forms.Form):
    """GP-23, FL-19, CB-17: who appeals, the game and decision links, the claim."""

    appellant = forms.CharField(label=_("who appeals (player or team)"), max_length=150)
    argument = forms.CharField(label=_("claim"), widget=forms.Textarea, max_length=10000)


class VerdictForm(forms.Form):
    verdict = forms.ChoiceField(label=_("verdict"), choices=Verdict.choices)
    reasons = forms.CharField(label=_("reasons"), widget=forms.Textarea, max_length=10000)
    credited = forms.MultipleChoiceField(label=_("teams credited with the answer (CHGK-22)"), required=False,
                                         widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, teams=(), **kwargs):
        super().__init__(*args, **kwargs)
        self.fields["credited"].choices = [(str(t.pk), t.name) for t in teams]
