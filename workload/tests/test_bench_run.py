"""bench_run: sysbench on the suite's MariaDB recorded as runs; what a command line and its output say."""

import io
import os
import re
import signal
import subprocess
import sys

import pytest
from django.core.management import CommandError, call_command

from collectors.batch import poll_server
from servers.models import Run, Server
from testing.workload import STRESS_PASSWORD, STRESS_USER
from workload.external import masked, read_call, tool_summary

pytestmark = pytest.mark.django_db
TABLE_SIZE = 1000


@pytest.fixture
def sysbench(mariadb, stress_target) -> list[str]:
    """sysbench's connection options for the write user, its one small table prepared."""
    options = ["--db-driver=mysql", "--mysql-host=127.0.0.1", f"--mysql-port={mariadb.port}",
               f"--mysql-user={STRESS_USER}", f"--mysql-password={STRESS_PASSWORD}",
               "--mysql-db=steadystate_stress", "--tables=1", f"--table-size={TABLE_SIZE}"]
    mariadb.execute("CREATE DATABASE IF NOT EXISTS steadystate_stress",
                    "DROP TABLE IF EXISTS steadystate_stress.sbtest1")
    subprocess.run(["sysbench", "oltp_read_write", *options, "prepare"], check=True, capture_output=True)
    return options


class PollAroundEachStep(io.StringIO):
    """Polls global_status as each step starts and once its tool has printed its statistics."""

    def __init__(self, server: Server):
        super().__init__()
        self.server = server
        self.commits: list[int] = []

    def write(self, text):
        if text.startswith("run '") or text.startswith("SQL statistics:"):
            (source,) = poll_server(self.server.pk, only=["global_status"]).sources
            assert source.ok, source.error
            if text.startswith("SQL statistics:"):
                self.commits.append(source.sample.values["Com_commit"])
        return super().write(text)


def test_a_sysbench_sweep_is_recorded_one_run_per_level(server, sysbench):
    out = PollAroundEachStep(server)
    call_command("bench_run", "bench", "--levels", "1,2", "--sweep", "sb rw", "--label", "table_size=1000", "--",
                 "sysbench", "oltp_read_write", *sysbench, "--threads={threads}", "--time=2", "run", stdout=out)
    runs = list(Run.objects.filter(sweep="sb rw").order_by("started_at"))
    assert [r.concurrency for r in runs] == [1, 2]
    assert all(r.label == "table_size=1000" and r.ended_at for r in runs)
    assert "--threads=2" in runs[1].command and STRESS_PASSWORD not in runs[1].command + runs[1].notes
    assert "--mysql-password=***" in runs[1].command
    for run, commits in zip(runs, out.commits, strict=True):
        assert run.tool_summary.startswith("SQL statistics:")
        transactions = int(re.search(r"transactions:\s+(\d+)", run.tool_summary)[1])
        # oltp_read_write commits each transaction: the server counted exactly what sysbench reports.
        assert transactions > 0 and commits == transactions


def test_a_failing_tool_is_recorded_and_reported(server):
    with pytest.raises(CommandError, match=r"server bench: sysbench failed: .*exit [1-9]"):
        call_command("bench_run", "bench", "--", "sysbench", "no_such_test", "run", stdout=io.StringIO())
    run = Run.objects.get()
    assert run.ended_at and run.concurrency == 1 and run.tool_summary


def test_threads_given_with_concurrency_are_not_called_unknown(server):
    out = io.StringIO()
    call_command("bench_run", "bench", "--concurrency", "3", "--", "true", stdout=out)
    assert Run.objects.get().concurrency == 3
    assert "threads are unknown" not in out.getvalue()
    out = io.StringIO()
    call_command("bench_run", "bench", "--", "true", stdout=out)
    assert "true: its threads are unknown here, pass --concurrency" in out.getvalue()


def test_a_missing_tool_is_named_before_a_run_is_made(server):
    with pytest.raises(CommandError, match="command not found: sysbenchh"):
        call_command("bench_run", "bench", "--", "sysbenchh", "run")
    with pytest.raises(CommandError, match="needs \\{threads\\}"):
        call_command("bench_run", "bench", "--levels", "1,2", "--", "sysbench", "--threads=4", "run")
    assert not Run.objects.exists()


@pytest.mark.parametrize("argv, threads, warmup", [
    (["sysbench", "oltp_read_write", "--threads=16", "--warmup-time=10", "run"], 16, 10),
    (["/usr/bin/sysbench", "oltp_point_select", "--threads", "8", "run"], 8, None),
    (["sysbench", "oltp_read_only", "run"], 1, None),  # sysbench's default
    (["mysqlslap", "--concurrency=32", "--iterations=3"], 32, None),
    (["mysqlslap", "-c", "64"], 64, None),
    (["mysqlslap", "-c4"], 4, None),
    (["mysqlslap", "--concurrency=1,2,4"], None, None),  # several levels: not one run's concurrency
    (["./my_driver", "-t", "8"], None, None),
    # a wrapper's own options are not the tool's: nice's -n 10 is no thread count
    (["nice", "-n", "10", "sysbench", "oltp_read_write", "--threads=2", "--warmup-time=5", "run"], 2, 5),
    (["taskset", "-c", "1", "/usr/bin/mysqlslap", "-c", "8"], 8, None),
])
def test_it_reads_the_threads_from_the_command_line(argv, threads, warmup):
    call = read_call(argv)
    assert (call.concurrency, call.warmup) == (threads, warmup)
    assert bool(call.note) == (threads is None)


def test_a_wrapped_tool_is_named_and_its_summary_kept():
    call = read_call(["nice", "-n", "10", "sysbench", "oltp_read_write", "--threads=2", "run"])
    assert call.tool == "sysbench"  # the run is named "sysbench x2 ...", its summary read from "SQL statistics:"
    output = "[ 10s ] thds: 2 tps: 902.24\nSQL statistics:\n    transactions: 124787 (831.88 per sec.)\n"
    assert tool_summary(call.tool, output) == "SQL statistics:\n    transactions: 124787 (831.88 per sec.)"


def test_passwords_are_masked():
    argv = ["sysbench", "--mysql-password=s3cret", "--pgsql-password", "p@ss", "run"]
    assert masked(argv) == "sysbench '--mysql-password=***' --pgsql-password '***' run"
    assert masked(["mysqlslap", "-ps3cret", "-P", "3306", "--password=x y"]) == \
        "mysqlslap '-p***' -P 3306 '--password=***'"


def test_the_tools_summary_is_kept_else_the_last_lines():
    output = "sysbench 1.0.20\n[ 1s ] thds: 1 tps: 10\nSQL statistics:\n    transactions: 20\n"
    assert tool_summary("sysbench", output) == "SQL statistics:\n    transactions: 20"
    assert tool_summary("other", "\n".join(map(str, range(100)))).splitlines() == [str(i) for i in range(60, 100)]


def test_ctrl_c_goes_to_the_tool_and_the_run_is_closed(server):
    class CtrlCWhenTheToolStarts(io.StringIO):
        def write(self, text):
            if text.strip() == "started":
                os.kill(os.getpid(), signal.SIGINT)
            return super().write(text)

    handler = signal.getsignal(signal.SIGINT)
    tool = "print('started', flush=True); import time; time.sleep(20)"
    call_command("bench_run", "bench", "--concurrency", "3", "--", sys.executable, "-c", tool,
                 stdout=CtrlCWhenTheToolStarts())
    run = Run.objects.get()
    assert run.ended_at and run.concurrency == 3 and "KeyboardInterrupt" in run.tool_summary
    assert " stopped: " in run.annotations.last().text
    assert signal.getsignal(signal.SIGINT) is handler


def test_names_too_long_for_a_run_are_refused(server):
    with pytest.raises(CommandError, match="--label is longer than 200"):
        call_command("bench_run", "bench", "--label", "x" * 201, "--", "sysbench", "run")
    assert not Run.objects.exists()


@pytest.mark.parametrize("option", ["--run", "--label", "--sweep"])
def test_names_with_control_characters_are_refused_as_the_api_refuses_them(server, option):
    """Audit 4: --label $'x\\x1b[1m' was stored and went raw into runs.csv, where the API now refuses it."""
    with pytest.raises(CommandError) as refused:
        call_command("bench_run", "bench", option, "x\x1b[1m", "--", "sysbench", "run")
    assert str(refused.value) == (f"{option} cannot hold control characters (U+001B): use letters, digits, spaces "
                                  "and punctuation")
    assert not Run.objects.exists()


def test_output_that_is_not_utf8_is_kept_readable(server):
    tool = "import sys; sys.stdout.buffer.write(b'caf\\xe9 \\x00 done\\n')"
    call_command("bench_run", "bench", "--", sys.executable, "-c", tool, stdout=io.StringIO())
    assert Run.objects.get().tool_summary == "caf\ufffd  done"
