"""A large export streams: memory stays bounded by one chunk, not by the range."""

import tracemalloc
from datetime import timedelta

import pytest

from dashboards.export.csv_safe import iso_utc
from dashboards.export.params import parse_time
from store import query
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
DAYS = 1
POLLS = DAYS * 86_400 // 10
COUNTERS = [
    "tps", "qps", "Com_commit", "Com_rollback", "Com_select", "Com_insert", "Com_update", "Com_delete",
    "Innodb_rows_read", "Innodb_rows_inserted", "Innodb_rows_updated", "Innodb_rows_deleted",
    "Innodb_data_reads", "Innodb_data_writes", "Innodb_log_writes", "Innodb_os_log_written",
    "Bytes_received", "Bytes_sent", "Questions", "Handler_read_key",
]


def polls(server_id: int):
    for i in range(1, POLLS + 1):
        values = {name: 1000 + (i * (n + 7919)) % 5000 for n, name in enumerate(COUNTERS)}
        yield Sample(server_id, "global_status", data.RECENT_T0 + timedelta(seconds=10 * i), 10.0, values,
                     frozenset(values))


def write_all(server_id: int) -> None:
    batch = []
    for sample in polls(server_id):
        batch.append(sample)
        if len(batch) == 5000:
            write_samples(batch)
            batch = []
    write_samples(batch)


def peak_of_reading_it_all(server_id: int, params: dict) -> int:
    """What the range takes in memory when read at once: the yardstick for the stream."""
    start, end = parse_time(params["from"], "from"), parse_time(params["to"], "to")
    tracemalloc.start()
    try:
        found = query.series([server_id], COUNTERS, start, end, max_points=10**6)
        assert sum(len(s.values) for s in found) == POLLS * len(COUNTERS)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_it_streams_a_day_of_twenty_series_in_bounded_memory(client, admin_user):
    client.force_login(admin_user)
    server = data.make_server("big")
    write_all(server.pk)
    params = {"server": "big", "metrics": ",".join(COUNTERS), "full": 1,
              "from": iso_utc(data.RECENT_T0), "to": iso_utc(data.RECENT_T0 + timedelta(days=DAYS))}
    warm_up = {**params, "to": iso_utc(data.RECENT_T0 + timedelta(minutes=5))}  # one-off imports and caches
    b"".join(client.get("/export.csv", warm_up).streaming_content)
    whole = peak_of_reading_it_all(server.pk, params)
    tracemalloc.start()
    try:
        response = client.get("/export.csv", params)
        assert response.status_code == 200
        size = rows = pieces = 0
        first_chunk_peak = None
        for piece in response.streaming_content:
            size += len(piece)
            rows += piece.count(b"\n")
            pieces += 1
            if pieces == 2:  # the header, then the first rows: one store chunk has been read
                first_chunk_peak = tracemalloc.get_traced_memory()[1]
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    print(f"\nexport of {rows - 1} rows x {len(COUNTERS)} series: {size / 1e6:.1f} MB of CSV, "
          f"peak traced memory {peak / 1e6:.2f} MB (after the first chunk: {first_chunk_peak / 1e6:.2f} MB); "
          f"reading the range in one query peaks at {whole / 1e6:.1f} MB")
    assert rows == 1 + POLLS
    assert peak < whole / 4
    # And the peak is set by the first chunk, not by how much has been streamed.
    assert peak < 1.5 * first_chunk_peak
