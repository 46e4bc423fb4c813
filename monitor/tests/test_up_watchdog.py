"""Restarting `up` mails nothing: the watchdog gives the first polls after a start their intervals.

Before, every restart mailed "SteadyState is blind: polling stalled" (the last
poll was older than the intervals when the watchdog started) and then "polls
again". Here `up` polls the suite's MariaDB, stops for longer than the intervals,
starts again and polls again, with its watchdog mailing a real SMTP inbox.
"""

import os
import shutil
import signal
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from testing.mariadb import free_port
from testing.servers import PASSWORD
from testing.up import add_server, start_up, wait_for_login_page, wait_for_poll_after

RECIPIENT = "oncall@example.com"  # the inbox fixture's settings name it too
INTERVAL, INTERVALS = 5, 3  # the server's poll interval; intervals without a success before "blind"


@pytest.fixture
def var():
    path = Path(tempfile.mkdtemp(prefix="ssup-"))
    os.chmod(path, 0o755)  # pgserver runs postgres as its own user when root
    yield path
    shutil.rmtree(path, ignore_errors=True)


def watchdog_mail(inbox) -> list[str]:
    return [s for s in inbox.subjects() if "blind" in s or "polls again" in s]


def test_restarting_up_sends_no_watchdog_mail(var, tmp_path, inbox, settings, mariadb):
    port = free_port()
    env = dict(ALERT_RECIPIENTS=RECIPIENT, EMAIL_HOST="127.0.0.1", EMAIL_PORT=str(settings.EMAIL_PORT),
               WATCHDOG_INTERVALS=str(INTERVALS), WATCHDOG_CHECK_SECONDS="1")
    url = f"http://127.0.0.1:{port}"
    first = start_up(var, port, tmp_path / "up1.log", args=("--no-demo",), **env)
    try:
        wait_for_login_page(first, url, tmp_path / "up1.log")
        added = datetime.now(UTC)
        add_server(var, "db", mariadb.port, PASSWORD, INTERVAL)
        polled = wait_for_poll_after(var, added)
    finally:
        first.send_signal(signal.SIGINT)
        first.wait(60)
    # Stopped for longer than the intervals: the last poll is stale when `up` starts again.
    time.sleep(max(0.0, (polled + timedelta(seconds=INTERVAL * INTERVALS + 1) - datetime.now(UTC)).total_seconds()))
    restarted = datetime.now(UTC)
    second = start_up(var, port, tmp_path / "up2.log", args=("--no-demo",), **env)
    try:
        wait_for_login_page(second, url, tmp_path / "up2.log")
        wait_for_poll_after(var, restarted)
        time.sleep(3)  # three more rounds of the watchdog
        log = (tmp_path / "up2.log").read_text()
        assert "watchdog: checking every 1 s" in log
    finally:
        second.send_signal(signal.SIGINT)
        second.wait(60)
    assert watchdog_mail(inbox) == [], inbox.subjects()
