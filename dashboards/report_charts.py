"""The run report's charts: the dashboards' stability and purge-lag figures over the run."""

from datetime import datetime, timedelta

from django.db.models import Q

from dashboards.figures.common import Mark
from dashboards.figures.purge import purge_figure
from dashboards.figures.stability import stability_figure
from dashboards.report_summary import RunSummary
from dashboards.stability_stats import dip_threshold, find_dips, merge_close
from dashboards.topwaits import WaitRow
from monitor.models import Annotation
from monitor.store import query

CHART_POINTS = 1200
TOP_N = 5
PURGE_PATTERNS = ["innodb_metrics:purge_*", "innodb_metrics:trx_undo_*"]
DELAY = "innodb_metrics:purge_dml_delay_usec"
MUTEX_PATTERN = "mutex.waits:*"


class Empty:
    """A series with no points, for a row the figure must still draw (and label)."""

    ts: list = []
    values: list = []


def _series(server_id: int, metrics: list[str], start: datetime, end: datetime) -> dict:
    found = query.series([server_id], metrics, start, end, max_points=CHART_POINTS)
    return {s.metric: s for s in found}


def _top_counters(server_id: int, pattern: str, start: datetime, end: datetime) -> list[str]:
    totals = query.totals(server_id, [pattern], start, end)
    ranked = sorted((v, k) for k, v in totals.items() if v)
    return [k for _, k in reversed(ranked)][:TOP_N]


def run_marks(summary: RunSummary) -> list[Mark]:
    marks = Annotation.objects.filter(
        Q(server_id=summary.run.server_id) | Q(server__isnull=True), at__gte=summary.start, at__lte=summary.end
    )
    return [Mark(a.text, a.at) for a in marks]


def stability_chart(summary: RunSummary, waits: list[WaitRow], marks: list[Mark]) -> dict:
    server_id, start, end = summary.run.server_id, summary.start, summary.end
    wait_names = ["wait.time_ps:" + w.event for w in waits[:TOP_N]]
    mutexes = _top_counters(server_id, MUTEX_PATTERN, start, end)
    found = _series(server_id, ["tps", *wait_names, *mutexes], start, end)
    tps = found.get("tps", Empty())
    threshold = dip_threshold(summary.tps)
    dips = [] if threshold is None else merge_close(find_dips(tps.ts, tps.values, threshold), timedelta(seconds=30))
    return stability_figure(
        tps,
        [(n.split(":", 1)[1], found[n]) for n in wait_names if n in found],
        [(n.split(":", 1)[1], found[n]) for n in mutexes if n in found],
        dips=dips, marks=marks, dip_threshold=threshold,
    )


def purge_chart(summary: RunSummary, max_purge_lag: float | None, marks: list[Mark]) -> dict:
    server_id, start, end = summary.run.server_id, summary.start, summary.end
    found = _series(server_id, ["history_list_length", "tps", DELAY, *PURGE_PATTERNS], start, end)
    purge = [(n.split(":", 1)[1], s) for n, s in sorted(found.items()) if n.startswith(PURGE_PATTERNS[0][:-1])
             or n.startswith(PURGE_PATTERNS[1][:-1])]
    purge = [(n, s) for n, s in purge if n != DELAY.split(":", 1)[1]]
    return purge_figure(
        found.get("history_list_length", Empty()), found.get("tps", Empty()), purge,
        found.get(DELAY), max_purge_lag=max_purge_lag, marks=marks,
    )
