import threading
import time

import pytest

from store.stats import percentile
from workload.driver import StressDriver, StressOptions
from workload.sweep import parse_levels


def status(mariadb, name: str) -> int:
    return int(mariadb.execute(f"SHOW GLOBAL STATUS LIKE '{name}'")[0][1])


def history_length(mariadb) -> int:
    rows = mariadb.execute(
        "SELECT COUNT, ENABLED FROM information_schema.INNODB_METRICS WHERE NAME = 'trx_rseg_history_len'"
    )
    assert rows and rows[0][1] == 1, "trx_rseg_history_len must be enabled to watch purge lag"
    return int(rows[0][0])


def drive(target, lines=None, **options) -> "StressDriver":
    driver = StressDriver(target, StressOptions(**options), report=(lines.append if lines is not None else print))
    driver.prepare()
    return driver


def test_it_commits_what_it_reports(mariadb, stress_target):
    driver = drive(stress_target, mode="mixed", concurrency=3, duration=2, interval=0.5)
    before = status(mariadb, "Com_commit")
    summary = driver.run()
    committed = status(mariadb, "Com_commit") - before
    assert summary.status == "completed"
    assert summary.transactions > 0
    # Every transaction the driver counts is a COMMIT statement the server counted; nothing else commits here.
    assert summary.transactions <= committed <= summary.transactions + 1


def test_it_prints_throughput_each_interval_and_a_summary(stress_target):
    lines = []
    summary = drive(stress_target, lines, mode="ro", concurrency=2, duration=2, interval=0.5).run()
    tps_lines = [line for line in lines if " tps " in line]
    assert len(tps_lines) >= 3
    assert "history length" in tps_lines[0]
    assert len(summary.interval_tps) >= 3
    assert summary.p5 <= summary.avg * 1.5 and summary.p5 <= summary.p95
    assert "TPS avg" in summary.line()


def test_read_only_mode_writes_nothing(mariadb, stress_target):
    driver = drive(stress_target, mode="ro", concurrency=2, duration=1, interval=0.5)
    before = status(mariadb, "Com_update") + status(mariadb, "Com_insert")
    assert driver.run().transactions > 0
    assert status(mariadb, "Com_update") + status(mariadb, "Com_insert") == before


def wait_for_purge(mariadb, below: int = 2000, timeout: float = 30) -> None:
    """Let purge clear what earlier tests wrote, so a growth seen next is this test's."""
    deadline = time.monotonic() + timeout
    while history_length(mariadb) >= below and time.monotonic() < deadline:
        time.sleep(0.2)


def test_hold_trx_makes_history_length_grow(mariadb, stress_target):
    driver = drive(stress_target, mode="rw", concurrency=3, duration=4, interval=1, hold_trx=4)
    wait_for_purge(mariadb)
    seen, done = [history_length(mariadb)], threading.Event()

    def watch():
        while not done.is_set():
            seen.append(history_length(mariadb))
            time.sleep(0.1)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        summary = driver.run()
    finally:
        done.set()
        watcher.join()
    assert summary.transactions > 500
    # Purge may not pass the open read view: every update committed meanwhile stays in the history list
    # (without the read view, purge keeps it at a small fraction of the commits).
    assert max(seen) >= 0.8 * summary.transactions


def test_stop_event_ends_the_run_as_interrupted(stress_target):
    driver = drive(stress_target, mode="rw", concurrency=2, duration=0, interval=0.5)
    stop = threading.Event()
    threading.Timer(1.0, stop.set).start()
    summary = driver.run(stop)
    assert summary.status == "interrupted"
    assert summary.transactions > 0


def test_percentile_interpolates_between_closest_ranks():
    values = [float(v) for v in range(20, 0, -1)]  # 1..20, unsorted
    # rank (20 - 1) * 5 % = 0.95: 1 + 0.95 * (2 - 1); rank 19 * 95 % = 18.05: 19 + 0.05 * (20 - 19)
    assert percentile(values, 5) == pytest.approx(1.95)
    assert percentile(values, 95) == pytest.approx(19.05)
    assert percentile([7.0], 50) == 7.0
    assert percentile([], 95) is None


def test_a_run_shorter_than_an_interval_says_it_has_no_spread():
    from workload.summary import Summary

    assert "p5/p95 n/a" in Summary(transactions=10, elapsed=2.0).line()


def test_periodic_stalls_hold_the_global_read_lock_and_show_in_the_latencies(mariadb, stall_target):
    lines = []
    driver = drive(stall_target, lines, mode="rw", concurrency=2, duration=7, interval=1,
                   stall_every=2, stall_for=1)
    flushes = status(mariadb, "Com_flush")
    summary = driver.run()
    assert summary.status == "completed", summary.error
    # Stalls at 2, 4 and 6 s into the 7 s run: three FLUSH TABLES WITH READ LOCK the server counted.
    assert summary.stalls == 3 == status(mariadb, "Com_flush") - flushes
    assert sum("global read lock held for 1 s" in line for line in lines) == 3
    # A write caught by a stall waits for the rest of it: the slowest commits took most of a second,
    # while the median one took far less (the driver's own clock, around each transaction).
    assert summary.latencies[-1] >= 0.5 and summary.latency_ms(50) < 100
    assert summary.latency_ms(99) <= summary.latencies[-1] * 1000
    assert "latency ms p50" in summary.line() and "3 stalls" in summary.line()


def test_stalls_without_reload_say_so(stress_target):
    summary = drive(stress_target, mode="rw", concurrency=1, duration=3, interval=1, stall_every=1, stall_for=0.5).run()
    assert summary.status == "failed" and "--stall-every needs the RELOAD privilege" in summary.error


def test_more_sessions_than_any_server_accepts_are_refused_before_any_is_opened():
    # --concurrency 99999999999 ended in a MemoryError traceback (a counter slot per session); MySQL and MariaDB
    # cap max_connections at 100,000, so 100,001 sessions could never all connect: refused, naming the bound.
    with pytest.raises(ValueError, match="at most 100,000 sessions"):
        StressOptions(concurrency=99_999_999_999)
    with pytest.raises(ValueError, match="at most 100,000 sessions"):
        StressOptions(concurrency=100_001)
    assert StressOptions(concurrency=100_000).concurrency == 100_000
    with pytest.raises(ValueError, match="at most 100,000 threads a level"):
        parse_levels("1,2,100001")


@pytest.mark.parametrize("field", ["think_ms", "hold_trx", "duration", "stall_every", "interval"])
@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("1e309")])
def test_a_time_that_is_no_number_is_refused(field, value):
    # An audit's --think-ms nan and --hold-trx 1e309 (inf) were taken without a word: nan passes every "< 0".
    with pytest.raises(ValueError, match="not nan or an infinity"):
        StressOptions(**{field: value})


def test_stall_options_go_together():
    with pytest.raises(ValueError, match="go together"):
        StressOptions(stall_every=60)
    with pytest.raises(ValueError, match="shorter"):
        StressOptions(stall_every=5, stall_for=5)
