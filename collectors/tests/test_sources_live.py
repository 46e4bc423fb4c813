"""Every source against the test MariaDB, under a load the test itself generates."""

from io import StringIO

from django.core.management import call_command

from collectors import registry
from collectors.batch import poll_server
from collectors.models import PollRecord, ServerHealth
from collectors.pool import POOL
from testing.collectors import history_len_metric, values_of

# Every SQL source (node_exporter reads an HTTP agent, not this server: test_node_exporter_*.py).
ALL = [source.name for source in registry.all_sources() if source.kind == "mysql"]
MYSQL_ONLY = [name for name, source in registry.SOURCES.items() if "mariadb" not in source.flavors]  # redo_log


def test_it_counts_exactly_the_transactions_the_test_caused(server, load):
    poll_server(server.id, only=["global_status"])
    before = load.status("Com_commit", "Com_rollback")
    load.transactions(commits=23, rollbacks=6)
    after = load.status("Com_commit", "Com_rollback")
    values = values_of(poll_server(server.id, only=["global_status"]), "global_status")
    assert values["Com_commit"] == after["Com_commit"] - before["Com_commit"] == 23
    assert values["Com_rollback"] == after["Com_rollback"] - before["Com_rollback"] == 6
    assert values["tps"] == 29
    assert values["qps"] > 29  # every statement of the load is a question
    assert "Threads_running" in values and "Threads_running" not in poll_counters(server, "global_status")


def poll_counters(server, source: str) -> frozenset:
    outcome = next(s for s in poll_server(server.id, only=[source]).sources if s.name == source)
    assert outcome.sample is not None, outcome.error
    return outcome.sample.counters


def test_the_monitoring_users_own_statements_are_not_transactions(server):
    for _ in range(4):
        values = values_of(poll_server(server.id, only=ALL), "global_status")
    assert values["tps"] == 0 and values["Com_commit"] == 0


def test_it_reuses_one_connection_across_polls(server):
    first = poll_server(server.id, only=ALL)
    connects = POOL.connects
    for _ in range(3):
        result = poll_server(server.id, only=ALL)
        assert not result.connected_now
    assert first.connected_now and POOL.connects == connects


def test_wait_counts_grow_for_the_events_the_load_provoked(server, load):
    poll_server(server.id, only=["pfs_waits"])
    load.transactions(commits=40)
    values = values_of(poll_server(server.id, only=["pfs_waits"]), "pfs_waits")
    assert values["wait.count:wait/io/table/sql/handler"] >= 40  # one row write each
    assert values["wait.time_ps:wait/io/table/sql/handler"] > 0
    assert isinstance(values["wait.time_ps:wait/io/table/sql/handler"], int)
    assert not any(name.endswith(":idle") for name in values)


def test_history_length_equals_innodb_metrics_and_grows_under_an_open_read_view(server, load, mariadb):
    load.transactions(commits=5)
    assert "history_list_length" in values_of(poll_server(server.id, only=["history_length"]), "history_length")
    reader = mariadb.connect()
    try:
        with reader.cursor() as cur:
            cur.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT")
            cur.execute("SELECT COUNT(*) FROM collector_load.t")
        load.updates(200)
        # Purge may still trim older history between two reads, so the poll's
        # value must lie between INNODB_METRICS read just before and just after.
        before = history_len_metric(mariadb)
        length = values_of(poll_server(server.id, only=["history_length"]), "history_length")
        after = history_len_metric(mariadb)
    finally:
        reader.close()
    assert min(before, after) <= length["history_list_length"] <= max(before, after)
    # The 200 updates made under the open read view cannot be purged (older
    # history, counted in `start`, may be), so at least most of them remain.
    assert length["history_list_length"] >= 150


def test_it_lists_disabled_purge_counters_and_reads_them_once_enabled(server, mariadb):
    result = poll_server(server.id, only=["innodb_metrics"])
    note = next(s for s in result.sources if s.name == "innodb_metrics").note
    assert "purge_del_mark_records" in note and "SET GLOBAL innodb_monitor_enable = 'purge%'" in note
    mariadb.execute("SET GLOBAL innodb_monitor_enable = 'purge%'")
    try:
        values = values_of(poll_server(server.id, only=["innodb_metrics"]), "innodb_metrics")
        values = values_of(poll_server(server.id, only=["innodb_metrics"]), "innodb_metrics")
    finally:
        mariadb.execute("SET GLOBAL innodb_monitor_disable = 'purge%'")
    assert "innodb_metrics:purge_invoked" in values
    assert values["innodb_metrics:trx_rseg_history_len"] >= 0  # TYPE value: a gauge


def test_variables_are_stored_when_they_change(server, mariadb):
    first = values_of(poll_server(server.id, only=["variables"]), "variables")
    assert first["var:innodb_max_purge_lag"] == 0 and "var:innodb_buffer_pool_size" in first
    assert values_of(poll_server(server.id, only=["variables"]), "variables") == {}
    mariadb.execute("SET GLOBAL innodb_max_purge_lag = 400000")
    try:
        changed = values_of(poll_server(server.id, only=["variables"]), "variables")
    finally:
        mariadb.execute("SET GLOBAL innodb_max_purge_lag = 0")
    assert changed == {"var:innodb_max_purge_lag": 400000}


def test_innodb_mutex_falls_back_to_performance_schema_on_mariadb_106_and_says_so(server, load):
    poll_server(server.id, only=["innodb_mutex"])
    load.transactions(commits=20)
    result = poll_server(server.id, only=["innodb_mutex"])
    outcome = next(s for s in result.sources if s.name == "innodb_mutex")
    assert "MariaDB 10.6+" in outcome.note and "performance_schema" in outcome.note
    assert any(k.startswith("mutex.waits:wait/synch/") and "/innodb/" in k for k in outcome.sample.values)


def test_it_records_health_per_poll_and_per_source(server):
    poll_server(server.id, only=ALL)
    poll_server(server.id, only=ALL)
    health = ServerHealth.objects.get(server=server)
    assert health.consecutive_failures == 0 and health.last_error == "" and health.polls == 2
    assert set(health.sources) == set(ALL)
    assert all(entry["ok"] and entry["duration_ms"] > 0 for name, entry in health.sources.items()
               if name not in MYSQL_ONLY)
    assert all("not available on MariaDB" in health.sources[name]["error"] for name in MYSQL_ONLY)
    assert PollRecord.objects.filter(server=server).count() == 2
    server.refresh_from_db()
    assert server.flavor == "mariadb" and server.version.startswith("10.")


def test_the_poll_command_prints_what_each_source_got(server):
    out = StringIO()
    call_command("poll", server.name, stdout=out)
    text = out.getvalue()
    for name in ALL:
        assert f"  {name}: ok" in text or (name in MYSQL_ONLY and f"  {name}: UNAVAILABLE" in text)
    assert "history_list_length = " in text and "MariaDB 10." in text


def test_a_normal_workload_never_looks_like_a_reset(server, load):
    """A gauge taken for a counter would go down now and then and drop whole samples as resets."""
    poll_server(server.id, only=ALL)
    for _ in range(5):
        load.transactions(commits=10, rollbacks=2)
        load.updates(20)
        result = poll_server(server.id, only=["global_status", "pfs_waits", "innodb_mutex", "innodb_metrics"])
        assert [(s.name, s.reset) for s in result.sources if s.reset] == []
