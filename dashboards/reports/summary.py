"""A run's summary figures: TPS (avg, p5, p95, CV), QPS, transactions, max history length."""

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from dashboards.analysis.stability import Summary, summarize
from dashboards.analysis.step_window import Window, run_window, sums_from
from dashboards.url_ids import parse_id
from monitor.models import Run
from store import query

MAX_WARMUP = 7 * 86400


@dataclass(frozen=True)
class RunSummary:
    run: Run
    start: datetime  # the run's start plus the warm-up trim
    end: datetime
    tps: Summary
    qps: float | None
    transactions: float | None
    max_history: float | None
    warmup: int = 0  # seconds trimmed from the start
    tps_points: Any = None  # the TPS samples summarized (None at holes), for the dips
    # Where sums over the run (waits, per transaction) begin: the polls inside the run only, as for TPS.
    sums_from: datetime | None = None

    @property
    def seconds(self) -> float:
        return (self.end - self.start).total_seconds()


def warmup_param(get) -> int | None:
    """?warmup=N seconds for every run compared; None (each run's own) when absent or unreadable."""
    warmup = parse_id(get.get("warmup"))
    return warmup if warmup is not None and warmup <= MAX_WARMUP else None


def _within(server_id: int, metric: str, start: datetime, end: datetime, mode: str = "rate"):
    found = query.within(server_id, [metric], start, end, mode=mode)
    return found[0] if found else None


def _known(series) -> list[float]:
    return [v for v in series.values if v is not None] if series else []


def summarize_run(run: Run, warmup: int | None = None) -> RunSummary:
    """Statistics from every sample whose interval lies inside the run (after the warm-up), never downsampled."""
    start, end = run_window(run, warmup)
    tps = _within(run.server_id, "tps", start, end)
    qps = _known(_within(run.server_id, "qps", start, end))
    history = _known(_within(run.server_id, "history_list_length", start, end))
    done = _known(_within(run.server_id, "tps", start, end, mode="delta"))
    return RunSummary(
        run=run, start=start, end=end, tps=summarize(_known(tps)),
        qps=sum(qps) / len(qps) if qps else None,
        transactions=sum(done) if done else None, max_history=max(history) if history else None,
        warmup=run.warmup_seconds if warmup is None else warmup, tps_points=tps,
        sums_from=sums_from(run.server_id, Window(start, end)),
    )


def ratio(value: float | None, reference: float | None) -> float | None:
    """value / reference, the seeds' 'X faster' column; None when undefined."""
    if value is None or not reference:
        return None
    return value / reference
