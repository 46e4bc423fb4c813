"""A hot spot read by the scalability law, live: sysbench sweeps on the suite's MariaDB through bench_run.

testing/sysbench/row_lock.lua locks a row, works 2 ms holding it, updates it and commits. Over 1 row
every transaction queues on that lock (serialised: contention, sigma near 1); over 10,000 rows they
hardly meet, and the sessions mostly sleep, so the 2 shared cores do not serialise them either.
"""

import io
import subprocess
from pathlib import Path

import pytest
from django.core.management import call_command

from dashboards.analysis.usl import fit_usl
from dashboards.own_load_reads import own_load
from servers.models import Run
from testing.workload import STRESS_PASSWORD, STRESS_USER

pytestmark = pytest.mark.django_db
ROW_LOCK = str(Path(__file__).resolve().parents[2] / "testing" / "sysbench" / "row_lock.lua")


def swept_sigma(mariadb, rows: int) -> tuple[float, list[float]]:
    options = ["--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={mariadb.port}",
               f"--mysql-user={STRESS_USER}", f"--mysql-password={STRESS_PASSWORD}",
               "--mysql-db=steadystate_stress", f"--rows={rows}"]
    mariadb.execute("CREATE DATABASE IF NOT EXISTS steadystate_stress")
    subprocess.run(["sysbench", ROW_LOCK, *options, "prepare"], check=True, capture_output=True)
    sweep = f"row lock over {rows}"
    call_command("bench_run", "bench", "--levels", "1,2,4,8", "--sweep", sweep, "--", "sysbench", ROW_LOCK,
                 *options, "--threads={threads}", "--time=2", "run", stdout=io.StringIO())
    runs = Run.objects.filter(sweep=sweep).order_by("concurrency")
    owns = [own_load(run, 0) for run in runs]  # sysbench's rates over its whole run: no warm-up either side
    tps = [own.tps for own in owns if own is not None and own.tps is not None]
    fit = fit_usl([run.concurrency or 0 for run in runs], tps)
    assert fit is not None and len(tps) == 4, tps
    return fit.sigma, tps


@pytest.mark.serial  # the sweep scales only on a machine it has to itself
def test_a_one_row_hot_spot_has_at_least_three_times_the_contention_of_ten_thousand_rows(mariadb, server,
                                                                                        stress_target):
    hot, hot_tps = swept_sigma(mariadb, 1)
    spread, spread_tps = swept_sigma(mariadb, 10_000)
    assert hot >= 3 * spread, (hot, hot_tps, spread, spread_tps)
    assert hot > 0.5 and spread_tps[-1] > 3 * spread_tps[0]  # one row: flat; many rows: they scale
