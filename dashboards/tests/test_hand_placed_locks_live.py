"""Locks taken by hand at irregular times read as irregular stalls on the stability page, over real polls.

A load paced by the clock (100 TPS, catching up after a stall as sysbench --rate does), polled every second, and
FLUSH TABLES WITH READ LOCK held 3 s at 8, 19, 26, 42 and 52 s from its start: five stalls 11, 7, 16 and 10 s apart,
a fifth of a run seen on the page as "Periodic dips every 56 s" (dashboards/tests/test_hand_placed_locks.py).
"""

import threading
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from dashboards.figures.common import iso
from servers.models import Server
from testing.paced_load import PacedLoad
from testing.polling import poll_while

pytestmark = pytest.mark.django_db
SOURCES = ["global_status", "pfs_waits"]
LOCKS_AT = (8, 19, 26, 42, 52)  # s from the load's start
HELD = 3.0


@pytest.fixture
def server(mariadb, monitor_credentials) -> Server:
    server = Server(name="hand-locks", host="127.0.0.1", port=mariadb.port, user="steady", poll_interval=1)
    server.password = monitor_credentials["password"]
    server.save()
    return server


def lock_by_hand(mariadb, started: float, taken: list) -> None:
    """Take the global read lock at each of LOCKS_AT from `started` (monotonic), holding it HELD s; note when."""
    conn = mariadb.connect()
    try:
        with conn.cursor() as cur:
            for offset in LOCKS_AT:
                time.sleep(max(0.0, started + offset - time.monotonic()))
                cur.execute("FLUSH TABLES WITH READ LOCK")
                taken.append(timezone.now())
                time.sleep(HELD)
                cur.execute("UNLOCK TABLES")
    finally:
        conn.close()


@pytest.mark.serial  # the locks are timed: a busy machine shifts the dips
def test_locks_taken_by_hand_at_irregular_times_read_irregular_dips(admin_client, mariadb, server):
    load = PacedLoad(mariadb, sessions=4, per_session=25, seconds=60)
    taken: list = []

    def work() -> None:
        started = time.monotonic()
        locks = threading.Thread(target=lock_by_hand, args=(mariadb, started, taken), daemon=True)
        locks.start()
        load.run()
        locks.join()

    start, end = poll_while(server.pk, SOURCES, work)
    assert load.error is None and len(taken) == len(LOCKS_AT), (load.error, taken)
    response = admin_client.get(
        f"/servers/{server.pk}/stability/", {"from": iso(start - timedelta(seconds=1))[:23], "to": iso(end)[:23]}
    )
    verdict = response.context["verdict"]
    html = response.content.decode().split('id="verdict"')[1].split("</section>")[0]
    dips = [(f"{d.start:%H:%M:%S}", d.seconds, d.lowest) for d in verdict.dips]
    said = [f"{t:%H:%M:%S}" for t in taken]
    # Each lock stopped TPS for a poll or more: five stalls, no period.
    assert verdict.kind == "dips" and len(verdict.dips) == len(LOCKS_AT), (verdict.kind, verdict.period, dips, said)
    for dip, at in zip(verdict.dips, taken, strict=True):
        assert abs((dip.start - at).total_seconds()) <= 1.5, (dips, said)  # the poll before the lock's first
    assert f"Dips at irregular times ({len(LOCKS_AT)})" in html
