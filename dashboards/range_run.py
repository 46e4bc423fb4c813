"""The run whose range a page shows (the Runs list's and the report's links): judged with the run's warm-up."""

from dataclasses import dataclass, is_dataclass, replace
from datetime import datetime, timedelta

from dashboards.analysis.points import ChartPoints
from dashboards.analysis.run_summary import Warmup
from dashboards.analysis.step_window import run_window
from dashboards.timerange import TimeRange
from dashboards.window_reads import inside_polls, run_warmup
from servers.models import Run

SECOND = timedelta(seconds=1)  # the links give a run's end to the second (its start exactly; older ones cut it)


def run_of_range(server_id: int, tr: TimeRange) -> Run | None:
    """The run of the server that starts in the range's first second and ends within a second of its end
    (the links round it up, older ones down), or goes on."""
    runs = Run.objects.filter(server_id=server_id, started_at__gte=tr.start, started_at__lt=tr.start + SECOND)
    return next((r for r in runs if r.ended_at is None or abs(r.ended_at - tr.end) < SECOND), None)


def run_warmup_polls(run: Run, tps: ChartPoints) -> tuple[int, Warmup, ChartPoints]:
    """The charted TPS polls before the run's first poll after its warm-up (the run report's verdict leaves
    out the same), that warm-up, and the line up to the run's last poll inside it: the link's range ends at the
    second after the run's end, which can hold a poll whose delta reaches past it (the report leaves it out)."""
    warmup = run_warmup(run)
    found = inside_polls(run.server_id, run_window(run, warmup.seconds))
    first = found.first if found else run_window(run, warmup.seconds).end
    before = sum(1 for t, v in zip(tps.ts, tps.values, strict=True) if v is not None and t < first)
    return before, warmup, up_to(tps, found.last) if found else tps


def judged_polls(judged: ChartPoints, before: int) -> ChartPoints:
    """The polls run_warmup_polls' verdict judges: `judged` past its first `before` known points. The dips table
    lists these, as the run's figures read them: a dip of the poll straddling the start is the time before it."""
    known = [i for i, v in enumerate(judged.values) if v is not None]
    skip = known[before] if before < len(known) else len(judged.ts)
    return sliced(judged, skip, len(judged.ts))


def up_to(tps: ChartPoints, last: datetime) -> ChartPoints:
    """The line's points read at `last` or before; the line itself when it has none after."""
    return sliced(tps, 0, sum(1 for t in tps.ts if t <= last))


def sliced(line: ChartPoints, lo: int, hi: int) -> ChartPoints:
    """The line's points lo to hi; the line itself when that is all of them."""
    if lo == 0 and hi == len(line.ts):
        return line
    ts, values = list(line.ts[lo:hi]), list(line.values[lo:hi])
    # A store line keeps what it knows of its holes and first point (store.query.Series); one made by hand has none.
    return replace(line, ts=ts, values=values) if is_dataclass(line) else Line(ts, values)


@dataclass(frozen=True)
class Line:
    """A line as ChartPoints: times and values."""

    ts: list[datetime]
    values: list[float | None]


def sweep_of_range(server_id: int, tr: TimeRange) -> tuple[str, list[Run]]:
    """The sweep with the most steps (runs of one `sweep`) of the server that lie wholly in the range (ended runs
    only: each has its ended_at), in time order, and its name; ("", []) where none has two: the range's level
    changes are then only TPS's own."""
    runs = Run.objects.filter(server_id=server_id, started_at__gte=tr.start - SECOND, ended_at__isnull=False,
                              ended_at__lte=tr.end + SECOND).exclude(sweep="").order_by("started_at", "id")
    by_sweep: dict[str, list[Run]] = {}
    for run in runs:
        by_sweep.setdefault(run.sweep, []).append(run)
    name = max(by_sweep, key=lambda s: len(by_sweep[s]), default="")
    return (name, by_sweep[name]) if name and len(by_sweep[name]) >= 2 else ("", [])
