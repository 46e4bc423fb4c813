"""The purge verdict as one sentence of text, for the purge-lag e-mails (alerts.readings)."""

from datetime import UTC, datetime, timedelta

from django.template.loader import render_to_string
from django.utils import timezone

from dashboards import reads
from dashboards.analysis.purge_growth import Trend
from dashboards.analysis.purge_verdict import PurgeVerdict
from dashboards.server_texts import health_sources
from servers.models import Server

DEFAULT_THRESHOLD = 1_000_000  # the purge page's, without innodb_max_purge_lag


def verdict_at(server_id: int, at: datetime, threshold: float) -> tuple[PurgeVerdict, Trend, float | None]:
    """The purge page's verdict at the last history poll up to `at`."""
    newest = next(reads.polls_back(server_id, reads.HISTORY, at - timedelta(hours=1), at), None)
    if newest is None:
        return PurgeVerdict(""), Trend(None, timedelta(0)), None
    last, current = newest
    trend = reads.history_trend(server_id, last)
    # The server by its id alone: its health row is read through it, as the purge page reads it.
    unread = reads.holders_unread(health_sources(Server(pk=server_id)))
    return reads.purge_verdict_at(server_id, last, current, trend, threshold, unread), trend, current


def purge_sentence(server_id: int, at: datetime, threshold: float) -> str:
    """The verdict in words, as the purge page says it (without its links); "" with no verdict."""
    threshold = threshold or reads.latest_value(server_id, reads.MAX_PURGE_LAG) or DEFAULT_THRESHOLD
    verdict, trend, current = verdict_at(server_id, at, threshold)
    if not verdict.kind:
        return ""
    context = {"verdict": verdict, "trend": trend, "current": current, "threshold": threshold}
    with timezone.override(UTC):  # it says "UTC" after each time: |date writes it so, whatever TIME_ZONE is
        return " ".join(render_to_string("emails/_purge-verdict-text.html", context).split())
