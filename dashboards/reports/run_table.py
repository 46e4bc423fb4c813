"""The runs list as a table: each run's study fields and its average TPS after the warm-up, sortable."""

from dataclasses import dataclass
from typing import Any

from django.db.models import F, QuerySet

from dashboards.analysis.run_summary import Warmup
from dashboards.analysis.step_window import WindowTps
from dashboards.export.tables import to_second
from dashboards.window_reads import runs_trimmed
from servers.models import Run

LISTED = 200
# ?sort= key -> the field it orders by; "-key" reverses. avg TPS is computed, so sorted in Python.
SORTS = {"name": "name", "server": "server__name", "started": "started_at", "concurrency": "concurrency",
         "sweep": "sweep", "label": "label", "tps": None}
DEFAULT_SORT = "-started"
HEADER = ["run id", "run", "server", "started (UTC)", "ended (UTC)", "warm-up (s)", "threads", "sweep", "label",
          "avg TPS after warm-up (/s)", "samples", "notes", "command", "tool summary",
          "samples are (polls; 1m or 1h rollups past the raw retention)",
          # Appended, so the columns before keep their places: the warm-up is the run's own, else found.
          "warm-up found from the data (1: the run gave none)"]


@dataclass(frozen=True)
class RunLine:
    run: Run
    tps: WindowTps
    warmup: Warmup = Warmup(0)  # what the avg TPS leaves out: the run's own, else found (window_reads.run_warmup)
    basis: Any = None  # what its server's TPS counts (server_texts.TpsBasis), set by the page
    statements: str = ""  # its Statements tab link (links.run_statements), set by the page


def ordered(runs: QuerySet, sort: str) -> QuerySet:
    field = SORTS[sort.lstrip("-")]
    if field is None:
        return runs.order_by("-started_at")
    order = F(field).desc(nulls_last=True) if sort.startswith("-") else F(field).asc(nulls_last=True)
    return runs.order_by(order, "-started_at")


def run_lines(runs: QuerySet, sort: str, limit: int = LISTED, offset: int = 0) -> list[RunLine]:
    picked = list(ordered(runs.select_related("server"), sort)[offset:offset + limit])
    found = runs_trimmed(picked)
    lines = [RunLine(run, found[run.pk][1], found[run.pk][0]) for run in picked]
    if sort.lstrip("-") == "tps":  # runs without samples last either way
        rated = [(avg, ln) for ln in lines if (avg := ln.tps.avg) is not None]
        known = [ln for _, ln in sorted(rated, key=lambda pair: pair[0], reverse=sort.startswith("-"))]
        lines = known + [ln for ln in lines if ln.tps.avg is None]
    return lines


def table_rows(lines: list[RunLine]):
    yield HEADER
    for line in lines:
        r = line.run
        yield [r.pk, r.name, r.server.name, to_second(r.started_at), to_second(r.ended_at), line.warmup.seconds,
               r.concurrency, r.sweep, r.label, line.tps.avg, line.tps.samples, r.notes, r.command, r.tool_summary,
               line.tps.resolution, int(line.warmup.found)]
