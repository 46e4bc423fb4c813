"""What a poll costs the monitored server, counted by its own performance_schema."""

from collectors.batch import poll_server
from collectors.sources.global_status import KEPT_COM
from testing.collectors import history_len_metric, values_of

USER_STATEMENTS_SQL = ("SELECT COALESCE(SUM(COUNT_STAR), 0) FROM "
                       "performance_schema.events_statements_summary_by_user_by_event_name WHERE USER = 'steady'")


def statements_of(mariadb, only: list[str], server) -> tuple[int, object]:
    before = int(mariadb.execute(USER_STATEMENTS_SQL)[0][0])
    result = poll_server(server.id, only=only)
    return int(mariadb.execute(USER_STATEMENTS_SQL)[0][0]) - before, result


def test_history_length_costs_no_statement_beside_the_status_read(server, load, mariadb):
    poll_server(server.id, only=["global_status", "history_length"])  # connected, names learnt
    alone, _ = statements_of(mariadb, ["global_status"], server)
    load.updates(50)
    low = history_len_metric(mariadb)
    both, result = statements_of(mariadb, ["global_status", "history_length"], server)
    high = history_len_metric(mariadb)
    assert alone == both == 1
    # The same trx_sys figure as INNODB_METRICS (purge may trim it between the reads).
    assert min(low, high) <= values_of(result, "history_length")["history_list_length"] <= max(low, high)


def test_history_length_alone_still_reads_it(server, mariadb):
    poll_server(server.id, only=["history_length"])
    count, result = statements_of(mariadb, ["history_length"], server)
    assert count == 1 and "history_list_length" in values_of(result, "history_length")


def test_mariadb_status_is_one_statement_with_every_name_information_schema_has(server, mariadb):
    poll_server(server.id, only=["global_status"])  # connected, names learnt
    count, result = statements_of(mariadb, ["global_status"], server)
    # Independently: the numeric rows of the information_schema table, less the families left out.
    expected = {name.upper() for name, value in mariadb.execute(
        "SELECT VARIABLE_NAME, VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS")
        if number_text(value) and not left_out(name)}
    got = {name.upper() for name in values_of(result, "global_status")} - {"TPS", "TPS_EXPLICIT", "QPS"}
    last = mariadb.execute("SELECT c.SQL_TEXT FROM performance_schema.events_statements_current c"
                           " JOIN performance_schema.threads t USING (THREAD_ID) WHERE t.PROCESSLIST_USER = 'steady'")
    # The cheap table, not the fallback; another test's idle 'steady' session may be listed beside the poller's.
    assert count == 1 and any("performance_schema.global_status" in row[0] for row in last)
    assert got == expected


def number_text(value) -> bool:
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def left_out(name: str) -> bool:
    upper = name.upper()
    if upper.startswith("COM_"):
        return upper not in {n.upper() for n in KEPT_COM}
    return upper.startswith(("SSL_", "WSREP", "PERFORMANCE_SCHEMA_", "FEATURE_"))


def test_innodb_latches_cost_no_statement_beside_the_waits_read_on_mariadb(server, load, mariadb):
    poll_server(server.id, only=["pfs_waits", "innodb_mutex"])  # baselines
    alone, first = statements_of(mariadb, ["pfs_waits"], server)
    load.transactions(commits=30)
    both, result = statements_of(mariadb, ["pfs_waits", "innodb_mutex"], server)
    latches = values_of(result, "innodb_mutex")
    waits = values_of(result, "pfs_waits")
    # Independently: the InnoDB latch events performance_schema has counted, read as root after the poll.
    counted = {event for (event,) in mariadb.execute(
        "SELECT EVENT_NAME FROM performance_schema.events_waits_summary_global_by_event_name"
        " WHERE COUNT_STAR > 0 AND EVENT_NAME REGEXP '^wait/synch/(mutex|rwlock|sxlock)/innodb/'")}
    events = {name.partition(":")[2] for name in latches}
    assert alone == both == 1
    assert events and events <= counted
    # The latches' delta spans both polls since their baseline; InnoDB's background threads take
    # latches between any two polls, so it is the two waits deltas together that it equals.
    earlier = values_of(first, "pfs_waits")
    assert all(latches[f"mutex.waits:{e}"] == earlier.get(f"wait.count:{e}", 0) + waits[f"wait.count:{e}"]
               for e in events)


def test_status_and_waits_share_one_statement_and_each_gets_its_own_figures(server, load, mariadb):
    poll_server(server.id, only=["global_status", "pfs_waits"])  # baselines
    load.transactions(commits=23, rollbacks=4)
    count, result = statements_of(mariadb, ["global_status", "pfs_waits"], server)
    status, waits = values_of(result, "global_status"), values_of(result, "pfs_waits")
    counted = {event for (event,) in mariadb.execute(
        "SELECT EVENT_NAME FROM performance_schema.events_waits_summary_global_by_event_name"
        " WHERE COUNT_STAR > 0 AND EVENT_NAME <> 'idle'")}
    assert count == 1
    assert status["Com_commit"] == 23 and status["Com_rollback"] == 4  # the load's own transactions
    assert waits["wait.count:wait/io/table/sql/handler"] >= 27  # a row written by each
    assert {name.partition(":")[2] for name in waits} <= counted


def test_the_minute_sources_share_the_statement_on_their_turn(server, mariadb):
    sources = ["global_status", "pfs_waits", "innodb_metrics", "variables"]
    first = poll_server(server.id, only=sources)  # connected; every setting stored (stored on change)
    count, result = statements_of(mariadb, sources, server)
    settings = dict(mariadb.execute("SHOW GLOBAL VARIABLES WHERE Variable_name IN"
                                    " ('max_connections', 'innodb_buffer_pool_size', 'sync_binlog')"))
    enabled = {name for (name,) in mariadb.execute("SELECT NAME FROM information_schema.INNODB_METRICS WHERE ENABLED")}
    metrics = values_of(result, "innodb_metrics")
    assert count == 1
    assert {f"var:{name}": int(value) for name, value in settings.items()}.items() <= values_of(
        first, "variables").items()
    assert metrics and set(metrics) <= {f"innodb_metrics:{name}" for name in enabled}
