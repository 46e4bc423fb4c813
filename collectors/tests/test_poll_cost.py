"""What a poll costs the monitored server, counted by its own performance_schema."""

from collectors.batch import poll_server
from collectors.tests.test_sources_live import history_len_metric, values_of

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
