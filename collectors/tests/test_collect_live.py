"""`manage.py collect` against the suite's MariaDB under a write load, killed once and resumed, then loaded.

The loaded deltas are checked against what the test computes from the file's raw readings (read by the
documented format, not by the loader), and the transactions over the window against the server's own
counters read before and after.
"""

import signal
import time
from datetime import UTC, datetime, timedelta

from collectors.replay import load
from servers.models import Run
from store import query
from testing.collect import WriteLoad, polls, start_collect, wait_for_polls

INTERVAL = 3  # seconds: 12 polls before the kill and 12 after take a minute and a quarter
COUNTERS = ("Com_commit", "Com_insert", "Questions")


def raw_deltas(path, name: str) -> list[tuple[float, int]]:
    """(read time, this reading minus the previous one) of a global_status counter, as an engineer would."""
    readings = [(r["read_at"], r["values"][name]) for p in polls(path) for r in p["readings"]
                if r["source"] == "global_status"]
    return [(at, value - before) for (_, before), (at, value) in zip(readings, readings[1:], strict=False)]


def test_it_collects_through_a_kill_and_loads_what_the_raw_readings_say(tmp_path, mariadb, load, db):
    path = tmp_path / "lab.ssc"
    before, began = load.status(*COUNTERS), time.time()
    first = start_collect(mariadb.port, path, "--interval", str(INTERVAL), "--run", "lab run")
    wait_for_polls(path, 1, 60)  # the baseline, before any load
    writer = WriteLoad(load)
    writer.start()
    wait_for_polls(path, 12, 24 * INTERVAL)  # eleven intervals of polls under the load
    first.send_signal(signal.SIGKILL)
    first.wait()
    time.sleep(2 * INTERVAL)  # down for more than a poll interval, whatever the machine's speed: a real gap
    second = start_collect(mariadb.port, path, "--interval", str(INTERVAL), "--duration", str(12 * INTERVAL))
    wait_for_polls(path, 22, 24 * INTERVAL)
    writer.stop()
    out, _ = second.communicate(timeout=18 * INTERVAL)  # its duration ends it, a poll or more after the load stopped
    after, ended = load.status(*COUNTERS), time.time()
    assert second.returncode == 0, out
    assert "resuming" in out and "polls (0 failed)" in out  # and its closing line of what it collected

    report = load_file(path)
    assert report.ended and report.polls >= 22  # the second part ended cleanly
    window = (datetime.fromtimestamp(began - 1, UTC), datetime.fromtimestamp(ended + 1, UTC))
    stored = query.counter_samples(report.server.id, list(COUNTERS), *window)
    for name in COUNTERS:
        # Each reading's time at the store's resolution (µs, as the load reads it): rounding both sides to the
        # millisecond split a time lying on a half millisecond (…825.8275) one way in the file, the other in µs.
        expected = [(datetime.fromtimestamp(at, UTC), delta) for at, delta in raw_deltas(path, name)]
        series = stored[name]
        got = list(zip(series.ts, series.deltas, strict=True))
        assert got == expected, name
    gaps = [s for s in stored["Com_commit"].seconds if s > 1.5 * INTERVAL]
    assert len(gaps) == 1  # the kill: one delta spans it, none is lost

    server_total = after["Com_commit"] - before["Com_commit"]
    loaded_total = sum(stored["Com_commit"].deltas)
    one_interval = server_total / (ended - began) * INTERVAL
    assert server_total > 1000
    assert abs(loaded_total - server_total) <= one_interval
    run = Run.objects.get(server=report.server, name="lab run")
    assert run.ended_at is not None and run.ended_at - run.started_at > timedelta(seconds=20 * INTERVAL)  # both parts


def load_file(path):
    return load(path.read_bytes(), "lab", str(path))
