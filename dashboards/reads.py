"""What the pages read from the store (store.query), sized to the chart."""

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from itertools import islice

from django.db.models import Q

from collectors import monitor_enable, registry
from collectors.connection import parse_version
from collectors.metric import TPS
from collectors.models import PollRecord, TrxHolder
from collectors.status import OFF, status_of
from dashboards.analysis.per_transaction import PerTransaction
from dashboards.analysis.purge_growth import REACH, Trend, current_trend
from dashboards.analysis.purge_verdict import KEEP_UP, Holder, PurgeVerdict, purge_verdict
from dashboards.analysis.segment import OWN_POLLS
from dashboards.analysis.statements import Bins, StatementDiff, TopStatement, bins_at, changed_most, top_statements
from dashboards.analysis.step_window import run_window
from dashboards.analysis.topwaits import (
    COUNT_PREFIX,
    TIME_PREFIX,
    Interval,
    WaitRow,
    is_client,
    is_condition,
    wait_rows,
)
from dashboards.links import link
from dashboards.prepared_note import unseen_prepared
from dashboards.timerange import TimeRange
from dashboards.window_reads import WindowPolls, run_warmup
from store import levels, query, statement_reads

HISTORY = "history_list_length"
MAX_PURGE_LAG = "var:innodb_max_purge_lag"
WAIT_TIMES = TIME_PREFIX + "*"
REPLICA = "replica.*"  # the replication source's lag and thread states, per channel
MUTEX_PREFIX = "mutex.waits:"
MUTEX_WAITS = MUTEX_PREFIX + "*"
PURGE_DELAY = f"innodb_metrics:{monitor_enable.PURGE_DELAY}"
INNODB_METRICS = "innodb_metrics:*"  # every counter the server has enabled, read together once a minute
FLEET_NOW = [TPS, HISTORY, WAIT_TIMES, REPLICA]  # the fleet page's figures of now
RANK_POINTS = 60  # resolution at which the top waits of a chart are chosen
# The purge counters the purge-lag view draws when the server has them enabled.
PURGE_COUNTERS = [f"innodb_metrics:{name}" for name in monitor_enable.PURGE_RATES]


@dataclass
class Empty:
    """No samples: charts say so instead of failing."""

    ts: list = field(default_factory=list)
    values: list = field(default_factory=list)


def series_map(server_id: int, metrics: Sequence[str], tr: TimeRange, points: int) -> dict[str, query.Series]:
    metrics = [m for m in metrics if "\x00" not in m]  # a name from the URL: none has one, PostgreSQL refuses it
    if not metrics:
        return {}
    found = query.series([server_id], list(metrics), tr.start, tr.end, max_points=points)
    return {s.metric: s for s in found if s.server_id == server_id}


def first_matching(server_id: int, patterns: list[str], n: int) -> list[str]:
    """The first n of the server's metrics that series(patterns) would return, in its order (each pattern's
    matches by name, a metric once): a chart that draws n reads only those, not a whole family."""
    found: dict[str, None] = {}
    for pattern in patterns:
        found |= dict.fromkeys(m for m in metric_names(server_id, pattern) if m not in found)
        if len(found) >= n:
            break
    return list(found)[:n]


def biggest(totals: dict[str, int | float], prefix: str, n: int) -> list[str]:
    """The n metrics of a family with the largest exact total over the range, biggest first.

    Totals, not the mean of chart points: an event that began halfway was averaged over its own
    half (and the points are bins' min and max), so it outranked one twice its total.
    """
    scored = [(total, metric) for metric, total in totals.items() if metric.startswith(prefix)]
    return [metric for total, metric in sorted(scored, key=lambda x: (-x[0], x[1])) if total > 0][:n]


HIDDEN_LINES = 3  # hidden condition waits read as lines, to say when one moves against TPS


@dataclass(frozen=True)
class HiddenConditions:
    """The condition waits a ranking left out: how many had time, and the lines of the biggest."""

    events: int = 0
    lines: list = field(default_factory=list)  # (event, ChartPoints), biggest total first


def stability_series(server_id: int, tr: TimeRange, points: int, n_waits: int, n_mutexes: int,
                     mutex_reach: timedelta = timedelta(0), conditions: bool = False, client: bool = False,
                     also: Sequence[str] = ()):
    """TPS, the top waits, the top mutexes (short names), the hidden condition waits and the lines of `also`
    (metric -> line, those found: read with TPS, one read fewer), in four store reads.

    The ranking reads every wait's total over the range at a coarse level (the rollup buckets'
    exact sums over days, store.query.ranking_totals), then only the winners are read at the
    chart's resolution: a 7-day view stays fast.

    Mutex waits come from a slower source (innodb_mutex, every 60 s by default):
    a range shorter than its interval, or between two of its polls (a zoom, a
    short run), holds none of its samples though the polls around it cover it.
    They are read over the range widened by `mutex_reach` on both sides, so the
    line crosses the range; the figure keeps the page's range on the axis.

    Condition waits (topwaits.is_condition: idle ones, not the lock waits) are not ranked unless
    `conditions`; the fourth value counts those left out that had time in the range, with the lines of
    the HIDDEN_LINES biggest. Client time (topwaits.CLIENT_EVENTS) is not ranked unless `client`.
    """
    wide = TimeRange(tr.start - mutex_reach, tr.end + mutex_reach)
    totals = query.ranking_totals(server_id, [WAIT_TIMES], tr.start, tr.end, RANK_POINTS)
    totals |= query.ranking_totals(server_id, [MUTEX_WAITS], wide.start, wide.end, RANK_POINTS)
    conds = {} if conditions else {
        m: t for m, t in totals.items() if m.startswith(TIME_PREFIX) and is_condition(m[len(TIME_PREFIX):])}
    totals = {m: t for m, t in totals.items() if m not in conds}
    if not client:
        totals = {m: t for m, t in totals.items() if not is_client(m[len(TIME_PREFIX):])}
    waits, mutexes = biggest(totals, TIME_PREFIX, n_waits), biggest(totals, MUTEX_PREFIX, n_mutexes)
    hidden = biggest(conds, TIME_PREFIX, len(conds))
    found = series_map(server_id, list(dict.fromkeys([TPS, *waits, *hidden[:HIDDEN_LINES], *also])), tr, points)
    found_mutexes = series_map(server_id, mutexes, wide, points)
    return (
        found.get(TPS) or Empty(),
        [(m[len(TIME_PREFIX):], found[m]) for m in waits if m in found],
        [(m[len(MUTEX_PREFIX):], found_mutexes[m]) for m in mutexes if m in found_mutexes],
        HiddenConditions(len(hidden), [(m[len(TIME_PREFIX):], found[m]) for m in hidden[:HIDDEN_LINES] if m in found]),
        {m: found[m] for m in also if m in found},
    )


MUTEX_SOURCE = "innodb_mutex"  # the collectors' source of mutex.* metrics


def source_interval(server, source: str) -> timedelta:
    """How often a collectors' source reads this server (its own interval or the server's poll)."""
    try:
        seconds = registry.get(source).interval_for(server.poll_interval, server.flavor, parse_version(server.version))
    except KeyError:
        seconds = server.poll_interval
    return timedelta(seconds=seconds)


# A poll exactly at an interval's start measured the time before it: its delta is not the interval's.
AFTER_START = query.TICK  # the store's resolution: the window's polls (WindowPolls) shift by the same


def interval_waits(server_id: int, start: datetime, end: datetime) -> list[WaitRow]:
    """Exact deltas of every wait event over (start, end] (never from downsampled points)."""
    names = query.metric_names(server_id, WAIT_TIMES) + query.metric_names(server_id, COUNT_PREFIX + "*")
    return wait_rows(interval_totals(server_id, names, start, end)) if names else []


def interval_totals(server_id: int, metrics: list[str], start: datetime, end: datetime) -> dict[str, int | float]:
    """Exact counter sums over the polls in (start, end]: every figure of an interval counts the same polls."""
    return query.totals(server_id, metrics, start + AFTER_START, end)


def interval_sums(server_id: int, metrics: list[str], start: datetime, end: datetime,
                  polls: WindowPolls | None = None) -> dict[str, tuple[int | float, float]]:
    """interval_totals(), each with the seconds its polls cover: what each is a rate over. polls: a window's
    holding (start, end], read with the metrics (the same sums from the polls already read)."""
    if polls:
        return polls.interval_sums(metrics, start, end)
    return query.totals_and_seconds(server_id, metrics, start + AFTER_START, end)


def rate_in(sums: dict[str, tuple[int | float, float]], metric: str) -> float | None:
    """mean_rate() from interval_sums() that hold the metric."""
    total, seconds = sums.get(metric, (0, 0.0))
    return total / seconds if seconds else None


def per_poll(tr: TimeRange, points: int) -> bool:
    """Whether a chart of the range reads polls (the full-resolution level), not rollup buckets: only
    then can its series be stacked (figures.stacks.stackable checks they share their points)."""
    return levels.choose(tr.start, tr.end, points) == levels.FULL


ROLLUP_BUCKET = {levels.MINUTE: timedelta(minutes=1), levels.HOUR: timedelta(hours=1)}


def point_bucket(tr: TimeRange, points: int) -> timedelta | None:
    """The width of the rollup buckets a chart of the range reads; None where it reads the polls."""
    return ROLLUP_BUCKET.get(levels.choose(tr.start, tr.end, points))


def poll_outages(server_id: int, tr: TimeRange) -> list[tuple[datetime, datetime]]:
    """The outages in TPS's polls over the range (store.query.outages) from where the polls are kept: a range
    starting past their retention still lists those in its kept part."""
    start = max(tr.start, levels.available_since(levels.FULL))
    return query.outages(server_id, TPS, start, tr.end) if start < tr.end else []


def interval_span(server_id: int, start: datetime, end: datetime, per_trx: PerTransaction | None = None) -> Interval:
    """The seconds an interval's polls cover and their transactions: what its wait times are divided by.

    interval_waits() sums the polls in (start, end], each a delta since the poll before: the
    first began before start. Their time is what the waits were measured over, not end - start
    (a 3 s zoom holding one 5 s poll would read 5/3 too high). TPS is read at every poll, as the waits are.
    per_trx: the interval's figures (per_trx_reads.per_transaction_of): each wait's time per transaction over the
    seconds the wait summary and TPS both cover, and the seconds the wait summary's own polls cover (what its
    rates are over: TPS's may cover more, or less).
    """
    done, seconds = polled_total(server_id, TPS, start, end)
    return Interval(seconds, done, per_trx.event_ps if per_trx else None, per_trx.waits_polled if per_trx else None)


def mean_rate(server_id: int, metric: str, start: datetime, end: datetime) -> float | None:
    """A counter's exact mean rate over the polls in (start, end]: their deltas over the seconds they cover.

    What an engineer computes by hand from the samples, at any range: a long range's chart points
    are rollup buckets, whose mean would weigh a short minute as much as a full one.
    """
    total, seconds = polled_total(server_id, metric, start, end)
    return total / seconds if total is not None and seconds else None


def polled_total(server_id: int, metric: str, start: datetime, end: datetime) -> tuple[int | float | None, float]:
    """A counter's exact total over the polls in (start, end] and the seconds they cover; (None, 0) unknown."""
    return query.totals_and_seconds(server_id, [metric], start + AFTER_START, end).get(metric, (None, 0.0))


def metric_names(server_id: int, pattern: str = "*") -> list[str]:
    """The names of the server's collected metrics that match pattern ('*' allowed).

    A pattern with a NUL byte matches none: no name holds one, and PostgreSQL refuses the text.
    """
    return [] if "\x00" in pattern else query.metric_names(server_id, pattern)


def latest_value(server_id: int, metric: str) -> float | None:
    found = query.latest([server_id], [metric]).get((server_id, metric))
    return found[1] if found else None


def purge_counters(server_id: int) -> tuple[list[str], list[str]]:
    """(collected, off now) purge counters: the charts draw the collected ones over any range.

    Off now: not in the innodb_metrics source's newest sample, which holds every counter the server
    has enabled (collectors/sources/innodb_metrics.py): switched off since (innodb_monitor_disable),
    lost at a restart without the option file's line, or never on. What the store once had is no
    sign they are on now. A newest sample of unknown interval is a baseline (the source's first read, or one
    after a reset: a counter needs two reads for a delta), which says nothing of them: none is off yet.
    """
    wanted = PURGE_COUNTERS + [PURGE_DELAY]
    newest = {m: t for (_, m), (t, _) in query.latest([server_id], [INNODB_METRICS]).items()}
    last = max(newest.values(), default=None)
    have = set(query.metric_names(server_id, "innodb_metrics:purge_*"))
    collected = [m for m in wanted if m in have]
    if last is not None and is_baseline(server_id, last):
        return collected, []
    return collected, [m for m in wanted if last is None or newest.get(m) != last]


def is_baseline(server_id: int, at: datetime) -> bool:
    """Whether the innodb_metrics sample at `at` has no interval (store_raw's interval_ms NULL): a first read, or
    one after a reset. Not told by its metrics' kinds: with every counter but gauges disabled
    (innodb_monitor_disable = '%', then trx_rseg_history_len enabled) every sample holds gauges only."""
    found = query.poll_columns(server_id, [INNODB_METRICS], at, at).sources
    return bool(found) and len(found[0].iv) > 0 and int(found[0].iv[-1]) < 0


# Purge's work done and to do, for the purge verdict: undo records purged (INNODB_METRICS, off by default),
# and rows updated or deleted (each leaves an undo record for purge; an insert's undo is freed at commit).
PURGED = ["innodb_metrics:purge_del_mark_records", "innodb_metrics:purge_upd_exist_or_extern_records"]
DML_UNDO_SETS = (("Innodb_rows_updated", "Innodb_rows_deleted"), ("Handler_update", "Handler_delete"))


def summed_rate(server_id: int, metrics: list[str], start: datetime, end: datetime) -> float | None:
    """The exact mean rates of counters over (start, end], summed; None when one of them has no polls there."""
    return summed_in(interval_sums(server_id, metrics, start, end), metrics)


def summed_in(sums: dict[str, tuple[int | float, float]], metrics: list[str]) -> float | None:
    """summed_rate() from interval_sums() that hold the metrics."""
    rates = [rate_in(sums, m) for m in metrics]
    known = [r for r in rates if r is not None]
    return None if not rates or len(known) < len(rates) else sum(known)


def purge_rates(server_id: int, start: datetime, end: datetime,
                whole: bool = False) -> tuple[float | None, float | None, datetime, datetime]:
    """(undo records purged /s, rows updated + deleted /s, from, to): both over the same seconds (from, to];
    None where not collected.

    The purge counters are read once a minute: over (start, end] where none was polled in it, else from their
    first poll in it to their last, or over the minute their only poll covers (it may reach before `start`),
    the DML over the same seconds: a minute holding a drain's purging is no pace to match against 5 s of DML.
    With `whole`, both over (start, end].
    """
    have = set(query.metric_names(server_id))
    dml = next((list(names) for names in DML_UNDO_SETS if all(n in have for n in names)), [])
    purged = PURGED if all(m in have for m in PURGED) else []
    lo, hi = purge_window(server_id, start, end) if purged and not whole else (start, end)
    sums = interval_sums(server_id, purged + dml, lo, hi) if purged or dml else {}  # one read for both
    return (summed_in(sums, purged) if purged else None, summed_in(sums, dml) if dml else None, lo, hi)


def purge_window(server_id: int, start: datetime, end: datetime) -> tuple[datetime, datetime]:
    """The seconds the purge counters' polls in (start, end] cover: see purge_rates()."""
    found = query.within(server_id, PURGED[:1], start - PURGE_READS, end)
    ts = [t for t, v in zip(found[0].ts, found[0].values, strict=True) if v is not None] if found else []
    inside = [t for t in ts if start < t <= end]
    before = [t for t in ts if t <= start]
    if len(inside) >= 2:
        return inside[0], inside[-1]
    if inside and before:
        return before[-1], inside[0]
    return start, end


PURGE_READS = timedelta(minutes=3)  # back far enough for the poll before a segment's first purge-counter poll


def holder_at(server_id: int, t: datetime) -> Holder | None:
    """The holder of the oldest transaction at the poll that read the history length at t: started by then,
    and either never found gone or seen by that poll's oldest_trx read (seen_at >= t); where that read failed
    (holders_read_at), not found gone by then (ended_at > t).

    A poll reads history_length before oldest_trx (collectors.registry's order), so the same poll's read of the
    holders comes milliseconds after t: one that found it gone (ended_at just after t, seen_at before t) means it
    was gone at that poll, not held; one found gone only by a later poll has seen_at >= t. A poll whose holder
    read failed (a timeout) moved no seen_at: the holder seen the poll before and found gone the poll after was
    held at it, as far as anyone can tell.
    """
    return holders_at(server_id, [t])[0]


def holders_at(server_id: int, ts: Sequence[datetime]) -> list[Holder | None]:
    """holder_at() of each history poll in ts, from one read of the holders over their span and, where a holder
    needs it, one of the polls' records: a verdict that looks back over polls makes two statements, not two a
    poll."""
    if not ts:
        return []
    rows = holders_in(server_id, min(ts), max(ts))
    started = {t: [h for h in rows if h.started_at <= t and (h.ended_at is None or h.ended_at >= t)] for t in ts}
    # The poll's record decides only a holder the two rules part on (last seen before t, found gone after it):
    # with none, its query is left out.
    parted = [t for t in ts if any(h.ended_at is not None and (h.seen_at >= t) != (h.ended_at > t)
                                   for h in started[t])]
    read = holders_read(server_id, parted)
    return [next((Holder(h.thread_id, h.user, h.host, h.started_at) for h in started[t]
                  if h.ended_at is None or (h.seen_at >= t if read.get(t, False) else h.ended_at > t)), None)
            for t in ts]


POLL_READS = timedelta(minutes=1)  # a poll reads the history length at most this long after it started


def holders_read_at(server_id: int, t: datetime) -> bool:
    """Whether the poll that read the history length at t read the holders too (its poll record's oldest_trx
    ok): false where that read failed or did not run. A poll with no record left (the ring of HISTORY_SLOTS
    polls moved on) counts as read: nothing says otherwise."""
    return holders_read(server_id, [t])[t]


def holders_read(server_id: int, ts: Sequence[datetime]) -> dict[datetime, bool]:
    """holders_read_at() of each t, from one read of the poll records over their span (none for no t)."""
    if not ts:
        return {}
    records = list(PollRecord.objects.filter(server_id=server_id, started_at__lte=max(ts),
                                             started_at__gte=min(ts) - POLL_READS)
                   .order_by("-started_at").values_list("started_at", "sources"))
    found = {}
    for t in ts:
        poll = next((sources for at, sources in records if t - POLL_READS <= at <= t), None)
        found[t] = poll is None or bool((poll.get("oldest_trx") or {}).get("ok"))
    return found


def holders_unread(sources: dict) -> str:
    """Why the oldest transaction cannot be read (the oldest_trx source off: INNODB_TRX needs PROCESS), as its
    latest poll said (sources: the server's health row's); "" when it can."""
    state = sources.get("oldest_trx") or {}
    return (state.get("error") or "oldest_trx: off") if state and status_of(state) == OFF else ""


def purge_verdict_at(server_id: int, last: datetime | None, current: float | None, trend: Trend,
                     threshold: float, unread: str) -> PurgeVerdict:
    """The purge verdict at the history poll `last`: its holder then, and the rates over the segment; unread:
    holders_unread() of the server's health.

    No purged rate is "counters off" only where the page's list says so (purge_counters): read once
    a minute, they may have no poll yet in a short segment.
    """
    if last is None or trend.since is None:
        return PurgeVerdict("")
    purged, dml, lo, hi = purge_rates(server_id, trend.since, last)
    if lo < trend.since and purged is not None and dml and abs(purged - dml) <= KEEP_UP * dml:
        # A match over a minute that began before the turn may be the seconds before it (audit 2's R9: DML
        # lower before its load began): no reading of the segment yet, as before the counters' first poll.
        purged, (_, dml, lo, hi) = None, purge_rates(server_id, trend.since, last, whole=True)
    off = purged is None and any(m in purge_counters(server_id)[1] for m in PURGED)
    holder = holder_at(server_id, last)
    # With no trend yet (a turn's first polls) the holder is the turn's answer: a read view opened between the
    # poll before and this one is what made it rise.
    holder = held_a_poll(server_id, last, holder) if trend.direction else holder
    release = released_at(server_id, last, trend) if holder is None and trend.direction == "growing" else None
    verdict = purge_verdict(current, trend, threshold, holder, purged, dml, off, unread,
                            release.holder if release else None,
                            lowest_since(server_id, holder.since, last) if holder is not None else None)
    if verdict.kind == "released" and release is not None:
        return replace(verdict, gone_by=release.gone_by, polls_after=release.polls_after)
    if verdict.kind == "turned" and holder is None and trend.turned and current is not None \
            and current < trend.turned.came_from:
        fell = released_at_turn(server_id, last, trend)  # the fall is its read view's release
        if fell is not None:
            return replace(verdict, released=fell.holder, gone_by=fell.gone_by)
    if verdict.kind == "flat" and holder is None and current is not None and current > threshold:
        left = released_at_turn(server_id, last, trend)  # the backlog that stays is its read view's
        if left is not None:
            return replace(verdict, released=left.holder, gone_by=left.gone_by)
    return replace(verdict, rates_from=lo, rates_to=hi) if verdict.dml_per_s is not None else verdict


def lowest_since(server_id: int, since: datetime, last: datetime) -> float | None:
    """The lowest history poll from the newest at or before `since` (where it stood as a transaction opened) to
    `last`, None for none: a transaction open for hours is read from the rollups' minima (a minute's bucket may
    begin before it opened: lower, never higher, than the polls since)."""
    since = min(since, last)  # a holder stamped after the poll (each source stamps its own time)
    opened = next(polls_back(server_id, HISTORY, since - REACH, since), None)
    found = [v for s in query.series([server_id], [HISTORY], since, last, max_points=LOWEST_POINTS)
             if s.metric == HISTORY for v in s.values if v is not None]
    found += [opened[1]] if opened else []
    return min(found, default=None)


LOWEST_POINTS = 120  # lowest_since's points: a bucket's min survives downsampling


def held_a_poll(server_id: int, last: datetime, holder: Holder | None) -> Holder | None:
    """The holder at the history poll `last` where it was open at the history poll before too; None where that
    poll's read was the first to see it. A transaction one poll caught holds no growth: live, under 16 sysbench
    threads of autocommit UPDATEs and a slowed purge, one of them read 1 s old (INNODB_TRX's trx_started is in
    whole seconds) at 2 polls of 60, and the page said "Held by a read view: thread 15, ... open since 02:41:32"
    of a history that had grown 290,000 / min for a minute. Only where there is a trend: at a turn's first polls
    a read view opened since the poll before is the answer (3,797 a poll after 864, thread 31 open 4 s)."""
    if holder is None:
        return None
    before = next(islice(polls_back(server_id, HISTORY, last - REACH, last), 1, None), None)
    return holder if before is None or holder.since <= before[0] else None


# The polls from the one that found a holder gone on that still name its release while the history grows: as many
# as purge-bound needs to be judged on its own (purge_verdict.unheld_growth), after which they alone tell its pace.
RELEASE_POLLS = OWN_POLLS


@dataclass(frozen=True)
class Release:
    holder: Holder
    gone_by: datetime  # the history poll that found it gone
    polls_after: int  # the history polls read after that one, up to the last


def released_at(server_id: int, last: datetime, trend: Trend) -> Release | None:
    """The newest holder among the history polls before `last` in the segment, found gone by one of the newest
    RELEASE_POLLS, where it was open over most of the segment up to then: the growth was its read view's, and
    purge may take polls to turn the history down after a release. A transaction of a second a poll happened
    to catch is none."""
    if trend.since is None:
        return None
    after, polls_after = last, 0
    ts = [t for t, _ in islice(polls_back(server_id, HISTORY, trend.since, last), 1, RELEASE_POLLS + 1)]
    for t, holder in zip(ts, holders_at(server_id, ts), strict=True):
        if holder is not None:
            held_most = holder.since <= trend.since + (after - trend.since) / 2
            return Release(holder, after, polls_after) if held_most else None
        after, polls_after = t, polls_after + 1
    return None


def released_at_turn(server_id: int, last: datetime, trend: Trend) -> Release | None:
    """The holder of the polls up to the segment's turn, found gone by one of its first RELEASE_POLLS polls: the
    history stopped growing when it went. One a single poll caught (open since after the poll before it) is none."""
    if trend.since is None:
        return None
    # The poll before the turn and RELEASE_POLLS after it, whatever the server's interval (an hour at most):
    # not the whole flat segment up to `last`, which may be days.
    span = timedelta(hours=1)
    read = query.within(server_id, [HISTORY], trend.since - span, min(last, trend.since + RELEASE_POLLS * span))
    ts = [t for s in read if s.metric == HISTORY for t, v in zip(s.ts, s.values, strict=True) if v is not None]
    turn = bisect_left(ts, trend.since)
    near = range(max(turn - 1, 0), min(turn + RELEASE_POLLS, len(ts)))
    held = None
    for k, holder in zip(near, holders_at(server_id, [ts[k] for k in near]), strict=True):
        if held is not None and holder is None:
            return Release(held, ts[k], 0) if held.since <= ts[max(k - 2, 0)] else None
        held = holder
    return None


@dataclass(frozen=True)
class TopWait:
    event: str
    per_second: float  # seconds waited per second at the last poll
    share: float


def top_wait_of(latest: dict, server_id: int, conditions: bool = False, client: bool = False) -> TopWait | None:
    """The wait with the biggest rate at the server's last poll, and its share of the waits ranked.

    Condition waits (topwaits.is_condition: the idle ones) are left out unless `conditions`, client time
    unless `client`: see topwaits.
    """
    rates = {m[len(TIME_PREFIX):]: v for (sid, m), (_, v) in latest.items()
             if sid == server_id and m.startswith(TIME_PREFIX) and v and v > 0}
    if not conditions:
        rates = {e: v for e, v in rates.items() if not is_condition(e)}
    if not client:
        rates = {e: v for e, v in rates.items() if not is_client(e)}
    if not rates:
        return None
    event = max(rates, key=lambda e: (rates[e], e))
    return TopWait(event, rates[event] / 1e12, rates[event] / sum(rates.values()))


def history_trend(server_id: int, end: datetime) -> Trend:
    """The history length's current segment and its slope, from every poll of the REACH up to `end`."""
    found = query.within(server_id, [HISTORY], end - REACH, end)
    polls = found[0] if found else Empty()
    return current_trend(polls.ts, polls.values)


def polls_back(server_id: int, metric: str, start: datetime, end: datetime) -> Iterator[tuple[datetime, float]]:
    """A gauge's readings in [start, end] as polled (never a chart's bucket min or max), newest first,
    read in windows growing back from `end` (store.query.polls_back) from the trend's reach."""
    return query.polls_back(server_id, metric, start, end, REACH)


def newest_polls(server_id: int, metrics: list[str], start: datetime, end: datetime,
                 span: timedelta = REACH) -> dict[str, float]:
    """Each gauge's newest reading in [start, end] as polled, for several at once: polls_back() of each, whose
    windows growing back from `end` (the first `span` long) are read for all the metrics not found yet in one
    store read each."""
    found: dict[str, float] = {}
    wanted = list(metrics)
    while wanted and start <= end:
        lo = max(start, end - span)
        for s in query.within(server_id, wanted, lo, end):
            newest = next((v for t, v in zip(reversed(s.ts), reversed(s.values), strict=True)
                           if v is not None and t >= lo), None)
            if newest is not None and s.metric in wanted:
                found[s.metric] = newest
        wanted = [m for m in wanted if m not in found]
        end, span = lo - query.TICK, span * 24  # as store.query.polls_back steps back
    return found


def recent(server_ids: list[int], metric: str, now: datetime, window: timedelta, points: int = 60):
    """server id -> recent points of one metric, for trends on the fleet page."""
    if not server_ids:
        return {}
    found = query.series(server_ids, [metric], now - window, now, max_points=points)
    return {s.server_id: s for s in found}


def recent_windows(ends: dict[int, datetime], metric: str, window: timedelta, points: int = 60):
    """server id -> points of one metric over the window up to each server's own end, in one store read."""
    if not ends:
        return {}
    found = query.series_windows([(sid, end - window, end) for sid, end in ends.items()], [metric],
                                   max_points=points)
    return {s.server_id: s for s in found}


OLDEST_TRX, READ_VIEW = "trx_oldest_age_s", "trx_read_view_age_s"


def holders_in(server_id: int, start: datetime, end: datetime) -> list:
    """Who held the oldest transaction at some time in [start, end], oldest first (collectors' events)."""
    return list(TrxHolder.objects.filter(server_id=server_id, started_at__lte=end)
                .filter(Q(ended_at__gte=start) | Q(ended_at=None)).order_by("started_at", "id"))


# Statement digests (store.statement_reads): their own table, read whole over a range.
DIGEST_LOST = "statements.digest_lost"
DIGESTS_SIZE = "statements.digests_size"
STMT_EXECUTE = "Com_stmt_execute"  # server-side prepared executions, which MariaDB's digest table leaves out
STATEMENT_SUMS = (TPS, STMT_EXECUTE)  # what statements_in() sums over the span its reads cover


@dataclass
class StatementsRange:
    """Every digest's sums over a range, the reads they came from, and the transactions those reads cover."""

    rows: list[statement_reads.DigestTotals]
    reads: list[tuple[datetime, int]]  # (end, interval ms) of each read in the range
    transactions: int | float | None  # tps deltas over the seconds the reads cover; None: unknown
    digest_lost: int | float | None = None  # statements that found the digest table full, over the range
    digests_size: float | None = None  # performance_schema_digests_size, as last read
    stmt_executions: int | float | None = None  # Com_stmt_execute over the same span (None: not collected)

    @property
    def covered(self) -> tuple[datetime, datetime] | None:
        """From the start of the first read's interval to the last read: what the sums are over."""
        if not self.reads:
            return None
        return self.reads[0][0] - timedelta(milliseconds=self.reads[0][1]), self.reads[-1][0]

    @property
    def seconds(self) -> float:
        return sum(ms for _, ms in self.reads) / 1000


def statements_in(server_id: int, start: datetime, end: datetime, with_overflow: bool = True,
                  digest_ids: list[int] | None = None, listed: list[tuple[datetime, int]] | None = None,
                  polls: WindowPolls | None = None) -> StatementsRange:
    """Digests over (start, end] (only those of digest_ids, when given). Transactions are counted over the
    reads' own span (the first read began before start), to the TPS poll at each edge: what a statement's
    time per transaction is divided by. listed: the range's reads (statement_reads.reads), when known;
    polls: a window's holding that span, read with STATEMENT_SUMS."""
    listed = statement_reads.reads(server_id, start, end) if listed is None else listed
    found = StatementsRange(statement_reads.totals(server_id, start, end, digest_ids), listed, None)
    span = found.covered or (start, end)
    sums = interval_sums(server_id, list(STATEMENT_SUMS), *span, polls)
    if found.covered is not None:
        found.transactions = sums.get(TPS, (None, 0.0))[0]
    found.stmt_executions = sums.get(STMT_EXECUTE, (None, 0.0))[0]
    if with_overflow:
        found.digest_lost = interval_totals(server_id, [DIGEST_LOST], start, end).get(DIGEST_LOST)
        found.digests_size = latest_value(server_id, DIGESTS_SIZE)
    return found


def statement_lines(server_id: int, digest_ids: list[int], start: datetime, end: datetime) -> dict[int, list[tuple]]:
    return statement_reads.lines(server_id, digest_ids, start, end)


def statement_bins(server_id: int, digest_ids: list[int], start: datetime, end: datetime,
                   count: int) -> dict[int, list[list[int]]]:
    """digest id -> per bin of bins_of(..., count) its [executions, time (ps)]: summed from the hourly rollups
    where an hour falls in one bin, so days are not decoded read by read."""
    return statement_reads.binned(server_id, digest_ids, start, end, count, ("execs", "time_ps"))


def statement_read_bins(server_id: int, start: datetime, end: datetime, count: int) -> Bins:
    """bins_of() of the reads of statements_in() over (start, end], from their epoch microseconds (the request
    keeps them: statement_reads.read_times) rather than a datetime per read."""
    ends_us, intervals_ms = statement_reads.read_times(server_id, start, end)
    return bins_at(ends_us, intervals_ms, start, end, count)


def statement_text(digest_id: int) -> statement_reads.Text | None:
    return statement_reads.text(digest_id)


def runs_with_statement(server_id: int, digest_id: int, runs: list) -> list[tuple]:
    """The runs (newest first, as given) during which a digest read holding this digest ended, each with the
    seconds the latest such read began before the run (0: one began inside it; more: it may have run before)."""
    ranges = [(run.started_at, run.ended_at or datetime.now(run.started_at.tzinfo)) for run in runs]
    seen = statement_reads.seen_in(server_id, digest_id, ranges)
    return [(run, before) for run, before in zip(runs, seen, strict=True) if before is not None]


READ_LATE = 1.5  # statement intervals: how long after a time the read holding it may end (the source's jitter)


def run_statements_through(runs: Sequence) -> dict[int, datetime]:
    """Per ended run (its server selected with it): where its Statements tab link ends. The tab sums the digest
    reads that end in its range, so the read that holds the run's end, ending up to an interval after it, counts
    the run's last seconds: the link runs to that read's end, else (none within READ_LATE intervals, or a gap in
    the reads) to the run's end."""
    ended = [run for run in runs if run.ended_at is not None]
    found = statement_reads.covering([
        (run.server_id, run.ended_at, run.ended_at + timedelta(seconds=READ_LATE * run.server.statements_interval))
        for run in ended])
    return {run.pk: through or run.ended_at for run, through in zip(ended, found, strict=True)}


def statements_inside(server_id: int, start: datetime, end: datetime,
                      polls: WindowPolls | None = None) -> StatementsRange:
    """The digests of the reads whose whole interval lies inside [start, end] (a run after its warm-up):
    the first read after the start measured mostly the time before it, as a run's first poll does.
    polls: the window's, read with STATEMENT_SUMS."""
    listed = statement_reads.reads(server_id, start, end)
    inside = [(ts, ms) for ts, ms in listed if ts - timedelta(milliseconds=ms) >= start]
    if not inside:
        return StatementsRange([], [], None)
    first = inside[0][0]  # the reads of (first - AFTER_START, end] are those listed from it on
    return statements_in(server_id, first - AFTER_START, end, with_overflow=False,
                         listed=[read for read in listed if read[0] >= first], polls=polls)


def run_statements(run, warmup: int | None = None, polls: WindowPolls | None = None) -> StatementsRange:
    """A run's digests after its warm-up (`warmup` seconds, else the run's own or the one found: run_warmup):
    the reads whose whole interval lies inside it. polls: that window's (summarize_run's), read with STATEMENT_SUMS."""
    window = polls.window if polls else run_window(run, run_warmup(run, warmup).seconds)
    return statements_inside(run.server_id, window.start, window.end, polls)


def statements_covering(server_id: int, start: datetime, end: datetime, interval_s: int) -> StatementsRange:
    """Where no read lies wholly inside [start, end] (a run shorter than two statements intervals): the reads that
    cover it, those ending in (start, end] and the one holding its end (ending up to READ_LATE intervals after),
    as a dip's link to the Statements tab sums them; their span (covered) begins before start."""
    through = statement_reads.covering([(server_id, end, end + timedelta(seconds=READ_LATE * interval_s))])[0]
    return statements_in(server_id, start, through or end, with_overflow=False)


def run_top_statements(run, limit: int, warmup: int | None = None,
                       found: StatementsRange | None = None, monitoring: bool = False) -> list[TopStatement]:
    """The run's top statements (the monitoring reads among them if monitoring); found: its run_statements(),
    when the page has read them already."""
    found = found or run_statements(run, warmup)
    return top_statements(found.rows, found.transactions, limit, monitoring)


def statements_changed(runs: list, limit: int, warmup: int | None = None,
                       found: dict | None = None) -> list[StatementDiff]:
    """The first two runs' statements by how much their time per transaction changed ([] for fewer runs);
    found: run id -> its run_statements(), those the page has read already."""
    if len(runs) < 2:
        return []
    a, b = ((found or {}).get(run.pk) or run_statements(run, warmup) for run in runs[:2])
    return changed_most(a.rows, b.rows, a.transactions, b.transactions, limit)


def statements_changed_context(runs: list, limit: int, warmup: int | None = None, found: dict | None = None) -> dict:
    """What _statements_changed.html shows, for the compare page and the compare report."""
    if len(runs) < 2:
        return {}
    query = {"runs": f"{runs[0].pk},{runs[1].pk}"} | ({} if warmup is None else {"warmup": warmup})
    csv = link("export-statements", query=query, safe=",")
    pair = {run.pk: (found or {}).get(run.pk) or run_statements(run, warmup) for run in runs[:2]}
    unseen = [(f"run {run.name}", count) for run in runs[:2]
              if (count := unseen_prepared(run.server.flavor, pair[run.pk]))]
    unread = [run for run in runs[:2] if not pair[run.pk].reads]  # its column is empty: say why
    return {"changed": statements_changed(runs, limit, warmup, pair), "changed_a": runs[0], "changed_b": runs[1],
            "changed_csv": csv, "changed_unseen": unseen, "changed_unread": unread}
