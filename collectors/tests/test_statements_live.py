"""Statement digests on the suite's MariaDB: known statements counted and timed, a TRUNCATE mid-run."""

import time
from datetime import UTC, datetime, timedelta

from collectors.batch import poll_server
from store import statement_reads

SLEEP_S = 0.05


class Shapes:
    """Three statement shapes run from root in a schema of their own, counted and timed by the client."""

    def __init__(self, mariadb, schema: str):
        self.schema, self.conn = schema, mariadb.connect()
        self.counts = {"select": 0, "update": 0, "sleep": 0}
        self.sleep_seconds = 0.0
        with self.conn.cursor() as cur:
            cur.execute(f"CREATE DATABASE IF NOT EXISTS {schema}")
            cur.execute(f"USE {schema}")
            cur.execute("CREATE TABLE IF NOT EXISTS t (id INT PRIMARY KEY, v INT) ENGINE=InnoDB")
            cur.execute("INSERT IGNORE INTO t VALUES (1, 0), (2, 0), (3, 0), (4, 0), (5, 0)")

    def run(self, seconds: float) -> None:
        end = time.monotonic() + seconds
        with self.conn.cursor() as cur:
            while time.monotonic() < end:
                for i in range(1, 6):
                    cur.execute("SELECT v FROM t WHERE id = %s", (i,))
                    cur.fetchall()
                    cur.execute("UPDATE t SET v = v + 1 WHERE id = %s", (i,))
                self.counts["select"] += 5
                self.counts["update"] += 5
                t0 = time.perf_counter()
                cur.execute(f"SELECT SLEEP({SLEEP_S}) FROM t WHERE id = 1")
                cur.fetchall()
                self.sleep_seconds += time.perf_counter() - t0
                self.counts["sleep"] += 1

    def close(self) -> None:
        self.conn.close()


def poll(server) -> None:
    result = poll_server(server.id, only=["statements"])
    found = next(s for s in result.sources if s.name == "statements")
    assert found.ok, found.error


def shape_of(row: statement_reads.DigestTotals) -> str | None:
    text = row.text.upper()
    if "SLEEP" in text:
        return "sleep"
    if text.startswith("UPDATE"):
        return "update"
    if text.startswith("SELECT") and "WHERE" in text:
        return "select"
    return None


def window_totals(server, since: datetime, schema: str) -> dict[str, statement_reads.DigestTotals]:
    rows = statement_reads.totals(server.id, since, datetime.now(UTC) + timedelta(seconds=1))
    return {shape: r for r in rows if r.schema == schema and (shape := shape_of(r))}


def test_known_statements_are_counted_ranked_and_timed(server, mariadb):
    shapes = Shapes(mariadb, "stmt_known")
    since = datetime.now(UTC)
    poll(server)  # the baseline: nothing stored
    shapes.run(2.5)
    poll(server)  # the three digests are new since the baseline: counted whole
    shapes.run(2.5)
    poll(server)  # now they moved: deltas
    shapes.close()
    got = window_totals(server, since, "stmt_known")
    for shape, run in shapes.counts.items():
        assert abs(got[shape].sums["execs"] - run) <= 0.02 * run, (shape, got[shape].sums["execs"], run)
    every = statement_reads.totals(server.id, since, datetime.now(UTC) + timedelta(seconds=1))
    assert max(every, key=lambda r: r.sums["time_ps"]).digest_id == got["sleep"].digest_id
    client_avg_s = shapes.sleep_seconds / shapes.counts["sleep"]
    server_avg_s = got["sleep"].avg_ps / 1e12
    assert abs(server_avg_s - client_avg_s) <= 0.10 * client_avg_s, (server_avg_s, client_avg_s)
    assert got["sleep"].intervals == 2 and "SLEEP" in got["sleep"].text.upper()


def test_a_truncate_of_the_digest_table_mid_run_is_no_negative_and_no_spike(server, mariadb):
    shapes = Shapes(mariadb, "stmt_reset")
    since = datetime.now(UTC)
    poll(server)
    shapes.run(1.0)
    poll(server)
    before = dict(shapes.counts)
    shapes.run(1.0)
    mariadb.execute("TRUNCATE TABLE performance_schema.events_statements_summary_by_digest")
    at_truncate = dict(shapes.counts)
    shapes.run(1.0)  # counted twice if the rows' running totals were taken as deltas after the reset
    poll(server)
    shapes.run(1.0)
    poll(server)
    shapes.close()
    got = window_totals(server, since, "stmt_reset")
    # Counted once each: up to the second read by delta, after the TRUNCATE from the re-created rows.
    # Those between the second read and the TRUNCATE went with the rows before anyone could read them.
    for shape, run in shapes.counts.items():
        expected = before[shape] + run - at_truncate[shape]
        assert got[shape].sums["execs"] == expected, (shape, got[shape].sums["execs"], expected)
    lines = statement_reads.lines(server.id, [r.digest_id for r in got.values()], since,
                                  datetime.now(UTC) + timedelta(seconds=1))
    values = [v for rows in lines.values() for row in rows for v in row[2:]]
    assert values and min(values) >= 0
