"""Named fixtures of the alerts tests: a real SMTP server, a server, one the watchdog watches (helpers in
testing.alerts)."""

import pytest

from alerts import watchdog
from testing.alerts import smtp_inbox
from testing.servers import make_server


@pytest.fixture
def inbox(settings):
    with smtp_inbox(settings, []) as handler:  # built-in rules mail nobody in tests
        settings.SITE_URL = "http://steady.example"
        yield handler


@pytest.fixture
def server(db):
    return make_server()


@pytest.fixture
def watched(inbox, settings, mariadb, tmp_path):
    """The suite's MariaDB polled every 10 s, watched by a watchdog that mails oncall@ after 3 missed intervals and
    keeps its state in the test's own file; no PostgreSQL outage remembered from another test."""
    settings.ALERT_RECIPIENTS = ["oncall@example.com"]
    settings.WATCHDOG_INTERVALS = 3
    settings.WATCHDOG_STATE_FILE = str(tmp_path / "watchdog-state.json")
    watchdog._unreadable_since = None
    return make_server("sandbox", port=mariadb.port, poll_interval=10)
