"""The compare page's rows: each run's summary, top waits and statements, and its lines aligned at its start."""

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC

from django.db.models import Q

from dashboards import per_trx_reads, reads
from dashboards.analysis.per_transaction import PerTransaction
from dashboards.analysis.step_window import Window, run_window
from dashboards.analysis.topwaits import WaitRow, shown
from dashboards.figures.compare import AlignedRun
from dashboards.reports.summary import RunSummary, basis_sums, warmup_overrun
from dashboards.server_texts import TpsBasis, range_basis, waits_note
from dashboards.source_health import source_problem
from dashboards.timerange import TimeRange
from dashboards.window_reads import WindowPolls
from servers.models import Annotation, Run

TOP_WAITS = 5
TOP_STATEMENTS = 5


@dataclass
class RunRow:
    """A run's line in the per-run table: the report's exact summary and its top waits."""

    summary: RunSummary
    waits: list[WaitRow]
    per_trx: PerTransaction | None = None  # condition waits left out, host CPU from node_exporter
    basis: TpsBasis | None = None  # what its server's TPS counts
    statements: list = field(default_factory=list)  # its top statements by time (reads.run_top_statements)
    # Why waits or statements may be empty: what the source's latest poll said (performance_schema OFF), else "".
    waits_source: str = ""
    statements_source: str = ""
    waits_note: str = ""  # the wait instruments off during the run (server_texts.waits_note), "" when none was
    warmup_note: str = ""  # a warm-up that leaves nothing of the run (summary.warmup_overrun), "" otherwise


def run_range(run: Run, warmup: int) -> TimeRange:
    return TimeRange(*run_window(run, warmup))


def align(run: Run, wait: str, points: int, warmup: int, polls: WindowPolls | None = None) -> AlignedRun:
    """The run after its warm-up (its summary's), aligned at the end of the warm-up. polls: that window's, read with
    TPS, history and the waits."""
    tr = run_range(run, warmup)
    metrics = [reads.TPS, reads.HISTORY] + ([reads.TIME_PREFIX + wait] if wait else [])
    kept = polls.series(metrics, points) if polls and polls.window == (tr.start, tr.end) else None
    found = reads.series_map(run.server_id, metrics, tr, points) if kept is None else {s.metric: s for s in kept}
    return AlignedRun(
        # Two runs of one name (the same test repeated) told apart by when they started.
        f"{run.name} ({run.server.name}, {run.started_at.astimezone(UTC):%Y-%m-%d %H:%M:%S} UTC)", tr.start,
        found.get(reads.TPS) or reads.Empty(), found.get(reads.HISTORY) or reads.Empty(),
        found.get(reads.TIME_PREFIX + wait) or reads.Empty(), tr.seconds,
    )


def run_row(summary: RunSummary, conditions: bool = False,
            statements: reads.StatementsRange | None = None, trim_given: bool = False) -> RunRow:
    """The same summary as the compare report and CSV (every sample, not the chart's points), and what its
    server's TPS counted over the run (its own polls: a run recorded with a counter off keeps its words).

    Condition waits are left out of the top waits unless asked for, as on the stability page, and client
    time always; waits per transaction leave both out always (beside host CPU per transaction).
    Its waits are read without their counts (the row shows none: each is 0), the summary's polls with
    summary.WINDOW_FIGURES.
    """
    run, polls = summary.run, summary.polls
    waits, per_trx = per_trx_reads.run_figures(run.server_id, Window(summary.start, summary.end), polls, counts=False)
    basis = range_basis(run.server, basis_sums(summary))
    return RunRow(summary, shown(waits, conditions)[0][:TOP_WAITS], per_trx, basis,
                  statements=reads.run_top_statements(run, TOP_STATEMENTS, summary.warmup, statements),
                  waits_source=source_problem(run.server, "pfs_waits"),
                  statements_source=source_problem(run.server, "statements"),
                  waits_note=waits_note(run.server_id, summary.start, summary.end),
                  warmup_note=warmup_overrun(summary, trim_given))


def run_notes(runs: list[Run], warmups: Mapping[int, int]) -> list[tuple[float, str]]:
    """Each run's annotations (its own, or its server's within its time), at their offset from the aligned start
    (the end of its warm-up: warmups by run id)."""
    notes = []
    for run in runs:
        tr = run_range(run, warmups[run.pk])
        found = Annotation.objects.filter(Q(run=run) | Q(server=run.server, at__gte=tr.start, at__lte=tr.end))
        notes += [((n.at - tr.start).total_seconds(), f"{run.name}: {n.text}") for n in found.distinct()]
    return sorted(notes)
