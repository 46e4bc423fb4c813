"""TPS counts every transaction: explicit, autocommit and mixed workloads of known size on the test MariaDB.

Each workload's size is counted by the test as it runs it; the collector's tps deltas,
summed over the workload, must be within 5 % of it.
"""

import pytest

from collectors import pool, registry, transactions
from collectors.batch import poll_server
from collectors.pool import POOL
from testing.collectors import DISABLE_SUMMARY, ENABLE_SUMMARY, LOAD_DB

TOLERANCE = 0.05
INNODB_TRX = ("trx_rw_commits", "trx_ro_commits", "trx_nl_ro_commits")


@pytest.fixture
def innodb_trx_counters(mariadb):
    mariadb.execute(*[f"SET GLOBAL innodb_monitor_enable = '{name}'" for name in INNODB_TRX])
    yield
    mariadb.execute(*[f"SET GLOBAL innodb_monitor_disable = '{name}'" for name in INNODB_TRX])
    mariadb.execute(*[f"SET GLOBAL innodb_monitor_reset_all = '{name}'" for name in INNODB_TRX])


class Workload:
    """Transactions of known kinds on one connection; `ran` counts each one as it ends."""

    def __init__(self, mariadb):
        self.conn = mariadb.connect()
        self.ran = 0

    def explicit(self, commits: int, rollbacks: int = 0) -> None:
        with self.conn.cursor() as cur:
            for i in range(commits + rollbacks):
                cur.execute("BEGIN")
                cur.execute(f"INSERT INTO {LOAD_DB}.t (v) VALUES (%s)", (i,))
                cur.execute(f"UPDATE {LOAD_DB}.t SET v = v + 1 WHERE id = 1")
                cur.execute("COMMIT" if i < commits else "ROLLBACK")
                self.ran += 1

    def autocommit(self, updates: int, selects: int = 0) -> None:
        with self.conn.cursor() as cur:
            for i in range(updates):
                cur.execute(f"UPDATE {LOAD_DB}.t SET v = v + 1 WHERE id = %s", (i % 5 + 1,))
                self.ran += 1
            for i in range(selects):  # a read-only transaction of its own in autocommit mode
                cur.execute(f"SELECT v FROM {LOAD_DB}.t WHERE id = %s", (i % 5 + 1,))
                self.ran += 1

    def close(self) -> None:
        self.conn.close()


@pytest.fixture
def workload(mariadb, load):  # load: the table exists
    work = Workload(mariadb)
    yield work
    work.close()


# global_status alone reads with its own statements; beside pfs_waits, within the poll's shared one.
ALONE, SHARED = ["global_status"], ["global_status", "pfs_waits"]


def run_polled(server, steps, only=ALONE) -> tuple[int | float, int | float, str]:
    """Poll before and between the steps; the sums of the tps and tps_explicit deltas, and the note."""
    poll_server(server.id, only=only)
    tps: int | float = 0
    explicit: int | float = 0
    for step in steps:
        step()
        outcome = poll_server(server.id, only=only).sources[0]
        assert outcome.ok and outcome.sample and outcome.sample.interval is not None, outcome.error or outcome.reset
        tps += outcome.sample.values.get("tps", 0)
        explicit += outcome.sample.values["tps_explicit"]
    return tps, explicit, outcome.note


def assert_close(measured: int, ran: int) -> None:
    assert ran > 0 and abs(measured - ran) <= TOLERANCE * ran, f"tps summed to {measured}, the workload ran {ran}"


@pytest.mark.usefixtures("transaction_instrument")
@pytest.mark.parametrize("only", [ALONE, SHARED])
def test_with_the_transaction_summary_every_kind_of_transaction_counts(server, workload, only):
    steps = [lambda: workload.explicit(60, rollbacks=10), lambda: workload.autocommit(150),
             lambda: (workload.explicit(20), workload.autocommit(40, selects=40))]
    tps, explicit, note = run_polled(server, steps, only)
    assert workload.ran == 70 + 150 + 20 + 80
    assert_close(tps, workload.ran)
    assert explicit == 60 + 10 + 20  # its own series: the COMMIT and ROLLBACK statements only
    assert note == transactions.DEFINITIONS[transactions.TRX_SUMMARY]


@pytest.mark.usefixtures("innodb_trx_counters")
@pytest.mark.parametrize("only", [ALONE, SHARED])
def test_with_innodb_trx_counters_autocommit_counts_too(server, workload, only):
    steps = [lambda: workload.explicit(50, rollbacks=5), lambda: workload.autocommit(120, selects=30)]
    tps, explicit, note = run_polled(server, steps, only)
    assert_close(tps, 55 + 150)
    assert explicit == 55 and note == transactions.DEFINITIONS[transactions.INNODB_TRX]


@pytest.mark.usefixtures("innodb_trx_counters")
def test_the_transaction_counter_costs_no_statement_of_its_own_in_the_shared_one(server, mariadb):
    poll_server(server.id, only=SHARED)  # connected: the basis chosen
    before = user_statements(mariadb)
    outcome = poll_server(server.id, only=SHARED).sources[0]
    assert user_statements(mariadb) - before == 1
    assert outcome.note == transactions.DEFINITIONS[transactions.INNODB_TRX] and "tps" in outcome.sample.values


@pytest.mark.usefixtures("innodb_trx_counters")
def test_a_better_counter_turned_on_is_read_in_the_poll_that_takes_it(server, mariadb, workload, monkeypatch):
    """The re-check follows the shared statement, whose texts then hold the old counter's part: not read as the new."""
    poll_server(server.id, only=SHARED)  # connected on InnoDB's counters
    monkeypatch.setattr(pool, "BASIS_RECHECK_S", 0)  # the collector takes a new counter within a minute
    mariadb.execute(ENABLE_SUMMARY)
    try:
        taken = poll_server(server.id, only=SHARED).sources[0]  # the summary's first reading: its baseline, no delta
        workload.autocommit(80)
        counted = poll_server(server.id, only=SHARED).sources[0]
    finally:
        mariadb.execute(DISABLE_SUMMARY)
    assert taken.ok and taken.note == transactions.DEFINITIONS[transactions.TRX_SUMMARY], taken.error
    assert_close(counted.sample.values["tps"], 80)
    assert counted.note == transactions.DEFINITIONS[transactions.TRX_SUMMARY]


def user_statements(mariadb) -> int:
    return int(mariadb.execute("SELECT SUM(COUNT_STAR) FROM performance_schema."
                               "events_statements_summary_by_user_by_event_name WHERE USER = 'steady'")[0][0])


def test_without_either_only_explicit_transactions_count_and_the_note_says_so(server, workload):
    tps, explicit, note = run_polled(server, [lambda: workload.explicit(30), lambda: workload.autocommit(100)])
    assert tps == explicit == 30  # the 100 autocommit UPDATEs are not seen: the note says how to see them
    assert note.startswith(transactions.DEFINITIONS[transactions.EXPLICIT])
    assert "SET ENABLED='YES' WHERE NAME='transaction'" in note and "innodb_monitor_enable" in note


def test_a_server_that_turns_the_instrument_on_is_read_that_way_at_the_next_connection(server, mariadb, workload):
    poll_server(server.id, only=["global_status"])
    mariadb.execute(ENABLE_SUMMARY)
    try:
        POOL.close_all()  # what a worker restart or a lost connection does
        tps, _, note = run_polled(server, [lambda: workload.autocommit(80)])
    finally:
        mariadb.execute(DISABLE_SUMMARY)
    assert_close(tps, 80)
    assert note.startswith("TPS = transactions per second from performance_schema")


@pytest.mark.usefixtures("transaction_instrument")
def test_the_collectors_own_reads_are_no_transactions(server):
    for _ in range(4):
        outcome = next(s for s in poll_server(server.id, only=list(registry.SOURCES)).sources
                       if s.name == "global_status")
    assert outcome.note == transactions.DEFINITIONS[transactions.TRX_SUMMARY]
    assert outcome.sample.values["tps"] == 0  # every source ran on the same server in between
