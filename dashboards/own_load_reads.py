"""What the load under test counted itself, read from its run (analysis/own_load compares it with the server's)."""

import shlex
from dataclasses import replace

from dashboards.analysis.own_load import OwnLoad, from_figures
from servers.models import Run
from workload.external import read_call, sysbench_figures


def own_load(run: Run, trimmed: int) -> OwnLoad | None:
    """The run's own figures: kept by the stress driver, else read from sysbench's summary; None for neither.

    trimmed: the seconds the run's window leaves out at its start (its warm-up, given or found). The load's
    own rate covers its run after its own warm-up; over another span it is no measure of the window's
    transactions (sysbench 1.0 has no --warmup-time: its rate holds a ramp the window leaves out, and read
    10 % low, "other clients" that never ran), so its TPS is then dropped and only its other figures kept.
    bench_run keeps sysbench 1.0's rate after its --warmup, read from its interval reports, with that warm-up.
    """
    figures = run.client_figures or sysbench_figures(run.tool_summary or "")
    own = from_figures(figures)
    if own is None or own.tps is None:
        return own
    skipped = figures["warmup"] if "warmup" in figures else own_warmup(run, figures.get("tool", ""))
    return own if skipped == trimmed else replace(own, tps=None, skipped=skipped, trimmed=trimmed)


def own_warmup(run: Run, tool: str) -> int:
    """The seconds the load's own count leaves out at its start: the stress driver's is the run's warm-up as
    given; sysbench's its --warmup-time (from the command line the run recorded)."""
    if tool == "stress":
        return run.warmup_seconds
    try:
        argv = shlex.split(run.command or "")
    except ValueError:  # an unbalanced quote in a command recorded through the API: no warm-up to read
        return 0
    if not argv:
        return 0
    return read_call(argv).warmup or 0
