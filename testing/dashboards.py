"""Dashboards test data: a server's polls of every source the pages draw, a run's samples for the
export and report tests (both written through the store's public ingest), and tiny series for the
pure-function tests (shaped like store.query.Series)."""

import csv
import io
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from servers.models import Server
from store.ingest import write_samples
from store.sample import Sample
from testing.servers import make_server

__all__ = ["make_server"]  # re-exported: the tests make their servers through this module

TRX_SYS = "wait/synch/mutex/innodb/trx_sys_mutex"
LOG_SYS_LOCK = "wait/synch/rwlock/innodb/log_sys_lock"  # MariaDB 10.x / MySQL 5.7 name
LOG_SYS_MUTEX = "wait/synch/mutex/innodb/log_sys_mutex"  # MySQL 5.6 / MariaDB 10.0 name
DATA_IO = "wait/io/file/innodb/innodb_data_file"
MUTEX = "trx0sys.cc:123"
EVIL = "<script>alert(1)</script>"
# A fixed instant for the pure-function tests.
T0 = datetime(2026, 1, 5, 12, 0, tzinfo=UTC)
# Two days ago on the hour: inside the store's retention, so it reads full
# resolution and 1-minute rollups as it would for a recent run.
RECENT_T0 = datetime.now(UTC).replace(minute=0, second=0, microsecond=0) - timedelta(days=2)


@dataclass
class Pts:
    ts: list = field(default_factory=list)
    values: list = field(default_factory=list)


def every(seconds: int, values: list, start: datetime = T0) -> Pts:
    return Pts([start + timedelta(seconds=i * seconds) for i in range(len(values))], list(values))


def tps_at(i: int, dip: range = range(30, 36)) -> int:
    """About 500 TPS with a wobble, and a stall (a dip) in the middle."""
    return 60 if i in dip else 5000 + (i * 7919) % 700


def polls(server_id: int, start: datetime, n: int, step: int = 10, events: tuple = (TRX_SYS, LOG_SYS_LOCK, DATA_IO),
          growth: int = 25) -> list[Sample]:
    """n polls of every source the dashboards draw; the first carries no deltas."""
    out = [Sample(server_id, "variables", start, None, {"var:innodb_max_purge_lag": 50_000.0})]
    for i in range(n):
        ts = start + timedelta(seconds=step * i)
        out.append(Sample(server_id, "history_length", ts, None, {"history_list_length": 1000 + growth * i}))
        if i == 0:
            out.append(Sample(server_id, "innodb_metrics", ts, None, {"innodb_metrics:purge_dml_delay_usec": 0}))
            out.append(Sample(server_id, "global_status", ts, None, {"Threads_running": 4}))
            continue
        tps = tps_at(i)
        status = {"tps": tps, "qps": tps * 9, "Com_commit": tps}
        out.append(Sample(server_id, "global_status", ts, float(step), {**status, "Threads_running": 4 + i % 3},
                          frozenset(status)))
        waits = {}
        for k, event in enumerate(events):
            waits[f"wait.time_ps:{event}"] = (3 - k % 3) * 10**12 * step // 4 + i * 10**9
            waits[f"wait.count:{event}"] = 1000 * (3 - k % 3) + i
        out.append(Sample(server_id, "pfs_waits", ts, float(step), waits, frozenset(waits)))
        mutex = {f"mutex.waits:{MUTEX}": 50 + i % 20}
        out.append(Sample(server_id, "innodb_mutex", ts, float(step), mutex, frozenset(mutex)))
        purge = {"innodb_metrics:purge_del_mark_records": 400 + i % 50}
        out.append(Sample(server_id, "innodb_metrics", ts, float(step),
                          {**purge, "innodb_metrics:purge_dml_delay_usec": 0}, frozenset(purge)))
    return out


def write_polls(server: Server, n: int = 90, end: datetime | None = None, step: int = 10, **kw) -> datetime:
    """Write n polls ending at `end` (default: now); return the first poll's time."""
    end = end or datetime.now(UTC)
    start = end - timedelta(seconds=step * (n - 1))
    write_samples(polls(server.pk, start, n, step, **kw))
    return start


def tps_delta(i: int, base: int = 5000) -> int:
    """A wobbly TPS line with a dip to ~30 % every 60 polls: deterministic, not flat."""
    wobble = base + (i * 7919) % 900
    return wobble * 3 // 10 if i % 60 == 30 else wobble


def global_status(server_id: int, start: datetime, polls: int, interval: float = 10.0, base: int = 5000):
    """tps/qps/Com_commit counters and a Threads_running gauge; the first poll has no deltas."""
    for i in range(polls):
        ts = start + timedelta(seconds=interval * i)
        gauges = {"Threads_running": 8 + i % 5}
        if i == 0:
            yield Sample(server_id, "global_status", ts, None, gauges)
            continue
        tps = tps_delta(i, base)
        counters = {"tps": tps, "qps": tps * 9 + i % 7, "Com_commit": tps - i % 3}
        yield Sample(server_id, "global_status", ts, interval, {**counters, **gauges}, frozenset(counters))


def pfs_waits(server_id: int, start: datetime, polls: int, interval: float = 10.0, scale: int = 1):
    """Picosecond timers beyond 2**63 after a few polls' sums: Python ints all the way."""
    for i in range(1, polls):
        ts = start + timedelta(seconds=interval * i)
        values = {
            f"wait.time_ps:{TRX_SYS}": scale * (4 * 10**12 + i * 10**9), f"wait.count:{TRX_SYS}": 40_000 + i,
            f"wait.time_ps:{LOG_SYS_MUTEX}": scale * (10**12 + i * 10**8), f"wait.count:{LOG_SYS_MUTEX}": 9_000 + i,
            f"wait.time_ps:{DATA_IO}": scale * 3 * 10**11, f"wait.count:{DATA_IO}": 700,
        }
        yield Sample(server_id, "pfs_waits", ts, interval, values, frozenset(values))


def history(server_id: int, start: datetime, polls: int, interval: float = 10.0, growth: int = 40):
    for i in range(polls):
        ts = start + timedelta(seconds=interval * i)
        yield Sample(server_id, "history_length", ts, None, {"history_list_length": 1000 + growth * i})


def mutexes(server_id: int, start: datetime, polls: int, interval: float = 10.0):
    """SHOW ENGINE INNODB MUTEX waits (5.7 names), busier in the second half."""
    for i in range(1, polls):
        ts = start + timedelta(seconds=interval * i)
        busy = 2 if i > polls // 2 else 1
        values = {"mutex.waits:trx_sys": busy * (300 + i % 40), "mutex.waits:buf_pool": 120 + i % 25,
                  "mutex.waits:log_sys": 60 + i % 10}
        yield Sample(server_id, "innodb_mutex", ts, interval, values, frozenset(values))


def purge(server_id: int, start: datetime, polls: int, interval: float = 10.0):
    """INNODB_METRICS purge counters (enabled) and the DML delay gauge."""
    for i in range(1, polls):
        ts = start + timedelta(seconds=interval * i)
        counters = {"innodb_metrics:purge_del_mark_records": 4000 + i % 300,
                    "innodb_metrics:purge_undo_log_pages": 250 + i % 20, "innodb_metrics:purge_invoked": 10}
        values = {**counters, "innodb_metrics:purge_dml_delay_usec": 0 if i < polls // 2 else 50}
        yield Sample(server_id, "innodb_metrics", ts, interval, values, frozenset(counters))


def variables(server_id: int, ts: datetime, values: Mapping[str, float]) -> Sample:
    return Sample(server_id, "variables", ts, None, {f"var:{k}": v for k, v in values.items()})


# Ten minutes of a server's run data, every 10 s from RECENT_T0 (ten_minutes()).
TEN_MINUTES_POLLS = 61
TEN_MINUTES = (RECENT_T0, RECENT_T0 + timedelta(seconds=10 * (TEN_MINUTES_POLLS - 1)))


def ten_minutes(name: str = "db1"):
    """A server polled every 10 s over TEN_MINUTES: TPS, waits, history, mutexes and purge (write_run_data)."""
    server = make_server(name, poll_interval=10)
    write_run_data(server.pk, TEN_MINUTES[0], TEN_MINUTES_POLLS)
    return server


def at_pfs_defaults(start: datetime, instruments: Mapping[str, float] | None = None) -> Server:
    """A MariaDB 10.11 polled every 10 s for the 5 minutes from `start` at performance_schema's defaults (ON): all
    288 wait/synch instruments off in each of its six minutely instrument reads (more counts: `instruments`)."""
    server = make_server("pfs-defaults", poll_interval=10, flavor="mariadb", version="10.11.19")
    write_polls(server, 30, end=start + timedelta(minutes=5))
    counts = {"wait.instruments_off:wait/synch": 288, "wait.instruments:wait/synch": 288, **(instruments or {})}
    write_samples([Sample(server.pk, "wait_instruments", start + timedelta(seconds=60 * k), None, counts)
                   for k in range(6)])
    return server


def write_run_data(server_id: int, start: datetime, polls: int, base: int = 5000, wait_scale: int = 1) -> None:
    write_samples([
        *global_status(server_id, start, polls, base=base), *pfs_waits(server_id, start, polls, scale=wait_scale),
        *history(server_id, start, polls), *mutexes(server_id, start, polls), *purge(server_id, start, polls),
    ])


def get_csv(client, url: str, **params) -> list[list[str]]:
    """A CSV download's rows (a streamed response), after checking it answered 200."""
    response = client.get(url, params)
    assert response.status_code == 200, response.content
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode(), newline="")))


def fleet_replica_cell(body: str, server_name: str) -> str:
    """The replica lag cell of one server's row on the fleet page."""
    row = body.split(f"<strong>{server_name}</strong>")[1].split("</tr>")[0]
    return row.split('<td class="num replica">')[1].split("</td>")[0]


def figures(response) -> dict:
    """The page's Plotly figures by element id, as its JSON script tag sends them."""
    html = response.content.decode()
    tag = '<script id="figures" type="application/json">'
    start = html.index(tag) + len(tag)
    return json.loads(html[start:html.index("</script>", start)])


def csv_rows(admin_client, url: str) -> list[list[str]]:
    response = admin_client.get(url.replace("&amp;", "&"))
    assert response.status_code == 200, response.content
    return list(csv.reader(io.StringIO(b"".join(response.streaming_content).decode(), newline="")))
