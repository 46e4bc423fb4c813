"""The monitor watching itself: when no poll of any server succeeded for N intervals, say so.

If the Celery worker or beat stops, health rows go stale and metric rules see
"unknown": no rule fires. So the watchdog does not run in Celery. `up` runs it
as a process of its own (`manage.py watchdog`), which mails ALERT_RECIPIENTS
directly (the outbox is mailed by the worker, the thing that may be stuck) once
when polling stalls and once when it resumes, keeping what it mailed in a file
(alerts/watchdog_state.py) so that it works with Redis down; the page header computes the same
verdict from the database on every page, so it shows even if the watchdog died.
"""

import logging
import time
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import send_mail
from django.db import DatabaseError, close_old_connections
from django.db.models import Count, DurationField, ExpressionWrapper, F, Max, Value
from django.db.models.functions import Coalesce
from django.db.models.lookups import GreaterThan, GreaterThanOrEqual
from django.utils import timezone

from alerts import watchdog_state
from alerts.recipients import default_recipients, invalid
from servers.models import Server

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Verdict:
    blind: bool
    reason: str = ""
    waiting: bool = False  # not blind only because the watchdog started less than the intervals ago
    since: datetime | None = None  # blind: the last poll of any server that succeeded (None: none ever did)
    unreadable: bool = False  # blind because PostgreSQL could not be read


# How long PostgreSQL may stay unreadable before the watchdog mails: `up` restarts a PostgreSQL that died
# within seconds, and the collectors go on polling into the store's Redis buffer meanwhile.
UNREADABLE_GRACE = timedelta(minutes=1)
_unreadable_since: datetime | None = None  # this process's first round that could not read PostgreSQL


def verdict(now: datetime | None = None, started: datetime | None = None) -> Verdict:
    """Blind when no enabled server had a successful poll within WATCHDOG_INTERVALS of its own interval.

    `started` is when the watchdog (so, under `up`, the worker and beat) last started: a poll
    history that stopped while SteadyState was stopped is not a stall, the first polls after
    a start get the same intervals.
    """
    now = now or timezone.now()
    n = settings.WATCHDOG_INTERVALS
    window = ExpressionWrapper(F("poll_interval") * timedelta(seconds=n), output_field=DurationField())
    # A server never polled counts from when it was added: it gets the same N intervals.
    last = Coalesce("health__last_success_at", "created_at")
    # Every answer in one statement (every page's header asks): a blind fleet took three.
    counted = {"servers": Count("pk"), "fresh": Count("pk", filter=GreaterThanOrEqual(last, now - window)),
               "newest": Max("health__last_success_at")}
    if started:
        counted["waiting"] = Count("pk", filter=GreaterThan(window, Value(now - started)))
    try:
        found = Server.objects.filter(enabled=True).aggregate(**counted)
    except DatabaseError as exc:
        return Verdict(True, f"the watchdog cannot read PostgreSQL ({str(exc).strip()[:200]})", unreadable=True)
    if found["fresh"] or not found["servers"]:
        return Verdict(False)
    if found.get("waiting"):
        return Verdict(False, f"started at {started:%Y-%m-%d %H:%M:%S} UTC: the first polls get "
                              f"{n} poll intervals", waiting=True)
    newest = found["newest"]
    since = f"since {newest:%Y-%m-%d %H:%M:%S} UTC" if newest else "yet"
    return Verdict(True, f"no poll of any server has succeeded {since} (more than {n} poll intervals): "
                         "the collectors (Celery worker or beat) are stopped or stuck, or every server is unreachable",
                   since=newest)


def check(now: datetime | None = None) -> Verdict:
    """One round: mail when the fleet went blind, and when it sees again (a poll succeeded, not a start grace)."""
    now = now or timezone.now()
    memory = watchdog_state.load()
    found = verdict(now, memory.started_at)
    readable_again(found)
    if found.unreadable and not memory.blind_since and not unreadable_for_long(now):
        return found  # a PostgreSQL restart: mailed only if it lasts
    if found.blind and not memory.blind_since:
        notify("SteadyState is blind: polling stalled", found.reason)
        memory.blind_since = found.since or now  # the stall began at the last success, as the mail says
        watchdog_state.save(memory)
    elif not found.blind and not found.waiting and memory.blind_since:
        notify("SteadyState polls again",
               f"Polls succeed again (stalled since {memory.blind_since:%Y-%m-%d %H:%M:%S} UTC).")
        memory.blind_since = None
        watchdog_state.save(memory)
    return found


def readable_again(found: Verdict) -> None:
    global _unreadable_since
    if not found.unreadable:
        _unreadable_since = None


def unreadable_for_long(now: datetime) -> bool:
    """Whether PostgreSQL has been unreadable for UNREADABLE_GRACE, counted from this round on (a round that
    reads it starts the count over)."""
    global _unreadable_since
    _unreadable_since = _unreadable_since or now
    return now - _unreadable_since >= UNREADABLE_GRACE


def notify(subject: str, text: str) -> None:
    recipients = [a for a in default_recipients() if a not in invalid(default_recipients())]
    log.error("watchdog: %s: %s", subject, text)
    if recipients:
        send_mail(f"[SteadyState] {subject}", f"{text}\n\n{settings.SITE_URL}/\n",
                  settings.DEFAULT_FROM_EMAIL, recipients)


def run_forever() -> None:
    watchdog_state.mark_started(timezone.now())
    failing = ""  # the last round's failure: its traceback is logged once, not every round
    while True:
        close_old_connections()  # a PostgreSQL that went away and came back
        try:
            check()
            failing = ""
        except Exception as exc:  # SMTP down: say it, and look again next round
            if str(exc) != failing:
                log.exception("watchdog: this round failed")
            else:
                log.error("watchdog: this round failed again: %s", exc)
            failing = str(exc)
        time.sleep(settings.WATCHDOG_CHECK_SECONDS)


def context(request) -> dict:
    """The header's warning, on every page of a logged-in user."""
    user = getattr(request, "user", None)
    if user is None or not user.is_authenticated:
        return {}
    found = verdict(started=watchdog_state.load().started_at)
    return {"watchdog_warning": found.reason if found.blind else ""}
