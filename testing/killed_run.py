"""A pytest run to kill (monitor/tests/test_killed_run.py): its one test writes where the run's servers are, then
waits to be killed. Run by name (`pytest testing/killed_run.py`): its name keeps it out of the suite."""

import json
import os
import time
from pathlib import Path

from django.conf import settings

REPORT = "KILLED_RUN_REPORT"  # the environment variable naming the file the test writes
PID_FILES = {"postgres": ("pg", "postmaster.pid"), "redis": ("redis.pid",)}  # under the run's var dir


def test_it_waits_to_be_killed(mariadb):
    var = Path(settings.VAR_DIR)
    pids = {name: int((var.joinpath(*parts)).read_text().split()[0]) for name, parts in PID_FILES.items()}
    pids["mariadbd"] = int((mariadb.datadir / "mariadbd.pid").read_text().split()[0])
    dirs = [str(var), str(mariadb.datadir.parent)]
    report = Path(os.environ[REPORT])
    report.with_suffix(".part").write_text(json.dumps({"pids": pids, "dirs": dirs}))
    report.with_suffix(".part").rename(report)  # whole when it appears
    time.sleep(600)
