"""A tournament's webhooks on the organizer's dashboard: the subscriptions, the delivery log, and the
public page that tells a client how to verify a signature.

- ``/accounts/dashboard/SLUG/webhooks/``: the subscriptions (URL, events, active); a form subscribes a URL to
  events, and the answer to it shows the new signing secret, this once; each subscription is deactivated,
  activated or deleted by its buttons;
- ``/accounts/dashboard/SLUG/webhooks/deliveries/``: every message sent, newest first, with its status, last
  response code, attempts and next attempt, and a "send again" button;
- ``/webhooks/``: for the receiving side, the headers, the signature and a Python example.

Through ``tournaments.webhooks.subscriptions`` (each act in the tournament's history). Only the organizers and
staff open the dashboard pages: anyone else gets the styled 403 with the rule, and nothing changes.
"""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import path
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods

from accounts.forms import ActionForm, errors_as_messages
from portal.views.common import paginate
from rulesets.errors import NotAllowed, Refused
from tournaments.messages import refusal_text
from tournaments.models import DeliveryStatus, Tournament, WebhookDelivery, WebhookEvent, WebhookSubscription
from tournaments.webhooks import subscriptions
from tournaments.webhooks.delivery import RETRY_OFFSETS

PAGE_SIZE = 50


class SubscribeForm(forms.Form):
    url = forms.CharField(label=gettext_lazy("URL"), max_length=500)
    events = forms.MultipleChoiceField(label=gettext_lazy("Events"), choices=WebhookEvent.choices,
                                       widget=forms.CheckboxSelectMultiple)


class SubscriptionForm(forms.Form):
    subscription = forms.IntegerField(min_value=1, max_value=2**63 - 1)


class DeliveryForm(forms.Form):
    delivery = forms.IntegerField(min_value=1, max_value=2**63 - 1)


def _forbidden(request: HttpRequest, tournament: Tournament) -> HttpResponse:
    return render(request, "accounts/forbidden.html", {"text": subscriptions.rule_text(tournament),
                                                       "tournament": tournament}, status=403)


def _subscriptions(tournament: Tournament) -> list[WebhookSubscription]:
    return list(WebhookSubscription.objects.filter(tournament=tournament).select_related("created_by").order_by("pk"))


def _labels() -> dict[str, str]:
    return {value: str(label) for value, label in WebhookEvent.choices}


def _page(request: HttpRequest, tournament: Tournament, form: SubscribeForm, created: WebhookSubscription | None,
          status: int = 200) -> HttpResponse:
    labels = _labels()
    rows = [{"row": row, "events": [labels.get(event, event) for event in row.events]}
            for row in _subscriptions(tournament)]
    return render(request, "accounts/webhooks.html", {
        "tournament": tournament, "form": form, "subscriptions": rows, "created": created,
        "events": WebhookEvent.choices}, status=status)


def _act(request: HttpRequest, tournament: Tournament, action: str) -> HttpResponse:
    form = SubscriptionForm(request.POST)
    if not form.is_valid():
        errors_as_messages(request, form)
        return redirect("tournament-webhooks", slug=tournament.slug)
    row = WebhookSubscription.objects.filter(tournament=tournament, pk=form.cleaned_data["subscription"]).first()
    if row is None:
        messages.error(request, _("The tournament has no such subscription."))
    elif action == "delete":
        subscriptions.unsubscribe(request.user, row)
        messages.success(request, _("%(url)s no longer receives the events.") % {"url": row.url})
    else:
        subscriptions.change(request.user, row, active=action == "activate")
        messages.success(request, _("%(url)s receives the events again.") % {"url": row.url} if action == "activate"
                         else _("%(url)s is paused: it receives nothing until it is activated.") % {"url": row.url})
    return redirect("tournament-webhooks", slug=tournament.slug)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def webhooks_view(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not subscriptions.may_manage(request.user, tournament):
        return _forbidden(request, tournament)
    if request.method == "GET":
        return _page(request, tournament, SubscribeForm(), None)
    chosen = ActionForm(request.POST, actions=("subscribe", "deactivate", "activate", "delete"))
    if not chosen.is_valid():
        errors_as_messages(request, chosen)
        return redirect("tournament-webhooks", slug=tournament.slug)
    action = chosen.cleaned_data["action"]
    if action != "subscribe":
        return _act(request, tournament, action)
    form = SubscribeForm(request.POST)
    if not form.is_valid():
        return _page(request, tournament, form, None, status=400)
    try:
        created = subscriptions.subscribe(request.user, tournament, form.cleaned_data["url"],
                                          form.cleaned_data["events"])
    except NotAllowed:
        return _forbidden(request, tournament)
    except Refused as refusal:
        form.add_error("url" if any(p.path == "url" for p in refusal.located()) else None, refusal_text(refusal))
        return _page(request, tournament, form, None, status=400)
    return _page(request, tournament, SubscribeForm(), created)


@never_cache
@login_required
@require_http_methods(["GET", "POST"])
def deliveries_view(request: HttpRequest, slug: str) -> HttpResponse:
    tournament = get_object_or_404(Tournament, slug=slug)
    if not subscriptions.may_manage(request.user, tournament):
        return _forbidden(request, tournament)
    if request.method == "POST":
        form = DeliveryForm(request.POST)
        row = WebhookDelivery.objects.filter(subscription__tournament=tournament, pk=form.cleaned_data[
            "delivery"]).select_related("subscription__tournament").first() if form.is_valid() else None
        if row is None:
            messages.error(request, _("The tournament has no such delivery."))
        else:
            subscriptions.send_again(request.user, row)
            messages.success(request, _("Message %(id)s is sent again.") % {"id": row.msg_id})
        return redirect("tournament-webhook-deliveries", slug=tournament.slug)
    deliveries = WebhookDelivery.objects.filter(subscription__tournament=tournament).select_related(
        "subscription").defer("payload").order_by("-created_at", "-pk")
    status = request.GET.get("status")
    if status in DeliveryStatus.values:
        deliveries = deliveries.filter(status=status)
    labels = _labels()
    page = paginate(request, deliveries, PAGE_SIZE)
    return render(request, "accounts/webhook_deliveries.html", {
        "tournament": tournament, "page": page, "labels": labels, "statuses": DeliveryStatus.choices,
        "status": status if status in DeliveryStatus.values else "",
        "rows": [{"row": row, "event": labels.get(row.event, row.event)} for row in page.object_list]})


VERIFY_EXAMPLE = '''from standardwebhooks import Webhook, WebhookVerificationError

SECRET = "whsec_..."  # the subscription's secret, shown once when you subscribed


def receive(body: bytes, headers: dict[str, str]) -> dict:
    """body: the request's raw bytes, as received; headers: its webhook-id, webhook-timestamp, webhook-signature."""
    try:
        event = Webhook(SECRET).verify(body, headers)
    except WebhookVerificationError:
        raise PermissionError("not from the portal, altered, or older than five minutes")
    return event  # {"type": "result.saved", "timestamp": ..., "data": {"tournament": ..., ...}}'''

MANUAL_EXAMPLE = '''import base64, hashlib, hmac

key = base64.b64decode(SECRET.removeprefix("whsec_"))
signed = f"{headers['webhook-id']}.{headers['webhook-timestamp']}.".encode() + body
expected = "v1," + base64.b64encode(hmac.new(key, signed, hashlib.sha256).digest()).decode()
valid = any(hmac.compare_digest(expected, given) for given in headers["webhook-signature"].split())'''


@require_http_methods(["GET"])
def webhooks_help_view(request: HttpRequest) -> HttpResponse:
    """For a client: what a webhook of the portal sends and how to verify its signature."""
    hours = [int(offset.total_seconds()) for offset in RETRY_OFFSETS]
    return render(request, "tournaments/webhooks_help.html", {
        "events": WebhookEvent.choices, "verify_example": VERIFY_EXAMPLE, "manual_example": MANUAL_EXAMPLE,
        "last_retry_hours": hours[-1] // 3600, "first_retry_seconds": hours[0]})


urlpatterns = [  # included at "" by portal.urls
    path("accounts/dashboard/<slug:slug>/webhooks/", webhooks_view, name="tournament-webhooks"),
    path("accounts/dashboard/<slug:slug>/webhooks/deliveries/", deliveries_view, name="tournament-webhook-deliveries"),
    path("webhooks/", webhooks_help_view, name="webhooks-help"),
]
