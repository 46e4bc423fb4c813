"""A real replica (a second sandbox MariaDB replicating from a third): its lag and a stopped thread are
read by the replication source and judged by the built-in replication rules."""

import time
from datetime import datetime

import pytest

from alerts.builtin import ensure_builtin_rules
from alerts.evaluation import evaluate_all
from alerts.models import Event, Rule
from collectors.batch import poll_server
from collectors.poll import due_sources
from collectors.pool import POOL, Target
from collectors.sources import replication
from testing.alerts import until
from testing.dashboards import fleet_replica_cell
from testing.mariadb import running_sandbox
from testing.servers import make_server

pytestmark = pytest.mark.django_db
FAKE_AGE = 100  # seconds: the source stamps the event this far in the past (SET TIMESTAMP)


@pytest.fixture(scope="module")
def pair():
    """A source writing a binary log and its replica, started once for this module."""
    with running_sandbox("steadystate-source-", log_bin=True, server_id=1) as source, \
            running_sandbox("steadystate-replica-", server_id=2) as replica:
        replica.replicate_from(source)
        source.execute("CREATE DATABASE r", "CREATE TABLE r.t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB",
                       "INSERT INTO r.t VALUES (1, 0)")
        until(lambda: replica.execute("SELECT COUNT(*) FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'r'"
                                         )[0][0] == 1)
        yield source, replica
    POOL.close_all()


def values(result) -> dict:
    outcome = next(s for s in result.sources if s.name == replication.NAME)
    assert outcome.ok, outcome.error
    return outcome.sample.values if outcome.sample else {}


def poll_until(server_id: int, metric: str, value: float) -> datetime:
    """Poll replication until metric reads value; the time of that reading."""
    found: list[datetime] = []

    def reads_it() -> bool:
        outcome = next(s for s in poll_server(server_id, only=[replication.NAME]).sources
                       if s.name == replication.NAME)
        if outcome.sample is not None and outcome.sample.values.get(metric) == value:
            found.append(outcome.sample.ts)
        return bool(found)

    until(reads_it)
    return found[0]


def test_a_server_that_is_no_replica_stores_nothing_and_fires_nothing(pair):
    source, _ = pair
    server = make_server("source", port=source.port)
    result = poll_server(server.id, only=[replication.NAME])
    assert values(result) == {} and "not a replica" in result.sources[0].note
    evaluate_all()
    assert not Event.objects.filter(server=server).exists()


def test_it_sees_the_lag_of_an_event_the_replica_is_stuck_on(pair, admin_client):
    source, replica = pair
    server = make_server("replica", port=replica.port)
    poll_server(server.id, only=[replication.NAME])
    ensure_builtin_rules()
    Rule.objects.filter(builtin="replica-lag").update(enabled=True, threshold=FAKE_AGE / 2)
    blocker = replica.connect()
    try:
        with blocker.cursor() as cur:
            cur.execute("LOCK TABLES r.t WRITE")  # the SQL thread waits on this lock, mid-event
        stamped = time.time() - FAKE_AGE
        source.execute(f"SET TIMESTAMP = {int(stamped)}", "UPDATE r.t SET v = v + 1 WHERE id = 1")
        time.sleep(0.5)
        result = poll_server(server.id, only=[replication.NAME])
        lag = values(result)["replica.lag_s"]
        # The replica's clock minus the event's timestamp, both on this machine.
        assert result.started_at.timestamp() - int(stamped) - 2 <= lag <= time.time() - int(stamped) + 1
        evaluate_all()
        event = Event.objects.get(rule__builtin="replica-lag", server=server)
        assert event.firing and f"{lag:,.0f} s behind its source" in event.detail
        fleet = admin_client.get("/").content.decode()
        assert f">{lag:,.0f} s<" in fleet_replica_cell(fleet, "replica")  # the fleet's lag now
    finally:
        blocker.close()
    until(lambda: values(poll_server(server.id, only=[replication.NAME])).get("replica.lag_s") == 0)
    evaluate_all()
    assert not Event.objects.get(rule__builtin="replica-lag", server=server).firing


def test_a_stopped_sql_thread_fires_replication_stopped_until_it_runs_again(pair, admin_client):
    _, replica = pair
    server = make_server("replica-stopped", port=replica.port)
    replica.execute("STOP SLAVE SQL_THREAD")
    try:
        got = values(poll_server(server.id, only=[replication.NAME]))
        assert got == {"replica.io_running": 1, "replica.sql_running": 0}  # no lag while the SQL thread is stopped
        evaluate_all()
        event = Event.objects.get(rule__builtin="replica-stopped", server=server)
        assert event.firing and "SQL thread not running" in event.detail and "SQL thread No" in event.detail
        assert "stopped: SQL" in fleet_replica_cell(admin_client.get("/").content.decode(), "replica-stopped")
    finally:
        replica.execute("START SLAVE SQL_THREAD")
    running_again = poll_until(server.id, "replica.sql_running", 1)
    evaluate_all()
    event = Event.objects.get(rule__builtin="replica-stopped", server=server)
    assert not event.firing and event.ended_at == running_again  # the poll that saw it run, not the evaluation


def test_the_lag_rule_is_built_in_and_off_and_the_stopped_rule_on(pair):
    evaluate_all()
    lag, stopped = Rule.objects.get(builtin="replica-lag"), Rule.objects.get(builtin="replica-stopped")
    assert (lag.enabled, lag.kind, stopped.enabled, stopped.kind) == (False, "replica_lag", True, "replica_stopped")


def test_replication_is_read_every_poll_on_a_replica_and_once_a_minute_on_a_server_with_no_channel(pair):
    source, replica = pair
    assert not source.execute("SHOW ALL SLAVES STATUS")  # the primary has no channel of its own
    primary, copy = make_server("no-channel", port=source.port), make_server("a-replica", port=replica.port)
    for server in (primary, copy):
        poll_server(server.id, only=[replication.NAME])
    # Six 10 s polls in a row, each 10 s after the previous read: how many read replication.
    start = 600 * (time.time() // 600)
    reads = {server.name: sum(replication.NAME in {s.name for s in due_sources(
        10, {replication.NAME: at - 10}, at, target=Target.from_server(server), slot_at=at)}
        for at in (start + 10 * k for k in range(6))) for server in (primary, copy)}
    assert reads == {"no-channel": 1, "a-replica": 6}
