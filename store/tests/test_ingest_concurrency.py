"""Writing the same poll twice stores it once; concurrent writers lose nothing."""

import multiprocessing
import random
import threading
from datetime import timedelta

import pytest
from django.db import connection, connections

from store import query, redis_client
from store.ingest import write_samples
from testing.store import T0, polls, stored_rows


@pytest.mark.django_db
def test_it_stores_a_poll_written_twice_once():
    samples = polls(11, 30)
    write_samples(samples)
    write_samples(samples[10:20] + polls(11, 40)[30:])  # replays and new polls together
    write_samples(samples[:3] + samples[:3])  # duplicates within one call
    assert stored_rows([11]) == (40, 40)
    (s,) = query.series([11], ["Com_select"], T0, T0 + timedelta(hours=1), mode="delta")
    assert len(s.ts) == 39 and len(set(s.ts)) == 39


def _writer(server_ids: list[int], seed: int) -> None:
    """Write every poll of the servers, shuffled, in small overlapping batches."""
    samples = [s for sid in server_ids for s in polls(sid, 60)]
    random.Random(seed).shuffle(samples)
    for i in range(0, len(samples), 7):
        write_samples(samples[i:i + 11])
    connection.close()


def _process(server_ids: list[int], seed: int) -> None:
    redis_client.shared.cache_clear()  # never share the parent's Redis socket
    threads = [threading.Thread(target=_writer, args=(server_ids, seed * 10 + k)) for k in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


@pytest.mark.django_db(transaction=True)
def test_it_loses_nothing_with_concurrent_writer_processes_and_threads(store_tables_cleanup):
    servers = [21, 22, 23]
    connections.close_all()  # children must open their own connections
    ctx = multiprocessing.get_context("fork")
    procs = [ctx.Process(target=_process, args=(servers, seed)) for seed in range(2)]
    for p in procs:
        p.start()
    _process(servers, 99)  # and two threads in this process
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    assert stored_rows(servers) == (180, 180)
    for sid in servers:
        (s,) = query.series([sid], ["Threads_running"], T0, T0 + timedelta(hours=1), mode="delta")
        assert s.values == [v.values["Threads_running"] for v in polls(sid, 60)]


@pytest.mark.django_db(transaction=True)
def test_it_loses_nothing_when_late_samples_arrive_during_compaction(store_tables_cleanup):
    from store import compaction
    from store.ingest import flush_buffer

    on_time = polls(41, 720)  # two hours, 10 s apart
    late = polls(41, 720, t0=T0 + timedelta(seconds=5))  # a second collector, 5 s later, arriving late
    write_samples(on_time)
    later = T0 + timedelta(days=1)

    def compact_repeatedly():
        for _ in range(4):
            compaction.compact_closed(later)
        connection.close()

    def write_late():
        for i in range(0, len(late), 40):
            write_samples(late[i:i + 40] + on_time[i:i + 5])  # new polls and replays
        connection.close()

    threads = [threading.Thread(target=compact_repeatedly), threading.Thread(target=write_late)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    flush_buffer()  # anything a lock conflict sent to the buffer
    compaction.compact_closed(later)
    (s,) = query.series([41], ["Threads_running"], T0, later, max_points=10**6)
    assert s.ts == sorted(p.ts for p in on_time + late)
    assert stored_rows([41]) == (0, 0)  # everything compacted
