"""The profile's page of personal API tokens: list, create (shown once), revoke."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts import tokens
from accounts.forms import ActionForm

EXPIRY_CHOICES = [(30, gettext_lazy("30 days")), (90, gettext_lazy("90 days")), (365, gettext_lazy("1 year")),
                  (0, gettext_lazy("never"))]


class TokenForm(forms.Form):
    name = forms.CharField(label=gettext_lazy("Name"), max_length=100,
                           help_text=gettext_lazy("What the token is for, e.g. the script that uses it."))
    expiry_days = forms.TypedChoiceField(label=gettext_lazy("Expires in"), choices=EXPIRY_CHOICES, coerce=int,
                                         initial=90)


class RevokeForm(forms.Form):
    token = forms.CharField(max_length=200)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def api_tokens(request: HttpRequest) -> HttpResponse:
    """GET lists the tokens; POST ``action=create`` shows the new token in this answer only (never stored
    in plain text, not even in the session); POST ``action=revoke`` deletes one of the user's tokens."""
    form = TokenForm()
    created = ""
    if request.method == "POST":
        action = ActionForm(request.POST, actions=("create", "revoke"))
        if not action.is_valid():
            messages.error(request, _("Unknown action."))
            return redirect("api-tokens")
        if action.cleaned_data["action"] == "revoke":
            revoke = RevokeForm(request.POST)
            if revoke.is_valid() and tokens.revoke_token(request.user, revoke.cleaned_data["token"]):
                messages.success(request, _("The token is revoked; it no longer authenticates."))
            else:
                messages.error(request, _("You have no such token."))
            return redirect("api-tokens")
        form = TokenForm(request.POST)
        if form.is_valid():
            _row, created = tokens.create_token(request.user, form.cleaned_data["name"],
                                                form.cleaned_data["expiry_days"])
            form = TokenForm()
    return render(request, "accounts/tokens.html", {
        "form": form, "tokens": tokens.tokens_of(request.user), "created": created,
        "example": curl_example(request, created) if created else "", "usage": curl_example(request, "<token>")})


def curl_example(request: HttpRequest, token: str) -> str:
    """The ``curl`` line that reads the API with ``token`` on this host."""
    return f'curl -H "Authorization: Token {token}" {request.scheme}://{request.get_host()}/api/v1/tournaments/'

