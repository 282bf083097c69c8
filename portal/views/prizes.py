"""The prizes page: the awards of the stored standings with their payment status (GP-22, GP-22a, FL-20)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils.translation import gettext as _

from accounts.forms import errors_as_messages
from accounts.permissions import can_record_decisions
from accounts.zones import zone_caption
from portal.forms import PrizePaidForm
from portal.labels import ITEMS, label
from scoring import prizes
from tournaments.messages import refusal_text
from tournaments.models import PrizePayment, Tournament


def prizes_view(request: HttpRequest, slug: str) -> HttpResponse:
    """GP-22, GP-22a: the awards of the snapshots, each with its payment status; the committee marks them paid."""
    tournament = get_object_or_404(Tournament, slug=slug)
    committee = can_record_decisions(request.user, tournament)
    if request.method == "POST":
        if not committee:
            messages.error(request, _("Only the committee or the stage commission marks prizes paid (GP-22)."))
            return redirect(request.path)
        form = PrizePaidForm(request.POST)
        if not form.is_valid():
            errors_as_messages(request, form)
            return redirect(request.path)
        award = form.cleaned_data
        try:
            prizes.mark_paid(tournament, award["stage_key"], award["place"], award["team"], award["player"],
                             user=request.user)
            messages.success(request, _("The prize is marked paid."))
        except prizes.PrizeRefused as exc:
            messages.error(request, refusal_text(exc))
        return redirect(request.path)
    payments = {(p.stage_key, p.place, p.team_name, p.player_nick): p for p in
                PrizePayment.objects.filter(tournament=tournament).select_related("paid_by")}
    stages = []
    for stage_key, awards in prizes.awards_by_stage(tournament):
        rows = [{**award, "payment": payments.get(prizes.award_key(stage_key, award)),
                 "team_value": award.get("team") or "", "player_value": award.get("player") or "",
                 "items_text": ", ".join(str(label(ITEMS, item)) for item in award.get("items") or [])}
                for award in awards]
        if rows:
            stages.append({"key": stage_key, "awards": rows,
                           "unpaid": sum(1 for r in rows if r["payment"] is None and r.get("prize"))})
    return render(request, "tournaments/prizes.html", {
        "tournament": tournament, "stages": stages, "committee": committee, "zone": zone_caption(tournament.timezone),
    })
