"""A server whose polls fail is logged when it starts failing and when it answers again, not at every poll."""

import logging
import time

from collectors.tasks import poll_batch
from testing.mariadb import free_port
from testing.servers import PASSWORD

FAILED = "polls failed"
AGAIN = "polls succeed again"


def poll(server) -> None:
    """A poll of every source: the server polls every second, and a second has gone since the last."""
    time.sleep(1.05)
    assert poll_batch([server.id], [time.time()]) == 1  # polled, not skipped as not due yet


def lines(caplog, text: str) -> list[str]:
    return [r.getMessage() for r in caplog.records if text in r.getMessage() and r.levelno >= logging.WARNING]


def test_it_logs_a_failing_server_once_until_it_answers_again(make_server, mariadb, caplog):
    server = make_server("wrong-password", mariadb.port, password="not-it", poll_interval=1)
    caplog.set_level(logging.INFO)
    for _ in range(3):
        poll(server)
    # Three failed polls, one warning, naming the server and why.
    found = lines(caplog, FAILED)
    assert len(found) == 1 and "access denied" in found[0]
    assert found[0].count("wrong-password:") == 1  # the error names its server: not twice

    server.password = PASSWORD
    server.save()
    poll(server)
    poll(server)
    assert lines(caplog, AGAIN) == [f"{AGAIN}: wrong-password"]
    assert len(lines(caplog, FAILED)) == 1


def test_another_server_failing_is_logged_though_one_is_already(make_server, caplog):
    first = make_server("gone-1", free_port(), poll_interval=1)
    second = make_server("gone-2", free_port(), poll_interval=1)
    caplog.set_level(logging.INFO)
    poll(first)
    poll(second)
    poll(first)
    found = lines(caplog, FAILED)
    assert len(found) == 2 and "gone-1" in found[0] and "gone-2" in found[1]
