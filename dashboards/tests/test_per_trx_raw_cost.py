"""What the waits page reads for waits per transaction over a week of polls where TPS misses one of the wait
summary's polls (a status counter reset): the two sources' polls once and each stretch's totals, never every
listed wait counter's polls over the week (a week of 60 s polls of 13 counters is 131,040 values). Counts, no
timing: printed with -s."""

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dashboards.export.csv_safe import iso_utc
from store import compaction, read_full
from store.ingest import write_samples
from store.sample import Sample
from testing import dashboards as data

pytestmark = pytest.mark.django_db
NOW = datetime.now(UTC).replace(minute=0, second=0, microsecond=0)
T0 = NOW - timedelta(days=8)  # inside the 14 days of polls
POLLS = range(1, 7 * 1440 + 1)  # 60 s polls for 7 days
MISSED = 5000  # TPS has no delta here: the wait summary's poll 5000 is not covered
EVENTS = [f"wait/synch/mutex/innodb/event_{k}" for k in range(6)]


def at(i: int, ms: int = 0) -> datetime:
    return T0 + timedelta(seconds=60 * i, milliseconds=ms)


@pytest.fixture
def week(admin_user, client):
    client.force_login(admin_user)
    server = data.make_server("db1", poll_interval=60)
    samples = [Sample(server.pk, "global_status", at(i), 60.0, {"tps": 1000}, frozenset({"tps"}))
               for i in POLLS if i != MISSED]
    values = {f"wait.time_ps:{e}": 10**9 for e in EVENTS} | {f"wait.count:{e}": 10 for e in EVENTS}
    samples += [Sample(server.pk, "pfs_waits", at(i, 3), 60.0, values, frozenset(values)) for i in POLLS]
    write_samples(samples)
    compaction.compact_closed(NOW)
    return server


def test_a_week_of_polls_with_one_tps_poll_missed_reads_two_sources_polls_not_every_waits(client, week, monkeypatch):
    read: list[int] = []
    real = read_full.read_many

    def counted(by_server, windows):
        found = real(by_server, windows)
        read.extend(len(p.vals) for arrays in found.values() for p in arrays.values())
        return found
    monkeypatch.setattr(read_full, "read_many", counted)
    with CaptureQueriesContext(connection) as queries:
        response = client.get(f"/servers/{week.pk}/waits/",
                              {"from": iso_utc(at(0, 500)), "to": iso_utc(at(POLLS[-1], 500))})
    per_trx = response.context["per_trx"]
    # Every poll but 5000 both cover: 6 ms waited over 1000 transactions a poll.
    assert per_trx.wait_ms == pytest.approx(0.006, rel=1e-9)
    assert per_trx.wait_seconds == 60 * (len(POLLS) - 1)
    print(f"\nraw values read: {sum(read)} in {len(read)} arrays; SQL statements: {len(queries)}")
    # TPS's and the wait summary's own polls over the week (10,080 each, a margin more), and the stretches'
    # ragged edges: not the 13 counters' 131,040.
    assert sum(read) < 3 * len(POLLS)
