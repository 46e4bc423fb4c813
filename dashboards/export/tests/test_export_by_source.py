"""A source's columns bucketed together (export.by_source) give the file the one-column-at-a-time path gives."""

from datetime import timedelta

import pytest

from dashboards.export import by_source, params
from dashboards.export import series as export_series
from dashboards.export.csv_safe import iso_utc
from store import compaction, read_matrix
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
START = data.RECENT_T0
HOURS = 3
TIMER = f"wait.time_ps:{data.TRX_SYS}"


def status(server_id: int, i: int, at, interval: float | None) -> Sample:
    """A poll with jitter's consequences: rates that are not whole, a counter missing now and then, a metric
    that appears later (a new layout), a fractional gauge; no deltas on a first reading."""
    values = {"tps": 5000 + (i * 37) % 101, "Com_select": (i * 13) % 7, "Threads_running": 1 + i % 5,
              "Innodb_buffer_pool_pages_free": 10**6 - i, "load": 0.5 + (i % 8) / 16}
    if i % 11 == 4:
        del values["Com_select"]
    if i > 700:
        values["Com_insert"] = i % 3
    counters = {"tps", "Com_select", "Com_insert"} & set(values)
    if interval is None:
        values = {k: v for k, v in values.items() if k not in counters}
    return Sample(server_id, "global_status", at, interval, values, frozenset(counters) if interval else frozenset())


def waits(server_id: int, i: int, at, interval: float | None) -> Sample:
    values = {TIMER: i * 123_456_789 % 10**11, f"wait.count:{data.TRX_SYS}": i % 4}
    return Sample(server_id, "pfs_waits", at, interval, values, frozenset(values) if interval else frozenset())


def write(server_id: int, offset_ms: int) -> list[Sample]:
    """HOURS of polls every 10 s (each 0-400 ms late), an outage of 3 minutes in the second hour."""
    samples, before = [], None
    for i in range(HOURS * 360):
        if 420 <= i < 438:
            before = None
            continue
        at = START + timedelta(seconds=10 * i, milliseconds=offset_ms + (i * 131) % 400)
        interval: float | None = None if before is None else (at - before).total_seconds()
        samples += [status(server_id, i, at, interval), waits(server_id, i, at, interval)]
        before = at
    write_samples(samples)
    return samples


@pytest.fixture
def two_servers(admin_user, client):
    client.force_login(admin_user)
    written = [write(data.make_server(name).pk, offset) for name, offset in (("db1", 0), ("db2", 3_700))]
    compaction.compact_closed(START + timedelta(hours=HOURS - 1, minutes=10))  # the last hour stays hot
    write_samples(written[0][300:306])  # db1's polls of a compacted hour written again: held twice


def csv_text(client, **params) -> str:
    response = client.get("/export.csv", {"server": ["db1", "db2"], "from": iso_utc(START),
                                          "to": iso_utc(START + timedelta(hours=HOURS)), **params})
    assert response.status_code == 200, response.content
    return b"".join(response.streaming_content).decode()


@pytest.mark.parametrize("params", [
    {"metrics": "*", "full": 1},
    {"metrics": "*", "full": 1, "mode": "delta"},
    {"metrics": "*", "full": 1, "minmax": 1, "seconds": 1},
    {"metrics": "tps,Threads_running,wait.*", "step": 60, "minmax": 1},
    {"metrics": "*", "step": 25, "mode": "delta", "seconds": 1},
    {"metrics": "Com_*,load", "step": 900},
])
@pytest.mark.parametrize("chunk", [None, 47])  # 47 rows a chunk: an hour read in several, kept decoded between
def test_it_writes_the_file_the_per_column_path_writes(client, two_servers, monkeypatch, params, chunk):
    if chunk:
        monkeypatch.setattr(export_series, "CHUNK_POINTS", chunk)
        monkeypatch.setattr(export_series, "MIN_CHUNK_ROWS", 1)
    together = []
    columns = by_source.columns

    def counted(*args):
        found = columns(*args)
        together.append(len(found))
        return found

    monkeypatch.setattr(by_source, "columns", counted)
    take, reused = read_matrix.HoursKept.take, []
    monkeypatch.setattr(read_matrix.HoursKept, "take", lambda kept, *a: reused.append(take(kept, *a)) or reused[-1])
    fast = csv_text(client, **params)
    assert sum(together) > 0  # the test compares something
    if chunk and "full" in params:
        assert any(reused)  # an hour read by several chunks was decoded once
    monkeypatch.setattr(by_source, "columns", lambda *args: [])
    monkeypatch.setattr(by_source, "first_points", lambda *args: None)  # series() finds the first polls
    assert fast == csv_text(client, **params)
    assert len(fast.splitlines()) > 10


@pytest.mark.parametrize("metrics", ["*", "tps,Threads_running,wait.*,load"])  # with and without Com_select
@pytest.mark.parametrize("mode", ["rate", "delta"])
@pytest.mark.parametrize("minutes", [0, 69, 71, 73, 74, 125, 150])  # the start, an outage (70-73), hot rows
def test_it_finds_the_first_polls_series_finds(two_servers, metrics, mode, minutes):
    start = START + timedelta(minutes=minutes, seconds=3)
    export = params.series_export(["db1", "db2"], [metrics], iso_utc(start), iso_utc(start + timedelta(hours=1)),
                                  mode=mode, full=True)
    cols = export_series.columns(export)
    assert export_series.first_polls(export, by_source.Carry(cols)) == export_series.first_polls(export)
    quick = by_source.first_points(export, by_source.Carry(cols), export.start,
                                   export.start + timedelta(seconds=100), 102)
    if metrics != "*":  # (with Com_select, missing at some polls, the rates are often left to series())
        # a first reading (the data's start, the end of the outage) has no counter: series() finds the rate's
        assert (quick is None) == (mode == "rate" and minutes in (0, 73))
