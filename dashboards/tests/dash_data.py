"""Dashboard test data: a server's polls written through the store's public ingest."""

from datetime import UTC, datetime, timedelta

import pytest

from monitor.models import Server
from store.ingest import write_samples
from store.sample import Sample
from store.testing import reset_caches

TRX_SYS = "wait/synch/mutex/innodb/trx_sys_mutex"
LOG_SYS = "wait/synch/rwlock/innodb/log_sys_lock"
DATA_IO = "wait/io/file/innodb/innodb_data_file"
MUTEX = "trx0sys.cc:123"
EVIL = "<script>alert(1)</script>"


@pytest.fixture(autouse=True)
def fresh_store():
    """The store caches metric ids per process; tests roll the database back under it."""
    reset_caches()
    yield
    reset_caches()


def make_server(name: str = "db1", **kw) -> Server:
    return Server.objects.create(name=name, host="127.0.0.1", user="steady", poll_interval=10, **kw)


def tps_at(i: int, dip: range = range(30, 36)) -> int:
    """About 500 TPS with a wobble, and a stall (a dip) in the middle."""
    return 60 if i in dip else 5000 + (i * 7919) % 700


def polls(server_id: int, start: datetime, n: int, step: int = 10, events: tuple = (TRX_SYS, LOG_SYS, DATA_IO),
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
