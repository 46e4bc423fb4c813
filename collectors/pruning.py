"""Forget old oldest-transaction holders: their own task, like the alerts' history."""

from datetime import datetime, timedelta

from django.utils import timezone

from collectors.models import TrxHolder

KEEP_HOLDERS = timedelta(days=90)  # as long as alert events: an old e-mail's holder can still be looked up


def prune_holders(now: datetime | None = None) -> int:
    """Delete holders that ended before the keep time; an open one stays however old it is."""
    now = now or timezone.now()
    deleted, _ = TrxHolder.objects.filter(ended_at__lt=now - KEEP_HOLDERS).delete()
    return deleted
