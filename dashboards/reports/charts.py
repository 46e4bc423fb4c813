"""The run report's charts: the dashboards' own reads and figure builders, over the run."""

from datetime import timedelta

from dashboards import reads
from dashboards.analysis.points import ChartPoints
from dashboards.analysis.run_verdict import Verdict, judge_lines, table_threshold
from dashboards.analysis.stability import Dip, Threshold, dip_threshold, line_dips, merge_close
from dashboards.counter_holes import without_counter_holes
from dashboards.figures.common import Mark
from dashboards.figures.purge import purge_figure
from dashboards.figures.stability import MUTEX_TITLE, TPS_TITLE, stability_figure
from dashboards.marks import marks_for, purge_references
from dashboards.reports.summary import RunSummary
from dashboards.timerange import TimeRange

CHART_POINTS = 1200
TOP_WAITS, TOP_MUTEXES = 8, 6  # as the stability page shows by default
WARMUP_FILL = "rgba(217, 119, 6, 0.10)"


def run_range(summary: RunSummary) -> TimeRange:
    """The whole run, its warm-up included (shaded): the statistics start after it."""
    return TimeRange(min(summary.run.started_at, summary.start), summary.end)


def run_marks(summary: RunSummary, tr: TimeRange) -> list[Mark]:
    marks = marks_for([summary.run.server_id], tr.start, tr.end)
    if summary.start > tr.start:
        marks.append(Mark(f"warm-up {summary.warmup} s (left out of the statistics)", tr.start, summary.start,
                          WARMUP_FILL))
    return sorted(marks, key=lambda m: m.start)


def stability_chart(summary: RunSummary, tps_title: str = TPS_TITLE,
                    mutex_title: str = MUTEX_TITLE) -> tuple[dict, list[Dip], Verdict]:
    """TPS over the top waits over mutex waits, dips marked (the stability page's figure), the dips, and
    the stability verdict on the same lines."""
    tr, server_id = run_range(summary), summary.run.server_id
    # The stability page's own reads: condition waits left out of the ranking,
    # mutex waits read across the slower source's interval.
    tps, waits, mutexes, _hidden, also = reads.stability_series(
        server_id, tr, CHART_POINTS, TOP_WAITS, TOP_MUTEXES,
        reads.source_interval(summary.run.server, reads.MUTEX_SOURCE), also=[reads.HISTORY])
    tps = without_counter_holes(server_id, tps)  # polled, but TPS's counter changed: no stall
    verdict = judge_lines(tps, waits, also.get(reads.HISTORY), warmup_polls(summary, tps),
                          reads.holders_in(server_id, tr.start, tr.end))
    threshold = run_dip_threshold(summary, verdict)
    dips = [] if threshold is None or summary.tps_points is None else merge_close(
        line_dips(without_counter_holes(server_id, summary.tps_points), threshold,
                  reads.ROLLUP_BUCKET.get(summary.resolution)),
        timedelta(seconds=2 * tr.seconds / CHART_POINTS))
    fig = stability_figure(tps, waits, mutexes, dips, run_marks(summary, tr), threshold, x_range=(tr.start, tr.end),
                           tps_title=tps_title, mutex_title=mutex_title,
                           per_poll=reads.per_poll(tr, CHART_POINTS))
    return fig, dips, verdict


def run_dip_threshold(summary: RunSummary, verdict: Verdict) -> Threshold | None:
    """The run's dips threshold: half its median TPS, or where the verdict found level changes, half each level's
    own median (run_verdict.table_threshold), as the verdict judges its dips."""
    threshold = dip_threshold(summary.tps)
    if not threshold or summary.tps_points is None:
        return threshold
    return table_threshold(summary.tps_points, verdict, threshold)


def warmup_polls(summary: RunSummary, tps: ChartPoints) -> int:
    """The charted TPS polls before the summary's first poll: the verdict judges what the figures are of."""
    first = next((t for t, v in zip(summary.tps_points.ts, summary.tps_points.values, strict=True) if v is not None),
                 summary.end) if summary.tps_points is not None else summary.end
    return sum(1 for t, v in zip(tps.ts, tps.values, strict=True) if v is not None and t < first)


def purge_chart(summary: RunSummary, max_purge_lag: float | None, tps_title: str = TPS_TITLE,
                collected: list[str] | None = None) -> dict:
    """History length against innodb_max_purge_lag, TPS, purge work, DML delay (the purge page's).
    collected: the purge counters collected (reads.purge_counters), when the caller has read them."""
    tr, server_id = run_range(summary), summary.run.server_id
    collected = reads.purge_counters(server_id)[0] if collected is None else collected
    found = reads.series_map(server_id, [reads.HISTORY, reads.TPS, *collected], tr, CHART_POINTS)
    counters = [(m.split(":", 1)[1], found[m]) for m in collected if m != reads.PURGE_DELAY and m in found]
    return purge_figure(
        found.get(reads.HISTORY) or reads.Empty(), found.get(reads.TPS) or reads.Empty(), counters,
        found.get(reads.PURGE_DELAY), purge_references(summary.run.server, max_purge_lag), run_marks(summary, tr),
        (tr.start, tr.end),
        tps_title,
    )


def chart_metrics(collected: list[str]) -> list[str]:
    """The series the two charts draw (collected: the purge counters collected), for the report's CSV link."""
    return [reads.TPS, reads.HISTORY, *collected]
