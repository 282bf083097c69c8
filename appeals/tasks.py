"""Daily digest of appeals near or past their verdict deadline (Celery beat)."""

from __future__ import annotations

import datetime as dt

from celery import shared_task
from django.core.mail import send_mail
from django.utils import timezone

from accounts.zones import moment_text
from appeals.services import jury_emails, verdict_due, verdict_overdue
from tournaments.models import Appeal, Tournament


def digest_rows(now: dt.datetime, horizon: dt.timedelta = dt.timedelta(days=2)) -> dict[int, list[str]]:
    """Per tournament id: lines for pending appeals whose verdict is due within ``horizon`` or overdue (CHGK-18:
    from 00:00 of D+10, the ruleset's ``verdict_overdue``), the due time in the tournament's zone. A line names
    no team (CHGK-20: the jury does not know the appealing team)."""
    rows: dict[int, list[str]] = {}
    for appeal in Appeal.objects.filter(verdict__isnull=True).select_related("tournament", "tour", "tour__stage"):
        due = verdict_due(appeal.tournament, appeal)
        if due is None or due - now > horizon:
            continue
        state = "OVERDUE" if verdict_overdue(appeal, now) else "due"
        rows.setdefault(appeal.tournament_id, []).append(
            f"{appeal.tournament.name}: {appeal.get_kind_display()} #{appeal.pk} {state} "
            f"{moment_text(due, appeal.tournament.timezone)}")
    return rows


@shared_task
def send_deadline_digest() -> int:
    """Mail each tournament's jury the appeals near or past their deadline; returns mails sent."""
    sent = 0
    for tournament_id, lines in digest_rows(timezone.now()).items():
        recipients = jury_emails(Tournament.objects.get(pk=tournament_id))
        if recipients:
            send_mail("Appeals near their deadline", "\n".join(lines), None, recipients)
            sent += 1
    return sent
