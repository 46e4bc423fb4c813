"""Named fixtures of the monitor tests: a real SMTP server receiving what `up` and its watchdog mail."""

import pytest

from testing.alerts import smtp_inbox


@pytest.fixture
def inbox(settings):
    """An aiosmtpd inbox; this process's settings mail it, as do children given its EMAIL_PORT."""
    with smtp_inbox(settings, ["oncall@example.com"]) as handler:
        yield handler
