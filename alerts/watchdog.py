"""The monitor watching itself: when no poll of any server succeeded for N intervals, say so.

If the Celery worker or beat stops, health rows go stale and metric rules see
"unknown": no rule fires. So the watchdog does not run in Celery. `up` runs it
as a process of its own (`manage.py watchdog`), which mails ALERT_RECIPIENTS
directly (the outbox is mailed by the worker, the thing that may be stuck) once
when polling stalls and once when it resumes; the page header computes the same
verdict from the database on every page, so it shows even if the watchdog died.
"""

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.db import DatabaseError, close_old_connections
from django.db.models import DurationField, ExpressionWrapper, F, Max, Q
from django.db.models.functions import Coalesce
from django.utils import timezone

from alerts.recipients import default_recipients, invalid
from collectors import state
from servers.models import Server

log = logging.getLogger(__name__)

STATE_KEY = "watchdog:blind_since"  # set while stalled and mailed: one mail per stall


@dataclass(frozen=True)
class Verdict:
    blind: bool
    reason: str = ""


def verdict(now: datetime | None = None) -> Verdict:
    """Blind when no enabled server had a successful poll within WATCHDOG_INTERVALS of its own interval."""
    now = now or timezone.now()
    n = settings.WATCHDOG_INTERVALS
    try:
        enabled = Server.objects.filter(enabled=True)
        if not enabled.exists():
            return Verdict(False)
        window = ExpressionWrapper(F("poll_interval") * timedelta(seconds=n), output_field=DurationField())
        # A server never polled counts from when it was added: it gets the same N intervals.
        last = Coalesce("health__last_success_at", "created_at")
        if enabled.alias(last=last, window=window).filter(Q(last__gte=now - F("window"))).exists():
            return Verdict(False)
        newest = enabled.aggregate(at=Max("health__last_success_at"))["at"]
    except DatabaseError as exc:
        return Verdict(True, f"the watchdog cannot read PostgreSQL ({str(exc).strip()[:200]})")
    since = f"since {newest:%Y-%m-%d %H:%M:%S} UTC" if newest else "yet"
    return Verdict(True, f"no poll of any server has succeeded {since} (more than {n} poll intervals): "
                         "the collectors (Celery worker or beat) are stopped or stuck, or every server is unreachable")


def check(now: datetime | None = None) -> Verdict:
    """One round: mail when the fleet went blind, and when it sees again."""
    found = verdict(now)
    mailed = state.client().get(STATE_KEY)
    if found.blind and not mailed:
        notify("SteadyState is blind: polling stalled", found.reason)
        state.client().set(STATE_KEY, (now or timezone.now()).isoformat())
    elif not found.blind and mailed:
        notify("SteadyState polls again", f"Polls succeed again (stalled since {mailed.decode()}).")
        state.client().delete(STATE_KEY)
    return found


def notify(subject: str, text: str) -> None:
    recipients = [a for a in default_recipients() if a not in invalid(default_recipients())]
    log.error("watchdog: %s: %s", subject, text)
    if recipients:
        send_mail(f"[SteadyState] {subject}", f"{text}\n\n{settings.SITE_URL}/\n",
                  settings.DEFAULT_FROM_EMAIL, recipients)


def run_forever() -> None:
    while True:
        close_old_connections()  # a PostgreSQL that went away and came back
        try:
            check()
        except Exception:  # SMTP or Redis down: say it, and look again next round
            log.exception("watchdog: this round failed")
        time.sleep(settings.WATCHDOG_CHECK_SECONDS)


def context(request) -> dict:
    """The header's warning, on every page of a logged-in user."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    found = verdict()
    return {"watchdog_warning": found.reason if found.blind else ""}
