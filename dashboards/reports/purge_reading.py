"""The purge verdict as one sentence of text, for the purge-lag e-mails (alerts.readings)."""

from datetime import datetime, timedelta

from django.template.loader import render_to_string

from dashboards import reads
from dashboards.analysis.purge_growth import Trend
from dashboards.analysis.purge_verdict import Holder, PurgeVerdict, purge_verdict

DEFAULT_THRESHOLD = 1_000_000  # the purge page's, without innodb_max_purge_lag


def verdict_at(server_id: int, at: datetime, threshold: float) -> tuple[PurgeVerdict, Trend, float | None]:
    """The purge page's verdict at the last history poll up to `at`: holder, rates over the segment."""
    newest = next(reads.polls_back(server_id, reads.HISTORY, at - timedelta(hours=1), at), None)
    if newest is None:
        return PurgeVerdict(""), Trend(None, timedelta(0)), None
    last, current = newest
    trend = reads.history_trend(server_id, last)
    if trend.since is None:
        return PurgeVerdict(""), trend, current
    purged, dml = reads.purge_rates(server_id, trend.since, last)
    return purge_verdict(current, trend, threshold, holder_at(server_id, last), purged, dml), trend, current


def holder_at(server_id: int, t: datetime) -> Holder | None:
    """The holder of the oldest transaction open at t (started by then, not found gone by then)."""
    for h in reads.holders_in(server_id, t, t):
        if h.started_at <= t and (h.ended_at is None or h.ended_at > t):
            return Holder(h.thread_id, h.user, h.host, h.started_at)
    return None


def purge_sentence(server_id: int, at: datetime, threshold: float) -> str:
    """The verdict in words, as the purge page says it (without its links); "" with no verdict."""
    threshold = threshold or reads.latest_value(server_id, reads.MAX_PURGE_LAG) or DEFAULT_THRESHOLD
    verdict, trend, current = verdict_at(server_id, at, threshold)
    if not verdict.kind:
        return ""
    context = {"verdict": verdict, "trend": trend, "current": current, "threshold": threshold}
    return " ".join(render_to_string("emails/_purge-verdict-text.html", context).split())
