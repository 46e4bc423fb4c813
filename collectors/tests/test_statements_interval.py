"""The statements source reads at each server's own statements interval (10 s allowed, 60 s by default)."""

from collectors.poll import is_due
from collectors.pool import Target
from collectors.sources.statements import SOURCE

START = 1_800_000_000.0  # a multiple of 10 s


def reads_in_two_minutes(statements_interval: int, poll_interval: int = 10) -> int:
    target = Target(7, "db", "h", 3306, "", "u", "p", statements_interval=statements_interval)
    last, reads = START, 0
    for k in range(1, 13):  # the polls of two minutes at 10 s
        now = START + poll_interval * k
        if is_due(SOURCE, poll_interval, last, now, target, slot_at=now):
            last, reads = now, reads + 1
    return reads


def test_it_reads_at_the_servers_interval():
    assert reads_in_two_minutes(10) == 12
    assert reads_in_two_minutes(60) == 2
    assert reads_in_two_minutes(30) == 4

