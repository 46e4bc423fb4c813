"""The load's own figures after its warm-up: the stress driver's count and response times, sysbench's summary."""

import random
import subprocess

import numpy as np
import pytest

from testing.workload import STRESS_PASSWORD, STRESS_USER
from workload.driver import StressDriver, StressOptions
from workload.external import sysbench_figures
from workload.measured import Measured


def status(mariadb, name: str) -> int:
    return int(mariadb.execute(f"SHOW GLOBAL STATUS LIKE '{name}'")[0][1])


def test_the_histogram_percentile_is_the_nearest_rank_within_half_a_percent():
    rng = random.Random(7)
    latencies = [rng.lognormvariate(-6, 0.8) for _ in range(5000)]  # around 2.5 ms
    measured = Measured()
    for i, latency in enumerate(latencies):
        measured.record(latency, committed=i % 10 != 0)
    exact = float(np.percentile(latencies, 95, method="inverted_cdf"))  # the nearest rank, by numpy
    assert measured.latency_percentile(95) == pytest.approx(exact, rel=0.005)
    assert measured.latency_avg == pytest.approx(sum(latencies) / 5000)
    assert (measured.commits, measured.rollbacks) == (4500, 500)


def test_the_driver_counts_and_times_only_what_began_after_its_warm_up(mariadb, stress_target):
    driver = StressDriver(stress_target, StressOptions(mode="ro", concurrency=2, duration=3, warmup=1, interval=1),
                          report=lambda line: None)
    driver.prepare()
    summary = driver.run()
    m = summary.measured
    assert summary.status == "completed" and 0 < m.commits < summary.transactions
    assert m.seconds == pytest.approx(summary.elapsed - 1, abs=0.01)
    # Little's law: two sessions, each always inside a transaction, hold 2 transactions on average,
    # so the mean response time is 2 / TPS (the loop between two transactions costs little).
    assert m.latency_avg == pytest.approx(2 / m.tps, rel=0.2)
    assert m.latency_avg <= m.latency_percentile(95) * 1.01
    figures = m.figures()
    assert figures["transactions"] == m.commits and figures["latency_p95_ms"] == pytest.approx(
        m.latency_percentile(95) * 1000)


def test_sysbench_figures_are_its_summary(mariadb, stress_target):
    options = ["--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={mariadb.port}",
               f"--mysql-user={STRESS_USER}", f"--mysql-password={STRESS_PASSWORD}",
               "--mysql-db=steadystate_stress", "--tables=1", "--table-size=1000"]
    mariadb.execute("CREATE DATABASE IF NOT EXISTS steadystate_stress",
                    "DROP TABLE IF EXISTS steadystate_stress.sbtest1")
    subprocess.run(["sysbench", "oltp_read_write", *options, "prepare"], check=True, capture_output=True)
    before, deadlocks = status(mariadb, "Com_commit"), status(mariadb, "Innodb_deadlocks")
    out = subprocess.run(["sysbench", "oltp_read_write", *options, "--threads=2", "--time=2", "run"],
                         check=True, capture_output=True, text=True).stdout
    committed, deadlocks = status(mariadb, "Com_commit") - before, status(mariadb, "Innodb_deadlocks") - deadlocks
    figures = sysbench_figures(out)
    assert figures["tool"] == "sysbench" and figures["transactions"] == committed  # one COMMIT per transaction
    assert figures["tps"] == pytest.approx(committed / figures["seconds"], rel=0.02)
    assert figures["qps"] == pytest.approx(20 * figures["tps"], rel=0.02)  # oltp_read_write: 20 queries each
    assert 0 < figures["latency_avg_ms"] <= figures["latency_p95_ms"] * 1.01
    assert figures["errors"] == deadlocks  # each a deadlock the server rolled back, which sysbench ignores and retries
    assert sysbench_figures("no summary here") == {}
