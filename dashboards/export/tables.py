"""The rows of the table exports: top waits (one or two intervals), run summaries, the fleet, the runs."""

from collections.abc import Iterable, Iterator
from datetime import datetime

from collectors.metric import PS_PER_S
from dashboards.analysis.own_load import others_share
from dashboards.analysis.per_transaction import PS_PER_MS, PerTransaction
from dashboards.analysis.run_summary import ratio
from dashboards.analysis.topwaits import WaitDiff, WaitRow
from dashboards.export.grid import rounded
from dashboards.reports.scalability import Study
from dashboards.reports.summary import RunSummary
from dashboards.server_texts import TpsBasis
from servers.models import Annotation

WAIT_HEADER = ["rank", "event", "time waited (s)", "share of time waited (%)", "count",
               "avg wait (us)", "time waited (ps)"]
DIFF_HEADER = ["event", "A waited (s per s)", "B waited (s per s)", "difference B-A (s per s)",
               "ratio B/A of the rates", "A waited per transaction (us)", "B waited per transaction (us)",
               "ratio B/A per transaction", "A time waited (s)", "A count", "A share (%)", "B time waited (s)",
               "B count", "B share (%)", "A time waited (ps)", "B time waited (ps)"]
RUN_HEADER = ["run id", "run", "server", "from (UTC, after the warm-up)", "ended (UTC)", "duration (s)", "avg TPS (/s)",
              "p5 TPS (/s)", "p95 TPS (/s)", "median TPS (/s)", "TPS CV", "avg QPS (/s)", "transactions",
              "max history list length", "TPS ratio to first", "warm-up trimmed (s)",
              "waits per transaction (ms, condition waits left out)", "host CPU per transaction (ms)",
              "seconds covered by the TPS polls inside (s)",  # avg TPS = transactions / these
              "seconds both sources cover (waits per transaction)",
              "seconds both sources cover (host CPU per transaction)",
              # Appended, so the columns before keep their places: as the compare page shows them, what the server's TPS
              # counted, and the load's own count the A/B ratio reads where other clients ran (ab_verdict).
              "TPS counts", "load's own TPS (/s)", "other clients (share of server TPS)"]
# The page's per-transaction figures: transactions (tps deltas) in the interval, time waited in the waits
# listed / transactions, host CPU not idle nor iowait (node_exporter) / transactions, each over the seconds the
# source and TPS both cover (then those seconds); empty where unknown.
PER_TRX_HEADER = ["transactions in interval", "waits per transaction in interval (ms, all waits listed)",
                  "host CPU per transaction in interval (ms)", "seconds both sources cover (waits per transaction)",
                  "seconds both sources cover (host CPU per transaction)"]
# Appended after every other column, so the columns before keep their places: the transactions each figure
# divides by (those of the seconds both sources cover), where a source missed a poll not the interval's.
SHARED_TRX_HEADER = ["transactions both sources cover (waits per transaction)",
                     "transactions both sources cover (host CPU per transaction)"]
ANNOTATION_HEADER = ["time (UTC)", "server", "run", "text"]
HOLDER_HEADER = ["thread", "user", "host", "from (UTC)", "last seen (UTC)", "ended by (UTC)", "held for (s)",
                 "state", "isolation", "statement", "idle"]
FLEET_HEADER = ["server", "address", "state", "why", "version", "TPS now (/s)", "replica lag now (s)",
                "replica threads stopped", "history list length now",
                "history trend (per min, since the last turn)", "top wait now", "top wait (s per s)",
                "top wait share (%)", "alerts firing", "tags",
                # Appended, so the columns before keep their places: when each figure was read.
                "TPS read at (UTC)", "history length read at (UTC)", "top wait read at (UTC)",
                "history trend fitted over (s)", "history trend since (UTC)", "CPU busy now (%)",
                "CPU busy read at (UTC)",
                # As the page says them under "TPS now" and "top wait now".
                "TPS counts", "wait instruments off (their waits are not counted)"]


def _wait_cells(row: WaitRow | None) -> list:
    if row is None:
        return [0, 0, 0]
    return [row.time_ps / PS_PER_S, row.count, row.share * 100]


def per_trx_cells(pt: PerTransaction) -> list:
    return [pt.transactions, pt.wait_ms, pt.cpu_ms, pt.wait_seconds, pt.cpu_seconds]


def shared_trx_cells(pt: PerTransaction) -> list:
    return [pt.wait_transactions, pt.cpu_transactions]


def wait_ms_per_trx(row: WaitRow | None, pt: PerTransaction) -> float | None:
    """One event's milliseconds waited per transaction, over the seconds the wait summary and TPS both cover: they
    add up to the interval's waits per transaction."""
    if pt.wait_ms is None:
        return None
    return pt.event_ps.get(row.event, 0.0) / PS_PER_MS if row else 0.0


def topwaits_rows(waits: list[WaitRow], pt: PerTransaction) -> Iterator[list]:
    yield WAIT_HEADER + ["time waited per transaction (ms)"] + PER_TRX_HEADER + SHARED_TRX_HEADER
    for rank, row in enumerate(waits, start=1):
        avg = None if row.avg_ps is None else row.avg_ps / 1e6
        yield [rank, row.event, row.time_ps / PS_PER_S, row.share * 100, row.count, avg, row.time_ps,
               wait_ms_per_trx(row, pt), *per_trx_cells(pt), *shared_trx_cells(pt)]


def topwaits_diff_rows(diffs: list[WaitDiff], a: PerTransaction, b: PerTransaction) -> Iterator[list]:
    yield (DIFF_HEADER + [f"A {h}" for h in PER_TRX_HEADER] + [f"B {h}" for h in PER_TRX_HEADER]
           + [f"A {h}" for h in SHARED_TRX_HEADER] + [f"B {h}" for h in SHARED_TRX_HEADER])
    for d in diffs:
        yield [d.event, d.a_rate / PS_PER_S, d.b_rate / PS_PER_S, d.rate_diff / PS_PER_S, d.ratio,
               _us(d.a_per_trx), _us(d.b_per_trx), d.per_trx_ratio, *_wait_cells(d.a), *_wait_cells(d.b),
               d.a.time_ps if d.a else 0, d.b.time_ps if d.b else 0, *per_trx_cells(a), *per_trx_cells(b),
               *shared_trx_cells(a), *shared_trx_cells(b)]


def _us(ps: float | None) -> float | None:
    return None if ps is None else ps / 1e6


def compare_rows(summaries: list[RunSummary], per_trx: list[PerTransaction], bases: list[TpsBasis | None],
                 own: list[float | None]) -> Iterator[list]:
    """The seeds' hand-built table: one run a row, TPS ratio to the first run, its per-transaction costs, what its
    server's TPS counted (bases) and the load's own TPS (own: None where it kept no count over the same span)."""
    yield RUN_HEADER
    reference = summaries[0].tps.mean if summaries else None
    for s, pt, basis, mine in zip(summaries, per_trx, bases, own, strict=True):
        yield [s.run.pk, s.run.name, s.run.server.name, to_second(s.start), to_second(s.run.ended_at),
               to_ms(s.seconds), s.tps.mean, s.tps.p5, s.tps.p95, s.tps.median, s.tps.cv, s.qps, s.transactions,
               s.max_history, ratio(s.tps.mean, reference), s.warmup, pt.wait_ms, pt.cpu_ms, to_ms(s.covered),
               to_ms(pt.wait_seconds), to_ms(pt.cpu_seconds), tps_counts(basis), mine, others_share(s.tps.mean, mine)]


def annotation_rows(annotations: Iterable[Annotation]) -> Iterator[list]:
    yield ANNOTATION_HEADER
    for a in annotations:
        yield [to_second(a.at), a.server.name if a.server else "", a.run.name if a.run else "", a.text]


LEVEL_HEADER = ["curve", "label", "server", "threads", "run id", "run", "window start (UTC)", "window end (UTC)",
                "samples", "seconds covered", "transactions", "avg TPS (/s)", "p5 TPS (/s)", "p95 TPS (/s)",
                "TPS ratio to first curve", "gain per added thread (share of first level's TPS per thread)",
                "knee", "server variables differing from first curve", "server variables changed during the curve",
                "load's own TPS (/s)", "other clients (share of server TPS)",
                "efficiency (TPS per thread / first level's)", "QPS (/s)", "response avg (ms)", "response p95 (ms)",
                "errors", "USL fit TPS at this level (/s)"]


CPU_COLUMN = "host CPU per transaction (ms)"
# After the CPU column, so the columns before keep their places: the TPS the ratio, gain, knee, efficiency and
# fit read, so each recomputes from the rows (the server's, or the load's own where the curve says so).
RATE_COLUMNS = ["TPS the ratio, gain, knee and efficiency read (/s)", "that TPS is (server or own)"]
# Whether the host's CPUs were full at the level: a knee there is the CPU's, not contention (cpu_saturation).
HOST_COLUMNS = ["host CPU busy (% of all CPUs)", "host CPUs"]


def scalability_rows(study: Study) -> Iterator[list]:
    """One row per level of every curve, the host CPU (ms per transaction, busy share) and the top waits (µs) per
    transaction last."""
    waits_header = [f"{event} (µs per transaction)" for event in study.events]
    yield LEVEL_HEADER + [CPU_COLUMN] + RATE_COLUMNS + HOST_COLUMNS + waits_header
    ratios = {(c["level"].run.pk): c["ratio"] for row in study.table for c in row["cells"] if c["level"]}
    for section in study.sections:
        curve = section["curve"]
        differs = "; ".join(f"{c['name']}: {c['before']} -> {c['after']}" for c in section["changes"])
        moved = "; ".join(section["moved"])
        for row in section["levels"]:
            lv = row["level"]
            waits = [None if lv.wait_per_trx(e) is None else lv.wait_per_trx(e) / 1e6 for e in study.events]
            own, fit = lv.own, section["fit"]
            yield [curve.name, curve.label, lv.run.server.name, lv.concurrency, lv.run.pk, lv.run.name,
                   to_second(lv.window.start), to_second(lv.window.end), lv.tps.samples, to_ms(lv.tps.seconds),
                   lv.tps.transactions,
                   lv.tps.avg, lv.tps.p5, lv.tps.p95, ratios.get(lv.run.pk), row["gain"],
                   knee_cell(row), differs, moved, own.tps if own else None, lv.others,
                   row["efficiency"], lv.server_qps, own.latency_avg_ms if own else None,
                   own.latency_p95_ms if own else None, own.errors if own else None,
                   fit.predict(lv.concurrency) if fit else None, lv.cpu_ms_per_trx,
                   lv.rate, "own" if lv.by_own else "server", lv.cpu_busy_pct, lv.cpus, *waits]


def holder_rows(holders: Iterable) -> Iterator[list]:
    """The purge page's holders table (collectors.models.TrxHolder): ended by = the first poll without it.

    Held for is the span observed, from its start to the last poll that saw it, as on the page: nothing
    was seen after, and the first poll without it may come only after an outage.
    """
    yield HOLDER_HEADER
    for h in holders:
        yield [h.thread_id, h.user, h.host, to_second(h.started_at), to_second(h.seen_at), to_second(h.ended_at),
               to_tenth((h.seen_at - h.started_at).total_seconds()), h.state, h.isolation, h.statement, int(h.idle)]


def fleet_table_rows(rows: Iterable, bases: Iterable[TpsBasis | None]) -> Iterator[list]:
    """The fleet page's table (dashboards.fleet_rows.FleetRow), one server a row, with what each server's TPS
    counts (server_texts.tps_basis_of).

    Its figures in the page's units, to 6 significant digits as the series export writes the same readings
    (grid.rounded): a TPS of 1000 transactions in 7 s is 142.857 (the page says 142.9), not 142.85714285714286.
    """
    yield FLEET_HEADER
    for r, basis in zip(rows, bases, strict=True):
        wait = r.top_wait
        replica = r.replica
        yield [r.server.name, r.server.address, r.state.name, r.state.why, r.server.version, rounded(r.tps),
               rounded(replica.lag_s) if replica else None, "; ".join(replica.stopped) if replica else None,
               rounded(r.history), rounded(r.history_per_min), wait.event if wait else None,
               rounded(wait.per_second) if wait else None, rounded(wait.share * 100) if wait else None,
               "; ".join(r.alerts), ", ".join(r.server.tags),
               to_second(r.at.get("tps")), to_second(r.at.get("history")), to_second(r.at.get("top_wait")),
               to_tenth(r.trend.span.total_seconds()) if r.history_per_min is not None else None,
               to_second(r.trend.since) if r.history_per_min is not None else None, rounded(r.cpu_busy),
               to_second(r.at.get("cpu")), tps_counts(basis), r.waits_off]


def tps_counts(basis: TpsBasis | None) -> str | None:
    """What the TPS counts, in the page's words (dashboards/views/fleet_table.py basis_html)."""
    if basis is None:
        return None
    return f"{basis.short}: autocommit statements are not counted" if basis.explicit_only else basis.short


def to_second(ts: datetime | None) -> datetime | None:
    """A time as the pages say it (%H:%M:%S) and the series export labels rows: whole seconds, which a
    spreadsheet reads as a time (with microseconds it reads text)."""
    return ts.replace(microsecond=0) if ts else None


def to_ms(seconds: float | None) -> float | None:
    """Seconds summed from polls' intervals (milliseconds) to the millisecond: 10.1 + 10.2 + 10.3 is written 30.6,
    not 30.599999999999998."""
    return None if seconds is None else round(seconds, 3)


def to_tenth(seconds: float) -> float:
    """A span between polls' times (microseconds) to 0.1 s: fitted over 24.988738 s is written 25."""
    return round(seconds, 1)


def knee_cell(row: dict) -> str:
    """The level's knee column: a curve that gained at every step has no knee, its last level is "still scaling"."""
    return "knee" if row["knee"] else "still scaling" if row["scaling"] else ""
