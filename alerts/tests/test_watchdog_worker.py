"""The watchdog against a real Celery worker: killed, the fleet goes blind and is mailed; restarted, mailed again.

Three processes besides the test: a Celery worker polling the suite's MariaDB, the
watchdog (`manage.py watchdog`, as `up` runs it) and the aiosmtpd inbox. The test
process is the beat: it keeps dispatching while the worker is dead, as a beat
that outlived its worker does.
"""

import signal
import subprocess
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from django.db.models import Max

from collectors import schedule
from collectors.models import PollRecord, ServerHealth
from testing.child_env import child_env
from testing.scale_out import beat_until
from testing.servers import make_server
from testing.workers import BASE_DIR, start_worker, stop_worker, wait_alive

INTERVAL, INTERVALS, CHECK = 1, 3, 1  # seconds between polls; intervals without a success; seconds per round
SLACK = 2.5  # seconds a loaded machine may add between the round that sees it and the mail's arrival
RECIPIENT = "oncall@example.com"


def start_watchdog(env: dict[str, str], log: Path) -> subprocess.Popen:
    """`manage.py watchdog` until it says it is checking (its Django start-up is not part of the timing)."""
    proc = subprocess.Popen([str(BASE_DIR / ".venv/bin/python"), "manage.py", "watchdog"], cwd=BASE_DIR, env=env,
                            stdout=log.open("w"), stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 30
    while "checking every" not in log.read_text():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise RuntimeError(f"the watchdog did not start: {log.read_text()}")
        time.sleep(0.1)
    return proc


def last_success(server_id: int) -> datetime | None:
    """From the poll history: when the newest successful poll started."""
    return PollRecord.objects.filter(server_id=server_id, ok=True).aggregate(at=Max("started_at"))["at"]


def ok_polls_since(server_id: int, at: datetime) -> int:
    return PollRecord.objects.filter(server_id=server_id, ok=True, started_at__gt=at).count()


@pytest.fixture
def processes(inbox, settings, transactional_db, tmp_path):
    """(the processes by name, start a worker by name): worker w1 and the watchdog run; all stopped afterwards."""
    env = child_env(COLLECTORS_HEARTBEAT_TTL="1")
    procs: dict[str, subprocess.Popen] = {}

    def worker(name: str) -> subprocess.Popen:
        procs[name] = start_worker(name, env, tmp_path / f"{name}.log", concurrency=1, threads=2)
        return procs[name]

    watch_env = dict(env, ALERT_RECIPIENTS=RECIPIENT, EMAIL_HOST=settings.EMAIL_HOST,
                     EMAIL_PORT=str(settings.EMAIL_PORT), SITE_URL=settings.SITE_URL,
                     WATCHDOG_INTERVALS=str(INTERVALS), WATCHDOG_CHECK_SECONDS=str(CHECK),
                     WATCHDOG_STATE_FILE=str(tmp_path / "watchdog-state.json"))
    try:
        first = worker("w1")
        procs["watchdog"] = start_watchdog(watch_env, tmp_path / "watchdog.log")
        wait_alive(["w1"], [first])
        yield procs, worker
    finally:
        procs.pop("watchdog").terminate()
        for proc in procs.values():
            stop_worker(proc)
        schedule.reset()


def test_a_killed_worker_is_mailed_after_its_intervals_and_its_successor_too(processes, inbox, mariadb):
    procs, start = processes
    # Added once worker and watchdog run: a server never polled gets INTERVALS intervals from its creation.
    server = make_server("watched", port=mariadb.port, poll_interval=INTERVAL)
    added = datetime.now(UTC)
    beat_until(lambda: ok_polls_since(server.id, added) >= 3, timeout=10)
    assert ok_polls_since(server.id, added) >= 3
    assert inbox.messages == []  # polls succeed: no alarm

    procs["w1"].send_signal(signal.SIGKILL)  # the worker dies; the beat (this process) goes on
    procs["w1"].wait()
    killed = datetime.now(UTC)
    beat_until(lambda: inbox.messages, timeout=INTERVALS * INTERVAL + CHECK + 10)
    assert inbox.subjects() == ["[SteadyState] SteadyState is blind: polling stalled"]
    last = last_success(server.id)
    assert killed - last < timedelta(seconds=2 * INTERVAL)  # it polled until it died
    # Blind no earlier than INTERVALS intervals after the last success, and within a round (and slack) of it.
    blind_at = last + timedelta(seconds=INTERVALS * INTERVAL)
    assert blind_at <= inbox.arrived[0] <= blind_at + timedelta(seconds=CHECK + SLACK)
    assert inbox.messages[0]["To"] == RECIPIENT
    assert f"since {last:%Y-%m-%d %H:%M:%S} UTC" in inbox.text(0) and "Celery worker or beat" in inbox.text(0)

    restarted = datetime.now(UTC)
    assert len(inbox.messages) == 1  # still blind for the rounds since: one mail per stall
    wait_alive(["w2"], [start("w2")])
    beat_until(lambda: len(inbox.messages) > 1, timeout=20)
    assert inbox.subjects()[1:] == ["[SteadyState] SteadyState polls again"]
    resumed = PollRecord.objects.filter(server=server, ok=True, started_at__gt=restarted).order_by("started_at")
    assert resumed and resumed[0].started_at <= inbox.arrived[1]  # mailed after a successful poll, not before
    assert inbox.arrived[1] <= resumed[0].started_at + timedelta(seconds=CHECK + SLACK)


def test_it_mails_with_redis_down(inbox, settings, transactional_db, tmp_path):
    # A fleet whose last poll is an hour old, a watchdog whose Redis is gone: it must still mail, once.
    server = make_server("watched", poll_interval=INTERVAL)
    stopped = datetime.now(UTC) - timedelta(hours=1)
    ServerHealth.objects.create(server=server, last_success_at=stopped)
    type(server).objects.filter(pk=server.pk).update(created_at=stopped)
    env = child_env(REDIS_URL=f"unix://{tmp_path}/no-redis.sock", ALERT_RECIPIENTS=RECIPIENT,
                    EMAIL_HOST=settings.EMAIL_HOST, EMAIL_PORT=str(settings.EMAIL_PORT),
                    WATCHDOG_INTERVALS=str(INTERVALS), WATCHDOG_CHECK_SECONDS=str(CHECK),
                    WATCHDOG_STATE_FILE=str(tmp_path / "watchdog-state.json"))
    proc = start_watchdog(env, tmp_path / "watchdog.log")
    try:
        deadline = time.monotonic() + INTERVALS * INTERVAL + CHECK + 15
        while not inbox.messages and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(3 * CHECK)  # three more rounds: still one mail
    finally:
        proc.terminate()
        proc.wait(10)
    log = (tmp_path / "watchdog.log").read_text()
    assert inbox.subjects() == ["[SteadyState] SteadyState is blind: polling stalled"], log
    assert f"since {stopped:%Y-%m-%d %H:%M:%S} UTC" in inbox.text(0)
