import io
import os
import signal
import threading
import time
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from dashboards.analysis.run_summary import Warmup
from dashboards.window_reads import run_warmup
from monitor.runtime.sandbox import SandboxMariaDB
from servers.models import Run, Server
from store.ingest import write_samples
from store.sample import Sample
from workload.management.commands.stress import Command as StressCommand

pytestmark = pytest.mark.django_db


def stress(*args: str, stdout=None) -> str:
    out = stdout or io.StringIO()
    call_command("stress", *args, stdout=out)
    return out.getvalue()


def test_it_records_the_run_with_its_bounds_and_annotations(server, write_user):
    before = timezone.now()
    output = stress("bench", "--duration", "1.5", "--interval", "0.5", "--run", "baseline", *write_user)
    after = timezone.now()
    run = Run.objects.get(server=server)
    assert run.name == "baseline"
    assert before <= run.started_at < run.ended_at <= after
    start, end = run.annotations.order_by("at")
    assert (start.at, end.at) == (run.started_at, run.ended_at)
    assert start.text.startswith("stress start: baseline") and "mode=mixed" in start.text
    assert end.text.startswith("stress end: baseline") and "TPS avg" in end.text
    assert " tps " in output and "completed:" in output


def test_ctrl_c_stops_cleanly_and_closes_the_run(server, write_user):
    class CtrlCOnFirstTps(io.StringIO):
        def write(self, text):
            if " tps " in text:  # the run is under way: press Ctrl-C
                os.kill(os.getpid(), signal.SIGINT)
            return super().write(text)

    handler = signal.getsignal(signal.SIGINT)
    output = stress("bench", "--duration", "600", "--interval", "0.3", *write_user, stdout=CtrlCOnFirstTps())
    run = Run.objects.get(server=server)
    assert run.ended_at is not None
    assert run.annotations.last().text.startswith("stress stopped:")
    assert "interrupted:" in output
    assert signal.getsignal(signal.SIGINT) is handler  # handlers put back


def test_it_tells_that_the_monitoring_user_cannot_write(server):
    with pytest.raises(CommandError, match=r"server bench: user 'steady' may not write .*--user"):
        stress("bench", "--duration", "1")
    assert not Run.objects.exists()


def test_an_unknown_server_is_named(server):
    with pytest.raises(CommandError, match="no server named 'nope' \\(registered: bench\\)"):
        stress("nope")


def stop_once_loaded(target: SandboxMariaDB, clients: int, timeout_s: float = 60.0) -> None:
    """Stop the target once the driver's clients run on it (not a fixed delay: on a loaded machine the driver may
    still be setting up, and the target's end would then be a connect error before the run began)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        (connected,), = target.execute("SELECT COUNT(*) FROM information_schema.PROCESSLIST "
                                       "WHERE ID <> CONNECTION_ID() AND USER = 'root'")
        if connected >= clients:
            break
        time.sleep(0.1)
    time.sleep(0.5)
    target.stop()


def test_a_stopped_target_ends_the_driver_with_a_clear_error(private_dir):
    doomed = SandboxMariaDB(private_dir / "data")
    doomed.start()
    try:
        server = Server(name="doomed", host="127.0.0.1", port=doomed.port, user="root")
        server.password = ""
        server.save()
        stopper = threading.Thread(target=stop_once_loaded, args=(doomed, 2))
        stopper.start()
        with pytest.raises(CommandError, match=r"server doomed: the workload stopped: .*Check that the server"):
            stress("doomed", "--duration", "120", "--interval", "0.5", "--concurrency", "2")
        stopper.join()
    finally:
        doomed.stop()
    run = Run.objects.get(server=server)
    assert run.ended_at is not None
    assert run.annotations.last().text.startswith("stress failed:")


def test_an_unreachable_target_is_named_and_no_run_is_left_open():
    from monitor.runtime.ports import free_port

    server = Server(name="gone", host="127.0.0.1", port=free_port(), user="root")
    server.password = ""
    server.save()
    with pytest.raises(CommandError, match=r"server gone: 127\.0\.0\.1:\d+: cannot connect .*Check that it is running"):
        stress("gone", "--duration", "5")
    assert not Run.objects.filter(server=server).exists()


def test_options_are_checked_before_anything_runs(server, monkeypatch):
    monkeypatch.delenv("NOT_SET_PW", raising=False)
    with pytest.raises(CommandError, match="environment variable NOT_SET_PW is not set"):
        stress("bench", "--user", "stresser", "--password-env", "NOT_SET_PW")
    with pytest.raises(CommandError, match="letters, digits and _ only"):
        stress("bench", "--schema", "x`; DROP DATABASE mysql; --")
    assert not Run.objects.exists()


def test_without_warmup_the_run_records_none_given_and_its_warm_up_is_found(server, write_user):
    """The model keeps "no warm-up given" as 0 (the form and the API store the same), which every page reads as
    "find it from the run's TPS polls": a stress run without --warmup gets the ramp of its polls cut."""
    stress("bench", "--duration", "1", "--interval", "0.5", "--run", "no warm-up given", *write_user)
    run = Run.objects.get(server=server)
    assert run.warmup_seconds == 0
    # Its polls, moved into the past with the run: 12 polls 5 s apart, a ramp of 300, 900, 1,500 then 1,990 and
    # 2,010 in turn. By hand: the last 8 average 2,000, SD 10, band 1,980: the first three lie below it, so the
    # warm-up ends at the third poll, 15 s after the start.
    start = timezone.now().replace(microsecond=0) - timedelta(minutes=10)
    rates = [300, 900, 1500, 1990] + [2010, 1990] * 4
    write_samples([Sample(server.pk, "global_status", start + timedelta(seconds=5 * (i + 1)), 5.0, {"tps": r * 5},
                          frozenset({"tps"})) for i, r in enumerate(rates)])
    Run.objects.filter(pk=run.pk).update(started_at=start, ended_at=start + timedelta(seconds=60))
    assert run_warmup(Run.objects.get(pk=run.pk)) == Warmup(15, True)
    # And --help says so, rather than "default 0".
    helped = " ".join(StressCommand().create_parser("manage.py", "stress").format_help().split())
    assert ("--warmup SECONDS seconds at the start left out of the run's statistics (default: found from the run's "
            "TPS polls") in helped
