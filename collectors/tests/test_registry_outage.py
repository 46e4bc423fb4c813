"""What the collectors say while PostgreSQL is away: counted on a clock of the test's own."""

import logging

from django.db import OperationalError

from collectors.registry_outage import OUTAGE
from store.outage import OutageLog

# libpq's message for a stopped server: two lines, the second a hint.
REFUSED = OperationalError('connection is bad: connection to server on socket "/var/pg/.s.PGSQL.5432" failed: '
                           "Connection refused\n\tIs the server running locally and accepting connections?")


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_it_says_an_outage_once_a_minute_in_one_line_and_when_it_ends(caplog):
    clock = Clock()
    outage = OutageLog(OUTAGE.log, OUTAGE.down_text, OUTAGE.up_text, clock)
    with caplog.at_level(logging.WARNING, logger="collectors.fleet_cache"):
        for second in range(0, 121):  # dispatch every second for two minutes: said at 0, 60 and 120
            clock.now = second
            outage.down(REFUSED)
        outage.up()
        outage.up()  # said once
        clock.now = 125.0
        outage.down(REFUSED)  # a new outage: said at once
    said = [r.getMessage() for r in caplog.records]
    assert len(said) == 5
    assert said[0] == ('collectors: PostgreSQL unreachable (connection is bad: connection to server on socket '
                       '"/var/pg/.s.PGSQL.5432" failed: Connection refused); polling the registry as last read and '
                       "trying PostgreSQL again at every dispatch tick (1 s) and batch (said once a minute while "
                       "it lasts)")
    assert said[1] == said[2] == said[0] == said[4]
    assert said[3] == "collectors: PostgreSQL answers again; the registry is read from it"
    assert all(r.exc_info is None for r in caplog.records)
