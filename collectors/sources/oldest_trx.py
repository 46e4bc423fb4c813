# SELECT ... FROM information_schema.INNODB_TRX LEFT JOIN <processlist> ORDER BY trx_started LIMIT 10.
"""The oldest open InnoDB transactions: who holds back purge, and for how long.

Series (gauges): trx_oldest_age_s, trx_older_60s, trx_read_view_age_s. The identity of the
oldest transaction (thread, user, host, state, statement) is not a series: it travels in
Reading.extra["holder"] and collectors.holders keeps it as an event when it changes.

Needs only PROCESS (INNODB_TRX, and every thread of the processlist); with SELECT on
performance_schema (granted to the monitoring user anyway) it reads the threads there instead,
which is cheaper, and can name an idle holder's last statement. Version differences:
- MySQL 5.5-8.4 and MariaDB 5.5+: INNODB_TRX has the columns read here (trx_isolation_level
  since the InnoDB plugin 1.0.4, i.e. every 5.5);
- the holders' user, host, command and time: performance_schema.threads PROCESSLIST_* columns
  (MySQL 5.6+, MariaDB 10.0+, performance_schema ON), else information_schema.PROCESSLIST;
- an idle holder has no trx_query: its last statement is read from
  performance_schema.events_statements_current where that is on (MySQL 5.6+, MariaDB 10.0+).
Statement cost: one statement (on MariaDB 10.3+ a part of the poll's shared one), plus the
holder's thread and last statement when the oldest transaction changes, plus the threads of
READ COMMITTED transactions running a statement.

No server exposes read views cheaply (only SHOW ENGINE INNODB STATUS prints them), so the
read-view age is derived per transaction from its isolation level: REPEATABLE READ keeps one
view from its first consistent read (or START TRANSACTION WITH CONSISTENT SNAPSHOT) to its end,
READ COMMITTED only for the statement running, READ UNCOMMITTED and SERIALIZABLE none
(SERIALIZABLE's reads lock instead, except autocommit SELECTs, which run as a statement).
"""

from dataclasses import asdict, dataclass, replace

import pymysql

from collectors import weakened
from collectors.connection import ServerInfo
from collectors.metric import Metric
from collectors.monitor_enable import pfs_on_fix
from collectors.source import FIELD_SEP, ROW_SEP, Reading, Source, SourceUnavailable, query, split_counted, sql_list

NAME = "oldest_trx"
LIMIT = 10  # the oldest few: the holder, and enough to count the old ones without a second statement
OLD_AFTER = 60  # seconds: "transactions older than a minute"
STATEMENT_CHARS = 200

# INNODB_TRX alone: its rows are copied from a cache InnoDB refreshes at most every 0.1 s.
TRX_SQL = ("SELECT trx_mysql_thread_id, TIMESTAMPDIFF(SECOND, trx_started, NOW()), trx_isolation_level,"
           f" trx_state, trx_id, trx_started, LEFT(trx_query, {STATEMENT_CHARS})"
           f" FROM information_schema.INNODB_TRX ORDER BY trx_started, trx_mysql_thread_id LIMIT {LIMIT}")
# The same rows as a part of the poll's shared statement (collectors.shared_read), MariaDB 10.3+
# (GROUP_CONCAT ... LIMIT): the statement's line breaks and tabs become spaces, none is a NULL.
TRX_COUNTED = (
    f"(SELECT CONCAT_WS('{ROW_SEP}', LEAST(COUNT(*), {LIMIT}), GROUP_CONCAT(trx_mysql_thread_id, '{FIELD_SEP}',"
    f" TIMESTAMPDIFF(SECOND, trx_started, NOW()), '{FIELD_SEP}', trx_isolation_level, '{FIELD_SEP}', trx_state,"
    f" '{FIELD_SEP}', trx_id, '{FIELD_SEP}', trx_started, '{FIELD_SEP}', IFNULL(REPLACE(REPLACE(LEFT(trx_query,"
    f" {STATEMENT_CHARS}), '{ROW_SEP}', ' '), '{FIELD_SEP}', ' '), '') ORDER BY trx_started, trx_mysql_thread_id"
    f" SEPARATOR '{ROW_SEP}' LIMIT {LIMIT})) FROM information_schema.INNODB_TRX)"
)
SHARED_SINCE_MARIADB = (10, 3, 0)
# Who runs those transactions, only when there are some. performance_schema.threads takes no
# global mutex; information_schema.PROCESSLIST (PFS off, MySQL 5.5) builds the whole list to answer.
PFS_THREADS_SQL = ("SELECT PROCESSLIST_ID, PROCESSLIST_USER, PROCESSLIST_HOST, PROCESSLIST_COMMAND,"
                   " PROCESSLIST_TIME FROM performance_schema.threads WHERE PROCESSLIST_ID IN ({ids})")
IS_THREADS_SQL = "SELECT ID, USER, HOST, COMMAND, TIME FROM information_schema.PROCESSLIST WHERE ID IN ({ids})"
# Only when LIMIT rows are all old: how many more there are.
OLD_COUNT_SQL = ("SELECT COUNT(*) FROM information_schema.INNODB_TRX"
                 f" WHERE trx_started < NOW() - INTERVAL {OLD_AFTER} SECOND")
# An idle holder's last statement (performance_schema keeps it after the statement ended). Only while the
# consumers that fill the table are on: turning them off leaves its rows as they were (measured on MariaDB
# 10.11: a session's connect-time SET NAMES shown as its last statement long after).
LAST_STATEMENT_SQL = (f"SELECT LEFT(e.SQL_TEXT, {STATEMENT_CHARS}) FROM performance_schema.events_statements_current e"
                      " JOIN performance_schema.threads th ON th.THREAD_ID = e.THREAD_ID"
                      " WHERE th.PROCESSLIST_ID = %s AND (SELECT COUNT(*) FROM performance_schema.setup_consumers"
                      f" WHERE NAME IN ({sql_list(weakened.STATEMENT_CONSUMERS)}) AND ENABLED = 'YES') = 3"
                      " ORDER BY e.EVENT_ID DESC LIMIT 1")
NO_PROCESS = ("INNODB_TRX needs the PROCESS privilege, so the oldest transactions (age, holder, statement) "
              "cannot be read: GRANT PROCESS ON *.* TO the monitoring user (docs/privileges.md)")
ACCESS_DENIED = (1227, 1044, 1142, 1143)


@dataclass(frozen=True)
class Trx:
    """One INNODB_TRX row, typed; the client thread's columns when they were read."""

    thread_id: int
    age_s: int
    isolation: str
    state: str
    key: str  # what tells this transaction from the next one of the same thread
    statement: str | None  # trx_query: the statement running now, None between statements
    user: str | None = None
    host: str | None = None
    command: str | None = None
    statement_s: int | None = None  # how long the running statement has run (processlist TIME)

    def needs_statement_time(self) -> bool:
        return self.isolation == "READ COMMITTED" and self.statement is not None

    def read_view_age(self) -> int | None:
        if self.isolation == "REPEATABLE READ":
            return self.age_s
        if self.needs_statement_time():
            return min(self.age_s, self.statement_s or 0)
        return None


def text(value) -> str | None:
    if isinstance(value, bytes):
        return value.decode(errors="replace")
    return None if value is None else str(value)


def integer(value) -> int | None:
    return None if value is None else int(value)


def parse_row(row: tuple) -> Trx:
    thread, age, isolation, state, trx_id, started, statement = row
    statement = statement or None  # the shared text has '' where the column is NULL
    key = f"{thread}/{text(trx_id)}/{text(started)}"  # a read-only trx's id is reused by its thread: start too
    return Trx(int(thread), max(0, int(age or 0)), text(isolation) or "", text(state) or "", key, text(statement))


def with_thread(trx: Trx, thread: tuple | None) -> Trx:
    if thread is None:
        return trx
    user, host, command, seconds = thread
    return replace(trx, user=text(user), host=text(host), command=text(command), statement_s=integer(seconds))


def has_pfs_threads(info: ServerInfo) -> bool:
    """performance_schema.threads with PROCESSLIST_* columns, and events_statements_current."""
    return info.performance_schema and weakened.has_statement_events(info)


def read_threads(conn: pymysql.Connection, info: ServerInfo, ids: set[int]) -> dict[int, tuple]:
    """thread id -> (user, host, command, seconds) of these client threads."""
    ids = ids - {0}  # 0: a recovered or background transaction, no client
    if not ids:
        return {}
    listed = ", ".join(map(str, sorted(ids)))
    found = answer_or_none(conn, PFS_THREADS_SQL.format(ids=listed)) if has_pfs_threads(info) else None
    if found is None:  # performance_schema not granted (PROCESS is all this source needs), or too old
        found = query(conn, IS_THREADS_SQL.format(ids=listed))
    return {int(r[0]): tuple(r[1:]) for r in found}


def answer_or_none(conn: pymysql.Connection, sql: str, args=None) -> list[tuple] | None:
    """The rows, or None when the monitoring user may not read that table."""
    try:
        return query(conn, sql, args)
    except pymysql.MySQLError as exc:
        if exc.args and exc.args[0] in ACCESS_DENIED:
            return None
        raise


def read_trx(conn: pymysql.Connection) -> list[Trx]:
    try:
        return [parse_row(row) for row in query(conn, TRX_SQL)]
    except pymysql.MySQLError as exc:
        if exc.args and exc.args[0] in ACCESS_DENIED:
            raise SourceUnavailable(NO_PROCESS) from exc
        raise


def older_count(conn: pymysql.Connection, rows: list[Trx]) -> int:
    old = sum(1 for t in rows if t.age_s > OLD_AFTER)
    if old == LIMIT:  # every row read is old: there may be more
        return int(query(conn, OLD_COUNT_SQL)[0][0])
    return old


NO_CLIENT = "a background or recovered transaction: no client thread, so no statement"
NO_PFS_GRANT = ("the monitoring user may not read performance_schema, where an idle transaction's last statement "
                "is kept: GRANT SELECT ON performance_schema.* TO the monitoring user")
NOT_KEPT = ("performance_schema kept no statement for its thread (it ran before events_statements_current was "
            "turned on, or its thread is not instrumented: setup_actors)")


def last_statement(conn: pymysql.Connection, info: ServerInfo, holder: Trx) -> tuple[str | None, str]:
    """(the running or last statement, why there is none: "" when there is one)."""
    if holder.statement:
        return holder.statement, ""
    if not holder.thread_id:
        return None, NO_CLIENT
    if not has_pfs_threads(info):
        return None, no_pfs_reason(info)
    rows = answer_or_none(conn, LAST_STATEMENT_SQL, (holder.thread_id,))
    if rows and rows[0][0]:
        return text(rows[0][0]), ""
    return None, NO_PFS_GRANT if rows is None else consumers_reason(conn)


def no_pfs_reason(info: ServerInfo) -> str:
    # The version first: performance_schema ON would not give MySQL 5.5 statement events (nor a restart for it).
    if not weakened.has_statement_events(info):
        return f"{info.label} has no performance_schema statement events (MySQL 5.6, MariaDB 10.0 and later have)"
    return (f"performance_schema is OFF, so an idle transaction's last statement cannot be read: "
            f"{pfs_on_fix(info.flavor)}")


def consumers_reason(conn: pymysql.Connection) -> str:
    """Why performance_schema has no statement for the holder: a consumer off, said with the statement that
    turns it on; else it was not kept."""
    off = weakened.consumers_off(conn)
    return f"{off[0].setting} is off on this server, so it keeps no statements: {off[0].fix}" if off else NOT_KEPT


def holder_of(conn: pymysql.Connection, info: ServerInfo, oldest: Trx) -> dict:
    """The oldest transaction as an identity to keep (collectors.holders), with why its statement is missing."""
    statement, missing = last_statement(conn, info, oldest)
    idle = oldest.statement is None and statement is not None
    return {**asdict(oldest), "statement": statement, "idle": idle, "statement_missing": missing}


# The holder each monitoring connection saw last: while the same transaction stays the oldest, its
# identity is not read again (two statements fewer per poll). Keyed by the server's id of our
# connection, so a reconnect (or another worker) reads it once more; bounded, as connections come and go.
KNOWN: dict[tuple, dict] = {}
KNOWN_MAX = 10_000


def connection_key(conn: pymysql.Connection) -> tuple:
    return (getattr(conn, "host", ""), getattr(conn, "port", 0), conn.thread_id())


def known_holder(conn: pymysql.Connection, oldest: Trx) -> dict | None:
    known = KNOWN.get(connection_key(conn))
    return known if known is not None and known["key"] == oldest.key else None


def remember(conn: pymysql.Connection, holder: dict | None) -> None:
    if len(KNOWN) >= KNOWN_MAX:
        KNOWN.clear()
    if holder is None:
        KNOWN.pop(connection_key(conn), None)
    else:
        KNOWN[connection_key(conn)] = holder


def collect(conn: pymysql.Connection, info: ServerInfo) -> Reading:
    return reading(conn, info, read_trx(conn))


def shared(info: ServerInfo) -> tuple[str, ...]:
    return (TRX_COUNTED,) if info.flavor == "mariadb" and info.version_tuple >= SHARED_SINCE_MARIADB else ()


def from_shared(texts: tuple, conn: pymysql.Connection, info: ServerInfo) -> Reading | None:
    rows = split_counted(texts[0])
    return None if rows is None else reading(conn, info, [parse_row(row) for row in rows])


def reading(conn: pymysql.Connection, info: ServerInfo, rows: list[Trx]) -> Reading:
    known = known_holder(conn, rows[0]) if rows else None
    wanted = {t.thread_id for t in rows if t.needs_statement_time()}
    if rows and known is None:
        wanted.add(rows[0].thread_id)
    threads = read_threads(conn, info, wanted)
    rows = [with_thread(t, threads.get(t.thread_id)) for t in rows]
    views = [age for age in (t.read_view_age() for t in rows) if age is not None]
    values = {"trx_oldest_age_s": rows[0].age_s if rows else 0, "trx_older_60s": older_count(conn, rows),
              "trx_read_view_age_s": max(views, default=0)}
    if known is not None:  # the same transaction: its identity as first read, its age as now
        known = {**known, "age_s": rows[0].age_s}
    holder = (known or holder_of(conn, info, rows[0])) if rows else None
    remember(conn, holder)
    return Reading(values, frozenset(), extra={"holder": holder})


METRICS = (
    Metric.gauge("trx_oldest_age_s", "s", "age of the oldest open InnoDB transaction, 0 when none"),
    Metric.gauge("trx_older_60s", "transactions", "open transactions older than a minute"),
    Metric.gauge("trx_read_view_age_s", "s", "age of the oldest read view (what holds purge back)"),
)


SOURCE = Source(
    name=NAME,
    help="information_schema.INNODB_TRX: trx_oldest_age_s, trx_older_60s, trx_read_view_age_s (gauges); "
         "the oldest transaction's thread, user, host and statement kept as events",
    flavors=frozenset(("mysql", "mariadb")),
    min_version={"mysql": (5, 5, 0), "mariadb": (5, 5, 0)},
    interval=None,
    collect=collect,
    metrics=METRICS,
    shared=shared,
    from_shared=from_shared,
)
