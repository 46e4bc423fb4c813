"""The fleet page reads the whole fleet in a fixed number of statements: 3 servers of each kind cost what 1 does.

Statements are counted where psycopg sends them (Django's cursors and the store's binary ones alike).
Each kind of server takes its own branch of the page: polled now, down with its last readings old
(its trend read up to them), a replica, a host with node_exporter, an alert firing, readings only
in compacted hours, never polled, disabled.
"""

from datetime import timedelta

import psycopg
import pytest
from django.utils import timezone

from alerts.models import Event
from collectors.models import ServerHealth
from store import maintenance
from store.ingest import write_samples
from store.sample import Sample
from testing.alerts import make_rule
from testing.dashboards import get_csv
from testing.servers import make_server

pytestmark = pytest.mark.django_db
WAIT = "wait/io/table/sql/handler"
STEP = 10


def polls(server, last, n: int = 40, replica: bool = False, host: bool = False) -> None:
    """n polls every 10 s up to `last`: 200 transactions a second, history +5 a poll, one wait."""
    samples = []
    for i in range(n):
        ts = last - timedelta(seconds=STEP * (n - 1 - i))
        samples.append(Sample(server.pk, "history_length", ts, None, {"history_list_length": 100 + 5 * i}))
        if not i:
            continue
        samples.append(Sample(server.pk, "global_status", ts, STEP, {"tps": 2000}, frozenset({"tps"})))
        samples.append(Sample(server.pk, "pfs_waits", ts, STEP, {f"wait.time_ps:{WAIT}": 3 * 10**12},
                              frozenset({f"wait.time_ps:{WAIT}"})))
        if replica:
            samples.append(Sample(server.pk, "replication", ts, STEP,
                                  {"replica.lag_s": 4.0, "replica.io_running": 1, "replica.sql_running": 1}))
        if host:
            samples.append(Sample(server.pk, "node_exporter", ts, STEP, {"host.cpu.busy_pct": 37.0}))
    write_samples(samples)


def fleet_of_each_kind(k: int, now) -> None:
    """One server of each kind, named with k."""
    def server(kind: str, **fields):
        s = make_server(name=f"{kind}-{k}", **fields)
        if kind not in ("never", "disabled"):
            ServerHealth.objects.create(server=s, last_poll_at=now, last_success_at=now)
        return s

    polls(server("up"), now)
    down = server("down")
    ServerHealth.objects.filter(server=down).update(consecutive_failures=2, last_error="refused",
                                                    last_success_at=now - timedelta(minutes=20))
    polls(down, now - timedelta(minutes=20))
    polls(server("replica"), now, replica=True)
    polls(server("host", node_exporter_url="http://db:9100/metrics"), now, host=True)
    alerting = server("alerting")
    polls(alerting, now)
    Event.objects.create(rule=make_rule(name=f"history {k}"), server=alerting, since=now, opened_at=now, value=300)
    polls(server("compacted"), now - timedelta(hours=3), n=20)
    server("never")
    server("disabled", enabled=False)


@pytest.fixture
def statements(monkeypatch):
    """Counts every statement sent through psycopg."""
    sent = []
    execute = psycopg.Cursor.execute

    def counted(self, query, *args, **kwargs):
        sent.append(query)
        return execute(self, query, *args, **kwargs)

    monkeypatch.setattr(psycopg.Cursor, "execute", counted)
    return sent


def count(client, statements, url: str) -> int:
    warm = client.get(url)  # the first request of a process fills caches (partitions, sessions)
    if warm.streaming:
        b"".join(warm.streaming_content)
    statements.clear()
    response = client.get(url)
    assert response.status_code == 200
    if response.streaming:
        b"".join(response.streaming_content)  # a CSV reads as it streams
    return len(statements)


def test_the_fleet_page_and_its_csv_make_as_many_statements_for_3_servers_of_each_kind_as_for_1(
        admin_client, statements):
    now = timezone.now().replace(microsecond=0)
    fleet_of_each_kind(0, now)
    maintenance.run(now)  # the hour 3 hours ago compacted: those servers' readings come from its blocks
    one = {url: count(admin_client, statements, url) for url in ("/", "/export/fleet.csv")}
    fleet_of_each_kind(1, now)
    fleet_of_each_kind(2, now)
    maintenance.run(now)
    three = {url: count(admin_client, statements, url) for url in ("/", "/export/fleet.csv")}
    assert three == one
    page = admin_client.get("/").content.decode()
    for k in range(3):  # every kind is there with its figures (a count equal because rows went missing is no pass)
        assert page.count(f"<strong>up-{k}</strong>") == 1
        assert "37 %" in page.split(f"<strong>host-{k}</strong>")[1].split("</tr>")[0]
        assert "4 s" in page.split(f"<strong>replica-{k}</strong>")[1].split("</tr>")[0]
    rows = {r[0]: r for r in get_csv(admin_client, "/export/fleet.csv")[1:]}
    assert len(rows) == 24
