"""Forget old alert history: its own task, never a side effect of evaluation."""

from datetime import datetime, timedelta

from django.utils import timezone

from alerts.models import Event, Notification

KEEP_EVENTS = timedelta(days=90)  # resolved events, with their e-mails
KEEP_TEST_MAILS = timedelta(days=7)


def prune(now: datetime | None = None) -> int:
    """Delete resolved events and test e-mails past their keep time; return how many rows went."""
    now = now or timezone.now()
    events, _ = Event.objects.filter(resolved_at__lt=now - KEEP_EVENTS).delete()
    tests, _ = Notification.objects.filter(kind=Notification.TEST, created_at__lt=now - KEEP_TEST_MAILS).delete()
    return events + tests
