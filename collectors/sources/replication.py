# SHOW REPLICA STATUS (MySQL 8.0.22+), SHOW ALL SLAVES STATUS (MariaDB 10.0+), else SHOW SLAVE STATUS.
"""Replication at a glance: how far behind the source a replica is, and whether its threads run.

Series (gauges), one set per channel (a MySQL channel or a MariaDB connection name; the
default one without a suffix): replica.lag_s[:<channel>] (Seconds_Behind_Source, not stored
while it is NULL, i.e. while a thread is stopped), replica.io_running[:<channel>] and
replica.sql_running[:<channel>] (1 = Yes, 0 = No or Connecting). The threads' state and last
errors go into the source's note, which the "replication stopped" alert quotes.

A server that is no replica returns no rows: nothing is stored, the source is ok, and it is
read there once a minute (Source.quiet_interval) until a channel shows up. On MariaDB 10.6+
with performance_schema, once SHOW ALL SLAVES STATUS ran on a connection (so its user may read
replica status), a count of performance_schema's configured connections (stopped ones included)
stands in for it while it is zero: one column instead of SHOW's 62, read as a part of the poll's
shared statement (collectors.shared_read) rather than a statement of its own.
Column names by version: MySQL 8.0.22+ Replica_IO_Running / Replica_SQL_Running /
Seconds_Behind_Source; earlier MySQL and every MariaDB Slave_IO_Running / Slave_SQL_Running /
Seconds_Behind_Master; the channel is Channel_Name (MySQL 5.7+) or Connection_name (MariaDB).
Privileges: REPLICATION CLIENT (MySQL, MariaDB < 10.5.2), REPLICATION SLAVE ADMIN (MariaDB 10.5.2-10.5.8),
SLAVE MONITOR (MariaDB 10.5.9+).
"""

from dataclasses import dataclass

import pymysql

from collectors.connection import ServerInfo
from collectors.metric import Metric
from collectors.pool import is_connection_error
from collectors.setup_changes import connection_key
from collectors.source import Reading, Source, SourceUnavailable, number, query

NAME = "replication"
REPLICA_SQL = "SHOW REPLICA STATUS"
ALL_SLAVES_SQL = "SHOW ALL SLAVES STATUS"
SLAVE_SQL = "SHOW SLAVE STATUS"
LAG, IO, SQL = "replica.lag_s", "replica.io_running", "replica.sql_running"
# Every configured connection, running or stopped, as SHOW ALL SLAVES STATUS lists them (MariaDB 10.6.0+).
CONFIGURED_SQL = "SELECT COUNT(*) FROM performance_schema.replication_connection_configuration"
# The same count as a part of the poll's shared statement: a statement of its own cost the server 0.2 ms more
# than the part (docs/benchmarks.md, round 11).
CONFIGURED_PART = f"({CONFIGURED_SQL})"
CONFIGURED_SINCE = (10, 6, 0)
# Connections (setup_changes.connection_key) whose SHOW ... STATUS ran: their user may read replica status
# (a global privilege is the login's, for the connection's life), which the count does not ask.
SHOWN: set[tuple] = set()
MAX_SHOWN = 10_000
NOT_A_REPLICA = "not a replica (no replication channel configured)"
ACCESS_DENIED = 1227
NO_PRIVILEGE = ("{statement} needs {privilege}, so replication lag and thread state cannot be read: "
                "GRANT {privilege} ON *.* TO the monitoring user (docs/privileges.md)")


@dataclass(frozen=True)
class Channel:
    name: str
    io: str  # Yes / No / Connecting
    sql: str
    lag: int | None
    io_error: str
    sql_error: str

    def suffix(self) -> str:
        return f":{self.name}" if self.name else ""

    def values(self) -> dict[str, int]:
        out = {IO + self.suffix(): int(self.io == "Yes"), SQL + self.suffix(): int(self.sql == "Yes")}
        if self.lag is not None:
            out[LAG + self.suffix()] = self.lag
        return out

    def state(self) -> str:
        label = f"channel '{self.name}'" if self.name else "replication"
        lag = "n/a" if self.lag is None else f"{self.lag} s"
        errors = "; ".join(e for e in (self.io_error and f"I/O error: {self.io_error}",
                                       self.sql_error and f"SQL error: {self.sql_error}") if e)
        return f"{label}: I/O thread {self.io}, SQL thread {self.sql}, lag {lag}" + (f" ({errors})" if errors else "")


def statement(info: ServerInfo) -> str:
    if info.flavor == "mariadb":
        return ALL_SLAVES_SQL if info.version_tuple >= (10, 0, 0) else SLAVE_SQL
    return REPLICA_SQL if info.version_tuple >= (8, 0, 22) else SLAVE_SQL


# MariaDB 10.5.2 moved replica status from REPLICATION CLIENT to REPLICATION SLAVE ADMIN, 10.5.9 to SLAVE MONITOR
# (MariaDB's sql/privilege.h PRIV_STMT_SHOW_SLAVE_STATUS; MaxScale's monitor grants): newest first.
MARIADB_PRIVILEGES = (((10, 5, 9), "SLAVE MONITOR"), ((10, 5, 2), "REPLICATION SLAVE ADMIN"))


def privilege(info: ServerInfo) -> str:
    """The privilege this server's replica status statement needs."""
    if info.flavor == "mariadb":
        return next((name for since, name in MARIADB_PRIVILEGES if info.version_tuple >= since), "REPLICATION CLIENT")
    return "REPLICATION CLIENT"


def read_rows(conn: pymysql.Connection, sql: str) -> list[dict]:
    """Rows as {column: value}: the columns differ by flavor and version, so they are read by name."""
    with conn.cursor() as cur:
        cur.execute(sql)
        names = [d[0] for d in cur.description or ()]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def text(value) -> str:
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return "" if value is None else str(value)


def first(row: dict, *names: str) -> str:
    return next((text(row[n]) for n in names if n in row), "")


def parse_channel(row: dict) -> Channel:
    lag = number(first(row, "Seconds_Behind_Source", "Seconds_Behind_Master") or None)
    return Channel(first(row, "Channel_Name", "Connection_name"), first(row, "Replica_IO_Running", "Slave_IO_Running"),
                   first(row, "Replica_SQL_Running", "Slave_SQL_Running"), None if lag is None else int(lag),
                   first(row, "Last_IO_Error"), first(row, "Last_SQL_Error"))


def counts_configured(info: ServerInfo) -> bool:
    return info.flavor == "mariadb" and info.version_tuple >= CONFIGURED_SINCE and info.performance_schema


def configured(conn: pymysql.Connection) -> int | None:
    """How many replication connections the server has configured; None where it cannot be told."""
    try:
        return int(query(conn, CONFIGURED_SQL)[0][0])
    except pymysql.MySQLError as exc:
        if is_connection_error(exc):
            raise
        return None  # SHOW then, which says what is wrong


def read_channels(conn: pymysql.Connection, info: ServerInfo) -> list[Channel]:
    sql = statement(info)
    try:
        channels = [parse_channel(row) for row in read_rows(conn, sql)]
    except pymysql.MySQLError as exc:
        if exc.args and exc.args[0] == ACCESS_DENIED:
            raise SourceUnavailable(NO_PRIVILEGE.format(statement=sql, privilege=privilege(info))) from exc
        raise
    if counts_configured(info):
        if len(SHOWN) >= MAX_SHOWN:
            SHOWN.clear()
        SHOWN.add(connection_key(conn))
    return channels


def collect(conn: pymysql.Connection, info: ServerInfo) -> Reading:
    none = counts_configured(info) and connection_key(conn) in SHOWN and configured(conn) == 0
    return reading([] if none else read_channels(conn, info))


def shared(info: ServerInfo) -> tuple[str, ...]:
    return (CONFIGURED_PART,) if counts_configured(info) else ()


def from_shared(texts: tuple, conn: pymysql.Connection, info: ServerInfo) -> Reading | None:
    """The count read in the shared statement; None (collect) before SHOW ran on this connection."""
    if texts[0] is None or connection_key(conn) not in SHOWN:
        return None
    return reading([] if int(texts[0]) == 0 else read_channels(conn, info))


def reading(channels: list[Channel]) -> Reading:
    if not channels:
        return Reading({}, note=NOT_A_REPLICA, quiet=True)
    values = {key: value for channel in channels for key, value in channel.values().items()}
    return Reading(values, note="; ".join(c.state() for c in channels))


METRICS = (
    Metric.gauge("replica.lag_s", "s", "Seconds_Behind_Source/Master of the default channel"),
    Metric.gauge("replica.lag_s:", "s", "Seconds_Behind_Source/Master of a named channel"),
    Metric.gauge("replica.io_running", "1 = running", "the I/O thread runs (1) or not (0)"),
    Metric.gauge("replica.io_running:", "1 = running", "a named channel's I/O thread runs (1) or not (0)"),
    Metric.gauge("replica.sql_running", "1 = running", "the SQL thread runs (1) or not (0)"),
    Metric.gauge("replica.sql_running:", "1 = running", "a named channel's SQL thread runs (1) or not (0)"),
)


SOURCE = Source(
    name=NAME,
    help="SHOW REPLICA/SLAVE STATUS: replica.lag_s, replica.io_running, replica.sql_running (per channel, gauges)",
    flavors=frozenset(("mysql", "mariadb")),
    min_version={"mysql": (5, 5, 0), "mariadb": (5, 5, 0)},
    interval=None,
    # On a server that is no replica, once a minute: SHOW ... STATUS cost it 0.3-0.8 ms of a 3 ms
    # poll (docs/benchmarks.md), and a server is made a replica rarely. A replica: every poll.
    quiet_interval=60,
    collect=collect,
    metrics=METRICS,
    shared=shared,
    from_shared=from_shared,
)
