"""Two Celery workers against one Redis and PostgreSQL, one killed with SIGKILL mid-run.

The 20 targets are real monitored servers as far as the workers can tell: 20 registry
entries, all pointing at the suite's MariaDB (one monitoring connection each per worker).
The test process is the beat: it runs the dispatcher a few times a second.
"""

import signal
from datetime import UTC, datetime, timedelta

import pytest

from store import query
from testing.child_env import child_env
from testing.scale_out import beat_until, due_time_faults, polled_since, run_beat
from testing.workers import connections_to, start_worker, stop_worker, wait_alive

TARGETS, INTERVAL = 20, 3  # seconds
pytestmark = pytest.mark.serial  # the takeover is timed against the interval
HEARTBEAT = "1"  # seconds a killed worker still counts as alive (6 in production)


@pytest.fixture
def workers(tmp_path, transactional_db):
    env = child_env(COLLECTORS_HEARTBEAT_TTL=HEARTBEAT, COLLECTORS_BATCH_SIZE="5")
    procs = [start_worker(name, env, tmp_path / f"{name}.log") for name in ("w1", "w2")]
    try:
        wait_alive(["w1", "w2"], procs)
        yield procs
    finally:
        for proc in procs:
            stop_worker(proc)


def test_two_workers_poll_each_due_time_once_and_the_survivor_takes_over(make_server, mariadb, load, workers):
    servers = [make_server(f"scale-{i:02d}", mariadb.port, poll_interval=INTERVAL) for i in range(TARGETS)]
    ids = {s.id for s in servers}
    start = datetime.now(UTC)
    beat_until(lambda: polled_since(start) >= ids, timeout=10)  # every server's first poll: the baselines
    assert polled_since(start) == ids
    load.transactions(commits=40)
    run_beat(2 * INTERVAL)
    assert all(connections_to(w, mariadb.port) > 0 for w in workers)  # both of them polled
    load.transactions(commits=30)
    workers[0].send_signal(signal.SIGKILL)
    workers[0].wait()
    killed = datetime.now(UTC)
    beat_until(lambda: polled_since(killed) >= ids, timeout=4 * INTERVAL)
    taken_over = datetime.now(UTC)
    load.transactions(commits=30)
    after = datetime.now(UTC)
    beat_until(lambda: polled_since(after) >= ids, timeout=4 * INTERVAL)  # the last commits are polled

    # Exactly once per (server, due time) while both lived: no duplicate, no gap in the due times.
    assert due_time_faults(ids, start, killed, INTERVAL) == []
    # The survivor polled every server within two intervals of the kill, over its own connections.
    assert (taken_over - killed).total_seconds() <= 2 * INTERVAL
    assert connections_to(workers[1], mariadb.port) == TARGETS
    # No counter delta lost or counted twice: each server's stored commits are the 100 the test made.
    end = datetime.now(UTC) + timedelta(seconds=1)
    for server in servers:
        assert query.totals(server.id, ["Com_commit"], start, end) == {"Com_commit": 100}, server.name
