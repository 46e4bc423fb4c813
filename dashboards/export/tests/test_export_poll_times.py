"""Times read from polls (which carry microseconds) are written to the second, spans between them to 0.1 s:
the fleet's "history trend fitted over (s)" was 49.988738, statement.csv's "read at" and holders.csv's times
had microseconds (a spreadsheet reads such a time as text)."""

from datetime import UTC, timedelta

import pytest
from django.utils import timezone

from collectors.models import ServerHealth, TrxHolder
from store.ingest import write_samples
from store.sample import Sample
from store.statement_reads import totals
from testing.dashboards import TEN_MINUTES, get_csv, make_server
from testing.statements import MS, Shape, write_reads

pytestmark = pytest.mark.django_db
JITTER = timedelta(microseconds=11_262)  # a poll's read time is never on the second
START, END = TEN_MINUTES


def whole(ts) -> str:
    return f"{ts.astimezone(UTC):%Y-%m-%dT%H:%M:%S}Z"


def test_the_fleet_writes_the_span_the_trend_was_fitted_over_to_a_tenth_of_a_second(admin_client):
    now = timezone.now().replace(microsecond=0)
    server = make_server("db", poll_interval=10)
    # Six history polls 10 s apart up to now, the first 11.262 ms late: fitted over 50 - 0.011262 = 49.988738 s.
    ts = [now - timedelta(seconds=50 - 10 * j) + (JITTER if j == 0 else timedelta(0)) for j in range(6)]
    write_samples(
        [Sample(server.pk, "history_length", t, None, {"history_list_length": 1000 + 10 * j}) for j, t in enumerate(ts)]
    )
    ServerHealth.objects.create(server=server, last_poll_at=now, last_success_at=now)
    rows = get_csv(admin_client, "/export/fleet.csv")
    row = dict(zip(rows[0], rows[1], strict=True))
    assert row["history trend fitted over (s)"] == "50"
    assert row["history trend since (UTC)"] == whole(ts[0])


def test_a_statements_reads_are_written_to_the_second(admin_client):
    server = make_server("db", poll_interval=10)
    write_reads(server.pk, START + JITTER, 3, shapes=(Shape("d-one", "SELECT ? ", 10, MS),))
    (digest,) = [r.digest_id for r in totals(server.pk, START, END) if r.digest == "d-one"]
    rows = get_csv(
        admin_client,
        "/export/statement.csv",
        server=server.pk,
        digest=digest,
        **{"from": START.isoformat(), "to": END.isoformat()},
    )
    # Reads end 60, 120 and 180 s after START + 11.262 ms.
    assert [r[0] for r in rows[1:]] == [whole(START + timedelta(seconds=60 * k)) for k in (1, 2, 3)]
    assert rows[1][1] == "60"


def test_holders_are_written_to_the_second_and_held_for_to_a_tenth(admin_client):
    server = make_server("db", poll_interval=10)
    started = START + timedelta(seconds=5, microseconds=250_000)
    seen = START + timedelta(seconds=125) + JITTER
    TrxHolder.objects.create(
        server=server,
        thread_id=40,
        trx_key="k",
        user="root",
        host="localhost",
        started_at=started,
        seen_at=seen,
        ended_at=seen + timedelta(seconds=10),
    )
    rows = get_csv(
        admin_client, "/export/holders.csv", server=server.pk, **{"from": START.isoformat(), "to": END.isoformat()}
    )
    row = dict(zip(rows[0], rows[1], strict=True))
    assert (row["from (UTC)"], row["last seen (UTC)"], row["ended by (UTC)"]) == (
        whole(START + timedelta(seconds=5)),
        whole(START + timedelta(seconds=125)),
        whole(START + timedelta(seconds=135)),
    )
    assert row["held for (s)"] == "119.8"  # 125.011262 - 5.25 = 119.761262
