"""``/accounts/dashboard/new/``: an organizer creates a tournament.

First the ruleset is chosen (``?ruleset=KEY``: its settings decide the form's fields), then the form is filled
in and posted; ``tournaments.setup.create_tournament`` judges and writes it, and the browser goes on to the new
tournament's dashboard, whose next steps lead on. Who may create: ``tournaments.setup`` (staff, and the
organizers of a tournament); anyone else gets the refusal page (403), an anonymous visitor the login page.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

import rulesets
from portal.forms_setup import RulesetForm, TournamentCreateForm, ruleset_choices
from rulesets.errors import Invalid, NotAllowed
from tournaments.setup import create_tournament, require_creator


@login_required
def tournament_new_view(request: HttpRequest) -> HttpResponse:
    try:
        require_creator(request.user)
    except NotAllowed as refusal:
        return render(request, "accounts/forbidden.html", {"text": str(refusal)}, status=403)
    chosen = RulesetForm(request.POST if request.method == "POST" else request.GET)
    key = chosen.cleaned_data["ruleset"] if chosen.is_valid() else chosen.data.get("ruleset")
    if key not in rulesets.keys():
        return render(request, "accounts/tournament_new.html", {
            "rulesets": ruleset_choices(), "unknown": key}, status=400 if request.method == "POST" else 200)
    form = TournamentCreateForm(key, request.POST if request.method == "POST" else None)
    if request.method == "POST" and form.is_valid():
        try:
            tournament = create_tournament(request.user, **form.arguments())
        except NotAllowed as refusal:
            return render(request, "accounts/forbidden.html", {"text": str(refusal)}, status=403)
        except Invalid as refused:
            form.refuse(refused.located())
        else:
            messages.success(request, _("The tournament %(name)s is created; you are its organizer.")
                             % {"name": tournament.name})
            return redirect("dashboard", slug=tournament.slug)
    return render(request, "accounts/tournament_new.html", {
        "rulesets": ruleset_choices(), "form": form, "ruleset": key,
    }, status=400 if request.method == "POST" else 200)
