"""Who holds purge back, for the history-length e-mails: the oldest transaction's holder (collectors' events).

Firing and reminder e-mails name the holder open at that moment and how long it has been open;
the resolved e-mail names the holder of the firing e-mail again and says when it ended.
"""

from datetime import datetime

from django.db.models import Q

from alerts.models import Event, Notification
from collectors.models import TrxHolder

# Rules on these metrics are about purge lag: their e-mails say who holds the oldest transaction.
HOLDER_METRICS = frozenset(("history_list_length", "trx_oldest_age_s", "trx_read_view_age_s", "trx_older_60s"))


def iso(ts: datetime | None) -> str | None:
    return None if ts is None else ts.isoformat()


def described(holder: TrxHolder, now: datetime) -> dict:
    """A holder as the e-mail's context keeps it (JSON: the outbox row holds it until it is sent).

    Held for runs to the last poll that saw it, as on the purge page: the first poll without it
    (ended_at) may come an outage later. held_at_least: no poll within ~1.5 intervals found it gone.
    `now` is kept for the callers: what was not observed is not counted.
    """
    unseen = holder.end_unseen(holder.server.poll_interval)  # the purge page's rule
    return {"id": holder.id, "thread_id": holder.thread_id, "who": holder.who, "state": holder.state,
            "isolation": holder.isolation, "statement": holder.statement, "idle": holder.idle,
            "statement_missing": holder.statement_missing,
            "started_at": iso(holder.started_at), "seen_at": iso(holder.seen_at), "ended_at": iso(holder.ended_at),
            "held_s": (holder.seen_at - holder.started_at).total_seconds(), "held_at_least": unseen}


def open_holder(server_id: int) -> TrxHolder | None:
    return TrxHolder.objects.filter(server_id=server_id, ended_at=None).first()


def named_at_firing(event: Event) -> TrxHolder | None:
    """The holder the firing e-mail named (a reminder may name a later one); else the oldest open at the start."""
    firing = Notification.objects.filter(event=event, kind=Notification.FIRING).order_by("created_at").first()
    named = ((firing.context if firing else None) or {}).get("holder") or {}
    holder = TrxHolder.objects.filter(pk=named["id"]).first() if named.get("id") else None
    if holder is not None:
        return holder
    return TrxHolder.objects.filter(server_id=event.server_id, started_at__lte=event.since).filter(
        Q(ended_at=None) | Q(ended_at__gte=event.since)).order_by("started_at").first()


def holder_context(kind: str, event: Event, now: datetime) -> dict | None:
    """The "holder" entry of an e-mail's context, or None when the rule is not about purge lag."""
    if event.rule.metric not in HOLDER_METRICS:
        return None
    holder = named_at_firing(event) if kind == Notification.RESOLVED else open_holder(event.server_id)
    if holder is None:
        return {"none": True}
    return described(holder, now)
