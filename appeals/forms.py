from django import forms
from django.utils.translation import gettext_lazy as _

from tournaments.models import AppealKind, DecisionKind, Outcome, Verdict


class ChgkAppealForm(forms.Form):
    """CHGK-20: the question is filled in from the tour; the team answers and argues."""

    kind = forms.ChoiceField(label=_("kind"), choices=[(AppealKind.REMOVAL, AppealKind.REMOVAL.label),
                                                       (AppealKind.ACCEPT_ANSWER, AppealKind.ACCEPT_ANSWER.label)],
                             error_messages={"invalid_choice": _("Choose the kind of the appeal from the list.")})
    answer = forms.CharField(label=_("the team's answer"), required=False, max_length=500)
    argument = forms.CharField(label=_("argument with references"), widget=forms.Textarea, max_length=10000)


class DecisionAppealForm(forms.Form):
    """GP-23, FL-19, CB-17: who appeals, the game and decision (or penalty) links, the claim."""

    appellant = forms.CharField(label=_("who appeals (player or team)"), max_length=150)
    argument = forms.CharField(label=_("claim"), widget=forms.Textarea, max_length=10000)


class VerdictForm(forms.Form):
    """The verdict on one appeal, with the fields of its kind only.

    ``credited`` (CHGK-22) is offered only for a ChGK appeal to accept an answer; ``partly`` only for an appeal
    against a Mafia decision or a judge's penalty (FL-19: a detected violation is annulled or not, a ChGK appeal
    upheld or rejected).
    """

    verdict = forms.ChoiceField(label=_("verdict"), choices=Verdict.choices,
                                error_messages={"invalid_choice": _("Choose a verdict from the list.")})
    reasons = forms.CharField(label=_("reasons"), widget=forms.Textarea, max_length=10000)
    credited = forms.MultipleChoiceField(label=_("teams credited with the answer (CHGK-22)"), required=False,
                                         widget=forms.CheckboxSelectMultiple)

    def __init__(self, *args, teams=(), kind: str = AppealKind.ACCEPT_ANSWER, **kwargs):
        super().__init__(*args, **kwargs)
        if kind == AppealKind.ACCEPT_ANSWER:
            self.fields["credited"].choices = [(str(t.pk), t.name) for t in teams]
        else:
            del self.fields["credited"]
        if kind not in (AppealKind.DECISION, AppealKind.PENALTY):
            self.fields["verdict"].choices = [(v, label) for v, label in Verdict.choices if v != Verdict.PARTLY]


class AppealTargetForm(forms.Form):
    """What an appeal is about, as the appeal links (GET) and the filing form's hidden fields (POST) give it:
    a tour's question (ChGK), a game's detected violation (FL-15) or a decision (GP-23, FL-19, CB-17)."""

    tour = forms.IntegerField(min_value=1, required=False)
    question = forms.IntegerField(min_value=1, required=False)
    kind = forms.CharField(max_length=40, required=False)
    violation = forms.CharField(max_length=40, required=False)
    stage = forms.CharField(max_length=40, required=False)
    game = forms.IntegerField(min_value=1, required=False)
    player = forms.CharField(max_length=100, required=False)
    decision = forms.IntegerField(min_value=0, required=False)
    penalty = forms.IntegerField(min_value=1, required=False)  # a judge's penalty (FL-19), by its id


class ReplacementDecisionForm(forms.Form):
    """FL-19: the changed decision a partly upheld appeal records in place of the appealed one (its stage and
    game stay the appealed decision's); read and judged by the interchange rules in ``appeals.services.decide``."""

    kind = forms.ChoiceField(label=_("kind of the changed decision"), choices=DecisionKind.choices)
    outcome = forms.ChoiceField(label=_("awarded outcome"), required=False,
                                choices=[("", "—"), *Outcome.choices])
    code = forms.CharField(label=_("grounds (rule or FP code)"), required=False, max_length=30)
    team = forms.CharField(label=_("team"), required=False, max_length=100)
    player = forms.CharField(label=_("player"), required=False, max_length=100)
    text = forms.CharField(label=_("text"), required=False, widget=forms.Textarea, max_length=10000)

    def __init__(self, *args, decision=None, **kwargs):
        self.decision = decision
        if decision is not None:
            kwargs.setdefault("initial", {
                "kind": decision.kind, "outcome": decision.outcome or "", "code": decision.code,
                "team": decision.team.name if decision.team else "",
                "player": decision.player.nick if decision.player else ""})
        super().__init__(*args, prefix="replacement", **kwargs)

    def document(self) -> dict:
        """The changed decision as an interchange decision object (only the fields given)."""
        data = self.cleaned_data
        out = {"kind": data["kind"]}
        if self.decision is not None and self.decision.stage is not None:
            out["stage"] = self.decision.stage.key
        if self.decision is not None and self.decision.game is not None:
            out["game"] = self.decision.game.number
        out.update({key: data[key] for key in ("outcome", "code", "team", "player", "text") if data.get(key)})
        return out


class ReplacementPenaltyForm(forms.Form):
    """FL-19: the changed penalty a partly upheld appeal against a judge's penalty records in its place (its stage,
    game, team and player stay the appealed penalty's); read and judged by the interchange rules in
    ``appeals.services.decide``."""

    points = forms.DecimalField(label=_("points deducted"), max_digits=8, decimal_places=3, min_value=0,
                                required=False)
    code = forms.CharField(label=_("rule code"), required=False, max_length=20)
    text = forms.CharField(label=_("text"), required=False, widget=forms.Textarea, max_length=10000)

    def __init__(self, *args, penalty=None, **kwargs):
        self.penalty = penalty
        if penalty is not None:
            kwargs.setdefault("initial", {"points": penalty.points, "code": penalty.code, "text": penalty.text})
        super().__init__(*args, prefix="replacement", **kwargs)

    def document(self) -> dict:
        """The changed penalty as an interchange penalty object (only the fields given)."""
        data = self.cleaned_data
        out: dict = {}
        if data.get("points") is not None:
            out["points"] = str(data["points"])
        out.update({key: data[key] for key in ("code", "text") if data.get(key)})
        return out
