"""Scalability curves: runs grouped by sweep (or label), one point per concurrency level.

A level's TPS and waits come from the counter samples inside its run's window
after the warm-up (step_window), and so does its host CPU (node_exporter's
host.cpu.busy_seconds, and its share of host.cpus) where the server has a node_exporter.
The knee is the last level up to which every step up in threads still gained at least
`threshold` of what one thread did at the first level: past it, added threads buy little.

A level's `rate` is the server's TPS, unless other clients ran more than 5 % of the
server's transactions at some level of the curve (the server counted more than the load
could have run over the seconds its polls cover: own_load.others_ran) and the load
counted its own at every level: then the knee, gains and ratios read the
load's own TPS (own_load).
"""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from dashboards.analysis.own_load import OwnLoad, others_ran, others_share
from dashboards.analysis.per_transaction import PerTransaction
from dashboards.analysis.step_window import Window, WindowTps
from dashboards.analysis.topwaits import TIME_PREFIX, is_client, is_condition

Run = Any  # a servers.models.Run: analysis reads its fields, never the database

DEFAULT_KNEE = 0.5  # of the first level's TPS per thread
FEW_SAMPLES = 3  # below this many samples inside its window, a level's average is one or two polls
TOP_WAITS = 5
WAIT_TIMES = TIME_PREFIX + "*"
QPS = "qps"


@dataclass(frozen=True)
class Level:
    run: Run
    window: Window
    tps: WindowTps
    # Per event: picoseconds waited inside the window, seconds they cover (pfs_waits' own polls).
    waits: dict[str, tuple[int, float]] = field(default_factory=dict)
    cpu: tuple[float, float] | None = None  # host CPU-seconds busy inside the window, seconds they cover
    cpus: float | None = None  # the host's online CPUs during the window (node_exporter's host.cpus)
    own: OwnLoad | None = None  # what the load counted itself
    qps: tuple[float, float] | None = None  # the server's queries (Questions) inside the window, seconds
    by_own: bool = False  # the curve reads the load's own TPS (other clients ran part of the server's)
    # Waits and host CPU per transaction, each over the seconds its source and TPS both cover inside the
    # window (every wait listed); None: each rate over its own seconds, as a hand-made level has them.
    per_trx: PerTransaction | None = None

    @property
    def rate(self) -> float | None:
        """The TPS the curve reads: the load's own where the curve says so, else the server's."""
        return self.own.tps if self.by_own and self.own else self.tps.avg

    @property
    def others(self) -> float | None:
        """The share of the server's transactions that other clients ran (own_load.others_share)."""
        return others_share(self.tps.avg, self.own.tps if self.own else None)

    @property
    def others_ran(self) -> bool:
        """Other clients ran beyond what the load could over the seconds the polls cover (own_load.others_ran)."""
        return others_ran(self.others, self.tps.seconds, self.span)

    @property
    def span(self) -> float:
        """Seconds from the end of the warm-up to the step's end: what the load's own TPS divides by."""
        return (self.window.end - self.window.start).total_seconds()

    @property
    def server_qps(self) -> float | None:
        return self.qps[0] / self.qps[1] if self.qps and self.qps[1] else None

    @property
    def cpu_ms_per_trx(self) -> float | None:
        """Host CPU milliseconds per transaction inside the window: busy CPU-seconds / transactions over the
        seconds node_exporter's polls and TPS's both cover (per_trx); without it, CPUs busy on average / TPS."""
        if self.per_trx is not None:
            return self.per_trx.cpu_ms
        if not self.cpu or not self.cpu[1] or not self.tps.avg:
            return None
        return 1000.0 * self.cpu[0] / self.cpu[1] / self.tps.avg

    @property
    def cpu_busy_pct(self) -> float | None:
        """The host's CPU busy (not idle nor iowait) as a share of all its CPUs, over the same polls as the CPU
        per transaction: busy CPU-seconds / (seconds covered × CPUs).

        Capped at 100: the poll's clock and the kernel's counters may differ by milliseconds per window.
        """
        if not self.cpu or not self.cpu[1] or not self.cpus:
            return None
        return min(100.0, 100.0 * self.cpu[0] / self.cpu[1] / self.cpus)

    @property
    def concurrency(self) -> int:
        return self.run.concurrency

    def wait_per_trx(self, event: str) -> float | None:
        """Picoseconds waited on `event` per transaction, as for the CPU.

        The waits and TPS come from different sources, whose polls inside the window need not
        cover the same seconds (a reset of one leaves a poll out of it alone): per_trx has each over
        the seconds both cover. Without it, its wait rate / TPS.
        """
        if self.per_trx is not None:
            return self.per_trx.event_ps.get(event) if self.per_trx.wait_ms is not None else None
        waited, seconds = self.waits.get(event, (0, 0.0))
        if not seconds or not self.tps.avg:
            return None
        return waited / seconds / self.tps.avg


@dataclass(frozen=True)
class Curve:
    name: str  # the sweep, else the label, else the server
    label: str
    levels: list[Level]
    left_out: list[Run]  # a second run at a level already drawn (the newest is kept)
    knee: Level | None
    by_own: bool = False  # the knee, gains and ratios read the load's own TPS

    @property
    def still_scaling(self) -> bool:
        """The knee is the last level swept with a TPS: every step up gained, so where scaling stops is beyond the
        sweep."""
        return self.knee is not None and self.knee is measured(self.levels)[-1]

    @property
    def others_levels(self) -> list[Level]:
        """Levels where the server counted more than the load by more than the threshold: other clients ran."""
        return [lv for lv in self.levels if lv.others_ran]

    @property
    def thin_levels(self) -> list[int]:
        """Levels measured by too few samples to trust: the step was short for the poll interval."""
        return [lv.concurrency for lv in self.levels if lv.rate is not None and lv.tps.samples < FEW_SAMPLES]

    @property
    def unmeasured_levels(self) -> list[int]:
        """Levels with no TPS: no poll inside the window (the server down or not polled, or a step shorter than
        a poll interval). The knee, gains and fit step over them."""
        return [lv.concurrency for lv in self.levels if lv.rate is None]

    @property
    def server_names(self) -> list[str]:
        return sorted({level.run.server.name for level in self.levels})


def curve_name(run: Run) -> str:
    return run.sweep or run.label or f"{run.server.name} (no sweep)"


def read_own(levels: list[Level]) -> bool:
    """Whether a curve reads the load's own TPS: others ran part of some level (the server counted more than the
    load by the threshold), and every level counted its own. A server that counted fewer keeps its TPS."""
    return (any(lv.others_ran for lv in levels)
            and all(lv.own is not None and lv.own.tps is not None for lv in levels))


def has_cpu(found: list[Curve]) -> bool:
    """Whether any level measured host CPU inside its window."""
    return any(lv.cpu_ms_per_trx is not None for curve in found for lv in curve.levels)


def measured(levels: list[Level]) -> list[Level]:
    """The levels with a TPS: a step with no poll inside its window (the server down, or not polled) has none, and
    is stepped over, not read as a step that gained nothing (a 1/2/4/8 sweep missing 4 read "knee at 2 threads"
    while 2 to 8 gained 80 % of one thread's TPS per added thread)."""
    return [lv for lv in levels if lv.rate is not None]


def gains(levels: list[Level]) -> list[float | None]:
    """Per level, the TPS gained per added thread since the level measured below it, as a share of the first
    measured level's TPS per thread; None for the first and for a level without TPS."""
    found = measured(levels)
    first = found[0].rate if found else None
    per_thread = first / found[0].concurrency if first else None
    below = dict(zip(map(id, found[1:]), found, strict=False))  # each measured level's measured level below
    out: list[float | None] = []
    for level in levels:
        prev = below.get(id(level))
        if not per_thread or prev is None or prev.rate is None or level.rate is None:
            out.append(None)
            continue
        out.append((level.rate - prev.rate) / (level.concurrency - prev.concurrency) / per_thread)
    return out


def knee(levels: list[Level], threshold: float = DEFAULT_KNEE) -> Level | None:
    """The last level reached while each step up (between levels with a TPS) gained at least `threshold`; None
    without two such levels."""
    found = measured(levels)
    if len(found) < 2:
        return None
    reached = found[0]
    for level, gain in zip(found[1:], gains(found)[1:], strict=True):
        if gain is None or gain < threshold:
            break
        reached = level
    return reached


def group(runs: Iterable[Run]) -> dict[str, list[Run]]:
    """Runs with a concurrency by curve, oldest first."""
    curves: dict[str, list[Run]] = {}
    for run in sorted(runs, key=lambda r: r.started_at):
        if run.concurrency:
            curves.setdefault(curve_name(run), []).append(run)
    return curves


def build_curve(name: str, runs: list[Run], measure_all: Callable[[list[Run]], list[Level]],
                threshold: float = DEFAULT_KNEE) -> Curve:
    """A curve of the newest run at each level, measured by `measure_all` (dashboards/scalability_levels)."""
    newest = {run.concurrency: run for run in runs}  # oldest first: a re-run at a level replaces it
    left_out = [run for run in runs if newest[run.concurrency] is not run]
    levels = measure_all([newest[c] for c in sorted(newest)])
    by_own = read_own(levels)
    levels = [replace(lv, by_own=by_own) for lv in levels]
    label = next((run.label for run in reversed(runs) if run.label), "")
    return Curve(name, label, levels, left_out, knee(levels, threshold), by_own)


def curves(runs: Iterable[Run], measure_all: Callable[[list[Run]], list[Level]],
           threshold: float = DEFAULT_KNEE) -> list[Curve]:
    return [build_curve(name, group_runs, measure_all, threshold) for name, group_runs in group(runs).items()]


def top_waits(found: list[Curve], n: int = TOP_WAITS) -> list[str]:
    """The events with the most time per transaction at any level of any curve (condition waits and
    client time left out)."""
    worst: dict[str, float] = {}
    for curve in found:
        for level in curve.levels:
            for event in level.waits:
                per_trx = level.wait_per_trx(event)
                if per_trx and not is_condition(event) and not is_client(event):
                    worst[event] = max(worst.get(event, 0.0), per_trx)
    return [event for event, _ in sorted(worst.items(), key=lambda kv: (-kv[1], kv[0]))[:n]]


def ratio_table(found: list[Curve]) -> list[dict]:
    """One row per concurrency level: each curve's TPS there and its ratio to the first curve's."""
    levels = sorted({level.concurrency for curve in found for level in curve.levels})
    rows = []
    for c in levels:
        cells = [next((lv for lv in curve.levels if lv.concurrency == c), None) for curve in found]
        base = cells[0].rate if cells and cells[0] else None
        rows.append({"concurrency": c, "cells": [
            {"level": cell, "ratio": cell.rate / base if cell and base and cell.rate is not None else None}
            for cell in cells]})
    return rows
