"""Resets never store a negative delta nor a spike: restart, FLUSH STATUS, TRUNCATE of the waits summary."""

import time
from datetime import UTC, datetime, timedelta

from collectors import registry
from collectors.batch import poll_server
from store import query

CHEAP = ["global_status", "pfs_waits", "innodb_mutex", "history_length", "innodb_metrics"]


def outcome(result, source: str):
    found = next(s for s in result.sources if s.name == source)
    assert found.ok, found.error
    return found


def assert_no_negative_delta_stored(server, since: datetime) -> None:
    end = datetime.now(UTC) + timedelta(seconds=1)
    series = query.series([server.id], ["*"], since, end, mode="delta")
    counters = [s for s in series if s.kind == "counter"]
    assert counters, "nothing was stored"
    negative = [(s.metric, v) for s in counters for v in s.values if v is not None and v < 0]
    assert negative == []


def wait_for_a_flushable_second(mariadb) -> None:
    """A FLUSH STATUS within the server's first second leaves Uptime_since_flush_status at 0: nothing went down."""
    while int(mariadb.execute("SHOW GLOBAL STATUS LIKE 'Uptime_since_flush_status'")[0][1]) < 1:
        time.sleep(0.1)


def test_flush_status_is_a_reset_not_a_negative_delta(server, load, mariadb):
    wait_for_a_flushable_second(mariadb)
    since = datetime.now(UTC) - timedelta(seconds=1)
    poll_server(server.id, only=["global_status"])
    load.transactions(commits=30)
    poll_server(server.id, only=["global_status"])
    mariadb.execute("FLUSH STATUS")
    reset = outcome(poll_server(server.id, only=["global_status"]), "global_status")
    assert reset.reset and reset.sample.interval is None and reset.sample.counters == frozenset()
    load.transactions(commits=4)
    after = outcome(poll_server(server.id, only=["global_status"]), "global_status")
    assert after.sample.values["tps"] == 4  # the new baseline was kept
    assert_no_negative_delta_stored(server, since)


def test_truncating_the_waits_summary_is_a_reset(server, load, mariadb):
    since = datetime.now(UTC) - timedelta(seconds=1)
    load.transactions(commits=30)
    poll_server(server.id, only=["pfs_waits"])
    mariadb.execute("TRUNCATE TABLE performance_schema.events_waits_summary_global_by_event_name")
    load.transactions(commits=3)
    reset = outcome(poll_server(server.id, only=["pfs_waits"]), "pfs_waits")
    assert "went down" in reset.reset and reset.sample is None  # pfs_waits has no gauges to keep
    load.transactions(commits=5)
    after = outcome(poll_server(server.id, only=["pfs_waits"]), "pfs_waits")
    assert after.sample.interval is not None
    assert after.sample.values["wait.count:wait/io/table/sql/handler"] >= 5
    assert_no_negative_delta_stored(server, since)


def test_a_restart_is_a_reset_for_every_source(server, load, mariadb):
    since = datetime.now(UTC) - timedelta(seconds=1)
    load.transactions(commits=50)
    poll_server(server.id, only=CHEAP)
    load.transactions(commits=50)
    poll_server(server.id, only=CHEAP)
    mariadb.restart()
    result = poll_server(server.id, only=CHEAP)  # the pooled connection broke: reconnected once
    for name in ("global_status", "pfs_waits", "innodb_metrics"):
        found = outcome(result, name)
        assert found.reset, name
        assert found.sample is None or found.sample.interval is None
    load.transactions(commits=2)
    after = poll_server(server.id, only=CHEAP)
    assert outcome(after, "global_status").sample.values["tps"] == 2
    assert_no_negative_delta_stored(server, since)
    assert set(registry.SOURCES) >= set(CHEAP)


def test_a_dropped_table_loses_only_the_table_waits_delta(server, load, mariadb):
    """DROP TABLE takes that table's waits out of wait/io/table/sql/handler: no TRUNCATE, the other waits count on."""
    mariadb.execute("CREATE DATABASE IF NOT EXISTS dropped_waits",
                    "CREATE TABLE dropped_waits.t (id INT PRIMARY KEY) ENGINE=InnoDB",
                    *(f"INSERT INTO dropped_waits.t VALUES ({i})" for i in range(200)))
    poll_server(server.id, only=["pfs_waits"])
    mariadb.execute("DROP TABLE dropped_waits.t")
    load.transactions(commits=3)  # 3 table writes: far fewer than the 200 the dropped table took away
    found = outcome(poll_server(server.id, only=["pfs_waits"]), "pfs_waits")
    assert found.reset == "" and found.sample.interval is not None
    assert "wait.count:wait/io/table/sql/handler (" in found.note
    assert "wait.count:wait/io/table/sql/handler" not in found.sample.values
    others = {name: v for name, v in found.sample.values.items() if name.startswith("wait.count:")}
    assert others and sum(others.values()) > 0  # the commits' mutexes and log writes kept their deltas
    load.transactions(commits=5)
    after = outcome(poll_server(server.id, only=["pfs_waits"]), "pfs_waits")
    assert after.sample.values["wait.count:wait/io/table/sql/handler"] >= 5  # the new total is its baseline
