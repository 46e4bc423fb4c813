"""Named fixtures of the alerts tests: a real SMTP server and a server (helpers in testing.alerts)."""

import pytest

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
