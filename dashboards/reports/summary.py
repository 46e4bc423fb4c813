"""A run's summary figures: TPS (avg, p5, p95, CV), QPS, transactions, max history length."""

from dataclasses import dataclass
from datetime import UTC, datetime

from dashboards.analysis.stability import Summary, summarize
from monitor.models import Run
from store import query

MAX_POINTS = 50_000  # a run of up to ~5 days at 10 s is summarized from every sample


@dataclass(frozen=True)
class RunSummary:
    run: Run
    start: datetime
    end: datetime
    tps: Summary
    qps: float | None
    transactions: float | None
    max_history: float | None

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()


def run_window(run: Run) -> tuple[datetime, datetime]:
    """A run still going is summarized up to now."""
    return run.started_at, run.ended_at or datetime.now(UTC)


def _points(server_id: int, metric: str, start: datetime, end: datetime) -> list[float]:
    found = query.series([server_id], [metric], start, end, max_points=MAX_POINTS)
    return [v for s in found for v in s.values if v is not None]


def summarize_run(run: Run) -> RunSummary:
    start, end = run_window(run)
    tps = _points(run.server_id, "tps", start, end)
    qps = _points(run.server_id, "qps", start, end)
    history = _points(run.server_id, "history_list_length", start, end)
    totals = query.totals(run.server_id, ["tps"], start, end)
    return RunSummary(
        run=run, start=start, end=end, tps=summarize(tps),
        qps=sum(qps) / len(qps) if qps else None,
        transactions=totals.get("tps"), max_history=max(history) if history else None,
    )


def ratio(value: float | None, reference: float | None) -> float | None:
    """value / reference, the seeds' 'X faster' column; None when undefined."""
    if value is None or not reference:
        return None
    return value / reference
