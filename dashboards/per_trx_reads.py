"""Waits and host CPU per transaction over an interval or a run's window, as read from the store: each source's
polls (past the raw retention, its rollup buckets) that TPS's cover (analysis/shared_span, analysis/per_transaction).
"""

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from dashboards.analysis.per_transaction import (
    BUSY_SECONDS,
    SAME_SECONDS,
    TPS,
    Over,
    PerTransaction,
    per_transaction,
)
from dashboards.analysis.shared_span import Shared, SourcePolls, same_polls, shared_with
from dashboards.analysis.step_window import Window
from dashboards.analysis.topwaits import Hidden, WaitRow, is_client, shown, wait_rows, without_conditions
from dashboards.reads import AFTER_START, COUNT_PREFIX, TIME_PREFIX, WAIT_TIMES, interval_sums
from dashboards.server_texts import BASIS_SERIES
from dashboards.window_reads import WindowPolls, samples_in, window_sums
from store import levels, query
from store.points import from_micros, micros
from store.query import CounterSamples

WAIT_PREFIXES = (TIME_PREFIX, COUNT_PREFIX)

def per_transaction_of(server_id: int, start: datetime, end: datetime, waits: list[WaitRow]) -> PerTransaction:
    """Waits and host CPU per transaction over the polls in (start, end] (interval_waits() sums the waits of
    the same), each over the seconds its source and TPS both cover."""
    sums = interval_sums(server_id, [TPS, BUSY_SECONDS, WAIT_TIMES], start, end)
    return per_transaction_from(server_id, start, end, sums, waits)


def interval_times(server_id: int, start: datetime,
                   end: datetime) -> tuple[list[WaitRow], dict[str, tuple[int | float, float]]]:
    """Every wait's time over the polls in (start, end] (reads.interval_waits() without the counts: each row's
    count is 0, counted() reads those a page shows) and the sums per_transaction_from() needs, in one store read:
    the waits page read every wait's time twice, once for each, and all 347 counts to show 20. The sums hold
    TPS's counters too (BASIS_SERIES: range_texts says which counted the range), read with TPS in that read."""
    sums = interval_sums(server_id, [*BASIS_SERIES, BUSY_SECONDS, WAIT_TIMES], start, end)
    return wait_rows({name: total for name, (total, _s) in sums.items() if name.startswith(TIME_PREFIX)}), sums


def counted(server_id: int, start: datetime, end: datetime, rows: list[WaitRow], events: list[str]) -> list[WaitRow]:
    """The rows with the counts over (start, end] of the events listed, read for those alone (interval_times()
    reads none); the other rows' stay 0."""
    wanted = [COUNT_PREFIX + event for event in dict.fromkeys(events)]
    sums = interval_sums(server_id, wanted, start, end) if wanted else {}
    counts = {name[len(COUNT_PREFIX):]: int(total) for name, (total, _s) in sums.items()}
    return [replace(r, count=counts[r.event]) if r.event in counts else r for r in rows]


# TPS is read this far past each end of an interval: the wait summary's first and last polls there may have
# begun before, or ended after, TPS's first and last polls inside it (read milliseconds apart).
TPS_MARGIN = timedelta(minutes=5)


def per_transaction_from(server_id: int, start: datetime, end: datetime, sums: dict[str, tuple[int | float, float]],
                         waits: list[WaitRow]) -> PerTransaction:
    """per_transaction_of() from interval_times()'s sums of (start, end]: where a source and TPS cover
    different seconds, their polls read at once (TPS's a margin wider); past the raw retention, their rollup
    buckets wholly inside the range, or those it overlaps where the sums are theirs (bucket_figures())."""
    lo = start + AFTER_START
    if levels.finest(lo) != levels.FULL:
        return bucket_figures(sums, waits, lambda metrics: read_buckets(server_id, metrics, lo, end, overlapping=True))

    def read(metrics: list[str]) -> tuple[SourcePolls, dict[str, SourcePolls]]:
        found = read_polls(server_id, [TPS, *metrics], lo - TPS_MARGIN, end + TPS_MARGIN)
        return found[TPS], {m: found[m].between(micros(lo), micros(end)) for m in metrics}
    return shared_figures(sums, waits, read, lambda names, a, b: query.totals_and_seconds(server_id, names, a, b))


Totals = Callable[[list[str], datetime, datetime], dict[str, tuple[int | float, float]]]
ReadPolls = Callable[[list[str]], tuple[SourcePolls, dict[str, SourcePolls]]]


def shared_figures(sums: dict[str, tuple[int | float, float]], waits: list[WaitRow], read: ReadPolls,
                   totals: Totals, by_bucket: bool = False) -> PerTransaction:
    """The per-transaction figures, each source over the seconds it and TPS both cover. read: TPS's polls and
    the counters' in the interval; totals: some counters' totals over [from, to] (a store read), for the waits
    over the stretches both cover where TPS does not cover every wait poll (by_bucket: wherever a source's
    polls are read, its rollup buckets: bucket_figures()).

    Where a source's polls cover the seconds TPS's do, to the second, they are the same polls (read in one
    round): its delta over TPS's, with no poll read."""
    shown_metric = wait_metric(sums) if waits else None
    tps_total, tps_seconds = sums.get(TPS, (0, 0.0))
    wanted = [m for m in (shown_metric, BUSY_SECONDS) if m and sums.get(m, (0, 0.0))[1]]
    apart = [m for m in wanted if abs(sums[m][1] - tps_seconds) >= SAME_SECONDS]
    tps, found = read(apart) if apart else (NO_POLLS, {})
    shared = {m: shared_with(found[m], tps) if m in found else same_polls(sums[m][1], tps_total) for m in wanted}
    wait = cpu = None
    waited: dict[str, int] | None = None
    if shown_metric in shared:
        span = shared[shown_metric]
        # A source read bucket by bucket is summed from those buckets: the sums may hold an edge's partial one.
        whole = span.every_poll and not (by_bucket and shown_metric in found)
        waited = {w.event: w.time_ps for w in waits} if whole else shared_waits(waits, span, totals)
        wait = Over(sum(waited.values()), span, sums[shown_metric][1], tps_seconds)
    if BUSY_SECONDS in shared:
        span = shared[BUSY_SECONDS]
        busy = float(found[BUSY_SECONDS].deltas[span.kept].sum()) if BUSY_SECONDS in found else sums[BUSY_SECONDS][0]
        cpu = Over(busy, span, sums[BUSY_SECONDS][1], tps_seconds)
    polled = sums[shown_metric][1] if shown_metric else None
    return replace(per_transaction(sums, waited, wait, cpu), waits_polled=polled)


def bucket_figures(sums: dict[str, tuple[int | float, float]], waits: list[WaitRow],
                   read: Callable[[list[str]], dict[str, SourcePolls]]) -> PerTransaction:
    """shared_figures() past the raw retention, bucket by bucket: where a source and TPS cover different
    seconds, the rollup buckets of TPS, of that source and of every wait listed, in one read (read: the
    buckets the sums are of, as polls stamped at their ends); a source's bucket counts where TPS's
    cover it, and each wait is the sum of its own buckets counted. What an engineer computes by hand from the
    rollup rows: a total read over each stretch (from half a bucket before its first) left that bucket out."""
    names = [TIME_PREFIX + w.event for w in waits]
    found: dict[str, SourcePolls] = {}

    def read_all(metrics: list[str]) -> tuple[SourcePolls, dict[str, SourcePolls]]:
        found.update(read(list(dict.fromkeys([TPS, *metrics, *names]))))
        return found[TPS], {m: found[m] for m in metrics}

    def totals(wanted: list[str], a: datetime, b: datetime) -> dict[str, tuple[int | float, float]]:
        picked = {n: found[n].between(micros(a), micros(b)) for n in wanted if n in found}
        return {n: (float(p.deltas.sum()), float(p.seconds.sum())) for n, p in picked.items()}
    return shared_figures(sums, waits, read_all, totals, by_bucket=True)


def shared_waits(waits: list[WaitRow], shared: Shared, totals: Totals) -> dict[str, int]:
    """Each wait's ps over the shared seconds: its totals over each stretch of them."""
    names = [TIME_PREFIX + w.event for w in waits]
    waited = dict.fromkeys(names, 0)
    for a, b in shared.runs:
        for name, (total, _s) in totals(names, from_micros(a), from_micros(b)).items():
            waited[name] += int(total)
    return {name[len(TIME_PREFIX):]: ps for name, ps in waited.items()}


def wait_metric(sums: dict[str, tuple[int | float, float]]) -> str | None:
    """The wait time counter whose polls cover the most seconds: every wait is read at each poll of the wait
    summary (an event counted for the first time joins later), so its polls are the summary's."""
    found = [(seconds, name) for name, (_t, seconds) in sums.items() if name.startswith(TIME_PREFIX) and seconds]
    return max(found)[1] if found else None


def read_polls(server_id: int, metrics: list[str], start: datetime, end: datetime) -> dict[str, SourcePolls]:
    """Counters' polls with start <= ts <= end; past the raw retention, their rollup buckets as polls."""
    if levels.finest(start) == levels.FULL:
        found = query.counter_arrays(server_id, metrics, start, end)
        return {m: SourcePolls.of(found[m].ts, found[m].seconds, found[m].deltas) if m in found else NO_POLLS
                for m in metrics}
    buckets = query.rollup_sums(server_id, metrics, start, end)
    return {m: polls_of(buckets.get(m)) for m in metrics}


def read_buckets(server_id: int, metrics: list[str], start: datetime, end: datetime,
                 overlapping: bool = False) -> dict[str, SourcePolls]:
    """Counters' rollup buckets wholly inside [start, end] (store.query.rollup_sums), as polls; overlapping: a
    counter with none keeps those the range overlaps, as its totals (store.query.totals_and_seconds) sum them."""
    buckets = query.rollup_sums(server_id, metrics, start, end, overlapping=overlapping)
    return {m: polls_of(buckets.get(m)) for m in metrics}


NO_POLLS = SourcePolls.of([], [], [])


def polls_of(samples: CounterSamples | None) -> SourcePolls:
    if samples is None:
        return NO_POLLS
    return SourcePolls.of([micros(t) for t in samples.ts], samples.seconds, samples.deltas)


# What run_figures() sums over a run's window; without the waits' counts, where a page shows only their times.
RUN_SUMS = (TPS, BUSY_SECONDS, WAIT_TIMES, COUNT_PREFIX + "*")
RUN_TIMES = (TPS, BUSY_SECONDS, WAIT_TIMES)


def run_figures(server_id: int, window: Window, polls: WindowPolls | None = None,
                counts: bool = True) -> tuple[list[WaitRow], PerTransaction]:
    """A run's waits (every event, biggest first) and per-transaction figures from the polls whose whole
    interval lies inside its window, as its TPS (step_window); condition waits left out of the latter.
    polls: the window's, read with RUN_SUMS (RUN_TIMES without counts). Without counts, the 347 count counters
    are not read: each row's count is 0 (a page showing times only, and the per-transaction figures, which
    do not use them)."""
    metrics = list(RUN_SUMS if counts else RUN_TIMES)
    sums = polls.sums(metrics) if polls else window_sums(server_id, metrics, window)
    waits = wait_rows({name: total for name, (total, _s) in sums.items() if name.startswith(WAIT_PREFIXES)})
    return waits, window_per_transaction(server_id, window, polls, sums, without_conditions(waits)[0])


def window_per_transaction(server_id: int, window: Window, polls: WindowPolls | None,
                           sums: dict[str, tuple[float, float]], waits: list[WaitRow]) -> PerTransaction:
    """run_figures()'s per-transaction figures: each source's polls inside the window that TPS's cover (past the
    raw retention, its buckets: bucket_figures())."""
    if levels.finest(window.start) != levels.FULL:
        return bucket_figures(sums, waits, lambda metrics: read_buckets(server_id, metrics, window.start, window.end))

    def samples(metric: str) -> SourcePolls:
        return polls_of((polls.samples([metric]) if polls else samples_in(server_id, [metric], window)[0]).get(metric))

    def totals(names: list[str], a: datetime, b: datetime) -> dict[str, tuple[int | float, float]]:
        return polls.interval_sums(names, a - AFTER_START, b) if polls else query.totals_and_seconds(
            server_id, names, a, b)
    def read(metrics: list[str]) -> tuple[SourcePolls, dict[str, SourcePolls]]:
        return samples(TPS), {m: samples(m).inside(micros(window.start), micros(window.end)) for m in metrics}
    return shared_figures(sums, waits, read, totals)


def run_waits(server_id: int, window: Window, polls: WindowPolls | None, conditions: bool,
              top: int) -> tuple[list[WaitRow], Hidden]:
    """shown() of a run's waits (run_figures), the counts read for the `top` rows shown and the client time left
    out alone (a report's table): the other rows' counts are 0. polls: the window's, read with RUN_TIMES."""
    rows = run_figures(server_id, window, polls, counts=False)[0]
    wanted = [r.event for r in shown(rows, conditions)[0][:top]] + [r.event for r in rows if is_client(r.event)]
    sums = window_sums(server_id, [COUNT_PREFIX + event for event in wanted], window) if wanted else {}
    counts = {name[len(COUNT_PREFIX):]: int(total) for name, (total, _s) in sums.items()}
    return shown([replace(r, count=counts[r.event]) if r.event in counts else r for r in rows], conditions)
