"""The purge verdict's predicted drain time against the one measured on the suite's MariaDB.

A read view held while 3,000 transactions each move 50 rows to another secondary-index key piles
up history with real purge work behind each undo log (150,000 delete-marked index records); purge
is slowed (innodb_purge_batch_size=1) so the drain lasts long enough to poll; the read view closes. At the
first poll where the verdict reads "draining" over at least 5 polls since the turn, its "below the
threshold in T" is taken as the prediction; polling goes on until the history length really falls
below the threshold. The two times are compared.
"""

import time

import pytest
from django.utils import timezone

from collectors.batch import poll_server
from dashboards import reads
from dashboards.analysis.purge_verdict import purge_verdict
from servers.models import Server

pytestmark = pytest.mark.django_db
STEP = 0.25  # seconds between polls
ROWS, TRX, PER_TRX = 20_000, 3_000, 50


@pytest.fixture
def server(mariadb, monitor_credentials) -> Server:
    server = Server(name="drain", host="127.0.0.1", port=mariadb.port, user="steady", poll_interval=1)
    server.password = monitor_credentials["password"]
    server.save()
    return server


@pytest.fixture
def slow_purge(mariadb):
    (name, before), = mariadb.execute("SHOW GLOBAL VARIABLES LIKE 'innodb_purge_batch_size'")
    mariadb.execute("SET GLOBAL innodb_purge_batch_size = 1")
    yield
    mariadb.execute(f"SET GLOBAL innodb_purge_batch_size = {int(before)}")


def history_now(server: Server) -> tuple:
    (source,) = poll_server(server.pk, only=["history_length"]).sources
    assert source.ok, source.error
    newest = next(reads.polls_back(server.pk, reads.HISTORY, timezone.now() - timezone.timedelta(minutes=1),
                                   timezone.now()))
    return newest


def pile_up_history(mariadb) -> None:
    """TRX transactions of PER_TRX secondary-key moves each, under a read view opened before them."""
    mariadb.execute("CREATE DATABASE IF NOT EXISTS drain_load", "DROP TABLE IF EXISTS drain_load.t",
                    "CREATE TABLE drain_load.t (id INT PRIMARY KEY, k INT, INDEX (k)) ENGINE=InnoDB",
                    f"INSERT INTO drain_load.t SELECT seq, seq FROM drain_load.seq_1_to_{ROWS}")
    view, writer = mariadb.connect(), mariadb.connect()
    try:
        with view.cursor() as cur:
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            cur.execute("SELECT COUNT(*) FROM drain_load.t")
            with writer.cursor() as w:
                for i in range(TRX):
                    first = (i * PER_TRX) % ROWS + 1
                    w.execute("UPDATE drain_load.t SET k = k + 1 WHERE id BETWEEN %s AND %s",
                              (first, first + PER_TRX - 1))
                    writer.commit()
            cur.execute("COMMIT")
    finally:
        view.close()
        writer.close()


@pytest.mark.serial  # the drain rate is measured live: a busy machine slows purge unevenly
def test_the_predicted_drain_time_matches_the_measured_one(mariadb, server, slow_purge):
    pile_up_history(mariadb)
    at, peak = history_now(server)
    threshold = peak * 0.25
    prediction, seen = None, []
    deadline = time.monotonic() + 180
    while time.monotonic() < deadline:
        time.sleep(STEP)
        at, length = history_now(server)
        seen.append((f"{at:%S.%f}"[:5], int(length)))
        if length < threshold:
            break
        trend = reads.history_trend(server.pk, at)
        verdict = purge_verdict(length, trend, threshold, None)
        if prediction is None and verdict.kind == "draining" and trend.polls >= 5:
            prediction = (at, at + verdict.to_threshold, length)
    else:
        pytest.fail(f"history did not fall below {threshold:.0f} in 180 s (peak {peak:.0f}, now {length:.0f})")
    assert prediction is not None, f"no draining verdict before it fell below the threshold (peak {peak:.0f}): {seen}"
    said_at, predicted, said_length = prediction
    measured = at  # the first poll below the threshold
    ahead = (predicted - said_at).total_seconds()
    error = (measured - predicted).total_seconds()
    print(f"peak {peak:.0f}, threshold {threshold:.0f}; at {said_at:%H:%M:%S.%f} ({said_length:.0f}) predicted "
          f"below in {ahead:.1f} s; measured {(measured - said_at).total_seconds():.1f} s (error {error:+.1f} s)")
    assert abs(error) <= max(0.3 * ahead, 2 * STEP + 1), seen
