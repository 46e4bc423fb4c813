"""The stability verdict over real polls of the suite's MariaDB under the stress driver.

Shorter than the 10-minute run the verdict is meant for, so the suite stays bearable: a stall
(FLUSH TABLES WITH READ LOCK, 4 s) every 12 s over 66 s, polled every second, must read
"periodic dips every 12 s" with 5 occurrences (stalls at 12, 24, 36, 48 and 60 s); a load paced
by the clock (the machine's speed does not move its TPS) reads steady; under a read view held
throughout it reads drifting with the history length growing; 2 sessions, then 6, then 2 again,
15 s each, read two level changes.
"""

from datetime import timedelta

import pytest
from django.utils import timezone

from dashboards import reads
from dashboards.figures.common import iso
from servers.models import Server
from store import query
from testing.paced_load import PacedLoad
from testing.polling import poll_while
from testing.workload import stall_target
from workload.driver import StressDriver, StressOptions

pytestmark = pytest.mark.django_db
SOURCES = ["global_status", "pfs_waits", "history_length"]


@pytest.fixture
def server(mariadb, monitor_credentials) -> Server:
    server = Server(name="live", host="127.0.0.1", port=mariadb.port, user="steady", poll_interval=1)
    server.password = monitor_credentials["password"]
    server.save()
    return server


def stress(target, seconds: float, lines: list[str], concurrency: int = 4, **options) -> StressDriver:
    """The driver for `seconds`, its schema made. Sessions pause 20 ms between transactions, so TPS is set by
    them more than by the CPU the suite's host has left (shared with other test runs): a flat load stays flat."""
    driver = StressDriver(target, StressOptions(mode="rw", concurrency=concurrency, think_ms=20, duration=seconds,
                                                interval=seconds, **options), report=lines.append)
    driver.prepare()
    return driver


def drive_and_poll(server: Server, target, seconds: float, **options) -> tuple:
    """Run the driver for `seconds` while polling the server every second; the range polled."""
    lines: list[str] = []
    driver = stress(target, seconds, lines, **options)
    start, end = poll_while(server.pk, SOURCES, driver.run)
    assert not driver.error, driver.error
    return start, end, lines


def verdict_of(client, server: Server, start, end):
    response = client.get(f"/servers/{server.pk}/stability/",
                          {"from": iso(start - timedelta(seconds=1))[:23], "to": iso(end)[:23]})
    return response.context["verdict"], response.content.decode().split('id="verdict"')[1].split("</section>")[0]


def tps_line(server: Server, start, end) -> list[tuple[str, int | None]]:
    """The polls' TPS over the range, to say what a failed verdict judged."""
    line, = query.series([server.pk], [reads.TPS], start - timedelta(seconds=1), end, max_points=1000)
    polls = zip(line.ts, line.values, strict=True)
    return [(f"{t:%H:%M:%S.%f}"[:12], None if v is None else round(v)) for t, v in polls]


@pytest.mark.serial  # the stalls are timed: a busy machine shifts the dips
def test_stalls_every_12_s_read_periodic_dips_every_12_s(admin_client, mariadb, server):
    start, end, lines = drive_and_poll(server, stall_target(mariadb), 66, stall_every=12, stall_for=4)
    assert sum("global read lock held" in line for line in lines) == 5
    verdict, html = verdict_of(admin_client, server, start, end)
    dips = [(f"{d.start:%H:%M:%S}", d.seconds, d.lowest) for d in verdict.dips]
    assert verdict.kind == "periodic", (dips, f"{start:%H:%M:%S}", lines)
    assert abs(verdict.period - 12) <= 3 and len(verdict.dips) == 5
    assert 3 <= verdict.dip_seconds <= 7
    assert "Periodic dips every 12 s (5 occurrences" in html


@pytest.mark.serial  # polled every second: a busy machine delays the polls
def test_a_load_paced_by_the_clock_reads_steady_but_where_the_machine_held_it_back(admin_client, mariadb, server):
    # 100 transactions a second on a schedule: the stress driver's sessions, pausing between transactions, slowed
    # with the machine (-15.7 %/min, rightly read as drifting, while other test runs took the CPU).
    load = PacedLoad(mariadb, sessions=4, per_session=25, seconds=40)
    start, end = poll_while(server.pk, SOURCES, load.run)
    assert load.error is None, load.error
    assert sum(load.commits) == 4 * 25 * 40
    verdict, html = verdict_of(admin_client, server, start, end)
    dips = [(f"{d.start:%H:%M:%S}", d.seconds, d.lowest) for d in verdict.dips]
    # Only a dip where the load itself fell behind its schedule (the machine stalled it) may break the steady line.
    ours = [d for d in verdict.dips if not load.late_within(d.start - timedelta(seconds=1), d.end)]
    assert verdict.kind in ("steady", "dips") and not ours, (
        verdict.kind, dips, verdict.cv, verdict.points, verdict.drift, verdict.history,
        [(f"{a:%H:%M:%S.%f}"[:12], f"{b:%S.%f}"[:6]) for a, b in load.late], tps_line(server, start, end))
    assert "Steady (CV" in html if verdict.kind == "steady" else "Dips at irregular times" in html


def test_a_read_view_held_throughout_reads_drifting_with_history_growing(admin_client, mariadb, server):
    start, end, _ = drive_and_poll(server, stall_target(mariadb), 60, hold_trx=70)
    verdict, html = verdict_of(admin_client, server, start, end)
    dips = [(f"{d.start:%H:%M:%S}", d.seconds, d.lowest) for d in verdict.dips]
    assert verdict.kind == "drifting" and verdict.history.pct_per_min > 0, (dips, verdict.history, verdict.drift)
    assert "history length growing" in html


@pytest.mark.serial  # the levels are the load's: a busy machine can bend one
def test_a_load_raised_then_lowered_reads_two_level_changes(admin_client, mariadb, server):
    lines: list[str] = []
    target = stall_target(mariadb)
    phases = [stress(target, 15, lines, concurrency=c) for c in (2, 6, 2)]
    changed: list = []

    def levels() -> None:
        for driver in phases:
            changed.append(timezone.now())
            driver.run()

    start, end = poll_while(server.pk, SOURCES, levels)
    assert not any(d.error for d in phases), [d.error for d in phases]
    verdict, html = verdict_of(admin_client, server, start, end)
    found = [(f"{s.at:%H:%M:%S}", round(s.before), round(s.after)) for s in verdict.shifts]
    said = [f"{t:%H:%M:%S}" for t in changed[1:]]
    assert verdict.kind == "shifted" and len(verdict.shifts) == 2, (verdict.kind, found, said, verdict.cv)
    up, down = verdict.shifts
    # Three times the sessions, each paced by its 20 ms pause: TPS at least doubles, then halves back.
    assert up.after > 2 * up.before and down.after < down.before / 2, found
    # Each new level starts with the poll after the phase did (a poll is stamped when it ends), give or take
    # the poll that straddles the switch.
    for shift, at in zip(verdict.shifts, changed[1:], strict=True):
        assert abs((shift.at - at).total_seconds()) <= 3, (found, said)
    assert "Level changes: TPS from" in html and "Three levels, not a drift" in html
