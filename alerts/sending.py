"""Send the outbox (e-mails and webhook calls): claim a row with an atomic update, send it, record the outcome.

Any number of senders can run: a row is mailed only by the one whose claim
updated it. A claim expires, so a sender that dies mid-way delays a mail but
never loses it; an SMTP or HTTP failure leaves the row to retry with backoff.
"""

import logging
import smtplib
from datetime import datetime, timedelta

from django.db.models import F, Q
from django.utils import timezone

from alerts import emails, outbox, webhooks
from alerts.models import Notification, Rule
from alerts.recipients import HINT, default_recipients, invalid

log = logging.getLogger(__name__)

CLAIM = timedelta(minutes=5)  # far longer than EMAIL_TIMEOUT times a few recipients
BACKOFF = timedelta(seconds=30)  # doubled per failed attempt
MAX_BACKOFF = timedelta(hours=1)
MAX_ATTEMPTS = 12  # about six hours of retries
WAIT_FOR_RECIPIENTS = timedelta(minutes=1)  # how often a mail to nobody looks for recipients again


def claimable(now: datetime):
    return unclaimed(now).filter(next_attempt_at__lte=now)


def unclaimed(now: datetime):
    return Notification.objects.filter(sent_at=None, failed_at=None).filter(
        Q(claimed_until=None) | Q(claimed_until__lt=now))


def claim(notification_id: int, now: datetime) -> bool:
    updated = claimable(now).filter(id=notification_id).update(
        claimed_until=now + CLAIM, attempts=F("attempts") + 1
    )
    return updated == 1


def send_due(now: datetime | None = None, limit: int = 100) -> int:
    """Send what is due; return how many e-mails went out."""
    now = now or timezone.now()
    sent = 0
    for notification_id in claimable(now).order_by("next_attempt_at", "id").values_list("id", flat=True)[:limit]:
        if claim(notification_id, now):
            sent += deliver(notification_id, now)
    return sent


def deliver(notification_id: int, now: datetime) -> int:
    n = Notification.objects.select_related("event__rule", "event__server").get(id=notification_id)
    if n.channel == Notification.WEBHOOK:
        return call_webhook(n, now)
    mine = Notification.objects.filter(id=n.id)
    if not n.recipients and not find_recipients(n):
        # Kept, not failed: it goes out once the rule or ALERT_RECIPIENTS names someone.
        mine.update(next_attempt_at=now + WAIT_FOR_RECIPIENTS, claimed_until=None, attempts=F("attempts") - 1,
                    last_error="waiting for recipients: add them to the rule, or set ALERT_RECIPIENTS")
        return 0
    bad = invalid(n.recipients)
    if bad:
        mine.update(failed_at=now, claimed_until=None, last_error=f"invalid recipient(s) {', '.join(bad)}. {HINT}")
        return 0
    others = claim_gathered(n, now)
    together = Notification.objects.filter(id__in=[n.id, *(m.id for m in others)])
    try:
        emails.build(n, others).send()
    except (smtplib.SMTPException, OSError, ValueError) as exc:  # ValueError: an address the mailer refuses
        record_failure(n, exc, now)
        # Tried with n: each goes again after n's backoff (on its own should n give up), not in this same pass.
        together.exclude(id=n.id).update(claimed_until=None, next_attempt_at=now + backoff(n.attempts))
        return 0
    together.update(sent_at=timezone.now(), claimed_until=None, last_error="")
    return 1


def claim_gathered(n: Notification, now: datetime) -> list[Notification]:
    """The e-mails waiting to tell of other sources of n's server failing (or cleared) under the same rule:
    claimed here, they go out in n's e-mail (alerts.outbox.GATHER)."""
    if n.kind not in outbox.GATHERED_KINDS or n.event.rule.kind != Rule.SOURCE_FAILING:
        return []
    waiting = unclaimed(now).filter(channel=Notification.EMAIL, kind=n.kind, event__rule_id=n.event.rule_id,
                                    event__server_id=n.event.server_id).exclude(id=n.id)
    claimed = [i for i in waiting.values_list("id", flat=True)
               if unclaimed(now).filter(id=i).update(claimed_until=now + CLAIM) == 1]
    return list(Notification.objects.select_related("event").filter(id__in=claimed).order_by("event__key"))


def call_webhook(n: Notification, now: datetime) -> int:
    try:
        webhooks.post(n)
    except webhooks.WebhookError as exc:
        give_up = exc.permanent or n.attempts >= MAX_ATTEMPTS
        log.warning("alert webhook %s to %s failed (attempt %s): %s", n.id, n.url, n.attempts, exc)
        record_outcome(n, str(exc), give_up, now)
        return 0
    Notification.objects.filter(id=n.id).update(sent_at=timezone.now(), claimed_until=None, last_error="")
    return 1


def find_recipients(n: Notification) -> bool:
    """Fill the recipients of a notification queued when there were none; False if there still are none."""
    rule = n.event.rule if n.event_id else None
    n.recipients = (rule.recipients if rule else []) or default_recipients()
    if n.recipients:
        Notification.objects.filter(id=n.id).update(recipients=n.recipients)
    return bool(n.recipients)


def record_failure(n: Notification, exc: Exception, now: datetime) -> None:
    error = f"SMTP {describe(exc)}" if not isinstance(exc, ValueError) else f"cannot be mailed: {exc}"
    permanent = isinstance(exc, ValueError) or getattr(exc, "smtp_code", 0) >= 500 or n.attempts >= MAX_ATTEMPTS
    log.warning("alert e-mail %s to %s failed (attempt %s): %s", n.id, n.recipients, n.attempts, error)
    record_outcome(n, error, permanent, now)


def record_outcome(n: Notification, error: str, give_up: bool, now: datetime) -> None:
    """A failed attempt: given up on, or to be tried again after the backoff."""
    mine = Notification.objects.filter(id=n.id)
    if give_up:
        mine.update(failed_at=now, claimed_until=None, last_error=error)
    else:
        mine.update(next_attempt_at=now + backoff(n.attempts), claimed_until=None, last_error=error)


def backoff(attempts: int) -> timedelta:
    return min(BACKOFF * 2 ** max(attempts - 1, 0), MAX_BACKOFF)


def describe(exc: Exception) -> str:
    if isinstance(exc, smtplib.SMTPResponseException):
        message = exc.smtp_error.decode(errors="replace") if isinstance(exc.smtp_error, bytes) else exc.smtp_error
        return f"{exc.smtp_code} {message}"
    return f"{type(exc).__name__}: {exc}"
