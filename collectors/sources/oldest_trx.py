# SELECT ... FROM information_schema.INNODB_TRX LEFT JOIN <processlist> ORDER BY trx_started LIMIT 10.
"""The oldest open InnoDB transactions: who holds back purge, and for how long.

Series (gauges): trx_oldest_age_s, trx_older_60s, trx_read_view_age_s. The identity of the
oldest transaction (thread, user, host, state, statement) is not a series: it travels in
Reading.extra["holder"] and collectors.holders keeps it as an event when it changes.

Needs only PROCESS (INNODB_TRX, and every thread of the processlist). Version differences:
- MySQL 5.5-8.4 and MariaDB 5.5+: INNODB_TRX has the columns read here (trx_isolation_level
  since the InnoDB plugin 1.0.4, i.e. every 5.5);
- MySQL 8.0.22+ with performance_schema ON: performance_schema.processlist instead of the
  deprecated information_schema.PROCESSLIST (which takes a global mutex to answer);
- an idle holder shows no statement in either table: its last statement is read from
  performance_schema.events_statements_current where that is on (MySQL 5.6+, MariaDB 10.0+).

No server exposes read views cheaply (only SHOW ENGINE INNODB STATUS prints them), so the
read-view age is derived per transaction from its isolation level: REPEATABLE READ keeps one
view from its first consistent read (or START TRANSACTION WITH CONSISTENT SNAPSHOT) to its end,
READ COMMITTED only for the statement running, READ UNCOMMITTED and SERIALIZABLE none
(SERIALIZABLE's reads lock instead, except autocommit SELECTs, which run as a statement).
"""

from dataclasses import asdict, dataclass

import pymysql

from collectors.connection import ServerInfo
from collectors.source import Reading, Source, SourceUnavailable, query

NAME = "oldest_trx"
LIMIT = 10  # the oldest few: the holder, and enough to count the old ones without a second statement
OLD_AFTER = 60  # seconds: "transactions older than a minute"
STATEMENT_CHARS = 200

COLUMNS = ("t.trx_mysql_thread_id, TIMESTAMPDIFF(SECOND, t.trx_started, NOW()), t.trx_isolation_level,"
           " t.trx_state, t.trx_id, t.trx_started, p.USER, p.HOST, p.COMMAND, p.TIME,"
           " LEFT(COALESCE(t.trx_query, p.INFO), {chars})")
TRX_SQL = ("SELECT " + COLUMNS + " FROM information_schema.INNODB_TRX t LEFT JOIN {processlist} p"
           " ON p.ID = t.trx_mysql_thread_id ORDER BY t.trx_started, t.trx_mysql_thread_id LIMIT {limit}")
IS_PROCESSLIST, PFS_PROCESSLIST = "information_schema.PROCESSLIST", "performance_schema.processlist"
# Only when LIMIT rows are all old: how many more there are.
OLD_COUNT_SQL = ("SELECT COUNT(*) FROM information_schema.INNODB_TRX"
                 f" WHERE trx_started < NOW() - INTERVAL {OLD_AFTER} SECOND")
# An idle holder's last statement (performance_schema keeps it after the statement ended).
LAST_STATEMENT_SQL = (f"SELECT LEFT(e.SQL_TEXT, {STATEMENT_CHARS}) FROM performance_schema.events_statements_current e"
                      " JOIN performance_schema.threads th ON th.THREAD_ID = e.THREAD_ID"
                      " WHERE th.PROCESSLIST_ID = %s ORDER BY e.EVENT_ID DESC LIMIT 1")
NO_PROCESS = ("INNODB_TRX needs the PROCESS privilege, so the oldest transactions (age, holder, statement) "
              "cannot be read: GRANT PROCESS ON *.* TO the monitoring user (docs/privileges.md)")
ACCESS_DENIED = (1227, 1044, 1142)


@dataclass(frozen=True)
class Trx:
    """One row of the statement above, typed."""

    thread_id: int
    age_s: int
    isolation: str
    state: str
    key: str  # what tells this transaction from the next one of the same thread
    user: str | None
    host: str | None
    command: str | None
    statement_s: int | None  # how long the current statement has run (processlist TIME)
    statement: str | None

    def read_view_age(self) -> int | None:
        if self.isolation == "REPEATABLE READ":
            return self.age_s
        running = self.statement is not None and self.command not in (None, "Sleep")
        if self.isolation == "READ COMMITTED" and running:
            return min(self.age_s, self.statement_s or 0)
        return None


def text(value) -> str | None:
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return None if value is None else str(value)


def integer(value) -> int | None:
    return None if value is None else int(value)


def parse_row(row: tuple) -> Trx:
    thread, age, isolation, state, trx_id, started, user, host, command, seconds, statement = row
    key = f"{thread}/{text(trx_id)}/{text(started)}"  # a read-only trx's id is reused by its thread: start too
    return Trx(int(thread), max(0, int(age or 0)), text(isolation) or "", text(state) or "", key, text(user),
               text(host), text(command), integer(seconds), text(statement))


def processlist(info: ServerInfo) -> str:
    if info.flavor == "mysql" and info.version_tuple >= (8, 0, 22) and info.performance_schema:
        return PFS_PROCESSLIST
    return IS_PROCESSLIST


def trx_sql(info: ServerInfo) -> str:
    return TRX_SQL.format(chars=STATEMENT_CHARS, processlist=processlist(info), limit=LIMIT)


def has_last_statement(info: ServerInfo) -> bool:
    minimum = (10, 0, 0) if info.flavor == "mariadb" else (5, 6, 0)
    return info.performance_schema and info.version_tuple >= minimum


def read_trx(conn: pymysql.Connection, info: ServerInfo) -> list[Trx]:
    try:
        return [parse_row(row) for row in query(conn, trx_sql(info))]
    except pymysql.MySQLError as exc:
        if exc.args and exc.args[0] in ACCESS_DENIED:
            raise SourceUnavailable(NO_PROCESS) from exc
        raise


def older_count(conn: pymysql.Connection, rows: list[Trx]) -> int:
    old = sum(1 for t in rows if t.age_s > OLD_AFTER)
    if old == LIMIT:  # every row read is old: there may be more
        return int(query(conn, OLD_COUNT_SQL)[0][0])
    return old


def last_statement(conn: pymysql.Connection, info: ServerInfo, holder: Trx) -> str | None:
    if holder.statement or not holder.thread_id or not has_last_statement(info):
        return holder.statement
    rows = query(conn, LAST_STATEMENT_SQL, (holder.thread_id,))
    return text(rows[0][0]) if rows and rows[0][0] else None


def holder_of(conn: pymysql.Connection, info: ServerInfo, oldest: Trx) -> dict:
    """The oldest transaction as an identity to keep (collectors.holders)."""
    statement = last_statement(conn, info, oldest)
    idle = oldest.statement is None and statement is not None
    return {**asdict(oldest), "statement": statement, "idle": idle}


def collect(conn: pymysql.Connection, info: ServerInfo) -> Reading:
    rows = read_trx(conn, info)
    views = [age for age in (t.read_view_age() for t in rows) if age is not None]
    values = {"trx_oldest_age_s": rows[0].age_s if rows else 0, "trx_older_60s": older_count(conn, rows),
              "trx_read_view_age_s": max(views, default=0)}
    holder = holder_of(conn, info, rows[0]) if rows else None
    return Reading(values, frozenset(), extra={"holder": holder})


SOURCE = Source(
    name=NAME,
    help="information_schema.INNODB_TRX: trx_oldest_age_s, trx_older_60s, trx_read_view_age_s (gauges); "
         "the oldest transaction's thread, user, host and statement kept as events",
    flavors=frozenset(("mysql", "mariadb")),
    min_version={"mysql": (5, 5, 0), "mariadb": (5, 5, 0)},
    interval=None,
    collect=collect,
)
